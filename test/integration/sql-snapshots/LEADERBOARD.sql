WITH board AS
  (SELECT user_id, payout, staked, score_sum, scored_count, decimals
    FROM leaderboard_totals), ranked AS
  (SELECT user_id, payout::text AS payout, staked::text AS staked, (score_sum / scored_count)::float8 AS precision, scored_count::int AS prediction_count, decimals::int AS decimals, rank() OVER (ORDER BY payout DESC)::int AS rank, row_number() OVER (ORDER BY payout DESC, user_id)::int AS position, count(*) OVER ()::int AS total
    FROM board) SELECT *,
  (SELECT concat('{"id":', '"' || n."id"::text || '"', ',"username":', to_json(n."username")::text, ',"avatar":', coalesce(
    (SELECT concat('{"id":', '"' || t1."id"::text || '"', ',"url":', to_json(t1."url")::text, '}')
      FROM "images" t1
      WHERE t1."id" = n."avatar_id"), 'null'), '}')
    FROM "users" n
    WHERE n."id" = ranked.user_id) AS "user_json_0"
  FROM ranked
  WHERE (position > $1::int AND position <= $2::int)
  ORDER BY position
