-- Question: how were drawn games drawn? The recorded ending where the game has one (Termination,
--   TerminationDetails), else the reason the engine infers from the final position, by time class
--   and by rating band.
-- Columns: games.status, Result, draw_reason, venue, WhiteElo, BlackElo, time_class.
-- Rules: draw_reason is set only for drawn games (Result 1/2-1/2) replayed without error: the
--   recorded ending first (adjudication, timeout_vs_insufficient_material, agreement, ...), else the
--   first that holds in this order: stalemate, insufficient_material, fivefold, seventy_five_moves,
--   threefold, threefold_by_move, fifty_moves, agreement_or_unrecorded (docs/events.md, Game
--   summary). So the population is those games: skipped variants, games with a replay error and
--   games without a move (no_moves) are left out. Rating band = the game's venue, its rating pool (FIDE Elo over
--   the board, Lichess's Glicko-2, another server's, an engine list's: different scales), and the
--   lower of WhiteElo/BlackElo in bands of 200 ('lichess 1400-1599'; 'otb unknown' when either is
--   missing, as in old OTB files); time_class 'unknown' without one (docs/events.md).
-- Output: one row per split ('all', 'time_class', 'rating_band'), group and reason: games, the
--   drawn games of that group, and the reason's share of them in percent.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/draw_reasons.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/draw_reasons.sql').read()))"
WITH base AS (
    SELECT * REPLACE (coalesce(time_class, 'unknown') AS time_class),
           CASE WHEN WhiteElo IS NOT NULL AND BlackElo IS NOT NULL
                THEN (floor(least(WhiteElo, BlackElo) / 200) * 200)::INTEGER END AS band_from,
           venue || ' ' || CASE WHEN band_from IS NULL THEN 'unknown'
                                ELSE format('{}-{}', band_from, band_from + 199) END AS rating_band,
           list_position(['otb', 'lichess', 'online', 'engine', 'unknown'], venue) AS pool_order,
           list_position(['ultrabullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'unknown'],
                         time_class) AS time_class_order,
           list_position(['stalemate', 'insufficient_material', 'fivefold', 'seventy_five_moves', 'threefold',
                          'threefold_by_move', 'fifty_moves', 'adjudication', 'timeout_vs_insufficient_material', 'agreement', 'agreement_or_unrecorded'], draw_reason) AS reason_order
    FROM games
    WHERE status <> 'skipped' AND (status = 'error' OR plies > 0) AND draw_reason IS NOT NULL
),
counts AS (
    SELECT
        CASE grouping(time_class, rating_band) WHEN 3 THEN 'all' WHEN 1 THEN 'time_class' ELSE 'rating_band' END AS split,
        coalesce(time_class, 'all') AS time_class,
        coalesce(rating_band, 'all') AS rating_band,
        draw_reason,
        count(*) AS games,
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
