/**
 * Cache hints as Apollo's cache-control plugin reads them (`@cacheControl`, declared in the
 * schema by src/server/schema.ts), for `@Directive(...)` on types and fields. A field
 * returning an object (and every root field) without a hint is not cacheable, so a response
 * is cacheable only when everything it touches says so; the smallest maxAge and the
 * narrowest scope win. Public reads (pools, streaks, images, users' public profiles,
 * predictions, the leaderboard, statistics) may be kept by any cache for PUBLIC_MAX_AGE
 * seconds; anything of the viewer or private to a user is kept by none.
 */
export const PUBLIC_MAX_AGE = 60;

/** Public data: any cache may keep it for PUBLIC_MAX_AGE seconds. */
export const PUBLIC = `@cacheControl(maxAge: ${PUBLIC_MAX_AGE})`;

/** The viewer's own or a user's private data: no cache keeps an answer that holds it. */
export const PRIVATE = '@cacheControl(maxAge: 0, scope: PRIVATE)';

/** A wrapper (a connection, an edge, page information): as cacheable as the field that returns it. */
export const INHERITED = '@cacheControl(inheritMaxAge: true)';
