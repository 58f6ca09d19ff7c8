//! The per-game summary: what a researcher filters games by.

use serde::Serialize;
use shakmaty::Color;

use crate::engine::{ending::Ending, event::Perpetual, vocabulary::serialize_as_str};

/// Status of the final position of the replayed moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FinalStatus {
    Checkmate,
    Stalemate,
    /// Neither side has mating material.
    InsufficientMaterial,
    None,
}

impl FinalStatus {
    /// The status a position's own tests give, asked in shakmaty's order: checkmate, stalemate,
    /// insufficient material (each only when the ones before said no).
    pub fn first_of(
        checkmate: impl FnOnce() -> bool,
        stalemate: impl FnOnce() -> bool,
        insufficient_material: impl FnOnce() -> bool,
    ) -> FinalStatus {
        if checkmate() {
            FinalStatus::Checkmate
        } else if stalemate() {
            FinalStatus::Stalemate
        } else if insufficient_material() {
            FinalStatus::InsufficientMaterial
        } else {
            FinalStatus::None
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FinalStatus::Checkmate => "checkmate",
            FinalStatus::Stalemate => "stalemate",
            FinalStatus::InsufficientMaterial => "insufficient_material",
            FinalStatus::None => "none",
        }
    }
}

/// Why a drawn game (Result 1/2-1/2) was drawn. A game of no moves is `NoMoves`; else the
/// recorded ending ([`Ending`]) decides where it names a draw; else the final position does
/// ([`crate::engine::rules::Rules::draw_reason`]): the first reason that holds wins, automatic
/// endings before claims, and among claims the one on the board before the one by a declared
/// move. What the position cannot explain is `AgreementOrUnrecorded`: a PGN does not tell an
/// agreement from a claim nobody wrote down.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DrawReason {
    Stalemate,
    InsufficientMaterial,
    Fivefold,
    SeventyFiveMoves,
    Threefold,
    ThreefoldByMove,
    FiftyMoves,
    /// Recorded only: an arbiter's or the match program's decision.
    Adjudication,
    /// Recorded only: a flag fell against a side that could not mate.
    TimeoutVsInsufficientMaterial,
    /// Recorded only.
    Agreement,
    AgreementOrUnrecorded,
    NoMoves,
}

impl DrawReason {
    /// Every reason: the inferred ones in the order they are tried, then those only a recorded
    /// ending gives, the residual and no moves.
    pub const ALL: [DrawReason; 12] = [
        DrawReason::Stalemate,
        DrawReason::InsufficientMaterial,
        DrawReason::Fivefold,
        DrawReason::SeventyFiveMoves,
        DrawReason::Threefold,
        DrawReason::ThreefoldByMove,
        DrawReason::FiftyMoves,
        DrawReason::Adjudication,
        DrawReason::TimeoutVsInsufficientMaterial,
        DrawReason::Agreement,
        DrawReason::AgreementOrUnrecorded,
        DrawReason::NoMoves,
    ];

    /// The reasons of games with moves: the report's draw mix (games with no moves are in no
    /// figure) and the summary table's `drawn_*` counts.
    pub const WITH_MOVES: &[DrawReason] = DrawReason::ALL.split_last().unwrap().1;

    /// The reason of a drawn game of `plies` replayed plies whose recorded ending is `ending`,
    /// where the final position suggests `inferred` (computed only when asked: it may need the
    /// legal moves); `occurrence` is the final position's; a recorded repetition is a fivefold
    /// only where one ended games by itself (`fivefold`).
    pub fn of_draw(
        plies: u32,
        ending: Option<Ending>,
        occurrence: u32,
        fivefold: bool,
        inferred: impl FnOnce() -> Option<DrawReason>,
    ) -> Option<DrawReason> {
        if plies == 0 {
            return Some(DrawReason::NoMoves);
        }
        Some(match ending {
            Some(Ending::Adjudication) => DrawReason::Adjudication,
            Some(Ending::TimeoutVsInsufficientMaterial) => DrawReason::TimeoutVsInsufficientMaterial,
            Some(Ending::Agreement) => DrawReason::Agreement,
            Some(Ending::Stalemate) => DrawReason::Stalemate,
            Some(Ending::InsufficientMaterial) => DrawReason::InsufficientMaterial,
            Some(Ending::Repetition) if occurrence >= 5 && fivefold => DrawReason::Fivefold,
            Some(Ending::Repetition) => DrawReason::Threefold,
            Some(Ending::FiftyMoves) => match inferred() {
                Some(DrawReason::SeventyFiveMoves) => DrawReason::SeventyFiveMoves,
                _ => DrawReason::FiftyMoves,
            },
            _ => return inferred(),
        })
    }

    /// The reason a `draw_reason` value names.
    pub fn parse(name: &str) -> Option<DrawReason> {
        DrawReason::ALL.into_iter().find(|r| r.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DrawReason::Stalemate => "stalemate",
            DrawReason::InsufficientMaterial => "insufficient_material",
            DrawReason::Fivefold => "fivefold",
            DrawReason::SeventyFiveMoves => "seventy_five_moves",
            DrawReason::Threefold => "threefold",
            DrawReason::ThreefoldByMove => "threefold_by_move",
            DrawReason::FiftyMoves => "fifty_moves",
            DrawReason::Adjudication => "adjudication",
            DrawReason::TimeoutVsInsufficientMaterial => "timeout_vs_insufficient_material",
            DrawReason::Agreement => "agreement",
            DrawReason::AgreementOrUnrecorded => "agreement_or_unrecorded",
            DrawReason::NoMoves => "no_moves",
        }
    }
}

/// One game's summary over the replayed part of its mainline. Its `games` columns are declared
/// in [`crate::dataset::schema`]; `dump` writes it with the field names here.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Half-moves replayed (= the last ply).
    pub plies: u32,
    /// Highest FIDE occurrence reached (1 if nothing repeats, 0 if nothing was replayed).
    pub max_occurrence: u32,
    pub first_ply_occurrence_2: Option<u32>,
    pub first_ply_occurrence_3: Option<u32>,
    pub first_ply_occurrence_5: Option<u32>,
    /// Distinct positions that reached a third occurrence.
    pub positions_reaching_3: u32,
    /// Plies at which the side to move could claim a threefold (on the board or by a move).
    pub claim_opportunities: u32,
    pub first_claim_ply: Option<u32>,
    #[serde(serialize_with = "crate::engine::vocabulary::serialize_color")]
    pub first_claim_color: Option<Color>,
    /// Of those, the plies with a claim on the board (the position stands there for the third time
    /// or more, 9.2.1.2) and with a claim by a declared move (9.2.1.1); a ply may have both.
    pub claim_opportunities_on_board: u32,
    pub claim_opportunities_by_move: u32,
    /// Opportunities at which no claim ended the game (the game went on past every position a
    /// claim there was about: the declared move, when played, makes its position; or it was
    /// decisive) and play then left the repetition: an irreversible move (pawn move, capture, a
    /// castling right lost) followed, or the game did not end drawn.
    pub missed_claims: u32,
    /// Opportunities no claim ended, after which the game ended drawn with no irreversible move:
    /// the claim was passed over, and the draw came in the same repetition.
    pub passed_over_claims: u32,
    /// Missed opportunities that offered a claim on the board, and by a declared move (one may
    /// offer both).
    pub missed_claims_on_board: u32,
    pub missed_claims_by_move: u32,
    pub first_missed_claim_ply: Option<u32>,
    /// Final score (1, 0.5, 0) of the player who missed the first claim; None if unknown, or
    /// where not the side to move alone could claim (Lichess, engine play).
    pub claimant_score_after_first_missed: Option<f64>,
    pub plies_after_fivefold: Option<u32>,
    /// Plies played after a fivefold, or the 75-move rule, that ended the game by itself under
    /// the rules in force ([`crate::engine::laws::InForce`]); None where none did.
    pub plies_after_automatic_fivefold: Option<u32>,
    pub plies_after_automatic_75_moves: Option<u32>,
    pub pseudo_repetitions: u32,
    pub hidden_repetitions: u32,
    pub first_ply_halfmove_100: Option<u32>,
    pub first_ply_halfmove_150: Option<u32>,
    pub final_status: FinalStatus,
    pub draw_reason: Option<DrawReason>,
    /// Plies from the first occurrence of the first position to occur a third time to that third
    /// occurrence.
    pub first_threefold_span: Option<u32>,
    /// Who gave check with every move of that span, if anyone did.
    pub first_threefold_perpetual: Option<Perpetual>,
    /// Every replayed move (at least one) has a `[%clk]` in its comments.
    pub has_clocks: bool,
    /// Some replayed move has an `[%eval]` in its comments.
    pub has_evals: bool,
    /// The claimant's clock (ms) and the evaluation from the claimant's side at the first claim
    /// opportunity and at the first missed one.
    pub first_claim_clock_ms: Option<i64>,
    pub first_claim_eval_cp: Option<i64>,
    pub first_claim_eval_mate: Option<i32>,
    pub first_missed_claim_clock_ms: Option<i64>,
    pub first_missed_claim_eval_cp: Option<i64>,
    pub first_missed_claim_eval_mate: Option<i32>,
    /// The game's identity across sources: a 64-bit hash of the normalised players, date,
    /// result, variant, start and replayed moves (set by the reader, which has the tags:
    /// [`crate::pgn::fingerprint`]).
    pub fingerprint: u64,
}

serialize_as_str!(FinalStatus, DrawReason);

impl Summary {
    /// The summary of a game of which nothing could be replayed (an impossible FEN).
    pub fn empty() -> Summary {
        Summary {
            plies: 0,
            max_occurrence: 0,
            first_ply_occurrence_2: None,
            first_ply_occurrence_3: None,
            first_ply_occurrence_5: None,
            positions_reaching_3: 0,
            claim_opportunities: 0,
            claim_opportunities_on_board: 0,
            claim_opportunities_by_move: 0,
            first_claim_ply: None,
            first_claim_color: None,
            missed_claims: 0,
            passed_over_claims: 0,
            missed_claims_on_board: 0,
            missed_claims_by_move: 0,
            first_missed_claim_ply: None,
            claimant_score_after_first_missed: None,
            plies_after_fivefold: None,
            plies_after_automatic_fivefold: None,
            plies_after_automatic_75_moves: None,
            pseudo_repetitions: 0,
            hidden_repetitions: 0,
            first_ply_halfmove_100: None,
            first_ply_halfmove_150: None,
            final_status: FinalStatus::None,
            draw_reason: None,
            first_threefold_span: None,
            first_threefold_perpetual: None,
            has_clocks: false,
            has_evals: false,
            first_claim_clock_ms: None,
            first_claim_eval_cp: None,
            first_claim_eval_mate: None,
            first_missed_claim_clock_ms: None,
            first_missed_claim_eval_cp: None,
            first_missed_claim_eval_mate: None,
            fingerprint: 0,
        }
    }
}
