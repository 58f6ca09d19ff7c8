//! How a game's own tags say it ended (`games.ending`): the wordings of Lichess (`Termination`
//! "Normal", "Time forfeit"), chess.com ("Game drawn by repetition", "X won on time") and TCEC
//! (`TerminationDetails` "TCEC draw rule", "SyzygyTB", "3-Fold repetition") brought to one
//! vocabulary, so that the draw reason can put a recorded ending before what the final position
//! suggests, and queries need not parse three sites' wordings.

use shakmaty::{KnownOutcome, Outcome};

use crate::engine::vocabulary::{contains_word, serialize_as_str};

/// A recorded ending, normalised.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Lichess's "Normal": mate, resignation, a draw of any kind; says nothing more.
    Normal,
    Checkmate,
    Resignation,
    TimeForfeit,
    /// A draw on time against a side that cannot mate (Lichess "Time forfeit" on a draw,
    /// chess.com "timeout vs insufficient material").
    TimeoutVsInsufficientMaterial,
    /// An arbiter's or the match program's decision (TCEC's draw and win rules, tablebases).
    Adjudication,
    Agreement,
    Repetition,
    Stalemate,
    InsufficientMaterial,
    FiftyMoves,
    Abandoned,
    RulesInfraction,
    Unterminated,
    /// A wording none of the rules below knows.
    Other,
}

/// The rules in the order they are tried on the text (ASCII case ignored): the first whose words occur
/// wins ("timeout vs insufficient material" before "insufficient material", TCEC's rules before
/// the repetition its details may name).
const WORDINGS: [(&[&str], Ending); 15] = [
    (&["timeout vs insufficient material"], Ending::TimeoutVsInsufficientMaterial),
    (&["adjudicat", "tcec", "syzygy"], Ending::Adjudication),
    (&["agreement"], Ending::Agreement),
    (&["repetition"], Ending::Repetition),
    (&["stalemate"], Ending::Stalemate),
    (&["insufficient material"], Ending::InsufficientMaterial),
    (&["50-move", "50 move", "fifty move", "fifty-move"], Ending::FiftyMoves),
    (&["checkmate", " mates"], Ending::Checkmate),
    (&["resign"], Ending::Resignation),
    (&["time forfeit", "on time"], Ending::TimeForfeit),
    (&["abandon", "disconnect", "stall"], Ending::Abandoned),
    (&["rules infraction", "illegal move"], Ending::RulesInfraction),
    (&["unterminated"], Ending::Unterminated),
    (&[], Ending::Normal), // only the exact word, below
    (&[], Ending::Other),
];

impl Ending {
    /// The ending one tag's value names; `None` for an empty value.
    pub fn of_text(text: &str) -> Option<Ending> {
        let text = text.trim_ascii();
        if text.is_empty() {
            return None;
        }
        if text.eq_ignore_ascii_case("normal") {
            return Some(Ending::Normal);
        }
        let found = WORDINGS.iter().find(|(words, _)| words.iter().any(|w| contains_word(text, w)));
        Some(found.map_or(Ending::Other, |&(_, ending)| ending))
    }

    /// A game's recorded ending: TCEC's `TerminationDetails` where it names one, else
    /// `Termination`; a time forfeit on a drawn result was against insufficient material.
    pub fn recorded(details: Option<&str>, termination: Option<&str>, result: Outcome) -> Option<Ending> {
        let named = details.and_then(Ending::of_text).filter(|&e| e != Ending::Other);
        let ending = named.or_else(|| termination.and_then(Ending::of_text))?;
        Some(match ending {
            Ending::TimeForfeit if result == Outcome::Known(KnownOutcome::Draw) => {
                Ending::TimeoutVsInsufficientMaterial
            }
            e => e,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Normal => "normal",
            Ending::Checkmate => "checkmate",
            Ending::Resignation => "resignation",
            Ending::TimeForfeit => "time_forfeit",
            Ending::TimeoutVsInsufficientMaterial => "timeout_vs_insufficient_material",
            Ending::Adjudication => "adjudication",
            Ending::Agreement => "agreement",
            Ending::Repetition => "repetition",
            Ending::Stalemate => "stalemate",
            Ending::InsufficientMaterial => "insufficient_material",
            Ending::FiftyMoves => "fifty_moves",
            Ending::Abandoned => "abandoned",
            Ending::RulesInfraction => "rules_infraction",
            Ending::Unterminated => "unterminated",
            Ending::Other => "other",
        }
    }
}

serialize_as_str!(Ending);

#[cfg(test)]
mod tests {
    use super::*;

    const DRAW: Outcome = Outcome::Known(KnownOutcome::Draw);

    /// Each wording of the corpus's three sites (Lichess dumps, chess.com, TCEC).
    #[test]
    fn the_sites_wordings() {
        let white = Outcome::from_ascii(b"1-0").unwrap();
        let cases: [(Option<&str>, &str, Outcome, &str); 16] = [
            (None, "Normal", DRAW, "normal"),
            (None, "Time forfeit", DRAW, "timeout_vs_insufficient_material"),
            (None, "Time forfeit", white, "time_forfeit"),
            (None, "Abandoned", white, "abandoned"),
            (None, "Rules infraction", white, "rules_infraction"),
            (None, "Game drawn by repetition", DRAW, "repetition"),
            (None, "Game drawn by agreement", DRAW, "agreement"),
            (None, "Game drawn by timeout vs insufficient material", DRAW, "timeout_vs_insufficient_material"),
            (None, "Game drawn by insufficient material", DRAW, "insufficient_material"),
            (None, "MagnusCarlsen won on time", white, "time_forfeit"),
            (None, "Hikaru won by resignation", white, "resignation"),
            (Some("SyzygyTB"), "adjudication", DRAW, "adjudication"),
            (Some("3-Fold repetition"), "Normal", DRAW, "repetition"),
            (Some("TCEC draw rule"), "adjudication", DRAW, "adjudication"),
            (Some("White mates"), "Normal", white, "checkmate"),
            (Some("something new"), "TCEC Draw Rule", DRAW, "adjudication"),
        ];
        for (details, termination, result, want) in cases {
            let got = Ending::recorded(details, Some(termination), result).map(Ending::as_str);
            assert_eq!(got, Some(want), "{details:?} {termination:?}");
        }
        assert_eq!(Ending::recorded(None, Some("  "), DRAW), None);
        assert_eq!(Ending::recorded(None, None, DRAW), None);
        assert_eq!(Ending::recorded(None, Some("by the river"), DRAW), Some(Ending::Other));
    }
}
