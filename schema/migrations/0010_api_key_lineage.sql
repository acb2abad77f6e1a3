ALTER TABLE "api_keys" ADD COLUMN "minted_by_api_key_id" uuid;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD COLUMN "api_key_id" uuid;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_minted_by_api_key_id_api_keys_id_fk" FOREIGN KEY ("minted_by_api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_minted_by_api_key_id_idx" ON "api_keys" USING btree ("minted_by_api_key_id") WHERE "api_keys"."minted_by_api_key_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "refresh_tokens_api_key_id_idx" ON "refresh_tokens" USING btree ("api_key_id") WHERE "refresh_tokens"."api_key_id" IS NOT NULL;