import { PREVIEW_FIELDS } from './documents.js';
import { AUTHENTICATED, ref } from './resources.schema.js';
import type { RestRoute } from './route.js';

type Schema = Record<string, unknown>;

const camel = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
/** A JSON body in the interface's names as a GraphQL input object. */
const inputOf = (body: unknown) =>
  Object.fromEntries(Object.entries((body ?? {}) as Record<string, unknown>).map(([key, value]) => [camel(key), value]));

const id = { type: 'string', format: 'uuid' };
const amount = (description: string) => ({
  type: 'number',
  exclusiveMinimum: 0,
  description: `${description}, in whole tokens (JSON number).`,
});
const SIGNED = {
  signed_transaction: { type: 'string', minLength: 1, description: 'The built transaction, signed by the wallet, base64.' },
  proof: { type: 'string', minLength: 1, description: 'The proof returned by the build, unchanged.' },
};

function body(required: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema {
  return { type: 'object', additionalProperties: false, properties: { ...required, ...optional }, required: Object.keys(required) };
}

const PREPARED = {
  type: 'object',
  additionalProperties: false,
  required: ['transaction', 'proof', 'expires_at', 'preview'],
  properties: {
    preview: ref('TransactionPreview'),
    transaction: { type: 'string', description: 'Base64 wire transaction; the relayer pays the fee, your signature slot is empty.' },
    proof: { type: 'string', description: 'Pass it back unchanged with the signed transaction.' },
    expires_at: {
      type: 'string',
      format: 'date-time',
      description: 'Submit before this (and before the blockhash expires, about a minute).',
    },
  },
};

const SUBMITTED_PREDICTION = {
  type: 'object',
  additionalProperties: false,
  required: ['signature', 'prediction'],
  properties: {
    signature: { type: 'string' },
    prediction: { anyOf: [ref('Prediction'), { type: 'null' }], description: 'The prediction as the transaction left it.' },
  },
};

const SUBMITTED = { type: 'object', additionalProperties: false, required: ['signature'], properties: { signature: { type: 'string' } } };

interface TwoStep {
  /** The path of the build; the submit is `${path}/submit`. */
  path: string;
  what: string;
  /** The GraphQL names: build<Name>Transaction / submit<Name>Transaction with <Name>TransactionInput. */
  name: string;
  params: Record<string, Schema>;
  /** The submit's selection and response schema. */
  submitted: { selection: string; schema: Schema };
}

/** The build and submit routes of one two-step operation. */
function twoStep({ path, what, name, params, submitted }: TwoStep): RestRoute[] {
  const selection = 'transaction proof expiresAt preview { ...PreviewFields }';
  const build = `mutation RestBuild${name}($input: ${name}TransactionInput!) { build${name}Transaction(input: $input) { ${selection} } }
${PREVIEW_FIELDS}`;
  const submit =
    `mutation RestSubmit${name}($input: Submit${name}TransactionInput!) { submit${name}Transaction(input: $input) ` +
    `{ ${submitted.selection} } }`;
  return [
    {
      method: 'POST',
      url: path,
      schema: {
        summary: `Build: ${what} (step 1 of 2)`,
        tags: ['transactions'],
        security: AUTHENTICATED,
        body: body(params),
        response: { 200: PREPARED },
      },
      operation: (request) => ({ query: build, operationName: `RestBuild${name}`, variables: { input: inputOf(request.body) } }),
      respond: (data) => data.rest(`build${name}Transaction`),
    },
    {
      method: 'POST',
      url: `${path}/submit`,
      schema: {
        summary: `Submit: ${what} (step 2 of 2)`,
        description: 'The build parameters are optional: the proof binds them; those given must equal the build’s (else PROOF_INVALID).',
        tags: ['transactions'],
        security: AUTHENTICATED,
        body: body(SIGNED, params),
        response: { 200: submitted.schema },
      },
      operation: (request) => ({ query: submit, operationName: `RestSubmit${name}`, variables: { input: inputOf(request.body) } }),
      respond: (data) => data.rest(`submit${name}Transaction`),
    },
  ];
}

const predictionSubmitted = { selection: 'signature prediction { ...PredictionFields }', schema: SUBMITTED_PREDICTION };

const CLAIM_REWARD = `mutation RestClaimReward($id: ID!) { claimReward(rewardId: $id) { signature reward { ...RewardFields } } }`;
const CLAIM_STREAK_REWARD =
  'mutation RestClaimStreakReward($id: ID!) { claimStreakReward(streakRewardId: $id) { ' +
  'signature streakReward { ...StreakRewardFields } } }';

export const transactionRoutes: RestRoute[] = [
  ...twoStep({
    path: '/transactions/prediction',
    what: 'place a prediction',
    name: 'Prediction',
    params: { pool_id: id, stake: amount('The stake'), value: { type: 'number', description: 'The predicted value, on the pool’s grid.' } },
    submitted: predictionSubmitted,
  }),
  ...twoStep({
    path: '/transactions/stake/update',
    what: 'change the stake of your prediction',
    name: 'StakeUpdate',
    params: { prediction_id: id, stake: amount('The new total stake') },
    submitted: predictionSubmitted,
  }),
  ...twoStep({
    path: '/transactions/prediction/update',
    what: 'change the value of your prediction',
    name: 'PredictionUpdate',
    params: { prediction_id: id, value: { type: 'number', description: 'The new predicted value, on the pool’s grid.' } },
    submitted: predictionSubmitted,
  }),
  ...twoStep({
    path: '/transactions/withdraw',
    what: 'withdraw stake tokens to an external wallet',
    name: 'Withdraw',
    params: { to_address: { type: 'string', description: 'The receiving wallet (base58).' }, amount: amount('The amount') },
    submitted: { selection: 'signature', schema: SUBMITTED },
  }),
  {
    method: 'POST',
    url: '/transactions/claim-reward',
    schema: {
      summary: 'Claim your reward or refund of a resolved pool (one step; the service signs)',
      tags: ['transactions'],
      security: AUTHENTICATED,
      body: body({ reward_id: id }),
      response: {
        200: {
          type: 'object',
          additionalProperties: false,
          required: ['signature', 'reward'],
          properties: { signature: { type: 'string' }, reward: ref('Reward') },
        },
      },
    },
    operation: (request) => ({
      query: CLAIM_REWARD,
      operationName: 'RestClaimReward',
      variables: { id: (request.body as { reward_id: string }).reward_id },
    }),
    respond: (data) => data.rest('claimReward'),
  },
  {
    method: 'POST',
    url: '/transactions/claim-streak-reward',
    schema: {
      summary: 'Claim one of your streak rewards (one step; the service signs)',
      tags: ['transactions'],
      security: AUTHENTICATED,
      body: body({ streak_reward_id: id }),
      response: {
        200: {
          type: 'object',
          additionalProperties: false,
          required: ['signature', 'streak_reward'],
          properties: { signature: { type: 'string' }, streak_reward: ref('StreakReward') },
        },
      },
    },
    operation: (request) => ({
      query: CLAIM_STREAK_REWARD,
      operationName: 'RestClaimStreakReward',
      variables: { id: (request.body as { streak_reward_id: string }).streak_reward_id },
    }),
    respond: (data) => data.rest('claimStreakReward'),
  },
];
