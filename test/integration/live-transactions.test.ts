import { randomBytes } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { ChainClient } from '../../src/chain/rpc.js';
import { type ChainFixture, startChainFixture, TestKeypairWallet } from '../support/chain-fixture.js';
import { syncCustodyAccounts } from '../../src/modules/transactions/custody-sync.js';
import { forget } from '../../src/modules/transactions/submission.js';
import { UNIT } from '../support/fixtures/builders.js';
import { backends, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { signInAs, walletSignIn } from '../support/sessions.js';
import { RpcCounter } from '../support/rpc-counter.js';
import { listen, publishMarker, socketClient, Subscription } from '../support/sockets.js';
import { subscriptionsOpen, until } from '../support/wait.js';

const TOKEN = 1_000_000n;
const CLAIM_STREAK = `mutation($id: ID!) { claimStreakReward(streakRewardId: $id) { signature } }`;
const BUILD_PREDICTION = `mutation($i: PredictionTransactionInput!) { buildPredictionTransaction(input: $i) { transaction proof } }`;
const SUBMIT_PREDICTION = `mutation($i: SubmitPredictionTransactionInput!) { submitPredictionTransaction(input: $i) { signature prediction { id } } }`;
const NOTIFICATIONS = `subscription { notifications { id type userId data } }`;

describe.each(backends)('events of on-chain mutations, delivered over graphql-ws, on %s', (kind) => {
  let t: TestApp;
  let chain: ChainFixture;
  let url: string;
  let rpc: RpcCounter;
  /** A streak holding 10 tokens, for the claims. */
  let streak: typeof tables.streaks.$inferSelect;
  /** Two open pools (their vaults made on the chain as at start-up), one for each prediction test. */
  let openPools: Array<typeof tables.pools.$inferSelect>;
  /** Three users for the createPool test: an admin, one listening, one with notifications off. */
  let userIds: string[];

  beforeAll(async () => {
    chain = await startChainFixture();
    // The gateway reaches the chain through a relay that counts its calls.
    rpc = new RpcCounter(chain.devchain.url);
    chain.runtime.client = new ChainClient(await rpc.start());
    t = await startEmptyTestApp(kind, { chain: chain.runtime, config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    streak = await t.seed.streak({ onchainBalance: 10n * UNIT });
    await t.seed.user().withPool().withPool();
    userIds = (await t.seed.users(3)).map((f) => f.user.id);
    expect(await syncCustodyAccounts(t.database, chain.runtime)).toEqual({ pools: 2, streaks: 1 });
    openPools = await t.database.db.select().from(tables.pools);
    url = await listen(t);
  });
  afterAll(async () => {
    await t?.close();
    await rpc?.close();
    await chain?.close();
  });

  async function signedInWallet() {
    const wallet = new TestKeypairWallet();
    return { wallet, ...(await walletSignIn(t.gql, wallet)) };
  }

  /** A new wallet's prediction on an open pool, built, signed and submitted: its signature and the signed-in user. */
  async function submittedPrediction(pool: (typeof openPools)[number], steps: number) {
    const user = await signedInWallet();
    await chain.devchain.mintTokens(user.wallet.publicKey, 1000n * TOKEN);
    const input = {
      poolId: pool.id,
      stake: Number((pool.minStake * 2n) / TOKEN),
      value: Number((pool.minOutcome + steps * pool.step).toFixed(pool.precision)),
    };
    const built = (await t.gql(BUILD_PREDICTION, { i: input }, user.headers)).data.buildPredictionTransaction;
    const submitted = await t.gql(
      SUBMIT_PREDICTION,
      { i: { ...input, signedTransaction: await user.wallet.signTransaction(built.transaction), proof: built.proof } },
      user.headers,
    );
    expect(submitted.errors, JSON.stringify(submitted.errors)).toBeUndefined();
    return { user, signature: submitted.data.submitPredictionTransaction.signature as string };
  }

  it("delivers a claim's notification to its owner's socket only; with preferences off, none is delivered", async () => {
    const owner = await signedInWallet();
    const other = await signedInWallet();
    // The payout needs the owner's token account to exist (the relayer funds no account a user could close).
    await chain.devchain.mintTokens(owner.wallet.publicKey, 1n);
    const [first, second] = await t.database.db
      .insert(tables.streakRewards)
      .values([
        { streakId: streak.id, userWalletAddress: owner.wallet.address, amount: 2_000_000n },
        { streakId: streak.id, userWalletAddress: owner.wallet.address, amount: 1_000_000n },
      ])
      .returning();

    const ownerSocket = socketClient(url, { authorization: `Bearer ${owner.accessToken}` });
    const otherSocket = socketClient(url, { authorization: `Bearer ${other.accessToken}` });
    await Promise.all([ownerSocket.connected, otherSocket.connected]);
    const ownerSub = new Subscription(ownerSocket.client, NOTIFICATIONS);
    const ownerCount = new Subscription(ownerSocket.client, `subscription { notificationCount }`);
    const otherSub = new Subscription(otherSocket.client, NOTIFICATIONS);
    await ownerCount.waitFor(1);
    await subscriptionsOpen(t.app, 3);
    const unreadBefore = (ownerCount.results[0]!.data as { notificationCount: number }).notificationCount;

    const claimed = await t.gql(CLAIM_STREAK, { id: first!.id }, owner.headers);
    expect(claimed.errors, JSON.stringify(claimed.errors)).toBeUndefined();
    const [delivered] = await ownerSub.waitFor(1);
    const [row] = await t.database.db
      .select()
      .from(tables.notifications)
      .where(and(eq(tables.notifications.userId, owner.userId), eq(tables.notifications.type, 'STREAK_REWARD_RECEIVED')));
    expect(delivered!.data).toEqual({
      notifications: {
        id: row!.id,
        type: 'STREAK_REWARD_RECEIVED',
        userId: owner.userId,
        data: expect.objectContaining({ streakRewardId: first!.id, signature: claimed.data.claimStreakReward.signature }),
      },
    });
    expect((await ownerCount.waitFor(2))[1]!.data).toEqual({ notificationCount: unreadBefore + 1 });
    const read = await t.gql(`mutation($ids: [ID!]!) { markNotificationsRead(ids: $ids) }`, { ids: [row!.id] }, owner.headers);
    expect(read.data).toEqual({ markNotificationsRead: 1 });
    expect((await ownerCount.waitFor(3))[2]!.data).toEqual({ notificationCount: unreadBefore });

    // The type's preference off: the payout happens, nothing is written, nothing is delivered.
    const off = await t.gql(
      `mutation { updateNotificationPreferences(input: { streakRewardReceived: false }) { id } }`,
      undefined,
      owner.headers,
    );
    expect(off.errors).toBeUndefined();
    const written = await t.database.db.select().from(tables.notifications).where(eq(tables.notifications.userId, owner.userId));
    const quiet = await t.gql(CLAIM_STREAK, { id: second!.id }, owner.headers);
    expect(quiet.errors, JSON.stringify(quiet.errors)).toBeUndefined();
    expect(await t.database.db.select().from(tables.notifications).where(eq(tables.notifications.userId, owner.userId))).toHaveLength(
      written.length,
    );
    // Nothing delivered: a marker published after the claim reaches each socket (see publishMarker), and nothing before it.
    const ownerMarker = await publishMarker(t.database, owner.userId, 'owner marker');
    const otherMarker = await publishMarker(t.database, other.userId, 'other marker');
    expect((await ownerSub.waitFor(2)).map((r) => (r.data as { notifications: { id: string } }).notifications.id)).toEqual([
      row!.id,
      ownerMarker,
    ]);
    expect((await otherSub.waitFor(1)).map((r) => (r.data as { notifications: { id: string } }).notifications.id)).toEqual([otherMarker]);
    await Promise.all([ownerSocket.dispose(), otherSocket.dispose()]);
  });

  it('follows a placed prediction: poolUpdated with the new volume, and transactionStatus to FINALIZED with the prediction', async () => {
    const user = await signedInWallet();
    await chain.devchain.mintTokens(user.wallet.publicKey, 1000n * TOKEN);
    const pool = openPools[0];
    // The pool's account is a real 32-byte key (the vault the stake moves to), written in its canonical form.
    expect(new PublicKey(pool!.poolAccount).toBase58()).toBe(pool!.poolAccount);

    const watcher = socketClient(url);
    await watcher.connected;
    const poolSub = new Subscription(
      watcher.client,
      `subscription($p: ID!) { poolUpdated(poolId: $p) { id totalVolume indexedPredictionUpdateCount } }`,
      { p: pool!.id },
    );
    await subscriptionsOpen(t.app, 1);

    const input = {
      poolId: pool!.id,
      stake: Number((pool!.minStake * 2n) / TOKEN),
      value: Number((pool!.minOutcome + 3 * pool!.step).toFixed(pool!.precision)),
    };
    const built = await t.gql(BUILD_PREDICTION, { i: input }, user.headers);
    expect(built.errors, JSON.stringify(built.errors)).toBeUndefined();
    const signedTransaction = await user.wallet.signTransaction(built.data.buildPredictionTransaction.transaction);
    const submitted = await t.gql(
      SUBMIT_PREDICTION,
      { i: { ...input, signedTransaction, proof: built.data.buildPredictionTransaction.proof } },
      user.headers,
    );
    expect(submitted.errors, JSON.stringify(submitted.errors)).toBeUndefined();
    const { signature, prediction } = submitted.data.submitPredictionTransaction;

    const [update] = await poolSub.waitFor(1);
    const [after] = await t.database.db.select().from(tables.pools).where(eq(tables.pools.id, pool!.id));
    expect(update!.data).toEqual({
      poolUpdated: {
        id: pool!.id,
        totalVolume: Number(after!.totalVolume / TOKEN) + Number(after!.totalVolume % TOKEN) / 1e6,
        indexedPredictionUpdateCount: after!.indexedPredictionUpdateCount,
      },
    });
    expect(after!.totalVolume).toBe(pool!.totalVolume + BigInt(input.stake) * TOKEN);

    const owner = socketClient(url, { authorization: `Bearer ${user.accessToken}` });
    await owner.connected;
    const status = new Subscription(
      owner.client,
      `subscription($s: String!) { transactionStatus(signature: $s) { signature status operation prediction { id } } }`,
      { s: signature },
    );
    const [confirmed] = await status.waitFor(1);
    expect(confirmed!.data).toEqual({
      transactionStatus: { signature, status: 'CONFIRMED', operation: 'placePrediction', prediction: { id: prediction.id } },
    });
    // A client resuming by sequence gets the status changes after it instead of the status now:
    // from just before CONFIRMED, CONFIRMED then FINALIZED; from CONFIRMED, FINALIZED only.
    const [confirmedRow] = await t.database.rows<{ seq: string }>(
      sql`SELECT seq FROM event_outbox WHERE payload::jsonb @> ${JSON.stringify({ type: 'transactionStatus', signature, status: 'CONFIRMED' })}::jsonb`,
    );
    const confirmedSeq = Number(confirmedRow!.seq);
    const RESUMED = `subscription($s: String!, $a: String) { transactionStatus(signature: $s, afterSequence: $a) { status } }`;
    const beforeConfirmed = new Subscription(owner.client, RESUMED, { s: signature, a: String(confirmedSeq - 1) });
    const atConfirmed = new Subscription(owner.client, RESUMED, { s: signature, a: String(confirmedSeq) });
    await beforeConfirmed.waitFor(1);
    await subscriptionsOpen(t.app, 4);
    chain.devchain.advanceSlots(40);
    const all = await status.waitFor(2);
    expect(all[1]!.data).toEqual({
      transactionStatus: { signature, status: 'FINALIZED', operation: 'placePrediction', prediction: { id: prediction.id } },
    });
    await status.waitForEnd();
    expect(status.completed).toBe(true);
    await Promise.all([beforeConfirmed.waitForEnd(), atConfirmed.waitForEnd()]);
    expect(beforeConfirmed.results.map((r) => r.data)).toEqual([
      { transactionStatus: { status: 'CONFIRMED' } },
      { transactionStatus: { status: 'FINALIZED' } },
    ]);
    expect(beforeConfirmed.results[0]!.extensions).toEqual({ eventSequence: String(confirmedSeq) });
    expect(atConfirmed.results.map((r) => r.data)).toEqual([{ transactionStatus: { status: 'FINALIZED' } }]);

    // Another user's submission is not theirs to follow; a malformed signature is refused.
    const stranger = await signedInWallet();
    const strangerSocket = socketClient(url, { authorization: `Bearer ${stranger.accessToken}` });
    await strangerSocket.connected;
    for (const [s, code] of [
      [signature, 'NOT_FOUND'],
      ['not-a-signature', 'BAD_USER_INPUT'],
    ] as const) {
      const refused = new Subscription(strangerSocket.client, `subscription($s: String!) { transactionStatus(signature: $s) { status } }`, {
        s,
      });
      await refused.waitForEnd();
      const errors = (refused.results[0]?.errors ?? refused.error) as Array<{ extensions: Record<string, unknown> }>;
      expect(errors[0]!.extensions.code).toBe(code);
    }
    await Promise.all([watcher.dispose(), owner.dispose(), strangerSocket.dispose()]);
  });
  it('announces createPool: poolCreated to every socket, POOL_CREATED to each user whose master switch is on, none to one whose is off', async () => {
    const admin = await signInAs(t, userIds[0]!, 'ADMIN');
    const listening = await signInAs(t, userIds[1]!);
    const silenced = await signInAs(t, userIds[2]!);
    const off = await t.gql(
      `mutation { updateNotificationPreferences(input: { isNotificationsEnabled: false }) { id } }`,
      undefined,
      silenced.headers,
    );
    expect(off.errors).toBeUndefined();
    // Set on explicitly: the test depends on it, not on the default.
    const on = await t.gql(
      `mutation { updateNotificationPreferences(input: { isNotificationsEnabled: true }) { id } }`,
      undefined,
      listening.headers,
    );
    expect(on.errors).toBeUndefined();

    const sockets = [
      socketClient(url),
      socketClient(url, { authorization: `Bearer ${listening.accessToken}` }),
      socketClient(url, { authorization: `Bearer ${silenced.accessToken}` }),
    ];
    await Promise.all(sockets.map((s) => s.connected));
    const created = new Subscription(sockets[0]!.client, `subscription { poolCreated { id title } }`);
    const listeningNotes = new Subscription(sockets[1]!.client, `subscription { notifications { type data } }`);
    const silencedNotes = new Subscription(sockets[2]!.client, `subscription { notifications { type title } }`);
    await subscriptionsOpen(t.app, 3);

    const now = Date.now();
    const input = {
      title: 'Live pool',
      description: 'Announced to subscribers',
      resolutionSource: 'test',
      minStake: 1,
      maxStake: 100,
      maxRoi: 3,
      minOutcome: 0,
      maxOutcome: 100,
      precision: 0,
      step: 1,
      predictionStartDate: new Date(now - 60_000).toISOString(),
      predictionEndDate: new Date(now + 86_400_000).toISOString(),
      referenceDate: new Date(now + 2 * 86_400_000).toISOString(),
      platformFeeRate: 0.01,
    };
    const result = await t.gql(`mutation($i: CreatePoolInput!) { createPool(input: $i) { id } }`, { i: input }, admin.headers);
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    const poolId = result.data.createPool.id as string;

    expect((await created.waitFor(1))[0]!.data).toEqual({ poolCreated: { id: poolId, title: 'Live pool' } });
    expect((await listeningNotes.waitFor(1))[0]!.data).toEqual({
      notifications: { type: 'POOL_CREATED', data: expect.objectContaining({ poolId }) },
    });
    // Nothing for the silenced user: a marker published after the pool's notifications is the first thing to reach them.
    await publishMarker(t.database, silenced.userId, 'silenced marker');
    expect((await silencedNotes.waitFor(1)).map((r) => r.data)).toEqual([
      { notifications: { type: 'REWARD_CLAIMED', title: 'silenced marker' } },
    ]);
    const written = await t.database.db
      .select()
      .from(tables.notifications)
      .where(and(eq(tables.notifications.type, 'POOL_CREATED'), eq(tables.notifications.userId, silenced.userId)));
    expect(written.filter((n) => (n.data as { poolId?: string }).poolId === poolId)).toHaveLength(0);
    await Promise.all(sockets.map((s) => s.dispose()));
  });

  it('follows one signature for many subscribers with one finality poll, and tells every one of them', async () => {
    const { user, signature } = await submittedPrediction(openPools[1]!, 4);

    const sockets = [
      socketClient(url, { authorization: `Bearer ${user.accessToken}` }),
      socketClient(url, { authorization: `Bearer ${user.accessToken}` }),
    ];
    await Promise.all(sockets.map((s) => s.connected));
    const polled = () => rpc.callsOf('getSignatureStatuses', signature).filter((call) => call.at >= following);
    const following = Date.now();
    const subscribers = Array.from(
      { length: 6 },
      (_, i) =>
        new Subscription(sockets[i % 2]!.client, `subscription($s: String!) { transactionStatus(signature: $s) { status } }`, {
          s: signature,
        }),
    );
    for (const subscriber of subscribers)
      expect((await subscriber.waitFor(1))[0]!.data).toEqual({ transactionStatus: { status: 'CONFIRMED' } });
    await until(() => polled().length >= 5, 15_000, 'five finality polls');

    // One poll stream: each call at least a poll interval after the one before (six streams would interleave).
    const calls = polled();
    const gaps = calls.slice(1).map((call, i) => call.at - calls[i]!.at);
    expect(Math.min(...gaps), `gaps between polls: ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(300);

    chain.devchain.advanceSlots(40);
    for (const subscriber of subscribers) {
      expect((await subscriber.waitFor(2))[1]!.data).toEqual({ transactionStatus: { status: 'FINALIZED' } });
      await subscriber.waitForEnd();
    }
    await Promise.all(sockets.map((s) => s.dispose()));
  });

  it('tells each status once: a confirmation this process dispatches after the subscriber read it is not told again', async () => {
    // The fault injected: this process's dispatch of the outbox is held (as a loaded event loop holds it) from
    // before the confirmation commits until the subscriber has been told the status it read.
    const hub = t.app.events as unknown as { wake(): void };
    hub.wake = () => {};
    let subscriber!: Subscription;
    let socket!: ReturnType<typeof socketClient>;
    try {
      const submitted = await submittedPrediction(openPools[1]!, 5);
      socket = socketClient(url, { authorization: `Bearer ${submitted.user.accessToken}` });
      await socket.connected;
      subscriber = new Subscription(socket.client, `subscription($s: String!) { transactionStatus(signature: $s) { status } }`, {
        s: submitted.signature,
      });
      expect((await subscriber.waitFor(1))[0]!.data).toEqual({ transactionStatus: { status: 'CONFIRMED' } });
    } finally {
      delete (hub as Partial<typeof hub>).wake;
    }
    hub.wake();
    const newest = Number(await t.app.events.newestSequence());
    await until(() => t.app.events.sequence >= newest, 5_000, 'the held confirmation dispatched');
    chain.devchain.advanceSlots(40);
    await subscriber.waitForEnd();
    expect(subscriber.results.map((r) => r.data)).toEqual([
      { transactionStatus: { status: 'CONFIRMED' } },
      { transactionStatus: { status: 'FINALIZED' } },
    ]);
    await socket.dispose();
  });

  it('tells a submission that did not land FAILED, and completes', async () => {
    const user = await signedInWallet();
    const signature = bs58.encode(randomBytes(64));
    const [pending] = await t.database.db
      .insert(tables.chainSubmissions)
      .values({
        idempotencyKey: signature,
        operation: 'withdraw',
        userId: user.userId,
        params: {},
        signature,
        transaction: '',
        lastValidBlockHeight: 0,
      })
      .returning();
    const socket = socketClient(url, { authorization: `Bearer ${user.accessToken}` });
    await socket.connected;
    const subscriber = new Subscription(socket.client, `subscription($s: String!) { transactionStatus(signature: $s) { status } }`, {
      s: signature,
    });
    expect((await subscriber.waitFor(1))[0]!.data).toEqual({ transactionStatus: { status: 'SUBMITTED' } });
    await forget(t.database.db, pending!, t.app.events);
    await subscriber.waitForEnd();
    expect(subscriber.results.map((r) => r.data)).toEqual([
      { transactionStatus: { status: 'SUBMITTED' } },
      { transactionStatus: { status: 'FAILED' } },
    ]);
    await socket.dispose();
  });
});
