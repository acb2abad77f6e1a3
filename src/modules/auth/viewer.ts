import { AppError } from '../../errors.js';

/** Who is calling: the signed-in user, how they authenticated, and their role. */
export interface Viewer {
  userId: string;
  role: 'USER' | 'ADMIN';
  /** The session (refresh_tokens row) of a bearer or cookie token. */
  sessionId: string | null;
  /** The API key used directly as `x-api-key`. */
  apiKeyId: string | null;
}

/** The viewer, or UNAUTHENTICATED for a signed-out call. */
export function requireViewer(viewer: Viewer | null): Viewer {
  if (!viewer) throw new AppError('UNAUTHENTICATED', 'Sign in to do this', { reason: 'NOT_SIGNED_IN' });
  return viewer;
}

export function requireRole(viewer: Viewer | null, role: 'ADMIN'): Viewer {
  const signedIn = requireViewer(viewer);
  if (signedIn.role !== role) throw new AppError('FORBIDDEN', `Only ${role} users may do this`);
  return signedIn;
}

/** How a private field's description states the rule of assertCanReadPrivate. */
export const PRIVATE_FIELD = 'Private to the user and ADMINs (null with a FORBIDDEN error for anyone else).';

/** Private data of a user is readable by that user and by admins. */
export function canReadPrivate(viewer: Viewer | null, ownerId: string): boolean {
  return viewer !== null && (viewer.userId === ownerId || viewer.role === 'ADMIN');
}

/** Private data of a user is readable by that user and by admins; FORBIDDEN for anyone else. */
export function assertCanReadPrivate(viewer: Viewer | null, ownerId: string, field: string): void {
  if (canReadPrivate(viewer, ownerId)) return;
  throw new AppError('FORBIDDEN', `${field} is private to its user`);
}
