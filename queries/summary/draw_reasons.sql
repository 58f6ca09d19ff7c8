-- Question: the same as queries/draw_reasons.sql, answered from the summary table that ingest writes (counts
--   per source, month, time class, Elo band of 100 and variant), so it takes about a second over a
--   whole Lichess mirror instead of reading every game. Output: the same rows and columns.
-- Columns: summary.venue, time_class, elo_band, drawn_<reason> (one column per draw reason).
-- Rules: as queries/draw_reasons.sql. Summary rows of skipped variants have games = 0 and are left out; a
--   band of 200 is elo_band (of 100) rounded down to 200, named by its venue (rating pool); time_class NULL is 'unknown'. Filter the
--   summary by source, month, time_class, elo_band or variant as you would the games.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/summary/draw_reasons.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/summary/draw_reasons.sql').read()))"
WITH base AS (
    SELECT coalesce(time_class, 'unknown') AS time_class,
           draw_reason[7:] AS draw_reason, n,
           CASE WHEN elo_band IS NOT NULL THEN (floor(elo_band / 200) * 200)::INTEGER END AS band_from,
           venue || ' ' || CASE WHEN band_from IS NULL THEN 'unknown'
                                ELSE format('{}-{}', band_from, band_from + 199) END AS rating_band,
           list_position(['otb', 'lichess', 'online', 'engine', 'unknown'], venue) AS pool_order,
           list_position(['ultrabullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'unknown'],
                         time_class) AS time_class_order,
           list_position(['stalemate', 'insufficient_material', 'fivefold', 'seventy_five_moves', 'threefold',
                          'threefold_by_move', 'fifty_moves', 'adjudication', 'timeout_vs_insufficient_material', 'agreement', 'agreement_or_unrecorded'], draw_reason[7:]) AS reason_order
    FROM (UNPIVOT (SELECT time_class, elo_band, venue, COLUMNS('^drawn_') FROM summary WHERE games > 0)
          ON COLUMNS('^drawn_') INTO NAME draw_reason VALUE n)
    WHERE n > 0
),
counts AS (
    SELECT
        CASE grouping(time_class, rating_band) WHEN 3 THEN 'all' WHEN 1 THEN 'time_class' ELSE 'rating_band' END AS split,
        coalesce(time_class, 'all') AS time_class,
        coalesce(rating_band, 'all') AS rating_band,
        draw_reason,
        sum(n)::BIGINT AS games,
        grouping(time_class, rating_band) AS split_order,
        CASE WHEN grouping(time_class) = 0 THEN min(time_class_order) END AS time_class_order,
        CASE WHEN grouping(rating_band) = 0 THEN min(pool_order) END AS pool_order,
        CASE WHEN grouping(rating_band) = 0 THEN min(band_from) END AS band_from,
        min(reason_order) AS reason_order
    FROM base
    GROUP BY GROUPING SETS ((draw_reason), (time_class, draw_reason), (rating_band, draw_reason))
)
SELECT split, time_class, rating_band, draw_reason, games,
       sum(games) OVER (PARTITION BY split, time_class, rating_band)::BIGINT AS drawn_games,
       round(100.0 * games / drawn_games, 2) AS pct_of_draws
FROM counts
ORDER BY split_order DESC, time_class_order, pool_order, band_from NULLS LAST, reason_order;
