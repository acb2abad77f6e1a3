import type { Crowd, PoolKind, PoolSeed, PoolStatus, SeedContext, StreakSeed } from './model.js';
import { DAY, DECIMALS, date, HOUR, isoDay, MINUTE, type Rng, UNIT } from './random.js';
import type { Cast } from './users.js';
import { type Asset, ASSETS, DESCRIPTIONS, STREAK_SERIES } from './vocabulary.js';

/** The streaks and their weekly pool series: resolved weeks, then ended, open and upcoming ones. */
export function makeStreakSeries(ctx: SeedContext, admins: Cast['admins']): { streaks: StreakSeed[]; pools: PoolSeed[] } {
  const { rng, size, now, nowMs, today, mint } = ctx;
  const streaks: StreakSeed[] = [];
  const pools: PoolSeed[] = [];
  const perStreak =
    size.streaks === 0
      ? 0
      : Math.max(Math.min(6, Math.floor((size.pools * 0.6) / size.streaks)), Math.min(20, Math.round((size.pools * 0.45) / size.streaks)));
  for (let s = 0; s < size.streaks && perStreak > 0; s++) {
    const series = STREAK_SERIES[s % STREAK_SERIES.length]!;
    const asset = ASSETS.find((a) => a.symbol === series.symbol)!;
    const streak: StreakSeed = {
      row: {
        id: rng.uuid(),
        createdAt: now, // set below, before the series' first pool
        title: s < STREAK_SERIES.length ? series.title : `${series.title} ${Math.floor(s / STREAK_SERIES.length) + 1}`,
        streakAccumulatorAccount: rng.address(),
        feePercentage: rng.pick([1, 1.5, 2, 2.5, 3]),
        payoutPercentage: rng.pick([5, 8, 10, 12.5, 15]),
        bump: rng.int(247, 255),
        streakCountRequired: 2, // set below, once the number of resolved pools is known
        minPrecisionScoreRequired: [0.6, 0.5, 0.7, 0.8][s % 4]!,
        decimals: DECIMALS,
        lastSyncAt: date(nowMs - rng.int(1, 45) * MINUTE),
      },
      asset,
      pools: [],
    };
    const tail: PoolKind[] = perStreak >= 10 ? ['ended', 'open', 'upcoming'] : ['ended', 'open'];
    const openIndex = perStreak - tail.length + tail.indexOf('open');
    const openReference = today + (3 + (s % 4)) * DAY + 16 * HOUR;
    for (let j = 0; j < perStreak; j++) {
      const kind: PoolKind = j < perStreak - tail.length ? 'resolved' : tail[j - (perStreak - tail.length)]!;
      const referenceDate = date(openReference + (j - openIndex) * 7 * DAY);
      const predictionEndDate = date(referenceDate.getTime() - DAY);
      const predictionStartDate = date(referenceDate.getTime() - 7 * DAY);
      const createdAt = date(Math.min(predictionStartDate.getTime(), nowMs) - rng.int(2 * 60, 48 * 60) * MINUTE - rng.int(0, MINUTE));
      const pool = makePool(rng, {
        kind,
        asset,
        crowd: 'normal',
        createdBy: rng.pick(admins).row.id,
        createdAt,
        start: predictionStartDate,
        end: predictionEndDate,
        reference: referenceDate,
        mint,
        streak,
        status: 'ACTIVE',
        isClosed: kind === 'resolved' && referenceDate.getTime() < nowMs - 60 * DAY && rng.chance(0.5),
        nowMs,
      });
      streak.pools.push(pool);
      pools.push(pool);
    }
    const resolvedCount = streak.pools.filter((p) => p.kind === 'resolved').length;
    streak.row.streakCountRequired = Math.max(2, Math.min(2 + (s % 4), resolvedCount - 1));
    streak.row.createdAt = date(streak.pools[0]!.row.createdAt.getTime() - rng.int(1, 3) * DAY - rng.int(0, DAY));
    streak.row.updatedAt = streak.row.createdAt;
    streaks.push(streak);
  }
  return { streaks, pools };
}

/**
 * Pools outside streaks, appended to `pools` until there are `size.pools`. The first twelve
 * cover every state the API filters and sorts on; the rest are random.
 */
export function makeLoosePools(ctx: SeedContext, pools: PoolSeed[], cast: Cast): void {
  const { rng, size, nowMs, today, mint } = ctx;
  const { creators, veterans } = cast;
  interface Spec {
    kind: PoolKind;
    crowd?: Crowd;
    status?: PoolStatus;
    closed?: boolean;
    image?: boolean;
    /** Index (among these pools) of a pool whose creation time, dates and stakes this one copies. */
    twinOf?: number;
    referenceInFuture?: boolean;
  }
  const leadSpecs: Spec[] = [
    { kind: 'open', crowd: 'hot', image: true },
    { kind: 'open', twinOf: 0, image: false },
    { kind: 'resolved', closed: true, image: true },
    { kind: 'ended', referenceInFuture: true, image: false },
    { kind: 'upcoming', crowd: 'none', image: true },
    { kind: 'resolved', crowd: 'single', image: false },
    { kind: 'ended', referenceInFuture: false, crowd: 'none' },
    { kind: 'open', status: 'PREDICTIONS_FROZEN', image: true },
    { kind: 'resolved', status: 'CLAIMS_FROZEN', crowd: 'hot', image: false },
    { kind: 'ended', status: 'FROZEN', referenceInFuture: false },
    { kind: 'resolved', twinOf: 2, image: true },
    { kind: 'open', crowd: 'none', image: false },
  ];
  const loose: PoolSeed[] = [];
  const looseCount = Math.max(0, size.pools - pools.length);
  for (let j = 0; j < looseCount; j++) {
    const spec: Spec = leadSpecs[j] ?? randomSpec(rng);
    const twin = spec.twinOf !== undefined ? (loose[spec.twinOf] ?? null) : null;
    const kind = twin ? twin.kind : spec.kind;
    const asset = twin ? ASSETS.filter((a) => a !== twin.asset)[j % (ASSETS.length - 1)]! : rng.pick(ASSETS);
    let start: Date;
    let end: Date;
    let reference: Date;
    let createdAt: Date;
    if (twin) {
      ({ predictionStartDate: start, predictionEndDate: end, referenceDate: reference, createdAt } = twin.row);
    } else {
      if (kind === 'open') {
        reference = date(today + rng.int(1, 10) * DAY + 16 * HOUR);
        const endCandidate = reference.getTime() - rng.pick([0, 0, 1, 2]) * DAY;
        end = date(endCandidate > nowMs + HOUR ? endCandidate : reference.getTime());
        start = date(nowMs - rng.int(1, 10 * 24) * HOUR - rng.int(0, HOUR));
      } else if (kind === 'upcoming') {
        start = date(nowMs + rng.int(6, 6 * 24) * HOUR);
        end = date(start.getTime() + rng.int(3, 10) * DAY);
        reference = date(Math.floor(end.getTime() / DAY) * DAY + rng.int(1, 2) * DAY + 16 * HOUR);
      } else if (kind === 'ended') {
        end = date(nowMs - rng.int(1, 5 * 24) * HOUR - rng.int(0, HOUR));
        const future = spec.referenceInFuture ?? rng.chance(0.5);
        reference = future
          ? date(today + rng.int(1, 5) * DAY + 16 * HOUR)
          : date(Math.max(end.getTime(), Math.min(Math.floor(end.getTime() / DAY) * DAY + 16 * HOUR, nowMs - HOUR)));
        start = date(end.getTime() - rng.int(3, 14) * DAY);
      } else {
        reference = date(today - rng.int(2, 120) * DAY + 16 * HOUR);
        end = date(reference.getTime() - rng.pick([0, 1, 1, 2]) * DAY);
        start = date(end.getTime() - rng.int(3, 21) * DAY);
      }
      createdAt = date(Math.min(start.getTime(), nowMs) - rng.int(60, 72 * 60) * MINUTE - rng.int(0, MINUTE));
    }
    const pool = makePool(rng, {
      kind,
      asset,
      crowd: twin ? twin.crowd : (spec.crowd ?? 'normal'),
      createdBy: (rng.chance(0.75) ? rng.pick(creators) : rng.pick(veterans)).row.id,
      createdAt,
      start,
      end,
      reference,
      mint,
      streak: null,
      status: spec.status ?? 'ACTIVE',
      isClosed: spec.closed ?? false,
      nowMs,
      twin,
    });
    pool.image = spec.image ?? rng.chance(0.6);
    loose.push(pool);
    pools.push(pool);
  }
}

function randomSpec(rng: Rng): { kind: PoolKind; crowd: Crowd; status: PoolStatus; closed: boolean } {
  const kind = rng.pick<PoolKind>(['open', 'open', 'open', 'resolved', 'resolved', 'resolved', 'resolved', 'ended', 'ended', 'upcoming']);
  const crowd: Crowd = kind === 'upcoming' ? 'none' : rng.chance(0.06) ? 'hot' : rng.chance(0.03) ? 'single' : 'normal';
  let status: PoolStatus = 'ACTIVE';
  if (kind === 'open' && rng.chance(0.1)) status = 'PREDICTIONS_FROZEN';
  if (kind === 'resolved') status = rng.chance(0.1) ? 'CLAIMS_FROZEN' : rng.chance(0.05) ? 'FROZEN' : 'ACTIVE';
  if (kind === 'ended' && rng.chance(0.1)) status = 'FROZEN';
  return { kind, crowd, status, closed: kind === 'resolved' && rng.chance(0.3) };
}

interface PoolParams {
  kind: PoolKind;
  asset: Asset;
  crowd: Crowd;
  createdBy: string;
  createdAt: Date;
  start: Date;
  end: Date;
  reference: Date;
  mint: string;
  streak: StreakSeed | null;
  status: PoolStatus;
  isClosed: boolean;
  nowMs: number;
  twin?: PoolSeed | null;
}

function makePool(rng: Rng, p: PoolParams): PoolSeed {
  const { asset, twin } = p;
  const scale = 10 ** asset.precision;
  // The asset drifts over time; each pool's range is centred on the price around its day.
  const center = asset.price * (1 + 0.12 * Math.sin(p.reference.getTime() / (23 * DAY) + asset.price) + 0.04 * (rng.next() - 0.5));
  const minTicks = Math.floor((center * 0.7 * scale) / asset.stepTicks) * asset.stepTicks;
  const steps = Math.max(100, Math.round((center * 0.6 * scale) / asset.stepTicks));
  const resultK = Math.round(steps * (0.5 + 0.17 * (2 * rng.next() - 1)));
  const minStake = twin ? twin.row.minStake! : (BigInt(rng.pick([1, 1, 2, 5, 10])) * UNIT) / (rng.chance(0.15) ? 2n : 1n);
  const maxStake = twin ? twin.row.maxStake! : minStake * BigInt(rng.pick([100, 250, 500, 1000]));
  const day = isoDay(p.reference);
  const precision = asset.precision;
  const fromTicks = (ticks: number) => ticks / scale;
  const resolvedAt = p.kind === 'resolved' ? date(p.reference.getTime() + rng.int(60, 6 * 60) * MINUTE) : null;
  const row: PoolSeed['row'] = {
    id: rng.uuid(),
    createdAt: p.createdAt,
    updatedAt: p.createdAt,
    createdBy: p.createdBy,
    imageId: null,
    streakId: p.streak?.row.id ?? null,
    title: `${asset.title} on ${day}`,
    description: rng.pick(DESCRIPTIONS)(asset, day),
    poolAccount: rng.address(),
    resolutionSource: asset.source,
    unit: 'USD',
    minStake,
    maxStake,
    maxRoi: twin ? twin.row.maxRoi! : rng.pick([1.5, 2, 3, 5, 10]),
    stakeTokenMint: p.mint,
    decimals: DECIMALS,
    minOutcome: fromTicks(minTicks),
    maxOutcome: fromTicks(minTicks + steps * asset.stepTicks),
    precision,
    step: fromTicks(asset.stepTicks),
    predictionStartDate: p.start,
    predictionEndDate: p.end,
    referenceDate: p.reference,
    status: p.status,
    isClosed: p.isClosed,
    indexedPredictionUpdateCount: 0,
    platformFeeRate: rng.pick([0.01, 0.02, 0.025, 0.03, 0.05]),
    totalVolume: 0n,
  };
  return {
    row,
    kind: p.kind,
    asset,
    crowd: p.crowd,
    minTicks,
    steps,
    resultK,
    resolvedAt,
    streak: p.streak,
    twinOf: twin ?? null,
    predictions: [],
  };
}
