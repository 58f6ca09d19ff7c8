-- Question: how often could a threefold be claimed only by declaring a move (Art. 9.2.1.1: "I will
--   play this move, and the position will then stand for the third time"), as against a claim on
--   the board (9.2.1.2)? Lichess cannot take such claims; over the board the player has to write the
--   move down and stop the clock instead of playing it.
-- Columns: events.kind, claimable, played, source, frame_offset, byte_offset, ply; games.status, time_class, claimant.
-- The claims of games whose program drew a threefold itself (claimant 'program': engine play, chess.com
--   since 2019) are left out; a claim by a declared move existed only where the side to move claimed
--   (claimant 'side_to_move'; docs/events.md, "The rules in force").
-- Rules: an opportunity is a ply where the side to move could claim: a `repetition` with
--   claimable = true (on the board), or at least one `claim_by_move` event. It is "by move only"
--   when that ply has claim_by_move events but no claimable repetition. by_move_only_played counts
--   those where one of the claimable moves was then played without a claim (which hands an
--   on-board claim to the opponent). Games with status 'skipped' have no events and are excluded
--   from `games`; time_class 'unknown' without one (docs/events.md).
-- Output: one row per split ('all', 'time_class'): games, opportunities (equals the sum of
--   games.claim_opportunities), on the board / by move only (count and share), and games with
--   each kind, including games whose every opportunity was by move only.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/claim_by_move_only.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/claim_by_move_only.sql').read()))"
WITH base AS (
    SELECT source, frame_offset, byte_offset, claimant, coalesce(time_class, 'unknown') AS time_class,
           list_position(['ultrabullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'unknown'],
                         coalesce(time_class, 'unknown')) AS time_class_order
    FROM games
    WHERE status <> 'skipped' AND (status = 'error' OR plies > 0)
),
opportunities AS (
    SELECT source, frame_offset, byte_offset, ply,
           bool_or(kind = 'repetition') AS on_board,
           bool_or(kind = 'claim_by_move' AND played) AS move_played
    FROM events JOIN base USING (source, frame_offset, byte_offset)
    WHERE claimant <> 'program'
      AND ((kind = 'repetition' AND claimable) OR (kind = 'claim_by_move' AND claimant = 'side_to_move'))
    GROUP BY source, frame_offset, byte_offset, ply
),
per_game AS (
    SELECT source, frame_offset, byte_offset,
           count(*) AS opportunities,
           count(*) FILTER (on_board) AS on_board,
           count(*) FILTER (NOT on_board) AS by_move_only,
           count(*) FILTER (NOT on_board AND move_played) AS by_move_only_played
    FROM opportunities
    GROUP BY source, frame_offset, byte_offset
)
SELECT
    CASE grouping(time_class) WHEN 1 THEN 'all' ELSE 'time_class' END AS split,
    coalesce(time_class, 'all') AS time_class,
    count(*) AS games,
    coalesce(sum(opportunities), 0)::BIGINT AS opportunities,
    coalesce(sum(on_board), 0)::BIGINT AS on_board,
    coalesce(sum(by_move_only), 0)::BIGINT AS by_move_only,
    round(100.0 * sum(by_move_only) / nullif(sum(opportunities), 0), 2) AS by_move_only_pct,
    coalesce(sum(by_move_only_played), 0)::BIGINT AS by_move_only_played,
    count(*) FILTER (opportunities > 0) AS games_with_claim,
    count(*) FILTER (on_board > 0) AS games_with_on_board,
    count(*) FILTER (by_move_only > 0) AS games_with_by_move_only,
    count(*) FILTER (by_move_only > 0 AND on_board = 0) AS games_only_by_move
FROM base LEFT JOIN per_game USING (source, frame_offset, byte_offset)
GROUP BY GROUPING SETS ((), (time_class))
ORDER BY grouping(time_class) DESC, CASE WHEN grouping(time_class) = 0 THEN min(time_class_order) END;
