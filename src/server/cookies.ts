import type { FastifyReply } from 'fastify';
import type { Session } from '../modules/auth/auth.service.js';

/** Browser sessions: HttpOnly cookies, so page scripts never see the tokens. */
export const ACCESS_COOKIE = 'poolgraph_access';
export const REFRESH_COOKIE = 'poolgraph_refresh';

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return decodeURIComponent(part.slice(index + 1).trim());
  }
  return null;
}

function cookie(
  name: string,
  value: string,
  options: { path: string; expires: Date; sameSite: 'Lax' | 'Strict'; secure: boolean },
): string {
  const maxAge = Math.max(0, Math.floor((options.expires.getTime() - Date.now()) / 1000));
  return [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${options.path}`,
    `Expires=${options.expires.toUTCString()}`,
    `Max-Age=${maxAge}`,
    'HttpOnly',
    `SameSite=${options.sameSite}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

export function setSessionCookies(reply: FastifyReply, session: Session, secure: boolean): void {
  reply.header('set-cookie', [
    cookie(ACCESS_COOKIE, session.accessToken, { path: '/', expires: session.accessTokenExpiresAt, sameSite: 'Lax', secure }),
    // The refresh token only ever travels to the GraphQL endpoint, and never cross-site.
    cookie(REFRESH_COOKIE, session.refreshToken, { path: '/graphql', expires: session.refreshTokenExpiresAt, sameSite: 'Strict', secure }),
  ]);
}

export function clearSessionCookies(reply: FastifyReply, secure: boolean): void {
  const past = new Date(0);
  reply.header('set-cookie', [
    cookie(ACCESS_COOKIE, '', { path: '/', expires: past, sameSite: 'Lax', secure }),
    cookie(REFRESH_COOKIE, '', { path: '/graphql', expires: past, sameSite: 'Strict', secure }),
  ]);
}
