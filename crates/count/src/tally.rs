//! Counting games into the figures of one set of games (all of a report's games, or one group):
//! [`GameRecord`] is one game, [`SummaryCounts`] the summary's counts of a set of games (its
//! `Counts`, declared with what a game adds to each in `dataset::schema::summary`), [`Tally`]
//! those and the groups' rates, and [`Tally::finish`] the [`Stats`] in display order, the
//! figures made of the counts by `views`.

use std::collections::{BTreeMap, HashMap};

use crate::{
    dataset::schema::summary::{Counts, Game},
    engine::{event::Perpetual, laws::Claimant, summary::DrawReason, vocabulary::TimeClass},
    pgn::venue::Venue,
};

use super::{
    model::{
        Bucket, CLOCK_BANDS, Claims, ClockBand, Clocks, Count, EVAL_BANDS, EdgeCase, EvalBand, Group, Month, Rates,
        Scores, Stats, band_label,
    },
    tables::civil_from_days,
};

/// How the report (and `queries/repetition_kinds.sql`) names a null `first_threefold_perpetual`.
pub const NO_PERPETUAL: &str = "none";

/// One game, as the figures see it: what the summary counts of it ([`Game`], whose counts are
/// declared with what a game adds to each: [`Counts::of`]), and how the report groups it.
pub(crate) struct GameRecord<'a> {
    pub game: Game,
    /// Where the game was played (`games.venue`).
    pub venue: Venue,
    /// Who could claim a threefold (`games.claimant`).
    pub claimant: Claimant,
    pub band: Option<i32>,
    pub time_class: &'a str,
    /// `games.draw_reason`: a name that no count of [`Counts`] has (`game.drawn` is `None`) is
    /// counted by name.
    pub draw_reason: Option<&'a str>,
    pub first_threefold: Option<u32>,
    /// Days since 1970-01-01.
    pub date: Option<i32>,
}

/// The game with no claim: how the missed-claim figures count a game whose claims were not the
/// players' ([`leaves_out_claims`]; [`leave_out_claims`] does the same to counts).
fn without_claims(game: &Game) -> Game {
    Game {
        with_claim: false,
        missed: false,
        passed_over: false,
        on_board: (false, false),
        by_move: (false, false),
        score: None,
        first_claim_clock: None,
        first_claim_passed_over: false,
        first_missed_eval: None,
        claims_on_board: 0,
        claims_by_move_only: 0,
        claims_by_move_only_played: 0,
        ..*game
    }
}

/// Drops the claims from counts, as [`without_claims`] does game by game (a test checks the
/// two against each other): the claims and their claimant's results, and the first claim's
/// clock and evaluation bands (with no claim there is no first one).
fn leave_out_claims(c: &Counts) -> Counts {
    Counts {
        with_claim: 0,
        missed: 0,
        passed_over: 0,
        with_claim_on_board: 0,
        missed_on_board: 0,
        with_claim_by_move: 0,
        missed_by_move: 0,
        claimant_games: 0,
        claimant_wins: 0,
        claimant_draws: 0,
        claimant_losses: 0,
        claim_opportunities: 0,
        claims_on_board: 0,
        claims_by_move_only: 0,
        claims_by_move_only_played: 0,
        games_with_on_board_claims: 0,
        games_with_by_move_only_claims: 0,
        games_only_by_move: 0,
        first_claim_clock_under_10s_games: 0,
        first_claim_clock_under_10s_passed_over: 0,
        first_claim_clock_10_30s_games: 0,
        first_claim_clock_10_30s_passed_over: 0,
        first_claim_clock_30_60s_games: 0,
        first_claim_clock_30_60s_passed_over: 0,
        first_claim_clock_1_3min_games: 0,
        first_claim_clock_1_3min_passed_over: 0,
        first_claim_clock_3min_plus_games: 0,
        first_claim_clock_3min_plus_passed_over: 0,
        first_missed_eval_worse_games: 0,
        first_missed_eval_worse_claimant_games: 0,
        first_missed_eval_worse_claimant_wins: 0,
        first_missed_eval_worse_claimant_draws: 0,
        first_missed_eval_worse_claimant_losses: 0,
        first_missed_eval_equal_games: 0,
        first_missed_eval_equal_claimant_games: 0,
        first_missed_eval_equal_claimant_wins: 0,
        first_missed_eval_equal_claimant_draws: 0,
        first_missed_eval_equal_claimant_losses: 0,
        first_missed_eval_better_games: 0,
        first_missed_eval_better_claimant_games: 0,
        first_missed_eval_better_claimant_wins: 0,
        first_missed_eval_better_claimant_draws: 0,
        first_missed_eval_better_claimant_losses: 0,
        first_missed_eval_none_games: 0,
        first_missed_eval_none_claimant_games: 0,
        first_missed_eval_none_claimant_wins: 0,
        first_missed_eval_none_claimant_draws: 0,
        first_missed_eval_none_claimant_losses: 0,
        ..*c
    }
}

#[derive(Default, Clone)]
struct MonthTally {
    rates: Rates,
    /// Drawn games by reason.
    reasons: Reasons,
}

/// Games by draw reason: the reasons of [`DrawReason::ALL`] by position, any other name apart.
#[derive(Default, Clone)]
struct Reasons {
    known: [u64; DrawReason::ALL.len()],
    other: Vec<(String, u64)>,
}

// `Reasons` counts a reason at its position in `DrawReason::ALL`, which is its value.
const _: () = {
    let mut i = 0;
    while i < DrawReason::ALL.len() {
        assert!(DrawReason::ALL[i] as usize == i);
        i += 1;
    }
};

impl Reasons {
    fn add(&mut self, reason: Option<DrawReason>, name: &str, n: u64) {
        match reason {
            Some(r) => self.known[r as usize] += n,
            None => match self.other.iter_mut().find(|(label, _)| label == name) {
                Some((_, count)) => *count += n,
                None => self.other.push((name.to_owned(), n)),
            },
        }
    }

    fn merge(&mut self, other: &Reasons) {
        for (a, b) in self.known.iter_mut().zip(other.known) {
            *a += b;
        }
        for (name, n) in &other.other {
            self.add(None, name, *n);
        }
    }

    /// Drawn games, whatever the reason.
    fn total(&self) -> u64 {
        self.known.iter().sum::<u64>() + self.other.iter().map(|(_, n)| n).sum::<u64>()
    }

    /// The reasons with games, in [`DrawReason::ALL`] order, other names after them by name.
    fn counts(&self) -> Vec<Count> {
        let mut other: Vec<Count> =
            self.other.iter().map(|(label, games)| Count { label: label.clone(), games: *games }).collect();
        other.sort_by(|a, b| a.label.cmp(&b.label));
        DrawReason::ALL
            .iter()
            .zip(self.known)
            .filter(|&(_, games)| games > 0)
            .map(|(r, games)| Count { label: r.as_str().to_owned(), games })
            .chain(other)
            .collect()
    }
}

/// The counts of a set of games that do not depend on the games' month, time class, rating band
/// or source: what a summary row stores ([`SummaryCounts::summary_counts`]), and the core of a
/// [`Tally`]. Made without allocating (ingest makes one per summary row).
#[derive(Default, Clone)]
pub(crate) struct SummaryCounts {
    counts: Counts,
    /// Drawn games whose reason no count has (by name; a summary row keeps only the counts).
    other_reasons: Reasons,
    /// Games by the first ply of a threefold, in buckets of 10 plies.
    buckets: BTreeMap<u32, u64>,
}

/// Running counts.
#[derive(Default, Clone)]
pub(crate) struct Tally {
    counts: SummaryCounts,
    /// By venue, in [`Venue::ALL`]'s order.
    venues: [VenueRates; Venue::ALL.len()],
    /// Keyed by venue (a rating pool, in [`Venue::ALL`]'s order), then so that bands sort by
    /// rating with `unknown` last.
    bands: BTreeMap<(usize, bool, i32), Rates>,
    time_classes: HashMap<String, Rates>,
    /// Keyed by year * 12 + month - 1.
    months: BTreeMap<i64, MonthTally>,
    undated: u64,
    /// Games with a claim whose claims were left out ([`leaves_out_claims`]).
    left_out_with_claim: u64,
}

/// A venue's rates: as the headline counts them, but for a venue whose every game's claims were
/// the program's (engine play), whose row shows those.
#[derive(Clone, Debug, Default)]
struct VenueRates {
    /// Every game's claims.
    all: Rates,
    /// The players' claims alone ([`leaves_out_claims`]).
    players: Rates,
    /// Games whose players could claim.
    players_games: u64,
}

impl VenueRates {
    fn add(&mut self, all: &Rates, players: &Rates, players_games: u64) {
        self.all.add(all);
        self.players.add(players);
        self.players_games += players_games;
    }

    fn rates(self) -> Rates {
        if self.players_games > 0 { self.players } else { self.all }
    }
}

impl SummaryCounts {
    /// Counts one game as `game` (the record's own, or without its claims).
    pub(crate) fn add(&mut self, g: &GameRecord, game: &Game) {
        self.counts.add_game(game);
        if let Some(name) = g.draw_reason.filter(|_| game.drawn.is_none()) {
            self.other_reasons.add(DrawReason::parse(name), name, 1);
        }
        if let Some(p) = g.first_threefold {
            *self.buckets.entry(p / 10 * 10).or_default() += 1;
        }
    }

    /// Adds another set of games' counts.
    pub(super) fn merge(&mut self, other: SummaryCounts) {
        let SummaryCounts { counts, other_reasons, buckets } = other;
        self.counts.add(&counts);
        self.other_reasons.merge(&other_reasons);
        for (key, n) in buckets {
            *self.buckets.entry(key).or_default() += n;
        }
    }

    /// The counts of one summary row's games, and the first-threefold buckets.
    pub(crate) fn summary_counts(&self) -> (Counts, Vec<(u32, u64)>) {
        (self.counts, self.buckets.iter().map(|(&k, &n)| (k, n)).collect())
    }

    /// The counts of one summary row ([`SummaryCounts::summary_counts`]).
    pub(crate) fn from_summary(counts: &Counts, buckets: &[(u32, u64)]) -> SummaryCounts {
        SummaryCounts {
            counts: *counts,
            other_reasons: Reasons::default(),
            buckets: buckets.iter().filter(|(_, n)| *n > 0).copied().collect(),
        }
    }

    /// Drawn games by reason: the counts', then the other names.
    fn reasons(&self) -> Reasons {
        let mut reasons = reasons_of(&self.counts);
        reasons.merge(&self.other_reasons);
        reasons
    }
}

/// The report's figures made of a set of games' counts (the draw reasons apart: [`reasons_of`]).
struct Views {
    rates: Rates,
    /// Threefold and fivefold draws by [`Perpetual::ALL`], then with none.
    perpetual: [u64; Perpetual::ALL.len() + 1],
    claimant: Scores,
    claims: Claims,
    castling: EdgeCase,
    en_passant: EdgeCase,
    hidden: EdgeCase,
    after_fivefold: u64,
    after_75_moves: u64,
    clocks: Clocks,
}

/// The figures of counts. The pattern names every count: a new one is a compile error here until
/// a figure shows it (or it is marked as shown nowhere).
fn views(counts: &Counts) -> Views {
    let Counts {
        games,
        threefold,
        fivefold,
        with_claim,
        missed,
        passed_over,
        with_claim_on_board,
        missed_on_board,
        with_claim_by_move,
        missed_by_move,
        // Drawn games by reason: `reasons_of` (read on its own, without the rest).
        drawn_stalemate: _,
        drawn_insufficient_material: _,
        drawn_fivefold: _,
        drawn_seventy_five_moves: _,
        drawn_threefold: _,
        drawn_threefold_by_move: _,
        drawn_fifty_moves: _,
        drawn_adjudication: _,
        drawn_timeout_vs_insufficient_material: _,
        drawn_agreement: _,
        drawn_agreement_or_unrecorded: _,
        repetition_draws_perpetual_white,
        repetition_draws_perpetual_black,
        repetition_draws_perpetual_both,
        repetition_draws_perpetual_none,
        claimant_games,
        claimant_wins,
        claimant_draws,
        claimant_losses,
        claim_opportunities,
        claims_on_board,
        claims_by_move_only,
        claims_by_move_only_played,
        games_with_on_board_claims,
        games_with_by_move_only_claims,
        games_only_by_move,
        castling_games,
        castling_events,
        en_passant_games,
        en_passant_events,
        hidden_games,
        hidden_events,
        after_fivefold,
        after_75_moves,
        games_with_clocks,
        first_claim_clock_under_10s_games,
        first_claim_clock_under_10s_passed_over,
        first_claim_clock_10_30s_games,
        first_claim_clock_10_30s_passed_over,
        first_claim_clock_30_60s_games,
        first_claim_clock_30_60s_passed_over,
        first_claim_clock_1_3min_games,
        first_claim_clock_1_3min_passed_over,
        first_claim_clock_3min_plus_games,
        first_claim_clock_3min_plus_passed_over,
        games_with_evals,
        first_missed_eval_worse_games,
        first_missed_eval_worse_claimant_games,
        first_missed_eval_worse_claimant_wins,
        first_missed_eval_worse_claimant_draws,
        first_missed_eval_worse_claimant_losses,
        first_missed_eval_equal_games,
        first_missed_eval_equal_claimant_games,
        first_missed_eval_equal_claimant_wins,
        first_missed_eval_equal_claimant_draws,
        first_missed_eval_equal_claimant_losses,
        first_missed_eval_better_games,
        first_missed_eval_better_claimant_games,
        first_missed_eval_better_claimant_wins,
        first_missed_eval_better_claimant_draws,
        first_missed_eval_better_claimant_losses,
        first_missed_eval_none_games,
        first_missed_eval_none_claimant_games,
        first_missed_eval_none_claimant_wins,
        first_missed_eval_none_claimant_draws,
        first_missed_eval_none_claimant_losses,
    } = *counts;
    let scores = |games, wins, draws, losses| Scores { games, wins, draws, losses };
    let clock = |label: &str, games, passed_over| ClockBand { label: label.into(), games, passed_over };
    let eval = |label: &str, games, claimant| EvalBand { label: label.into(), games, claimant };
    Views {
        rates: Rates {
            games,
            threefold,
            fivefold,
            with_claim,
            missed,
            passed_over,
            with_claim_on_board,
            missed_on_board,
            with_claim_by_move,
            missed_by_move,
        },
        perpetual: [
            repetition_draws_perpetual_white,
            repetition_draws_perpetual_black,
            repetition_draws_perpetual_both,
            repetition_draws_perpetual_none,
        ],
        claimant: scores(claimant_games, claimant_wins, claimant_draws, claimant_losses),
        claims: Claims {
            opportunities: claim_opportunities,
            on_board: claims_on_board,
            by_move_only: claims_by_move_only,
            by_move_only_played: claims_by_move_only_played,
            games_with_on_board: games_with_on_board_claims,
            games_with_by_move_only: games_with_by_move_only_claims,
            games_only_by_move,
        },
        castling: EdgeCase { games: castling_games, events: castling_events },
        en_passant: EdgeCase { games: en_passant_games, events: en_passant_events },
        hidden: EdgeCase { games: hidden_games, events: hidden_events },
        after_fivefold,
        after_75_moves,
        clocks: Clocks {
            games_with_clocks,
            first_claim_by_clock: vec![
                clock(CLOCK_BANDS[0], first_claim_clock_under_10s_games, first_claim_clock_under_10s_passed_over),
                clock(CLOCK_BANDS[1], first_claim_clock_10_30s_games, first_claim_clock_10_30s_passed_over),
                clock(CLOCK_BANDS[2], first_claim_clock_30_60s_games, first_claim_clock_30_60s_passed_over),
                clock(CLOCK_BANDS[3], first_claim_clock_1_3min_games, first_claim_clock_1_3min_passed_over),
                clock(CLOCK_BANDS[4], first_claim_clock_3min_plus_games, first_claim_clock_3min_plus_passed_over),
            ],
            games_with_evals,
            first_missed_by_eval: vec![
                eval(
                    EVAL_BANDS[0],
                    first_missed_eval_worse_games,
                    scores(
                        first_missed_eval_worse_claimant_games,
                        first_missed_eval_worse_claimant_wins,
                        first_missed_eval_worse_claimant_draws,
                        first_missed_eval_worse_claimant_losses,
                    ),
                ),
                eval(
                    EVAL_BANDS[1],
                    first_missed_eval_equal_games,
                    scores(
                        first_missed_eval_equal_claimant_games,
                        first_missed_eval_equal_claimant_wins,
                        first_missed_eval_equal_claimant_draws,
                        first_missed_eval_equal_claimant_losses,
                    ),
                ),
                eval(
                    EVAL_BANDS[2],
                    first_missed_eval_better_games,
                    scores(
                        first_missed_eval_better_claimant_games,
                        first_missed_eval_better_claimant_wins,
                        first_missed_eval_better_claimant_draws,
                        first_missed_eval_better_claimant_losses,
                    ),
                ),
                eval(
                    EVAL_BANDS[3],
                    first_missed_eval_none_games,
                    scores(
                        first_missed_eval_none_claimant_games,
                        first_missed_eval_none_claimant_wins,
                        first_missed_eval_none_claimant_draws,
                        first_missed_eval_none_claimant_losses,
                    ),
                ),
            ],
        },
    }
}

/// Drawn games by reason, of counts (the `drawn_*` counts).
fn reasons_of(c: &Counts) -> Reasons {
    let mut reasons = Reasons::default();
    for (reason, n) in [
        (DrawReason::Stalemate, c.drawn_stalemate),
        (DrawReason::InsufficientMaterial, c.drawn_insufficient_material),
        (DrawReason::Fivefold, c.drawn_fivefold),
        (DrawReason::SeventyFiveMoves, c.drawn_seventy_five_moves),
        (DrawReason::Threefold, c.drawn_threefold),
        (DrawReason::ThreefoldByMove, c.drawn_threefold_by_move),
        (DrawReason::FiftyMoves, c.drawn_fifty_moves),
        (DrawReason::Adjudication, c.drawn_adjudication),
        (DrawReason::TimeoutVsInsufficientMaterial, c.drawn_timeout_vs_insufficient_material),
        (DrawReason::Agreement, c.drawn_agreement),
        (DrawReason::AgreementOrUnrecorded, c.drawn_agreement_or_unrecorded),
    ] {
        reasons.known[reason as usize] = n;
    }
    reasons
}

/// The headline rates of counts (as [`views`] makes them, without the rest), for a game's groups.
fn rates_of(c: &Counts) -> Rates {
    Rates {
        games: c.games,
        threefold: c.threefold,
        fivefold: c.fivefold,
        with_claim: c.with_claim,
        missed: c.missed,
        passed_over: c.passed_over,
        with_claim_on_board: c.with_claim_on_board,
        missed_on_board: c.missed_on_board,
        with_claim_by_move: c.with_claim_by_move,
        missed_by_move: c.missed_by_move,
    }
}

/// Whether the missed-claim figures leave out the claims of games whose claimant was
/// `claimant`: where the program drew a threefold itself, or adjudicated (engine play, chess.com
/// since June 2019), no player passed one over. Only the row of a venue whose every game is such
/// (engine play) gives them.
pub(crate) fn leaves_out_claims(claimant: Claimant) -> bool {
    !claimant.players_claim()
}

impl Tally {
    pub(crate) fn add(&mut self, g: &GameRecord) {
        // The game's rates, as what it added to the counts' (making all its counts to read ten
        // cost a report from the games 6% more instructions).
        let before = rates_of(&self.counts.counts);
        let rates = match leaves_out_claims(g.claimant) {
            true => {
                self.left_out_with_claim += u64::from(g.game.with_claim);
                self.counts.add(g, &without_claims(&g.game));
                let rates = rates_of(&self.counts.counts).less(&before);
                self.venues[g.venue as usize].add(&rates_of(&Counts::of(&g.game)), &rates, 0);
                rates
            }
            false => {
                self.counts.add(g, &g.game);
                let rates = rates_of(&self.counts.counts).less(&before);
                self.venues[g.venue as usize].add(&rates, &rates, 1);
                rates
            }
        };
        self.bands.entry((g.venue as usize, g.band.is_none(), g.band.unwrap_or(0))).or_default().add(&rates);
        match self.time_classes.get_mut(g.time_class) {
            Some(r) => r.add(&rates),
            None => {
                self.time_classes.insert(g.time_class.to_owned(), rates.clone());
            }
        }
        match g.date {
            Some(days) => {
                let (year, month, _) = civil_from_days(days);
                let m = self.months.entry(year * 12 + i64::from(month) - 1).or_default();
                m.rates.add(&rates);
                if let Some(name) = g.draw_reason {
                    m.reasons.add(DrawReason::parse(name), name, 1);
                }
            }
            None => self.undated += 1,
        }
    }

    /// Adds another tally's counts (another part's games). Counts only add, so the figures do not
    /// depend on which thread read which part; every field is named here, so that a new one
    /// cannot be forgotten (the figures would be wrong as soon as a report reads two row groups).
    pub(crate) fn merge(&mut self, other: Tally) {
        let Tally { counts, venues, bands, time_classes, months, undated, left_out_with_claim } = other;
        self.counts.merge(counts);
        for (into, v) in self.venues.iter_mut().zip(&venues) {
            into.add(&v.all, &v.players, v.players_games);
        }
        for (key, rates) in bands {
            self.bands.entry(key).or_default().add(&rates);
        }
        for (key, rates) in time_classes {
            self.time_classes.entry(key).or_default().add(&rates);
        }
        for (key, m) in months {
            let into = self.months.entry(key).or_default();
            into.rates.add(&m.rates);
            into.reasons.merge(&m.reasons);
        }
        self.undated += undated;
        self.left_out_with_claim += left_out_with_claim;
    }

    /// The tally of one summary row ([`SummaryCounts::summary_counts`]): its games are of venue
    /// `venue` and claimant `claimant`, in rating band `band` (of 200), time class `time_class`,
    /// and month `month` (year * 12 + month - 1; `None`: undated).
    pub(crate) fn from_summary(
        counts: &Counts,
        buckets: &[(u32, u64)],
        venue: Venue,
        claimant: Claimant,
        band: Option<i32>,
        time_class: &str,
        month: Option<i64>,
    ) -> Tally {
        let all = rates_of(counts);
        let left_out = leaves_out_claims(claimant);
        let counts = SummaryCounts::from_summary(&if left_out { leave_out_claims(counts) } else { *counts }, buckets);
        let rates = rates_of(&counts.counts);
        let left_out_with_claim = if left_out { all.with_claim } else { 0 };
        let mut t = Tally { counts, left_out_with_claim, ..Tally::default() };
        if rates.games == 0 {
            return t;
        }
        let players_games = if left_out { 0 } else { rates.games };
        t.venues[venue as usize] = VenueRates { all, players: rates.clone(), players_games };
        t.bands.insert((venue as usize, band.is_none(), band.unwrap_or(0)), rates.clone());
        t.time_classes.insert(time_class.to_owned(), rates.clone());
        match month {
            Some(key) => {
                let reasons = t.counts.reasons();
                t.months.insert(key, MonthTally { rates, reasons });
            }
            None => t.undated = rates.games,
        }
        t
    }

    pub(crate) fn finish(self) -> Stats {
        let mut by_time_class: Vec<Group> =
            self.time_classes.into_iter().map(|(label, rates)| Group { label, rates }).collect();
        let order = TimeClass::order;
        by_time_class.sort_by(|a, b| (order(&a.label), &a.label).cmp(&(order(&b.label), &b.label)));
        let reasons = self.counts.reasons();
        let Views {
            rates: overall,
            perpetual,
            claimant,
            claims,
            castling,
            en_passant,
            hidden,
            after_fivefold,
            after_75_moves,
            clocks,
        } = views(&self.counts.counts);
        Stats {
            overall,
            left_out_with_claim: self.left_out_with_claim,
            lichess: self.venues[Venue::Lichess as usize].clone().rates(),
            by_venue: Venue::ALL
                .iter()
                .zip(self.venues)
                .map(|(venue, v)| (venue, v.rates()))
                .filter(|(_, rates)| rates.games > 0)
                .map(|(venue, rates)| Group { label: venue.as_str().to_owned(), rates })
                .collect(),
            by_rating_band: self
                .bands
                .into_iter()
                .map(|((venue, unknown, from), rates)| Group {
                    label: band_label(Venue::ALL[venue].as_str(), (!unknown).then_some(from)),
                    rates,
                })
                .collect(),
            by_time_class,
            drawn: reasons.total(),
            draw_reasons: reasons.counts(),
            repetition_draws_by_perpetual: Perpetual::ALL
                .iter()
                .map(|p| p.as_str())
                .chain([NO_PERPETUAL])
                .zip(perpetual)
                .map(|(label, games)| Count { label: label.to_owned(), games })
                .collect(),
            claimant,
            claims,
            castling,
            en_passant,
            hidden,
            after_fivefold,
            after_75_moves,
            first_threefold_ply: self
                .counts
                .buckets
                .into_iter()
                .map(|(from_ply, games)| Bucket { from_ply, games })
                .collect(),
            clocks,
            by_month: self
                .months
                .into_iter()
                .map(|(key, m)| Month {
                    month: format!("{:04}-{:02}", key.div_euclid(12), key.rem_euclid(12) + 1),
                    rates: m.rates,
                    drawn: m.reasons.total(),
                    draw_reasons: m.reasons.counts(),
                })
                .collect(),
            undated: self.undated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::band_from;
    use super::*;

    /// A summary row's counts read back give the same counts: no count is written from one
    /// field and read into another.
    #[test]
    fn summary_counts_read_back_the_same() {
        let counts = Counts::from_values(1..);
        let buckets = [(0, 3), (10, 4)];
        let read = SummaryCounts::from_summary(&counts, &buckets);
        assert_eq!(read.summary_counts(), (counts, buckets.to_vec()));
    }

    /// Leaving the claims out of a game and out of its counts agree: a summary row of engine
    /// games, read back, counts as its games did. Over games drawn at random, every field in play.
    #[test]
    fn claims_leave_the_counts_as_they_leave_a_game() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: u64| {
            // xorshift64*: enough to spread the fields' values.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
        };
        let reasons = DrawReason::WITH_MOVES;
        for _ in 0..20_000 {
            let mut flag = || next(2) == 1;
            let game = Game {
                threefold: flag(),
                fivefold: flag(),
                with_claim: flag(),
                missed: flag(),
                passed_over: flag(),
                on_board: (flag(), flag()),
                by_move: (flag(), flag()),
                drawn: [None, Some(reasons[next(reasons.len() as u64) as usize])][next(2) as usize],
                perpetual: [None, Some(Perpetual::ALL[next(3) as usize])][next(2) as usize],
                score: [None, Some(0.0), Some(0.5), Some(1.0)][next(4) as usize],
                after_fivefold: next(2) == 1,
                after_75_moves: next(2) == 1,
                has_clocks: next(2) == 1,
                first_claim_clock: [None, Some(next(5) as usize)][next(2) as usize],
                first_claim_passed_over: next(2) == 1,
                has_evals: next(2) == 1,
                first_missed_eval: [None, Some(next(4) as usize)][next(2) as usize],
                claims_on_board: next(3),
                claims_by_move_only: next(3),
                claims_by_move_only_played: next(2),
                castling_events: next(3),
                en_passant_events: next(3),
                hidden_events: next(3),
            };
            assert_eq!(Counts::of(&without_claims(&game)), leave_out_claims(&Counts::of(&game)), "{game:?}");
        }
    }

    #[test]
    fn bands_match_the_queries() {
        assert_eq!(band_label("lichess", band_from(Some(1599))), "lichess 1400-1599");
        assert_eq!(band_label("otb", band_from(Some(2000))), "otb 2000-2199");
        assert_eq!(band_label("otb", band_from(None)), "otb unknown");
        assert_eq!(band_label("online", band_from(Some(-5))), "online -200--1");
    }
}
