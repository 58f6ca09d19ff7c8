//! The tag section of a game slice, read as `pgn-reader` reads it: where the movetext starts
//! ([`tags_end`]), and each tag's name and raw value when the reader is sure to read them so
//! ([`read_tag_section`]), so that the reader need not be shown a game the scanner can read. A
//! file of its own: the game visitor ([`crate::pgn`]) is its caller, not the mainline's scanner.

use std::ops::Range;

use memchr::memchr3;

use crate::pgn::scan::Scan;

/// A tag that ends within this many bytes of its `[` is read by `pgn-reader` as by the scan: the
/// reader has at least 255 bytes in its buffer at each `[`, and a tag that ends further on may
/// read differently there (unterminated).
const SURE_TAG_BYTES: usize = 200;

/// Reads the tag section as `pgn-reader` reads it, passing each tag's name, raw (still escaped)
/// value, as ranges of the game's bytes, and whether the value has a backslash to `tag`;
/// movetext may start on a tag's line. Returns whether the reader is
/// sure to read the section so (every tag terminated, and ended within [`SURE_TAG_BYTES`]), and
/// whether there was a tag line at all.
///
/// A byte-order mark is not skipped: the reader skips one only at the start of the stream,
/// which [`crate::read::chunk::Chunk::game_slices`] leaves out of the game slices; anywhere else it
/// is text (a token of the movetext).
fn read_tags(sc: &mut Scan, tag: &mut impl FnMut(Range<usize>, Range<usize>, bool)) -> (bool, bool) {
    sc.skip_whitespace(true);
    let (mut sure, any) = (true, sc.peek() == Some(b'['));
    while sc.peek() == Some(b'[') {
        let open = sc.i;
        sc.i += 1;
        let rest = &sc.s[sc.i..];
        match memchr3(b'"', b'\n', b']', rest) {
            Some(p) if rest[p] == b'"' => {
                let value = sc.i + p + 1;
                // The name is what precedes the quote, less one space.
                let name = sc.i..sc.i + if p > 0 && rest[p - 1] == b' ' { p - 1 } else { p };
                let mut escaped = false;
                sc.i = value;
                // the value, with backslash escapes, ends at a quote or the line's end
                loop {
                    let Some(p) = memchr3(b'\\', b'"', b'\n', &sc.s[sc.i..]) else {
                        sc.i = sc.s.len();
                        return (false, any);
                    };
                    sc.i += p;
                    match sc.s[sc.i] {
                        b'\\' => {
                            escaped = true;
                            sc.i = (sc.i + 2).min(sc.s.len());
                        }
                        b'"' => {
                            tag(name, value..sc.i, escaped);
                            sc.i += 1;
                            break;
                        }
                        _ => {
                            tag(name, value..sc.i, escaped);
                            break;
                        }
                    }
                }
            }
            Some(p) => sc.i += p + 1,
            None => {
                sc.i = sc.s.len();
                return (false, any);
            }
        }
        sure &= sc.i - open <= SURE_TAG_BYTES;
        // after the value: spaces, then `]` or a line break end the tag
        while let Some(c) = sc.peek() {
            match c {
                b' ' | b'\t' | b'\r' => sc.i += 1,
                b']' => {
                    sc.i += 1;
                    sc.skip_whitespace(false);
                    break;
                }
                b'\n' => {
                    sc.i += 1;
                    sc.skip_whitespace(true);
                    break;
                }
                _ => break,
            }
        }
    }
    (sure, any)
}

/// Reads the tags of `game` (a game slice, tags included) as `pgn-reader` would, passing
/// each tag's name and raw value (ranges of `game`) and whether the value has a backslash to
/// `tag`. Returns where the movetext starts (also when there is no tag: a game of movetext
/// only), or `None` (after some tags perhaps) when the reader itself must read the section: a
/// tag left unterminated or too long to be sure, or nothing but whitespace (no game).
pub fn read_tag_section(game: &[u8], mut tag: impl FnMut(Range<usize>, Range<usize>, bool)) -> Option<usize> {
    let mut sc = Scan { s: game, i: 0 };
    let (sure, any) = read_tags(&mut sc, &mut tag);
    (sure && (any || sc.i < game.len())).then_some(sc.i)
}

/// Whether the scan reads a tag written `[NAME "VALUE"]` (`value_bytes` the value's bytes as
/// written, escapes included) as `pgn-reader` does ([`SURE_TAG_BYTES`]): a tag read from a
/// table's columns that is not is read from its PGN text instead, as the reader reads it.
pub fn sure_tag(name_bytes: usize, value_bytes: usize) -> bool {
    name_bytes + value_bytes + 4 <= SURE_TAG_BYTES
}

/// Whether `movetext`, written after a tag section (with a tag if `tags`) and a blank line, is
/// that game's movetext as [`read_tag_section`] reads it, from its first byte that is not
/// whitespace or a `%` line: `false` when a tag starts there (it joins the tag section), or
/// when there is nothing but there is no tag either (the slice holds no game).
pub fn movetext_after_tags(movetext: &[u8], tags: bool) -> bool {
    match movetext.get(movetext_start(movetext)) {
        Some(b'[') => false,
        Some(_) => true,
        None => tags,
    }
}

/// Where the movetext of a game whose tag section was read apart (a row of a table) starts in
/// `movetext`, as [`read_tag_section`] would find it after the section and a blank line
/// ([`movetext_after_tags`]): after its whitespace and `%` lines.
pub fn movetext_start(movetext: &[u8]) -> usize {
    let mut sc = Scan { s: movetext, i: 0 };
    sc.skip_whitespace(true);
    sc.i
}

/// Where the movetext of `game` (a game slice, tags included) starts: after its tag section
/// as `pgn-reader` reads it (a byte-order mark is text, see [`read_tag_section`]).
#[inline]
pub fn tags_end(game: &[u8]) -> usize {
    let mut sc = Scan { s: game, i: 0 };
    read_tags(&mut sc, &mut |_, _, _| {});
    sc.i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row's movetext is read after its tags as after the tag section and blank line of its
    /// PGN: from the same byte, unless a tag starts there or the row holds nothing at all.
    #[test]
    fn movetext_after_tags_as_after_the_section() {
        for (movetext, tags, after) in [
            ("1. e4 *", false, true),
            ("  \n\n 1. e4 *", true, true),
            ("%escape\n1. e4 *", true, true),
            ("[Foo \"x\"]\n1. e4 *", true, false),
            (" \n%x\n[Foo \"x\"]", false, false),
            ("", true, true),
            (" \n%x", false, false),
            ("", false, false),
        ] {
            assert_eq!(movetext_after_tags(movetext.as_bytes(), tags), after, "{movetext:?}");
            // The row's text, as `ingest` holds it, and as PGN.
            let text = format!("{movetext}\n\n");
            let pgn = format!("{}{text}", if tags { "[Event \"e\"]\n\n" } else { "" });
            let section = read_tag_section(pgn.as_bytes(), |_, _, _| {});
            if after {
                let start = section.expect("a game") - (pgn.len() - text.len());
                assert_eq!(start, movetext_start(text.as_bytes()), "{movetext:?}");
            }
        }
        assert!(sure_tag(5, 191) && !sure_tag(5, 192));
    }
}
