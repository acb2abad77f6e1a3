/**
 * JSON schemas of the REST form (docs/rest.md), in its snake_case names: the building blocks
 * of the resources' schemas, which are derived from their GraphQL types (resources.ts), and
 * the shared schemas of what is no resource (an error, a transaction's preview). They are the
 * routes' response schemas and, through @fastify/swagger, the OpenAPI components.
 */

export type Schema = Record<string, unknown>;

export const string = { type: 'string' } as const;
export const id = { type: 'string', format: 'uuid' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const number = { type: 'number' } as const;
export const integer = { type: 'integer' } as const;
export const boolean = { type: 'boolean' } as const;
/** `schema` or null (an enum lists null among its values, or null would not validate). */
export const nullable = (schema: Schema): Schema => ({
  ...schema,
  type: [schema.type as string, 'null'],
  ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}),
});
export const ref = (name: string): Schema => ({ $ref: `${name}#` });
export const nullableRef = (name: string): Schema => ({ anyOf: [ref(name), { type: 'null' }] });

/** An object schema named `name` (its $id): `required` properties, then `optional` ones (embedded relations are). */
export function object(name: string, description: string, required: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema {
  return {
    $id: name,
    type: 'object',
    description,
    properties: { ...required, ...optional },
    required: Object.keys(required),
    additionalProperties: false,
  };
}

export const ErrorSchema = {
  $id: 'Error',
  type: 'object',
  description: 'Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status.',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: string,
        message: string,
        argumentName: { ...string, description: 'With BAD_USER_INPUT: the parameter at fault.' },
        retryAfter: { ...integer, description: 'With RATE_LIMITED and OVERLOADED: seconds to wait (also the Retry-After header).' },
        requestId: { ...string, description: 'With INTERNAL_SERVER_ERROR: the id of the request in the logs.' },
      },
      required: ['code', 'message'],
      additionalProperties: true,
    },
  },
  required: ['error'],
  additionalProperties: false,
} as const;

const nullableNumber = nullable(number);
const nullableString = nullable(string);

/** The preview of a built transaction (see TransactionPreview in the GraphQL schema): tokens whole, SOL in lamports. */
export const TransactionPreviewSchema = object(
  'TransactionPreview',
  'What the transaction will do, as the chain simulates it now: show it before the wallet signs. ' +
    'Public chain state only; nothing is signed or sent.',
  {
    succeeds: { ...boolean, description: 'False: submitting it would be refused, see failure.' },
    failure: {
      anyOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['error', 'reason', 'logs'],
          properties: {
            error: { ...string, description: 'The chain’s error, JSON.' },
            reason: { ...string, description: 'The program’s reason.' },
            logs: { type: 'array', items: string },
          },
        },
        { type: 'null' },
      ],
    },
    fee_payer: { ...string, description: 'Who pays the fee: the service’s relayer.' },
    fee_lamports: integer,
    rent: {
      type: 'array',
      description: 'Rent of the accounts it opens, in lamports, and who pays it.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['account', 'payer', 'lamports'],
        properties: { account: string, payer: string, lamports: integer },
      },
    },
    instructions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['program', 'program_id', 'name', 'accounts', 'amount', 'mint', 'lamports', 'memo'],
        properties: {
          program: { ...string, description: 'spl-token, associated-token, memo, system, or the program’s address.' },
          program_id: string,
          name: { ...string, description: 'transferChecked, createIdempotent, create, memo, transfer, or unknown.' },
          accounts: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['role', 'address'],
              properties: { role: string, address: string },
            },
          },
          amount: { ...nullableNumber, description: 'Tokens it moves, whole.' },
          mint: nullableString,
          lamports: nullableNumber,
          memo: nullableString,
        },
      },
    },
    balance_changes: {
      type: 'array',
      description: 'Every account it writes: token balances in whole tokens (null: not a token account), SOL in lamports.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['account', 'owner', 'mint', 'before', 'after', 'change', 'lamports_before', 'lamports_after', 'lamports_change'],
        properties: {
          account: string,
          owner: nullableString,
          mint: nullableString,
          before: nullableNumber,
          after: nullableNumber,
          change: nullableNumber,
          lamports_before: integer,
          lamports_after: integer,
          lamports_change: integer,
        },
      },
    },
  },
);

/** OpenAPI security of the routes that act for the caller: any of the credentials /graphql takes. */
export const AUTHENTICATED: Array<Record<string, string[]>> = [{ bearer: [] }, { cookie: [] }, { apiKey: [] }];

/**
 * The shared schemas written here, registered once with fastify (and so listed in the
 * OpenAPI components) after the resources' (resources.ts), which are derived.
 */
export const SHARED_SCHEMAS: Schema[] = [TransactionPreviewSchema, ErrorSchema];
