CREATE TYPE "public"."submission_status" AS ENUM('PENDING', 'CONFIRMED', 'FAILED', 'EXPIRED');--> statement-breakpoint
CREATE TABLE "chain_submissions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"idempotency_key" text NOT NULL,
	"operation" text NOT NULL,
	"user_id" uuid NOT NULL,
	"params" jsonb NOT NULL,
	"signature" text NOT NULL,
	"transaction" text NOT NULL,
	"last_valid_block_height" integer NOT NULL,
	"status" "submission_status" DEFAULT 'PENDING' NOT NULL,
	"error" text,
	"confirmed_at" timestamp (3) with time zone,
	CONSTRAINT "chain_submissions_idempotency_key_unique" UNIQUE("idempotency_key"),
	CONSTRAINT "chain_submissions_signature_unique" UNIQUE("signature"),
	CONSTRAINT "chain_submissions_confirmed_at" CHECK (("chain_submissions"."status" = 'CONFIRMED') = ("chain_submissions"."confirmed_at" IS NOT NULL))
);
--> statement-breakpoint
ALTER TABLE "chain_submissions" ADD CONSTRAINT "chain_submissions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chain_submissions_pending_idx" ON "chain_submissions" USING btree ("created_at") WHERE "chain_submissions"."status" = 'PENDING';--> statement-breakpoint
CREATE INDEX "chain_submissions_user_id_idx" ON "chain_submissions" USING btree ("user_id");