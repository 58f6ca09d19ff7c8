//! The computed figures of a report: one struct, filled by [`super::aggregate`], from which the
//! terminal table, the HTML page and `--json` are all rendered, so they cannot disagree.
//!
//! The grouping rules here are those of `queries/*.sql`; the tests compare the two.

use serde::Serialize;

use crate::read::key::GameKey;

/// First rating of the band of a game, from the lower of its two Elos (`None`, "unknown", when
/// either is missing, as in the queries: DuckDB's `least` would ignore a null), in bands of 200.
pub(crate) fn band_from(lower_elo: Option<i32>) -> Option<i32> {
    lower_elo.map(|e| e.div_euclid(200) * 200)
}

/// A rating band names its pool, the game's venue: FIDE's Elo over the board, Lichess's Glicko-2,
/// another server's or an engine list's ratings are different scales, and a band pooling them
/// would be a band by source ("lichess 1400-1599", "otb unknown" when either rating is missing).
pub(crate) fn band_label(venue: &str, from: Option<i32>) -> String {
    match from {
        Some(f) => format!("{venue} {f}-{}", f + 199),
        None => format!("{venue} unknown"),
    }
}

/// Per-group counts of games (all of them with status `ok` or `error`).
#[derive(Serialize, Default, Clone, Debug, PartialEq)]
pub struct Rates {
    pub games: u64,
    /// `max_occurrence >= 3`: a position stood on the board a third time.
    pub threefold: u64,
    /// `max_occurrence >= 5`.
    pub fivefold: u64,
    /// `claim_opportunities > 0`.
    pub with_claim: u64,
    /// `missed_claims > 0`: some opportunity at which no claim ended the game, after which play
    /// left the repetition.
    pub missed: u64,
    /// `passed_over_claims > 0` and `missed_claims = 0`: every claim not made was passed over,
    /// the game drawn in the same repetition.
    pub passed_over: u64,
    /// `claim_opportunities_on_board > 0`, and of those `missed_claims_on_board > 0`.
    pub with_claim_on_board: u64,
    pub missed_on_board: u64,
    /// `claim_opportunities_by_move > 0`, and of those `missed_claims_by_move > 0`.
    pub with_claim_by_move: u64,
    pub missed_by_move: u64,
}

impl Rates {
    pub fn add(&mut self, other: &Rates) {
        self.games += other.games;
        self.threefold += other.threefold;
        self.fivefold += other.fivefold;
        self.with_claim += other.with_claim;
        self.missed += other.missed;
        self.passed_over += other.passed_over;
        self.with_claim_on_board += other.with_claim_on_board;
        self.missed_on_board += other.missed_on_board;
        self.with_claim_by_move += other.with_claim_by_move;
        self.missed_by_move += other.missed_by_move;
    }

    /// These rates less `earlier` ones of the same games (a part of them).
    pub(crate) fn less(&self, earlier: &Rates) -> Rates {
        Rates {
            games: self.games - earlier.games,
            threefold: self.threefold - earlier.threefold,
            fivefold: self.fivefold - earlier.fivefold,
            with_claim: self.with_claim - earlier.with_claim,
            missed: self.missed - earlier.missed,
            passed_over: self.passed_over - earlier.passed_over,
            with_claim_on_board: self.with_claim_on_board - earlier.with_claim_on_board,
            missed_on_board: self.missed_on_board - earlier.missed_on_board,
            with_claim_by_move: self.with_claim_by_move - earlier.with_claim_by_move,
            missed_by_move: self.missed_by_move - earlier.missed_by_move,
        }
    }
}

#[derive(Serialize, Clone, Debug)]
pub struct Group {
    pub label: String,
    #[serde(flatten)]
    pub rates: Rates,
}

/// Final scores, from one player's side, of a set of games: here the player who let the first
/// claim pass (`claimant_score_after_first_missed`).
#[derive(Serialize, Default, Clone, Debug)]
pub struct Scores {
    /// Games with a known score.
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Scores {
    pub fn add(&mut self, other: &Scores) {
        self.games += other.games;
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }

    pub fn average(&self) -> Option<f64> {
        (self.games > 0).then(|| (self.wins as f64 + 0.5 * self.draws as f64) / self.games as f64)
    }
}

/// Claim opportunities (plies) on the board versus only by declaring a move.
#[derive(Serialize, Default, Clone, Debug)]
pub struct Claims {
    pub opportunities: u64,
    pub on_board: u64,
    pub by_move_only: u64,
    /// By-move-only opportunities where one of the declared moves was then played (as the game's
    /// last move that was the claim; otherwise it handed an on-board claim to the opponent).
    pub by_move_only_played: u64,
    pub games_with_on_board: u64,
    pub games_with_by_move_only: u64,
    /// Games whose every opportunity was by move only.
    pub games_only_by_move: u64,
}

/// Games with an edge case and the events behind them.
#[derive(Serialize, Default, Clone, Debug)]
pub struct EdgeCase {
    pub games: u64,
    pub events: u64,
}

#[derive(Serialize, Clone, Debug)]
pub struct Count {
    pub label: String,
    pub games: u64,
}

#[derive(Serialize, Clone, Debug)]
pub struct Bucket {
    pub from_ply: u32,
    pub games: u64,
}

/// One example game; `case` is `castling`, `en_passant` or `automatic_draw_ignored`.
#[derive(Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Example {
    pub case: String,
    pub source: String,
    /// The game's key in its source (`frame_offset`, `byte_offset` of the tables).
    pub frame_offset: u64,
    pub byte_offset: u64,
    pub white: Option<String>,
    pub black: Option<String>,
    pub event: Option<String>,
    /// `Date`, else `UTCDate` as YYYY.MM.DD.
    pub date: Option<String>,
    pub round: Option<String>,
    pub result: Option<String>,
    pub site: Option<String>,
    pub detail: String,
}

/// Every figure over one set of games: all the games a report is over, or one group of them.
#[derive(Serialize, Clone, Debug, Default)]
pub struct Stats {
    pub overall: Rates,
    /// Games with a claim whose program drew a threefold itself or adjudicated (`games.claimant`
    /// `program`: engine play, chess.com since June 2019): left out of the missed-claim figures;
    /// only the `by_venue` row of a venue whose every game is such (engine) counts them.
    pub left_out_with_claim: u64,
    /// The games played on Lichess (`Site` a lichess.org game, or a source named `lichess…`),
    /// where no claim by a declared move exists: their board-only figure is the one to read.
    pub lichess: Rates,
    /// By where the games were played (`games.venue`: `otb`, `lichess`, `online`, `engine`,
    /// `unknown`), the venues with games, in that order: their rules differ.
    pub by_venue: Vec<Group>,
    pub by_rating_band: Vec<Group>,
    pub by_time_class: Vec<Group>,
    /// Drawn games with an inferred `draw_reason`.
    pub drawn: u64,
    pub draw_reasons: Vec<Count>,
    /// Games drawn by `threefold` or `fivefold`, by `first_threefold_perpetual` (`white`,
    /// `black`, `both`, `none`).
    pub repetition_draws_by_perpetual: Vec<Count>,
    pub claimant: Scores,
    pub claims: Claims,
    /// Pseudo-repetitions with differs `castling` or `both`.
    pub castling: EdgeCase,
    /// Pseudo-repetitions with differs `en_passant` or `both`.
    pub en_passant: EdgeCase,
    pub hidden: EdgeCase,
    /// `plies_after_fivefold > 0`.
    pub after_fivefold: u64,
    /// `first_ply_halfmove_150 < plies`.
    pub after_75_moves: u64,
    /// Games by `first_ply_occurrence_3` in buckets of 10 plies.
    pub first_threefold_ply: Vec<Bucket>,
    /// Clocks and evaluations at the first (missed) claim.
    pub clocks: Clocks,
    /// Per month of the game's date (`UTCDate`, else a full `Date`), in order.
    pub by_month: Vec<Month>,
    /// Games without a full date: in every figure but the months.
    pub undated: u64,
}

/// One month of games.
#[derive(Serialize, Clone, Debug, Default)]
pub struct Month {
    /// `YYYY-MM`.
    pub month: String,
    #[serde(flatten)]
    pub rates: Rates,
    pub drawn: u64,
    pub draw_reasons: Vec<Count>,
}

/// The figures of one group of `--by`.
#[derive(Serialize, Clone, Debug, Default)]
pub struct GroupStats {
    pub label: String,
    #[serde(flatten)]
    pub stats: Stats,
}

#[derive(Serialize, Clone, Debug, Default)]
pub struct Report {
    /// The dataset directory as given.
    pub dataset: String,
    /// The games the report is over, in words (`all games` without a filter).
    pub filter_text: String,
    pub filter: super::filter::Filter,
    /// What `--by` groups by, if given.
    pub by: Option<String>,
    /// `value` with `--sort value` (groups by their threefold rate, highest first; each chart of
    /// groups as rows by its own value); absent for the grouping's own order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort: Option<String>,
    /// Groups under this many games (a rate's denominator) are marked and greyed.
    pub min_games: u64,
    pub sources: Vec<String>,
    /// Sources whose partition was written with other rules or another schema than this tool's
    /// (the next `ingest` of their inputs re-ingests them).
    pub stale_sources: Vec<String>,
    /// All rows of `games`, skipped variants included, before the filter.
    pub rows: u64,
    /// Rows that pass the filter (skipped variants included).
    pub matched: u64,
    /// Matched games with status `skipped`: left out of every figure below.
    pub skipped: u64,
    /// Matched games with no moves (replayed, 0 plies): left out of every figure below.
    pub no_moves: u64,
    /// Events of a source whose commit a killed run left unfinished that match no game (the two
    /// tables then come from different runs): left out, and said.
    pub unmatched_events: u64,
    /// The figures over every matched game.
    #[serde(flatten)]
    pub all: Stats,
    /// The same figures per group of `--by`, in the group's order.
    pub groups: Vec<GroupStats>,
    pub examples: Vec<Example>,
    /// Games that are copies of another in the selection (`--dedup`: left out).
    pub copies: Copies,
}

impl Example {
    pub fn game_key(&self) -> GameKey {
        GameKey { frame_offset: self.frame_offset, byte_offset: self.byte_offset }
    }

    /// The command that shows this game's timeline, in the dataset at `dataset`.
    pub fn command(&self, dataset: &str) -> String {
        let quote = |s: &str| {
            if s.bytes().all(|b| b.is_ascii_alphanumeric() || b"_./-=".contains(&b)) {
                s.to_owned()
            } else {
                format!("'{}'", s.replace('\'', "'\\''"))
            }
        };
        let key = self.game_key().text();
        format!("threefold explain {} --source {} --game {key}", quote(dataset), quote(&self.source))
    }

    /// The file name of this game's `explain` page beside the report page:
    /// `<source>-<key>.html`, the key's `:` a `-`, any character of the source but a letter, a
    /// digit, `.`, `_` or `-` a `_`.
    pub fn page_name(&self) -> String {
        let source: String =
            self.source.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
        format!("{source}-{}.html", self.game_key().text().replace(':', "-"))
    }

    /// The game as a reader names it: its source and where it starts (`source @byte`, or
    /// `source @frame:byte` in a pzstd file).
    pub fn place(&self) -> String {
        format!("{} @{}", self.source, self.game_key().text())
    }
}

/// Clock bands, lower bound included: < 10 s, 10-30 s, 30-60 s, 1-3 min, >= 3 min.
pub(crate) const CLOCK_BANDS: [&str; 5] = ["< 10 s", "10-30 s", "30-60 s", "1-3 min", ">= 3 min"];

/// Evaluation bands from the claimant's side (thresholds in `missed_claims_by_eval.sql`).
pub(crate) const EVAL_BANDS: [&str; 4] = ["clearly worse", "about equal", "clearly better", "no evaluation"];

/// Games whose first claim opportunity fell in a clock band, and in how many it was missed.
#[derive(Serialize, Default, Clone, Debug, PartialEq)]
pub struct ClockBand {
    pub label: String,
    pub games: u64,
    pub passed_over: u64,
}

/// Games whose first missed claim fell in an evaluation band, and the claimant's final score.
#[derive(Serialize, Default, Clone, Debug)]
pub struct EvalBand {
    pub label: String,
    pub games: u64,
    pub claimant: Scores,
}

#[derive(Serialize, Clone, Debug)]
pub struct Clocks {
    /// Games (status ok or error) with a clock after every replayed move.
    pub games_with_clocks: u64,
    pub first_claim_by_clock: Vec<ClockBand>,
    /// Games with at least one evaluation.
    pub games_with_evals: u64,
    pub first_missed_by_eval: Vec<EvalBand>,
}

impl Default for Clocks {
    fn default() -> Self {
        Clocks {
            games_with_clocks: 0,
            first_claim_by_clock: CLOCK_BANDS
                .iter()
                .map(|l| ClockBand { label: (*l).into(), ..Default::default() })
                .collect(),
            games_with_evals: 0,
            first_missed_by_eval: EVAL_BANDS
                .iter()
                .map(|l| EvalBand { label: (*l).into(), ..Default::default() })
                .collect(),
        }
    }
}

/// What a report says of copies (`copies` in `--json`).
#[derive(Serialize, Clone, Debug, Default)]
pub struct Copies {
    /// Replayed games in the selection, copies included (skipped ones have no fingerprint and
    /// are never copies).
    pub games: u64,
    /// Distinct fingerprints among them, estimated (about 1.6% error); `None` where part of the
    /// selection was ingested before fingerprints existed.
    pub distinct_estimate: Option<u64>,
    /// `games - distinct_estimate`.
    pub copies_estimate: Option<u64>,
    /// With `--dedup`: the copies left out of every figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_out: Option<LeftOut>,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct LeftOut {
    pub copies: u64,
    /// By the copy's source, in source order.
    pub by_source: Vec<SourceCopies>,
}

#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct SourceCopies {
    pub source: String,
    pub copies: u64,
    /// The sources of the games kept in their place.
    pub of_sources: Vec<String>,
}
