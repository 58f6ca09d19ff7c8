//! How the records' words are written: each enum spells its values once, in its `as_str`, and
//! JSON (`dump`) and Parquet both take them from there.

use serde::Serializer;
use shakmaty::Color;

/// Implements `Serialize` for enums with an `as_str(self) -> &'static str`.
macro_rules! serialize_as_str {
    ($($t:ty),+) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    )+};
}
pub(crate) use serialize_as_str;

/// A game's speed category as Lichess names it (`games.time_class`), from its `TimeControl` tag
/// ([`crate::pgn::tags::time_class`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimeClass {
    UltraBullet,
    Bullet,
    Blitz,
    Rapid,
    Classical,
    Correspondence,
}

impl TimeClass {
    /// The report's and the queries' word for a game without one (no `TimeControl` tag).
    pub const UNKNOWN: &'static str = "unknown";

    /// Every time class's word, fastest first, then [`TimeClass::UNKNOWN`]: the order of the
    /// report's rows and of `--time-class`'s choices.
    pub const LABELS: [&'static str; 7] =
        ["ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence", TimeClass::UNKNOWN];

    pub fn as_str(self) -> &'static str {
        TimeClass::LABELS[self as usize]
    }

    /// A label's place in [`TimeClass::LABELS`] (an unknown word after them all).
    pub fn order(label: &str) -> usize {
        TimeClass::LABELS.iter().position(|l| *l == label).unwrap_or(TimeClass::LABELS.len())
    }
}

serialize_as_str!(TimeClass);

/// A colour as `games.first_claim_color` writes it: `white`, `black`.
pub fn color_word(color: Color) -> &'static str {
    color.fold_wb("white", "black")
}

/// A side to move as `events.turn` and FEN write it: `w`, `b`.
pub fn turn_letter(color: Color) -> &'static str {
    color.fold_wb("w", "b")
}

/// Serializes an optional colour with [`color_word`].
pub fn serialize_color<S: Serializer>(color: &Option<Color>, s: S) -> Result<S::Ok, S::Error> {
    match color {
        Some(c) => s.serialize_str(color_word(*c)),
        None => s.serialize_none(),
    }
}

/// Serializes a side to move with [`turn_letter`].
pub fn color_char<S: Serializer>(color: &Color, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(turn_letter(*color))
}

/// `text` with control characters (which could drive a terminal: escape sequences, a bell)
/// written as `\u{..}` escapes: tag values come from the PGN.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars().map(|c| if c.is_control() { c.escape_unicode().to_string() } else { c.to_string() }).collect(),
    )
}

#[cfg(test)]
mod printable_tests {
    use super::printable;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("Kasparov, G"), "Kasparov, G");
        assert_eq!(printable("a\u{1b}]0;x\u{7}b"), "a\\u{1b}]0;x\\u{7}b");
        assert_eq!(printable("\u{9b}1m"), "\\u{9b}1m");
    }
}

#[cfg(test)]
mod time_class_tests {
    use super::TimeClass;

    #[test]
    fn each_time_class_has_its_word_in_order() {
        use TimeClass::*;
        let words = [UltraBullet, Bullet, Blitz, Rapid, Classical, Correspondence].map(TimeClass::as_str);
        assert_eq!(words, TimeClass::LABELS[..6]);
        assert_eq!(TimeClass::order("blitz"), 2);
        assert_eq!(TimeClass::order(TimeClass::UNKNOWN), 6);
        assert_eq!(TimeClass::order("armageddon"), 7);
    }
}

/// Whether `text` contains `word` (lowercase ASCII), ASCII case ignored: the tags' wordings are
/// matched so, for every game, without lowercasing a copy.
pub fn contains_word(text: &str, word: &str) -> bool {
    text.len() >= word.len() && text.as_bytes().windows(word.len()).any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
}
