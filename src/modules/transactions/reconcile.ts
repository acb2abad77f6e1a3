import { and, asc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { chainSubmissions, type ChainSubmissionRow } from '../../../schema/index.js';
import { TransactionRejectedError } from '../../chain/rpc.js';
import type { ChainRuntime } from '../../chain/runtime.js';
import { parseWireTransaction } from '../../chain/transactions.js';
import type { Database, Db } from '../../db/client.js';
import { EventHub } from '../events/event-hub.js';
import type { EventPublisher } from '../events/events.js';
import type { OperationName } from './operations.js';
import { relayerSpendOf } from './relayer-spend.js';
import { applyConfirmed, forget, SUBMISSION_LEASE_MS } from './submission.js';

export interface ReconcileOptions {
  events?: EventPublisher;
  /** The time source of leases (tests move it). */
  clock?: () => Date;
  leaseMs?: number;
}

export type ReconcileTally = { confirmed: number; forgotten: number; resent: number };

/**
 * Takes the oldest PENDING submission whose lease has run out (or that never had one) and
 * leases it to the caller, in one statement: `FOR UPDATE SKIP LOCKED` makes concurrent
 * reconcilers (other replicas) take different rows instead of waiting on or sharing one.
 */
async function leaseNext(db: Db, now: Date, leaseMs: number, skip: readonly string[]): Promise<ChainSubmissionRow | null> {
  const free = and(
    eq(chainSubmissions.status, 'PENDING'),
    or(isNull(chainSubmissions.leaseExpiresAt), lt(chainSubmissions.leaseExpiresAt, now)),
    skip.length ? sql`${chainSubmissions.id} <> ALL(${`{${skip.join(',')}}`}::uuid[])` : undefined,
  );
  const next = db
    .select({ id: chainSubmissions.id })
    .from(chainSubmissions)
    .where(free)
    .orderBy(asc(chainSubmissions.createdAt))
    .limit(1)
    .for('update', { skipLocked: true });
  const [row] = await db
    .update(chainSubmissions)
    .set({ leaseExpiresAt: new Date(now.getTime() + leaseMs) })
    .where(and(eq(chainSubmissions.id, sql`(${next})`), free))
    .returning();
  return row ?? null;
}

/**
 * Settles the PENDING submissions no live process owns (a crash, a cut database connection,
 * a chain that stopped answering left them): confirmed on-chain -> effects applied; failed,
 * or expired without landing -> forgotten; still valid and unknown to the chain -> sent again
 * (the same bytes, so at most one copy can land; a copy that landed meanwhile comes back as
 * already processed, which is settled as landed). Each row is leased first, so replicas
 * running this at once settle each row once. Run at start-up and periodically.
 */
export async function reconcilePendingSubmissions(
  database: Database,
  chain: ChainRuntime,
  options: ReconcileOptions = {},
): Promise<ReconcileTally> {
  const db = database.db;
  const { events = new EventHub(database), clock = () => new Date(), leaseMs = SUBMISSION_LEASE_MS } = options;
  const tally: ReconcileTally = { confirmed: 0, forgotten: 0, resent: 0 };
  // A row this pass could not settle (the chain stopped answering) keeps its lease and waits for a later pass.
  const tried: string[] = [];
  for (
    let submission = await leaseNext(db, clock(), leaseMs, tried);
    submission;
    submission = await leaseNext(db, clock(), leaseMs, tried)
  ) {
    tried.push(submission.id);
    const { outcome, resent } = await settle(database, chain, events, clock, submission);
    tally[outcome]++;
    if (resent) tally.resent++;
  }
  return tally;
}

async function settle(
  database: Database,
  chain: ChainRuntime,
  events: EventPublisher,
  clock: () => Date,
  submission: ChainSubmissionRow,
): Promise<{ outcome: 'confirmed' | 'forgotten'; resent: boolean }> {
  const db = database.db;
  let resent = false;
  let status = await chain.client.signatureStatus(submission.signature);
  if (!status) {
    const height = await chain.client.connection.getBlockHeight('confirmed');
    if (height > submission.lastValidBlockHeight) {
      await forget(db, submission, events);
      return { outcome: 'forgotten', resent };
    }
    const bytes = Buffer.from(submission.transaction, 'base64');
    if (!parseWireTransaction(bytes)) throw new Error(`submission ${submission.id} holds no valid transaction`);
    try {
      await chain.client.send(bytes);
    } catch (error) {
      if (!(error instanceof TransactionRejectedError)) throw error;
      await forget(db, submission, events);
      return { outcome: 'forgotten', resent };
    }
    resent = true;
    status = await chain.client.confirm(submission.signature, submission.lastValidBlockHeight);
  }
  if (status && !status.err) {
    await applyConfirmed(
      db,
      submission,
      clock(),
      events,
      await relayerSpendOf(chain, submission.operation as OperationName, submission.signature),
    );
    return { outcome: 'confirmed', resent };
  }
  await forget(db, submission, events);
  return { outcome: 'forgotten', resent };
}

/**
 * Runs {@link reconcilePendingSubmissions} now and every `intervalMs` until stopped, one
 * pass at a time; a pass that fails (database or chain unreachable) is logged and retried
 * at the next tick. `stop` waits for a pass in progress.
 */
export function startReconciler(
  database: Database,
  chain: ChainRuntime,
  options: ReconcileOptions & { intervalMs: number; onPass?: (tally: ReconcileTally) => void; onError?: (error: unknown) => void },
): { stop(): Promise<void>; readonly firstPass: Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const pass = () => {
    running = reconcilePendingSubmissions(database, chain, options).then(
      (tally) => options.onPass?.(tally),
      (error) => options.onError?.(error),
    );
    void running.then(() => {
      if (!stopped && options.intervalMs > 0) timer = setTimeout(() => void pass(), options.intervalMs);
    });
    return running;
  };
  const firstPass = pass();
  return {
    firstPass,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
