import { AUTHENTICATED, ref } from './resources.schema.js';
import { RestError } from './rest-error.js';
import type { RestRoute } from './route.js';

const SESSION_FIELDS = `accessToken accessTokenExpiresAt refreshToken refreshTokenExpiresAt user { ...UserFields }`;

const SESSION = {
  type: 'object',
  additionalProperties: false,
  description: 'A session. Send access_token as `Authorization: Bearer`; the response also sets HttpOnly session cookies.',
  required: ['access_token', 'access_token_expires_at', 'refresh_token', 'refresh_token_expires_at', 'user'],
  properties: {
    access_token: { type: 'string' },
    access_token_expires_at: { type: 'string', format: 'date-time' },
    refresh_token: { type: 'string', description: 'Single use: POST /auth/refresh before the access token expires.' },
    refresh_token_expires_at: { type: 'string', format: 'date-time' },
    user: ref('User'),
  },
};

const optionalBody = (properties: Record<string, unknown>) => ({ type: 'object', additionalProperties: false, properties });

const SIGN_IN_WITH_API_KEY = `mutation RestSignInWithApiKey($apiKey: String!) { signInWithApiKey(apiKey: $apiKey) { ${SESSION_FIELDS} } }`;
const REFRESH = `mutation RestRefreshSession($refreshToken: String) { refreshSession(refreshToken: $refreshToken) { ${SESSION_FIELDS} } }`;
const SIGN_OUT = `mutation RestSignOut($refreshToken: String) { signOut(refreshToken: $refreshToken) }`;
const ME = `query RestMe { viewer { ...UserFields email } }`;
const CHALLENGE = `mutation RestSignInChallenge($walletAddress: String!) { requestSignInChallenge(walletAddress: $walletAddress) { message nonce expiresAt } }`;
const SIGN_IN_WITH_WALLET = `mutation RestSignInWithWallet($input: SignInWithWalletInput!) { signInWithWallet(input: $input) { ${SESSION_FIELDS} } }`;

const CREATE_API_KEY = `mutation RestCreateApiKey($name: String!) {
  createApiKey(name: $name) { apiKey key { ...ApiKeyFields } }
}`;

const header = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

export const authRoutes: RestRoute[] = [
  {
    method: 'POST',
    url: '/auth/session',
    schema: {
      summary: 'Open a session with an API key',
      description:
        'The key comes in the body (`api_key`) or the `x-api-key` header (`trepa-api-key`, the SDK’s, also works). Sets the session cookies.',
      tags: ['auth'],
      body: optionalBody({ api_key: { type: 'string', minLength: 1 } }),
      response: { 200: SESSION },
    },
    operation(request) {
      const apiKey =
        (request.body as { api_key?: string } | undefined)?.api_key ??
        header(request.headers['x-api-key']) ??
        header(request.headers['trepa-api-key']);
      if (!apiKey)
        throw new RestError('BAD_USER_INPUT', 'An API key is required: `api_key` in the body or the x-api-key header', {
          argumentName: 'api_key',
        });
      return { query: SIGN_IN_WITH_API_KEY, operationName: 'RestSignInWithApiKey', variables: { apiKey } };
    },
    respond: (data) => data.rest('signInWithApiKey'),
  },
  {
    method: 'POST',
    url: '/auth/refresh',
    schema: {
      summary: 'Rotate the session',
      description: 'Spends the refresh token (`refresh_token` in the body, else the refresh cookie) and issues a new pair.',
      tags: ['auth'],
      body: optionalBody({ refresh_token: { type: 'string', minLength: 1 } }),
      response: { 200: SESSION },
    },
    operation: (request) => ({
      query: REFRESH,
      operationName: 'RestRefreshSession',
      variables: { refreshToken: (request.body as { refresh_token?: string } | undefined)?.refresh_token ?? null },
    }),
    respond: (data) => data.rest('refreshSession'),
  },
  {
    method: 'POST',
    url: '/auth/logout',
    schema: {
      summary: 'End the session',
      description: 'Ends the session of `refresh_token` (or the refresh cookie), else the current one, and clears the cookies.',
      tags: ['auth'],
      body: optionalBody({ refresh_token: { type: 'string', minLength: 1 } }),
      response: {
        200: { type: 'object', additionalProperties: false, required: ['signed_out'], properties: { signed_out: { type: 'boolean' } } },
      },
    },
    operation: (request) => ({
      query: SIGN_OUT,
      operationName: 'RestSignOut',
      variables: { refreshToken: (request.body as { refresh_token?: string } | undefined)?.refresh_token ?? null },
    }),
    respond: (data) => ({ signed_out: data.value('signOut') }),
  },
  {
    method: 'GET',
    url: '/auth/me',
    schema: { summary: 'The signed-in user', tags: ['auth'], security: AUTHENTICATED, response: { 200: ref('User') } },
    operation: () => ({ query: ME, operationName: 'RestMe' }),
    respond(data) {
      const viewer = data.rest('viewer');
      if (!viewer) throw new RestError('UNAUTHENTICATED', 'Sign in first');
      return viewer;
    },
  },
  {
    method: 'POST',
    url: '/auth/wallet/challenge',
    schema: {
      summary: 'Wallet sign-in, step 1: a message for the wallet to sign',
      tags: ['auth'],
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['wallet_address'],
        properties: { wallet_address: { type: 'string', minLength: 1 } },
      },
      response: {
        200: {
          type: 'object',
          additionalProperties: false,
          required: ['message', 'nonce', 'expires_at'],
          properties: {
            message: { type: 'string', description: 'Sign exactly these bytes (UTF-8).' },
            nonce: { type: 'string' },
            expires_at: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
    operation: (request) => ({
      query: CHALLENGE,
      operationName: 'RestSignInChallenge',
      variables: { walletAddress: (request.body as { wallet_address: string }).wallet_address },
    }),
    respond: (data) => data.rest('requestSignInChallenge'),
  },
  {
    method: 'POST',
    url: '/auth/wallet/sign-in',
    schema: {
      summary: 'Wallet sign-in, step 2: the signed challenge opens a session',
      tags: ['auth'],
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['wallet_address', 'message', 'signature'],
        properties: {
          wallet_address: { type: 'string', minLength: 1 },
          message: { type: 'string', minLength: 1, description: 'The challenge message, exactly as returned.' },
          signature: { type: 'string', minLength: 1, description: 'Ed25519 signature of the message bytes, base58 or base64.' },
        },
      },
      response: { 200: SESSION },
    },
    operation(request) {
      const { wallet_address, message, signature } = request.body as { wallet_address: string; message: string; signature: string };
      return {
        query: SIGN_IN_WITH_WALLET,
        operationName: 'RestSignInWithWallet',
        variables: { input: { walletAddress: wallet_address, message, signature } },
      };
    },
    respond: (data) => data.rest('signInWithWallet'),
  },
  {
    method: 'POST',
    url: '/auth/api-keys',
    schema: {
      summary: 'Create an API key for the signed-in user',
      description: 'The key is shown in this answer only: keep it, and send it as `x-api-key` (or open a session with POST /auth/session).',
      tags: ['auth'],
      security: AUTHENTICATED,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: { name: { type: 'string', minLength: 1, maxLength: 64 } },
      },
      response: {
        200: {
          type: 'object',
          additionalProperties: false,
          required: ['api_key', 'key'],
          properties: { api_key: { type: 'string', description: 'The key itself, shown this once.' }, key: ref('ApiKey') },
        },
      },
    },
    operation: (request) => ({
      query: CREATE_API_KEY,
      operationName: 'RestCreateApiKey',
      variables: { name: (request.body as { name: string }).name },
    }),
    respond: (data) => data.rest('createApiKey'),
  },
];
