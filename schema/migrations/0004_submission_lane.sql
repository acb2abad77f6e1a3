ALTER TABLE "chain_submissions" ADD COLUMN "lane" text;--> statement-breakpoint
ALTER TABLE "chain_submissions" ADD CONSTRAINT "chain_submissions_lane_unique" UNIQUE("lane");