-- Question: how often did play go on after the game was already drawn automatically, by a fivefold
--   repetition (Art. 9.6.1) or by the 75-move rule (9.6.2: 150 plies without a pawn move or
--   capture)? Only where the rule was in force on the game's venue and date: FIDE's since July
--   2014 (a fivefold of consecutive moves until July 2017), Lichess's fivefold since January 2020
--   (docs/events.md, "The rules in force").
-- Columns: games.status, plies, plies_after_automatic_fivefold, plies_after_automatic_75_moves,
--   first_ply_halfmove_150, time_class, Site, White, Black, Event, Date (else UTCDate), Round, Result.
-- Rules: after fivefold = plies_after_automatic_fivefold > 0; after the 75-move rule =
--   plies_after_automatic_75_moves > 0. Rates are over games with status 'ok' or 'error' (skipped
--   variants are not replayed and would dilute them); time_class 'unknown' without one (docs/events.md).
-- Output: the totals (games; games that went on after a fivefold, after the 75-move rule, and per
--   1,000 games each) on every row, then one row per such game by source and key (frame_offset, byte_offset), at most
--   100 rows (one row of totals with empty game columns when there is none).
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/automatic_draw_ignored.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/automatic_draw_ignored.sql').read()))"
WITH base AS (
    SELECT *,
           coalesce(plies_after_automatic_fivefold > 0, false) AS after_fivefold,
           coalesce(plies_after_automatic_75_moves > 0, false) AS after_75_moves
    FROM games
    WHERE status <> 'skipped' AND (status = 'error' OR plies > 0)
),
examples AS (
    SELECT source, frame_offset, byte_offset, White, Black, Event,
           coalesce(Date, strftime(UTCDate, '%Y.%m.%d')) AS date, Round, Result, Site,
           coalesce(time_class, 'unknown') AS time_class, plies,
           plies - plies_after_automatic_fivefold AS fivefold_ply, plies_after_automatic_fivefold AS plies_after_fivefold,
           first_ply_halfmove_150, plies_after_automatic_75_moves AS plies_after_75_moves
    FROM base
    WHERE after_fivefold OR after_75_moves
),
counts AS (
    SELECT count(*) AS games,
           count(*) FILTER (after_fivefold) AS games_after_fivefold,
           count(*) FILTER (after_75_moves) AS games_after_75_moves
    FROM base
),
totals AS (
    SELECT games,
           games_after_fivefold, round(1000.0 * games_after_fivefold / nullif(games, 0), 3) AS after_fivefold_per_1000_games,
           games_after_75_moves, round(1000.0 * games_after_75_moves / nullif(games, 0), 3) AS after_75_moves_per_1000_games
    FROM counts
)
SELECT t.*, e.*
FROM totals t LEFT JOIN examples e ON true
ORDER BY e.source, e.frame_offset, e.byte_offset
LIMIT 100;
