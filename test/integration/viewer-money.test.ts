import { randomBytes } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import type { PoolRow } from '../../schema/index.js';
import { resultRows } from '../../src/db/client.js';
import { type ChainFixture, startChainFixture, TestKeypairWallet } from '../support/chain-fixture.js';
import { syncCustodyAccounts } from '../../src/modules/transactions/custody-sync.js';
import { UNIT } from '../support/fixtures/builders.js';
import { EventHub } from '../../src/modules/events/event-hub.js';
import { backends, renderedReadsServed, startEmptyTestApp, testConfig, type TestApp } from '../support/harness.js';
import { listen, socketClient, Subscription } from '../support/sockets.js';
import { subscriptionsOpen, until } from '../support/wait.js';
import {
  BUILD_PREDICTION,
  BUILD_STAKE,
  BUILD_WITHDRAW,
  type SignedIn,
  signInWith,
  SUBMIT_PREDICTION,
  SUBMIT_STAKE,
  SUBMIT_WITHDRAW,
  twoStep,
} from '../support/operator-fixture.js';

const TOKEN = 1_000_000n;
const tokens = (units: bigint | string | number) => Number(BigInt(units)) / 1e6;
const BALANCE = `{ viewer { balance { token sol tokenAccount mint } } }`;
const MONEY = `claimable { rewardTotal refundTotal streakRewardTotal total rewards { id amount } refunds { id amount } streakRewards { id amount } }
  portfolio { activeCount activeStake totalStaked resolvedCount resolvedStake totalPayout realizedPnl }`;

describe.each(backends)("the viewer's money on %s", (kind) => {
  let t: TestApp;
  let chain: ChainFixture;
  let admin: SignedIn;

  /** Pools predicted in by the money users, the busy user and the balance test. */
  let open: PoolRow[];
  let busyUserId: string;

  beforeAll(async () => {
    chain = await startChainFixture();
    t = await startEmptyTestApp(kind, { chain: chain.runtime, config: testConfig({ SIGN_IN_ATTEMPTS_PER_CLIENT_PER_MINUTE: '10000' }) });
    const wallet = new TestKeypairWallet();
    const first = await signInWith(t.gql, wallet);
    await t.database.db.update(tables.users).set({ role: 'ADMIN' }).where(eq(tables.users.id, first.userId));
    admin = await signInWith(t.gql, wallet);
    await seedMoney();
    // The pools were written after the app started: give them their custody accounts on the chain.
    await syncCustodyAccounts(t.database, chain.runtime);
  });
  afterAll(async () => {
    await t?.close();
    await chain?.close();
  });

  /**
   * Pools open (three ACTIVE, one FROZEN, one closed), ended and unresolved, and resolved;
   * 25 users cycling through six kinds of money (an unclaimed reward, a claimed one, an
   * unclaimed refund, a zero reward with a streak reward, streak rewards only, nothing);
   * and one busy user with predictions in every lifecycle, stakes tied two by two. No
   * pool has paid out more than it holds: the custody sync stocks its vault with the rest.
   */
  async function seedMoney() {
    const streak = await t.seed.streak();
    const creator = await t.seed
      .user()
      .withPool()
      .withPool()
      .withPool()
      .withPool({ status: 'FROZEN' })
      .withPool({ isClosed: true })
      .withPool({ phase: 'ended' })
      .withPool({ phase: 'ended' })
      .withPool({ phase: 'ended' })
      .withPool({ phase: 'ended' })
      .withPool({ phase: 'ended' })
      .withPool({ phase: 'ended' });
    const [o0, o1, o2, frozen, closed, e0, e1, r0, r1, r2, r3] = creator.pools as [
      PoolRow,
      PoolRow,
      PoolRow,
      PoolRow,
      PoolRow,
      PoolRow,
      PoolRow,
      PoolRow,
      PoolRow,
      PoolRow,
      PoolRow,
    ];
    open = [o0, o1, o2];
    const resolved = [r0, r1, r2, r3];
    for (const pool of resolved) await t.seed.resolution(pool);

    await t.seed.users(25, (user, i) => {
      const pool = resolved[i % 4]!;
      user.withPrediction({ pool: open[i % 3]!, stake: BigInt(1 + (i % 4)) * UNIT });
      if (i % 6 === 0) user.withPrediction({ pool, stake: 2n * UNIT }).withReward({ amount: 3n * UNIT + BigInt(i) });
      if (i % 6 === 1) user.withPrediction({ pool, stake: 2n * UNIT }).withReward({ amount: UNIT, isClaimed: true });
      if (i % 6 === 2) user.withPrediction({ pool, stake: 3n * UNIT }).withReward({ type: 'REFUND' });
      if (i % 6 === 3)
        user
          .withPrediction({ pool, stake: 1n * UNIT })
          .withReward({ amount: 0n, precisionScore: 0 })
          .withStreakReward(streak);
      if (i % 6 === 4) user.withStreakReward(streak, { isClaimed: true }).withStreakReward(streak, { amount: 1_500_000n });
      return user;
    });

    const busy = await t.seed
      .user()
      .withPrediction({ pool: o0, stake: 2n * UNIT })
      .withPrediction({ pool: o1, stake: 2n * UNIT })
      .withPrediction({ pool: o2, stake: 5n * UNIT })
      .withPrediction({ pool: frozen, stake: 4n * UNIT })
      .withPrediction({ pool: closed, stake: 4n * UNIT })
      .withPrediction({ pool: e0, stake: 3n * UNIT })
      .withPrediction({ pool: e1, stake: 3n * UNIT })
      .withPrediction({ pool: r0, stake: 3n * UNIT })
      .withReward({ amount: 5n * UNIT })
      .withPrediction({ pool: r1, stake: 2n * UNIT })
      .withReward({ amount: 0n })
      .withPrediction({ pool: r2, stake: 6n * UNIT })
      .withReward({ type: 'REFUND' })
      .withPrediction({ pool: r3, stake: 1n * UNIT })
      .withReward({ amount: UNIT, isClaimed: true });
    busyUserId = busy.user.id;
  }

  it('balance equals the chain after every step of a transaction sequence, and is cached between them', async () => {
    const user = await signInWith(t.gql, new TestKeypairWallet());
    const account = userTokenAccountOf(user);
    const expectBalance = async () => {
      const { data, errors } = await t.gql(BALANCE, undefined, user.headers);
      expect(errors).toBeUndefined();
      expect(data.viewer.balance).toEqual({
        token: tokens(await chain.balance(account)),
        sol: (await chain.runtime.client.connection.getBalance(user.wallet.publicKey)) / 1e9,
        tokenAccount: account.toBase58(),
        mint: chain.runtime.accounts.mint.toBase58(),
      });
      return data.viewer.balance.token as number;
    };
    expect(await expectBalance()).toBe(0); // no token account yet
    await chain.devchain.mintTokens(user.wallet.publicKey, 500n * TOKEN);
    // Minted outside the service: the cached answer stands until it expires or the user transacts.
    expect((await t.gql(BALANCE, undefined, user.headers)).data.viewer.balance.token).toBe(0);

    const [pool] = (await t.database.db.select().from(tables.pools).where(eq(tables.pools.id, open[0]!.id))) as [PoolRow];
    const stake = tokens(pool.minStake * 3n);
    const value = Number((pool.minOutcome + 7 * pool.step).toFixed(pool.precision));
    const placed = await twoStep(t.gql, user, BUILD_PREDICTION, SUBMIT_PREDICTION, { poolId: pool.id, stake, value });
    expect(await expectBalance()).toBe(500 - stake);
    const lower = tokens(pool.minStake * 2n);
    await twoStep(t.gql, user, BUILD_STAKE, SUBMIT_STAKE, { predictionId: placed.prediction.id, stake: lower });
    expect(await expectBalance()).toBe(500 - lower);
    const to = new TestKeypairWallet().address;
    // The recipient has no token account: the user's own SOL pays its rent (docs/security.md).
    await chain.devchain.airdrop(user.wallet.publicKey, 10_000_000n);
    await twoStep(t.gql, user, BUILD_WITHDRAW, SUBMIT_WITHDRAW, { toAddress: to, amount: 7 });
    expect(await expectBalance()).toBe(500 - lower - 7);

    const history = await t.gql(
      `{ viewer { transactions(first: 10) { totalCount nodes { operation status signature amount prediction { id } } } } }`,
      undefined,
      user.headers,
    );
    const signatures = resultRows<{ signature: string; operation: string }>(
      await t.database.db.execute(
        sql`SELECT signature, operation FROM chain_submissions WHERE user_id = ${user.userId} ORDER BY created_at DESC, id DESC`,
      ),
    );
    expect(history.data.viewer.transactions).toEqual({
      totalCount: 3,
      nodes: [
        { operation: 'withdraw', status: 'CONFIRMED', signature: signatures[0]!.signature, amount: -7, prediction: null },
        {
          operation: 'updateStake',
          status: 'CONFIRMED',
          signature: signatures[1]!.signature,
          amount: stake - lower,
          prediction: { id: placed.prediction.id },
        },
        {
          operation: 'placePrediction',
          status: 'CONFIRMED',
          signature: signatures[2]!.signature,
          amount: -stake,
          prediction: { id: placed.prediction.id },
        },
      ],
    });

    const viewerPrediction = `query($p: ID!) { pool(id: $p) { viewerPrediction { id stake } } }`;
    // Written by the pool's one statement, the viewer bound at the run (a plan serves every viewer); the executor answers the same.
    const rendered = await renderedReadsServed(t.app);
    let answer: { data?: { pool: { viewerPrediction: unknown } } } | undefined;
    expect(await t.countStatements(async () => (answer = await t.gql(viewerPrediction, { p: pool.id }, user.headers)))).toBe(1);
    expect(await renderedReadsServed(t.app)).toBe(rendered + 1);
    expect(answer!.data?.pool.viewerPrediction).toEqual({ id: placed.prediction.id, stake: lower });
    expect((await t.gql(viewerPrediction, { p: pool.id }, admin.headers)).data.pool.viewerPrediction).toBeNull();
    expect((await t.gql(viewerPrediction, { p: pool.id })).data.pool.viewerPrediction).toBeNull();
    // Another user's money is theirs alone.
    const peek = await t.gql(
      `query($id: ID!) { user(id: $id) { balance { token } } }`,
      { id: user.userId },
      (await signInWith(t.gql, new TestKeypairWallet())).headers,
    );
    expect(peek.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('shows an ADMIN the balance of a user whose address is off the curve (as seeded ones may be): nothing held, no error', async () => {
    let bytes = randomBytes(32);
    while (PublicKey.isOnCurve(bytes)) bytes = randomBytes(32);
    const [seeded] = await t.seed.users(1);
    const address = new PublicKey(bytes).toBase58();
    await t.database.db.update(tables.users).set({ walletAddress: address }).where(eq(tables.users.id, seeded!.user.id));
    const read = await t.gql(`query($id: ID!) { user(id: $id) { balance { token sol } } }`, { id: seeded!.user.id }, admin.headers);
    expect(read.errors).toBeUndefined();
    expect(read.data.user.balance).toEqual({ token: 0, sol: 0 });
  });

  it("resolves a balance in a subscription's event as over HTTP: the event's context has the service's chain", async () => {
    const pool = open[0]!;
    const selection = '{ id user { balance { token mint tokenAccount } } }';
    const overHttp = await t.gql(`query($p: ID!) { pool(id: $p) ${selection} }`, { p: pool.id }, admin.headers);
    expect(overHttp.errors).toBeUndefined();
    // The earlier cases' changes of this pool dispatched first: a late one would be this subscriber's first update.
    const newest = Number(await t.app.events.newestSequence());
    await until(() => t.app.events.sequence >= newest, 10_000, 'the earlier changes dispatched');
    const socket = socketClient(await listen(t), { authorization: admin.headers.authorization });
    try {
      await socket.connected;
      const updates = new Subscription(socket.client, `subscription($p: ID!) { poolUpdated(poolId: $p) ${selection} }`, { p: pool.id });
      await subscriptionsOpen(t.app, 1);
      await new EventHub(t.database).publish([{ type: 'poolUpdated', poolId: pool.id }]);
      const [update] = await updates.waitFor(1, 10_000);
      // Read from the chain within the event, not CHAIN_UNAVAILABLE (what an event's context without the service's chain answered).
      expect(update).toEqual({ data: { poolUpdated: overHttp.data.pool }, extensions: { eventSequence: expect.any(String) } });
    } finally {
      await socket.client.dispose();
    }
    await subscriptionsOpen(t.app, 0);
  });

  function userTokenAccountOf(user: SignedIn): PublicKey {
    return user.wallet.tokenAccount(chain.runtime.accounts.mint);
  }

  it('claimable and portfolio equal an independent SQL oracle for every user, in a constant number of statements', async () => {
    const ids = (await t.database.db.select({ id: tables.users.id }).from(tables.users)).map((u) => u.id).sort();
    const query = (batch: string[]) => `{ ${batch.map((id, i) => `u${i}: user(id: "${id}") { id ${MONEY} }`).join('\n')} }`;
    const answers: Record<string, any> = {};
    for (let start = 0; start < ids.length; start += 20) {
      const { data, errors } = await t.gql(query(ids.slice(start, start + 20)), undefined, admin.headers);
      expect(errors).toBeUndefined();
      for (const user of Object.values(data) as any[]) answers[user.id] = user;
    }
    // Totals only: nested lists add statements only where some user has such rows.
    const totals = (batch: string[]) =>
      `{ ${batch.map((id, i) => `u${i}: user(id: "${id}") { id claimable { total } portfolio { realizedPnl } }`).join('\n')} }`;
    const counts: number[] = [];
    for (const n of [2, 10, 25]) counts.push(await t.countStatements(() => t.gql(totals(ids.slice(0, n)), undefined, admin.headers)));
    expect(new Set(counts).size, `statements for 2, 10, 25 users: ${counts}`).toBe(1);

    const oracle = resultRows<Record<string, string>>(
      await t.database.db.execute(sql`
        SELECT u.id,
          (SELECT coalesce(sum(r.amount), 0) FROM rewards r JOIN predictions p ON p.id = r.prediction_id WHERE p.user_id = u.id AND NOT r.is_claimed AND r.amount > 0 AND r.type = 'REWARD')::text AS reward,
          (SELECT coalesce(sum(r.amount), 0) FROM rewards r JOIN predictions p ON p.id = r.prediction_id WHERE p.user_id = u.id AND NOT r.is_claimed AND r.amount > 0 AND r.type = 'REFUND')::text AS refund,
          (SELECT coalesce(sum(s.amount), 0) FROM streak_rewards s WHERE s.user_wallet_address = u.wallet_address AND NOT s.is_claimed)::text AS streak,
          (SELECT count(*) FROM predictions p WHERE p.user_id = u.id AND NOT EXISTS (SELECT 1 FROM resolutions x WHERE x.pool_id = p.pool_id))::text AS active_n,
          (SELECT coalesce(sum(p.stake), 0) FROM predictions p WHERE p.user_id = u.id AND NOT EXISTS (SELECT 1 FROM resolutions x WHERE x.pool_id = p.pool_id))::text AS active,
          (SELECT count(*) FROM predictions p WHERE p.user_id = u.id AND EXISTS (SELECT 1 FROM resolutions x WHERE x.pool_id = p.pool_id))::text AS resolved_n,
          (SELECT coalesce(sum(p.stake), 0) FROM predictions p WHERE p.user_id = u.id AND EXISTS (SELECT 1 FROM resolutions x WHERE x.pool_id = p.pool_id))::text AS resolved,
          (SELECT coalesce(sum(r.amount), 0) FROM rewards r JOIN predictions p ON p.id = r.prediction_id WHERE p.user_id = u.id)::text AS paid
        FROM users u`),
    );
    let withMoney = 0;
    for (const o of oracle) {
      const got = answers[o.id!];
      const total = BigInt(o.reward!) + BigInt(o.refund!) + BigInt(o.streak!);
      if (total > 0n && BigInt(o.resolved!) > 0n) withMoney++;
      expect(got.claimable, o.id).toMatchObject({
        rewardTotal: tokens(o.reward!),
        refundTotal: tokens(o.refund!),
        streakRewardTotal: tokens(o.streak!),
        total: tokens(total),
      });
      expect(got.portfolio, o.id).toEqual({
        activeCount: Number(o.active_n),
        activeStake: tokens(o.active!),
        totalStaked: tokens(BigInt(o.active!) + BigInt(o.resolved!)),
        resolvedCount: Number(o.resolved_n),
        resolvedStake: tokens(o.resolved!),
        totalPayout: tokens(o.paid!),
        realizedPnl: tokens(BigInt(o.paid!) - BigInt(o.resolved!)),
      });
    }
    expect(oracle.length, "the fixture's 27 users, the admin and the balance test's users").toBeGreaterThanOrEqual(28);
    // Something to claim after a resolution: the unclaimed rewards, refunds and zero rewards
    // with a streak reward (the first, third and fourth of every six users: 5 + 4 + 4), and the busy user.
    expect(withMoney).toBe(14);
  });

  it('filters a user’s predictions by lifecycle against an oracle, paging by stake', async () => {
    const userId = busyUserId;
    // What the busy user's predictions are, by filter (their stakes tie two by two, so ties are broken by id).
    const counts: Record<string, number> = { ACTIVE: 3, ENDED: 6, RESOLVED: 4, CLAIMABLE: 2 };
    const now = new Date().toISOString();
    const oracles: Record<string, string> = {
      ACTIVE: `pl.status = 'ACTIVE' AND NOT pl.is_closed AND pl.prediction_start_date <= '${now}' AND pl.prediction_end_date > '${now}'`,
      ENDED: `pl.prediction_end_date <= '${now}'`,
      RESOLVED: `EXISTS (SELECT 1 FROM resolutions x WHERE x.pool_id = pl.id)`,
      CLAIMABLE: `EXISTS (SELECT 1 FROM rewards r WHERE r.prediction_id = p.id AND NOT r.is_claimed AND r.amount > 0)`,
    };
    for (const [filter, condition] of Object.entries(oracles)) {
      const expected = resultRows<{ id: string }>(
        await t.database.db.execute(
          sql.raw(
            `SELECT p.id FROM predictions p JOIN pools pl ON pl.id = p.pool_id WHERE p.user_id = '${userId}' AND ${condition} ORDER BY p.stake DESC, p.id DESC`,
          ),
        ),
      ).map((r) => r.id);
      expect(expected, filter).toHaveLength(counts[filter]!);
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const { data, errors }: { data?: any; errors?: unknown } = await t.gql(
          `query($u: ID!, $f: PredictionFilter, $a: String) { user(id: $u) { predictions(filter: $f, sort: STAKE_HIGH, first: 2, after: $a) { totalCount pageInfo { hasNextPage endCursor } nodes { id } } } }`,
          { u: userId, f: filter, a: after },
        );
        expect(errors).toBeUndefined();
        const page: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string }; nodes: Array<{ id: string }> } =
          data.user.predictions;
        expect(page.totalCount).toBe(expected.length);
        seen.push(...page.nodes.map((n: { id: string }) => n.id));
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      expect(seen, filter).toEqual(expected);
    }
  });
});
