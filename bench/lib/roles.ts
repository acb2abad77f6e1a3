/**
 * The servers a bench run may measure. floor: the hand-written statement (lib/floor.ts);
 * apollo: the same statements behind a default Apollo Server (lib/apollo-floor.ts); graphql:
 * this app (or BENCH_SRC's); baseline: the app of BENCH_BASELINE_SRC, an older checkout
 * measured in the same run.
 */
export type Role = 'floor' | 'apollo' | 'graphql' | 'baseline';
export const ROLES: readonly Role[] = ['floor', 'apollo', 'graphql', 'baseline'];
