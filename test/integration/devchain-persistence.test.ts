import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevchain } from '../../src/devchain/index.js';

describe('devchain persistence', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'devchain-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps keys, balances and transaction history across a restart', async () => {
    const owner = Keypair.generate();
    const first = await startDevchain({ port: 0, slotMs: 0, dataDir });
    const stakeMint = first.stakeMint.toBase58();
    const { signature, tokenAccount } = await first.mintTokens(owner.publicKey, '4200000');
    await first.airdrop(owner.publicKey, 123_456_789);
    first.advanceSlots(10);
    const slotBefore = first.slot;
    await first.close();

    const second = await startDevchain({ port: 0, slotMs: 0, dataDir });
    try {
      const connection = new Connection(second.url, 'confirmed');
      expect(second.stakeMint.toBase58()).toBe(stakeMint);
      expect(second.slot).toBeGreaterThanOrEqual(slotBefore);
      expect((await connection.getTokenAccountBalance(tokenAccount)).value.amount).toBe('4200000');
      expect(await connection.getBalance(owner.publicKey)).toBe(123_456_789);
      const status = await connection.getSignatureStatus(signature, { searchTransactionHistory: true });
      expect(status.value?.err).toBeNull();
      // the restored mint and authority still work
      await second.mintTokens(owner.publicKey, 800_000n);
      expect((await connection.getTokenAccountBalance(tokenAccount)).value.amount).toBe('5000000');
    } finally {
      await second.close();
    }
  });
});
