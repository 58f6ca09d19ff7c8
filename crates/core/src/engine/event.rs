//! Repetition events: one record for each thing a researcher may want to count.

use serde::Serialize;
use shakmaty::Color;

use crate::{engine::clocks::AtPly, engine::identity::Identity, engine::vocabulary::serialize_as_str};

/// One repetition event of a game. Its `events` columns are declared in [`crate::dataset::schema`]; `dump`
/// writes it with the field names here, the identity's and the detail's inline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    /// Ply of the position the event is about (0 = start position).
    pub ply: u32,
    /// FEN full-move number at that ply.
    pub fullmove: u32,
    /// Side to move at that ply.
    #[serde(serialize_with = "crate::engine::vocabulary::color_char")]
    pub turn: Color,
    /// Halfmove clock (plies since the last pawn move or capture) at that ply.
    pub halfmove_clock: u32,
    /// Identity of the position that repeats. For `ClaimByMove`, the position the move would produce.
    #[serde(flatten)]
    pub identity: Identity,
    /// The clocks and evaluation at that ply (for `ClaimByMove` too: the claimant's position).
    #[serde(flatten)]
    pub clocks: AtPly,
    #[serde(flatten)]
    pub detail: Detail,
}

/// Which identity component makes a board repetition not count.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Differs {
    Castling,
    EnPassant,
    Both,
}

impl Differs {
    pub const ALL: [Differs; 3] = [Differs::Castling, Differs::EnPassant, Differs::Both];

    /// The value a `differs` value names.
    pub fn parse(name: &str) -> Option<Differs> {
        Differs::ALL.into_iter().find(|d| d.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Differs::Castling => "castling",
            Differs::EnPassant => "en_passant",
            Differs::Both => "both",
        }
    }
}

/// Which side gave check with every one of its moves over a cycle: a perpetual check. `Both` is
/// kept as a name for the case; with the orthodox pieces no cycle has it (a mutual perpetual
/// check is impossible), so no game shows it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Perpetual {
    White,
    Black,
    Both,
}

impl Perpetual {
    pub const ALL: [Perpetual; 3] = [Perpetual::White, Perpetual::Black, Perpetual::Both];

    /// Who gave the checks, in a sentence: `White`, `Black`, `both sides`.
    pub fn side(self) -> &'static str {
        match self {
            Perpetual::White => "White",
            Perpetual::Black => "Black",
            Perpetual::Both => "both sides",
        }
    }

    /// The value a `perpetual` value names.
    pub fn parse(name: &str) -> Option<Perpetual> {
        Perpetual::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// The kind of a span in which White gave check with every move (`white`) or not, and
    /// Black likewise.
    pub fn of(white: bool, black: bool) -> Option<Perpetual> {
        match (white, black) {
            (true, true) => Some(Perpetual::Both),
            (true, false) => Some(Perpetual::White),
            (false, true) => Some(Perpetual::Black),
            (false, false) => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Perpetual::White => "white",
            Perpetual::Black => "black",
            Perpetual::Both => "both",
        }
    }
}

/// What the event is, with the fields of its kind (`kind` names it as [`EventKind`] does).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Detail {
    /// The position occurs for the `occurrence`-th time (>= 2).
    Repetition {
        occurrence: u32,
        earlier_plies: Vec<u32>,
        /// occurrence >= 3: the side to move may claim a draw (9.2.1.2).
        claimable: bool,
        /// occurrence >= 5: the game is drawn (9.6.1).
        automatic: bool,
        /// Plies since the previous occurrence (exact, even when `earlier_plies` is cut short).
        cycle_plies: u32,
        /// Who gave check with every move over those plies, if anyone did.
        perpetual: Option<Perpetual>,
    },
    /// The side to move may claim by declaring this move (9.2.1.1).
    ClaimByMove {
        san: String,
        uci: String,
        /// Occurrence the resulting position would reach (>= 3).
        occurrence: u32,
        earlier_plies: Vec<u32>,
        /// The move is the one actually played next.
        played: bool,
    },
    /// Board and side to move repeat, but castling rights or the legal e.p. square differ.
    PseudoRepetition { differs: Differs, board_occurrence: u32, fide_occurrence: u32, earlier_plies: Vec<u32> },
    /// The FIDE identity repeats, but the FEN e.p. field differs (a double push with no legal capture).
    HiddenRepetition { fen_occurrence: u32, fide_occurrence: u32, earlier_plies: Vec<u32> },
}

/// The four kinds of event, as the `kind` column and `dump` name them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventKind {
    Repetition,
    ClaimByMove,
    PseudoRepetition,
    HiddenRepetition,
}

impl EventKind {
    /// Every kind, in the order the manifest and the summary line count them.
    pub const ALL: [EventKind; 4] =
        [EventKind::Repetition, EventKind::ClaimByMove, EventKind::PseudoRepetition, EventKind::HiddenRepetition];

    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Repetition => "repetition",
            EventKind::ClaimByMove => "claim_by_move",
            EventKind::PseudoRepetition => "pseudo_repetition",
            EventKind::HiddenRepetition => "hidden_repetition",
        }
    }

    /// The kind a `kind` column value names.
    pub fn parse(name: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

serialize_as_str!(Differs, EventKind, Perpetual);

impl Event {
    pub fn kind(&self) -> EventKind {
        match self.detail {
            Detail::Repetition { .. } => EventKind::Repetition,
            Detail::ClaimByMove { .. } => EventKind::ClaimByMove,
            Detail::PseudoRepetition { .. } => EventKind::PseudoRepetition,
            Detail::HiddenRepetition { .. } => EventKind::HiddenRepetition,
        }
    }

    pub fn earlier_plies(&self) -> &[u32] {
        match &self.detail {
            Detail::Repetition { earlier_plies, .. }
            | Detail::ClaimByMove { earlier_plies, .. }
            | Detail::PseudoRepetition { earlier_plies, .. }
            | Detail::HiddenRepetition { earlier_plies, .. } => earlier_plies,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perpetual_kinds() {
        assert_eq!(Perpetual::of(true, true), Some(Perpetual::Both));
        assert_eq!(Perpetual::of(true, false), Some(Perpetual::White));
        assert_eq!(Perpetual::of(false, true), Some(Perpetual::Black));
        assert_eq!(Perpetual::of(false, false), None);
        for p in Perpetual::ALL {
            assert_eq!(Perpetual::parse(p.as_str()), Some(p));
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
        }
    }

    /// `dump`'s `kind` (serde's name of the detail) is the `kind` column's ([`EventKind::as_str`]).
    #[test]
    fn dump_and_parquet_name_each_kind_alike() {
        let details = [
            Detail::Repetition {
                occurrence: 2,
                earlier_plies: vec![0],
                claimable: false,
                automatic: false,
                cycle_plies: 4,
                perpetual: None,
            },
            Detail::ClaimByMove {
                san: "Nf3".into(),
                uci: "g1f3".into(),
                occurrence: 3,
                earlier_plies: vec![0, 4],
                played: false,
            },
            Detail::PseudoRepetition {
                differs: Differs::Castling,
                board_occurrence: 2,
                fide_occurrence: 1,
                earlier_plies: vec![0],
            },
            Detail::HiddenRepetition { fen_occurrence: 1, fide_occurrence: 2, earlier_plies: vec![0] },
        ];
        let pos = shakmaty::Chess::default();
        let identity = Identity::of(&crate::engine::identity::Key::of(&pos), shakmaty::CastlingMode::Standard);
        let mut kinds = Vec::new();
        for detail in details {
            let event = Event {
                ply: 4,
                fullmove: 3,
                turn: Color::White,
                halfmove_clock: 4,
                identity: identity.clone(),
                clocks: AtPly::default(),
                detail,
            };
            let json = serde_json::to_value(&event).unwrap();
            assert_eq!(json["kind"], event.kind().as_str());
            kinds.push(event.kind());
        }
        assert_eq!(kinds, EventKind::ALL);
    }
}
