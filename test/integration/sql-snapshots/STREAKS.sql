SELECT concat('{"id":', '"' || s."id"::text || '"', ',"title":', to_json(s."title")::text, ',"pools":', concat('{"nodes":',
  (SELECT '[' || coalesce(string_agg(concat('{"id":', '"' || t1n2."id"::text || '"', ',"title":', to_json(t1n2."title")::text, ',"totalVolume":', replace((((t1n2."total_volume")::text || 'e-' || (t1n2."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"predictions":', concat('{"nodes":',
    (SELECT '[' || coalesce(string_agg(concat('{"id":', '"' || t3n4."id"::text || '"', ',"stake":', replace((((t3n4."stake")::text || 'e-' || (t3n4."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"user":', coalesce(
      (SELECT concat('{"id":', '"' || t5."id"::text || '"', ',"username":', to_json(t5."username")::text, '}')
        FROM "users" t5
        WHERE t5."id" = t3n4."user_id"), 'null'), '}'), ','
      ORDER BY t3n4."created_at" DESC, t3n4."id" DESC), '') || ']'
      FROM
      (SELECT *
        FROM "predictions" t3n4
        WHERE t3n4."pool_id" = t1n2."id"
        ORDER BY t3n4."created_at" DESC, t3n4."id" DESC
        LIMIT 5) t3n4), '}'), '}'), ','
    ORDER BY t1n2."created_at" DESC, t1n2."id" DESC), '') || ']'
    FROM
    (SELECT *
      FROM "pools" t1n2
      WHERE t1n2."streak_id" = s."id"
      ORDER BY t1n2."created_at" DESC, t1n2."id" DESC
      LIMIT 10) t1n2), '}'), '}') AS "$j0"
  FROM "streaks" s
  ORDER BY s."created_at" DESC, s."id" DESC
  LIMIT 11
