import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { type ASTNode, type DocumentNode, type GraphQLError, type GraphQLFormattedError, Kind, visit } from 'graphql';
import { AppError } from '../errors.js';
import { isConnectionError } from '../db/client.js';
import { isStatementCancelled } from '../db/statement-scope.js';
import { isTokenLimitError, limitError } from './limits.js';

const VALUE_KINDS = new Set<string>([
  Kind.VARIABLE,
  Kind.INT,
  Kind.FLOAT,
  Kind.STRING,
  Kind.BOOLEAN,
  Kind.NULL,
  Kind.ENUM,
  Kind.LIST,
  Kind.OBJECT,
]);

/**
 * Names the argument (and input fields, dotted) whose literal value `node` lies in, or
 * null when it lies in none. Used to turn "wrong value" validation errors into
 * BAD_USER_INPUT errors that say which argument was at fault.
 */
function argumentPathOf(document: DocumentNode, node: ASTNode): string | null {
  const start = node.loc?.start;
  if (start === undefined) return null;
  const contains = (n: ASTNode) => n.loc !== undefined && n.loc.start <= start && start < n.loc.end;
  let path: string[] | null = null;
  visit(document, {
    Argument(argument) {
      if (!contains(argument)) return false;
      path = [argument.name.value];
      return undefined;
    },
    ObjectField(field) {
      if (!path || !contains(field)) return false;
      path.push(field.name.value);
      return undefined;
    },
  });
  return path ? (path as string[]).join('.') : null;
}

/** Marks argument-value validation errors with the argument's name (see formatError). */
export function argumentErrorsPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async validationDidStart({ document }) {
          return async (errors?: readonly Error[]) => {
            for (const error of (errors ?? []) as readonly GraphQLError[]) {
              const node = error.nodes?.[0];
              if (!node || !VALUE_KINDS.has(node.kind)) continue;
              const argumentName = argumentPathOf(document, node);
              if (argumentName) (error.extensions as Record<string, unknown>).argumentName = argumentName;
            }
          };
        },
      };
    },
  };
}

export interface FormatErrorOptions {
  /** Include stack traces and internal messages (development only). */
  exposeInternals: boolean;
  onInternalError?: (error: unknown) => void;
}

/**
 * Gives every error a code from the catalogue (src/errors.ts) and keeps internals out of
 * responses: unexpected errors become INTERNAL_SERVER_ERROR with a generic message.
 */
export function createFormatError(options: FormatErrorOptions) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const { stacktrace, ...extensions } = (formatted.extensions ?? {}) as Record<string, unknown>;
    const keep = options.exposeInternals && stacktrace ? { stacktrace } : {};

    if (original instanceof AppError) {
      return { ...formatted, extensions: { ...extensions, ...original.details, code: original.code, ...keep } };
    }
    if (isConnectionError(original)) {
      return {
        ...formatted,
        message: 'The database is unavailable; retry shortly.',
        extensions: { code: 'DATABASE_UNAVAILABLE', ...keep },
      };
    }
    if (isStatementCancelled(original)) {
      return { ...formatted, message: 'A database statement ran out of time and was cancelled', extensions: { code: 'OPERATION_TIMEOUT', ...keep } };
    }
    const originalExtensions = (error as { originalError?: GraphQLError })?.originalError?.extensions;
    if (extensions.code === 'GRAPHQL_VALIDATION_FAILED' && originalExtensions?.code === 'QUERY_TOO_COMPLEX') {
      return { message: formatted.message, extensions: { ...extensions, code: 'QUERY_TOO_COMPLEX', ...keep } };
    }
    if (extensions.code === 'GRAPHQL_PARSE_FAILED' && isTokenLimitError(formatted.message)) {
      const max = Number(/(\d+) tokens/.exec(formatted.message)?.[1]);
      const limit = limitError('tokens', null, max);
      return { message: limit.message, extensions: { ...limit.extensions, ...keep } };
    }
    if (extensions.code === 'GRAPHQL_VALIDATION_FAILED' && originalExtensions?.argumentName) {
      const argumentName = String(originalExtensions.argumentName);
      return {
        ...formatted,
        message: `Invalid value for argument "${argumentName}": ${formatted.message}`,
        extensions: { code: 'BAD_USER_INPUT', argumentName, ...keep },
      };
    }
    const code = extensions.code as string | undefined;
    if (code && code !== 'INTERNAL_SERVER_ERROR') return { ...formatted, extensions: { ...extensions, ...keep } };

    options.onInternalError?.(original);
    return {
      ...formatted,
      message: options.exposeInternals ? formatted.message : 'Internal server error',
      extensions: { ...extensions, code: 'INTERNAL_SERVER_ERROR', ...keep },
    };
  };
}
