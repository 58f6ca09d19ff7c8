-- Question: does repetition change over time? Per month of the game's date: the share of games
--   reaching a threefold, the share of games with a claim in which play went on, and how draws
--   ended (the report's time series).
-- Columns: games.status, UTCDate, Date, max_occurrence, claim_opportunities, missed_claims,
--   draw_reason, claimant.
-- Rules: a game's date is UTCDate, else Date where it is a full date (YYYY.MM.DD exactly and a
--   calendar date; '1986.??.??' is not): games without one are left out. Rates are over games with
--   status 'ok' or 'error' (skipped variants are not replayed); threefold = max_occurrence >= 3;
--   went on = missed_claims > 0, over games with claim_opportunities > 0. The report shows years
--   instead of months when there are more than 120 months.
-- Output: one row per month and draw reason present that month (draw_reason NULL on a row of a
--   month without drawn games): month (YYYY-MM), games, threefold_games, games_with_claim,
--   games_with_missed_claim, drawn (games with a draw reason), reason_games, and the rates in
--   percent.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/by_month.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/by_month.sql').read()))"
WITH dated AS (
    SELECT *,
           coalesce(UTCDate,
                    CASE WHEN regexp_full_match(Date, '[0-9]{4}\.[0-9]{2}\.[0-9]{2}')
                         THEN try_strptime(Date, '%Y.%m.%d')::DATE END) AS game_date
    FROM games
    WHERE status <> 'skipped' AND (status = 'error' OR plies > 0)
),
months AS (
    SELECT strftime(game_date, '%Y-%m') AS month,
           count(*) AS games,
           count(*) FILTER (max_occurrence >= 3) AS threefold_games,
           -- the claims of games whose program drew a threefold itself are left out
           -- (docs/events.md, "The rules in force")
           count(*) FILTER (claim_opportunities > 0 AND claimant <> 'program') AS games_with_claim,
           count(*) FILTER (missed_claims > 0 AND claimant <> 'program') AS games_with_missed_claim,
           count(draw_reason) AS drawn
    FROM dated
    WHERE game_date IS NOT NULL
    GROUP BY month
),
reasons AS (
    SELECT strftime(game_date, '%Y-%m') AS month, draw_reason, count(*) AS reason_games
    FROM dated
    WHERE game_date IS NOT NULL AND draw_reason IS NOT NULL
    GROUP BY month, draw_reason
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
