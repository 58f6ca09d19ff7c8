-- Question: how does repetition behave across the variants? Per variant (replay_variant):
--   how many games repeat a position, reach a threefold or fivefold, could claim and missed it,
--   how many claims by move declare a drop (crazyhouse), and how many games were not replayed.
-- Columns: games.status, replay_variant, max_occurrence, claim_opportunities, missed_claims,
--   pseudo_repetitions, hidden_repetitions; events.kind, events.san.
-- Rules: replay_variant is standard, chess960, a Lichess variant by Lichess's key (crazyhouse,
--   threeCheck, atomic, antichess, kingOfTheHill, horde, racingKings; docs/format.md "Variants"),
--   or the Variant tag of a skipped game. Each variant counts by its own identity and window
--   (pockets in crazyhouse, checks left in three-check). Games replayed = status ok or error
--   (an error keeps the plies before it); skipped games are counted apart and have no figures.
-- Output: one row per variant, most games first: games replayed, skipped, with a repetition
--   (max_occurrence >= 2), threefold (>= 3), fivefold (>= 5), with a claim opportunity, with a
--   missed one, with a pseudo- or hidden repetition, claim-by-move events declaring a drop, and
--   the threefold share of the replayed games in percent.
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/repetition_by_variant.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/repetition_by_variant.sql').read()))"
WITH drops AS (
    SELECT source, frame_offset, byte_offset, count(*) AS drop_claims
    FROM events
    WHERE kind = 'claim_by_move' AND contains(san, '@')
    GROUP BY ALL
),
per_game AS (
    SELECT g.replay_variant AS variant, g.status, g.plies, g.max_occurrence, g.claim_opportunities, g.missed_claims,
           g.pseudo_repetitions, g.hidden_repetitions, coalesce(d.drop_claims, 0) AS drop_claims
    FROM games g
    LEFT JOIN drops d USING (source, frame_offset, byte_offset)
)
SELECT variant,
       count(*) FILTER (WHERE status <> 'skipped' AND (status = 'error' OR plies > 0)) AS games,
       count(*) FILTER (WHERE status = 'skipped') AS skipped,
       count(*) FILTER (WHERE max_occurrence >= 2) AS repetition_games,
       count(*) FILTER (WHERE max_occurrence >= 3) AS threefold_games,
       count(*) FILTER (WHERE max_occurrence >= 5) AS fivefold_games,
       count(*) FILTER (WHERE claim_opportunities > 0) AS games_with_claim,
       count(*) FILTER (WHERE missed_claims > 0) AS games_with_missed_claim,
       count(*) FILTER (WHERE pseudo_repetitions > 0 OR hidden_repetitions > 0) AS games_with_pseudo_or_hidden,
       sum(drop_claims)::BIGINT AS drop_claims,
       round(100.0 * threefold_games / nullif(games, 0), 2) AS threefold_pct
FROM per_game
GROUP BY variant
ORDER BY games DESC, skipped DESC, variant;
