import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgEnum, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, id, timestamps } from './columns.js';
import { users } from './users.js';

export const submissionStatus = pgEnum('submission_status', ['PENDING', 'CONFIRMED', 'FAILED', 'EXPIRED']);

/**
 * Every transaction the service co-signs, recorded before it is sent: the signature is
 * known once the relayer has signed, so a crash between send and write leaves a PENDING
 * row the reconciler can settle against the chain. One row per proof makes a repeated
 * submit return the same signature instead of sending again.
 */
export const chainSubmissions = pgTable(
  'chain_submissions',
  {
    id: id(),
    ...timestamps(),
    /** SHA-256 of the proof (or of the claim's key, for one-step claims): the idempotency key. */
    idempotencyKey: text('idempotency_key').notNull().unique(),
    operation: text('operation').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The build parameters, canonical, and whatever the effects need to be applied later. */
    params: jsonb('params').$type<Record<string, string>>().notNull(),
    signature: text('signature').notNull().unique(),
    /**
     * The change this transaction makes to one record (a prediction's next stake or value
     * revision; a user's first prediction on a pool): two different transactions for the
     * same change can both be valid when built, but only one may be sent. Null for
     * transactions that exclude nothing (withdrawals) and for claims (keyed by the record).
     */
    lane: text('lane').unique(),
    /** The fully signed wire transaction (base64), to resend or inspect while pending. */
    transaction: text('transaction').notNull(),
    lastValidBlockHeight: integer('last_valid_block_height').notNull(),
    status: submissionStatus('status').notNull().default('PENDING'),
    error: text('error'),
    confirmedAt: at('confirmed_at'),
    /** Signature fees the relayer paid for this transaction (lamports), read from the chain once confirmed. */
    relayerFeeLamports: bigint('relayer_fee_lamports', { mode: 'bigint' }),
    /**
     * Everything else the relayer lost to it (rent it funded; lamports), read from the
     * chain once confirmed. The rules keep it 0; the per-user cap bounds what a missed
     * rule could cost (docs/security.md).
     */
    relayerSponsoredLamports: bigint('relayer_sponsored_lamports', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    /**
     * Until when one process owns settling this PENDING row: the sending request while it
     * waits for the chain, then the reconciler that leased it. Another replica's reconciler
     * takes only rows whose lease has run out, so two never send or settle one row at once.
     */
    leaseExpiresAt: at('lease_expires_at'),
  },
  (t) => [
    index('chain_submissions_pending_idx')
      .on(t.createdAt)
      .where(sql`${t.status} = 'PENDING'`),
    // The viewer's transactions, newest first and paged by keyset both ways (and lookups by user).
    index('chain_submissions_user_created_idx').on(t.userId, t.createdAt, t.id),
    check('chain_submissions_confirmed_at', sql`(${t.status} = 'CONFIRMED') = (${t.confirmedAt} IS NOT NULL)`),
  ],
);

export type ChainSubmissionRow = typeof chainSubmissions.$inferSelect;
export type NewChainSubmissionRow = typeof chainSubmissions.$inferInsert;
