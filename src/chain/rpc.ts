import { Connection, type PublicKey, type SignatureStatus } from '@solana/web3.js';
import bs58 from 'bs58';
import type { RecentBlockhash } from './transactions.js';

/**
 * The chain could not be reached, or did not answer in time. `neverSent` is true when the
 * request cannot have reached it (connection refused, unknown host); after a timeout or a
 * dropped connection, a sent transaction may still land.
 */
export class ChainUnavailableError extends Error {
  constructor(
    message: string,
    readonly neverSent = false,
  ) {
    super(message);
  }
}

/** An account as a preview reads it: its lamports and, for a token account, its token balance. */
export interface ParsedAccount {
  lamports: bigint;
  token: { mint: string; owner: string; amount: bigint; decimals: number } | null;
}

/** What simulating a transaction answered: its error (null on success), logs, and the requested accounts after it. */
export interface SimulationResult {
  err: unknown;
  logs: string[];
  accounts: Array<ParsedAccount | null>;
}

/** The chain rejected a transaction; `reason` is the program's error and logs. */
export class TransactionRejectedError extends Error {
  constructor(
    readonly reason: string,
    readonly logs: string[],
  ) {
    super(reason);
  }
}

/**
 * The gateway's only way to the chain: JSON-RPC through @solana/web3.js, with a time limit
 * on every call, so an unreachable node fails fast as ChainUnavailableError.
 */
export class ChainClient {
  readonly connection: Connection;

  constructor(
    readonly url: string,
    private readonly timeoutMs = 5_000,
  ) {
    this.connection = new Connection(url, { commitment: 'confirmed', disableRetryOnRateLimit: true });
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        work(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new ChainUnavailableError(`the chain did not answer within ${this.timeoutMs} ms`)),
            this.timeoutMs,
          );
        }),
      ]);
    } catch (error) {
      if (error instanceof ChainUnavailableError || error instanceof TransactionRejectedError) throw error;
      const network = networkErrorKind(error);
      if (network) throw new ChainUnavailableError(`the chain is unreachable: ${(error as Error).message}`, network === 'refused');
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  latestBlockhash(): Promise<RecentBlockhash> {
    return this.call(() => this.connection.getLatestBlockhash('confirmed'));
  }

  async isBlockhashValid(blockhash: string): Promise<boolean> {
    return this.call(async () => (await this.connection.isBlockhashValid(blockhash, { commitment: 'confirmed' })).value);
  }

  /**
   * Simulates, then sends; a failing simulation throws TransactionRejectedError and sends
   * nothing. A transaction the chain has already processed (an earlier send of these bytes
   * landed: another replica's, or one that landed between a status check and this send) is
   * not a rejection: its signature is returned as if sent now, and its status says whether it
   * succeeded. Treating it as refused would forget a transaction whose tokens moved.
   */
  async send(wire: Uint8Array): Promise<string> {
    return this.call(async () => {
      try {
        return await this.connection.sendRawTransaction(wire, { skipPreflight: false, preflightCommitment: 'confirmed', maxRetries: 0 });
      } catch (error) {
        if (isAlreadyProcessed(error)) return firstSignature(wire);
        const logs = (error as { logs?: string[] }).logs;
        if (logs || /simulation failed|custom program error|insufficient/i.test(String((error as Error).message))) {
          throw new TransactionRejectedError((error as Error).message, logs ?? []);
        }
        throw error;
      }
    });
  }

  async signatureStatus(signature: string): Promise<SignatureStatus | null> {
    return this.call(
      async () => (await this.connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0] ?? null,
    );
  }

  /** Polls until `signature` is confirmed (or failed), or the blockhash it used has expired. */
  async confirm(signature: string, lastValidBlockHeight: number, pollMs = 200): Promise<SignatureStatus | null> {
    for (;;) {
      const status = await this.signatureStatus(signature);
      if (status && (status.err || status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized')) return status;
      const height = await this.call(() => this.connection.getBlockHeight('confirmed'));
      if (height > lastValidBlockHeight) return null;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /** Decimals of a mint, read from the chain. */
  async mintDecimals(mint: PublicKey): Promise<number> {
    return this.call(async () => (await this.connection.getTokenSupply(mint)).value.decimals);
  }

  /**
   * The devchain's own description (stake mint, faucet), or null when the endpoint is a
   * real cluster: the custom methods exist only on the embedded chain.
   */
  async devchainInfo(): Promise<{ stakeMint: string; stakeMintDecimals: number } | null> {
    const answer = await this.rawRequest('devchain_info', []);
    return 'result' in answer ? (answer.result as { stakeMint: string; stakeMintDecimals: number }) : null;
  }

  /** Mints `amount` base units of the devchain's stake mint to `owner`'s token account (devchain only). */
  async mintDevTokens(owner: PublicKey, amount: bigint): Promise<string> {
    const answer = await this.rawRequest('devchain_mintTokens', [{ owner: owner.toBase58(), amount: amount.toString() }]);
    if (!('result' in answer)) throw new Error(`devchain_mintTokens failed: ${answer.error.message}`);
    return (answer.result as { signature: string }).signature;
  }

  /** The accounts at `addresses` (null where none exists), token accounts decoded (jsonParsed). */
  async parsedAccounts(addresses: string[]): Promise<Array<ParsedAccount | null>> {
    const config = { encoding: 'jsonParsed', commitment: 'confirmed' };
    const answer = await this.rpc<{ value: unknown[] }>('getMultipleAccounts', [addresses, config]);
    return answer.value.map(parsedAccount);
  }

  /**
   * Simulates the wire transaction as it is (signatures not verified, blockhash kept) and
   * returns `addresses` as it would leave them. Signs and sends nothing.
   */
  async simulate(wire: Uint8Array, addresses: string[]): Promise<SimulationResult> {
    const answer = await this.rpc<{ value: { err: unknown; logs: string[] | null; accounts: unknown[] | null } }>('simulateTransaction', [
      Buffer.from(wire).toString('base64'),
      {
        encoding: 'base64',
        sigVerify: false,
        replaceRecentBlockhash: false,
        commitment: 'confirmed',
        accounts: { encoding: 'jsonParsed', addresses },
      },
    ]);
    const { err, logs, accounts } = answer.value;
    return { err, logs: logs ?? [], accounts: (accounts ?? addresses.map(() => null)).map(parsedAccount) };
  }

  /** The fee the chain charges for `message`, in lamports. */
  async feeForMessage(message: Uint8Array): Promise<bigint> {
    const encoded = Buffer.from(message).toString('base64');
    const answer = await this.rpc<{ value: number | null }>('getFeeForMessage', [encoded, { commitment: 'confirmed' }]);
    if (answer.value === null) throw new ChainUnavailableError('the chain no longer knows the transaction’s blockhash');
    return BigInt(answer.value);
  }

  /** Airdrops `lamports` of SOL to `to` (a faucet: the devchain, a test validator, devnet). */
  async airdrop(to: PublicKey, lamports: bigint): Promise<string> {
    return this.call(() => this.connection.requestAirdrop(to, Number(lamports)));
  }

  /** A JSON-RPC call whose error is thrown (as a chain that cannot answer it). */
  private async rpc<T>(method: string, params: unknown[]): Promise<T> {
    const answer = await this.rawRequest(method, params);
    if (!('result' in answer)) throw new ChainUnavailableError(`${method} failed: ${answer.error.message}`);
    return answer.result as T;
  }

  /** A JSON-RPC call web3.js has no method for. */
  private rawRequest(method: string, params: unknown[]): Promise<{ result: unknown } | { error: { code: number; message: string } }> {
    return this.call(async () => {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return (await response.json()) as { result: unknown } | { error: { code: number; message: string } };
    });
  }

  /**
   * What the fee payer (account 0) of a landed transaction paid: its signature fee, and
   * everything else it lost (rent of accounts it funded, transfers), read from the chain's
   * own record rather than assumed; null when the chain has no record of it.
   */
  async feePayerSpend(signature: string): Promise<{ fee: bigint; beyondFee: bigint; balanceAfter: bigint } | null> {
    return this.call(async () => {
      const record = await this.connection.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
      const meta = record?.meta;
      if (!meta) return null;
      const spent = BigInt(meta.preBalances[0]!) - BigInt(meta.postBalances[0]!);
      return { fee: BigInt(meta.fee), beyondFee: spent - BigInt(meta.fee), balanceAfter: BigInt(meta.postBalances[0]!) };
    });
  }

  /** Whether an account exists at `address`. */
  async accountExists(address: PublicKey): Promise<boolean> {
    return this.call(async () => (await this.connection.getAccountInfo(address)) !== null);
  }

  /** SOL balance of `address`, in lamports. */
  async lamports(address: PublicKey): Promise<bigint> {
    return this.call(async () => BigInt(await this.connection.getBalance(address)));
  }

  /** Rent-exempt minimum of an account of `size` bytes, in lamports. */
  async rentExemptMinimum(size: number): Promise<bigint> {
    return this.call(async () => BigInt(await this.connection.getMinimumBalanceForRentExemption(size)));
  }

  /** Token balance of an account in base units; 0 for an account that does not exist. */
  async tokenBalance(account: PublicKey): Promise<bigint> {
    return this.call(async () => {
      const info = await this.connection.getAccountInfo(account);
      if (!info) return 0n;
      return BigInt((await this.connection.getTokenAccountBalance(account)).value.amount);
    });
  }
}

/** An account of a jsonParsed answer; token accounts carry their parsed balance. */
function parsedAccount(raw: unknown): ParsedAccount | null {
  if (!raw) return null;
  const account = raw as { lamports: number; data: unknown };
  const parsed = (account.data as { parsed?: { type?: string; info?: Record<string, any> } } | null)?.parsed;
  const info = parsed?.type === 'account' ? parsed.info : undefined;
  const token = info
    ? {
        mint: String(info.mint),
        owner: String(info.owner),
        amount: BigInt(info.tokenAmount.amount),
        decimals: Number(info.tokenAmount.decimals),
      }
    : null;
  return { lamports: BigInt(account.lamports), token };
}

/**
 * The chain's answer to a transaction whose signature it has already recorded: the
 * validator's preflight reports `AlreadyProcessed` ("This transaction has already been
 * processed"), which web3.js puts in the message of the error it throws.
 */
function isAlreadyProcessed(error: unknown): boolean {
  const data = (error as { transactionError?: { message?: string } }).transactionError;
  return /already been processed|AlreadyProcessed/i.test(`${(error as Error)?.message ?? ''} ${data?.message ?? ''}`);
}

/** A transaction's id: its first signature (after the compact-u16 count; one byte below 128 signatures). */
function firstSignature(wire: Uint8Array): string {
  return bs58.encode(wire.subarray(1, 65));
}

/** 'refused' when the request cannot have left, 'broken' when it may have, null when not a network error. */
function networkErrorKind(error: unknown): 'refused' | 'broken' | null {
  const text = `${(error as Error)?.message ?? ''} ${(error as { cause?: { code?: string } })?.cause?.code ?? ''}`;
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN/i.test(text)) return 'refused';
  return /ECONNRESET|ETIMEDOUT|fetch failed|socket hang up/i.test(text) ? 'broken' : null;
}
