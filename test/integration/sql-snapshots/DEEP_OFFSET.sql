SELECT concat('{"id":', '"' || p."id"::text || '"', ',"title":', to_json(p."title")::text, ',"totalVolume":', replace((((p."total_volume")::text || 'e-' || (p."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"user":', coalesce(
  (SELECT concat('{"id":', '"' || t1."id"::text || '"', ',"username":', to_json(t1."username")::text, '}')
    FROM "users" t1
    WHERE t1."id" = p."created_by"), 'null'), ',"image":', coalesce(
  (SELECT concat('{"id":', '"' || t2."id"::text || '"', ',"url":', to_json(t2."url")::text, '}')
    FROM "images" t2
    WHERE t2."id" = p."image_id"), 'null'), ',"streak":', coalesce(
  (SELECT concat('{"id":', '"' || t3."id"::text || '"', ',"title":', to_json(t3."title")::text, '}')
    FROM "streaks" t3
    WHERE t3."id" = p."streak_id"), 'null'), ',"resolution":', coalesce(
  (SELECT concat('{"id":', '"' || t4."id"::text || '"', ',"result":', replace((t4."result"::float8)::text, 'e', E'\x01e'), '}')
    FROM "resolutions" t4
    WHERE t4."pool_id" = p."id"), 'null'), ',"predictions":', concat('{"nodes":',
  (SELECT '[' || coalesce(string_agg(concat('{"id":', '"' || t5n6."id"::text || '"', ',"stake":', replace((((t5n6."stake")::text || 'e-' || (t5n6."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"prediction":', replace((t5n6."prediction"::float8)::text, 'e', E'\x01e'), ',"user":', coalesce(
    (SELECT concat('{"id":', '"' || t7."id"::text || '"', ',"username":', to_json(t7."username")::text, '}')
      FROM "users" t7
      WHERE t7."id" = t5n6."user_id"), 'null'), ',"reward":', coalesce(
    (SELECT concat('{"id":', '"' || t8."id"::text || '"', ',"amount":', replace((((t8."amount")::text || 'e-' || (t8."decimals")::text)::float8)::text, 'e', E'\x01e'), '}')
      FROM "rewards" t8
      WHERE t8."prediction_id" = t5n6."id"), 'null'), '}'), ','
    ORDER BY t5n6."created_at" DESC, t5n6."id" DESC), '') || ']'
    FROM
    (SELECT *
      FROM "predictions" t5n6
      WHERE t5n6."pool_id" = p."id"
      ORDER BY t5n6."created_at" DESC, t5n6."id" DESC
      LIMIT 10) t5n6), '}'), '}') AS "$j0"
  FROM "pools" p
  WHERE p."id" = ANY (ARRAY
  (SELECT p."id"
    FROM "pools" p
    ORDER BY p."created_at" DESC, p."id" DESC
    LIMIT 21 OFFSET $1::int))
  ORDER BY p."created_at" DESC, p."id" DESC
