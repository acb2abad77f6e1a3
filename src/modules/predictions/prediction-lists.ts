import type { PredictionRow } from '../../../schema/index.js';
import { isoTimestampSql } from '../../read/columns.js';
import { type ChildList, NEWEST_FIRST } from '../../read/keyset.js';
import { badInput } from '../../errors.js';
import { isIntegerString, isIsoDate, type PageArguments, type PageRequest, parsePageRequest } from '../common/pagination.js';
import { statusCondition } from '../pools/pool-status.js';

/** A user's predictions' filters and sorts: one definition for the executed read (viewer/history.service.ts) and the rendered USER_READ. */

export const PREDICTION_FILTERS = ['ACTIVE', 'ENDED', 'RESOLVED', 'CLAIMABLE'] as const;
export type PredictionFilter = (typeof PREDICTION_FILTERS)[number];
export const PREDICTION_SORTS = ['NEWEST', 'OLDEST', 'STAKE_HIGH', 'STAKE_LOW'] as const;
export type PredictionSort = (typeof PREDICTION_SORTS)[number];

export type UserPredictionsArguments = PageArguments & { filter?: PredictionFilter | null; sort?: PredictionSort | null };

interface Sort {
  column: string;
  descending: boolean;
  keyOf: (row: PredictionRow) => string;
  isValidKey: (key: string) => boolean;
  keyType: string;
  /** The key's text in a cursor, as `keyOf` writes it, in SQL over a prediction's alias. */
  keySql: (alias: string) => string;
}

const byDate = (descending: boolean): Sort => ({
  column: 'created_at',
  descending,
  keyOf: (row) => row.createdAt.toISOString(),
  isValidKey: isIsoDate,
  keyType: 'timestamptz',
  keySql: (alias) => isoTimestampSql(`${alias}."created_at"`),
});
const byStake = (descending: boolean): Sort => ({
  column: 'stake',
  descending,
  keyOf: (row) => row.stake.toString(),
  isValidKey: isIntegerString,
  keyType: 'bigint',
  keySql: (alias) => `${alias}."stake"::text`,
});

const SORTS: Record<PredictionSort, Sort> = {
  NEWEST: byDate(true),
  OLDEST: byDate(false),
  STAKE_HIGH: byStake(true),
  STAKE_LOW: byStake(false),
};

/**
 * Throws BAD_USER_INPUT. `now` is what the lifecycle filters compare with: the request's clock, or a marker bound to it at each run
 * (db/statement-scope.ts, REQUEST_NOW).
 */
export function userPredictionsList(args: UserPredictionsArguments, now: unknown): { list: ChildList; sort: Sort; page: PageRequest } {
  const sortName = args.sort ?? 'NEWEST';
  const sort = SORTS[sortName];
  if (!sort) throw badInput('sort', `sort must be one of ${PREDICTION_SORTS.join(', ')}`);
  const { filter } = args;
  if (filter != null && !PREDICTION_FILTERS.includes(filter))
    throw badInput('filter', `filter must be one of ${PREDICTION_FILTERS.join(', ')}`);
  // NEWEST shares the cursors of the unfiltered newest-first list.
  const name = sortName === 'NEWEST' ? NEWEST_FIRST : `PREDICTIONS_${sortName}`;
  const list: ChildList = {
    name,
    order: (alias) => ({ key: `${alias}."${sort.column}"`, id: `${alias}."id"`, descending: sort.descending, keyType: sort.keyType }),
    cursorKey: sort.keySql,
  };
  if (filter != null) list.where = (alias, param) => predictionFilterSql(alias, filter, () => param(now, 'timestamptz'));
  return { list, sort, page: parsePageRequest(args, name, sort.isValidKey) };
}

/** The page request alone (the page-argument checks before execution); throws BAD_USER_INPUT. */
export const parseUserPredictionsPage = (args: UserPredictionsArguments) => userPredictionsList(args, null).page;

/** Predictions whose pool is in a lifecycle state (the pools' own ACTIVE, ENDED, RESOLVED filters), or with a reward to claim (CLAIMABLE). */
function predictionFilterSql(alias: string, filter: PredictionFilter, now: () => string): string {
  if (filter === 'CLAIMABLE')
    return `EXISTS (SELECT 1 FROM "rewards" rw WHERE rw."prediction_id" = ${alias}."id" AND NOT rw."is_claimed" AND rw."amount" > 0)`;
  // The pools filters' own definition, over the alias `p` of the prediction's pool.
  return `EXISTS (SELECT 1 FROM "pools" p WHERE p."id" = ${alias}."pool_id" AND ${statusCondition(now, filter)})`;
}
