import { ACCOUNT_SIZE } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { userTokenAccount } from '../../chain/addresses.js';
import { canonicalParams } from '../../chain/proof.js';
import { buildWithdraw } from '../../chain/transactions.js';
import { AppError, badInput } from '../../errors.js';
import { toBaseUnits } from '../common/amounts.js';
import type { ServiceContext } from '../context.js';
import { onChain } from './submission.js';
import { completeFromProof } from './proof-params.js';
import {
  assertBalance,
  build,
  type Prepare,
  type PreparedTransaction,
  type SignedInput,
  type Signer,
  submit,
  type SubmitInput,
} from './two-step.js';

/** Withdrawing the viewer's own tokens to an external wallet (two-step, see two-step.ts). */
export interface WithdrawInput {
  toAddress: string;
  amount: number;
}

/** A wallet address: base58, and on the curve (a program address owns no associated token account). */
function parseAddress(text: string, argumentName: string): PublicKey {
  let key: PublicKey | null = null;
  try {
    if (/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(text)) key = new PublicKey(text);
  } catch {
    key = null;
  }
  if (!key) throw badInput(argumentName, `${argumentName} is not a Solana address`);
  if (!PublicKey.isOnCurve(key.toBytes())) throw badInput(argumentName, `${argumentName} is a program address, not a wallet`);
  return key;
}

const prepareWithdraw: Prepare<WithdrawInput, 'withdraw'> = async (ctx, signer, input) => {
  const to = parseAddress(input.toAddress, 'input.toAddress');
  const { decimals, relayer, custody } = signer.chain.accounts;
  // The service's own wallets may appear in a user's transaction only as fee payer and
  // transfer authority (signing-rules.ts): refused here, build and submit alike, so a
  // preview never promises what submit would refuse.
  if (to.equals(relayer) || to.equals(custody)) {
    throw badInput('input.toAddress', `input.toAddress is the service's ${to.equals(relayer) ? 'relayer' : 'custody'} wallet, not yours`);
  }
  const amount = toBaseUnits(input.amount, decimals);
  if (amount === null || amount <= 0n)
    throw badInput('input.amount', `input.amount must be a positive number of tokens with at most ${decimals} decimals`);
  const minimum = toBaseUnits(ctx.minWithdrawAmount, decimals)!;
  if (amount < minimum) {
    throw new AppError('INSUFFICIENT_FUNDS', `The smallest withdrawal is ${ctx.minWithdrawAmount} tokens`, {
      argumentName: 'input.amount',
      minimum: ctx.minWithdrawAmount,
    });
  }
  await assertBalance(signer, amount, 'input.amount');
  const createRecipientAccountPayer = await recipientAccountPayer(signer, to);
  return {
    params: withdrawParams(input),
    // Submit derives it again: an account created or closed meanwhile means building again.
    derived: { recipientAccount: createRecipientAccountPayer ? 'create' : 'exists' },
    lane: null,
    custodyTransfer: null,
    effects: { toAddress: to.toBase58(), amount: amount.toString() },
    build: (recent) => buildWithdraw(signer.chain.accounts, recent, { user: signer.wallet, to, amount, createRecipientAccountPayer }),
  };
};

/**
 * Who funds the recipient's token account: nobody when it exists; the user's own wallet
 * when it does not and the wallet holds the rent; never the relayer, since the recipient
 * could close the account and keep the rent (docs/security.md). Otherwise INSUFFICIENT_FUNDS.
 */
async function recipientAccountPayer(signer: Signer, to: PublicKey): Promise<PublicKey | null> {
  const { client, accounts } = signer.chain;
  if (await onChain(() => client.accountExists(userTokenAccount(accounts.mint, to)))) return null;
  const [rent, lamports] = await onChain(() => Promise.all([client.rentExemptMinimum(ACCOUNT_SIZE), client.lamports(signer.wallet)]));
  if (lamports < rent) {
    throw new AppError(
      'INSUFFICIENT_FUNDS',
      `The recipient has no token account of the stake mint; opening it costs ${rent} lamports of rent, which your ` +
        `wallet pays (it holds ${lamports}). The service does not pay rent for accounts.`,
      {
        argumentName: 'input.toAddress',
        reason: 'RECIPIENT_ACCOUNT_RENT',
        rentLamports: rent.toString(),
        balanceLamports: lamports.toString(),
      },
    );
  }
  return signer.wallet;
}

const withdrawParams = (input: WithdrawInput) => canonicalParams({ toAddress: input.toAddress, amount: input.amount });

export function buildWithdrawTransaction(ctx: ServiceContext, input: WithdrawInput): Promise<PreparedTransaction> {
  return build(ctx, 'withdraw', prepareWithdraw, input);
}

export async function submitWithdrawTransaction(ctx: ServiceContext, given: SubmitInput<WithdrawInput>): Promise<{ signature: string }> {
  const input = completeFromProof(given, 'withdraw', { toAddress: 'string', amount: 'number' }) as WithdrawInput & SignedInput;
  const submission = await submit(ctx, 'withdraw', prepareWithdraw, input, withdrawParams(input));
  return { signature: submission.signature };
}
