//! Where a game starts: the variant it is played in and its first position.

use std::fmt;

use shakmaty::{CastlingMode, Chess, fen::Fen};
use shakmaty_variant::{
    CastlingMode as VariantCastling,
    variant::{Variant as LichessVariant, VariantPosition},
};

/// Why the replay of a game stopped.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A SAN move with no legal move matching it.
    IllegalMove,
    /// A SAN move that matches several legal moves.
    AmbiguousMove,
    /// A token in move position that is not SAN.
    InvalidMove,
    /// A null move (`--`, `Z0`).
    NullMove,
    /// A FEN that cannot be parsed or describes an impossible position.
    InvalidFen,
    /// The game's text could not be read as PGN (an unterminated tag or comment).
    InvalidPgn,
    /// A move token after [`crate::engine::replay::MAX_PLIES`] plies.
    TooLong,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::IllegalMove => "illegal_move",
            ErrorKind::AmbiguousMove => "ambiguous_move",
            ErrorKind::InvalidMove => "invalid_move",
            ErrorKind::NullMove => "null_move",
            ErrorKind::InvalidFen => "invalid_fen",
            ErrorKind::InvalidPgn => "invalid_pgn",
            ErrorKind::TooLong => "too_long",
        }
    }
}

/// A per-game error: what went wrong, at which ply, on which token.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GameError {
    pub kind: ErrorKind,
    /// Moves played before the bad one (0 for a FEN error).
    pub ply: u32,
    /// The move as written, or the FEN.
    pub token: String,
}

crate::engine::vocabulary::serialize_as_str!(ErrorKind);

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at ply {}: {:?}", self.kind.as_str(), self.ply, self.token)
    }
}

impl std::error::Error for GameError {}

/// The variant a game is played in, from its `Variant` tag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    Standard,
    Chess960,
    /// A Lichess variant, replayed by [`crate::engine::variant`] (never `LichessVariant::Chess`).
    Lichess(LichessVariant),
    /// Not replayed (Seirawan, sittuyin, ...): the tag as written.
    Other(String),
}

impl Variant {
    /// Reads a `Variant` tag. Names compare lowercased, without spaces, dashes and underscores,
    /// so that Lichess's tags (`Three-check`, `King of the Hill`), its file names and API keys
    /// (`threeCheck`, `kingOfTheHill`) and python-chess's aliases all count.
    pub fn from_tag(tag: Option<&str>) -> Variant {
        let Some(raw) = tag else { return Variant::Standard };
        let name: String = raw.chars().filter(|c| !matches!(c, ' ' | '-' | '_')).flat_map(char::to_lowercase).collect();
        match name.as_str() {
            "" | "standard" | "fromposition" | "normal" | "chess" => Variant::Standard,
            "chess960" | "fischerandom" | "fischerrandom" | "960" | "frc" => Variant::Chess960,
            "crazyhouse" | "zh" => Variant::Lichess(LichessVariant::Crazyhouse),
            "threecheck" | "3check" => Variant::Lichess(LichessVariant::ThreeCheck),
            "atomic" | "atomicchess" => Variant::Lichess(LichessVariant::Atomic),
            "antichess" => Variant::Lichess(LichessVariant::Antichess),
            "kingofthehill" | "koth" => Variant::Lichess(LichessVariant::KingOfTheHill),
            "horde" => Variant::Lichess(LichessVariant::Horde),
            "racingkings" => Variant::Lichess(LichessVariant::RacingKings),
            _ => Variant::Other(raw.trim().to_owned()),
        }
    }

    /// The canonical name (`games.replay_variant`): Lichess's key for the variant.
    pub fn name(&self) -> &str {
        match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
            Variant::Lichess(rules) => match rules {
                LichessVariant::Chess => "standard",
                LichessVariant::Crazyhouse => "crazyhouse",
                LichessVariant::ThreeCheck => "threeCheck",
                LichessVariant::Atomic => "atomic",
                LichessVariant::Antichess => "antichess",
                LichessVariant::KingOfTheHill => "kingOfTheHill",
                LichessVariant::Horde => "horde",
                LichessVariant::RacingKings => "racingKings",
            },
            Variant::Other(name) => name,
        }
    }
}

/// A game's first position and castling rules.
#[derive(Clone, Debug)]
pub struct Start {
    pub pos: Chess,
    pub mode: CastlingMode,
}

impl Start {
    /// The start of a standard or Chess960 game from its `FEN` tag (or the standard position).
    /// A FEN whose castling rights are valid only in Chess960 makes the game Chess960.
    pub fn new(variant: &Variant, fen: Option<&str>) -> Result<Start, GameError> {
        let wanted = match variant {
            Variant::Chess960 => CastlingMode::Chess960,
            _ => CastlingMode::Standard,
        };
        let Some(fen_text) = fen.map(str::trim).filter(|f| !f.is_empty()) else {
            return Ok(Start { pos: Chess::default(), mode: wanted });
        };
        let error = || GameError { kind: ErrorKind::InvalidFen, ply: 0, token: fen_text.to_owned() };
        let parsed = Fen::from_ascii(fen_text.as_bytes()).map_err(|_| error())?;
        match parsed.clone().into_position::<Chess>(wanted) {
            Ok(pos) => Ok(Start { pos, mode: wanted }),
            Err(_) if wanted == CastlingMode::Standard => parsed
                .into_position::<Chess>(CastlingMode::Chess960)
                .map(|pos| Start { pos, mode: CastlingMode::Chess960 })
                .map_err(|_| error()),
            Err(_) => Err(error()),
        }
    }
}

/// A Lichess variant game's first position and castling rules (in the variants' shakmaty:
/// [`crate::engine::variant`] says why it is another).
#[derive(Clone, Debug)]
pub struct VariantStart {
    pub pos: VariantPosition,
    pub mode: VariantCastling,
}

impl VariantStart {
    /// The start of a game in `rules` from its `FEN` tag (or the variant's start position). As
    /// in standard chess, a FEN whose castling rights are valid only in Chess960 is read so.
    pub fn new(rules: LichessVariant, fen: Option<&str>) -> Result<VariantStart, GameError> {
        let Some(fen_text) = fen.map(str::trim).filter(|f| !f.is_empty()) else {
            return Ok(VariantStart { pos: VariantPosition::new(rules), mode: VariantCastling::Standard });
        };
        let error = || GameError { kind: ErrorKind::InvalidFen, ply: 0, token: fen_text.to_owned() };
        let parsed = shakmaty_variant::fen::Fen::from_ascii(fen_text.as_bytes()).map_err(|_| error())?;
        for mode in [VariantCastling::Standard, VariantCastling::Chess960] {
            if let Ok(pos) = VariantPosition::from_setup(rules, parsed.clone().into_setup(), mode) {
                return Ok(VariantStart { pos, mode });
            }
        }
        Err(error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spellings Lichess's tags, its file names and API keys and other tools use.
    #[test]
    fn variant_tags_name_the_lichess_variants() {
        let cases = [
            ("Crazyhouse", "crazyhouse"),
            ("crazy_house", "crazyhouse"),
            ("ZH", "crazyhouse"),
            ("Three-check", "threeCheck"),
            ("threeCheck", "threeCheck"),
            ("3check", "threeCheck"),
            ("Atomic", "atomic"),
            ("Antichess", "antichess"),
            ("King of the Hill", "kingOfTheHill"),
            ("kingOfTheHill", "kingOfTheHill"),
            ("KOTH", "kingOfTheHill"),
            ("Horde", "horde"),
            ("Racing Kings", "racingKings"),
            ("racingKings", "racingKings"),
            ("Chess960", "chess960"),
            ("From Position", "standard"),
            ("Seirawan", "Seirawan"),
        ];
        for (tag, name) in cases {
            assert_eq!(Variant::from_tag(Some(tag)).name(), name, "{tag}");
        }
        assert_eq!(Variant::from_tag(Some(" Sittuyin ")), Variant::Other("Sittuyin".to_owned()));
    }
}
