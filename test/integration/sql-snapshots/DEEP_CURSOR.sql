SELECT
  (SELECT concat('{"id":', '"' || n."id"::text || '"', ',"title":', to_json(n."title")::text, ',"predictions":', concat('{"nodes":',
    (SELECT '[' || coalesce(string_agg(concat('{"id":', '"' || t1n2."id"::text || '"', ',"createdAt":', '"' || to_char(t1n2."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', ',"stake":', replace((((t1n2."stake")::text || 'e-' || (t1n2."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"prediction":', replace((t1n2."prediction"::float8)::text, 'e', E'\x01e'), ',"user":', coalesce(
      (SELECT concat('{"id":', '"' || t3."id"::text || '"', ',"username":', to_json(t3."username")::text, '}')
        FROM "users" t3
        WHERE t3."id" = t1n2."user_id"), 'null'), ',"reward":', coalesce(
      (SELECT concat('{"id":', '"' || t4."id"::text || '"', ',"amount":', replace((((t4."amount")::text || 'e-' || (t4."decimals")::text)::float8)::text, 'e', E'\x01e'), '}')
        FROM "rewards" t4
        WHERE t4."prediction_id" = t1n2."id"), 'null'), '}'), ','
      ORDER BY t1n2."created_at" DESC, t1n2."id" DESC), '') || ']'
      FROM
      (SELECT *
        FROM "predictions" t1n2
        WHERE t1n2."pool_id" = n."id" AND (t1n2."created_at", t1n2."id") < ($2::timestamptz, $3::uuid)
        ORDER BY t1n2."created_at" DESC, t1n2."id" DESC
        LIMIT 20) t1n2), '}'), '}')
    FROM "pools" n
    WHERE n."id" = $1::uuid) AS "0"
