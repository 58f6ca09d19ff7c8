-- Question: the same as queries/repetition_kinds.sql, answered from the summary table that ingest writes (counts
--   per source, month, time class, Elo band of 100 and variant), so it takes about a second over a
--   whole Lichess mirror instead of reading every game. Output: its rows of the splits 'all' and 'time_class', without the venue and checking_side columns (the summary does not keep who was the stronger player).
-- Columns: summary.time_class, repetition_draws_perpetual_<side> (white, black, both, none).
-- Rules: as queries/repetition_kinds.sql. Summary rows of skipped variants have games = 0 and are left out; time_class NULL is
--   'unknown'. Filter the summary by source, month, time_class, elo_band or variant as you would
--   the games.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/summary/repetition_kinds.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/summary/repetition_kinds.sql').read()))"
WITH base AS (
    SELECT coalesce(time_class, 'unknown') AS time_class, perpetual[28:] AS perpetual, n,
           list_position(['ultrabullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'unknown'],
                         coalesce(time_class, 'unknown')) AS time_class_order,
           list_position(['white', 'black', 'both', 'none'], perpetual[28:]) AS perpetual_order
    FROM (UNPIVOT (SELECT time_class, COLUMNS('^repetition_draws_perpetual_') FROM summary WHERE games > 0)
          ON COLUMNS('^repetition_draws_perpetual_') INTO NAME perpetual VALUE n)
    WHERE n > 0
),
counts AS (
    SELECT
        CASE grouping(time_class) WHEN 1 THEN 'all' ELSE 'time_class' END AS split,
        coalesce(time_class, 'all') AS time_class,
        perpetual,
        sum(n)::BIGINT AS games,
        grouping(time_class) AS split_order,
        CASE WHEN grouping(time_class) = 0 THEN min(time_class_order) END AS time_class_order,
        min(perpetual_order) AS perpetual_order
    FROM base
    GROUP BY GROUPING SETS ((perpetual), (time_class, perpetual))
)
SELECT split, time_class, perpetual, games,
       sum(games) OVER (PARTITION BY split, time_class)::BIGINT AS repetition_draws,
       round(100.0 * games / repetition_draws, 2) AS pct
FROM counts
ORDER BY split_order DESC, time_class_order, perpetual_order;
