CREATE TABLE "leaderboard_window_totals" (
	"period" text NOT NULL,
	"user_id" uuid NOT NULL,
	"payout" bigint DEFAULT 0 NOT NULL,
	"staked" bigint DEFAULT 0 NOT NULL,
	"score_sum" numeric DEFAULT '0' NOT NULL,
	"scored_count" integer DEFAULT 0 NOT NULL,
	"decimals" smallint NOT NULL,
	CONSTRAINT "leaderboard_window_totals_period_user_id_pk" PRIMARY KEY("period","user_id"),
	CONSTRAINT "leaderboard_window_totals_count_positive" CHECK ("leaderboard_window_totals"."scored_count" > 0)
);
--> statement-breakpoint
CREATE TABLE "leaderboard_windows" (
	"period" text PRIMARY KEY NOT NULL,
	"days" integer NOT NULL,
	"as_of" date,
	"users" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "leaderboard_window_totals" ADD CONSTRAINT "leaderboard_window_totals_period_leaderboard_windows_period_fk" FOREIGN KEY ("period") REFERENCES "public"."leaderboard_windows"("period") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leaderboard_window_totals" ADD CONSTRAINT "leaderboard_window_totals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "leaderboard_window_totals_payout_idx" ON "leaderboard_window_totals" USING btree ("period","payout" DESC NULLS FIRST,"user_id");--> statement-breakpoint
CREATE INDEX "leaderboard_window_totals_precision_idx" ON "leaderboard_window_totals" USING btree ("period",("score_sum" / "scored_count") DESC,"user_id");--> statement-breakpoint
-- The windows and the days each covers; their totals are built at each one's first read (as_of null until then).
INSERT INTO "leaderboard_windows" ("period", "days") VALUES ('DAY', 1), ('WEEK', 7), ('MONTH', 30);--> statement-breakpoint
-- Each window's size, kept by statement-level triggers on leaderboard_window_totals (resolution's upsert, a window's rebuild, a user deleted), so a page never counts its window.
CREATE FUNCTION "leaderboard_window_size_follows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "leaderboard_windows" w SET "users" = w."users" + a."users"
    FROM (SELECT "period", count(*) AS "users" FROM "added" GROUP BY 1) a WHERE w."period" = a."period";
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE "leaderboard_windows" w SET "users" = w."users" - r."users"
    FROM (SELECT "period", count(*) AS "users" FROM "removed" GROUP BY 1) r WHERE w."period" = r."period";
  ELSE
    UPDATE "leaderboard_windows" SET "users" = 0;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "leaderboard_window_size_on_insert" AFTER INSERT ON "leaderboard_window_totals" REFERENCING NEW TABLE AS "added" FOR EACH STATEMENT EXECUTE FUNCTION "leaderboard_window_size_follows"();--> statement-breakpoint
CREATE TRIGGER "leaderboard_window_size_on_delete" AFTER DELETE ON "leaderboard_window_totals" REFERENCING OLD TABLE AS "removed" FOR EACH STATEMENT EXECUTE FUNCTION "leaderboard_window_size_follows"();--> statement-breakpoint
CREATE TRIGGER "leaderboard_window_size_on_truncate" AFTER TRUNCATE ON "leaderboard_window_totals" FOR EACH STATEMENT EXECUTE FUNCTION "leaderboard_window_size_follows"();
