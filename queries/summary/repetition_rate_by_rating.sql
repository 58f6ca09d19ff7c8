-- Question: the same as queries/repetition_rate_by_rating.sql, answered from the summary table that ingest writes (counts
--   per source, month, time class, Elo band of 100 and variant), so it takes about a second over a
--   whole Lichess mirror instead of reading every game. Output: the same rows and columns.
-- Columns: summary.venue, time_class, elo_band, games, threefold, fivefold.
-- Rules: as queries/repetition_rate_by_rating.sql. Summary rows of skipped variants have games = 0 and are left out; a
--   band of 200 is elo_band (of 100) rounded down to 200, named by its venue (rating pool); time_class NULL is 'unknown'. Filter the
--   summary by source, month, time_class, elo_band or variant as you would the games.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/summary/repetition_rate_by_rating.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/summary/repetition_rate_by_rating.sql').read()))"
WITH base AS (
    SELECT coalesce(time_class, 'unknown') AS time_class, games AS n, threefold AS n_threefold,
           fivefold AS n_fivefold,
           CASE WHEN elo_band IS NOT NULL THEN (floor(elo_band / 200) * 200)::INTEGER END AS band_from,
           venue || ' ' || CASE WHEN band_from IS NULL THEN 'unknown'
                                ELSE format('{}-{}', band_from, band_from + 199) END AS rating_band,
           list_position(['otb', 'lichess', 'online', 'engine', 'unknown'], venue) AS pool_order,
           list_position(['ultrabullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'unknown'],
                         time_class) AS time_class_order
    FROM summary
    WHERE games > 0
)
SELECT
    CASE grouping(time_class, rating_band)
        WHEN 3 THEN 'all' WHEN 1 THEN 'time_class' WHEN 2 THEN 'rating_band' ELSE 'rating_band_x_time_class'
    END AS split,
    coalesce(time_class, 'all') AS time_class,
    coalesce(rating_band, 'all') AS rating_band,
    sum(n)::BIGINT AS games,
    sum(n_threefold)::BIGINT AS threefold_games,
    round(100.0 * threefold_games / games, 2) AS threefold_pct,
    sum(n_fivefold)::BIGINT AS fivefold_games,
    round(100.0 * fivefold_games / games, 2) AS fivefold_pct
FROM base
GROUP BY GROUPING SETS ((), (time_class), (rating_band), (rating_band, time_class))
ORDER BY grouping(time_class, rating_band) DESC,
         CASE WHEN grouping(rating_band) = 0 THEN min(pool_order) END,
         CASE WHEN grouping(rating_band) = 0 THEN min(band_from) END NULLS LAST,
         CASE WHEN grouping(time_class) = 0 THEN min(time_class_order) END;
