CREATE TABLE "leaderboard_daily" (
	"user_id" uuid NOT NULL,
	"day" date NOT NULL,
	"payout" bigint DEFAULT 0 NOT NULL,
	"staked" bigint DEFAULT 0 NOT NULL,
	"score_sum" numeric DEFAULT '0' NOT NULL,
	"scored_count" integer DEFAULT 0 NOT NULL,
	"decimals" smallint NOT NULL,
	CONSTRAINT "leaderboard_daily_user_id_day_pk" PRIMARY KEY("user_id","day"),
	CONSTRAINT "leaderboard_daily_count_positive" CHECK ("leaderboard_daily"."scored_count" > 0)
);
--> statement-breakpoint
CREATE TABLE "leaderboard_totals" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"payout" bigint DEFAULT 0 NOT NULL,
	"staked" bigint DEFAULT 0 NOT NULL,
	"score_sum" numeric DEFAULT '0' NOT NULL,
	"scored_count" integer DEFAULT 0 NOT NULL,
	"decimals" smallint NOT NULL,
	CONSTRAINT "leaderboard_totals_count_positive" CHECK ("leaderboard_totals"."scored_count" > 0)
);
--> statement-breakpoint
ALTER TABLE "referral_codes" ADD COLUMN "max_uses" integer;--> statement-breakpoint
ALTER TABLE "referral_codes" ADD COLUMN "redemption_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "referral_codes" ADD COLUMN "expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "referral_codes" ADD COLUMN "deactivated_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "leaderboard_daily" ADD CONSTRAINT "leaderboard_daily_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leaderboard_totals" ADD CONSTRAINT "leaderboard_totals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "leaderboard_daily_day_idx" ON "leaderboard_daily" USING btree ("day");--> statement-breakpoint
CREATE INDEX "leaderboard_totals_payout_idx" ON "leaderboard_totals" USING btree ("payout","user_id");--> statement-breakpoint
ALTER TABLE "referral_codes" ADD CONSTRAINT "referral_codes_max_uses_positive" CHECK ("referral_codes"."max_uses" IS NULL OR "referral_codes"."max_uses" > 0);--> statement-breakpoint
ALTER TABLE "referral_codes" ADD CONSTRAINT "referral_codes_uses_within_max" CHECK ("referral_codes"."redemption_count" >= 0 AND ("referral_codes"."max_uses" IS NULL OR "referral_codes"."redemption_count" <= "referral_codes"."max_uses"));--> statement-breakpoint
UPDATE "referral_codes" c SET "redemption_count" = (SELECT count(*) FROM "referral_redemptions" r WHERE r."referral_code_id" = c."id");--> statement-breakpoint
INSERT INTO "leaderboard_daily" ("user_id", "day", "payout", "staked", "score_sum", "scored_count", "decimals")
SELECT p."user_id", (res."created_at" AT TIME ZONE 'UTC')::date, sum(r."amount"), sum(p."stake"), sum(r."precision_score"), count(*), max(r."decimals")
FROM "rewards" r JOIN "predictions" p ON p."id" = r."prediction_id" JOIN "resolutions" res ON res."pool_id" = p."pool_id"
WHERE r."type" = 'REWARD' GROUP BY 1, 2;--> statement-breakpoint
INSERT INTO "leaderboard_totals" ("user_id", "payout", "staked", "score_sum", "scored_count", "decimals")
SELECT "user_id", sum("payout"), sum("staked"), sum("score_sum"), sum("scored_count"), max("decimals") FROM "leaderboard_daily" GROUP BY 1;
