//! What the play of a game allowed: who could claim a threefold, whether a claim by a declared
//! move existed, and which draws came by themselves. The replay judges every position by the
//! FIDE Laws; a game's summary then reads its claims and automatic endings through the
//! [`InForce`] of its venue and date. The table of venues and dates that gives it is
//! [`crate::pgn::venue::Rulebook::in_force`] (and docs/events.md, "The rules in force").

/// Who could claim a threefold (`games.claimant`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Claimant {
    /// The player having the move (FIDE Art. 9.2.1).
    SideToMove,
    /// Either player, by a button (Lichess; chess.com until 2019).
    Either,
    /// Nobody: the program draws a threefold by itself, or adjudicates (engine play; chess.com
    /// since 2019).
    Program,
}

impl Claimant {
    /// Every claimant, in the order of their names' column values.
    pub const ALL: [Claimant; 3] = [Claimant::SideToMove, Claimant::Either, Claimant::Program];

    pub fn as_str(self) -> &'static str {
        match self {
            Claimant::SideToMove => "side_to_move",
            Claimant::Either => "either",
            Claimant::Program => "program",
        }
    }

    /// The claimant a name (a column's value) gives.
    pub fn parse(name: &str) -> Option<Claimant> {
        Claimant::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// Whether the players' claims count in the missed-claim figures: not where the program
    /// ended a threefold itself, for then no player passed one over.
    pub fn players_claim(self) -> bool {
        self != Claimant::Program
    }

    /// Whether a claim by a declared move existed (FIDE Art. 9.2.1.1): only where the side to
    /// move claimed before an arbiter; a button claims what stands on the board.
    pub fn declared_move(self) -> bool {
        self == Claimant::SideToMove
    }
}

crate::engine::vocabulary::serialize_as_str!(Claimant);

/// Whether a fivefold ended a game by itself, and which.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fivefold {
    /// No rule ended a game at a fivefold.
    Never,
    /// Only a position that stood after five consecutive alternate moves by each player: its
    /// last five occurrences four plies apart (FIDE Laws of 1 July 2014, Art. 9.6a).
    Consecutive,
    /// Any fifth occurrence (FIDE Laws of 1 July 2017, Art. 9.6.1; Lichess since January 2020).
    Any,
}

/// The rules a game was played under, as far as repetitions and automatic draws go.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InForce {
    /// Who claimed; a claim by a declared move existed only where the side to move claimed
    /// ([`Claimant::declared_move`]).
    pub claimant: Claimant,
    pub fivefold: Fivefold,
    /// The 75-move rule (or an earlier automatic count: Lichess's and the engine programs' fifty
    /// moves) ended a game by itself.
    pub seventy_five_moves: bool,
}

/// Which automatic endings the rules in force give a drawn game in its final position: the draw
/// reasons `fivefold` and `seventy_five_moves` only then; otherwise the position allowed a claim,
/// and the draw is the claim's (`threefold`, `fifty_moves`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Automatic {
    /// A fivefold ended games (for the 2014 consecutive fivefold: one occurred in the game).
    pub fivefold: bool,
    pub seventy_five_moves: bool,
}

impl Automatic {
    /// Today's FIDE Laws: both.
    pub const FIDE: Automatic = Automatic { fivefold: true, seventy_five_moves: true };
}

impl InForce {
    /// The FIDE Laws today: what the replay's events describe.
    pub const FIDE: InForce =
        InForce { claimant: Claimant::SideToMove, fivefold: Fivefold::Any, seventy_five_moves: true };

    /// What held on every day of a period whose ends are `self` and `other`: a rule that ends
    /// games by itself only where it held at both ends (a game dated only by its year counts an
    /// automatic ending only if the whole year had it).
    pub fn both(self, other: InForce) -> InForce {
        InForce {
            fivefold: self.fivefold.min(other.fivefold),
            seventy_five_moves: self.seventy_five_moves && other.seventy_five_moves,
            ..self
        }
    }
}

impl Fivefold {
    /// Whether a fifth (or later) occurrence at `ply`, after the occurrences at `earlier` (in
    /// order), ended the game.
    pub fn ends(self, ply: u32, earlier: &[u32]) -> bool {
        match self {
            Fivefold::Never => false,
            Fivefold::Any => earlier.len() >= 4,
            Fivefold::Consecutive => {
                earlier.len() >= 4
                    && earlier[earlier.len() - 4..].iter().enumerate().all(|(i, &p)| p + 16 == ply + 4 * i as u32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_consecutive_fivefold_has_its_last_five_occurrences_four_plies_apart() {
        assert!(Fivefold::Consecutive.ends(20, &[4, 8, 12, 16]));
        assert!(Fivefold::Consecutive.ends(22, &[1, 6, 10, 14, 18]));
        assert!(!Fivefold::Consecutive.ends(22, &[2, 6, 10, 14, 16]));
        assert!(!Fivefold::Consecutive.ends(24, &[4, 8, 12, 16]));
        assert!(!Fivefold::Consecutive.ends(16, &[4, 8, 12]));
        assert!(Fivefold::Any.ends(24, &[4, 8, 12, 16]));
        assert!(!Fivefold::Never.ends(20, &[4, 8, 12, 16]));
    }

    #[test]
    fn a_period_keeps_an_automatic_ending_only_where_both_ends_had_it() {
        let before = InForce { fivefold: Fivefold::Never, seventy_five_moves: false, ..InForce::FIDE };
        let middle = InForce { fivefold: Fivefold::Consecutive, ..InForce::FIDE };
        assert_eq!(before.both(InForce::FIDE), before);
        assert_eq!(middle.both(InForce::FIDE), middle);
        assert_eq!(InForce::FIDE.both(InForce::FIDE), InForce::FIDE);
    }
}
