import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import { decodeJwt } from 'jose';
import type { Credentials } from '../../modules/auth/auth.service.js';
import type { Viewer } from '../../modules/auth/viewer.js';
import type { ServiceDependencies } from '../../modules/context.js';
import { ACCESS_COOKIE, readCookie } from '../cookies.js';

/**
 * A socket's credentials, from connection_init (`authorization: "Bearer <token>"` or
 * `x-api-key`), else the upgrade's access cookie (`fromCookie` tells the Origin check).
 */
export function socketCredentials(
  params: Record<string, unknown>,
  cookieHeader: string | undefined,
): Credentials & { fromCookie: boolean } {
  const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);
  const authorization = text(params.authorization ?? params.Authorization);
  const apiKey = text(params['x-api-key'] ?? params.apiKey);
  if (authorization) {
    // A value that is not "Bearer <token>" fails verification like a bad token: never ignored.
    return { bearerToken: /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] ?? authorization, apiKey, fromCookie: false };
  }
  if (apiKey) return { bearerToken: null, apiKey, fromCookie: false };
  const cookie = readCookie(cookieHeader, ACCESS_COOKIE);
  return { bearerToken: cookie, apiKey: null, fromCookie: cookie !== null };
}

/**
 * Credentials are checked once, at connection_init; a socket must not outlive them. This
 * closes it (4403) when its session is signed out or revoked, or its API key revoked, on
 * whichever replica that happens, and when its access token expires (the client refreshes
 * and reconnects). Returns what stops watching.
 */
export function watchCredentials(
  deps: ServiceDependencies,
  viewer: Viewer,
  bearerToken: string | null,
  close: (reason: string) => void,
): () => void {
  const stops: Array<() => void> = [];
  if (viewer.sessionId) stops.push(deps.events.on({ session: viewer.sessionId }, () => close('The session has ended; sign in again')));
  if (viewer.apiKeyId) stops.push(deps.events.on({ apiKey: viewer.apiKeyId }, () => close('The API key has been revoked')));
  const expiresAt = bearerToken ? decodeJwt(bearerToken).exp : undefined;
  if (expiresAt) {
    // setTimeout holds at most 2^31-1 ms; tokens live minutes, so this only guards odd settings.
    const delay = Math.min(expiresAt * 1000 - deps.clock().getTime(), 2 ** 31 - 1);
    const timer = setTimeout(() => close('The access token has expired; refresh it and reconnect'), Math.max(0, delay));
    timer.unref();
    stops.push(() => clearTimeout(timer));
  }
  return () => {
    for (const stop of stops) stop();
  };
}

/** The client's address as fastify computes `request.ip`: forwarding headers count only from trusted proxies. */
export function clientAddressOf(request: IncomingMessage, trustProxy: boolean | string[]): string {
  const trust = trustProxy === true ? () => true : trustProxy ? proxyAddr.compile(trustProxy) : () => false;
  return proxyAddr(request, trust);
}
