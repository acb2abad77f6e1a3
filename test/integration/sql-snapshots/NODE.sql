SELECT
  (SELECT 'Pool' || concat('{"__typename":', '"Pool"', ',"id":', '"' || n."id"::text || '"', ',"title":', to_json(n."title")::text, ',"status":', '"' || n."status"::text || '"', ',"totalVolume":', replace((((n."total_volume")::text || 'e-' || (n."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"predictionEndDate":', '"' || to_char(n."prediction_end_date" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', ',"user":', coalesce(
    (SELECT concat('{"id":', '"' || t1."id"::text || '"', ',"username":', to_json(t1."username")::text, '}')
      FROM "users" t1
      WHERE t1."id" = n."created_by"), 'null'), ',"image":', coalesce(
    (SELECT concat('{"id":', '"' || t2."id"::text || '"', ',"url":', to_json(t2."url")::text, '}')
      FROM "images" t2
      WHERE t2."id" = n."image_id"), 'null'), ',"resolution":', coalesce(
    (SELECT concat('{"id":', '"' || t3."id"::text || '"', ',"result":', replace((t3."result"::float8)::text, 'e', E'\x01e'), '}')
      FROM "resolutions" t3
      WHERE t3."pool_id" = n."id"), 'null'), '}')
    FROM "pools" n
    WHERE n."id" = $1::uuid) AS "0"
