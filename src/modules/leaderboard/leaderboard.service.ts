import { type RenderedObject, renderedRowSql } from '../../read/nested-read.js';
import { badInput } from '../../errors.js';
import { encodeCursor, isIntegerString, Page, type PageArguments, parsePageRequest } from '../common/pagination.js';
import type { ServiceContext } from '../context.js';

export const LEADERBOARD_PERIODS = ['DAY', 'WEEK', 'MONTH', 'ALL'] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];
export const LEADERBOARD_METRICS = ['PAYOUT', 'PRECISION'] as const;
export type LeaderboardMetric = (typeof LEADERBOARD_METRICS)[number];

/** Days of resolution (UTC, counting today) each window covers. */
const WINDOW_DAYS: Record<Exclude<LeaderboardPeriod, 'ALL'>, number> = { DAY: 1, WEEK: 7, MONTH: 30 };

export interface LeaderboardEntryRow {
  /** The user's id: an entry is a user's standing. */
  id: string;
  rank: number;
  /** 1-based place in the order (ties broken by user id); the cursor. */
  position: number;
  payoutUnits: bigint;
  stakedUnits: bigint;
  precision: number;
  predictionCount: number;
  decimals: number;
  /** The JSON of the entry's user, one per rendered selection asked for (a rendered read); empty otherwise. */
  renderedUsers: string[];
}

export class LeaderboardPage extends Page<LeaderboardEntryRow> {
  constructor(
    nodes: LeaderboardEntryRow[],
    hasNextPage: boolean,
    hasPreviousPage: boolean,
    cursorOf: (row: LeaderboardEntryRow) => string,
    total: number,
    /** The viewer's own standing; null when signed out or not on the board. */
    readonly viewerEntry: LeaderboardEntryRow | null,
  ) {
    super(nodes, hasNextPage, hasPreviousPage, cursorOf, total);
  }
}

/** The board and the page its arguments ask for; throws BAD_USER_INPUT. */
export function parseLeaderboardPage(args: PageArguments & { period?: LeaderboardPeriod | null; by?: LeaderboardMetric | null }) {
  const period = args.period ?? 'ALL';
  const by = args.by ?? 'PAYOUT';
  if (!LEADERBOARD_PERIODS.includes(period)) throw badInput('period', `period must be one of ${LEADERBOARD_PERIODS.join(', ')}`);
  if (!LEADERBOARD_METRICS.includes(by)) throw badInput('by', `by must be one of ${LEADERBOARD_METRICS.join(', ')}`);
  const order = `LEADERBOARD_${period}_${by}`;
  return { period, by, order, page: parsePageRequest(args, order, isIntegerString) };
}

const userSql = new WeakMap<RenderedObject, string>();
/** A rendered user's SQL over the board's user_id, made once per plan. */
function userSqlOf(user: RenderedObject): string {
  let text = userSql.get(user);
  if (text === undefined) {
    const row = renderedRowSql(user, 'ranked.user_id');
    if (row === null) throw new Error('a rendered leaderboard user has a cursor of its own: no parameters here');
    userSql.set(user, (text = row));
  }
  return text;
}

/**
 * Users ranked by reward payouts or by mean precision score over a window, from the
 * aggregate kept by resolution: one statement returns the page, the count and the viewer's
 * own standing, whatever the page size. Equal values share a rank (1, 2, 2, 4); the order
 * within a tie is by user id, and cursors are positions in that order: a page is a range of
 * positions (forward after a cursor's, or backward before it, or the last ones of the
 * board), and the count tells exactly whether positions lie before or after it.
 */
export async function leaderboard(
  ctx: ServiceContext,
  args: PageArguments & { period?: LeaderboardPeriod | null; by?: LeaderboardMetric | null },
  /** Selections of the entries' users the statement writes as JSON (a rendered read: public fields, no cursors). */
  renderedUsers: readonly RenderedObject[] = [],
): Promise<LeaderboardPage> {
  const { period, by, order, page } = parseLeaderboardPage(args);
  const cursorPosition = page.cursor ? Number(page.cursor.key) : null;
  // The page's positions, from (exclusive) and to (inclusive): backward from the end of the
  // board is relative to its size, which the statement itself counts (`total`).
  const from = page.backward ? (cursorPosition === null ? null : cursorPosition - 1 - page.size) : (cursorPosition ?? 0);

  // One text per board, metric, kind of range and rendered selection, the values as
  // parameters: a prepared statement of the read path, planned once per connection (built by
  // the query builder it was parsed and planned again at every request, a fifth of its time).
  const params: unknown[] = [];
  const param = (value: unknown, type: string) => {
    params.push(value);
    return `$${params.length}::${type}`;
  };
  const source =
    period === 'ALL'
      ? 'SELECT user_id, payout, staked, score_sum, scored_count, decimals FROM leaderboard_totals'
      : 'SELECT user_id, sum(payout) AS payout, sum(staked) AS staked, sum(score_sum) AS score_sum, sum(scored_count) AS scored_count, ' +
        'max(decimals) AS decimals FROM leaderboard_daily ' +
        `WHERE day > (${param(ctx.now.toISOString(), 'timestamptz')} AT TIME ZONE 'UTC')::date - ${param(WINDOW_DAYS[period], 'int')} ` +
        'GROUP BY user_id';
  const metric = by === 'PAYOUT' ? 'payout' : '(score_sum / scored_count)';
  const range =
    from === null
      ? `position > total - ${param(page.size, 'int')} AND position <= total`
      : `position > ${param(from, 'int')} AND position <= ${param(from + page.size, 'int')}`;
  const viewerId = ctx.viewer?.userId ?? null;
  // Signed out, no condition at all: with `user_id = NULL` left to the plan, Postgres' custom
  // plans (which drop it) look cheaper than the generic one, and it would plan every time.
  const viewerStanding = viewerId === null ? '' : ` OR user_id = ${param(viewerId, 'uuid')}`;
  const rows = await ctx.database.query<Record<string, string | number>>(
    `WITH board AS (${source}), ` +
      'ranked AS (' +
      'SELECT user_id, payout::text AS payout, staked::text AS staked, (score_sum / scored_count)::float8 AS precision, ' +
      'scored_count::int AS prediction_count, decimals::int AS decimals, ' +
      `rank() OVER (ORDER BY ${metric} DESC)::int AS rank, ` +
      `row_number() OVER (ORDER BY ${metric} DESC, user_id)::int AS position, ` +
      'count(*) OVER ()::int AS total ' +
      'FROM board) ' +
      `SELECT *${renderedUsers.map((user, i) => `, ${userSqlOf(user)} AS "user_json_${i}"`).join('')} FROM ranked ` +
      `WHERE (${range})${viewerStanding} ORDER BY position`,
    params,
  );
  const entries = rows.map((row): LeaderboardEntryRow => ({
    id: String(row.user_id),
    rank: Number(row.rank),
    position: Number(row.position),
    payoutUnits: BigInt(row.payout!),
    stakedUnits: BigInt(row.staked!),
    precision: Number(row.precision),
    predictionCount: Number(row.prediction_count),
    decimals: Number(row.decimals),
    renderedUsers: renderedUsers.map((_, i) => String(row[`user_json_${i}`])),
  }));
  const total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  const start = from ?? total - page.size;
  const nodes = entries.filter((entry) => entry.position > start && entry.position <= start + page.size);
  const viewerEntry = entries.find((entry) => entry.id === viewerId) ?? null;
  const hasNextPage = start + page.size < total;
  const hasPreviousPage = start > 0 && total > 0;
  return new LeaderboardPage(
    nodes,
    hasNextPage,
    hasPreviousPage,
    (row) => encodeCursor(order, String(row.position), row.id),
    total,
    viewerEntry,
  );
}
