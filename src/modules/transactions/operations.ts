/**
 * The operations that send a transaction to the chain, and what each one stores with its
 * submission for its effect (applied once the chain confirms it; see effects.ts). Types
 * only, so the request context and the transaction code can both name them without
 * importing each other.
 */

/** Every value is a string: the parameters are stored as JSON beside the submission. */
export interface EffectParams {
  placePrediction: { poolId: string; stake: string; value: string; predictorAccount: string; predictionAccount: string; bump: string };
  updateStake: { predictionId: string; predictionAccount: string; stake: string; delta: string; revision: string };
  updateValue: { predictionId: string; predictionAccount: string; value: string; revision: string };
  withdraw: { toAddress: string; amount: string };
  claimReward: { rewardId: string };
  claimStreakReward: { streakRewardId: string; decimals: string };
  fundStreak: { streakId: string; amount: string };
}

export type OperationName = keyof EffectParams;

/**
 * How a transaction this service sent ended, as the sending request saw it:
 * - `confirmed`: it landed and succeeded (its effects are applied in the same step);
 * - `failed`: it landed and the program refused it;
 * - `expired`: it did not land before its blockhash expired;
 * - `rejected`: the chain refused it when it was sent (simulation failed);
 * - `unavailable`: the chain could not be reached, and it was never sent;
 * - `unsettled`: the chain stopped answering after it may have been sent; the row stays
 *   PENDING for the reconciler.
 */
export type ChainSubmissionOutcome = 'confirmed' | 'failed' | 'expired' | 'rejected' | 'unavailable' | 'unsettled';

/** What the relayer paid for one confirmed transaction, as the chain recorded it. */
export interface RelayerSpend {
  operation: OperationName;
  feeLamports: bigint;
  sponsoredLamports: bigint;
  /** The relayer's balance right after the transaction. */
  balanceLamports: bigint;
}
