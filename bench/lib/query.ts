/**
 * The nested read of DESIGN.md's performance budget: 20 pools with user, image, streak,
 * resolution and 10 predictions each with user and reward.
 */
export const NESTED_READ_QUERY =
  '{ pools(first: 20, sort: CREATION_DATE) { nodes { id title totalVolume user { id username } image { id url } ' +
  'streak { id title } resolution { id result } predictions(first: 10) { nodes { id stake prediction ' +
  'user { id username } reward { id amount } } } } } }';

/** The request body both servers receive (the floor parses it and ignores it). */
export const NESTED_READ_BODY = JSON.stringify({ query: NESTED_READ_QUERY });

export const POOLS_PER_PAGE = 20;
export const PREDICTIONS_PER_POOL = 10;
