import { createKeyPairFromBytes, getBase64EncodedWireTransaction, getTransactionDecoder, partiallySignTransaction } from '@solana/kit';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import {
  compactId,
  MEMO_PROGRAM_ID,
  poolVaultAddress,
  poolVaultSeed,
  predictionAddress,
  streakAccumulatorAddress,
} from '../../src/chain/addresses.js';
import { decodeMemo } from '../../src/chain/memo.js';
import { canonicalParams, deriveProofKey, ProofError, signProof, verifyProof } from '../../src/chain/proof.js';
import { deriveKey, KEY_LABELS } from '../../src/keys.js';
import { assertSigningRule } from '../../src/chain/signing-rules.js';
import {
  buildPayout,
  buildPlacePrediction,
  buildStakeUpdate,
  buildWithdraw,
  isEmptySignature,
  messageOf,
  parseWireTransaction,
} from '../../src/chain/transactions.js';
import { userTokenAccount } from '../../src/chain/addresses.js';
import { TransactionFormatError, verifySignedTransaction } from '../../src/chain/verify.js';

const relayer = Keypair.generate();
const custody = Keypair.generate();
const mint = Keypair.generate().publicKey;
const accounts = { mint, decimals: 6, relayer: relayer.publicKey, custody: custody.publicKey };
const recent = { blockhash: Keypair.generate().publicKey.toBase58(), lastValidBlockHeight: 1000 };
const poolId = '7b0f8d4e-1c2a-4b3c-8d4e-5f6a7b8c9d0e';

async function built(user: Keypair) {
  const vault = await poolVaultAddress(custody.publicKey, poolId);
  return buildPlacePrediction(accounts, recent, { user: user.publicKey, vault, poolId, stake: 12_500_000n, value: '101.5' });
}

/** The wallet's side, with @solana/web3.js 1.x: decode, sign the user's slot, encode. */
function signWithWeb3(base64: string, user: Keypair): string {
  const transaction = Transaction.from(Buffer.from(base64, 'base64'));
  transaction.partialSign(user);
  return transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
}

/** The wallet's side, with @solana/kit. */
async function signWithKit(base64: string, user: Keypair): Promise<string> {
  const transaction = getTransactionDecoder().decode(Buffer.from(base64, 'base64'));
  const keyPair = await createKeyPairFromBytes(user.secretKey);
  return getBase64EncodedWireTransaction(await partiallySignTransaction([keyPair], transaction));
}

describe('address derivations', () => {
  it('derive stable, distinct addresses within Solana seed limits', async () => {
    expect(poolVaultSeed(poolId).length).toBeLessThanOrEqual(32);
    expect(compactId(poolId)).toMatch(/^[1-9A-HJ-NP-Za-km-z]{21,22}$/);
    const a = await poolVaultAddress(custody.publicKey, poolId);
    expect((await poolVaultAddress(custody.publicKey, poolId)).equals(a)).toBe(true);
    expect((await poolVaultAddress(custody.publicKey, '00000000-0000-4000-8000-000000000001')).equals(a)).toBe(false);
    expect((await streakAccumulatorAddress(custody.publicKey, poolId)).equals(a)).toBe(false);
    const predictor = Keypair.generate().publicKey;
    const prediction = predictionAddress(a, predictor);
    // The bump is the one that makes the seeds an off-curve address, and that address is the one returned.
    const seeds = [Buffer.from('prediction'), a.toBuffer(), predictor.toBuffer(), Buffer.from([prediction.bump])];
    expect(PublicKey.createProgramAddressSync(seeds, MEMO_PROGRAM_ID).toBase58()).toBe(prediction.address.toBase58());
  });
});

describe('built transactions', () => {
  it('have the relayer as fee payer, empty signature slots and the memo record', async () => {
    const user = Keypair.generate();
    const { transaction } = await built(user);
    const decoded = Transaction.from(Buffer.from(transaction, 'base64'));
    expect(decoded.feePayer!.equals(relayer.publicKey)).toBe(true);
    expect(decoded.signatures.map((s) => s.publicKey.toBase58())).toEqual([relayer.publicKey.toBase58(), user.publicKey.toBase58()]);
    expect(decoded.signatures.every((s) => s.signature === null || isEmptySignature(s.signature))).toBe(true);
    expect(decodeMemo(decoded.instructions[1]!.data)).toEqual({
      v: 1,
      op: 'predict',
      pool: poolId,
      value: '101.5',
      stake: '12500000',
      rev: 1,
    });
    // @solana/kit reads the same wire bytes: the same two signers, neither slot signed yet.
    const kitSignatures = getTransactionDecoder().decode(Buffer.from(transaction, 'base64')).signatures;
    expect(Object.keys(kitSignatures)).toEqual([relayer.publicKey.toBase58(), user.publicKey.toBase58()]);
    expect(Object.values(kitSignatures).every((signature) => signature === null || isEmptySignature(Buffer.from(signature)))).toBe(true);
  });

  it('accept the user signature of @solana/web3.js and of @solana/kit, keeping the exact message', async () => {
    const user = Keypair.generate();
    const tx = await built(user);
    for (const signed of [signWithWeb3(tx.transaction, user), await signWithKit(tx.transaction, user)]) {
      const wire = verifySignedTransaction(signed, { messageHash: tx.messageHash, relayer: relayer.publicKey, user: user.publicKey });
      expect(isEmptySignature(wire.signatures[0]!)).toBe(true);
      expect(isEmptySignature(wire.signatures[1]!)).toBe(false);
    }
  });

  it('refuse a changed byte, a missing or foreign signature, and unreadable input', async () => {
    const user = Keypair.generate();
    const tx = await built(user);
    const expected = { messageHash: tx.messageHash, relayer: relayer.publicKey, user: user.publicKey };
    const signed = Buffer.from(signWithWeb3(tx.transaction, user), 'base64');

    const problem = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error instanceof ProofError ? error.problem : error instanceof TransactionFormatError ? 'FORMAT' : String(error);
      }
      return 'ACCEPTED';
    };
    for (let offset = 1 + 2 * 64; offset < signed.length; offset += 17) {
      const tampered = Buffer.from(signed);
      tampered[offset] = tampered[offset]! ^ 0xff;
      expect(
        problem(() => verifySignedTransaction(tampered.toString('base64'), expected)),
        `byte ${offset}`,
      ).toMatch(/PROOF_INVALID|FORMAT/);
    }
    expect(problem(() => verifySignedTransaction(tx.transaction, expected))).toBe('PROOF_INVALID');
    expect(problem(() => verifySignedTransaction(signWithWeb3(tx.transaction, Keypair.generate()), expected))).not.toBe('ACCEPTED');
    const other = Keypair.generate();
    const otherTx = await built(other);
    expect(problem(() => verifySignedTransaction(signWithWeb3(otherTx.transaction, other), expected))).toBe('PROOF_INVALID');
    expect(problem(() => verifySignedTransaction('not base64!', expected))).toBe('FORMAT');
    expect(problem(() => verifySignedTransaction(Buffer.alloc(2000, 1).toString('base64'), expected))).toBe('FORMAT');
    expect(problem(() => verifySignedTransaction(Buffer.alloc(200, 7).toString('base64'), expected))).toBe('FORMAT');
  });

  it('withdraws to the recipient’s associated token account, its creation funded by the user, never the relayer', async () => {
    const user = Keypair.generate();
    const to = Keypair.generate().publicKey;
    for (const createRecipientAccountPayer of [null, user.publicKey]) {
      const tx = buildWithdraw(accounts, recent, { user: user.publicKey, to, amount: 5_000_000n, createRecipientAccountPayer });
      const wire = parseWireTransaction(Buffer.from(tx.transaction, 'base64'))!;
      expect(wire.signers.map((k) => k.toBase58())).toEqual([relayer.publicKey.toBase58(), user.publicKey.toBase58()]);
      expect(wire.instructions).toHaveLength(createRecipientAccountPayer ? 3 : 2);
      // The relayer is in no instruction: it pays the signature fees and nothing else.
      expect(wire.instructions.every((i) => i.programIdIndex !== 0 && !i.accountKeyIndexes.includes(0))).toBe(true);
    }
  });
});

describe('the signing rule', () => {
  const problem = (work: () => void) => {
    try {
      work();
      return 'SIGNED';
    } catch (error) {
      return (error as ProofError).problem;
    }
  };

  it('lets custody sign only the one vault-to-user transfer the rule allows, and only the message rebuilt from the records', async () => {
    const user = Keypair.generate();
    const vault = await poolVaultAddress(custody.publicKey, poolId);
    const destination = userTokenAccount(mint, user.publicKey);
    const decrease = buildStakeUpdate(accounts, recent, {
      user: user.publicKey,
      vault,
      poolId,
      predictionAccount: 'p',
      stake: 5n,
      delta: -7n,
      revision: 2,
    });
    const wire = parseWireTransaction(Buffer.from(decrease.transaction, 'base64'))!;
    const allowed = { source: vault, destination, amount: 7n };
    expect(problem(() => assertSigningRule(wire, accounts, { expectedMessage: messageOf(decrease), custodyTransfer: allowed }))).toBe(
      'SIGNED',
    );
    // The same bytes, but a rule allowing another amount, source or destination, or no transfer at all.
    for (const rule of [
      { ...allowed, amount: 6n },
      { ...allowed, source: Keypair.generate().publicKey },
      { ...allowed, destination: vault },
      null,
    ]) {
      expect(problem(() => assertSigningRule(wire, accounts, { expectedMessage: messageOf(decrease), custodyTransfer: rule }))).toBe(
        'PROOF_INVALID',
      );
    }
    // A larger transfer than the records rebuild: not the expected message.
    const larger = buildStakeUpdate(accounts, recent, {
      user: user.publicKey,
      vault,
      poolId,
      predictionAccount: 'p',
      stake: 5n,
      delta: -50n,
      revision: 2,
    });
    const largerWire = parseWireTransaction(Buffer.from(larger.transaction, 'base64'))!;
    expect(problem(() => assertSigningRule(largerWire, accounts, { expectedMessage: messageOf(decrease), custodyTransfer: allowed }))).toBe(
      'PROOF_INVALID',
    );
    // A payout passes with its own rule; the relayer named in an instruction never does.
    const payout = buildPayout(accounts, recent, { source: vault, owner: user.publicKey, amount: 9n, kind: 'reward', id: poolId });
    const payoutWire = parseWireTransaction(Buffer.from(payout.transaction, 'base64'))!;
    expect(
      problem(() =>
        assertSigningRule(payoutWire, accounts, {
          expectedMessage: messageOf(payout),
          custodyTransfer: { source: vault, destination, amount: 9n },
        }),
      ),
    ).toBe('SIGNED');
    const relayerPays = buildWithdraw(accounts, recent, {
      user: user.publicKey,
      to: Keypair.generate().publicKey,
      amount: 1n,
      createRecipientAccountPayer: relayer.publicKey,
    });
    const relayerWire = parseWireTransaction(Buffer.from(relayerPays.transaction, 'base64'))!;
    expect(
      problem(() => assertSigningRule(relayerWire, accounts, { expectedMessage: messageOf(relayerPays), custodyTransfer: null })),
    ).toBe('PROOF_INVALID');
  });
});

describe('proofs', () => {
  const secret = new TextEncoder().encode('p'.repeat(32));
  const claims = {
    operation: 'placePrediction',
    userId: 'user-1',
    params: canonicalParams({ value: '101.5', poolId, stake: '12.5' }),
    derived: { revision: '2' },
    messageHash: 'hash',
    blockhash: recent.blockhash,
    lastValidBlockHeight: 1000,
  };
  const now = new Date('2026-11-22T12:00:00Z');
  const expected = { operation: claims.operation, userId: claims.userId, params: claims.params };

  it('bind the operation, viewer and every parameter, and expire', async () => {
    const proof = await signProof(secret, claims, new Date(now.getTime() + 60_000));
    expect(await verifyProof(secret, proof, expected, now)).toEqual(claims);
    const problem = (p: Promise<unknown>) =>
      p.then(
        () => 'ACCEPTED',
        (e: ProofError) => e.problem,
      );
    expect(await problem(verifyProof(secret, proof, { ...expected, userId: 'user-2' }, now))).toBe('PROOF_INVALID');
    expect(await problem(verifyProof(secret, proof, { ...expected, operation: 'withdraw' }, now))).toBe('PROOF_INVALID');
    expect(await problem(verifyProof(secret, proof, { ...expected, params: { ...claims.params, stake: '13' } }, now))).toBe(
      'PROOF_INVALID',
    );
    expect(await problem(verifyProof(secret, proof, expected, new Date(now.getTime() + 61_000)))).toBe('PROOF_EXPIRED');
    // One character inside the signature changed to another (not the last ones: the last
    // base64url character carries unused bits, so changing it may decode to the same bytes).
    const at = proof.length - 10;
    const tampered = `${proof.slice(0, at)}${proof[at] === 'A' ? 'B' : 'A'}${proof.slice(at + 1)}`;
    expect(tampered).not.toBe(proof);
    expect(await problem(verifyProof(secret, tampered, expected, now))).toBe('PROOF_INVALID');
    expect(await problem(verifyProof(new TextEncoder().encode('q'.repeat(32)), proof, expected, now))).toBe('PROOF_INVALID');
  });

  it('are signed with their own key, derived from the secret under a label no other key uses', async () => {
    const serviceSecret = new TextEncoder().encode('s'.repeat(40));
    const proofKey = deriveProofKey(serviceSecret);
    const accessKey = deriveKey(serviceSecret, KEY_LABELS.accessToken);
    expect(Buffer.from(proofKey)).toEqual(Buffer.from(deriveProofKey(serviceSecret)));
    expect(proofKey).toHaveLength(32);
    expect(Buffer.from(proofKey).equals(Buffer.from(accessKey))).toBe(false);
    expect(Buffer.from(proofKey).equals(Buffer.from(serviceSecret.subarray(0, 32)))).toBe(false);
    // A proof signed with the secret itself or the access-token key is not a proof.
    for (const key of [serviceSecret, accessKey]) {
      const forged = await signProof(key, claims, new Date(now.getTime() + 60_000));
      await expect(verifyProof(proofKey, forged, expected, now)).rejects.toMatchObject({ problem: 'PROOF_INVALID' });
    }
    await expect(
      verifyProof(proofKey, await signProof(proofKey, claims, new Date(now.getTime() + 60_000)), expected, now),
    ).resolves.toMatchObject({ userId: 'user-1' });
  });
});
