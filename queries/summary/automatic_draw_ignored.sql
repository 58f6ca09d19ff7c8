-- Question: the same as queries/automatic_draw_ignored.sql, answered from the summary table that ingest writes (counts
--   per source, month, time class, Elo band of 100 and variant), so it takes about a second over a
--   whole Lichess mirror instead of reading every game. Output: its totals row without the games themselves, which only the games table lists.
-- Columns: summary.games, after_fivefold, after_75_moves.
-- Rules: as queries/automatic_draw_ignored.sql. Summary rows of skipped variants have games = 0 and are left out; a
--   band of 200 is elo_band (of 100) rounded down to 200; time_class NULL is 'unknown'. Filter the
--   summary by source, month, time_class, elo_band or variant as you would the games.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/summary/automatic_draw_ignored.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/summary/automatic_draw_ignored.sql').read()))"
WITH counts AS (
    SELECT sum(games)::BIGINT AS games, sum(after_fivefold)::BIGINT AS games_after_fivefold,
           sum(after_75_moves)::BIGINT AS games_after_75_moves
    FROM summary
)
SELECT games,
       games_after_fivefold, round(1000.0 * games_after_fivefold / nullif(games, 0), 3) AS after_fivefold_per_1000_games,
       games_after_75_moves, round(1000.0 * games_after_75_moves / nullif(games, 0), 3) AS after_75_moves_per_1000_games
FROM counts;
