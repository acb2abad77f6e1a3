CREATE TYPE "public"."user_role" AS ENUM('USER', 'ADMIN');--> statement-breakpoint
CREATE TYPE "public"."pool_status" AS ENUM('ACTIVE', 'PREDICTIONS_FROZEN', 'CLAIMS_FROZEN', 'FROZEN');--> statement-breakpoint
CREATE TYPE "public"."pool_unit" AS ENUM('USD');--> statement-breakpoint
CREATE TYPE "public"."reward_type" AS ENUM('REWARD', 'REFUND');--> statement-breakpoint
CREATE TYPE "public"."last_streak_event" AS ENUM('NONE', 'QUALIFIED', 'RESET', 'REWARDED');--> statement-breakpoint
CREATE TYPE "public"."device_platform" AS ENUM('WEB', 'IOS', 'ANDROID');--> statement-breakpoint
CREATE TYPE "public"."notification_type" AS ENUM('POOL_CREATED', 'REWARD_CLAIMED', 'REFUND_CLAIMED', 'STREAK_REWARD_RECEIVED');--> statement-breakpoint
CREATE TABLE "images" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"user_id" uuid NOT NULL,
	"url" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp (3) with time zone,
	"username" text NOT NULL,
	"has_seen_tour" boolean DEFAULT false NOT NULL,
	"role" "user_role" DEFAULT 'USER' NOT NULL,
	"wallet_address" text NOT NULL,
	"avatar_id" uuid,
	"email" text,
	"twitter_username" text,
	CONSTRAINT "users_username_unique" UNIQUE("username"),
	CONSTRAINT "users_wallet_address_unique" UNIQUE("wallet_address"),
	CONSTRAINT "users_email_unique" UNIQUE("email"),
	CONSTRAINT "users_username_format" CHECK ("users"."username" ~ '^[A-Za-z0-9_]{3,32}$')
);
--> statement-breakpoint
CREATE TABLE "pools" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" uuid NOT NULL,
	"image_id" uuid,
	"streak_id" uuid,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"pool_account" text NOT NULL,
	"resolution_source" text NOT NULL,
	"unit" "pool_unit" DEFAULT 'USD' NOT NULL,
	"min_stake" bigint NOT NULL,
	"max_stake" bigint NOT NULL,
	"max_roi" numeric NOT NULL,
	"stake_token_mint" text NOT NULL,
	"decimals" smallint NOT NULL,
	"min_outcome" numeric NOT NULL,
	"max_outcome" numeric NOT NULL,
	"precision" smallint NOT NULL,
	"step" numeric NOT NULL,
	"prediction_start_date" timestamp (3) with time zone NOT NULL,
	"prediction_end_date" timestamp (3) with time zone NOT NULL,
	"reference_date" timestamp (3) with time zone NOT NULL,
	"status" "pool_status" DEFAULT 'ACTIVE' NOT NULL,
	"is_closed" boolean DEFAULT false NOT NULL,
	"indexed_prediction_update_count" integer DEFAULT 0 NOT NULL,
	"platform_fee_rate" numeric NOT NULL,
	"total_volume" bigint DEFAULT 0 NOT NULL,
	"search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', title || ' ' || description)) STORED NOT NULL,
	CONSTRAINT "pools_pool_account_unique" UNIQUE("pool_account"),
	CONSTRAINT "pools_stake_bounds" CHECK ("pools"."min_stake" > 0 AND "pools"."max_stake" >= "pools"."min_stake"),
	CONSTRAINT "pools_outcome_bounds" CHECK ("pools"."min_outcome" < "pools"."max_outcome"),
	CONSTRAINT "pools_step_positive" CHECK ("pools"."step" > 0),
	CONSTRAINT "pools_decimals_range" CHECK ("pools"."decimals" BETWEEN 0 AND 18),
	CONSTRAINT "pools_precision_range" CHECK ("pools"."precision" BETWEEN 0 AND 18),
	CONSTRAINT "pools_date_order" CHECK ("pools"."prediction_start_date" < "pools"."prediction_end_date" AND "pools"."prediction_end_date" <= "pools"."reference_date"),
	CONSTRAINT "pools_total_volume_nonnegative" CHECK ("pools"."total_volume" >= 0),
	CONSTRAINT "pools_update_count_nonnegative" CHECK ("pools"."indexed_prediction_update_count" >= 0),
	CONSTRAINT "pools_fee_rate_range" CHECK ("pools"."platform_fee_rate" >= 0 AND "pools"."platform_fee_rate" < 1),
	CONSTRAINT "pools_max_roi_positive" CHECK ("pools"."max_roi" > 0)
);
--> statement-breakpoint
CREATE TABLE "predictions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"pool_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"pool_account" text NOT NULL,
	"predictor_account" text NOT NULL,
	"prediction_account" text NOT NULL,
	"prediction" numeric NOT NULL,
	"precision" smallint NOT NULL,
	"stake_token_mint" text NOT NULL,
	"stake" bigint NOT NULL,
	"decimals" smallint NOT NULL,
	"last_applied_value_revision" integer DEFAULT 0 NOT NULL,
	"last_applied_stake_revision" integer DEFAULT 0 NOT NULL,
	"is_fee_payer" boolean DEFAULT true NOT NULL,
	"is_closed" boolean DEFAULT false NOT NULL,
	"bump" smallint NOT NULL,
	"last_sync_at" timestamp (3) with time zone,
	CONSTRAINT "predictions_prediction_account_unique" UNIQUE("prediction_account"),
	CONSTRAINT "predictions_stake_positive" CHECK ("predictions"."stake" > 0),
	CONSTRAINT "predictions_revisions_nonnegative" CHECK ("predictions"."last_applied_value_revision" >= 0 AND "predictions"."last_applied_stake_revision" >= 0),
	CONSTRAINT "predictions_bump_range" CHECK ("predictions"."bump" BETWEEN 0 AND 255)
);
--> statement-breakpoint
CREATE TABLE "resolutions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"pool_id" uuid NOT NULL,
	"result" numeric NOT NULL,
	"decimals" smallint NOT NULL,
	"protocol_fee" bigint NOT NULL,
	"leftover" bigint NOT NULL,
	"median" numeric NOT NULL,
	CONSTRAINT "resolutions_pool_id_unique" UNIQUE("pool_id"),
	CONSTRAINT "resolutions_amounts_nonnegative" CHECK ("resolutions"."protocol_fee" >= 0 AND "resolutions"."leftover" >= 0)
);
--> statement-breakpoint
CREATE TABLE "rewards" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"prediction_id" uuid NOT NULL,
	"decimals" smallint NOT NULL,
	"amount" bigint NOT NULL,
	"precision_score" numeric NOT NULL,
	"is_claimed" boolean DEFAULT false NOT NULL,
	"type" "reward_type" DEFAULT 'REWARD' NOT NULL,
	CONSTRAINT "rewards_prediction_id_unique" UNIQUE("prediction_id"),
	CONSTRAINT "rewards_amount_nonnegative" CHECK ("rewards"."amount" >= 0),
	CONSTRAINT "rewards_precision_score_range" CHECK ("rewards"."precision_score" >= 0 AND "rewards"."precision_score" <= 1)
);
--> statement-breakpoint
CREATE TABLE "streak_rewards" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"streak_id" uuid NOT NULL,
	"user_wallet_address" text NOT NULL,
	"amount" bigint NOT NULL,
	"is_claimed" boolean DEFAULT false NOT NULL,
	CONSTRAINT "streak_rewards_amount_positive" CHECK ("streak_rewards"."amount" > 0)
);
--> statement-breakpoint
CREATE TABLE "streaks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"title" text NOT NULL,
	"streak_accumulator_account" text NOT NULL,
	"fee_percentage" numeric NOT NULL,
	"payout_percentage" numeric NOT NULL,
	"bump" smallint NOT NULL,
	"streak_count_required" integer NOT NULL,
	"min_precision_score_required" numeric NOT NULL,
	"decimals" smallint DEFAULT 6 NOT NULL,
	"total_accumulated" bigint DEFAULT 0 NOT NULL,
	"available_balance" bigint DEFAULT 0 NOT NULL,
	"onchain_balance" bigint DEFAULT 0 NOT NULL,
	"last_sync_at" timestamp (3) with time zone,
	"last_processed_pool_id" uuid,
	CONSTRAINT "streaks_streak_accumulator_account_unique" UNIQUE("streak_accumulator_account"),
	CONSTRAINT "streaks_fee_percentage_range" CHECK ("streaks"."fee_percentage" >= 0 AND "streaks"."fee_percentage" <= 100),
	CONSTRAINT "streaks_payout_percentage_range" CHECK ("streaks"."payout_percentage" > 0 AND "streaks"."payout_percentage" <= 100),
	CONSTRAINT "streaks_count_required_positive" CHECK ("streaks"."streak_count_required" > 0),
	CONSTRAINT "streaks_bump_range" CHECK ("streaks"."bump" BETWEEN 0 AND 255),
	CONSTRAINT "streaks_balances_nonnegative" CHECK ("streaks"."total_accumulated" >= 0 AND "streaks"."available_balance" >= 0 AND "streaks"."onchain_balance" >= 0),
	CONSTRAINT "streaks_available_within_accumulated" CHECK ("streaks"."available_balance" <= "streaks"."total_accumulated")
);
--> statement-breakpoint
CREATE TABLE "user_streaks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"user_id" uuid NOT NULL,
	"streak_id" uuid NOT NULL,
	"current_streak_count" integer DEFAULT 0 NOT NULL,
	"last_streak_event" "last_streak_event" DEFAULT 'NONE' NOT NULL,
	"last_pool_participated_at" timestamp (3) with time zone,
	"current_streak_scores" double precision[] DEFAULT '{}' NOT NULL,
	"last_processed_pool_id" uuid,
	CONSTRAINT "user_streaks_user_streak_key" UNIQUE("user_id","streak_id"),
	CONSTRAINT "user_streaks_count_nonnegative" CHECK ("user_streaks"."current_streak_count" >= 0),
	CONSTRAINT "user_streaks_scores_match_count" CHECK (cardinality("user_streaks"."current_streak_scores") = "user_streaks"."current_streak_count")
);
--> statement-breakpoint
CREATE TABLE "referral_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"code" text NOT NULL,
	"notes" text,
	"user_id" uuid NOT NULL,
	CONSTRAINT "referral_codes_code_unique" UNIQUE("code"),
	CONSTRAINT "referral_codes_code_format" CHECK ("referral_codes"."code" ~ '^[A-Z0-9]{4,32}$')
);
--> statement-breakpoint
CREATE TABLE "referral_redemptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"referral_code_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"applied_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "referral_redemptions_user_id_unique" UNIQUE("user_id")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"key_hash" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "device_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"user_id" uuid NOT NULL,
	"token" text NOT NULL,
	"platform" "device_platform" NOT NULL,
	CONSTRAINT "device_tokens_token_unique" UNIQUE("token")
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"user_id" uuid NOT NULL,
	"title" text NOT NULL,
	"message" text NOT NULL,
	"type" "notification_type" NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"read_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"user_id" uuid NOT NULL,
	"version" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"user_id" uuid NOT NULL,
	"notification_preferences" jsonb NOT NULL,
	CONSTRAINT "settings_user_id_unique" UNIQUE("user_id"),
	CONSTRAINT "settings_preferences_is_object" CHECK (jsonb_typeof("settings"."notification_preferences") = 'object')
);
--> statement-breakpoint
ALTER TABLE "images" ADD CONSTRAINT "images_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_avatar_id_images_id_fk" FOREIGN KEY ("avatar_id") REFERENCES "public"."images"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pools" ADD CONSTRAINT "pools_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pools" ADD CONSTRAINT "pools_image_id_images_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."images"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pools" ADD CONSTRAINT "pools_streak_id_streaks_id_fk" FOREIGN KEY ("streak_id") REFERENCES "public"."streaks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "predictions" ADD CONSTRAINT "predictions_pool_id_pools_id_fk" FOREIGN KEY ("pool_id") REFERENCES "public"."pools"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "predictions" ADD CONSTRAINT "predictions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resolutions" ADD CONSTRAINT "resolutions_pool_id_pools_id_fk" FOREIGN KEY ("pool_id") REFERENCES "public"."pools"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rewards" ADD CONSTRAINT "rewards_prediction_id_predictions_id_fk" FOREIGN KEY ("prediction_id") REFERENCES "public"."predictions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "streak_rewards" ADD CONSTRAINT "streak_rewards_streak_id_streaks_id_fk" FOREIGN KEY ("streak_id") REFERENCES "public"."streaks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "streak_rewards" ADD CONSTRAINT "streak_rewards_user_wallet_address_users_wallet_address_fk" FOREIGN KEY ("user_wallet_address") REFERENCES "public"."users"("wallet_address") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "streaks" ADD CONSTRAINT "streaks_last_processed_pool_id_pools_id_fk" FOREIGN KEY ("last_processed_pool_id") REFERENCES "public"."pools"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_streaks" ADD CONSTRAINT "user_streaks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_streaks" ADD CONSTRAINT "user_streaks_streak_id_streaks_id_fk" FOREIGN KEY ("streak_id") REFERENCES "public"."streaks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_streaks" ADD CONSTRAINT "user_streaks_last_processed_pool_id_pools_id_fk" FOREIGN KEY ("last_processed_pool_id") REFERENCES "public"."pools"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "referral_codes" ADD CONSTRAINT "referral_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "referral_redemptions" ADD CONSTRAINT "referral_redemptions_referral_code_id_referral_codes_id_fk" FOREIGN KEY ("referral_code_id") REFERENCES "public"."referral_codes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "referral_redemptions" ADD CONSTRAINT "referral_redemptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_tokens" ADD CONSTRAINT "device_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "settings" ADD CONSTRAINT "settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "images_user_id_idx" ON "images" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "users_avatar_id_idx" ON "users" USING btree ("avatar_id");--> statement-breakpoint
CREATE INDEX "pools_prediction_end_date_id_idx" ON "pools" USING btree ("prediction_end_date","id");--> statement-breakpoint
CREATE INDEX "pools_created_at_id_idx" ON "pools" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "pools_total_volume_id_idx" ON "pools" USING btree ("total_volume","id");--> statement-breakpoint
CREATE INDEX "pools_streak_id_created_at_id_idx" ON "pools" USING btree ("streak_id","created_at","id");--> statement-breakpoint
CREATE INDEX "pools_created_by_created_at_id_idx" ON "pools" USING btree ("created_by","created_at","id");--> statement-breakpoint
CREATE INDEX "pools_reference_date_idx" ON "pools" USING btree ("reference_date");--> statement-breakpoint
CREATE INDEX "pools_image_id_idx" ON "pools" USING btree ("image_id");--> statement-breakpoint
CREATE INDEX "pools_status_window_idx" ON "pools" USING btree ("status","prediction_start_date","prediction_end_date");--> statement-breakpoint
CREATE INDEX "pools_search_vector_idx" ON "pools" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "predictions_pool_id_created_at_id_idx" ON "predictions" USING btree ("pool_id","created_at","id");--> statement-breakpoint
CREATE INDEX "predictions_user_id_created_at_id_idx" ON "predictions" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "predictions_pool_id_user_id_key" ON "predictions" USING btree ("pool_id","user_id");--> statement-breakpoint
CREATE INDEX "streak_rewards_streak_id_idx" ON "streak_rewards" USING btree ("streak_id","created_at","id");--> statement-breakpoint
CREATE INDEX "streak_rewards_user_streak_idx" ON "streak_rewards" USING btree ("user_wallet_address","streak_id","is_claimed");--> statement-breakpoint
CREATE INDEX "streaks_created_at_id_idx" ON "streaks" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "user_streaks_streak_id_idx" ON "user_streaks" USING btree ("streak_id");--> statement-breakpoint
CREATE INDEX "referral_codes_user_id_idx" ON "referral_codes" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "referral_redemptions_referral_code_id_idx" ON "referral_redemptions" USING btree ("referral_code_id");--> statement-breakpoint
CREATE INDEX "api_keys_user_id_active_idx" ON "api_keys" USING btree ("user_id","is_active");--> statement-breakpoint
CREATE INDEX "device_tokens_user_id_idx" ON "device_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "notifications_user_id_created_at_id_idx" ON "notifications" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "notifications_user_id_unread_idx" ON "notifications" USING btree ("user_id") WHERE "notifications"."read_at" IS NULL;--> statement-breakpoint
CREATE INDEX "refresh_tokens_user_id_idx" ON "refresh_tokens" USING btree ("user_id");