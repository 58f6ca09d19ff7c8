-- Question: the same as queries/missed_claims.sql, answered from the summary table that ingest writes (counts
--   per source, month, time class, Elo band of 100 and variant), so it takes about a second over a
--   whole Lichess mirror instead of reading every game. Output: missed_claims.sql's rows and columns but missed_opportunities (the summary counts games with a missed claim, not the opportunities passed over).
-- Columns: summary.venue, claimant, time_class, elo_band, games, with_claim, missed, with_claim_on_board, missed_on_board, with_claim_by_move, missed_by_move, claim_opportunities, claimant_games, claimant_wins, claimant_draws, claimant_losses.
-- Rules: as queries/missed_claims.sql (the claims of rows whose claimant is 'program' left out). Summary rows of skipped variants have games = 0 and are left out; a
--   band of 200 is elo_band (of 100) rounded down to 200, named by its venue (rating pool); time_class NULL is 'unknown'. Filter the
--   summary by source, month, time_class, elo_band or variant as you would the games.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/summary/missed_claims.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/summary/missed_claims.sql').read()))"
WITH base AS (
    SELECT coalesce(time_class, 'unknown') AS time_class,
           games AS n, c * with_claim AS n_claim, c * missed AS n_missed, c * with_claim_on_board AS n_board,
           c * missed_on_board AS n_missed_board, c * with_claim_by_move AS n_move, c * missed_by_move AS n_missed_move,
           c * claim_opportunities AS n_opportunities, c * claimant_games AS n_scored, c * claimant_wins AS n_wins,
           c * claimant_draws AS n_draws, c * claimant_losses AS n_losses,
           CASE WHEN elo_band IS NOT NULL THEN (floor(elo_band / 200) * 200)::INTEGER END AS band_from,
           venue || ' ' || CASE WHEN band_from IS NULL THEN 'unknown'
                                ELSE format('{}-{}', band_from, band_from + 199) END AS rating_band,
           list_position(['otb', 'lichess', 'online', 'engine', 'unknown'], venue) AS pool_order,
           list_position(['ultrabullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'unknown'],
                         time_class) AS time_class_order
    FROM (SELECT *, CASE WHEN claimant = 'program' THEN 0 ELSE 1 END AS c FROM summary)
    WHERE games > 0
)
SELECT
    CASE grouping(time_class, rating_band) WHEN 3 THEN 'all' WHEN 1 THEN 'time_class' ELSE 'rating_band' END AS split,
    coalesce(time_class, 'all') AS time_class,
    coalesce(rating_band, 'all') AS rating_band,
    sum(n)::BIGINT AS games,
    sum(n_claim)::BIGINT AS games_with_claim,
    sum(n_missed)::BIGINT AS games_with_missed_claim,
    round(100.0 * games_with_missed_claim / nullif(games_with_claim, 0), 2) AS missed_pct_of_claim_games,
    round(100.0 * games_with_missed_claim / games, 2) AS missed_pct_of_games,
    sum(n_board)::BIGINT AS games_with_board_claim,
    sum(n_missed_board)::BIGINT AS games_with_missed_board_claim,
    round(100.0 * games_with_missed_board_claim / nullif(games_with_board_claim, 0), 2) AS missed_board_pct,
    sum(n_move)::BIGINT AS games_with_move_claim,
    sum(n_missed_move)::BIGINT AS games_with_missed_move_claim,
    round(100.0 * games_with_missed_move_claim / nullif(games_with_move_claim, 0), 2) AS missed_move_pct,
    sum(n_opportunities)::BIGINT AS opportunities,
    sum(n_scored)::BIGINT AS claimant_scored_games,
    sum(n_wins)::BIGINT AS claimant_wins,
    sum(n_draws)::BIGINT AS claimant_draws,
    sum(n_losses)::BIGINT AS claimant_losses,
    round((claimant_wins::DOUBLE + 0.5 * claimant_draws::DOUBLE) / nullif(claimant_scored_games, 0), 3) AS claimant_avg_score
FROM base
GROUP BY GROUPING SETS ((), (time_class), (rating_band))
ORDER BY grouping(time_class, rating_band) DESC,
         CASE WHEN grouping(time_class) = 0 THEN min(time_class_order) END,
         CASE WHEN grouping(rating_band) = 0 THEN min(pool_order) END,
         CASE WHEN grouping(rating_band) = 0 THEN min(band_from) END NULLS LAST;
