//! Words that `explain`'s text and its page both write.

use shakmaty::Color;

use crate::engine::laws::Claimant;

/// `1st`, `2nd`, `3rd`, `4th`, … `11th`, `21st`.
pub(super) fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `White` or `Black`.
pub(super) fn color_name(c: Color) -> &'static str {
    c.fold_wb("White", "Black")
}

/// Who may claim a threefold standing on the board, by the game's rules in force (`mover`: the
/// side to move's name).
pub(super) fn board_claim(claimant: Claimant, mover: &str) -> String {
    match claimant {
        Claimant::SideToMove => format!("{mover}, to move, may claim a draw (9.2.1.2)"),
        Claimant::Either => "Either player may claim a draw (by a button, on this venue)".to_owned(),
        Claimant::Program => "The program running the game draws a threefold by itself".to_owned(),
    }
}

/// Why a declared move offers no claim, where the game's rules in force had none.
pub(super) fn no_declared_claim(claimant: Claimant) -> Option<&'static str> {
    (!claimant.declared_move()).then_some("no claim by a declared move existed on this venue: not counted")
}

/// A line on the rules a game's claims are read by, where they are not the FIDE Laws' claims.
pub(super) fn rules_line(claimant: Claimant) -> Option<&'static str> {
    match claimant {
        Claimant::SideToMove => None,
        Claimant::Either => Some(
            "Claims by the rules in force (docs/events.md): either player, on the board, never by a declared move.",
        ),
        Claimant::Program => Some(
            "Claims by the rules in force (docs/events.md): the program drew a threefold itself (engine play; \
             chess.com since June 2019), so no player could miss one: the report leaves this game's claims out.",
        ),
    }
}
