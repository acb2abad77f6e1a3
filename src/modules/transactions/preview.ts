import { type ChainRuntime } from '../../chain/runtime.js';
import { previewTransaction } from '../../chain/preview.js';
import { toTokens } from '../common/amounts.js';
import { onChain } from './submission.js';
import type { TransactionPreview } from './preview.type.js';

/** The preview of a built transaction in the API's units: tokens whole, SOL in lamports. */
export async function previewOf(chain: ChainRuntime, transaction: string): Promise<TransactionPreview> {
  const preview = await onChain(() => previewTransaction(chain.client, transaction));
  const tokens = (units: bigint | null, decimals: number | null) =>
    units === null || decimals === null ? null : toTokens(units, decimals);
  return {
    succeeds: preview.failure === null,
    failure: preview.failure,
    feePayer: preview.feePayer,
    feeLamports: Number(preview.feeLamports),
    rent: preview.rent.map((entry) => ({ ...entry, lamports: Number(entry.lamports) })),
    instructions: preview.instructions.map((instruction) => ({
      program: instruction.program,
      programId: instruction.programId,
      name: instruction.name,
      accounts: instruction.accounts,
      amount: instruction.tokenAmount ? toTokens(instruction.tokenAmount.units, instruction.tokenAmount.decimals) : null,
      mint: instruction.tokenAmount?.mint ?? null,
      lamports: instruction.lamports === null ? null : Number(instruction.lamports),
      memo: instruction.memo,
    })),
    balanceChanges: preview.balances.map((balance) => ({
      account: balance.address,
      owner: balance.owner,
      mint: balance.mint,
      before: tokens(balance.tokensBefore, balance.decimals),
      after: tokens(balance.tokensAfter, balance.decimals),
      change: balance.tokensBefore === null ? null : tokens(balance.tokensAfter! - balance.tokensBefore, balance.decimals),
      lamportsBefore: Number(balance.lamportsBefore),
      lamportsAfter: Number(balance.lamportsAfter),
      lamportsChange: Number(balance.lamportsAfter - balance.lamportsBefore),
    })),
  };
}
