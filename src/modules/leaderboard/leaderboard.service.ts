import { type RenderedObject, renderedRowSql } from '../../read/nested-read.js';
import { badInput } from '../../errors.js';
import { encodeCursor, isIntegerString, MAX_PAGE_SIZE, Page, type PageArguments, parsePageRequest } from '../common/pagination.js';
import { Conditions } from '../common/sql-conditions.js';
import { refreshLeaderboardWindow } from './leaderboard-aggregate.js';
import type { ServiceContext } from '../context.js';

export const LEADERBOARD_PERIODS = ['DAY', 'WEEK', 'MONTH', 'ALL'] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];
export const LEADERBOARD_METRICS = ['PAYOUT', 'PRECISION'] as const;
export type LeaderboardMetric = (typeof LEADERBOARD_METRICS)[number];

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

/** What a board's statement found: its entries on the page in order, the viewer's standing, and the board's size. */
interface BoardRead {
  /** The page's entries, best first. */
  nodes: LeaderboardEntryRow[];
  /** The position before the page's first (below 0 when a page before a cursor reaches above the board's top). */
  start: number;
  viewerEntry: LeaderboardEntryRow | null;
  total: number;
  /** The UTC day a window's kept totals are as of ('YYYY-MM-DD'; null before their first build, and for the ALL board). */
  asOf: string | null;
}

/** How a page of a board is asked: the `size` positions after `from` (null: the last `size` of the board), and whose standing to add. */
interface BoardRequest {
  by: LeaderboardMetric;
  from: number | null;
  size: number;
  viewerId: string | null;
  renderedUsers: readonly RenderedObject[];
}

/** A metric over a board row's alias, as the ALL board's indexes are written (schema/leaderboard.ts). */
const METRIC_SQL: Record<LeaderboardMetric, (alias: string) => string> = {
  PAYOUT: (alias) => `${alias}.payout`,
  PRECISION: (alias) => `(${alias}.score_sum / ${alias}.scored_count)`,
};

/**
 * An entry's values over its board row `ranked` (the columns of leaderboard_totals, and its
 * `rank` and `position` in the board): each column's name, SQL and type.
 */
const ENTRY_COLUMNS: ReadonlyArray<readonly [name: string, sql: string, type: string]> = [
  ['user_id', 'ranked.user_id', 'uuid'],
  ['rank', 'ranked.rank::int', 'int'],
  ['position', 'ranked.position::int', 'int'],
  ['payout', 'ranked.payout::text', 'text'],
  ['staked', 'ranked.staked::text', 'text'],
  ['precision', '(ranked.score_sum / ranked.scored_count)::float8', 'float8'],
  ['prediction_count', 'ranked.scored_count::int', 'int'],
  ['decimals', 'ranked.decimals::int', 'int'],
];

/** An entry's columns and its rendered users' JSON; with `none`, the same columns in a row that holds no entry. */
const entryColumns = (users: readonly RenderedObject[], none = false) =>
  ENTRY_COLUMNS.map(([name, sql, type]) => `${none ? `NULL::${type}` : sql} AS ${name}`).join(', ') +
  users.map((user, i) => `, ${none ? 'NULL' : userSqlOf(user)} AS "user_json_${i}"`).join('');

function entryOf(row: Record<string, string | number | null>, users: number): LeaderboardEntryRow {
  return {
    id: String(row.user_id),
    rank: Number(row.rank),
    position: Number(row.position),
    payoutUnits: BigInt(row.payout!),
    stakedUnits: BigInt(row.staked!),
    precision: Number(row.precision),
    predictionCount: Number(row.prediction_count),
    decimals: Number(row.decimals),
    renderedUsers: Array.from({ length: users }, (_, i) => String(row[`user_json_${i}`])),
  };
}

/**
 * Where a board's entries are kept (schema/leaderboard.ts): the ALL board's in
 * leaderboard_totals, a window's in leaderboard_window_totals under its period (one of
 * LEADERBOARD_PERIODS, checked by parseLeaderboardPage, written into the text), each with its
 * size kept beside it.
 */
interface KeptBoard {
  table: string;
  /** The window's period; null for the ALL board. */
  period: Exclude<LeaderboardPeriod, 'ALL'> | null;
  /** SQL of the board's size, and of the UTC day its rows are as of ('YYYY-MM-DD'; NULL for the ALL board, always current). */
  size: string;
  asOf: string;
}

const keptBoardOf = (period: LeaderboardPeriod): KeptBoard => {
  if (period === 'ALL') return { table: 'leaderboard_totals', period: null, size: '(SELECT users FROM leaderboard_size)', asOf: 'NULL' };
  const window = (column: string) => `(SELECT ${column} FROM leaderboard_windows WHERE period = '${period}')`;
  return { table: 'leaderboard_window_totals', period, size: window('users'), asOf: window(`to_char(as_of, 'YYYY-MM-DD')`) };
};

/**
 * A board read from its kept rows in the metric's index order (schema/leaderboard.ts): the
 * page's own entries (an index scan stopped after the page, from its position on, or from
 * the board's end for its last entries), the ties of the page's first value above the page
 * and the viewer's standing as index range counts, and the board's size as kept. Its cost
 * follows the page and how far it lies from the end it is read from (and, for the viewer's
 * standing, the viewer's depth), not the board's size.
 * Within the page, an entry whose value differs from the page's first ranks at the position
 * where its value starts; the first entry's ties may start above the page, so they are counted.
 */
async function readKeptBoard(ctx: ServiceContext, board: KeptBoard, request: BoardRequest): Promise<BoardRead> {
  const c = new Conditions();
  const metric = METRIC_SQL[request.by];
  // The page's rows on the board (those above its top are none), written into the text as
  // the other pages' sizes are (keyset-page.ts, pageLimit): one prepared statement per size.
  const rowsOnBoard = request.from === null ? request.size : Math.max(request.from + request.size, 0) - Math.max(request.from, 0);
  if (!Number.isSafeInteger(rowsOnBoard) || rowsOnBoard < 0 || rowsOnBoard > MAX_PAGE_SIZE)
    throw new Error(`a page of ${rowsOnBoard} rows`);
  const { table, period, size: total } = board;
  // A window's rows are those of its period.
  const within = (alias: string) => (period === null ? '' : `${alias}.period = '${period}' AND `);
  const pageWithin = period === null ? '' : `WHERE t.period = '${period}' `;
  // The board's last entries (`last` without a cursor) are its first read backward, the same
  // index scanned from its end. The board's top has no OFFSET in its text: with one, Postgres
  // plans the statement at each run (its generic plan guesses a tenth of the board skipped).
  const order = request.from === null ? `${metric('t')} ASC, t.user_id DESC` : `${metric('t')} DESC, t.user_id`;
  const offset = request.from !== null && request.from > 0 ? ` OFFSET ${c.param(request.from, 'int')}` : '';
  // The entries above the page's first.
  const above = request.from === null ? `greatest(${total} - ${rowsOnBoard}, 0)` : c.param(Math.max(request.from, 0), 'int');
  // The page's first entry ranks after the entries above the page less its ties among them
  // (its value, before it in user order): an index range of its ties, not of the board above.
  const top = '(SELECT top FROM head)';
  const firstRank = `${above} + 1 - (SELECT count(*) FROM ${table} o, head h WHERE ${within('o')}${metric('o')} = h.top AND o.user_id < h.user_id)`;
  const entries = entryColumns(request.renderedUsers);
  const viewer =
    request.viewerId === null
      ? ''
      : // Its rank and its ties above it: index range counts.
        ` UNION ALL SELECT 2, ${entries}, NULL, NULL FROM (SELECT t.*, 1 + s.above AS rank, 1 + s.above + s.ties AS position FROM ${table} t, ` +
        `LATERAL (SELECT (SELECT count(*) FROM ${table} o WHERE ${within('o')}${metric('o')} > ${metric('t')}) AS above, ` +
        `(SELECT count(*) FROM ${table} o WHERE ${within('o')}${metric('o')} = ${metric('t')} AND o.user_id < t.user_id) AS ties) s ` +
        `WHERE ${within('t')}t.user_id = ${c.param(request.viewerId, 'uuid')}) ranked`;
  // Part 0: the board's size and the day its rows are as of; 1: the page's entries in order; 2: the viewer's standing.
  const rows = await ctx.database.query<Record<string, string | number | null>>(
    `WITH page AS (SELECT * FROM ${table} t ${pageWithin}ORDER BY ${order} LIMIT ${rowsOnBoard}${offset}), ` +
      `head AS (SELECT ${metric('f')} AS top, f.user_id FROM page f ORDER BY ${metric('f')} DESC, f.user_id LIMIT 1) ` +
      `SELECT 0 AS part, ${entryColumns(request.renderedUsers, true)}, ${total} AS total, ${board.asOf} AS as_of ` +
      `UNION ALL SELECT 1, ${entries}, NULL, NULL FROM (SELECT p.*, ` +
      `${above} + row_number() OVER (ORDER BY ${metric('p')} DESC, p.user_id) AS position, ` +
      `CASE WHEN ${metric('p')} = ${top} THEN ${firstRank} ELSE ${above} + rank() OVER (ORDER BY ${metric('p')} DESC) END AS rank ` +
      `FROM page p) ranked${viewer} ORDER BY part, position`,
    c.params,
  );
  const boardSize = Number(rows[0]!.total);
  const users = request.renderedUsers.length;
  const standing = rows.find((row) => row.part === 2);
  return {
    nodes: rows.filter((row) => row.part === 1).map((row) => entryOf(row, users)),
    start: request.from ?? boardSize - request.size,
    viewerEntry: standing ? entryOf(standing, users) : null,
    total: boardSize,
    asOf: rows[0]!.as_of as string | null,
  };
}

/**
 * A board's page, from its kept rows: a window's are read as of the request's day (UTC),
 * built for that day first when they are as of another (once a day and window, by the first
 * read; later reads find them built).
 */
async function readBoard(ctx: ServiceContext, board: KeptBoard, request: BoardRequest): Promise<BoardRead> {
  const read = await readKeptBoard(ctx, board, request);
  const today = ctx.now.toISOString().slice(0, 10);
  if (board.period === null || read.asOf === today) return read;
  await ctx.database.db.transaction((tx) => refreshLeaderboardWindow(tx, board.period!, today));
  return readKeptBoard(ctx, board, request);
}

/**
 * Users ranked by reward payouts or by mean precision score over a window, from the
 * aggregate kept by resolution: one statement returns the page, the count and (when asked)
 * the viewer's own standing, whatever the page size. Equal values share a rank (1, 2, 2, 4);
 * the order within a tie is by user id, and cursors are positions in that order: a page is a
 * range of positions (forward after a cursor's, or backward before it, or the last ones of
 * the board), and the count tells exactly whether positions lie before or after it. Each text
 * (per board, metric, kind of range and rendered selection, the values as parameters) is a
 * prepared statement of the read path, planned once per connection.
 */
export async function leaderboard(
  ctx: ServiceContext,
  args: PageArguments & { period?: LeaderboardPeriod | null; by?: LeaderboardMetric | null },
  /**
   * What the read asks besides the entries: whether the viewer's standing is selected
   * (counting it costs the viewer's depth on the board; read only for a signed-in viewer),
   * and, for a rendered read, the selections of the entries' users the statement writes as
   * JSON (public fields, no cursors; none when the executor resolves the users).
   */
  asked: { viewerStanding: boolean; renderedUsers: readonly RenderedObject[] },
): Promise<LeaderboardPage> {
  const { period, by, order, page } = parseLeaderboardPage(args);
  const cursorPosition = page.cursor ? Number(page.cursor.key) : null;
  // The page's positions, from (exclusive): backward from the end of the board is relative
  // to its size, which the statement itself reads (`total`).
  // Backward before a cursor near the top, `from` is below 0: the page is the positions above the cursor's.
  const from = page.backward ? (cursorPosition === null ? null : cursorPosition - 1 - page.size) : (cursorPosition ?? 0);
  const viewerId = asked.viewerStanding ? (ctx.viewer?.userId ?? null) : null;
  const request: BoardRequest = { by, from, size: page.size, viewerId, renderedUsers: asked.renderedUsers };
  const board = await readBoard(ctx, keptBoardOf(period), request);
  const hasNextPage = board.start + page.size < board.total;
  const hasPreviousPage = board.start > 0 && board.total > 0;
  return new LeaderboardPage(
    board.nodes,
    hasNextPage,
    hasPreviousPage,
    (row) => encodeCursor(order, String(row.position), row.id),
    board.total,
    board.viewerEntry,
  );
}
