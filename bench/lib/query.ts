/**
 * What the nested-read bench measures: the nested read of the performance budget (docs/design.md)
 * (20 pools with user, image, streak, resolution and 10 predictions each with user and
 * reward) in two sorts, and `{ __typename }` (the fixed cost of a request).
 *
 * - CREATION_DATE: the newest pools, which hold few predictions (small responses).
 * - VOLUME_HIGH: the pools with the largest volume: 10 predictions each (200), many rewarded.
 */
export const POOLS_PER_PAGE = 20;
export const PREDICTIONS_PER_POOL = 10;

/** The database the bench builds: the performance budget's reference size. */
export const BENCH_SEED = Object.freeze({ users: 10_000, pools: 1_000, streaks: 12, seed: 20_261_231 });

const nestedRead = (sort: string) =>
  `{ pools(first: ${POOLS_PER_PAGE}, sort: ${sort}) { nodes { id title totalVolume user { id username } image { id url } ` +
  `streak { id title } resolution { id result } predictions(first: ${PREDICTIONS_PER_POOL}) { nodes { id stake prediction ` +
  'user { id username } reward { id amount } } } } } }';

export interface BenchShape {
  name: 'CREATION_DATE' | 'VOLUME_HIGH' | 'STREAKS' | 'typename';
  query: string;
  /** The request body both servers receive (the floor ignores it). */
  body: string;
  /** The pools' ORDER BY of the floor's statement; null for `{ __typename }` (no statement) and other pages. */
  poolOrder: string | null;
  /** A page other than the pools list: its own floor statement (lib/floor.ts), without parameters. */
  floor?: string;
}

const shape = (name: BenchShape['name'], query: string, poolOrder: string | null): BenchShape => ({
  name,
  query,
  body: JSON.stringify({ query }),
  poolOrder,
});

/** The streaks page: 10 streaks, each with its 10 newest pools, each with its 5 newest predictions and their users. */
const STREAKS_PAGE =
  '{ streaks(first: 10) { nodes { id title pools(first: 10) { nodes { id title totalVolume predictions(first: 5) { nodes { id stake ' +
  'user { id username } } } } } } } }';

export const SHAPES: readonly BenchShape[] = [
  shape('CREATION_DATE', nestedRead('CREATION_DATE'), 'created_at desc, id desc'),
  shape('VOLUME_HIGH', nestedRead('VOLUME_HIGH'), 'total_volume desc, id desc'),
  { ...shape('STREAKS', STREAKS_PAGE, null), floor: 'streaks' },
  shape('typename', '{ __typename }', null),
];
