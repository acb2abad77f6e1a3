/**
 * The identity services, one file per concern: sign-in (challenges, wallets, API-key
 * sessions), sessions (rotation, sign-out), API keys, and authentication of a request's
 * credentials. Re-exported here so callers keep one import path.
 */
export {
  confirmSession,
  type Credentials,
  hasCredentials,
  judgeSession,
  sessionGuard,
  type SessionRow,
  verifyCredentials,
} from './authenticate.js';
export { createApiKey, type CreatedApiKey, MAX_ACTIVE_API_KEYS, revokeApiKey } from './api-key.service.js';
export { refreshSession, revokeSession, type Session, signOut } from './session.service.js';
export { createSignInLimits, requestSignInChallenge, type SignInChallenge, signInWithApiKey, signInWithWallet } from './sign-in.service.js';
