// Over 300 lines: the JSON-RPC surface a wallet relies on, test by test against one devchain whose slots move only when a test says so, with the signing helpers they share.
import { createSolanaRpc, address as kitAddress } from '@solana/kit';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAccount,
  getAssociatedTokenAddressSync,
  unpackAccount,
} from '@solana/spl-token';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SendTransactionError,
  Transaction,
  TransactionExpiredBlockheightExceededError,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  sendAndConfirmTransaction,
  type TokenBalance,
} from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevchain, type Devchain } from '../../src/devchain/index.js';
import { until } from '../support/wait.js';

const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const DECIMALS = 6;

interface RpcReply {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: any;
  error?: { code: number; message: string; data?: any };
}

async function post(url: string, body: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: response.status, text: await response.text() };
}

async function rpc(url: string, method: string, params?: unknown): Promise<RpcReply> {
  const { text } = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  return JSON.parse(text) as RpcReply;
}

function memo(text: string, signer: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: MEMO_PROGRAM_ID,
    keys: [{ pubkey: signer, isSigner: true, isWritable: false }],
    data: Buffer.from(text, 'utf8'),
  });
}

describe('devchain', () => {
  let devchain: Devchain;
  let connection: Connection;
  const relayer = Keypair.generate();
  const user = Keypair.generate();
  const recipient = Keypair.generate();
  let userAta: PublicKey;
  let recipientAta: PublicKey;

  const tokenAmount = async (account: PublicKey) => (await connection.getTokenAccountBalance(account)).value.amount;

  /** A signed TransferChecked user -> recipient (relayer pays the fee) plus a memo. */
  async function transfer(amount: bigint, memoText = 'transfer'): Promise<Transaction> {
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const transaction = new Transaction({ feePayer: relayer.publicKey, blockhash, lastValidBlockHeight }).add(
      createTransferCheckedInstruction(userAta, devchain.stakeMint, recipientAta, user.publicKey, amount, DECIMALS),
      memo(memoText, user.publicKey),
    );
    transaction.sign(relayer, user);
    return transaction;
  }

  /**
   * Sends wire bytes and waits for confirmation, as the gateway submits a wallet-signed
   * transaction. (sendAndConfirmTransaction re-signs with web3.js's cached blockhash, which
   * the manual clock here can leave behind.)
   */
  async function sendAndConfirmSigned(transaction: Transaction): Promise<string> {
    const signature = await connection.sendRawTransaction(transaction.serialize());
    const confirmation = await connection.confirmTransaction({
      signature,
      blockhash: transaction.recentBlockhash!,
      lastValidBlockHeight: transaction.lastValidBlockHeight!,
    });
    expect(confirmation.value.err).toBeNull();
    return signature;
  }

  beforeAll(async () => {
    // Slots advance only when a test says so, so expiry and finality are deterministic.
    devchain = await startDevchain({ port: 0, slotMs: 0 });
    connection = new Connection(devchain.url, { commitment: 'confirmed', wsEndpoint: devchain.wsUrl });
    userAta = getAssociatedTokenAddressSync(devchain.stakeMint, user.publicKey);
    recipientAta = getAssociatedTokenAddressSync(devchain.stakeMint, recipient.publicKey);
  });
  afterAll(() => devchain.close());

  it('airdrops SOL through requestAirdrop, confirmed over the websocket', async () => {
    const signature = await connection.requestAirdrop(relayer.publicKey, 2 * LAMPORTS_PER_SOL);
    const latest = await connection.getLatestBlockhash();
    const confirmation = await connection.confirmTransaction({ signature, ...latest });
    expect(confirmation.value.err).toBeNull();
    expect(await connection.getBalance(relayer.publicKey)).toBe(2 * LAMPORTS_PER_SOL);
  });

  it("mints demo stake tokens to an owner's associated token account (JSON-RPC and TypeScript)", async () => {
    const reply = await rpc(devchain.url, 'devchain_mintTokens', { owner: user.publicKey.toBase58(), amount: '7000000' });
    expect(reply.error).toBeUndefined();
    expect(reply.result).toMatchObject({ tokenAccount: userAta.toBase58(), mint: devchain.stakeMint.toBase58(), amount: '7000000' });
    const { tokenAccount } = await devchain.mintTokens(user.publicKey, 3_000_000n);
    expect(tokenAccount.equals(userAta)).toBe(true);
    // the first mint created the account: the associated token program's CPIs are recorded
    const created = await connection.getTransaction(reply.result.signature, { maxSupportedTransactionVersion: 0 });
    expect(created?.meta?.innerInstructions?.[0]?.instructions.length).toBeGreaterThan(0);
    expect(created?.meta?.postTokenBalances?.[0]?.uiTokenAmount.amount).toBe('7000000');

    const balance = await connection.getTokenAccountBalance(userAta);
    expect(balance.value).toEqual({ amount: '10000000', decimals: 6, uiAmount: 10, uiAmountString: '10' });
    // base64 account data decoded by spl-token itself
    const account = await getAccount(connection, userAta);
    expect(account.owner.equals(user.publicKey)).toBe(true);
    expect(account.mint.equals(devchain.stakeMint)).toBe(true);
    expect(account.amount).toBe(10_000_000n);
    // the user holds no SOL: the relayer pays every fee
    expect(await connection.getBalance(user.publicKey)).toBe(0);

    const parsed = await connection.getParsedTokenAccountsByOwner(user.publicKey, { mint: devchain.stakeMint });
    expect(parsed.value.map((entry) => entry.pubkey.toBase58())).toEqual([userAta.toBase58()]);
    expect(parsed.value[0]!.account.data.parsed.info.tokenAmount.amount).toBe('10000000');
    const mint = await connection.getParsedAccountInfo(devchain.stakeMint);
    expect((mint.value?.data as any).parsed).toMatchObject({
      type: 'mint',
      info: { decimals: 6, supply: '10000000', mintAuthority: devchain.mintAuthority.toBase58() },
    });
  });

  it('lands a TransferChecked + Memo with the relayer as fee payer and the user as signer', async () => {
    const create = new Transaction().add(
      createAssociatedTokenAccountIdempotentInstruction(relayer.publicKey, recipientAta, recipient.publicKey, devchain.stakeMint),
    );
    await sendAndConfirmTransaction(connection, create, [relayer]);

    const relayerBefore = await connection.getBalance(relayer.publicKey);
    const transaction = await transfer(2_500_000n, 'pool-42:value=1234');
    const fee = await connection.getFeeForMessage(transaction.compileMessage());
    expect(fee.value).toBe(10_000); // two signatures
    const signature = await sendAndConfirmTransaction(connection, transaction, [relayer, user]);

    expect(await tokenAmount(userAta)).toBe('7500000');
    expect(await tokenAmount(recipientAta)).toBe('2500000');
    expect(relayerBefore - (await connection.getBalance(relayer.publicKey))).toBe(10_000);
    expect(await connection.getBalance(user.publicKey)).toBe(0);

    const landed = await connection.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.err).toBeNull();
    expect(landed?.meta?.fee).toBe(10_000);
    expect(landed?.blockTime).toBeGreaterThan(1_600_000_000);
    expect(landed?.meta?.logMessages).toContain(`Program ${MEMO_PROGRAM_ID.toBase58()} success`);
    expect(landed?.meta?.logMessages?.some((line) => line.includes('pool-42:value=1234'))).toBe(true);
    const amounts = (balances: TokenBalance[] | null | undefined) =>
      Object.fromEntries((balances ?? []).map((balance) => [balance.owner, balance.uiTokenAmount.amount]));
    expect(amounts(landed?.meta?.preTokenBalances)).toEqual({
      [user.publicKey.toBase58()]: '10000000',
      [recipient.publicKey.toBase58()]: '0',
    });
    expect(amounts(landed?.meta?.postTokenBalances)).toEqual({
      [user.publicKey.toBase58()]: '7500000',
      [recipient.publicKey.toBase58()]: '2500000',
    });
  });

  it('rejects a transaction with a bad signature, and drops it under skipPreflight', async () => {
    const transaction = await transfer(1_000_000n);
    const wire = transaction.serialize();
    const userSignatureOffset = 1 + 64; // shortvec count, relayer's signature, then the user's
    wire[userSignatureOffset + 3]! ^= 0xff;
    const relayerBefore = await connection.getBalance(relayer.publicKey);

    const reply = await rpc(devchain.url, 'sendTransaction', [wire.toString('base64'), { encoding: 'base64' }]);
    expect(reply.error).toEqual({ code: -32003, message: 'Transaction signature verification failure' });
    await expect(connection.sendRawTransaction(wire)).rejects.toThrow(/signature verification failure/);

    const signature = await connection.sendRawTransaction(wire, { skipPreflight: true });
    const status = await connection.getSignatureStatus(signature, { searchTransactionHistory: true });
    expect(status.value).toBeNull();
    expect(await tokenAmount(userAta)).toBe('7500000');
    expect(await connection.getBalance(relayer.publicKey)).toBe(relayerBefore);
  });

  it("refuses an insufficient-funds transfer with the token program's error and logs, moving nothing", async () => {
    const relayerBefore = await connection.getBalance(relayer.publicKey);
    const transaction = await transfer(50_000_000n);
    const error = await sendAndConfirmTransaction(connection, transaction, [relayer, user]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendTransactionError);
    const sendError = error as SendTransactionError;
    expect(sendError.transactionError.message).toBe(
      'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
    );
    expect(sendError.transactionError.logs).toContain('Program log: Error: insufficient funds');
    // preflight failure: nothing changed, not even the fee
    expect(await tokenAmount(userAta)).toBe('7500000');
    expect(await tokenAmount(recipientAta)).toBe('2500000');
    expect(await connection.getBalance(relayer.publicKey)).toBe(relayerBefore);

    // without preflight it lands, fails on-chain and pays its fee; balances stay put
    const failing = await transfer(60_000_000n, 'skip-preflight');
    const reply = await rpc(devchain.url, 'sendTransaction', [
      failing.serialize().toString('base64'),
      { encoding: 'base64', skipPreflight: true },
    ]);
    const status = await connection.getSignatureStatus(reply.result);
    expect(status.value?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(await tokenAmount(userAta)).toBe('7500000');
    expect(await connection.getBalance(relayer.publicKey)).toBe(relayerBefore - 10_000);
  });

  it('simulates: logs and units consumed, sigVerify and replaceRecentBlockhash', async () => {
    const transaction = await transfer(1_000n, 'simulated');
    const simulation = await connection.simulateTransaction(transaction);
    expect(simulation.value.err).toBeNull();
    expect(simulation.value.unitsConsumed).toBeGreaterThan(0);
    expect(simulation.value.logs).toContain('Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA success');
    expect(simulation.value.logs?.some((line) => line.includes('simulated'))).toBe(true);
    expect(await tokenAmount(userAta)).toBe('7500000'); // a simulation changes nothing

    const encoded = transaction.serialize().toString('base64');
    const both = await rpc(devchain.url, 'simulateTransaction', [
      encoded,
      { encoding: 'base64', sigVerify: true, replaceRecentBlockhash: true },
    ]);
    expect(both.error?.code).toBe(-32602);

    const tampered = transaction.serialize();
    tampered[10]! ^= 1;
    const verified = await rpc(devchain.url, 'simulateTransaction', [tampered.toString('base64'), { encoding: 'base64', sigVerify: true }]);
    expect(verified.error?.code).toBe(-32003);
    const unverified = await rpc(devchain.url, 'simulateTransaction', [tampered.toString('base64'), { encoding: 'base64' }]);
    expect(unverified.result.value.err).toBeNull();

    devchain.advanceSlots(151);
    const expired = await rpc(devchain.url, 'simulateTransaction', [encoded, { encoding: 'base64' }]);
    expect(expired.result.value.err).toBe('BlockhashNotFound');
    const replaced = await rpc(devchain.url, 'simulateTransaction', [encoded, { encoding: 'base64', replaceRecentBlockhash: true }]);
    expect(replaced.result.value.err).toBeNull();
    expect(replaced.result.value.replacementBlockhash).toEqual(await connection.getLatestBlockhash());
  });

  it('reports statuses: confirmed at once, finalized after 32 slots, old ones only with searchTransactionHistory', async () => {
    const signature = await sendAndConfirmSigned(await transfer(1n, 'status'));
    const [confirmed] = (await connection.getSignatureStatuses([signature])).value;
    expect(confirmed).toMatchObject({ confirmationStatus: 'confirmed', confirmations: 0, err: null });

    // a finalized-commitment confirmation waits on the websocket until the slot is rooted
    const latest = await connection.getLatestBlockhash();
    const watching = devchain.subscriptions;
    const finality = connection.confirmTransaction({ signature, ...latest }, 'finalized');
    // The slots advance once the confirmation's signature subscription has reached the server.
    await until(() => devchain.subscriptions > watching, 10_000, 'the signature subscription');
    devchain.advanceSlots(32);
    expect((await finality).value.err).toBeNull();
    const [finalized] = (await connection.getSignatureStatuses([signature])).value;
    expect(finalized).toMatchObject({ confirmationStatus: 'finalized', confirmations: null });

    devchain.advanceSlots(300);
    expect((await connection.getSignatureStatuses([signature])).value[0]).toBeNull();
    const searched = await connection.getSignatureStatuses([signature], { searchTransactionHistory: true });
    expect(searched.value[0]?.confirmationStatus).toBe('finalized');
  });

  it('rejects a transaction whose blockhash expired, and confirmTransaction reports the expiry', async () => {
    const transaction = await transfer(1n, 'late');
    expect((await connection.isBlockhashValid(transaction.recentBlockhash!)).value).toBe(true);
    devchain.advanceSlots(151);
    expect((await connection.isBlockhashValid(transaction.recentBlockhash!)).value).toBe(false);
    expect(await connection.getBlockHeight()).toBeGreaterThan(transaction.lastValidBlockHeight!);

    const error = await connection.sendRawTransaction(transaction.serialize()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendTransactionError);
    expect((error as SendTransactionError).transactionError.message).toBe('Transaction simulation failed: Blockhash not found');

    const signature = await connection.sendRawTransaction(transaction.serialize(), { skipPreflight: true });
    await expect(
      connection.confirmTransaction({
        signature,
        blockhash: transaction.recentBlockhash!,
        lastValidBlockHeight: transaction.lastValidBlockHeight!,
      }),
    ).rejects.toBeInstanceOf(TransactionExpiredBlockheightExceededError);
    expect(await tokenAmount(userAta)).toBe('7499999');
  });

  it('refuses to process the same transaction twice', async () => {
    const transaction = await transfer(1n, 'once');
    const wire = transaction.serialize();
    await sendAndConfirmSigned(transaction);
    const error = await connection.sendRawTransaction(wire).catch((e: unknown) => e);
    expect((error as SendTransactionError).transactionError.message).toBe(
      'Transaction simulation failed: This transaction has already been processed',
    );
    expect(await tokenAmount(userAta)).toBe('7499998');
  });

  it('lands a v0 transaction and reports its version only to clients that support it', async () => {
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const message = new TransactionMessage({
      payerKey: relayer.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        createTransferCheckedInstruction(userAta, devchain.stakeMint, recipientAta, user.publicKey, 2n, DECIMALS),
        memo('v0', user.publicKey),
      ],
    }).compileToV0Message();
    const transaction = new VersionedTransaction(message);
    transaction.sign([relayer, user]);
    const signature = await connection.sendTransaction(transaction);
    expect((await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight })).value.err).toBeNull();
    expect(await tokenAmount(userAta)).toBe('7499996');

    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.version).toBe(0);
    expect(landed?.transaction.message.staticAccountKeys[0]?.equals(relayer.publicKey)).toBe(true);
    const legacyOnly = await rpc(devchain.url, 'getTransaction', [signature, { encoding: 'json' }]);
    expect(legacyOnly.error?.code).toBe(-32015);
  });

  it('notifies websocket subscribers of account changes and slots', async () => {
    const watching = devchain.subscriptions;
    const changed = new Promise<string>((resolve) => {
      const id = connection.onAccountChange(
        userAta,
        (account) => {
          void connection.removeAccountChangeListener(id);
          resolve(unpackAccount(userAta, account).amount.toString());
        },
        { commitment: 'confirmed' },
      );
    });
    const slot = new Promise<number>((resolve) => {
      const id = connection.onSlotChange((info) => {
        void connection.removeSlotChangeListener(id);
        resolve(info.slot);
      });
    });
    // both subscriptions have reached the server before anything changes
    await until(() => devchain.subscriptions >= watching + 2, 10_000, 'the account and slot subscriptions');
    const before = devchain.slot;
    await devchain.mintTokens(user.publicKey, 4n);
    devchain.advanceSlots(1);
    expect(await changed).toBe('7500000');
    expect(await slot).toBe(before + 1);
  });

  it('answers the account reads a wallet makes, also to a @solana/kit client', async () => {
    const infos = await connection.getMultipleAccountsInfo([userAta, devchain.stakeMint, Keypair.generate().publicKey]);
    expect(infos[0]?.owner.toBase58()).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
    expect(infos[0]?.data.length).toBe(165);
    expect(infos[1]?.data.length).toBe(82);
    expect(infos[2]).toBeNull();
    expect(await connection.getMinimumBalanceForRentExemption(165)).toBe(2_039_280);

    const kit = createSolanaRpc(devchain.url);
    const { value: balance } = await kit.getBalance(kitAddress(relayer.publicKey.toBase58())).send();
    expect(Number(balance)).toBe(await connection.getBalance(relayer.publicKey));
    const { value: latest } = await kit.getLatestBlockhash().send();
    expect(latest.blockhash).toBe((await connection.getLatestBlockhash()).blockhash);
    const { value: tokenBalance } = await kit.getTokenAccountBalance(kitAddress(userAta.toBase58())).send();
    expect(tokenBalance.amount).toBe('7500000');
  });

  it('answers JSON-RPC errors with the standard codes, and batches', async () => {
    expect((await rpc(devchain.url, 'getNoSuchThing', [])).error).toEqual({ code: -32601, message: 'Method not found' });

    const malformed = await post(devchain.url, '{"jsonrpc":"2.0","id":1,"method":');
    expect(malformed.status).toBe(200);
    expect(JSON.parse(malformed.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });

    const invalid = JSON.parse((await post(devchain.url, '{"id":3,"method":"getSlot"}')).text);
    expect(invalid.error.code).toBe(-32600);
    expect(JSON.parse((await post(devchain.url, '[]')).text).error.code).toBe(-32600);
    expect((await rpc(devchain.url, 'getBalance', ['not-an-address'])).error?.code).toBe(-32602);

    const batch = JSON.parse(
      (
        await post(
          devchain.url,
          JSON.stringify([
            { jsonrpc: '2.0', id: 'a', method: 'getHealth' },
            { jsonrpc: '2.0', method: 'getSlot' }, // a notification: no reply
            { jsonrpc: '2.0', id: 'b', method: 'nope' },
            7,
          ]),
        )
      ).text,
    );
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 'a', result: 'ok' },
      { jsonrpc: '2.0', id: 'b', error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } },
    ]);
  });

  it('advances slots and blockhashes on its own clock', async () => {
    const ticking = await startDevchain({ port: 0, slotMs: 10, blockhashValiditySlots: 5 });
    try {
      const ticker = new Connection(ticking.url, 'confirmed');
      const first = await ticker.getLatestBlockhash();
      // More slots than a blockhash stays valid, on the devchain's own clock.
      const firstSlot = ticking.slot;
      await until(() => ticking.slot > firstSlot + 5, 10_000, 'six slots');
      const second = await ticker.getLatestBlockhash();
      expect(second.lastValidBlockHeight).toBeGreaterThan(first.lastValidBlockHeight);
      expect(second.blockhash).not.toBe(first.blockhash);
      expect((await ticker.isBlockhashValid(first.blockhash)).value).toBe(false);
    } finally {
      await ticking.close();
    }
  });
});
