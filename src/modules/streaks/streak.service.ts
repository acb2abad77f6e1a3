import { and, desc, eq } from 'drizzle-orm';
import { type PoolRow, streakRewards, type StreakRewardRow, type StreakRow, userStreaks } from '../../../schema/index.js';
import { requireViewer } from '../auth/viewer.js';
import { AppError } from '../../errors.js';
import type { ServiceContext } from '../context.js';
import { parseId } from '../common/ids.js';
import { compileSelect, type ReadPlan, readByKey } from '../../db/nested-read.js';
import { wholeRowPlan } from '../common/read-plan.js';
import { STREAK_READ } from '../common/read-specs.js';
import { keysetPage } from '../common/keyset-page.js';
import { newestFirstOrder } from '../../db/keyset.js';
import { newestFirstCursor, parseNewestFirstPage } from '../common/loaders.js';
import type { Page, PageArguments } from '../common/pagination.js';
import { listStreakPools } from '../pools/pool.service.js';

/** The streak of `id`, or null: with `plan`, it and the plan's relations in one statement; without, through the request's loader. */
export async function findStreak(ctx: ServiceContext, id: string, plan?: ReadPlan): Promise<StreakRow | null> {
  const streakId = parseId(id, 'id');
  if (!plan) return ctx.loaders.streakById.load(streakId);
  return (await readByKey(ctx.database.query, plan, 'id', streakId)) as StreakRow | null;
}

/** Every streak, newest first; `plan` says what to read of them and their relations (the whole rows by default). */
export function listStreaks(
  ctx: ServiceContext,
  input: PageArguments,
  plan: ReadPlan = wholeRowPlan(STREAK_READ),
): Promise<Page<StreakRow>> {
  return keysetPage(
    ctx.database.query,
    {
      select: (c) => {
        const select = compileSelect(plan, 's', c.params);
        return { list: select.list, decode: (row) => select.decode(row) as StreakRow };
      },
      from: '"streaks" s',
      filter: () => {},
      order: newestFirstOrder('s'),
      cursorOf: newestFirstCursor,
    },
    parseNewestFirstPage(input),
  );
}

export interface StreakPoolsResult {
  streak: StreakRow;
  pools: Page<PoolRow>;
}

/** A streak and its pools (all of them, whoever took part), newest first. */
export async function streakPools(
  ctx: ServiceContext,
  streakId: string,
  input: PageArguments & { pastOnly?: boolean | null; offset?: number | null },
  plans?: { streak: ReadPlan; pools: ReadPlan },
): Promise<StreakPoolsResult> {
  const id = parseId(streakId, 'streakId');
  const streak = await (plans ? findStreak(ctx, id, plans.streak) : ctx.loaders.streakById.load(id));
  if (!streak) throw new AppError('NOT_FOUND', `No streak has id ${streakId}`, { argumentName: 'streakId' });
  return { streak, pools: await listStreakPools(ctx, streak.id, input, plans?.pools) };
}

export interface UserStreakDetailsResult {
  streak: StreakRow;
  currentStreakCount: number;
  lastStreakEvent: 'NONE' | 'QUALIFIED' | 'RESET' | 'REWARDED';
  lastPoolParticipatedAt: Date | null;
  streakRewards: StreakRewardRow[];
  currentStreakScores: number[];
  lastProcessedPoolId: string | null;
}

/**
 * The viewer's state in a streak, as the streak processor left it, with their streak
 * rewards (only claimed or only unclaimed ones when `isClaimed` is given). A viewer the
 * processor has not met yet is at NONE with an empty run.
 */
export async function userStreakDetails(
  ctx: ServiceContext,
  streakId: string,
  isClaimed: boolean | null | undefined,
): Promise<UserStreakDetailsResult> {
  const viewer = requireViewer(ctx.viewer);
  const streak = await ctx.loaders.streakById.load(parseId(streakId, 'streakId'));
  if (!streak) throw new AppError('NOT_FOUND', `No streak has id ${streakId}`, { argumentName: 'streakId' });
  const user = await ctx.loaders.userById.load(viewer.userId);
  const db = ctx.database.db;
  const [[state], rewards] = await Promise.all([
    db
      .select()
      .from(userStreaks)
      .where(and(eq(userStreaks.userId, viewer.userId), eq(userStreaks.streakId, streak.id))),
    db
      .select()
      .from(streakRewards)
      .where(
        and(
          eq(streakRewards.streakId, streak.id),
          eq(streakRewards.userWalletAddress, user!.walletAddress),
          isClaimed == null ? undefined : eq(streakRewards.isClaimed, isClaimed),
        ),
      )
      .orderBy(desc(streakRewards.createdAt), desc(streakRewards.id)),
  ]);
  return {
    streak,
    currentStreakCount: state?.currentStreakCount ?? 0,
    lastStreakEvent: state?.lastStreakEvent ?? 'NONE',
    lastPoolParticipatedAt: state?.lastPoolParticipatedAt ?? null,
    streakRewards: rewards,
    currentStreakScores: state?.currentStreakScores ?? [],
    lastProcessedPoolId: state?.lastProcessedPoolId ?? null,
  };
}
