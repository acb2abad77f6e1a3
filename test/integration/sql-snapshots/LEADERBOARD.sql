WITH page AS
  (SELECT *, t.payout::text AS metric
    FROM leaderboard_totals t
    ORDER BY t.payout DESC, t.user_id
    LIMIT 20) SELECT 0 AS part, 0 AS ordinal, NULL::uuid AS user_id, NULL AS payout, NULL AS staked, NULL::float8 AS precision, NULL::int AS prediction_count, NULL::int AS decimals, NULL AS metric,
  (SELECT users
    FROM leaderboard_size) AS total, 1 +
  (SELECT count(*)
    FROM leaderboard_totals o
    WHERE o.payout >
    (SELECT p.payout
      FROM page p
      ORDER BY p.payout DESC
      LIMIT 1))::int AS rank, NULL::int AS ties_above, NULL AS "user_json_0" UNION ALL SELECT 1, row_number() OVER (ORDER BY ranked.payout DESC, ranked.user_id)::int, ranked.user_id, ranked.payout::text AS payout, ranked.staked::text AS staked, (ranked.score_sum / ranked.scored_count)::float8 AS precision, ranked.scored_count::int AS prediction_count, ranked.decimals::int AS decimals, ranked.metric, NULL, NULL, NULL,
  (SELECT concat('{"id":', '"' || n."id"::text || '"', ',"username":', to_json(n."username")::text, ',"avatar":', coalesce(
    (SELECT concat('{"id":', '"' || t1."id"::text || '"', ',"url":', to_json(t1."url")::text, '}')
      FROM "images" t1
      WHERE t1."id" = n."avatar_id"), 'null'), '}')
    FROM "users" n
    WHERE n."id" = ranked.user_id) AS "user_json_0"
  FROM page ranked
  ORDER BY part, ordinal
