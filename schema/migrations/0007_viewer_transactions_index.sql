DROP INDEX "chain_submissions_user_id_idx";--> statement-breakpoint
CREATE INDEX "chain_submissions_user_created_idx" ON "chain_submissions" USING btree ("user_id","created_at","id");