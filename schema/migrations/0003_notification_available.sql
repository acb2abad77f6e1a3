ALTER TYPE "public"."notification_type" ADD VALUE 'REWARD_AVAILABLE';--> statement-breakpoint
ALTER TYPE "public"."notification_type" ADD VALUE 'REFUND_AVAILABLE';--> statement-breakpoint
ALTER TYPE "public"."notification_type" ADD VALUE 'STREAK_REWARD_AVAILABLE';