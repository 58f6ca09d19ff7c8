-- Question: what share of games reaches a threefold repetition (a position on the board for the
--   third time, Art. 9.2.1.2), by rating band and time class? Fivefold (9.6.1) alongside.
-- Columns: games.status, venue, WhiteElo, BlackElo, time_class, max_occurrence.
-- Rules: threefold = max_occurrence >= 3, fivefold = max_occurrence >= 5 (a claim that was only
--   possible by declaring a move does not count here; see claim_by_move_only.sql). Games with status
--   'skipped' (variants not replayed) are excluded: they have no summary and would dilute the
--   rates; games with a replay error count up to the bad move. Rating band = the game's venue, its rating pool (FIDE Elo over
--   the board, Lichess's Glicko-2, another server's, an engine list's: different scales), and the
--   lower of WhiteElo/BlackElo in bands of 200 ('lichess 1400-1599'; 'otb unknown' when either is
--   missing, as in old OTB files); time_class 'unknown' without one (docs/events.md).
-- Output: one row per split ('all', 'time_class', 'rating_band', 'rating_band_x_time_class') and
--   group: games, games reaching a threefold / fivefold, and their shares in percent.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/repetition_rate_by_rating.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/repetition_rate_by_rating.sql').read()))"
WITH base AS (
    SELECT * REPLACE (coalesce(time_class, 'unknown') AS time_class),
           CASE WHEN WhiteElo IS NOT NULL AND BlackElo IS NOT NULL
                THEN (floor(least(WhiteElo, BlackElo) / 200) * 200)::INTEGER END AS band_from,
           venue || ' ' || CASE WHEN band_from IS NULL THEN 'unknown'
                                ELSE format('{}-{}', band_from, band_from + 199) END AS rating_band,
           list_position(['otb', 'lichess', 'online', 'engine', 'unknown'], venue) AS pool_order,
           list_position(['ultrabullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'unknown'],
                         time_class) AS time_class_order
    FROM games
    WHERE status <> 'skipped' AND (status = 'error' OR plies > 0)
)
SELECT
    CASE grouping(time_class, rating_band)
        WHEN 3 THEN 'all' WHEN 1 THEN 'time_class' WHEN 2 THEN 'rating_band' ELSE 'rating_band_x_time_class'
    END AS split,
    coalesce(time_class, 'all') AS time_class,
    coalesce(rating_band, 'all') AS rating_band,
    count(*) AS games,
    count(*) FILTER (max_occurrence >= 3) AS threefold_games,
    round(100.0 * threefold_games / games, 2) AS threefold_pct,
    count(*) FILTER (max_occurrence >= 5) AS fivefold_games,
    round(100.0 * fivefold_games / games, 2) AS fivefold_pct
FROM base
GROUP BY GROUPING SETS ((), (time_class), (rating_band), (rating_band, time_class))
ORDER BY grouping(time_class, rating_band) DESC,
         CASE WHEN grouping(rating_band) = 0 THEN min(pool_order) END,
         CASE WHEN grouping(rating_band) = 0 THEN min(band_from) END NULLS LAST,
         CASE WHEN grouping(time_class) = 0 THEN min(time_class_order) END;
