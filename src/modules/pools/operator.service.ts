import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { type PoolRow, poolStatus, pools, predictions, resolutions, users } from '../../../schema/index.js';
import { ensurePoolVault } from '../../chain/vaults.js';
import type { Db } from '../../db/client.js';
import { AppError, badInput } from '../../errors.js';
import { requireRole } from '../auth/viewer.js';
import { toBaseUnits } from '../common/amounts.js';
import { parseId } from '../common/ids.js';
import { requireText } from '../common/input.js';
import type { ServiceContext } from '../context.js';
import type { DomainEvent } from '../events/events.js';
import { notifyAllUsersOfPool } from '../notifications/notification.service.js';
import { notificationTexts } from '../notifications/notification.texts.js';
import { onChain, requireChain } from '../transactions/submission.js';
import type { PoolStatus, PoolUnit } from './pool.type.js';
import { parseResolveInput, planResolution, type ResolvePoolParams } from './resolution.plan.js';
import { storeResolution } from './resolution.store.js';

export type { ResolvePoolParams } from './resolution.plan.js';

/**
 * The operator's mutations (role ADMIN): create a pool, resolve it, change its status. Each
 * checks the role first, validates everything before it writes, writes in one database
 * transaction, and announces the change after the commit.
 */

const MAX_BIGINT = 2n ** 63n - 1n;

export interface CreatePoolParams {
  title: string;
  description: string;
  resolutionSource: string;
  imageId?: string | null;
  streakId?: string | null;
  unit?: PoolUnit | null;
  minStake: number;
  maxStake: number;
  maxRoi: number;
  minOutcome: number;
  maxOutcome: number;
  precision: number;
  step: number;
  predictionStartDate: Date;
  predictionEndDate: Date;
  referenceDate: Date;
  platformFeeRate: number;
}

/** Whole tokens as base units of a mint with `decimals`, within bigint storage. */
function tokenAmount(value: number, decimals: number, argumentName: string): bigint {
  const units = toBaseUnits(value, decimals);
  if (units === null) throw badInput(argumentName, `${argumentName} must be a number with at most ${decimals} decimals`);
  if (units > MAX_BIGINT) throw badInput(argumentName, `${argumentName} is too large`);
  return units;
}

/** A value of the outcome scale: finite, with at most `precision` decimals (so the grid is exact). */
function outcomeValue(value: number, precision: number, argumentName: string): bigint {
  const scaled = toBaseUnits(value, precision);
  if (scaled === null)
    throw badInput(argumentName, `${argumentName} must be a number with at most ${precision} decimals (the pool's precision)`);
  return scaled;
}

function validDate(value: Date, argumentName: string): number {
  const ms = value instanceof Date ? value.getTime() : NaN;
  if (!Number.isFinite(ms)) throw badInput(argumentName, `${argumentName} must be a date-time`);
  return ms;
}

/**
 * Creates a pool and tells every user who allows it. The pool's id is chosen here so that
 * its vault (derived from the custody key and the id) exists on the chain before the row
 * names it; the stake mint and decimals are the chain's. Without a chain no vault can be
 * derived, so the call answers CHAIN_UNAVAILABLE and writes nothing (a chainless service is
 * read-only). A vault created for a row that then fails to commit stays empty and unused.
 */
export async function createPool(ctx: ServiceContext, input: CreatePoolParams): Promise<PoolRow> {
  const viewer = requireRole(ctx.viewer, 'ADMIN');
  const chain = requireChain(ctx);
  const { decimals } = chain.accounts;

  const title = requireText(input.title, 'input.title', 200);
  const description = requireText(input.description, 'input.description', 10_000);
  const resolutionSource = requireText(input.resolutionSource, 'input.resolutionSource', 500);
  if ((input.unit ?? 'USD') !== 'USD') throw badInput('input.unit', 'input.unit must be USD');

  const minStake = tokenAmount(input.minStake, decimals, 'input.minStake');
  if (minStake <= 0n) throw badInput('input.minStake', 'input.minStake must be more than 0');
  const maxStake = tokenAmount(input.maxStake, decimals, 'input.maxStake');
  if (maxStake < minStake) throw badInput('input.maxStake', 'input.maxStake must be at least input.minStake');
  if (!Number.isFinite(input.maxRoi) || input.maxRoi <= 0) throw badInput('input.maxRoi', 'input.maxRoi must be more than 0');

  const { precision } = input;
  if (!Number.isInteger(precision) || precision < 0 || precision > 18)
    throw badInput('input.precision', 'input.precision must be an integer from 0 to 18');
  const minOutcome = outcomeValue(input.minOutcome, precision, 'input.minOutcome');
  const maxOutcome = outcomeValue(input.maxOutcome, precision, 'input.maxOutcome');
  if (maxOutcome <= minOutcome) throw badInput('input.maxOutcome', 'input.maxOutcome must be more than input.minOutcome');
  const step = outcomeValue(input.step, precision, 'input.step');
  if (step <= 0n) throw badInput('input.step', 'input.step must be more than 0');

  const start = validDate(input.predictionStartDate, 'input.predictionStartDate');
  const end = validDate(input.predictionEndDate, 'input.predictionEndDate');
  const reference = validDate(input.referenceDate, 'input.referenceDate');
  if (end <= start) throw badInput('input.predictionEndDate', 'input.predictionEndDate must be after input.predictionStartDate');
  if (end <= ctx.now.getTime()) throw badInput('input.predictionEndDate', 'input.predictionEndDate must be in the future');
  if (reference < end) throw badInput('input.referenceDate', 'input.referenceDate must not be before input.predictionEndDate');

  const rate = input.platformFeeRate;
  if (!Number.isFinite(rate) || rate < 0 || rate >= 1 || toBaseUnits(rate, 18) === null) {
    throw badInput('input.platformFeeRate', 'input.platformFeeRate must be at least 0 and less than 1, with at most 18 decimals');
  }

  const imageId = input.imageId == null ? null : parseId(input.imageId, 'input.imageId');
  const streakId = input.streakId == null ? null : parseId(input.streakId, 'input.streakId');
  const [image, streak] = await Promise.all([
    imageId ? ctx.loaders.imageById.load(imageId) : null,
    streakId ? ctx.loaders.streakById.load(streakId) : null,
  ]);
  if (imageId && !image) throw new AppError('NOT_FOUND', `No image has id ${imageId}`, { argumentName: 'input.imageId' });
  if (streakId && !streak) throw new AppError('NOT_FOUND', `No streak has id ${streakId}`, { argumentName: 'input.streakId' });

  const id = randomUUID();
  const vault = await onChain(() => ensurePoolVault(chain.client, chain.keys, chain.accounts, id));
  const now = ctx.now;
  const pool = await ctx.database.db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const [row] = await tx
      .insert(pools)
      .values({
        id,
        createdAt: now,
        updatedAt: now,
        createdBy: viewer.userId,
        imageId,
        streakId,
        title,
        description,
        poolAccount: vault.toBase58(),
        resolutionSource,
        unit: 'USD',
        minStake,
        maxStake,
        maxRoi: input.maxRoi,
        stakeTokenMint: chain.accounts.mint.toBase58(),
        decimals,
        minOutcome: input.minOutcome,
        maxOutcome: input.maxOutcome,
        precision,
        step: input.step,
        predictionStartDate: new Date(start),
        predictionEndDate: new Date(end),
        referenceDate: new Date(reference),
        platformFeeRate: rate,
      })
      .returning();
    await notifyAllUsersOfPool(tx, {
      ...notificationTexts.poolCreated(title),
      data: { poolId: id, title },
      now,
    });
    await ctx.events.publishIn(tx, [
      { type: 'poolCreated', poolId: id },
      { type: 'poolCreatedNotifications', poolId: id },
    ]);
    return row!;
  });
  return pool;
}

/**
 * Resolves a pool whose prediction window has ended: writes its resolution and one reward
 * (or refund) per prediction as given, then runs the streak rule for the pool's streak, and
 * notifies each user of what became claimable, all in one transaction.
 *
 * The operator computes the payouts (the interface leaves the reward rule open); the plan
 * (resolution.plan.ts) checks they fit: one entry per prediction of the pool, amounts in
 * whole tokens of the pool's mint, scores from 0 to 1, and their sum at most the volume less
 * the protocol fee. The store (resolution.store.ts) writes it.
 */
export async function resolvePool(ctx: ServiceContext, input: ResolvePoolParams): Promise<PoolRow> {
  requireRole(ctx.viewer, 'ADMIN');
  const { poolId, result, entries } = parseResolveInput(input);
  const now = ctx.now;
  const done = await ctx.database.db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    // Locked, so that two resolutions of one pool run one after the other and the second sees the first.
    const [pool] = await tx.select().from(pools).where(eq(pools.id, poolId)).for('update');
    if (!pool) throw new AppError('NOT_FOUND', `No pool has id ${poolId}`, { argumentName: 'input.poolId' });
    if (pool.predictionEndDate > now)
      throw new AppError('POOL_NOT_ENDED', `The pool takes predictions until ${pool.predictionEndDate.toISOString()}`);
    const [resolved] = await tx.select({ id: resolutions.id }).from(resolutions).where(eq(resolutions.poolId, poolId));
    if (resolved) throw new AppError('ALREADY_RESOLVED', 'The pool already has a resolution');
    const placed = await tx
      .select({
        id: predictions.id,
        userId: predictions.userId,
        value: predictions.prediction,
        createdAt: predictions.createdAt,
        walletAddress: users.walletAddress,
      })
      .from(predictions)
      .innerJoin(users, eq(users.id, predictions.userId))
      .where(eq(predictions.poolId, poolId))
      .orderBy(asc(predictions.createdAt), asc(predictions.id));
    const done = await storeResolution(tx, planResolution(pool, placed, result, entries, now), now);
    const events: DomainEvent[] = [{ type: 'poolUpdated', poolId }];
    if (done.notifications.length > 0) events.unshift({ type: 'notificationsCreated', notifications: done.notifications });
    await ctx.events.publishIn(tx, events);
    return done;
  });
  return done.pool;
}

/** Sets a pool's status, and its closed flag when `isClosed` is given. */
export async function updatePoolStatus(
  ctx: ServiceContext,
  input: { poolId: string; status: PoolStatus; isClosed?: boolean | null },
): Promise<PoolRow> {
  requireRole(ctx.viewer, 'ADMIN');
  const poolId = parseId(input.poolId, 'poolId');
  const statuses: readonly string[] = poolStatus.enumValues;
  if (!statuses.includes(input.status)) throw badInput('status', `status must be one of ${statuses.join(', ')}`);
  return ctx.database.db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const [pool] = await tx
      .update(pools)
      .set({ status: input.status, ...(input.isClosed == null ? {} : { isClosed: input.isClosed }), updatedAt: ctx.now })
      .where(eq(pools.id, poolId))
      .returning();
    if (!pool) throw new AppError('NOT_FOUND', `No pool has id ${poolId}`, { argumentName: 'poolId' });
    await ctx.events.publishIn(tx, [{ type: 'poolUpdated', poolId }]);
    return pool;
  });
}
