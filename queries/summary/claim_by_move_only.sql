-- Question: the same as queries/claim_by_move_only.sql, answered from the summary table that ingest writes (counts
--   per source, month, time class, Elo band of 100 and variant), so it takes about a second over a
--   whole Lichess mirror instead of reading every game. Output: the same rows and columns.
-- Columns: summary.time_class, claimant, games, with_claim, claim_opportunities, claims_on_board, claims_by_move_only, claims_by_move_only_played, games_with_on_board_claims, games_with_by_move_only_claims, games_only_by_move.
-- Rules: as queries/claim_by_move_only.sql (the claims of rows whose claimant is 'program' left out). Summary rows of skipped variants have games = 0 and are left out; a
--   band of 200 is elo_band (of 100) rounded down to 200; time_class NULL is 'unknown'. Filter the
--   summary by source, month, time_class, elo_band or variant as you would the games.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/summary/claim_by_move_only.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/summary/claim_by_move_only.sql').read()))"
WITH base AS (
    SELECT coalesce(time_class, 'unknown') AS time_class,
           list_position(['ultrabullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'unknown'],
                         time_class) AS time_class_order,
           games AS n, c * with_claim AS n_claim, c * claim_opportunities AS n_opportunities,
           c * claims_on_board AS n_on_board, c * claims_by_move_only AS n_by_move_only,
           c * claims_by_move_only_played AS n_by_move_only_played, c * games_with_on_board_claims AS n_games_on_board,
           c * games_with_by_move_only_claims AS n_games_by_move_only, c * games_only_by_move AS n_games_only_by_move
    FROM (SELECT *, CASE WHEN claimant = 'program' THEN 0 ELSE 1 END AS c FROM summary)
    WHERE games > 0
)
SELECT
    CASE grouping(time_class) WHEN 1 THEN 'all' ELSE 'time_class' END AS split,
    coalesce(time_class, 'all') AS time_class,
    sum(n)::BIGINT AS games,
    sum(n_opportunities)::BIGINT AS opportunities,
    sum(n_on_board)::BIGINT AS on_board,
    sum(n_by_move_only)::BIGINT AS by_move_only,
    round(100.0 * sum(n_by_move_only) / nullif(sum(n_opportunities), 0), 2) AS by_move_only_pct,
    sum(n_by_move_only_played)::BIGINT AS by_move_only_played,
    sum(n_claim)::BIGINT AS games_with_claim,
    sum(n_games_on_board)::BIGINT AS games_with_on_board,
    sum(n_games_by_move_only)::BIGINT AS games_with_by_move_only,
    sum(n_games_only_by_move)::BIGINT AS games_only_by_move
FROM base
GROUP BY GROUPING SETS ((), (time_class))
ORDER BY grouping(time_class) DESC, CASE WHEN grouping(time_class) = 0 THEN min(time_class_order) END;
