WITH page AS
  (SELECT *
    FROM leaderboard_totals t
    ORDER BY t.payout DESC, t.user_id
    LIMIT 20), head AS
  (SELECT f.payout AS top, f.user_id
    FROM page f
    ORDER BY f.payout DESC, f.user_id
    LIMIT 1) SELECT 0 AS part, NULL::uuid AS user_id, NULL::int AS rank, NULL::int AS position, NULL::text AS payout, NULL::text AS staked, NULL::float8 AS precision, NULL::int AS prediction_count, NULL::int AS decimals, NULL AS "user_json_0",
  (SELECT users
    FROM leaderboard_size) AS total, NULL AS as_of UNION ALL SELECT 1, ranked.user_id AS user_id, ranked.rank::int AS rank, ranked.position::int AS position, ranked.payout::text AS payout, ranked.staked::text AS staked, (ranked.score_sum / ranked.scored_count)::float8 AS precision, ranked.scored_count::int AS prediction_count, ranked.decimals::int AS decimals,
  (SELECT concat('{"id":', '"' || n."id"::text || '"', ',"username":', to_json(n."username")::text, ',"avatar":', coalesce(
    (SELECT concat('{"id":', '"' || t1."id"::text || '"', ',"url":', to_json(t1."url")::text, '}')
      FROM "images" t1
      WHERE t1."id" = n."avatar_id"), 'null'), '}')
    FROM "users" n
    WHERE n."id" = ranked.user_id) AS "user_json_0", NULL, NULL
  FROM
  (SELECT p.*, $1::int + row_number() OVER (ORDER BY p.payout DESC, p.user_id) AS position, CASE WHEN p.payout =
    (SELECT top
      FROM head) THEN $1::int + 1 -
    (SELECT count(*)
      FROM leaderboard_totals o, head h
      WHERE o.payout = h.top AND o.user_id < h.user_id) ELSE $1::int + rank() OVER (ORDER BY p.payout DESC) END AS rank
    FROM page p) ranked
  ORDER BY part, position
