//! What the tests and the fuzz targets hold the fast reading to (nothing in the product calls
//! it): `pgn-reader`'s own reading of a game's
//! mainline ([`reader_items`], [`reader_mainline`]), the scanner's reading of a whole game at once
//! ([`scan`], [`scan_items`]), the check of one against the other
//! ([`check_scan_against_reader`]), and a visitor that shows the reader every game slice whole
//! ([`GameVisitor::showing_whole_slices`]), the reference for the usual tags-only showing.

use shakmaty::san::SanPlus;

use crate::pgn::{
    GameVisitor,
    movetext::{BadToken, Mainline, Scanned, Token, lichess_form},
    tag_section::tags_end,
};

impl<'a> Mainline<'a> {
    /// Starts after the tag section of `game` (one game's bytes, tags included).
    pub(crate) fn new(game: &'a [u8]) -> Mainline<'a> {
        Mainline::at(game, tags_end(game))
    }

    /// Reads the rest of the mainline without reading moves (its result marker, a comment left
    /// open) and returns what the scan found.
    pub(crate) fn finish(self) -> Scanned {
        self.finish_at().0
    }
}

impl GameVisitor {
    /// A visitor that shows `pgn-reader` every game slice whole, so that the reader skips the
    /// first game's movetext itself: slower, and the reference that tests and the fuzz target
    /// hold the usual reading (the reader sees only the first game's tags) to.
    pub fn showing_whole_slices() -> GameVisitor {
        GameVisitor { whole_slices: true, ..GameVisitor::default() }
    }
}

/// The first mainline token of `game` (one game's bytes, tags included) that `pgn-reader` would
/// skip, if any.
pub fn first_bad_token(game: &[u8]) -> Option<BadToken> {
    scan(game, &mut Vec::new()).bad
}

/// Scans one game's mainline with the reader's tokenization: its first bad token, its last
/// result marker, and whether a comment is left open. The mainline's moves, as the reader would
/// pass them to a visitor, are put in `moves` (cleared first).
pub fn scan(game: &[u8], moves: &mut Vec<SanPlus>) -> Scanned {
    moves.clear();
    let mut mainline = Mainline::new(game);
    while let Some(token) = mainline.next_token() {
        if let Token::Move(san) = token {
            moves.push(san);
        }
    }
    mainline.finish()
}

/// A move or a comment's text, as the scanner and `pgn-reader` pass them on.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Move(SanPlus),
    Comment(Vec<u8>),
}

/// The mainline moves and comments of `game` as [`Mainline`] reads them in the replay (plies in
/// Lichess's form read at once after a comment of that form), up to the first token the reader
/// would skip (not included), and what the scan found.
pub fn scan_items(game: &[u8]) -> (Vec<Item>, Scanned) {
    scan_items_with(game, true)
}

/// [`scan_items`], with or without [`Mainline::lichess_ply`]: both must read the same.
pub fn scan_items_with(game: &[u8], lichess_plies: bool) -> (Vec<Item>, Scanned) {
    let mut items = Vec::new();
    let mut mainline = Mainline::new(game);
    let mut lichess = false;
    loop {
        if lichess && let Some((san, text)) = mainline.lichess_ply() {
            items.push(Item::Move(san));
            items.push(Item::Comment(game[text].to_vec()));
            continue;
        }
        match mainline.next_token() {
            None | Some(Token::Bad(_)) => break,
            Some(Token::Move(san)) => items.push(Item::Move(san)),
            Some(Token::Comment(text)) => {
                lichess = lichess_plies && lichess_form(&text);
                items.push(Item::Comment(game[text].to_vec()));
            }
        }
    }
    (items, mainline.finish())
}

/// The mainline moves of the first game in `game` (a game slice) as `pgn-reader`'s own movetext
/// parser reads them: the reference that tests and the `pgn_to_events` fuzz target hold [`scan`]
/// to. The reader is handed a line break first, so that it reads a byte-order mark at the start
/// of `game` as text, as in a stream and as the scanner does.
pub fn reader_mainline(game: &[u8]) -> std::io::Result<Vec<SanPlus>> {
    let items = reader_items(game)?;
    Ok(items
        .into_iter()
        .filter_map(|i| match i {
            Item::Move(san) => Some(san),
            Item::Comment(_) => None,
        })
        .collect())
}

/// The mainline moves and comments of the first game in `game` as `pgn-reader` reads them (a
/// comment longer than its buffer, passed on in parts, put together).
pub fn reader_items(game: &[u8]) -> std::io::Result<Vec<Item>> {
    use std::{io::Read, ops::ControlFlow};

    use pgn_reader::{RawComment, Reader, Skip, Visitor};

    /// `pgn-reader`'s visitor that collects the mainline's items.
    struct ItemVisitor {
        partial: Vec<u8>,
    }
    impl Visitor for ItemVisitor {
        type Tags = ();
        type Movetext = Vec<Item>;
        type Output = Vec<Item>;
        fn begin_tags(&mut self) -> ControlFlow<Self::Output> {
            ControlFlow::Continue(())
        }
        fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<Self::Output, Self::Movetext> {
            ControlFlow::Continue(Vec::new())
        }
        fn san(&mut self, items: &mut Vec<Item>, san: SanPlus) -> ControlFlow<Self::Output> {
            items.push(Item::Move(san));
            ControlFlow::Continue(())
        }
        fn partial_comment(&mut self, _items: &mut Vec<Item>, comment: RawComment<'_>) -> ControlFlow<Self::Output> {
            self.partial.extend_from_slice(comment.as_bytes());
            ControlFlow::Continue(())
        }
        fn comment(&mut self, items: &mut Vec<Item>, comment: RawComment<'_>) -> ControlFlow<Self::Output> {
            let mut text = std::mem::take(&mut self.partial);
            text.extend_from_slice(comment.as_bytes());
            items.push(Item::Comment(text));
            ControlFlow::Continue(())
        }
        fn begin_variation(&mut self, _items: &mut Vec<Item>) -> ControlFlow<Self::Output, Skip> {
            ControlFlow::Continue(Skip(true))
        }
        fn end_game(&mut self, items: Vec<Item>) -> Vec<Item> {
            items
        }
    }
    let mut visitor = ItemVisitor { partial: Vec::new() };
    Ok(Reader::new((&b"\n"[..]).chain(game)).read_game(&mut visitor)?.unwrap_or_default())
}

/// Checks [`scan`] against [`reader_mainline`] on one game slice, moves and comments (whose
/// commands the replay reads) in order; `Err` says how they differ. Up to the first bad token
/// the two must give the same (after it the reader may read a move inside the token the
/// scanner rejects whole; the replay stops there anyway).
pub fn check_scan_against_reader(slice: &[u8]) -> Result<(), String> {
    let (scanned, found) = scan_items(slice);
    // The replay's reading (Lichess plies at once) and the token-by-token one agree.
    let token_by_token = scan_items_with(slice, false);
    if (&scanned, &found) != (&token_by_token.0, &token_by_token.1) {
        return Err(format!(
            "with Lichess plies: {scanned:?} {found:?}\ntoken by token: {:?} {:?}",
            token_by_token.0, token_by_token.1
        ));
    }
    let closed;
    let text = if found.open_comment {
        closed = [slice, b"}\n"].concat();
        &closed[..]
    } else {
        slice
    };
    let Ok(read) = reader_items(text) else { return Ok(()) }; // unreadable: an invalid_pgn row
    let same = match &found.bad {
        None => scanned == read,
        Some(_) => read.starts_with(&scanned),
    };
    if same {
        Ok(())
    } else {
        let show = |m: &[Item]| {
            m.iter()
                .map(|i| match i {
                    Item::Move(san) => san.to_string(),
                    Item::Comment(text) => format!("{{{}}}", String::from_utf8_lossy(text)),
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        Err(format!("scanner: {}\nreader:  {}\nbad token: {:?}", show(&scanned), show(&read), found.bad))
    }
}
