SELECT
  (SELECT concat('{"id":', '"' || n."id"::text || '"', ',"title":', to_json(n."title")::text, ',"description":', to_json(n."description")::text, ',"status":', '"' || n."status"::text || '"', ',"predictionEndDate":', '"' || to_char(n."prediction_end_date" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', ',"minOutcome":', replace((n."min_outcome"::float8)::text, 'e', E'\x01e'), ',"maxOutcome":', replace((n."max_outcome"::float8)::text, 'e', E'\x01e'), ',"totalVolume":', replace((((n."total_volume")::text || 'e-' || (n."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"user":', coalesce(
    (SELECT concat('{"id":', '"' || t1."id"::text || '"', ',"username":', to_json(t1."username")::text, '}')
      FROM "users" t1
      WHERE t1."id" = n."created_by"), 'null'), ',"image":', coalesce(
    (SELECT concat('{"id":', '"' || t2."id"::text || '"', ',"url":', to_json(t2."url")::text, '}')
      FROM "images" t2
      WHERE t2."id" = n."image_id"), 'null'), ',"streak":', coalesce(
    (SELECT concat('{"id":', '"' || t3."id"::text || '"', ',"title":', to_json(t3."title")::text, '}')
      FROM "streaks" t3
      WHERE t3."id" = n."streak_id"), 'null'), ',"resolution":', coalesce(
    (SELECT concat('{"id":', '"' || t4."id"::text || '"', ',"result":', replace((t4."result"::float8)::text, 'e', E'\x01e'), '}')
      FROM "resolutions" t4
      WHERE t4."pool_id" = n."id"), 'null'), ',"predictions":', concat('{"totalCount":',
    (SELECT count(*)::int
      FROM "predictions" t5totalCountc
      WHERE t5totalCountc."pool_id" = n."id")::text, ',"nodes":',
    (SELECT '[' || coalesce(string_agg(concat('{"id":', '"' || t5n6."id"::text || '"', ',"createdAt":', '"' || to_char(t5n6."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', ',"stake":', replace((((t5n6."stake")::text || 'e-' || (t5n6."decimals")::text)::float8)::text, 'e', E'\x01e'), ',"prediction":', replace((t5n6."prediction"::float8)::text, 'e', E'\x01e'), ',"user":', coalesce(
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
        WHERE t5n6."pool_id" = n."id"
        ORDER BY t5n6."created_at" DESC, t5n6."id" DESC
        LIMIT 20) t5n6), '}'), ',"statistics":',
    (SELECT concat('{"predictionCount":', s.n::text, ',"totalStake":', replace((((s.stake)::text || 'e-' || (n.decimals)::text)::float8)::text, 'e', E'\x01e'), ',"stakeWeightedMedian":', coalesce(replace((
      (SELECT x.prediction::float8
        FROM
        (SELECT q.prediction, sum(q.stake) OVER (ORDER BY q.prediction ROWS UNBOUNDED PRECEDING) AS below
          FROM predictions q
          WHERE q.pool_id = n.id) x
        WHERE 2 * x.below >=
        (SELECT sum(stake)
          FROM predictions s
          WHERE s.pool_id = n.id)
        ORDER BY x.prediction
        LIMIT 1))::text, 'e', E'\x01e'), 'null'), ',"buckets":',
      (SELECT '[' || string_agg(concat('{"from":', replace((n.min_outcome::float8 + ((n.max_outcome::float8 - n.min_outcome::float8) / 10) * (g.i - 1))::text, 'e', E'\x01e'), ',"to":', replace((CASE WHEN g.i = 10 THEN n.max_outcome::float8 ELSE n.min_outcome::float8 + ((n.max_outcome::float8 - n.min_outcome::float8) / 10) * g.i END)::text, 'e', E'\x01e'), ',"count":', coalesce(h.n, 0)::text, ',"stake":', replace((((coalesce(h.stake, 0))::text || 'e-' || (n.decimals)::text)::float8)::text, 'e', E'\x01e'), '}'), ','
        ORDER BY g.i) || ']'
        FROM generate_series(1, 10) g(i) LEFT JOIN
        (SELECT least(width_bucket(q.prediction, n.min_outcome, n.max_outcome, 10), 10) AS b, count(*)::int AS n, sum(q.stake) AS stake
          FROM predictions q
          WHERE q.pool_id = n.id GROUP BY 1) h ON h.b = g.i), '}')
      FROM
      (SELECT count(*)::int AS n, coalesce(sum(q.stake), 0) AS stake
        FROM predictions q
        WHERE q.pool_id = n.id) s), '}')
    FROM "pools" n
    WHERE n."id" = $1::uuid) AS "0"
