import { createTransferCheckedInstruction } from '@solana/spl-token';
import { type PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import { MEMO_PROGRAM_ID, userTokenAccount } from './addresses.js';
import { type BuiltTransaction, type ChainAccounts, hashMessage, type RecentBlockhash } from './transactions.js';

/**
 * Fund a streak: the operator's tokens move from their own token account into the streak's
 * accumulator (the operator signs as the transfer's authority), with a memo naming the
 * streak. The relayer pays the fee only. The instruction rule of this operation: exactly a
 * TransferChecked of the stake mint from the signer's associated token account to the
 * streak's accumulator for the built amount, authority the signer, plus this memo.
 */
export function buildStreakFunding(
  accounts: ChainAccounts,
  recent: RecentBlockhash,
  p: { operator: PublicKey; accumulator: PublicKey; streakId: string; amount: bigint },
): BuiltTransaction {
  const memo = JSON.stringify({ v: 1, op: 'fundStreak', streak: p.streakId, amount: p.amount.toString() });
  const transaction = new Transaction({ feePayer: accounts.relayer, ...recent }).add(
    createTransferCheckedInstruction(
      userTokenAccount(accounts.mint, p.operator),
      accounts.mint,
      p.accumulator,
      p.operator,
      p.amount,
      accounts.decimals,
    ),
    new TransactionInstruction({
      programId: MEMO_PROGRAM_ID,
      keys: [{ pubkey: p.operator, isSigner: true, isWritable: false }],
      data: Buffer.from(memo, 'utf8'),
    }),
  );
  return {
    transaction: transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64'),
    messageHash: hashMessage(transaction.serializeMessage()),
    ...recent,
  };
}
