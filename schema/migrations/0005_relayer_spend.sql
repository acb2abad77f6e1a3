ALTER TABLE "chain_submissions" ADD COLUMN "relayer_fee_lamports" bigint;--> statement-breakpoint
ALTER TABLE "chain_submissions" ADD COLUMN "relayer_sponsored_lamports" bigint DEFAULT 0 NOT NULL;