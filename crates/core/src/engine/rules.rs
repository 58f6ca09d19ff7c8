//! What one game's replay needs from a set of rules: the [`Rules`] trait, which standard chess
//! ([`crate::engine::standard`]) and the Lichess variants ([`crate::engine::variant`]) implement,
//! so that one replay loop ([`crate::engine::replay::Replay`]) serves both.
//!
//! An implementation owns the position and the repetition window: standard chess keeps its
//! fast paths there (SAN without a move list, an incremental Zobrist key, a window cleared on
//! every pawn move or capture), the variants their own shakmaty and window. The replay owns
//! what is common: plies, events, claims, clocks, the summary. Static dispatch only: the
//! standard replay compiles to the code it had before it was shared.

use shakmaty::{Color, san::San};

use crate::engine::{
    event::Perpetual,
    identity::Identity,
    laws::Automatic,
    start::ErrorKind,
    summary::{DrawReason, FinalStatus},
    tracker::Occurrences,
};

/// A move that would make a position occur for the third time or more (a claim by a declared
/// move, Art. 9.2.1.1), as the rules found it.
pub struct Claim<M> {
    pub mv: M,
    /// The identity of the position the move reaches.
    pub identity: Identity,
    pub san: String,
    pub uci: String,
    /// Its occurrence if the move is played.
    pub occurrence: u32,
    pub earlier_plies: Vec<u32>,
}

/// What playing a move did, as the replay asks.
pub struct Played {
    /// No earlier position can recur: the move emptied the window, or changed the castling
    /// rights (the window keeps the positions before a lost right only to find
    /// pseudo-repetitions).
    pub irreversible: bool,
    /// How the Polyglot key of the pieces and the side to move changed (the fingerprint's step,
    /// [`crate::engine::fingerprint::MovesHash`]).
    pub board_change: u64,
}

/// The rules of one kind of game, with its current position and repetition window.
pub trait Rules: Default {
    /// Where a game starts.
    type Start;
    type Move: Copy + PartialEq;

    /// Sets up `start` with an empty window.
    fn start(&mut self, start: Self::Start);
    fn turn(&self) -> Color;
    fn halfmoves(&self) -> u32;
    fn fullmoves(&self) -> u32;
    /// The legal move `san` names (never a null move: the replay stops before one).
    fn to_move(&self, san: &San) -> Result<Self::Move, ErrorKind>;
    /// Plays a legal move, emptying the window when no earlier position can recur after it.
    fn play(&mut self, m: Self::Move) -> Played;
    /// Records the current position at `ply` in the window and returns its occurrences; the
    /// earlier plies are then in [`Self::board_earlier`] and [`Self::fide_earlier`].
    fn observe(&mut self, ply: u32) -> Occurrences;
    /// The identity of the position observed last.
    fn identity(&self) -> Identity;
    fn board_earlier(&self) -> &[u32];
    fn fide_earlier(&self) -> &[u32];
    /// The ply of the previous FIDE-equal occurrence of the position observed last.
    fn previous(&self) -> u32;
    /// Who gave check with every move from ply `from` to the position observed last, at `to`.
    fn perpetual(&self, from: u32, to: u32) -> Option<Perpetual>;
    /// Whether the fifty- and seventy-five-move counts apply.
    fn counts_halfmoves(&self) -> bool;
    /// A cheap filter before [`Self::claims_by_move`]: `false` when no move can reach a third
    /// occurrence.
    fn may_claim_by_move(&self) -> bool;
    /// Hands `claim` each legal move that would make a position occur for the third time or more.
    fn claims_by_move(&mut self, claim: impl FnMut(Claim<Self::Move>));
    /// Checkmate, stalemate, insufficient material or none, in the current position.
    fn final_status(&self) -> FinalStatus;
    /// Why a game drawn in the current position ended, when the rules' draws are the FIDE
    /// Laws' (the variants end games otherwise: `None`); `automatic`: the automatic endings in
    /// force there.
    fn draw_reason(
        &self,
        status: FinalStatus,
        occurrence: u32,
        claim_by_move: bool,
        automatic: Automatic,
    ) -> Option<DrawReason>;
}
