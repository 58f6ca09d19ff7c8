-- Question: how often do en-passant rights decide whether a position repeats (Art. 9.2.2: the same
--   position needs the same possible moves, e.p. captures included)? Two cases: a board that
--   repeats while the legal e.p. right differs (not a repetition), and a FIDE repetition that a
--   comparison of FEN strings would miss because a double push wrote an e.p. square with no legal
--   capture (a hidden repetition). Rates per 1,000 games, and the games themselves.
-- Columns: events.kind, differs, ply, fullmove, board_occurrence, fide_occurrence, fen_occurrence;
--   games.status, Site, White, Black, Event, Date (else UTCDate), Round, Result.
-- Rules: e.p. pseudo-repetition = `pseudo_repetition` with differs 'en_passant' or 'both';
--   hidden = `hidden_repetition`. would_be_claim: a board-only count reached 3 while the FIDE count
--   stayed below 3 (a wrongly allowed claim). fen_misses_claim: the FIDE count reached 3 while the
--   FEN count stayed below 3 (a valid claim a FEN comparison would refuse). Rates are over games
--   with status 'ok' or 'error' (skipped variants are not replayed and would dilute them).
-- Output: the totals (games; games with an e.p. pseudo-repetition, with a hidden repetition, and
--   per 1,000 games each) on every row, then one row per game with either case: flagged games
--   first, then by source and key (frame_offset, byte_offset), at most 100 rows (one row of totals with empty game
--   columns when there is no case).
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/en_passant_edge_cases.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/en_passant_edge_cases.sql').read()))"
WITH base AS (
    SELECT * FROM games WHERE status <> 'skipped' AND (status = 'error' OR plies > 0)
),
cases AS (
    SELECT source, frame_offset, byte_offset,
           count(*) FILTER (kind = 'pseudo_repetition') AS pseudo_events,
           count(*) FILTER (kind = 'hidden_repetition') AS hidden_events,
           min(ply) AS first_ply,
           arg_min(fullmove, ply) AS first_move,
           coalesce(bool_or(kind = 'pseudo_repetition' AND board_occurrence >= 3 AND fide_occurrence < 3), false)
               AS would_be_claim,
           coalesce(bool_or(kind = 'hidden_repetition' AND fide_occurrence >= 3 AND fen_occurrence < 3), false)
               AS fen_misses_claim
    FROM events
    WHERE (kind = 'pseudo_repetition' AND differs IN ('en_passant', 'both')) OR kind = 'hidden_repetition'
    GROUP BY source, frame_offset, byte_offset
),
examples AS (
    SELECT c.*, g.White, g.Black, g.Event,
           coalesce(g.Date, strftime(g.UTCDate, '%Y.%m.%d')) AS date, g.Round, g.Result, g.Site
    FROM cases c JOIN base g USING (source, frame_offset, byte_offset)
),
counts AS (
    SELECT (SELECT count(*) FROM base) AS games,
           (SELECT count(*) FILTER (pseudo_events > 0) FROM examples) AS games_with_ep_pseudo,
           (SELECT count(*) FILTER (hidden_events > 0) FROM examples) AS games_with_hidden
),
totals AS (
    SELECT games,
           games_with_ep_pseudo, round(1000.0 * games_with_ep_pseudo / nullif(games, 0), 3) AS ep_pseudo_per_1000_games,
           games_with_hidden, round(1000.0 * games_with_hidden / nullif(games, 0), 3) AS hidden_per_1000_games
    FROM counts
)
SELECT t.*, e.source, e.frame_offset, e.byte_offset, e.White, e.Black, e.Event, e.date, e.Round, e.Result, e.Site,
       e.first_ply, e.first_move, e.pseudo_events, e.hidden_events, e.would_be_claim, e.fen_misses_claim
FROM totals t LEFT JOIN examples e ON true
ORDER BY (e.would_be_claim OR e.fen_misses_claim) DESC NULLS LAST, e.source, e.frame_offset, e.byte_offset
LIMIT 100;
