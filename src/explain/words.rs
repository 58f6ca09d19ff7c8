//! Words that `explain`'s text and its page both write.

use shakmaty::Color;

/// `1st`, `2nd`, `3rd`, `4th`, … `11th`, `21st`.
pub fn ordinal(n: u32) -> String {
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
pub fn color_name(c: Color) -> &'static str {
    c.fold_wb("White", "Black")
}
