SELECT
  (SELECT concat('{"id":', '"' || n."id"::text || '"', ',"username":', to_json(n."username")::text, ',"predictions":', concat('{"totalCount":',
    (SELECT count(*)::int
      FROM "predictions" t1totalCountc
      WHERE t1totalCountc."user_id" = n."id" AND EXISTS
      (SELECT 1
        FROM "pools" p
        WHERE p."id" = t1totalCountc."pool_id" AND EXISTS
        (SELECT 1
          FROM "resolutions" r
          WHERE r."pool_id" = p."id")))::text, ',"nodes":',
    (SELECT '[' || coalesce(string_agg(concat('{"id":', '"' || t1n2."id"::text || '"', ',"stake":', replace((((t1n2."stake")::text || 'e-' || (t1n2."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"prediction":', replace((t1n2."prediction"::float8)::text, 'e', E'\x01e'), ',"pool":', coalesce(
      (SELECT concat('{"id":', '"' || t3."id"::text || '"', ',"title":', to_json(t3."title")::text, '}')
        FROM "pools" t3
        WHERE t3."id" = t1n2."pool_id"), 'null'), ',"reward":', coalesce(
      (SELECT concat('{"id":', '"' || t4."id"::text || '"', ',"amount":', replace((((t4."amount")::text || 'e-' || (t4."decimals")::text)::float8)::text, 'e', E'\x01e'), '}')
        FROM "rewards" t4
        WHERE t4."prediction_id" = t1n2."id"), 'null'), '}'), ','
      ORDER BY t1n2."stake" DESC, t1n2."id" DESC), '') || ']'
      FROM
      (SELECT *
        FROM "predictions" t1n2
        WHERE t1n2."user_id" = n."id" AND EXISTS
        (SELECT 1
          FROM "pools" p
          WHERE p."id" = t1n2."pool_id" AND EXISTS
          (SELECT 1
            FROM "resolutions" r
            WHERE r."pool_id" = p."id"))
        ORDER BY t1n2."stake" DESC, t1n2."id" DESC
        LIMIT 20) t1n2), '}'), '}')
    FROM "users" n
    WHERE n."id" = $1::uuid) AS "0"
