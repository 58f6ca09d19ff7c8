-- Question: how often does a board position repeat while castling rights differ, so that it is not
--   the same position under Art. 9.2.2 (the Karpov–Miles pattern, Tilburg 1986: the board stood
--   there three times but the claim was invalid)? Rate per 1,000 games, and the games themselves.
-- Columns: events.kind, differs, ply, fullmove, board_occurrence, fide_occurrence; games.status,
--   Site, White, Black, Event, Date (else UTCDate), Round, Result.
-- Rules: a case is a `pseudo_repetition` event with differs 'castling' or 'both' (castling rights
--   and the legal e.p. square both differ). would_be_claim marks a game where a board-only count
--   reached 3 while the FIDE count stayed below 3: a wrongly allowed claim. The rate is over games
--   with status 'ok' or 'error' (skipped variants are not replayed and would dilute it).
-- Output: the totals (games, games_with_case, per_1000_games, case_events) on every row, then one
--   row per game with a case: would_be_claim games first, then by source and key (frame_offset, byte_offset), at most
--   100 rows (one row of totals with empty game columns when there is no case).
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/castling_rights_edge_cases.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/castling_rights_edge_cases.sql').read()))"
WITH base AS (
    SELECT * FROM games WHERE status <> 'skipped' AND (status = 'error' OR plies > 0)
),
cases AS (
    SELECT source, frame_offset, byte_offset,
           count(*) AS events,
           count(*) FILTER (differs = 'both') AS both_events,
           min(ply) AS first_ply,
           arg_min(fullmove, ply) AS first_move,
           max(board_occurrence) AS max_board_occurrence,
           bool_or(board_occurrence >= 3 AND fide_occurrence < 3) AS would_be_claim
    FROM events
    WHERE kind = 'pseudo_repetition' AND differs IN ('castling', 'both')
    GROUP BY source, frame_offset, byte_offset
),
examples AS (
    SELECT c.*, g.White, g.Black, g.Event,
           coalesce(g.Date, strftime(g.UTCDate, '%Y.%m.%d')) AS date, g.Round, g.Result, g.Site
    FROM cases c JOIN base g USING (source, frame_offset, byte_offset)
),
counts AS (
    SELECT (SELECT count(*) FROM base) AS games,
           (SELECT count(*) FROM examples) AS games_with_case,
           (SELECT coalesce(sum(events), 0) FROM examples)::BIGINT AS case_events
),
totals AS (
    SELECT games, games_with_case, round(1000.0 * games_with_case / nullif(games, 0), 3) AS per_1000_games, case_events
    FROM counts
)
SELECT t.*, e.source, e.frame_offset, e.byte_offset, e.White, e.Black, e.Event, e.date, e.Round, e.Result, e.Site,
       e.first_ply, e.first_move, e.events, e.both_events, e.max_board_occurrence, e.would_be_claim
FROM totals t LEFT JOIN examples e ON true
ORDER BY e.would_be_claim DESC NULLS LAST, e.source, e.frame_offset, e.byte_offset
LIMIT 100;
