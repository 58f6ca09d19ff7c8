-- Question: what kind of repetition drew the game? Of the games drawn by threefold or fivefold
--   repetition, how many were a perpetual check (by White, by Black, by both) and how many a
--   shuffle without one; by time class, over the board or online, and whether the side giving
--   perpetual check was the stronger or the weaker player by rating.
-- Columns: games.status, draw_reason, first_threefold_perpetual, WhiteElo, BlackElo, time_class,
--   lichess_id.
-- Rules: the population is the games with draw_reason 'threefold' or 'fivefold' (drawn, replayed
--   without error, the final position standing a third or fifth time; docs/events.md, Game summary).
--   perpetual = first_threefold_perpetual: over the moves from the first occurrence of the
--   position that first occurred three times to its third occurrence, 'white' when every White
--   move gave check, 'black' likewise, 'both' when both did, 'none' (the column's null) otherwise.
--   Venue: 'online' when the game has a lichess_id (Site is a lichess.org game) or its time class
--   is ultrabullet, bullet or blitz (time controls rarely played over the board); 'otb'
--   otherwise, which also takes in engine games and any game whose tags say neither. Checking
--   side (for perpetual 'white' or 'black'): 'stronger' when the player giving the checks had the
--   higher Elo, 'weaker' the lower, 'equal', or 'unknown' when either Elo is missing; 'n/a' for
--   'both' and 'none'. time_class 'unknown' without one (docs/events.md).
-- Output: one row per split ('all', 'time_class', 'venue', 'checking_side'), group and perpetual
--   kind: games, the repetition draws of that group, and the kind's share of them in percent.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/repetition_kinds.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/repetition_kinds.sql').read()))"
WITH base AS (
    SELECT * REPLACE (coalesce(time_class, 'unknown') AS time_class),
           coalesce(first_threefold_perpetual, 'none') AS perpetual,
           CASE WHEN lichess_id IS NOT NULL OR time_class IN ('ultrabullet', 'bullet', 'blitz')
                THEN 'online' ELSE 'otb' END AS venue,
           CASE WHEN perpetual NOT IN ('white', 'black') THEN 'n/a'
                WHEN WhiteElo IS NULL OR BlackElo IS NULL THEN 'unknown'
                WHEN WhiteElo = BlackElo THEN 'equal'
                WHEN (WhiteElo > BlackElo) = (perpetual = 'white') THEN 'stronger'
                ELSE 'weaker' END AS checking_side,
           list_position(['ultrabullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'unknown'],
                         time_class) AS time_class_order,
           list_position(['white', 'black', 'both', 'none'], perpetual) AS perpetual_order,
           list_position(['stronger', 'weaker', 'equal', 'unknown', 'n/a'], checking_side) AS side_order
    FROM games
    WHERE status <> 'skipped' AND (status = 'error' OR plies > 0) AND draw_reason IN ('threefold', 'fivefold')
),
counts AS (
    SELECT
        CASE grouping(time_class, venue, checking_side)
            WHEN 7 THEN 'all' WHEN 3 THEN 'time_class' WHEN 5 THEN 'venue' ELSE 'checking_side'
        END AS split,
        coalesce(time_class, 'all') AS time_class,
        coalesce(venue, 'all') AS venue,
        coalesce(checking_side, 'all') AS checking_side,
        perpetual,
        count(*) AS games,
        grouping(time_class, venue, checking_side) AS split_order,
        CASE WHEN grouping(time_class) = 0 THEN min(time_class_order) END AS time_class_order,
        CASE WHEN grouping(checking_side) = 0 THEN min(side_order) END AS side_order,
        min(perpetual_order) AS perpetual_order
    FROM base
    GROUP BY GROUPING SETS ((perpetual), (time_class, perpetual), (venue, perpetual), (checking_side, perpetual))
)
SELECT split, time_class, venue, checking_side, perpetual, games,
       sum(games) OVER (PARTITION BY split, time_class, venue, checking_side)::BIGINT AS repetition_draws,
       round(100.0 * games / repetition_draws, 2) AS pct
FROM counts
ORDER BY split_order DESC, time_class_order, venue, side_order, perpetual_order;
