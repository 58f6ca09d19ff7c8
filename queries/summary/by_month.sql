-- Question: the same as queries/by_month.sql, answered from the summary table that ingest writes (counts
--   per source, month, time class, Elo band of 100 and variant), so it takes about a second over a
--   whole Lichess mirror instead of reading every game. Output: the same rows and columns.
-- Columns: summary.month, claimant, games, threefold, with_claim, missed, drawn_<reason> (one column per draw reason).
-- Rules: as queries/by_month.sql. Summary rows of skipped variants have games = 0 and are left out; a
--   band of 200 is elo_band (of 100) rounded down to 200; time_class NULL is 'unknown'. Filter the
--   summary by source, month, time_class, elo_band or variant as you would the games.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/summary/by_month.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/summary/by_month.sql').read()))"
WITH dated AS (
    SELECT * FROM summary WHERE games > 0 AND month IS NOT NULL
),
months AS (
    SELECT month,
           sum(d.games)::BIGINT AS games,
           sum(d.threefold)::BIGINT AS threefold_games,
           coalesce(sum(d.with_claim) FILTER (d.claimant <> 'program'), 0)::BIGINT AS games_with_claim,
           coalesce(sum(d.missed) FILTER (d.claimant <> 'program'), 0)::BIGINT AS games_with_missed_claim,
           sum(d.drawn_stalemate + d.drawn_insufficient_material + d.drawn_fivefold + d.drawn_seventy_five_moves
               + d.drawn_threefold + d.drawn_threefold_by_move + d.drawn_fifty_moves + d.drawn_adjudication
               + d.drawn_timeout_vs_insufficient_material + d.drawn_agreement + d.drawn_agreement_or_unrecorded)::BIGINT AS drawn
    FROM dated d
    GROUP BY month
),
reasons AS (
    SELECT month, draw_reason[7:] AS draw_reason, sum(n)::BIGINT AS reason_games
    FROM (UNPIVOT (SELECT month, COLUMNS('^drawn_') FROM dated) ON COLUMNS('^drawn_') INTO NAME draw_reason VALUE n)
    GROUP BY ALL
    HAVING sum(n) > 0
)
SELECT m.month, m.games, m.threefold_games, m.games_with_claim, m.games_with_missed_claim, m.drawn,
       r.draw_reason, coalesce(r.reason_games, 0) AS reason_games,
       round(100.0 * m.threefold_games / m.games, 2) AS threefold_pct,
       round(100.0 * m.games_with_missed_claim / nullif(m.games_with_claim, 0), 2) AS missed_pct,
       round(100.0 * r.reason_games / nullif(m.drawn, 0), 2) AS reason_pct
FROM months m
LEFT JOIN reasons r USING (month)
ORDER BY m.month,
         list_position(['stalemate', 'insufficient_material', 'fivefold', 'seventy_five_moves', 'threefold',
                          'threefold_by_move', 'fifty_moves', 'adjudication', 'timeout_vs_insufficient_material', 'agreement', 'agreement_or_unrecorded'], r.draw_reason);
