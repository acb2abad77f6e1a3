/**
 * JSON schemas of the interface's resources (docs/rest.md), in its snake_case names: the
 * REST routes' response schemas and, through @fastify/swagger, the OpenAPI components.
 * Embedded relations are optional properties: present only when included.
 */

type Schema = Record<string, unknown>;

const string = { type: 'string' } as const;
const id = { type: 'string', format: 'uuid' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const number = { type: 'number' } as const;
const integer = { type: 'integer' } as const;
const boolean = { type: 'boolean' } as const;
const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });
export const ref = (name: string): Schema => ({ $ref: `${name}#` });
const nullableRef = (name: string): Schema => ({ anyOf: [ref(name), { type: 'null' }] });

function object(name: string, description: string, required: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema {
  return {
    $id: name,
    type: 'object',
    description,
    properties: { ...required, ...optional },
    required: Object.keys(required),
    additionalProperties: false,
  };
}

const record = { id, created_at: dateTime, updated_at: dateTime };

export const UserSchema = object(
  'User',
  'A wallet owner using the service.',
  {
    ...record,
    last_seen_at: nullable(dateTime),
    username: string,
    has_seen_tour: boolean,
    role: { type: 'string', enum: ['USER', 'ADMIN'] },
    wallet_address: string,
    avatar_id: nullable(id),
    twitter_username: nullable(string),
  },
  { email: { ...nullable(string), description: 'Only in your own record (GET /auth/me).' } },
);

export const ImageSchema = object('Image', 'An uploaded image.', { ...record, user_id: id, url: string });

export const ResolutionSchema = object('Resolution', 'The outcome of a resolved pool.', {
  ...record,
  pool_id: id,
  result: number,
  median: number,
  protocol_fee: { ...number, description: 'Whole tokens.' },
  leftover: { ...number, description: 'Whole tokens.' },
});

export const StreakSchema = object('Streak', 'A series of pools that rewards users who keep taking part.', {
  ...record,
  last_processed_pool_id: nullable(id),
  streak_accumulator_account: string,
  title: string,
  fee_percentage: number,
  payout_percentage: number,
  bump: integer,
  streak_count_required: integer,
  min_precision_score_required: number,
  total_accumulated: { ...number, description: 'Whole tokens.' },
  available_balance: { ...number, description: 'Whole tokens.' },
  onchain_balance: { ...number, description: 'Whole tokens.' },
  last_sync_at: nullable(dateTime),
});

export const RewardSchema = object('Reward', 'What a prediction earned when its pool was resolved.', {
  ...record,
  prediction_id: id,
  amount: { ...number, description: 'Whole tokens.' },
  precision_score: number,
  is_claimed: boolean,
  type: { type: 'string', enum: ['REWARD', 'REFUND'] },
});

export const PredictionSchema = object(
  'Prediction',
  "A user's predicted value on a pool, backed by a stake.",
  {
    ...record,
    pool_id: id,
    user_id: id,
    pool_account: string,
    predictor_account: string,
    prediction_account: string,
    prediction: number,
    precision: integer,
    stake_token_mint: string,
    stake: { ...number, description: 'Whole tokens.' },
    decimals: integer,
    last_applied_value_revision: integer,
    last_applied_stake_revision: integer,
    is_fee_payer: boolean,
    is_closed: boolean,
    bump: integer,
    last_sync_at: nullable(dateTime),
  },
  {
    user: ref('User'),
    reward: nullableRef('Reward'),
    streak: nullableRef('Streak'),
    pool: { ...ref('Pool'), description: 'Its pool, without relations.' },
  },
);

export const PoolSchema = object(
  'Pool',
  'A pool asking for a numeric outcome; embedded relations appear only when listed in `includes`.',
  {
    ...record,
    created_by: id,
    image_id: nullable(id),
    streak_id: nullable(id),
    title: string,
    description: string,
    pool_account: string,
    resolution_source: string,
    unit: { type: 'string', enum: ['USD'] },
    min_stake: { ...number, description: 'Whole tokens.' },
    max_stake: { ...number, description: 'Whole tokens.' },
    max_roi: number,
    stake_token_mint: string,
    decimals: integer,
    min_outcome: number,
    max_outcome: number,
    precision: integer,
    step: number,
    prediction_start_date: dateTime,
    prediction_end_date: dateTime,
    reference_date: dateTime,
    status: { type: 'string', enum: ['ACTIVE', 'PREDICTIONS_FROZEN', 'CLAIMS_FROZEN', 'FROZEN'] },
    is_closed: boolean,
    indexed_prediction_update_count: integer,
    platform_fee_rate: number,
    total_volume: { ...number, description: 'Whole tokens.' },
  },
  {
    user: ref('User'),
    resolution: nullableRef('Resolution'),
    image: nullableRef('Image'),
    streak: nullableRef('Streak'),
    predictions: { type: 'array', items: ref('Prediction'), description: 'Newest first, at most `predictions_limit`.' },
  },
);

export const StreakRewardSchema = object(
  'StreakReward',
  'A reward granted for completing a streak run.',
  { ...record, streak_id: id, user_wallet_address: string, amount: { ...number, description: 'Whole tokens.' }, is_claimed: boolean },
  { streak: ref('Streak') },
);

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

export const ApiKeySchema = object('ApiKey', 'An API key of a user (never the key itself).', {
  ...record,
  user_id: id,
  name: string,
  key_hash: { ...string, description: 'SHA-256 of the key, hex.' },
  is_active: boolean,
  last_used_at: nullable(dateTime),
});

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

/** Every shared schema, registered once with fastify (and so listed in the OpenAPI components). */
export const RESOURCE_SCHEMAS: Schema[] = [
  UserSchema,
  ImageSchema,
  ResolutionSchema,
  StreakSchema,
  RewardSchema,
  PredictionSchema,
  PoolSchema,
  StreakRewardSchema,
  TransactionPreviewSchema,
  ApiKeySchema,
  ErrorSchema,
];
