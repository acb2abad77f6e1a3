import { AccountLayout, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../schema/index.js';
import { streakAccumulatorAddress } from '../../src/chain/addresses.js';
import { type ChainFixture, startChainFixture } from '../support/chain-fixture.js';
import { backends } from '../support/harness.js';
import { type EmptyApp, makePng, type SignedIn, startEmptyApp } from '../support/operator-fixture.js';

const CREATE_STREAK = `mutation($i: CreateStreakInput!) { createStreak(input: $i) { id title streakAccumulatorAccount feePercentage payoutPercentage streakCountRequired minPrecisionScoreRequired availableBalance } }`;
const UPDATE_STREAK = `mutation($i: UpdateStreakInput!) { updateStreak(input: $i) { id title payoutPercentage streakCountRequired } }`;
const CREATE_CODE = `mutation($i: CreateReferralCodeInput!) { createReferralCode(input: $i) { id code notes maxUses redemptionCount expiresAt deactivatedAt creator { id } } }`;
const DEACTIVATE_CODE = `mutation($id: ID!) { deactivateReferralCode(id: $id) { id deactivatedAt } }`;
const REDEEM = `mutation($c: String!) { redeemReferralCode(code: $c) { id referralCode { code redemptionCount } } }`;
const STREAK_INPUT = {
  title: 'Weekly BTC',
  feePercentage: 5,
  payoutPercentage: 25,
  streakCountRequired: 2,
  minPrecisionScoreRequired: 0.5,
};

describe.each(backends)('operator content (streaks, referral codes, images) on %s', (kind) => {
  let t: EmptyApp;
  let chain: ChainFixture;
  let admin: SignedIn;
  let user: SignedIn;
  let clockOffsetMs = 0;

  beforeAll(async () => {
    chain = await startChainFixture();
    t = await startEmptyApp(kind, {
      chain: chain.runtime,
      clock: () => new Date(Date.now() + clockOffsetMs),
      env: { IMAGE_MAX_BYTES: '4096', IMAGE_MAX_DIMENSION: '1000' },
    });
    admin = await t.signIn({ admin: true });
    user = await t.signIn();
  });
  afterAll(async () => {
    await t?.close();
    await chain?.close();
  });

  const rows = async (table: typeof tables.images | typeof tables.referralRedemptions | typeof tables.streaks) =>
    ((await t.database.db.select({ n: count() }).from(table)) as [{ n: number }])[0].n;

  it('creates a streak whose accumulator is a custody-owned token account of the stake mint on the chain', async () => {
    const { data, errors } = await t.gql(CREATE_STREAK, { i: STREAK_INPUT }, admin.headers);
    expect(errors).toBeUndefined();
    const streak = data.createStreak;
    expect(streak).toMatchObject({ ...STREAK_INPUT, availableBalance: 0 });
    const expected = await streakAccumulatorAddress(chain.runtime.keys.custody.publicKey, streak.id);
    expect(streak.streakAccumulatorAccount).toBe(expected.toBase58());
    const info = await chain.runtime.client.connection.getAccountInfo(expected);
    expect(info?.owner.toBase58()).toBe(TOKEN_PROGRAM_ID.toBase58());
    const account = AccountLayout.decode(info!.data);
    expect(new PublicKey(account.mint).toBase58()).toBe(chain.runtime.accounts.mint.toBase58());
    expect(new PublicKey(account.owner).toBase58()).toBe(chain.runtime.keys.custody.publicKey.toBase58());

    const updated = await t.gql(UPDATE_STREAK, { i: { streakId: streak.id, payoutPercentage: 40, title: 'Weekly BTC II' } }, admin.headers);
    expect(updated.data.updateStreak).toEqual({ id: streak.id, title: 'Weekly BTC II', payoutPercentage: 40, streakCountRequired: 2 });
  });

  it('refuses to build a streak funding for non-operators, bad amounts and empty wallets', async () => {
    const streak = (await t.gql(CREATE_STREAK, { i: STREAK_INPUT }, admin.headers)).data.createStreak;
    const BUILD = `mutation($i: FundStreakTransactionInput!) { buildFundStreakTransaction(input: $i) { transaction } }`;
    expect((await t.gql(BUILD, { i: { streakId: streak.id, amount: 1 } }, user.headers)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await t.gql(BUILD, { i: { streakId: streak.id, amount: 0 } }, admin.headers)).errors?.[0]?.extensions?.code).toBe(
      'BAD_USER_INPUT',
    );
    expect((await t.gql(BUILD, { i: { streakId: streak.id, amount: 0.0000001 } }, admin.headers)).errors?.[0]?.extensions?.code).toBe(
      'BAD_USER_INPUT',
    );
    expect((await t.gql(BUILD, { i: { streakId: streak.id, amount: 1 } }, admin.headers)).errors?.[0]?.extensions?.code).toBe(
      'INSUFFICIENT_FUNDS',
    );
    expect(
      (await t.gql(BUILD, { i: { streakId: '00000000-0000-4000-8000-000000000000', amount: 1 } }, admin.headers)).errors?.[0]?.extensions
        ?.code,
    ).toBe('NOT_FOUND');
  });

  it('refuses bad streak input and non-operators, writing nothing', async () => {
    const before = await rows(tables.streaks);
    for (const bad of [
      { payoutPercentage: 0 },
      { feePercentage: 101 },
      { streakCountRequired: 0 },
      { minPrecisionScoreRequired: 1.5 },
      { title: '  ' },
    ]) {
      const { errors } = await t.gql(CREATE_STREAK, { i: { ...STREAK_INPUT, ...bad } }, admin.headers);
      expect(errors?.[0]?.extensions?.code, JSON.stringify(bad)).toBe('BAD_USER_INPUT');
    }
    expect((await t.gql(CREATE_STREAK, { i: STREAK_INPUT }, user.headers)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await t.gql(CREATE_STREAK, { i: STREAK_INPUT })).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const missing = await t.gql(UPDATE_STREAK, { i: { streakId: '00000000-0000-4000-8000-000000000000', title: 'x' } }, admin.headers);
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(await rows(tables.streaks)).toBe(before);
  });

  it('referral codes honour their cap, expiry and deactivation', async () => {
    const capped = (await t.gql(CREATE_CODE, { i: { code: 'capone', notes: 'launch', maxUses: 1 } }, admin.headers)).data
      .createReferralCode;
    expect(capped).toMatchObject({
      code: 'CAPONE',
      notes: 'launch',
      maxUses: 1,
      redemptionCount: 0,
      deactivatedAt: null,
      creator: { id: admin.userId },
    });
    expect((await t.gql(CREATE_CODE, { i: { code: 'CAPONE' } }, admin.headers)).errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'CODE_TAKEN',
    });
    expect((await t.gql(CREATE_CODE, { i: { maxUses: 0 } }, admin.headers)).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect((await t.gql(CREATE_CODE, { i: {} }, user.headers)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const generated = (await t.gql(CREATE_CODE, { i: {} }, admin.headers)).data.createReferralCode;
    expect(generated.code).toMatch(/^[A-Z0-9]{10}$/);

    const first = await t.gql(REDEEM, { c: 'capone' }, user.headers);
    expect(first.data.redeemReferralCode.referralCode).toEqual({ code: 'CAPONE', redemptionCount: 1 });
    const redemptions = await rows(tables.referralRedemptions);
    const other = await t.signIn();
    expect((await t.gql(REDEEM, { c: 'CAPONE' }, other.headers)).errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'CODE_USED_UP',
    });
    expect((await t.gql(REDEEM, { c: generated.code }, user.headers)).errors?.[0]?.extensions?.code).toBe('ALREADY_REDEEMED');
    expect((await t.gql(REDEEM, { c: 'NOSUCHCODE' }, other.headers)).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const soon = new Date(Date.now() + 60_000).toISOString();
    const expiring = (await t.gql(CREATE_CODE, { i: { code: 'SOON1', expiresAt: soon } }, admin.headers)).data.createReferralCode;
    expect(expiring.expiresAt).toBe(soon);
    clockOffsetMs = 120_000;
    try {
      expect((await t.gql(REDEEM, { c: 'SOON1' }, other.headers)).errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        reason: 'CODE_EXPIRED',
      });
    } finally {
      clockOffsetMs = 0;
    }
    const off = (await t.gql(CREATE_CODE, { i: { code: 'OFF1' } }, admin.headers)).data.createReferralCode;
    expect((await t.gql(DEACTIVATE_CODE, { id: off.id }, admin.headers)).data.deactivateReferralCode.deactivatedAt).not.toBeNull();
    expect((await t.gql(REDEEM, { c: 'OFF1' }, other.headers)).errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'CODE_DEACTIVATED',
    });
    expect(
      (await t.gql(DEACTIVATE_CODE, { id: '00000000-0000-4000-8000-000000000000' }, admin.headers)).errors?.[0]?.extensions?.code,
    ).toBe('NOT_FOUND');

    expect(await rows(tables.referralRedemptions)).toBe(redemptions);
    const [row] = await t.database.db.select().from(tables.referralCodes).where(eq(tables.referralCodes.code, 'CAPONE'));
    expect(row!.redemptionCount).toBe(1);
  });

  it('uploads an image sniffed from its bytes, serves it immutably, and sets it as an avatar', async () => {
    const png = makePng(20, 10);
    const uploaded = await t.upload(png, user.headers);
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({ userId: user.userId, contentType: 'image/png', width: 20, height: 10, byteSize: png.length });
    expect(uploaded.body.url).toBe(`/images/${uploaded.body.id}`);
    expect(await t.imageFiles()).toContain(uploaded.body.id);

    const served = await t.app.inject({ method: 'GET', url: uploaded.body.url });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Buffer.compare(served.rawPayload, png)).toBe(0);
    expect((await t.app.inject({ method: 'GET', url: '/images/00000000-0000-4000-8000-000000000000' })).statusCode).toBe(404);

    const avatar = await t.upload(makePng(8, 8), user.headers, '?use=avatar');
    expect(avatar.status).toBe(201);
    const viewer = await t.gql(`{ viewer { avatarId avatar { id url user { id } } } }`, undefined, user.headers);
    expect(viewer.data.viewer).toEqual({
      avatarId: avatar.body.id,
      avatar: { id: avatar.body.id, url: avatar.body.url, user: { id: user.userId } },
    });
  });

  it('refuses what is not an allowed image, too large, too wide, or unauthenticated: nothing stored', async () => {
    const files = await t.imageFiles();
    const images = await rows(tables.images);
    const cases: Array<[Uint8Array, string | undefined]> = [
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'NOT_AN_IMAGE'],
      [Buffer.from('%PDF-1.7 not an image at all'), 'NOT_AN_IMAGE'],
      [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), 'NOT_AN_IMAGE'],
      [makePng(1001, 1), 'IMAGE_TOO_LARGE'],
      [Buffer.concat([makePng(4, 4), Buffer.alloc(5000)]), 'IMAGE_TOO_LARGE'],
      [Buffer.alloc(0), undefined],
    ];
    for (const [bytes, reason] of cases) {
      const response = await t.upload(bytes, user.headers);
      expect(response.status, reason).toBe(400);
      expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      if (reason) expect(response.body.errors[0].extensions.reason).toBe(reason);
    }
    const anonymous = await t.upload(makePng(4, 4));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await t.upload(makePng(4, 4), { authorization: 'Bearer not-a-token' })).status).toBe(401);
    expect(await t.imageFiles()).toEqual(files);
    expect(await rows(tables.images)).toBe(images);
  });

  it('lets operators set a pool image, and nobody else', async () => {
    const image = (await t.upload(makePng(16, 9), admin.headers)).body;
    const start = new Date(Date.now() - 1000).toISOString();
    const end = new Date(Date.now() + 3600_000).toISOString();
    const created = await t.gql(
      `mutation($i: CreatePoolInput!) { createPool(input: $i) { id image { id } } }`,
      {
        i: {
          title: 'BTC',
          description: 'd',
          resolutionSource: 's',
          minStake: 1,
          maxStake: 10,
          maxRoi: 2,
          minOutcome: 0,
          maxOutcome: 100,
          precision: 0,
          step: 1,
          predictionStartDate: start,
          predictionEndDate: end,
          referenceDate: end,
          platformFeeRate: 0,
        },
      },
      admin.headers,
    );
    expect(created.errors).toBeUndefined();
    const poolId = created.data.createPool.id;
    const SET = `mutation($p: ID!, $i: ID) { updatePoolImage(poolId: $p, imageId: $i) { id image { id url } } }`;
    const set = await t.gql(SET, { p: poolId, i: image.id }, admin.headers);
    expect(set.data.updatePoolImage).toEqual({ id: poolId, image: { id: image.id, url: image.url } });
    expect((await t.gql(SET, { p: poolId, i: null }, user.headers)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await t.gql(SET, { p: poolId, i: '00000000-0000-4000-8000-000000000000' }, admin.headers)).errors?.[0]?.extensions?.code).toBe(
      'NOT_FOUND',
    );
    expect((await t.gql(SET, { p: poolId, i: null }, admin.headers)).data.updatePoolImage.image).toBeNull();
  });
});
