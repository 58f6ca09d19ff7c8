-- Question: how often could a player claim a threefold repetition (Art. 9.2.1: the position on the
--   board a third time, or a declared move that makes it so) and missed it, play leaving the repetition? Split by time
--   class and by rating band; and what did the player who let the first claim pass score in the end?
-- Columns: games.status, venue, claimant, WhiteElo, BlackElo, time_class, claim_opportunities, missed_claims, and
--   of each kind claim_opportunities_on_board / _by_move, missed_claims_on_board / _by_move;
--   claimant_score_after_first_missed.
-- The claims of games whose program drew a threefold itself (claimant 'program': engine play, chess.com
--   since 2019) are left out; a claim by a declared move existed only where the side to move claimed
--   (claimant 'side_to_move'; docs/events.md, "The rules in force").
-- Rules: "missed" is the engine's definition (docs/events.md, Game summary): no claim ended the game
--   there (it went on past the position the claim is about: on the board the claim's own, by a
--   declared move the one that move makes when it was the move played; or it was decisive) and
--   play then left the repetition: a pawn move, capture or lost castling right followed, or the
--   game was not drawn. A claim let pass in a game that then ended drawn in the same repetition is
--   passed over (passed_over_claims), not missed. Per kind: games with a claim on the board and
--   how many missed one; the same for claims by a declared move (Lichess takes none: read the board-only
--   columns for Lichess games: lichess_id set, or a source named lichess...). Games with status 'skipped'
--   (variants not replayed) and games without a move are excluded: they have no summary and would dilute every rate; games
--   with a replay error count up to the bad move. Rating band = the game's venue, its rating pool (FIDE Elo over
--   the board, Lichess's Glicko-2, another server's, an engine list's: different scales), and the
--   lower of WhiteElo/BlackElo in bands of 200 ('lichess 1400-1599'; 'otb unknown' when either is
--   missing, as in old OTB files); time_class
--   'unknown' without one (docs/events.md).
-- Output: one row per split ('all', 'time_class', 'rating_band') and group: games, games with a
--   claim, games with a missed claim (share of those with a claim, and of all), opportunities, and
--   the claimant's results after the first missed claim (games with a known result only).
-- Run:
--   duckdb -init DIR/views.sql -c ".read queries/missed_claims.sql"
--   python -c "import duckdb; con=duckdb.connect(); con.execute(open('DIR/views.sql').read()); print(con.sql(open('queries/missed_claims.sql').read()))"
WITH base AS (
    SELECT * REPLACE (coalesce(time_class, 'unknown') AS time_class,
                      claims * claim_opportunities AS claim_opportunities, claims * missed_claims AS missed_claims,
                      claims * claim_opportunities_on_board AS claim_opportunities_on_board,
                      claims * missed_claims_on_board AS missed_claims_on_board,
                      claims * claim_opportunities_by_move AS claim_opportunities_by_move,
                      claims * missed_claims_by_move AS missed_claims_by_move,
                      CASE WHEN claims = 1 THEN claimant_score_after_first_missed END AS claimant_score_after_first_missed),
           CASE WHEN WhiteElo IS NOT NULL AND BlackElo IS NOT NULL
                THEN (floor(least(WhiteElo, BlackElo) / 200) * 200)::INTEGER END AS band_from,
           venue || ' ' || CASE WHEN band_from IS NULL THEN 'unknown'
                                ELSE format('{}-{}', band_from, band_from + 199) END AS rating_band,
           list_position(['otb', 'lichess', 'online', 'engine', 'unknown'], venue) AS pool_order,
           list_position(['ultrabullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'unknown'],
                         time_class) AS time_class_order
    FROM (SELECT *, CASE WHEN claimant = 'program' THEN 0 ELSE 1 END AS claims FROM games)
    WHERE status <> 'skipped' AND (status = 'error' OR plies > 0)
)
SELECT
    CASE grouping(time_class, rating_band) WHEN 3 THEN 'all' WHEN 1 THEN 'time_class' ELSE 'rating_band' END AS split,
    coalesce(time_class, 'all') AS time_class,
    coalesce(rating_band, 'all') AS rating_band,
    count(*) AS games,
    count(*) FILTER (claim_opportunities > 0) AS games_with_claim,
    count(*) FILTER (missed_claims > 0) AS games_with_missed_claim,
    round(100.0 * games_with_missed_claim / nullif(games_with_claim, 0), 2) AS missed_pct_of_claim_games,
    round(100.0 * games_with_missed_claim / games, 2) AS missed_pct_of_games,
    count(*) FILTER (claim_opportunities_on_board > 0) AS games_with_board_claim,
    count(*) FILTER (missed_claims_on_board > 0) AS games_with_missed_board_claim,
    round(100.0 * games_with_missed_board_claim / nullif(games_with_board_claim, 0), 2) AS missed_board_pct,
    count(*) FILTER (claim_opportunities_by_move > 0) AS games_with_move_claim,
    count(*) FILTER (missed_claims_by_move > 0) AS games_with_missed_move_claim,
    round(100.0 * games_with_missed_move_claim / nullif(games_with_move_claim, 0), 2) AS missed_move_pct,
    coalesce(sum(claim_opportunities), 0)::BIGINT AS opportunities,
    coalesce(sum(missed_claims), 0)::BIGINT AS missed_opportunities,
    count(claimant_score_after_first_missed) AS claimant_scored_games,
    count(*) FILTER (claimant_score_after_first_missed = 1) AS claimant_wins,
    count(*) FILTER (claimant_score_after_first_missed = 0.5) AS claimant_draws,
    count(*) FILTER (claimant_score_after_first_missed = 0) AS claimant_losses,
    round(avg(claimant_score_after_first_missed), 3) AS claimant_avg_score
FROM base
GROUP BY GROUPING SETS ((), (time_class), (rating_band))
ORDER BY grouping(time_class, rating_band) DESC,
         CASE WHEN grouping(time_class) = 0 THEN min(time_class_order) END,
         CASE WHEN grouping(rating_band) = 0 THEN min(pool_order) END,
         CASE WHEN grouping(rating_band) = 0 THEN min(band_from) END NULLS LAST;
