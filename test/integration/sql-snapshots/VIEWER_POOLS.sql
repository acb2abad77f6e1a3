SELECT q.*, to_json(g)::text AS "$check"
  FROM
  (SELECT 1) one LEFT JOIN LATERAL
  (SELECT t."user_id" AS "userId", t."revoked_at" IS NOT NULL AS "revoked", u."role"::text AS "role"
    FROM "refresh_tokens" t JOIN "users" u ON u."id" = t."user_id"
    WHERE t."id" = $2::uuid) g ON true LEFT JOIN LATERAL
  (SELECT o.*, true AS "$row"
    FROM
    (SELECT count(*)::int AS "$rows", string_agg(r."$j0", E'\x1e') AS "$j0"
      FROM
      (SELECT concat('{"id":', '"' || p."id"::text || '"', ',"title":', to_json(p."title")::text, ',"totalVolume":', replace((((p."total_volume")::text || 'e-' || (p."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"user":', coalesce(
        (SELECT concat('{"id":', '"' || t1."id"::text || '"', ',"username":', to_json(t1."username")::text, '}')
          FROM "users" t1
          WHERE t1."id" = p."created_by"), 'null'), ',"viewerPrediction":', coalesce(
        (SELECT concat('{"id":', '"' || t2."id"::text || '"', ',"stake":', replace((((t2."stake")::text || 'e-' || (t2."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"prediction":', replace((t2."prediction"::float8)::text, 'e', E'\x01e'), '}')
          FROM "predictions" t2
          WHERE t2."pool_id" = p."id" AND t2."user_id" = $1::uuid), 'null'), '}') AS "$j0"
        FROM "pools" p
        ORDER BY p."total_volume" DESC, p."id" DESC
        LIMIT 21) r) o
    WHERE g."userId" = $3::uuid AND g."role" = $4::text AND NOT g."revoked") q ON true
