import { AUTHENTICATED } from './resources.schema.js';
import type { RestRoute } from './route.js';

/**
 * The embedded chain's faucet in the REST form, beside GraphQL's requestDevTokens and
 * requestDevSol: test stake tokens to predict with, and SOL for the rent of an account a
 * transaction opens (a withdrawal to a new wallet). Served only where the chain is a devchain.
 */
const REQUEST_DEV_TOKENS = 'mutation RestRequestDevTokens($amount: Float!) { requestDevTokens(amount: $amount) { signature balance } }';
const REQUEST_DEV_SOL = 'mutation RestRequestDevSol($lamports: Int!) { requestDevSol(lamports: $lamports) { signature lamports } }';

function answer(field: string, description: string) {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['signature', field],
    properties: { signature: { type: 'string' }, [field]: { type: 'number', description } },
  };
}

export const devRoutes: RestRoute[] = [
  {
    method: 'POST',
    url: '/dev/tokens',
    schema: {
      summary: 'Mint test stake tokens to your wallet (embedded chain only)',
      tags: ['dev'],
      security: AUTHENTICATED,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['amount'],
        properties: { amount: { type: 'number', exclusiveMinimum: 0, description: 'Whole tokens, at most 10,000 a call.' } },
      },
      response: { 200: answer('balance', 'Your token balance afterwards, in whole tokens.') },
    },
    operation: (request) => ({
      query: REQUEST_DEV_TOKENS,
      operationName: 'RestRequestDevTokens',
      variables: { amount: (request.body as { amount: number }).amount },
    }),
    respond: (data) => data.value('requestDevTokens'),
  },
  {
    method: 'POST',
    url: '/dev/sol',
    schema: {
      summary: 'Airdrop test SOL to your wallet, for the rent of accounts it opens (embedded chain only)',
      tags: ['dev'],
      security: AUTHENTICATED,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['lamports'],
        properties: { lamports: { type: 'integer', minimum: 1, description: 'Lamports, at most 1,000,000,000 (1 SOL) a call.' } },
      },
      response: { 200: answer('lamports', 'Your SOL balance afterwards, in lamports.') },
    },
    operation: (request) => ({
      query: REQUEST_DEV_SOL,
      operationName: 'RestRequestDevSol',
      variables: { lamports: (request.body as { lamports: number }).lamports },
    }),
    respond: (data) => data.value('requestDevSol'),
  },
];
