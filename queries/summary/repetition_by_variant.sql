-- Question: the same as queries/repetition_by_variant.sql, answered from the summary table that ingest writes (counts
--   per source, month, time class, Elo band of 100 and variant), so it takes about a second over a
--   whole Lichess mirror instead of reading every game. Output: its rows without repetition_games, games_with_pseudo_or_hidden and drop_claims (counts of the games and events tables the summary does not keep).
-- Columns: summary.variant, games, skipped, threefold, fivefold, with_claim, missed.
-- Rules: as queries/repetition_by_variant.sql. Summary rows of skipped variants have games = 0; time_class NULL is
--   'unknown'. Filter the summary by source, month, time_class, elo_band or variant as you would
--   the games.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/summary/repetition_by_variant.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/summary/repetition_by_variant.sql').read()))"
WITH counts AS (
    SELECT variant,
           sum(games)::BIGINT AS n, sum(skipped)::BIGINT AS n_skipped,
           sum(threefold)::BIGINT AS n_threefold, sum(fivefold)::BIGINT AS n_fivefold,
           sum(with_claim)::BIGINT AS n_claim, sum(missed)::BIGINT AS n_missed
    FROM summary
    GROUP BY variant
)
SELECT variant, n AS games, n_skipped AS skipped, n_threefold AS threefold_games, n_fivefold AS fivefold_games,
       n_claim AS games_with_claim, n_missed AS games_with_missed_claim,
       round(100.0 * n_threefold / nullif(n, 0), 2) AS threefold_pct
FROM counts
ORDER BY games DESC, skipped DESC, variant;
