import { Extensions } from 'type-graphql';

/**
 * The field extension holding the function a connection field's resolver reads its page arguments with. Run over an operation's
 * arguments before execution (OperationWalk.argumentError), it refuses bad ones before any resolver runs, so no list item can fail
 * on them halfway through a response.
 */
export const PAGE_ARGUMENTS = 'pageArguments';

/** Reads a connection field's page arguments (as coerced by GraphQL), throwing BAD_USER_INPUT for bad ones. */
export type PageArgumentsReader = (args: Record<string, unknown>) => unknown;

/** Declares `read` as the reader of this connection field's page arguments (the one its resolver calls). */
export function ReadsPageArguments(read: (args: never) => unknown): MethodDecorator {
  return Extensions({ [PAGE_ARGUMENTS]: read });
}
