//! Counting games into the figures of one set of games (all of a report's games, or one group):
//! [`GameRecord`] is what one game adds, [`Tally`] the running counts, [`Tally::finish`] the
//! [`Stats`] in display order.

use std::collections::{BTreeMap, HashMap};

use crate::{
    dataset::schema::summary::Counts,
    engine::{event::Perpetual, laws::Claimant, summary::DrawReason, vocabulary::TimeClass},
    pgn::venue::Venue,
};

use super::{
    clocks::{ClockCounts, GameClocks},
    model::{Bucket, Claims, Count, EdgeCase, Group, Month, Rates, Scores, Stats, band_label},
    tables::civil_from_days,
};

/// How the report (and `queries/repetition_kinds.sql`) names a null `first_threefold_perpetual`.
pub const NO_PERPETUAL: &str = "none";

/// What a game's events add: claim opportunities by kind and edge-case events.
#[derive(Default, Clone, Copy)]
pub(crate) struct Played {
    pub on_board: u64,
    pub by_move_only: u64,
    pub by_move_only_played: u64,
    pub castling_events: u64,
    pub ep_events: u64,
    pub hidden_events: u64,
}

/// One game, as the figures see it.
pub(crate) struct GameRecord<'a> {
    pub threefold: bool,
    pub fivefold: bool,
    pub with_claim: bool,
    pub missed: bool,
    pub passed_over: bool,
    /// Opportunities and misses of each kind: on the board, by a declared move.
    pub kinds: [(bool, bool); 2],
    /// Where the game was played (`games.venue`).
    pub venue: Venue,
    /// Who could claim a threefold (`games.claimant`).
    pub claimant: Claimant,
    pub band: Option<i32>,
    pub time_class: &'a str,
    pub score: Option<f64>,
    pub draw_reason: Option<&'a str>,
    pub perpetual: Option<&'a str>,
    pub first_threefold: Option<u32>,
    pub after_fivefold: bool,
    pub after_75_moves: bool,
    /// Days since 1970-01-01.
    pub date: Option<i32>,
    pub clocks: GameClocks,
    pub played: Played,
}

impl GameRecord<'_> {
    /// The game with no claim: how the missed-claim figures count a game whose claims were not
    /// the players' ([`leaves_out_claims`]).
    fn without_claims(&self) -> Self {
        let clocks = GameClocks {
            first_claim_ply: None,
            first_missed_claim_ply: None,
            first_claim_clock_ms: None,
            first_missed_eval: (None, None),
            score: None,
            ..self.clocks
        };
        let played = Played { on_board: 0, by_move_only: 0, by_move_only_played: 0, ..self.played };
        GameRecord {
            with_claim: false,
            missed: false,
            passed_over: false,
            kinds: [(false, false); 2],
            score: None,
            clocks,
            played,
            ..*self
        }
    }

    fn rates(&self) -> Rates {
        Rates {
            games: 1,
            threefold: u64::from(self.threefold),
            fivefold: u64::from(self.fivefold),
            with_claim: u64::from(self.with_claim),
            missed: u64::from(self.missed),
            passed_over: u64::from(self.passed_over && !self.missed),
            with_claim_on_board: u64::from(self.kinds[0].0),
            missed_on_board: u64::from(self.kinds[0].1),
            with_claim_by_move: u64::from(self.kinds[1].0),
            missed_by_move: u64::from(self.kinds[1].1),
        }
    }
}

#[derive(Default, Clone)]
struct MonthTally {
    rates: Rates,
    drawn: u64,
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

    fn get(&self, reason: DrawReason) -> u64 {
        self.known[reason as usize]
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
    overall: Rates,
    drawn: u64,
    reasons: Reasons,
    /// Threefold and fivefold draws by [`Perpetual::ALL`], then with none.
    perpetual: [u64; 4],
    claimant: Scores,
    claims: Claims,
    castling: EdgeCase,
    en_passant: EdgeCase,
    hidden: EdgeCase,
    after_fivefold: u64,
    after_75_moves: u64,
    buckets: BTreeMap<u32, u64>,
    clocks: ClockCounts,
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
    /// Counts one game; its rates, which a [`Tally`] adds to its groups too.
    pub(crate) fn add(&mut self, g: &GameRecord) -> Rates {
        let rates = g.rates();
        self.overall.add(&rates);
        match g.score {
            Some(1.0) => self.claimant.wins += 1,
            Some(0.5) => self.claimant.draws += 1,
            Some(0.0) => self.claimant.losses += 1,
            _ => {}
        }
        self.claimant.games += u64::from(g.score.is_some());
        if let Some(name) = g.draw_reason {
            self.drawn += 1;
            let reason = DrawReason::parse(name);
            self.reasons.add(reason, name, 1);
            if matches!(reason, Some(DrawReason::Threefold | DrawReason::Fivefold)) {
                let kind = g.perpetual.and_then(Perpetual::parse);
                let k = Perpetual::ALL.iter().position(|&p| Some(p) == kind).unwrap_or(Perpetual::ALL.len());
                self.perpetual[k] += 1;
            }
        }
        if let Some(p) = g.first_threefold {
            *self.buckets.entry(p / 10 * 10).or_default() += 1;
        }
        self.clocks.add(&g.clocks);
        self.after_fivefold += u64::from(g.after_fivefold);
        self.after_75_moves += u64::from(g.after_75_moves);
        self.played(&g.played);
        rates
    }

    fn played(&mut self, p: &Played) {
        let c = &mut self.claims;
        c.opportunities += p.on_board + p.by_move_only;
        c.on_board += p.on_board;
        c.by_move_only += p.by_move_only;
        c.by_move_only_played += p.by_move_only_played;
        c.games_with_on_board += u64::from(p.on_board > 0);
        c.games_with_by_move_only += u64::from(p.by_move_only > 0);
        c.games_only_by_move += u64::from(p.by_move_only > 0 && p.on_board == 0);
        for (case, events) in [
            (&mut self.castling, p.castling_events),
            (&mut self.en_passant, p.ep_events),
            (&mut self.hidden, p.hidden_events),
        ] {
            case.games += u64::from(events > 0);
            case.events += events;
        }
    }

    /// Adds another set of games' counts. Every field is named here, so that a new one cannot be
    /// forgotten (the figures would be wrong as soon as a report reads two row groups).
    pub(super) fn merge(&mut self, other: SummaryCounts) {
        let SummaryCounts {
            overall,
            drawn,
            reasons,
            perpetual,
            claimant,
            claims,
            castling,
            en_passant,
            hidden,
            after_fivefold,
            after_75_moves,
            buckets,
            clocks,
        } = other;
        self.overall.add(&overall);
        self.drawn += drawn;
        self.reasons.merge(&reasons);
        for (a, b) in self.perpetual.iter_mut().zip(perpetual) {
            *a += b;
        }
        self.claimant.add(&claimant);
        let Claims {
            opportunities,
            on_board,
            by_move_only,
            by_move_only_played,
            games_with_on_board,
            games_with_by_move_only,
            games_only_by_move,
        } = claims;
        let c = &mut self.claims;
        c.opportunities += opportunities;
        c.on_board += on_board;
        c.by_move_only += by_move_only;
        c.by_move_only_played += by_move_only_played;
        c.games_with_on_board += games_with_on_board;
        c.games_with_by_move_only += games_with_by_move_only;
        c.games_only_by_move += games_only_by_move;
        for (a, b) in [(&mut self.castling, castling), (&mut self.en_passant, en_passant), (&mut self.hidden, hidden)] {
            a.games += b.games;
            a.events += b.events;
        }
        self.after_fivefold += after_fivefold;
        self.after_75_moves += after_75_moves;
        for (key, n) in buckets {
            *self.buckets.entry(key).or_default() += n;
        }
        self.clocks.merge(&clocks);
    }

    /// The counts of one summary row's games ([`Counts`], one field per column), and the
    /// first-threefold buckets. The struct literal names every count: a new one is a compile
    /// error here until it is written.
    pub(crate) fn summary_counts(&self) -> (Counts, Vec<(u32, u64)>) {
        let (o, cl, k) = (&self.overall, &self.claimant, &self.claims);
        let (clock, eval) = (&self.clocks.first_claim_by_clock, &self.clocks.first_missed_by_eval);
        let drawn = |r| self.reasons.get(r);
        let counts = Counts {
            games: o.games,
            threefold: o.threefold,
            fivefold: o.fivefold,
            with_claim: o.with_claim,
            missed: o.missed,
            passed_over: o.passed_over,
            with_claim_on_board: o.with_claim_on_board,
            missed_on_board: o.missed_on_board,
            with_claim_by_move: o.with_claim_by_move,
            missed_by_move: o.missed_by_move,
            drawn_stalemate: drawn(DrawReason::Stalemate),
            drawn_insufficient_material: drawn(DrawReason::InsufficientMaterial),
            drawn_fivefold: drawn(DrawReason::Fivefold),
            drawn_seventy_five_moves: drawn(DrawReason::SeventyFiveMoves),
            drawn_threefold: drawn(DrawReason::Threefold),
            drawn_threefold_by_move: drawn(DrawReason::ThreefoldByMove),
            drawn_fifty_moves: drawn(DrawReason::FiftyMoves),
            drawn_adjudication: drawn(DrawReason::Adjudication),
            drawn_timeout_vs_insufficient_material: drawn(DrawReason::TimeoutVsInsufficientMaterial),
            drawn_agreement: drawn(DrawReason::Agreement),
            drawn_agreement_or_unrecorded: drawn(DrawReason::AgreementOrUnrecorded),
            repetition_draws_perpetual_white: self.perpetual[0],
            repetition_draws_perpetual_black: self.perpetual[1],
            repetition_draws_perpetual_both: self.perpetual[2],
            repetition_draws_perpetual_none: self.perpetual[3],
            claimant_games: cl.games,
            claimant_wins: cl.wins,
            claimant_draws: cl.draws,
            claimant_losses: cl.losses,
            claim_opportunities: k.opportunities,
            claims_on_board: k.on_board,
            claims_by_move_only: k.by_move_only,
            claims_by_move_only_played: k.by_move_only_played,
            games_with_on_board_claims: k.games_with_on_board,
            games_with_by_move_only_claims: k.games_with_by_move_only,
            games_only_by_move: k.games_only_by_move,
            castling_games: self.castling.games,
            castling_events: self.castling.events,
            en_passant_games: self.en_passant.games,
            en_passant_events: self.en_passant.events,
            hidden_games: self.hidden.games,
            hidden_events: self.hidden.events,
            after_fivefold: self.after_fivefold,
            after_75_moves: self.after_75_moves,
            games_with_clocks: self.clocks.games_with_clocks,
            first_claim_clock_under_10s_games: clock[0].0,
            first_claim_clock_under_10s_passed_over: clock[0].1,
            first_claim_clock_10_30s_games: clock[1].0,
            first_claim_clock_10_30s_passed_over: clock[1].1,
            first_claim_clock_30_60s_games: clock[2].0,
            first_claim_clock_30_60s_passed_over: clock[2].1,
            first_claim_clock_1_3min_games: clock[3].0,
            first_claim_clock_1_3min_passed_over: clock[3].1,
            first_claim_clock_3min_plus_games: clock[4].0,
            first_claim_clock_3min_plus_passed_over: clock[4].1,
            games_with_evals: self.clocks.games_with_evals,
            first_missed_eval_worse_games: eval[0].0,
            first_missed_eval_worse_claimant_games: eval[0].1.games,
            first_missed_eval_worse_claimant_wins: eval[0].1.wins,
            first_missed_eval_worse_claimant_draws: eval[0].1.draws,
            first_missed_eval_worse_claimant_losses: eval[0].1.losses,
            first_missed_eval_equal_games: eval[1].0,
            first_missed_eval_equal_claimant_games: eval[1].1.games,
            first_missed_eval_equal_claimant_wins: eval[1].1.wins,
            first_missed_eval_equal_claimant_draws: eval[1].1.draws,
            first_missed_eval_equal_claimant_losses: eval[1].1.losses,
            first_missed_eval_better_games: eval[2].0,
            first_missed_eval_better_claimant_games: eval[2].1.games,
            first_missed_eval_better_claimant_wins: eval[2].1.wins,
            first_missed_eval_better_claimant_draws: eval[2].1.draws,
            first_missed_eval_better_claimant_losses: eval[2].1.losses,
            first_missed_eval_none_games: eval[3].0,
            first_missed_eval_none_claimant_games: eval[3].1.games,
            first_missed_eval_none_claimant_wins: eval[3].1.wins,
            first_missed_eval_none_claimant_draws: eval[3].1.draws,
            first_missed_eval_none_claimant_losses: eval[3].1.losses,
        };
        (counts, self.buckets.iter().map(|(&k, &n)| (k, n)).collect())
    }

    /// Drops the claims, as [`GameRecord::without_claims`] does game by game.
    fn leave_out_claims(&mut self) {
        let o = &mut self.overall;
        (o.with_claim, o.missed, o.passed_over) = (0, 0, 0);
        (o.with_claim_on_board, o.missed_on_board, o.with_claim_by_move, o.missed_by_move) = (0, 0, 0, 0);
        self.claimant = Scores::default();
        self.claims = Claims::default();
        self.clocks.first_claim_by_clock = Default::default();
        self.clocks.first_missed_by_eval = Default::default();
    }

    /// The counts of one summary row ([`SummaryCounts::summary_counts`]). The pattern names
    /// every count: a new one is a compile error here until it is read.
    pub(crate) fn from_summary(counts: &Counts, buckets: &[(u32, u64)]) -> SummaryCounts {
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
            drawn_stalemate,
            drawn_insufficient_material,
            drawn_fivefold,
            drawn_seventy_five_moves,
            drawn_threefold,
            drawn_threefold_by_move,
            drawn_fifty_moves,
            drawn_adjudication,
            drawn_timeout_vs_insufficient_material,
            drawn_agreement,
            drawn_agreement_or_unrecorded,
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
        let mut reasons = Reasons::default();
        for (reason, n) in [
            (DrawReason::Stalemate, drawn_stalemate),
            (DrawReason::InsufficientMaterial, drawn_insufficient_material),
            (DrawReason::Fivefold, drawn_fivefold),
            (DrawReason::SeventyFiveMoves, drawn_seventy_five_moves),
            (DrawReason::Threefold, drawn_threefold),
            (DrawReason::ThreefoldByMove, drawn_threefold_by_move),
            (DrawReason::FiftyMoves, drawn_fifty_moves),
            (DrawReason::Adjudication, drawn_adjudication),
            (DrawReason::TimeoutVsInsufficientMaterial, drawn_timeout_vs_insufficient_material),
            (DrawReason::Agreement, drawn_agreement),
            (DrawReason::AgreementOrUnrecorded, drawn_agreement_or_unrecorded),
        ] {
            reasons.known[reason as usize] = n;
        }
        let scores = |games, wins, draws, losses| Scores { games, wins, draws, losses };
        SummaryCounts {
            overall: Rates {
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
            drawn: reasons.known.iter().sum(),
            reasons,
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
            buckets: buckets.iter().filter(|(_, n)| *n > 0).copied().collect(),
            clocks: ClockCounts {
                games_with_clocks,
                first_claim_by_clock: [
                    (first_claim_clock_under_10s_games, first_claim_clock_under_10s_passed_over),
                    (first_claim_clock_10_30s_games, first_claim_clock_10_30s_passed_over),
                    (first_claim_clock_30_60s_games, first_claim_clock_30_60s_passed_over),
                    (first_claim_clock_1_3min_games, first_claim_clock_1_3min_passed_over),
                    (first_claim_clock_3min_plus_games, first_claim_clock_3min_plus_passed_over),
                ],
                games_with_evals,
                first_missed_by_eval: [
                    (
                        first_missed_eval_worse_games,
                        scores(
                            first_missed_eval_worse_claimant_games,
                            first_missed_eval_worse_claimant_wins,
                            first_missed_eval_worse_claimant_draws,
                            first_missed_eval_worse_claimant_losses,
                        ),
                    ),
                    (
                        first_missed_eval_equal_games,
                        scores(
                            first_missed_eval_equal_claimant_games,
                            first_missed_eval_equal_claimant_wins,
                            first_missed_eval_equal_claimant_draws,
                            first_missed_eval_equal_claimant_losses,
                        ),
                    ),
                    (
                        first_missed_eval_better_games,
                        scores(
                            first_missed_eval_better_claimant_games,
                            first_missed_eval_better_claimant_wins,
                            first_missed_eval_better_claimant_draws,
                            first_missed_eval_better_claimant_losses,
                        ),
                    ),
                    (
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
        let rates = match leaves_out_claims(g.claimant) {
            true => {
                self.left_out_with_claim += u64::from(g.with_claim);
                let rates = self.counts.add(&g.without_claims());
                self.venues[g.venue as usize].add(&g.rates(), &rates, 0);
                rates
            }
            false => {
                let rates = self.counts.add(g);
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
                    m.drawn += 1;
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
            into.drawn += m.drawn;
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
        let mut counts = SummaryCounts::from_summary(counts, buckets);
        let all = counts.overall.clone();
        let left_out = leaves_out_claims(claimant);
        if left_out {
            counts.leave_out_claims();
        }
        let rates = counts.overall.clone();
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
                let (drawn, reasons) = (t.counts.drawn, t.counts.reasons.clone());
                t.months.insert(key, MonthTally { rates, drawn, reasons });
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
        let c = self.counts;
        Stats {
            overall: c.overall,
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
            drawn: c.drawn,
            draw_reasons: c.reasons.counts(),
            repetition_draws_by_perpetual: Perpetual::ALL
                .iter()
                .map(|p| p.as_str())
                .chain([NO_PERPETUAL])
                .zip(c.perpetual)
                .map(|(label, games)| Count { label: label.to_owned(), games })
                .collect(),
            claimant: c.claimant,
            claims: c.claims,
            castling: c.castling,
            en_passant: c.en_passant,
            hidden: c.hidden,
            after_fivefold: c.after_fivefold,
            after_75_moves: c.after_75_moves,
            first_threefold_ply: c.buckets.into_iter().map(|(from_ply, games)| Bucket { from_ply, games }).collect(),
            clocks: c.clocks.clocks(),
            by_month: self
                .months
                .into_iter()
                .map(|(key, m)| Month {
                    month: format!("{:04}-{:02}", key.div_euclid(12), key.rem_euclid(12) + 1),
                    rates: m.rates,
                    drawn: m.drawn,
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

    #[test]
    fn bands_match_the_queries() {
        assert_eq!(band_label("lichess", band_from(Some(1599))), "lichess 1400-1599");
        assert_eq!(band_label("otb", band_from(Some(2000))), "otb 2000-2199");
        assert_eq!(band_label("otb", band_from(None)), "otb unknown");
        assert_eq!(band_label("online", band_from(Some(-5))), "online -200--1");
    }
}
