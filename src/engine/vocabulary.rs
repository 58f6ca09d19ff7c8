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

/// A colour as `games.first_claim_color` writes it: `white`, `black`.
pub fn color_word(color: Color) -> &'static str {
    color.fold_wb("white", "black")
}

/// A side to move as `events.turn` and FEN write it: `w`, `b`.
pub fn turn_letter(color: Color) -> &'static str {
    color.fold_wb("w", "b")
}

/// Serializes an optional colour with [`color_word`].
pub fn color_name<S: Serializer>(color: &Option<Color>, s: S) -> Result<S::Ok, S::Error> {
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
