-- Question: how early in a game does a position first stand on the board for the third time?
--   The distribution of first_ply_occurrence_3 in buckets of 10 plies.
-- Columns: games.status, first_ply_occurrence_3.
-- Rules: ply k is the position after k half-moves (ply 40 = after White's and Black's 20th moves).
--   Only games that reach a threefold (first_ply_occurrence_3 not null) are counted; skipped
--   variants have no replay and are excluded.
-- Output: one row per bucket that has games: its plies ('40-49'), first ply, games, share of the
--   games reaching a threefold in percent, and the cumulative share.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/first_threefold_ply.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/first_threefold_ply.sql').read()))"
WITH buckets AS (
    SELECT (first_ply_occurrence_3 // 10 * 10)::INTEGER AS from_ply, count(*) AS games
    FROM games
    WHERE status <> 'skipped' AND (status = 'error' OR plies > 0) AND first_ply_occurrence_3 IS NOT NULL
    GROUP BY from_ply
)
SELECT format('{}-{}', from_ply, from_ply + 9) AS plies,
       from_ply,
       games,
       round(100.0 * games / sum(games) OVER (), 2) AS pct,
       round(100.0 * sum(games) OVER (ORDER BY from_ply) / sum(games) OVER (), 2) AS cumulative_pct
FROM buckets
ORDER BY from_ply;
