-- Question: was a threefold claim passed over to play for a win? The share of claim
--   opportunities (Art. 9.2.1) the claimant let pass, by the engine evaluation of the position
--   from the claimant's side, and what the claimants who let the first one pass scored.
-- Columns: events.kind, claimable, ply, turn, eval_cp, eval_mate; games.has_evals, plies,
--   claim_opportunities, missed_claims, first_missed_claim_eval_cp, first_missed_claim_eval_mate,
--   claimant_score_after_first_missed, claimant.
-- Rules: opportunities and "missed" as in missed_claims_by_clock.sql. The evaluation is the
--   [%eval] written after the move that made the position (White's view on events, turned to the
--   side to move, the claimant; the games' first_missed_claim_eval_* are already the claimant's).
--   Bands, from the claimant's side: 'clearly worse' below -1.00 (eval_cp < -100) or getting mated
--   (eval_mate < 0); 'about equal' from -1.00 to +1.00 inclusive; 'clearly better' above +1.00
--   (eval_cp > 100) or mating (eval_mate > 0); 'no evaluation' where the move has no [%eval].
--   Only games with has_evals (at least one [%eval]: Lichess games that were analysed) count.
-- Output: one row per band: opportunities, missed ones and their share (%); then the games whose
--   first missed claim fell in the band and the claimant's final score there (wins, draws,
--   losses, average; games with a known result). `games_with_evals` names the games covered.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/missed_claims_by_eval.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/missed_claims_by_eval.sql').read()))"
WITH evaluated AS (
    SELECT *
    FROM games
    WHERE status <> 'skipped' AND (status = 'error' OR plies > 0) AND has_evals
),
opportunities AS (
    SELECT e.source, e.frame_offset, e.byte_offset, e.ply,
           CASE any_value(e.turn) WHEN 'w' THEN 1 ELSE -1 END AS side,
           any_value(e.eval_cp) AS eval_cp, any_value(e.eval_mate) AS eval_mate,
           bool_or(e.kind = 'repetition') AS on_board
    FROM events e
    WHERE (e.kind = 'repetition' AND e.claimable) OR e.kind = 'claim_by_move'
    GROUP BY e.source, e.frame_offset, e.byte_offset, e.ply
),
banded AS (
    -- (cp, mate) from the claimant's side -> band
    SELECT *,
           CASE WHEN mate < 0 OR cp < -100 THEN 'clearly worse'
                WHEN mate > 0 OR cp > 100 THEN 'clearly better'
                WHEN cp IS NOT NULL OR mate = 0 THEN 'about equal'
                ELSE 'no evaluation' END AS eval_band
    FROM (
        SELECT g.source, g.frame_offset, g.byte_offset,
               o.ply < g.plies OR g.missed_claims = g.claim_opportunities AS missed,
               o.side * o.eval_cp AS cp, o.side * o.eval_mate AS mate
        FROM opportunities o JOIN evaluated g ON g.source = o.source AND g.frame_offset = o.frame_offset AND g.byte_offset = o.byte_offset
        -- the program's claims are left out; by a declared move only where the side to move claimed
        WHERE g.claimant <> 'program' AND (o.on_board OR g.claimant = 'side_to_move')
    )
),
first_missed AS (
    SELECT *,
           CASE WHEN mate < 0 OR cp < -100 THEN 'clearly worse'
                WHEN mate > 0 OR cp > 100 THEN 'clearly better'
                WHEN cp IS NOT NULL OR mate = 0 THEN 'about equal'
                ELSE 'no evaluation' END AS eval_band
    FROM (
        SELECT first_missed_claim_eval_cp AS cp, first_missed_claim_eval_mate AS mate,
               claimant_score_after_first_missed AS score
        FROM evaluated
        WHERE first_missed_claim_ply IS NOT NULL AND claimant <> 'program'
    )
),
by_opportunity AS (
    SELECT eval_band, count(*) AS opportunities, count(*) FILTER (missed) AS missed,
           round(100.0 * count(*) FILTER (missed) / count(*), 2) AS missed_pct
    FROM banded GROUP BY eval_band
),
by_game AS (
    SELECT eval_band, count(*) AS games_first_missed, count(score) AS scored_games,
           count(*) FILTER (score = 1) AS claimant_wins, count(*) FILTER (score = 0.5) AS claimant_draws,
           count(*) FILTER (score = 0) AS claimant_losses, round(avg(score), 3) AS claimant_avg_score
    FROM first_missed GROUP BY eval_band
)
SELECT (SELECT count(*) FROM evaluated) AS games_with_evals,
       eval_band,
       coalesce(o.opportunities, 0) AS opportunities, coalesce(o.missed, 0) AS missed, o.missed_pct,
       coalesce(g.games_first_missed, 0) AS games_first_missed, coalesce(g.scored_games, 0) AS scored_games,
       coalesce(g.claimant_wins, 0) AS claimant_wins, coalesce(g.claimant_draws, 0) AS claimant_draws,
       coalesce(g.claimant_losses, 0) AS claimant_losses, g.claimant_avg_score
FROM (VALUES ('clearly worse'), ('about equal'), ('clearly better'), ('no evaluation')) bands(eval_band)
LEFT JOIN by_opportunity o USING (eval_band)
LEFT JOIN by_game g USING (eval_band)
ORDER BY list_position(['clearly worse', 'about equal', 'clearly better', 'no evaluation'], eval_band);
