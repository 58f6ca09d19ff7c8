-- Question: were threefold claims passed over in time trouble? The share of claim opportunities
--   (Art. 9.2.1) the claimant let pass, by the claimant's remaining time then and by time class.
-- Columns: events.kind, claimable, ply, clock_ms; games.has_clocks, plies, claim_opportunities,
--   missed_claims, time_class, claimant.
-- Rules: an opportunity is a ply with a claimable `repetition` or a `claim_by_move` (its events
--   share the claimant's clock, `clock_ms`: the [%clk] after the claimant's previous move). It
--   was let pass (the column `missed`) when play went on after it (ply < plies) or when the game
--   has as many missed claims as opportunities (a decisive game): whether play then left the
--   repetition (missed_claims) or the game was drawn in it (passed_over_claims) is not asked here. Only games with
--   has_clocks (a [%clk] after every replayed move: Lichess since 2017, chess.com) count.
--   Clock bands: < 10 s, 10-30 s, 30-60 s, 1-3 min, >= 3 min (lower bound included).
-- Output: one row per split ('all', 'time_class') and clock band: games with clocks that had an
--   opportunity in the band, opportunities, missed ones and their share (%); the first row of
--   each split names the games with clocks it covers (`games_with_clocks`).
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/missed_claims_by_clock.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/missed_claims_by_clock.sql').read()))"
WITH clocked AS (
    SELECT source, frame_offset, byte_offset, plies, claim_opportunities, missed_claims, claimant,
           coalesce(time_class, 'unknown') AS time_class
    FROM games
    WHERE status <> 'skipped' AND (status = 'error' OR plies > 0) AND has_clocks
),
opportunities AS (
    SELECT e.source, e.frame_offset, e.byte_offset, e.ply, any_value(e.clock_ms) AS clock_ms,
           bool_or(e.kind = 'repetition') AS on_board
    FROM events e
    WHERE (e.kind = 'repetition' AND e.claimable) OR e.kind = 'claim_by_move'
    GROUP BY e.source, e.frame_offset, e.byte_offset, e.ply
),
classified AS (
    SELECT g.source, g.frame_offset, g.byte_offset, g.time_class,
           o.ply < g.plies OR g.missed_claims = g.claim_opportunities AS missed,
           CASE WHEN o.clock_ms < 10000 THEN '< 10 s'
                WHEN o.clock_ms < 30000 THEN '10-30 s'
                WHEN o.clock_ms < 60000 THEN '30-60 s'
                WHEN o.clock_ms < 180000 THEN '1-3 min'
                WHEN o.clock_ms >= 180000 THEN '>= 3 min'
                ELSE 'unknown' END AS clock_band
    FROM opportunities o JOIN clocked g ON g.source = o.source AND g.frame_offset = o.frame_offset AND g.byte_offset = o.byte_offset
    -- the program's claims are left out; by a declared move only where the side to move claimed
    WHERE g.claimant <> 'program' AND (o.on_board OR g.claimant = 'side_to_move')
),
coverage AS (
    SELECT 'all' AS split, 'all' AS time_class, count(*) AS games_with_clocks FROM clocked
    UNION ALL
    SELECT 'time_class', time_class, count(*) FROM clocked GROUP BY time_class
),
bands AS (
    SELECT
        CASE grouping(time_class) WHEN 1 THEN 'all' ELSE 'time_class' END AS split,
        coalesce(time_class, 'all') AS time_class,
        clock_band,
        count(DISTINCT (source, frame_offset, byte_offset)) AS games,
        count(*) AS opportunities,
        count(*) FILTER (missed) AS missed,
        round(100.0 * count(*) FILTER (missed) / count(*), 2) AS missed_pct
    FROM classified
    GROUP BY GROUPING SETS ((clock_band), (time_class, clock_band))
)
SELECT c.split, c.time_class, c.games_with_clocks, b.clock_band, b.games, b.opportunities, b.missed, b.missed_pct
FROM coverage c LEFT JOIN bands b ON b.split = c.split AND b.time_class = c.time_class
ORDER BY c.split,
         list_position(['ultrabullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'unknown'], c.time_class),
         list_position(['< 10 s', '10-30 s', '30-60 s', '1-3 min', '>= 3 min', 'unknown'], b.clock_band);
