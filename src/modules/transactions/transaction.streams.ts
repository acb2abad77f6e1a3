import bs58 from 'bs58';
import { eq } from 'drizzle-orm';
import {
  chainSubmissions,
  type ChainSubmissionRow,
  predictions,
  type PredictionRow,
  type RewardRow,
  rewards,
  streakRewards,
  type StreakRewardRow,
} from '../../../schema/index.js';
import { AppError, badInput } from '../../errors.js';
import { requireViewer } from '../auth/viewer.js';
import type { ServiceContext } from '../context.js';
import { type EventScope, type Following, newEventScope } from '../events/event-hub.js';
import type { CommittedEvent } from '../events/events.js';
import { eventStream, ScopedEvent } from '../events/event-stream.js';
import type { ChainClient } from '../../chain/rpc.js';
import { requireChain } from './submission.js';

export type TransactionLifecycleStatus = 'SUBMITTED' | 'CONFIRMED' | 'FINALIZED' | 'FAILED';

/** One step of a submission's life; the record it produced is read once it is confirmed. */
export interface TransactionStatusUpdate {
  signature: string;
  status: TransactionLifecycleStatus;
  /** The submission (null once a failed one has been forgotten). */
  submission: ChainSubmissionRow | null;
}

/**
 * A status's place in a submission's life. A stream tells each place once, in order: the
 * status read when it starts may already show a change whose event this process dispatches
 * after, and that event then says nothing new.
 */
const STEP: Record<TransactionLifecycleStatus, number> = { SUBMITTED: 0, CONFIRMED: 1, FINALIZED: 2, FAILED: 2 };
/** A stream completes after its item of the last step. */
const isLastStep = (update: TransactionStatusUpdate) => STEP[update.status] === 2;

/** How often, and for how long, finality is polled for after confirmation. */
const FINALITY_POLL_MS = 400;
const FINALITY_WAIT_MS = 120_000;

/** Told once: true when the signature is finalized, false when the wait gave up. */
type FinalityListener = (finalized: boolean) => void;

/**
 * One finality poll per signature and chain, however many subscriptions follow it: the
 * first follower starts it, the last one to leave stops it, and every follower hears its
 * outcome. Keyed by the chain client, so gateways in one process (tests) keep apart.
 */
const finalityWatches = new WeakMap<ChainClient, Map<string, Set<FinalityListener>>>();

function watchFinality(client: ChainClient, signature: string, listener: FinalityListener): () => void {
  let watches = finalityWatches.get(client);
  if (!watches) finalityWatches.set(client, (watches = new Map()));
  let listeners = watches.get(signature);
  if (!listeners) {
    const started = new Set<FinalityListener>();
    watches.set(signature, (listeners = started));
    const deadline = Date.now() + FINALITY_WAIT_MS;
    const settle = (finalized: boolean) => {
      watches!.delete(signature);
      for (const told of started) told(finalized);
    };
    const poll = async () => {
      if (started.size === 0) return;
      const status = await client.signatureStatus(signature).catch(() => null);
      if (started.size === 0) return;
      if (status?.confirmationStatus === 'finalized') settle(true);
      else if (Date.now() < deadline) schedule(FINALITY_POLL_MS);
      else settle(false);
    };
    // A poll that throws (a listener failing) ends the watch as not finalized rather than
    // leaving a rejected promise nobody handles, which would stop the process.
    const schedule = (ms: number) => setTimeout(() => void poll().catch(() => settle(false)), ms);
    schedule(0);
  }
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && watches!.get(signature) === listeners) watches!.delete(signature);
  };
}

/**
 * The life of one of the viewer's submissions: its current status first, then SUBMITTED ->
 * CONFIRMED -> FINALIZED, or FAILED, each told once and never one before the last told; the
 * stream completes after FINALIZED or FAILED.
 * Confirmation comes from the replica that submitted (through the event channel); finality
 * is read from the chain. With `afterSequence`, the status changes after it are replayed
 * instead of the current status (then FINALIZED, read from the chain, once confirmed).
 * Others' submissions are NOT_FOUND, like unknown ones.
 */
export async function followTransaction(ctx: ServiceContext, signature: string, afterSequence: string | null) {
  const viewer = requireViewer(ctx.viewer);
  let bytes: Uint8Array | null = null;
  try {
    bytes = bs58.decode(signature);
  } catch {
    bytes = null;
  }
  if (!bytes || bytes.length !== 64) throw badInput('signature', 'signature must be a base58 transaction signature (64 bytes)');
  const chain = requireChain(ctx);
  const [found] = await ctx.database.db.select().from(chainSubmissions).where(eq(chainSubmissions.signature, signature));
  if (!found || (found.userId !== viewer.userId && viewer.role !== 'ADMIN')) {
    throw new AppError('NOT_FOUND', 'No submission of yours has this signature', { argumentName: 'signature' });
  }
  const after = await ctx.events.resumePoint(afterSequence);

  let stopWatching: (() => void) | undefined;
  let following: Following;
  const freshScope = () => newEventScope(ctx.database.db, ctx.clock, Math.max(following.position, after ?? 0));
  const update = (status: TransactionLifecycleStatus, submission: ChainSubmissionRow | null, scope: EventScope) =>
    new ScopedEvent<TransactionStatusUpdate>({ signature, status, submission }, scope);
  const findRow = async () =>
    (await ctx.database.db.select().from(chainSubmissions).where(eq(chainSubmissions.signature, signature)))[0] ?? null;
  let push: (item: ScopedEvent<TransactionStatusUpdate>) => void = () => {};
  let end: () => void = () => {};
  const followFinality = (submission: ChainSubmissionRow) => {
    stopWatching ??= watchFinality(chain.client, signature, (finalized) => {
      if (finalized) push(update('FINALIZED', submission, freshScope()));
      end();
    });
  };
  /** The item a status event gives (CONFIRMED starts waiting for finality). */
  const itemOf = async (event: CommittedEvent, scope: EventScope): Promise<ScopedEvent<TransactionStatusUpdate> | null> => {
    if (event.type !== 'transactionStatus') return null;
    if (event.status === 'FAILED') return update('FAILED', null, scope);
    if (event.status === 'SUBMITTED') return update('SUBMITTED', event.submission ?? found, scope);
    // The submission as its confirmation committed it (read again only for an event written without it).
    const row = event.submission ?? (await findRow());
    if (row) followFinality(row);
    return update('CONFIRMED', row ?? found, scope);
  };

  return eventStream<TransactionStatusUpdate>(
    {
      follow(pushItem, endStream) {
        push = pushItem;
        end = endStream;
        following = ctx.events.follow({ transaction: signature }, after, (event, scope) => {
          void itemOf(event, scope).then(
            (item) => {
              if (!item) return;
              push(item);
              if (isLastStep(item.root)) end();
            },
            () => {},
          );
        });
        return following.stop;
      },
      initial: async () => {
        if (after !== null) {
          const items: Array<ScopedEvent<TransactionStatusUpdate>> = [];
          for (const { event, scope } of await following.missed()) {
            const item = await itemOf(event, scope);
            if (item) items.push(item);
          }
          // Confirmed before the resume point: what is left to report is finality.
          const row = await findRow();
          if (row?.status === 'CONFIRMED') followFinality(row);
          if (items.some((item) => isLastStep(item.root))) end();
          return items;
        }
        // Read again once following: a change between the first read and now is not missed.
        const row = await findRow();
        if (!row) {
          end();
          return [update('FAILED', null, freshScope())];
        }
        if (row.status === 'CONFIRMED') followFinality(row);
        return [update(row.status === 'CONFIRMED' ? 'CONFIRMED' : 'SUBMITTED', row, freshScope())];
      },
      tellsNew: (item, last) => STEP[item.status] > STEP[last.status],
    },
    () => stopWatching?.(),
  );
}

interface SubmissionRecord {
  prediction: PredictionRow | null;
  reward: RewardRow | null;
  streakReward: StreakRewardRow | null;
}

/** Each update's record, read once however many of its fields a result selects. */
const records = new WeakMap<TransactionStatusUpdate, Promise<SubmissionRecord>>();

/** What a confirmed submission produced: the prediction it placed or changed, or the reward it paid. */
export function submissionRecord(ctx: ServiceContext, update: TransactionStatusUpdate): Promise<SubmissionRecord> {
  let record = records.get(update);
  if (!record) records.set(update, (record = readSubmissionRecord(ctx, update)));
  return record;
}

async function readSubmissionRecord(ctx: ServiceContext, update: TransactionStatusUpdate): Promise<SubmissionRecord> {
  const none = { prediction: null, reward: null, streakReward: null };
  const submission = update.submission;
  if (!submission || (update.status !== 'CONFIRMED' && update.status !== 'FINALIZED')) return none;
  const p = submission.params;
  const db = ctx.database.db;
  if (p.predictionAccount) {
    const [prediction] = await db.select().from(predictions).where(eq(predictions.predictionAccount, p.predictionAccount));
    return { ...none, prediction: prediction ?? null };
  }
  if (p.rewardId) return { ...none, reward: (await db.select().from(rewards).where(eq(rewards.id, p.rewardId)))[0] ?? null };
  if (p.streakRewardId)
    return { ...none, streakReward: (await db.select().from(streakRewards).where(eq(streakRewards.id, p.streakRewardId)))[0] ?? null };
  return none;
}
