import { PublicKey } from '@solana/web3.js';
import { eq } from 'drizzle-orm';
import { rewards, type RewardRow, streakRewards, type StreakRewardRow } from '../../../schema/index.js';
import { userTokenAccount } from '../../chain/addresses.js';
import { buildPayout, messageOf, parseWireTransaction } from '../../chain/transactions.js';
import { AppError, badInput } from '../../errors.js';
import { toBaseUnits, toTokens } from '../common/amounts.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import type { EffectParams } from './operations.js';
import { awaitSettled, coSign, findSubmission, onChain, requireChain, sendOnce, sha256Hex, viewerWallet } from './submission.js';

/**
 * One-step payouts: the service builds and signs (relayer pays, custody moves the tokens
 * out of a pool vault or a streak accumulator) and submits. However many claims of one
 * record arrive at once, the record's idempotency key lets exactly one transaction through;
 * the others answer with its signature. A claimed record answers ALREADY_CLAIMED.
 */

type PayoutOperation = 'claimReward' | 'claimStreakReward';

interface Payout<Op extends PayoutOperation = PayoutOperation> {
  operation: Op;
  /** The claimed record's id, which keys the payout so it happens once. */
  recordId: string;
  kind: 'reward' | 'refund' | 'streak';
  source: PublicKey;
  amount: bigint;
  effects: EffectParams[Op];
}

async function payOnce(ctx: ServiceContext, userId: string, owner: PublicKey, payout: Payout): Promise<string> {
  const chain = requireChain(ctx);
  const idempotencyKey = sha256Hex(`${payout.operation}:${payout.recordId}`);
  if (await findSubmission(ctx.database.db, idempotencyKey)) return (await awaitSettled(ctx.database.db, idempotencyKey)).signature;
  const destination = userTokenAccount(chain.accounts.mint, owner);
  // The relayer never funds an account the user could close and keep the rent of.
  if (!(await onChain(() => chain.client.accountExists(destination)))) {
    throw new AppError(
      'INSUFFICIENT_FUNDS',
      'Your wallet has no token account of the stake mint to receive the payout, and the service does not pay rent ' +
        'for accounts: open it (any wallet does on receiving the token) and claim again',
      { reason: 'TOKEN_ACCOUNT_MISSING', tokenAccount: destination.toBase58() },
    );
  }
  const recent = await onChain(() => chain.client.latestBlockhash());
  const built = buildPayout(chain.accounts, recent, {
    source: payout.source,
    owner,
    amount: payout.amount,
    kind: payout.kind,
    id: payout.recordId,
  });
  const { bytes, signature } = coSign(chain, parseWireTransaction(Buffer.from(built.transaction, 'base64'))!, {
    expectedMessage: messageOf(built),
    custodyTransfer: { source: payout.source, destination, amount: payout.amount },
  });
  const submission = await sendOnce(ctx, chain, {
    idempotencyKey,
    operation: payout.operation,
    userId,
    params: payout.effects,
    bytes,
    signature,
    lastValidBlockHeight: recent.lastValidBlockHeight,
  });
  return submission.signature;
}

/** Claims a resolved pool's reward or refund of the viewer's prediction: vault -> the viewer's token account. */
export async function claimReward(ctx: ServiceContext, rewardId: string): Promise<{ signature: string; reward: RewardRow }> {
  const {
    viewer: { userId },
    wallet,
  } = await viewerWallet(ctx);
  const id = parseId(rewardId, 'rewardId');
  const [reward] = await ctx.database.db.select().from(rewards).where(eq(rewards.id, id));
  if (!reward) throw new AppError('NOT_FOUND', `No reward has id ${rewardId}`, { argumentName: 'rewardId' });
  const prediction = (await ctx.loaders.predictionById.load(reward.predictionId))!;
  if (prediction.userId !== userId) throw new AppError('FORBIDDEN', 'The reward belongs to another user');
  const pool = (await ctx.loaders.poolById.load(prediction.poolId))!;
  if (reward.isClaimed) throw new AppError('ALREADY_CLAIMED', 'The reward was already claimed');
  if (pool.status === 'CLAIMS_FROZEN' || pool.status === 'FROZEN')
    throw new AppError('POOL_CLOSED', `Claims on this pool are frozen (${pool.status})`);
  if (reward.amount === 0n) throw badInput('rewardId', 'The reward is 0 tokens; there is nothing to claim');
  const signature = await payOnce(ctx, userId, wallet, {
    operation: 'claimReward',
    recordId: reward.id,
    kind: reward.type === 'REFUND' ? 'refund' : 'reward',
    source: new PublicKey(pool.poolAccount),
    amount: reward.amount,
    effects: { rewardId: reward.id },
  });
  const [claimed] = await ctx.database.db.select().from(rewards).where(eq(rewards.id, reward.id));
  return { signature, reward: claimed! };
}

/** Claims one of the viewer's streak rewards: the streak's accumulator -> the viewer's token account. */
export async function claimStreakReward(
  ctx: ServiceContext,
  streakRewardId: string,
): Promise<{ signature: string; streakReward: StreakRewardRow }> {
  const {
    viewer: { userId },
    wallet,
  } = await viewerWallet(ctx);
  const id = parseId(streakRewardId, 'streakRewardId');
  const [reward] = await ctx.database.db.select().from(streakRewards).where(eq(streakRewards.id, id));
  if (!reward) throw new AppError('NOT_FOUND', `No streak reward has id ${streakRewardId}`, { argumentName: 'streakRewardId' });
  if (reward.userWalletAddress !== wallet.toBase58()) throw new AppError('FORBIDDEN', 'The streak reward belongs to another user');
  if (reward.isClaimed) throw new AppError('ALREADY_CLAIMED', 'The streak reward was already claimed');
  const streak = (await ctx.loaders.streakById.load(reward.streakId))!;
  const chain = requireChain(ctx);
  const signature = await payOnce(ctx, userId, wallet, {
    operation: 'claimStreakReward',
    recordId: reward.id,
    kind: 'streak',
    source: new PublicKey(streak.streakAccumulatorAccount),
    amount: reward.amount,
    effects: { streakRewardId: reward.id, decimals: String(chain.accounts.decimals) },
  });
  const [claimed] = await ctx.database.db.select().from(streakRewards).where(eq(streakRewards.id, reward.id));
  return { signature, streakReward: claimed! };
}

/** The most a single requestDevSol call airdrops, in lamports (1 SOL): enough rent for hundreds of token accounts. */
export const DEV_SOL_LAMPORTS_PER_REQUEST = 1_000_000_000;

/** Airdrops SOL to the viewer's wallet (devchain only), for the rent of accounts it opens; returns the signature and the new balance. */
export async function requestDevSol(ctx: ServiceContext, lamports: number): Promise<{ signature: string; lamports: number }> {
  const { wallet } = await viewerWallet(ctx);
  const chain = requireChain(ctx);
  if (!chain.isDevchain) throw new AppError('FORBIDDEN', 'Test SOL exists only on the embedded chain');
  if (!Number.isSafeInteger(lamports) || lamports <= 0 || lamports > DEV_SOL_LAMPORTS_PER_REQUEST) {
    throw badInput('lamports', `lamports must be a whole number more than 0 and at most ${DEV_SOL_LAMPORTS_PER_REQUEST} (1 SOL)`);
  }
  const signature = await onChain(() => chain.client.airdrop(wallet, BigInt(lamports)));
  const balance = await onChain(() => chain.client.lamports(wallet));
  return { signature, lamports: Number(balance) };
}

/** The most a single requestDevTokens call mints, in whole tokens. */
export const DEV_TOKENS_PER_REQUEST = 10_000;

/** Mints test tokens to the viewer's wallet (devchain only); returns the signature and the new balance. */
export async function requestDevTokens(ctx: ServiceContext, amount: number): Promise<{ signature: string; balance: number }> {
  const { wallet } = await viewerWallet(ctx);
  const chain = requireChain(ctx);
  if (!chain.isDevchain) throw new AppError('FORBIDDEN', 'Test tokens exist only on the embedded chain');
  const units = toBaseUnits(amount, chain.accounts.decimals);
  if (units === null || units <= 0n || amount > DEV_TOKENS_PER_REQUEST) {
    throw badInput(
      'amount',
      `amount must be a positive number of tokens up to ${DEV_TOKENS_PER_REQUEST}, with at most ${chain.accounts.decimals} decimals`,
    );
  }
  const signature = await onChain(() => chain.client.mintDevTokens(wallet, units));
  const balance = await onChain(() => chain.client.tokenBalance(userTokenAccount(chain.accounts.mint, wallet)));
  return { signature, balance: toTokens(balance, chain.accounts.decimals) };
}
