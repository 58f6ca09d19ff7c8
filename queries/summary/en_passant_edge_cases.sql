-- Question: the same as queries/en_passant_edge_cases.sql, answered from the summary table that ingest writes (counts
--   per source, month, time class, Elo band of 100 and variant), so it takes about a second over a
--   whole Lichess mirror instead of reading every game. Output: its totals row without the games themselves, which only the games and events tables list.
-- Columns: summary.games, en_passant_games, hidden_games.
-- Rules: as queries/en_passant_edge_cases.sql. Summary rows of skipped variants have games = 0 and are left out; a
--   band of 200 is elo_band (of 100) rounded down to 200; time_class NULL is 'unknown'. Filter the
--   summary by source, month, time_class, elo_band or variant as you would the games.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/summary/en_passant_edge_cases.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/summary/en_passant_edge_cases.sql').read()))"
WITH counts AS (
    SELECT sum(games)::BIGINT AS games, sum(en_passant_games)::BIGINT AS games_with_ep_pseudo,
           sum(hidden_games)::BIGINT AS games_with_hidden
    FROM summary
)
SELECT games,
       games_with_ep_pseudo, round(1000.0 * games_with_ep_pseudo / nullif(games, 0), 3) AS ep_pseudo_per_1000_games,
       games_with_hidden, round(1000.0 * games_with_hidden / nullif(games, 0), 3) AS hidden_per_1000_games
FROM counts;
