SELECT q.*, to_json(g)::text AS "$check"
  FROM
  (SELECT 1) one LEFT JOIN LATERAL
  (SELECT t."user_id" AS "userId", t."revoked_at" IS NOT NULL AS "revoked", u."role"::text AS "role"
    FROM "refresh_tokens" t JOIN "users" u ON u."id" = t."user_id"
    WHERE t."id" = $3::uuid) g ON true LEFT JOIN LATERAL
  (SELECT o.*, true AS "$row"
    FROM
    (SELECT
      (SELECT concat('{"id":', '"' || n."id"::text || '"', ',"username":', to_json(n."username")::text, ',"portfolio":',
        (SELECT concat('{"activeCount":', s.active_n::text, ',"activeStake":', replace((((s.active_stake)::text || 'e-' || (coalesce(s.decimals, 0))::text)::float8)::text, 'e', E'\x01e'), ',"totalStaked":', replace((((s.active_stake + s.resolved_stake)::text || 'e-' || (coalesce(s.decimals, 0))::text)::float8)::text, 'e', E'\x01e'), ',"resolvedCount":', s.resolved_n::text, ',"resolvedStake":', replace((((s.resolved_stake)::text || 'e-' || (coalesce(s.decimals, 0))::text)::float8)::text, 'e', E'\x01e'), ',"totalPayout":', replace((((s.paid)::text || 'e-' || (coalesce(s.decimals, 0))::text)::float8)::text, 'e', E'\x01e'), ',"realizedPnl":', replace((((s.paid - s.resolved_stake)::text || 'e-' || (coalesce(s.decimals, 0))::text)::float8)::text, 'e', E'\x01e'), '}')
          FROM
          (SELECT count(*) FILTER (WHERE res.id IS NULL)::int AS active_n, coalesce(sum(q.stake) FILTER (WHERE res.id IS NULL), 0) AS active_stake, count(*) FILTER (WHERE res.id IS NOT NULL)::int AS resolved_n, coalesce(sum(q.stake) FILTER (WHERE res.id IS NOT NULL), 0) AS resolved_stake, coalesce(sum(r.amount) FILTER (WHERE res.id IS NOT NULL), 0) AS paid, max(q.decimals)::int AS decimals
            FROM predictions q LEFT JOIN resolutions res ON res.pool_id = q.pool_id LEFT JOIN rewards r ON r.prediction_id = q.id
            WHERE q.user_id = n."id") s), ',"notifications":', concat('{"nodes":',
        (SELECT '[' || coalesce(string_agg(concat('{"id":', '"' || t1n2."id"::text || '"', ',"createdAt":', '"' || to_char(t1n2."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', ',"type":', '"' || t1n2."type"::text || '"', ',"title":', to_json(t1n2."title")::text, ',"message":', to_json(t1n2."message")::text, ',"readAt":', coalesce('"' || to_char(t1n2."read_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null'), '}'), ','
          ORDER BY t1n2."created_at" DESC, t1n2."id" DESC), '') || ']'
          FROM
          (SELECT *
            FROM "notifications" t1n2
            WHERE t1n2."user_id" = n."id"
            ORDER BY t1n2."created_at" DESC, t1n2."id" DESC
            LIMIT 10) t1n2), '}'), ',"predictions":', concat('{"nodes":',
        (SELECT '[' || coalesce(string_agg(concat('{"id":', '"' || t3n4."id"::text || '"', ',"stake":', replace((((t3n4."stake")::text || 'e-' || (t3n4."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"prediction":', replace((t3n4."prediction"::float8)::text, 'e', E'\x01e'), ',"pool":', coalesce(
          (SELECT concat('{"id":', '"' || t5."id"::text || '"', ',"title":', to_json(t5."title")::text, '}')
            FROM "pools" t5
            WHERE t5."id" = t3n4."pool_id"), 'null'), ',"reward":', coalesce(
          (SELECT concat('{"id":', '"' || t6."id"::text || '"', ',"amount":', replace((((t6."amount")::text || 'e-' || (t6."decimals")::text)::float8)::text, 'e', E'\x01e'), '}')
            FROM "rewards" t6
            WHERE t6."prediction_id" = t3n4."id"), 'null'), '}'), ','
          ORDER BY t3n4."created_at" DESC, t3n4."id" DESC), '') || ']'
          FROM
          (SELECT *
            FROM "predictions" t3n4
            WHERE t3n4."user_id" = n."id"
            ORDER BY t3n4."created_at" DESC, t3n4."id" DESC
            LIMIT 10) t3n4), '}'), '}')
        FROM "users" n
        WHERE n."id" = $1::uuid) AS "0",
      (SELECT count(*)
        FROM "notifications" c
        WHERE c."user_id" = $2::uuid AND c."read_at" IS NULL)::text AS "1") o
    WHERE g."userId" = $4::uuid AND g."role" = $5::text AND NOT g."revoked") q ON true
