-- Question: the same as queries/first_threefold_ply.sql, answered from the summary table that ingest writes (counts
--   per source, month, time class, Elo band of 100 and variant), so it takes about a second over a
--   whole Lichess mirror instead of reading every game. Output: the same rows and columns.
-- Columns: summary.first_threefold_ply (a map from a bucket's first ply to its games).
-- Rules: as queries/first_threefold_ply.sql. Summary rows of skipped variants have games = 0 and are left out; a
--   band of 200 is elo_band (of 100) rounded down to 200; time_class NULL is 'unknown'. Filter the
--   summary by source, month, time_class, elo_band or variant as you would the games.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/summary/first_threefold_ply.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/summary/first_threefold_ply.sql').read()))"
WITH buckets AS (
    SELECT from_ply::INTEGER AS from_ply, sum(n)::BIGINT AS games
    FROM (SELECT unnest(map_keys(first_threefold_ply)) AS from_ply, unnest(map_values(first_threefold_ply)) AS n
          FROM summary WHERE games > 0)
    GROUP BY from_ply
)
SELECT format('{}-{}', from_ply, from_ply + 9) AS plies,
       from_ply,
       games,
       round(100.0 * games / sum(games) OVER (), 2) AS pct,
       round(100.0 * sum(games) OVER (ORDER BY from_ply) / sum(games) OVER (), 2) AS cumulative_pct
FROM buckets
ORDER BY from_ply;
