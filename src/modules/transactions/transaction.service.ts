import { PublicKey } from '@solana/web3.js';
import { and, eq } from 'drizzle-orm';
import { type ChainSubmissionRow, type PoolRow, predictions, type PredictionRow } from '../../../schema/index.js';
import { predictionAddress, userTokenAccount } from '../../chain/addresses.js';
import { canonicalParams } from '../../chain/proof.js';
import { buildPlacePrediction, buildStakeUpdate, buildValueUpdate } from '../../chain/transactions.js';
import { AppError, badInput } from '../../errors.js';
import type { Viewer } from '../auth/viewer.js';
import { parseId } from '../common/ids.js';
import type { ServiceContext } from '../context.js';
import { parseOutcome, parseStake } from './amounts.js';
import { completeFromProof } from './proof-params.js';
import {
  assertBalance,
  build,
  type Prepare,
  type PreparedTransaction,
  type SignedInput,
  submit,
  type SubmitInput,
  type SubmittedTransaction,
} from './two-step.js';

/** The prediction operations, each a `prepare` function run by the shared build and submit (two-step.ts). */
async function predictionOf(ctx: ServiceContext, submission: ChainSubmissionRow): Promise<SubmittedTransaction> {
  const account = submission.params.predictionAccount;
  const [prediction] = account ? await ctx.database.db.select().from(predictions).where(eq(predictions.predictionAccount, account)) : [];
  return { signature: submission.signature, prediction: prediction ?? null };
}

// ---------------------------------------------------------------------------------------
// Validation shared by the operations, in the order a user can fix things

async function loadPool(ctx: ServiceContext, poolId: string, argumentName: string): Promise<PoolRow> {
  const pool = await ctx.loaders.poolById.load(parseId(poolId, argumentName));
  if (!pool) throw new AppError('NOT_FOUND', `No pool has id ${poolId}`, { argumentName });
  return pool;
}

function assertOpen(ctx: ServiceContext, pool: PoolRow): void {
  const now = ctx.now.getTime();
  if (pool.status !== 'ACTIVE' || pool.isClosed)
    throw new AppError('POOL_CLOSED', `The pool is ${pool.isClosed ? 'closed' : pool.status}; predictions are not accepted`);
  if (now < pool.predictionStartDate.getTime()) throw new AppError('POOL_CLOSED', 'The pool does not take predictions yet');
  if (now >= pool.predictionEndDate.getTime()) throw new AppError('POOL_CLOSED', 'The pool’s prediction window has ended');
}

/** The viewer's own prediction (FORBIDDEN for someone else's), with its pool, open for changes. */
async function ownOpenPrediction(
  ctx: ServiceContext,
  viewer: Viewer,
  predictionId: string,
): Promise<{ prediction: PredictionRow; pool: PoolRow }> {
  const prediction = await ctx.loaders.predictionById.load(parseId(predictionId, 'input.predictionId'));
  if (!prediction) throw new AppError('NOT_FOUND', `No prediction has id ${predictionId}`, { argumentName: 'input.predictionId' });
  if (prediction.userId !== viewer.userId) throw new AppError('FORBIDDEN', 'The prediction belongs to another user');
  const pool = (await ctx.loaders.poolById.load(prediction.poolId))!;
  assertOpen(ctx, pool);
  return { prediction, pool };
}

// ---------------------------------------------------------------------------------------
// Place a prediction

export interface PredictionInput {
  poolId: string;
  stake: number;
  value: number;
}

const preparePrediction: Prepare<PredictionInput, 'placePrediction'> = async (ctx, signer, input) => {
  const pool = await loadPool(ctx, input.poolId, 'input.poolId');
  assertOpen(ctx, pool);
  const stake = parseStake(pool, input.stake, 'input.stake');
  const value = parseOutcome(pool, input.value, 'input.value');
  const [existing] = await ctx.database.db
    .select({ id: predictions.id })
    .from(predictions)
    .where(and(eq(predictions.poolId, pool.id), eq(predictions.userId, signer.viewer.userId)));
  if (existing) throw new AppError('ALREADY_PREDICTED', 'You already have a prediction on this pool; update it instead');
  await assertBalance(signer, stake, 'input.stake');
  const vault = new PublicKey(pool.poolAccount);
  const predictor = userTokenAccount(signer.chain.accounts.mint, signer.wallet);
  const { address, bump } = predictionAddress(vault, predictor);
  return {
    params: predictionParams(input),
    derived: {},
    // One prediction per user and pool: a second transaction placing one must never be sent.
    lane: `placePrediction:${pool.id}:${signer.viewer.userId}`,
    custodyTransfer: null,
    effects: {
      poolId: pool.id,
      stake: stake.toString(),
      value,
      predictorAccount: predictor.toBase58(),
      predictionAccount: address.toBase58(),
      bump: String(bump),
    },
    build: (recent) => buildPlacePrediction(signer.chain.accounts, recent, { user: signer.wallet, vault, poolId: pool.id, stake, value }),
  };
};

const predictionParams = (input: PredictionInput) => canonicalParams({ poolId: input.poolId, stake: input.stake, value: input.value });

export function buildPredictionTransaction(ctx: ServiceContext, input: PredictionInput): Promise<PreparedTransaction> {
  return build(ctx, 'placePrediction', preparePrediction, input);
}

export async function submitPredictionTransaction(ctx: ServiceContext, given: SubmitInput<PredictionInput>): Promise<SubmittedTransaction> {
  const input = completeFromProof(given, 'placePrediction', { poolId: 'string', stake: 'number', value: 'number' }) as PredictionInput &
    SignedInput;
  return predictionOf(ctx, await submit(ctx, 'placePrediction', preparePrediction, input, predictionParams(input)));
}

// ---------------------------------------------------------------------------------------
// Update a stake (the new total stake)

export interface StakeUpdateInput {
  predictionId: string;
  stake: number;
}

const prepareStakeUpdate: Prepare<StakeUpdateInput, 'updateStake'> = async (ctx, signer, input) => {
  const { prediction, pool } = await ownOpenPrediction(ctx, signer.viewer, input.predictionId);
  const stake = parseStake(pool, input.stake, 'input.stake');
  const delta = stake - prediction.stake;
  if (delta === 0n) throw badInput('input.stake', 'input.stake equals the current stake; nothing would change');
  if (delta > 0n) await assertBalance(signer, delta, 'input.stake');
  const revision = prediction.lastAppliedStakeRevision + 1;
  return {
    params: stakeUpdateParams(input),
    derived: { revision: String(revision), delta: delta.toString() },
    lane: `updateStake:${prediction.id}:${revision}`,
    // Only a decrease moves tokens out of the vault, and only back to the predictor's own account.
    custodyTransfer:
      delta < 0n
        ? {
            source: new PublicKey(prediction.poolAccount),
            destination: userTokenAccount(signer.chain.accounts.mint, signer.wallet),
            amount: -delta,
          }
        : null,
    effects: {
      predictionId: prediction.id,
      predictionAccount: prediction.predictionAccount,
      stake: stake.toString(),
      delta: delta.toString(),
      revision: String(revision),
    },
    build: (recent) =>
      buildStakeUpdate(signer.chain.accounts, recent, {
        user: signer.wallet,
        vault: new PublicKey(prediction.poolAccount),
        poolId: pool.id,
        predictionAccount: prediction.predictionAccount,
        stake,
        delta,
        revision,
      }),
  };
};

const stakeUpdateParams = (input: StakeUpdateInput) => canonicalParams({ predictionId: input.predictionId, stake: input.stake });

export function buildStakeUpdateTransaction(ctx: ServiceContext, input: StakeUpdateInput): Promise<PreparedTransaction> {
  return build(ctx, 'updateStake', prepareStakeUpdate, input);
}

export async function submitStakeUpdateTransaction(
  ctx: ServiceContext,
  given: SubmitInput<StakeUpdateInput>,
): Promise<SubmittedTransaction> {
  const input = completeFromProof(given, 'updateStake', { predictionId: 'string', stake: 'number' }) as StakeUpdateInput & SignedInput;
  return predictionOf(ctx, await submit(ctx, 'updateStake', prepareStakeUpdate, input, stakeUpdateParams(input)));
}

// ---------------------------------------------------------------------------------------
// Update a predicted value

export interface ValueUpdateInput {
  predictionId: string;
  value: number;
}

const prepareValueUpdate: Prepare<ValueUpdateInput, 'updateValue'> = async (ctx, signer, input) => {
  const { prediction, pool } = await ownOpenPrediction(ctx, signer.viewer, input.predictionId);
  const value = parseOutcome(pool, input.value, 'input.value');
  if (Number(value) === prediction.prediction)
    throw badInput('input.value', 'input.value equals the current prediction; nothing would change');
  const revision = prediction.lastAppliedValueRevision + 1;
  return {
    params: valueUpdateParams(input),
    derived: { revision: String(revision) },
    lane: `updateValue:${prediction.id}:${revision}`,
    custodyTransfer: null,
    effects: { predictionId: prediction.id, predictionAccount: prediction.predictionAccount, value, revision: String(revision) },
    build: (recent) =>
      buildValueUpdate(signer.chain.accounts, recent, {
        user: signer.wallet,
        poolId: pool.id,
        predictionAccount: prediction.predictionAccount,
        value,
        revision,
      }),
  };
};

const valueUpdateParams = (input: ValueUpdateInput) => canonicalParams({ predictionId: input.predictionId, value: input.value });

export function buildPredictionUpdateTransaction(ctx: ServiceContext, input: ValueUpdateInput): Promise<PreparedTransaction> {
  return build(ctx, 'updateValue', prepareValueUpdate, input);
}

export async function submitPredictionUpdateTransaction(
  ctx: ServiceContext,
  given: SubmitInput<ValueUpdateInput>,
): Promise<SubmittedTransaction> {
  const input = completeFromProof(given, 'updateValue', { predictionId: 'string', value: 'number' }) as ValueUpdateInput & SignedInput;
  return predictionOf(ctx, await submit(ctx, 'updateValue', prepareValueUpdate, input, valueUpdateParams(input)));
}
