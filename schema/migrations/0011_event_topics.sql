CREATE TABLE "event_topics" (
	"topic" text NOT NULL,
	"seq" bigint NOT NULL,
	CONSTRAINT "event_topics_topic_seq_pk" PRIMARY KEY("topic","seq")
);
--> statement-breakpoint
CREATE INDEX "event_topics_seq_idx" ON "event_topics" USING btree ("seq");--> statement-breakpoint
-- The rows already retained get their topics (event-hub.ts topicsOf), so a resume across the upgrade misses none.
INSERT INTO "event_topics" ("topic", "seq")
SELECT DISTINCT t.topic, o.seq
FROM "event_outbox" o, LATERAL (SELECT o.payload::jsonb AS e) p, LATERAL (
  SELECT 'user:' || (pair->>0) AS topic FROM jsonb_array_elements(CASE WHEN p.e->>'type' = 'notificationsCreated' THEN p.e->'notifications' ELSE '[]'::jsonb END) pair
  UNION ALL
  SELECT CASE p.e->>'type'
    WHEN 'poolCreatedNotifications' THEN 'allUsers'
    WHEN 'notificationsRead' THEN 'user:' || (p.e->>'userId')
    WHEN 'poolCreated' THEN 'poolCreated'
    WHEN 'poolUpdated' THEN 'pool:' || (p.e->>'poolId')
    WHEN 'transactionStatus' THEN 'tx:' || (p.e->>'signature')
    WHEN 'sessionRevoked' THEN 'session:' || (p.e->>'sessionId')
    WHEN 'apiKeyRevoked' THEN 'apiKey:' || (p.e->>'apiKeyId')
  END
) t
WHERE o.payload LIKE '{%' AND t.topic IS NOT NULL;
