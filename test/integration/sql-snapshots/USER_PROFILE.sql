SELECT
  (SELECT concat('{"id":', '"' || n."id"::text || '"', ',"username":', to_json(n."username")::text, ',"createdAt":', '"' || to_char(n."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', ',"twitterUsername":', coalesce(to_json(n."twitter_username")::text, 'null'), ',"avatar":', coalesce(
    (SELECT concat('{"id":', '"' || t1."id"::text || '"', ',"url":', to_json(t1."url")::text, '}')
      FROM "images" t1
      WHERE t1."id" = n."avatar_id"), 'null'), ',"predictions":', concat('{"totalCount":',
    (SELECT count(*)::int
      FROM "predictions" t2totalCountc
      WHERE t2totalCountc."user_id" = n."id")::text, ',"nodes":',
    (SELECT '[' || coalesce(string_agg(concat('{"id":', '"' || t2n3."id"::text || '"', ',"createdAt":', '"' || to_char(t2n3."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', ',"stake":', replace((((t2n3."stake")::text || 'e-' || (t2n3."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"prediction":', replace((t2n3."prediction"::float8)::text, 'e', E'\x01e'), ',"pool":', coalesce(
      (SELECT concat('{"id":', '"' || t4."id"::text || '"', ',"title":', to_json(t4."title")::text, ',"status":', '"' || t4."status"::text || '"', '}')
        FROM "pools" t4
        WHERE t4."id" = t2n3."pool_id"), 'null'), ',"reward":', coalesce(
      (SELECT concat('{"id":', '"' || t5."id"::text || '"', ',"amount":', replace((((t5."amount")::text || 'e-' || (t5."decimals")::text)::float8)::text, 'e', E'\x01e'), '}')
        FROM "rewards" t5
        WHERE t5."prediction_id" = t2n3."id"), 'null'), '}'), ','
      ORDER BY t2n3."created_at" DESC, t2n3."id" DESC), '') || ']'
      FROM
      (SELECT *
        FROM "predictions" t2n3
        WHERE t2n3."user_id" = n."id"
        ORDER BY t2n3."created_at" DESC, t2n3."id" DESC
        LIMIT 20) t2n3), '}'), ',"pools":', concat('{"totalCount":',
    (SELECT count(*)::int
      FROM "pools" t6totalCountc
      WHERE t6totalCountc."created_by" = n."id")::text, ',"nodes":',
    (SELECT '[' || coalesce(string_agg(concat('{"id":', '"' || t6n7."id"::text || '"', ',"title":', to_json(t6n7."title")::text, ',"totalVolume":', replace((((t6n7."total_volume")::text || 'e-' || (t6n7."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"predictionEndDate":', '"' || to_char(t6n7."prediction_end_date" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', '}'), ','
      ORDER BY t6n7."created_at" DESC, t6n7."id" DESC), '') || ']'
      FROM
      (SELECT *
        FROM "pools" t6n7
        WHERE t6n7."created_by" = n."id"
        ORDER BY t6n7."created_at" DESC, t6n7."id" DESC
        LIMIT 10) t6n7), '}'), '}')
    FROM "users" n
    WHERE n."id" = $1::uuid) AS "0"
