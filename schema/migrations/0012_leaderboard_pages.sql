CREATE TABLE "leaderboard_size" (
	"users" integer NOT NULL
);
--> statement-breakpoint
DROP INDEX "leaderboard_totals_payout_idx";--> statement-breakpoint
CREATE INDEX "leaderboard_totals_precision_idx" ON "leaderboard_totals" USING btree (("score_sum" / "scored_count") DESC,"user_id");--> statement-breakpoint
CREATE INDEX "leaderboard_totals_payout_idx" ON "leaderboard_totals" USING btree ("payout" DESC NULLS FIRST,"user_id");--> statement-breakpoint
-- The board's size, kept by statement-level triggers on leaderboard_totals (every way a row comes or goes: resolution's upsert, the seed's rebuild, a user deleted), so a page never counts the board.
INSERT INTO "leaderboard_size" ("users") SELECT count(*) FROM "leaderboard_totals";--> statement-breakpoint
CREATE FUNCTION "leaderboard_size_follows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "leaderboard_size" SET "users" = "users" + (SELECT count(*) FROM "added");
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE "leaderboard_size" SET "users" = "users" - (SELECT count(*) FROM "removed");
  ELSE
    UPDATE "leaderboard_size" SET "users" = 0;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "leaderboard_size_on_insert" AFTER INSERT ON "leaderboard_totals" REFERENCING NEW TABLE AS "added" FOR EACH STATEMENT EXECUTE FUNCTION "leaderboard_size_follows"();--> statement-breakpoint
CREATE TRIGGER "leaderboard_size_on_delete" AFTER DELETE ON "leaderboard_totals" REFERENCING OLD TABLE AS "removed" FOR EACH STATEMENT EXECUTE FUNCTION "leaderboard_size_follows"();--> statement-breakpoint
CREATE TRIGGER "leaderboard_size_on_truncate" AFTER TRUNCATE ON "leaderboard_totals" FOR EACH STATEMENT EXECUTE FUNCTION "leaderboard_size_follows"();
