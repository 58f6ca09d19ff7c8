-- Every chart row of `threefold report`, counted again from the dataset: one row per chart,
-- group (`grp`, NULL without `--by`), label and part (a stacked chart's series), with the
-- numerator `n`, the denominator `d`, the unit and, for scores, the average. A claim by a
-- declared move existed only where the side to move claimed; the missed-claim figures leave out
-- the claims of games whose program drew a threefold itself (x), except those by venue (x0).
WITH x0 AS (
    SELECT g.*,
           (GROUP_EXPR)::VARCHAR AS grp,
           coalesce(g.time_class, 'unknown') AS tc,
           g.venue || ' ' || CASE WHEN WhiteElo IS NOT NULL AND BlackElo IS NOT NULL
                THEN format('{}-{}', (floor(least(WhiteElo, BlackElo) / 200) * 200)::INTEGER,
                            (floor(least(WhiteElo, BlackElo) / 200) * 200)::INTEGER + 199)
                ELSE 'unknown' END AS band,
           coalesce(UTCDate, CASE WHEN regexp_full_match(Date, '[0-9]{4}\.[0-9]{2}\.[0-9]{2}')
                                  THEN try_strptime(Date, '%Y.%m.%d')::DATE END) AS game_date,
           coalesce(ev.castling, false) AS castling,
           coalesce(ev.ep, false) AS ep,
           coalesce(ev.hidden, false) AS hidden,
           coalesce(o.on_board, 0) + CASE WHEN g.claimant <> 'side_to_move' THEN 0
                                          ELSE coalesce(o.by_move_only, 0) END AS opps,
           coalesce(o.on_board, 0) AS opps_on_board,
           CASE WHEN g.claimant <> 'side_to_move' THEN 0 ELSE coalesce(o.by_move_only, 0) END AS opps_by_move_only,
           CASE WHEN first_missed_claim_eval_mate < 0 THEN 'clearly worse'
                WHEN first_missed_claim_eval_mate > 0 THEN 'clearly better'
                WHEN first_missed_claim_eval_mate = 0 THEN 'about equal'
                WHEN first_missed_claim_eval_cp < -100 THEN 'clearly worse'
                WHEN first_missed_claim_eval_cp > 100 THEN 'clearly better'
                WHEN first_missed_claim_eval_cp IS NOT NULL THEN 'about equal'
                ELSE 'no evaluation' END AS eval_band,
           CASE WHEN first_claim_clock_ms < 10000 THEN '< 10 s' WHEN first_claim_clock_ms < 30000 THEN '10-30 s'
                WHEN first_claim_clock_ms < 60000 THEN '30-60 s' WHEN first_claim_clock_ms < 180000 THEN '1-3 min'
                ELSE '>= 3 min' END AS clock_band
    FROM games g
    LEFT JOIN (
        SELECT source, frame_offset, byte_offset,
               bool_or(kind = 'pseudo_repetition' AND differs IN ('castling', 'both')) AS castling,
               bool_or(kind = 'pseudo_repetition' AND differs IN ('en_passant', 'both')) AS ep,
               bool_or(kind = 'hidden_repetition') AS hidden
        FROM events GROUP BY ALL
    ) ev USING (source, frame_offset, byte_offset)
    LEFT JOIN (
        SELECT source, frame_offset, byte_offset, count(*) AS opportunities,
               count(*) FILTER (on_board) AS on_board, count(*) FILTER (NOT on_board) AS by_move_only
        FROM (SELECT source, frame_offset, byte_offset, ply, bool_or(kind = 'repetition') AS on_board
              FROM events WHERE (kind = 'repetition' AND claimable) OR kind = 'claim_by_move' GROUP BY ALL)
        GROUP BY ALL
    ) o USING (source, frame_offset, byte_offset)
    WHERE g.status <> 'skipped' AND (g.status = 'error' OR g.plies > 0)
),
x AS (
    SELECT * REPLACE (
        CASE WHEN program THEN 0 ELSE claim_opportunities END AS claim_opportunities,
        CASE WHEN program THEN 0 ELSE missed_claims END AS missed_claims,
        CASE WHEN program THEN 0 ELSE passed_over_claims END AS passed_over_claims,
        CASE WHEN program THEN 0 ELSE claim_opportunities_on_board END AS claim_opportunities_on_board,
        CASE WHEN program THEN 0 ELSE missed_claims_on_board END AS missed_claims_on_board,
        CASE WHEN program THEN 0 ELSE opps END AS opps,
        CASE WHEN program THEN 0 ELSE opps_on_board END AS opps_on_board,
        CASE WHEN program THEN 0 ELSE opps_by_move_only END AS opps_by_move_only,
        CASE WHEN program THEN NULL ELSE claimant_score_after_first_missed END AS claimant_score_after_first_missed,
        CASE WHEN program THEN NULL ELSE first_claim_ply END AS first_claim_ply,
        CASE WHEN program THEN NULL ELSE first_missed_claim_ply END AS first_missed_claim_ply,
        CASE WHEN program THEN NULL ELSE first_claim_clock_ms END AS first_claim_clock_ms)
    FROM (SELECT *, claimant = 'program' AS program FROM x0)
),
sets AS (SELECT DISTINCT grp FROM x),
t AS (
    SELECT grp,
           count(*) AS games,
           count(*) FILTER (max_occurrence >= 3) AS threefold,
           count(*) FILTER (max_occurrence >= 5) AS fivefold,
           count(*) FILTER (claim_opportunities > 0) AS with_claim,
           count(*) FILTER (missed_claims > 0) AS missed,
           sum(opps)::BIGINT AS opportunities,
           sum(opps_on_board)::BIGINT AS on_board,
           sum(opps_by_move_only)::BIGINT AS by_move_only,
           count(*) FILTER (opps_by_move_only > 0 AND opps_on_board = 0) AS only_by_move,
           count(claimant_score_after_first_missed) AS scored,
           avg(claimant_score_after_first_missed) AS score,
           count(*) FILTER (claimant_score_after_first_missed = 1) AS wins,
           count(*) FILTER (claimant_score_after_first_missed = 0.5) AS draws,
           count(*) FILTER (claimant_score_after_first_missed = 0) AS losses,
           count(draw_reason) AS drawn,
           count(*) FILTER (castling) AS castling,
           count(*) FILTER (ep) AS ep,
           count(*) FILTER (hidden) AS hidden,
           count(*) FILTER (plies_after_automatic_fivefold > 0) AS after_fivefold,
           count(*) FILTER (plies_after_automatic_75_moves > 0) AS after_75,
           count(*) FILTER (has_clocks) AS with_clocks,
           count(*) FILTER (has_clocks AND first_claim_clock_ms < 10000) AS quick,
           count(*) FILTER (has_clocks AND first_claim_clock_ms < 10000 AND first_missed_claim_ply = first_claim_ply)
               AS quick_passed,
           count(*) FILTER (has_evals) AS with_evals,
           count(claimant_score_after_first_missed)
               FILTER (has_evals AND first_missed_claim_ply IS NOT NULL AND eval_band = 'clearly better') AS better,
           avg(claimant_score_after_first_missed)
               FILTER (has_evals AND first_missed_claim_ply IS NOT NULL AND eval_band = 'clearly better') AS better_score,
           count(first_ply_occurrence_3) AS reached_3,
           count(*) FILTER (repetition_draw) AS repetition_draws
    FROM (SELECT *, draw_reason IN ('threefold', 'fivefold') AS repetition_draw FROM x)
    GROUP BY grp
),
-- The headline's rates per venue (over all games), where there is more than one venue: the
-- players' claims (x), but a venue's every claim where all its games' were the program's (x0).
vx AS (
    SELECT * FROM x WHERE (grp, venue) IN (SELECT (grp, venue) FROM x0 GROUP BY ALL HAVING NOT bool_and(claimant = 'program'))
    UNION ALL BY NAME
    SELECT * FROM x0 WHERE (grp, venue) IN (SELECT (grp, venue) FROM x0 GROUP BY ALL HAVING bool_and(claimant = 'program'))
),
vt AS (
    SELECT grp, venue,
           count(*) AS games,
           count(*) FILTER (max_occurrence >= 3) AS threefold,
           count(*) FILTER (max_occurrence >= 5) AS fivefold,
           count(*) FILTER (claim_opportunities > 0) AS with_claim,
           count(*) FILTER (missed_claims > 0) AS missed,
           count(*) FILTER (passed_over_claims > 0 AND missed_claims = 0) AS passed_over,
           count(*) FILTER (claim_opportunities_on_board > 0) AS with_board,
           count(*) FILTER (claim_opportunities_on_board > 0 AND missed_claims_on_board > 0) AS missed_board
    FROM vx GROUP BY ALL HAVING (SELECT count(DISTINCT venue) FROM x0) > 1
),
p AS (
    SELECT *,
           CASE WHEN (SELECT count(DISTINCT strftime(game_date, '%Y-%m')) FROM x) > 120
                THEN strftime(game_date, '%Y') ELSE strftime(game_date, '%Y-%m') END AS period
    FROM x WHERE game_date IS NOT NULL
),
dm AS (SELECT grp, period, count(draw_reason) AS drawn FROM p GROUP BY ALL HAVING drawn > 0),
dr AS (SELECT DISTINCT grp, draw_reason FROM p WHERE draw_reason IS NOT NULL),
reasons AS (SELECT DISTINCT draw_reason FROM x WHERE draw_reason IS NOT NULL),
kinds AS (SELECT * FROM (VALUES ('white', 'perpetual check by White'), ('black', 'perpetual check by Black'),
                                ('both', 'perpetual check by both sides'), ('none', 'no perpetual check')) k(kind, label)),
buckets AS (SELECT b, format('{}-{}', b, b + 9) AS label FROM range(0, 150, 10) r(b)
            UNION ALL SELECT 150, '150+'),
clock_bands AS (SELECT unnest(['< 10 s', '10-30 s', '30-60 s', '1-3 min', '>= 3 min']) AS band),
eval_bands AS (SELECT unnest(['clearly worse', 'about equal', 'clearly better', 'no evaluation']) AS band)
SELECT chart, grp, label, part, n::BIGINT AS n, d::BIGINT AS d, unit, score FROM (
    SELECT 'headline' AS chart, grp, 'Games replayed' AS label, NULL AS part, games AS n,
           (SELECT count(*) FROM games) AS d, 'count' AS unit, NULL::DOUBLE AS score FROM t
    UNION ALL SELECT 'headline', grp, 'Reached a threefold (position 3× on the board)', NULL, threefold, games, 'percent', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'Reached a fivefold', NULL, fivefold, games, 'percent', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'A threefold claim was available', NULL, with_claim, games, 'percent', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'Play went on after a claim (share of games with a claim)', NULL, missed, with_claim, 'percent', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'Claim opportunities only by declaring a move (share of opportunities)', NULL, by_move_only, opportunities, 'percent', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'Games whose every claim needed a declared move', NULL, only_by_move, with_claim, 'percent', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'Claimant''s average score after missing the first claim', NULL, scored, scored, 'score', score FROM t
    UNION ALL SELECT 'headline', grp, 'Drawn games with an inferred reason', NULL, drawn, games, 'percent', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'Castling-rights pseudo-repetitions, games per 1,000', NULL, castling, games, 'per1000', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'E.p. pseudo-repetitions, games per 1,000', NULL, ep, games, 'per1000', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'Hidden repetitions (FEN e.p. field), games per 1,000', NULL, hidden, games, 'per1000', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'Went on after a fivefold, games per 1,000', NULL, after_fivefold, games, 'per1000', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'Went on after the 75-move rule, games per 1,000', NULL, after_75, games, 'per1000', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'Games with a clock after every move', NULL, with_clocks, with_clocks, 'count', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'First claim missed with < 10 s on the claimant''s clock (share)', NULL, quick_passed, quick, 'percent', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'Games with an engine evaluation', NULL, with_evals, with_evals, 'count', NULL FROM t
    UNION ALL SELECT 'headline', grp, 'Claimant''s average score after passing over a claim when clearly better', NULL, better, better, 'score', better_score FROM t
    UNION ALL SELECT 'headline_by_venue', grp, 'Games replayed', venue, games, games, 'count', NULL FROM vt
    UNION ALL SELECT 'headline_by_venue', grp, 'Reached a threefold (position 3× on the board)', venue, threefold, games, 'percent', NULL FROM vt
    UNION ALL SELECT 'headline_by_venue', grp, 'A threefold claim was available', venue, with_claim, games, 'percent', NULL FROM vt
    UNION ALL SELECT 'headline_by_venue', grp, 'Play went on after a claim (share of games with a claim)', venue, missed, with_claim, 'percent', NULL FROM vt
    UNION ALL SELECT 'headline_by_venue', grp, 'Claims passed over, drawn in the same repetition', venue, passed_over, with_claim, 'percent', NULL FROM vt
    UNION ALL SELECT 'headline_by_venue', grp, 'Play went on after a claim on the board (share of games with one)', venue, missed_board, with_board, 'percent', NULL FROM vt
    UNION ALL SELECT 'headline_by_venue', grp, 'Reached a fivefold', venue, fivefold, games, 'percent', NULL FROM vt
    UNION ALL SELECT 'threefold_by_rating_band', grp, band, NULL, count(*) FILTER (max_occurrence >= 3), count(*), 'percent', NULL FROM x GROUP BY ALL
    UNION ALL SELECT 'threefold_by_time_class', grp, tc, NULL, count(*) FILTER (max_occurrence >= 3), count(*), 'percent', NULL FROM x GROUP BY ALL
    UNION ALL SELECT 'missed_by_rating_band', grp, band, NULL, count(*) FILTER (missed_claims > 0), count(*) FILTER (claim_opportunities > 0), 'percent', NULL FROM x GROUP BY ALL
    UNION ALL SELECT 'missed_by_time_class', grp, tc, NULL, count(*) FILTER (missed_claims > 0), count(*) FILTER (claim_opportunities > 0), 'percent', NULL FROM x GROUP BY ALL
    UNION ALL SELECT 'threefold_by_month', grp, period, NULL, count(*) FILTER (max_occurrence >= 3), count(*), 'percent', NULL FROM p GROUP BY ALL
    UNION ALL SELECT 'missed_by_month', grp, period, NULL, count(*) FILTER (missed_claims > 0), count(*) FILTER (claim_opportunities > 0), 'percent', NULL FROM p GROUP BY ALL
    UNION ALL SELECT 'draw_mix_by_month', dm.grp, dm.period, dr.draw_reason,
                     (SELECT count(*) FROM p WHERE p.grp IS NOT DISTINCT FROM dm.grp AND p.period = dm.period AND p.draw_reason = dr.draw_reason),
                     dm.drawn, 'percent', NULL
              FROM dm JOIN dr ON dm.grp IS NOT DISTINCT FROM dr.grp
    UNION ALL SELECT 'draw_reasons', s.grp, coalesce(s.grp, 'all games'), r.draw_reason,
                     (SELECT count(*) FROM x WHERE x.grp IS NOT DISTINCT FROM s.grp AND x.draw_reason = r.draw_reason),
                     (SELECT count(draw_reason) FROM x WHERE x.grp IS NOT DISTINCT FROM s.grp), 'percent', NULL
              FROM sets s, reasons r
    UNION ALL SELECT 'repetition_draws_by_perpetual', t.grp, k.label, NULL,
                     (SELECT count(*) FROM x WHERE x.grp IS NOT DISTINCT FROM t.grp AND draw_reason IN ('threefold', 'fivefold')
                                                   AND coalesce(first_threefold_perpetual, 'none') = k.kind),
                     t.repetition_draws, 'percent', NULL
              FROM t, kinds k
    UNION ALL SELECT 'claimant_outcome', grp, 'win', NULL, wins, scored, 'percent', NULL FROM t
    UNION ALL SELECT 'claimant_outcome', grp, 'draw', NULL, draws, scored, 'percent', NULL FROM t
    UNION ALL SELECT 'claimant_outcome', grp, 'loss', NULL, losses, scored, 'percent', NULL FROM t
    UNION ALL SELECT 'claim_kinds', grp, 'on the board', NULL, on_board, opportunities, 'percent', NULL FROM t
    UNION ALL SELECT 'claim_kinds', grp, 'only by declaring a move', NULL, by_move_only, opportunities, 'percent', NULL FROM t
    UNION ALL SELECT 'edge_cases', grp, 'castling rights differ', NULL, castling, games, 'per1000', NULL FROM t
    UNION ALL SELECT 'edge_cases', grp, 'e.p. right differs', NULL, ep, games, 'per1000', NULL FROM t
    UNION ALL SELECT 'edge_cases', grp, 'hidden repetition (FEN e.p.)', NULL, hidden, games, 'per1000', NULL FROM t
    UNION ALL SELECT 'edge_cases', grp, 'went on after fivefold', NULL, after_fivefold, games, 'per1000', NULL FROM t
    UNION ALL SELECT 'edge_cases', grp, 'went on after 75 moves', NULL, after_75, games, 'per1000', NULL FROM t
    UNION ALL SELECT 'first_threefold_ply', t.grp, b.label, NULL,
                     (SELECT count(*) FROM x WHERE x.grp IS NOT DISTINCT FROM t.grp AND
                             CASE WHEN b.b = 150 THEN first_ply_occurrence_3 >= 150
                                  ELSE first_ply_occurrence_3 // 10 * 10 = b.b END),
                     t.reached_3, 'percent', NULL
              FROM t, buckets b
    UNION ALL SELECT 'first_claim_by_clock', s.grp, c.band, NULL,
                     (SELECT count(*) FROM x WHERE x.grp IS NOT DISTINCT FROM s.grp AND has_clocks AND first_claim_clock_ms IS NOT NULL
                                                   AND clock_band = c.band AND first_missed_claim_ply = first_claim_ply),
                     (SELECT count(*) FROM x WHERE x.grp IS NOT DISTINCT FROM s.grp AND has_clocks AND first_claim_clock_ms IS NOT NULL
                                                   AND clock_band = c.band),
                     'percent', NULL
              FROM sets s, clock_bands c
    UNION ALL SELECT 'first_missed_by_eval', s.grp, e.band, NULL, w.n, w.n, 'score', w.score
              FROM sets s CROSS JOIN eval_bands e
              LEFT JOIN LATERAL (SELECT count(claimant_score_after_first_missed) AS n, avg(claimant_score_after_first_missed) AS score
                                 FROM x WHERE x.grp IS NOT DISTINCT FROM s.grp AND has_evals
                                              AND first_missed_claim_ply IS NOT NULL AND eval_band = e.band) w ON true
)
