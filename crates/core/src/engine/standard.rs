//! The [`Rules`] of standard chess and Chess960, with their fast paths: SAN resolved mostly
//! without a move list ([`crate::engine::san`]), a Zobrist key updated move by move, a window
//! ([`Tracker`]) cleared on every pawn move or capture, and a cheap filter before looking for
//! claims by a declared move. Draw reasons follow the FIDE Laws.

use shakmaty::{
    CastlingMode, Chess, Color, Move, Position,
    san::{San, SanError, SanPlus},
    uci::UciMove,
};

use crate::engine::{
    event::Perpetual,
    identity::{self, Identity, Key},
    laws::Automatic,
    rules::{Claim, Played, Rules},
    start::{ErrorKind, Start},
    summary::{DrawReason, FinalStatus},
    tracker::{Occurrences, Tracker},
};

pub struct StandardRules {
    pos: Chess,
    mode: CastlingMode,
    /// Zobrist key of the current pieces and side to move, updated move by move.
    board_zobrist: u64,
    tracker: Tracker,
    scratch: Vec<u32>,
}

impl Default for StandardRules {
    fn default() -> StandardRules {
        StandardRules {
            pos: Chess::default(),
            mode: CastlingMode::Standard,
            board_zobrist: 0,
            tracker: Tracker::default(),
            scratch: Vec::new(),
        }
    }
}

impl Rules for StandardRules {
    type Start = Start;
    type Move = Move;

    fn start(&mut self, start: Start) {
        self.tracker.reset();
        self.mode = start.mode;
        self.board_zobrist = identity::board_zobrist(start.pos.board(), start.pos.turn());
        self.pos = start.pos;
    }

    #[inline(always)]
    fn turn(&self) -> Color {
        self.pos.turn()
    }

    #[inline(always)]
    fn halfmoves(&self) -> u32 {
        self.pos.halfmoves()
    }

    #[inline(always)]
    fn fullmoves(&self) -> u32 {
        self.pos.fullmoves().get()
    }

    #[inline]
    fn to_move(&self, san: &San) -> Result<Move, ErrorKind> {
        crate::engine::san::to_move(&self.pos, san).map_err(|e| match e {
            SanError::AmbiguousSan => ErrorKind::AmbiguousMove,
            SanError::IllegalSan => ErrorKind::IllegalMove,
        })
    }

    #[inline(always)]
    fn play(&mut self, m: Move) -> Played {
        let board_change = identity::move_zobrist_change(m, self.pos.turn());
        self.board_zobrist ^= board_change;
        let rights = self.pos.castles().castling_rights();
        self.pos.play_unchecked(m);
        let irreversible = m.is_zeroing();
        if irreversible {
            self.tracker.reset();
        }
        Played { irreversible: irreversible || self.pos.castles().castling_rights() != rights, board_change }
    }

    #[inline(always)]
    fn observe(&mut self, ply: u32) -> Occurrences {
        let key = Key::new(&self.pos, self.board_zobrist);
        // The key is updated move by move; fuzzing and debug builds check it against a recount.
        debug_assert_eq!(
            key.zobrist(),
            self.pos.zobrist_hash::<shakmaty::zobrist::Zobrist64>(shakmaty::EnPassantMode::Legal).0
        );
        self.tracker.observe(key, ply)
    }

    fn identity(&self) -> Identity {
        Identity::of(self.tracker.last_key().expect("just observed"), self.mode)
    }

    fn board_earlier(&self) -> &[u32] {
        self.tracker.board_earlier()
    }

    fn fide_earlier(&self) -> &[u32] {
        self.tracker.fide_earlier()
    }

    fn previous(&self) -> u32 {
        self.tracker.previous()
    }

    fn perpetual(&self, from: u32, to: u32) -> Option<Perpetual> {
        self.tracker.perpetual(from, to)
    }

    #[inline(always)]
    fn counts_halfmoves(&self) -> bool {
        true
    }

    /// Only if a position with the opponent to move occurred twice, and could follow this one,
    /// can a move reach a third occurrence.
    #[inline(always)]
    fn may_claim_by_move(&self) -> bool {
        let turn = self.pos.turn();
        self.tracker.any_twice(!turn) && self.tracker.may_follow_by_one_move(self.pos.board(), turn)
    }

    #[inline(always)]
    fn claims_by_move(&mut self, mut claim: impl FnMut(Claim<Move>)) {
        let turn = self.pos.turn();
        for m in self.pos.legal_moves() {
            // A pawn move or capture reaches a position never seen before; other moves are
            // tried only when their pieces-and-side key matches a position seen twice.
            if m.is_zeroing() {
                continue;
            }
            let board_zobrist = self.board_zobrist ^ identity::move_zobrist_change(m, turn);
            if !self.tracker.repeated_board(board_zobrist) {
                continue;
            }
            let mut after = self.pos.clone();
            after.play_unchecked(m);
            let key = Key::new(&after, board_zobrist);
            let seen = self.tracker.lookup_repeated(&key, &mut self.scratch);
            if seen < 2 {
                continue;
            }
            claim(Claim {
                mv: m,
                identity: Identity::of(&key, self.mode),
                san: SanPlus::from_move(self.pos.clone(), m).to_string(),
                uci: UciMove::from_move(m, self.mode).to_string(),
                occurrence: seen + 1,
                earlier_plies: self.scratch.clone(),
            });
        }
    }

    fn final_status(&self) -> FinalStatus {
        final_status(&self.pos)
    }

    fn draw_reason(
        &self,
        status: FinalStatus,
        occurrence: u32,
        claim_by_move: bool,
        automatic: Automatic,
    ) -> Option<DrawReason> {
        let clock = self.pos.halfmoves();
        Some(if status == FinalStatus::Stalemate {
            DrawReason::Stalemate
        } else if status == FinalStatus::InsufficientMaterial {
            DrawReason::InsufficientMaterial
        } else if occurrence >= 5 && automatic.fivefold {
            DrawReason::Fivefold
        } else if clock >= 150 && automatic.seventy_five_moves && status != FinalStatus::Checkmate {
            DrawReason::SeventyFiveMoves
        } else if occurrence >= 3 {
            DrawReason::Threefold
        } else if claim_by_move {
            DrawReason::ThreefoldByMove
        } else if status != FinalStatus::Checkmate
            && (clock >= 100 || (clock == 99 && self.pos.legal_moves().iter().any(|m| !m.is_zeroing())))
        {
            // No claim after a checkmate: it ended the game (Art. 5.1.1, 9.6.2).
            DrawReason::FiftyMoves
        } else {
            DrawReason::AgreementOrUnrecorded
        })
    }
}

/// Checkmate, stalemate, insufficient material or none, as `shakmaty`'s `is_checkmate`,
/// `is_stalemate` and `is_insufficient_material` decide them in that order. A game mostly ends
/// with its king free to step somewhere, which shows that a legal move exists without building
/// the whole move list (a seventh of the work at the end of each game).
fn final_status(pos: &Chess) -> FinalStatus {
    if !king_can_step(pos) && pos.legal_moves().is_empty() {
        if pos.is_check() { FinalStatus::Checkmate } else { FinalStatus::Stalemate }
    } else if pos.is_insufficient_material() {
        FinalStatus::InsufficientMaterial
    } else {
        FinalStatus::None
    }
}

/// Whether the side to move has a legal king move (by the rule SAN resolution uses).
fn king_can_step(pos: &Chess) -> bool {
    let (board, turn) = (pos.board(), pos.turn());
    let Some(king) = board.king_of(turn) else { return false };
    (shakmaty::attacks::king_attacks(king) & !pos.us())
        .into_iter()
        .any(|to| crate::engine::san::king_may_step(board, turn, king, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut through a free king square gives shakmaty's final status in every position
    /// of pseudo-random games played to their end (mates and stalemates among them).
    #[test]
    fn final_status_is_shakmatys() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut seen = [0usize; 4];
        let mut stepped = 0;
        for _ in 0..400 {
            let mut pos = Chess::default();
            loop {
                let expected = FinalStatus::first_of(
                    || pos.is_checkmate(),
                    || pos.is_stalemate(),
                    || pos.is_insufficient_material(),
                );
                assert_eq!(
                    final_status(&pos),
                    expected,
                    "{}",
                    shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                );
                seen[expected as usize] += 1;
                stepped += usize::from(king_can_step(&pos));
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.halfmoves() > 200 {
                    break;
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                pos.play_unchecked(moves[(state >> 8) as usize % moves.len()]);
            }
        }
        assert!(seen.iter().all(|&n| n > 5) && stepped > 1000, "{seen:?} by status, {stepped} with a king step");
    }
}
