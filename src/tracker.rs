//! The repetition window: every position since the last pawn move or capture, with its counts.
//!
//! Nothing before a pawn move or capture can recur, so the window is cleared on those moves and
//! counting stays linear in the window, which is short in real games. The window's storage is
//! reused from game to game: no allocation per ply once it has grown.

use shakmaty::Color;

use crate::identity::Key;

/// At most this many earlier plies are listed with an event (the earliest ones); the occurrence
/// numbers still count them all. Keeps a game of thousands of shuffling moves small.
pub const EARLIER_PLIES_MAX: usize = 16;

struct Entry {
    key: Key,
    ply: u32,
}

/// Occurrence counts of one position among the window, itself included.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Same placement and side to move.
    pub board: u32,
    /// Same FIDE identity.
    pub fide: u32,
    /// Same placement, side, castling and FEN e.p. field.
    pub fen: u32,
    /// Some earlier board-equal position had other castling rights.
    pub castling_differs: bool,
    /// Some earlier board-equal position had another legal e.p. square.
    pub ep_differs: bool,
}

#[derive(Default)]
pub struct Tracker {
    window: Vec<Entry>,
    /// Window positions that occurred at least twice, by side to move (white, black).
    twice: [u32; 2],
    board_earlier: Vec<u32>,
    fide_earlier: Vec<u32>,
    /// Window indices of the distinct positions that occurred at least twice (their latest
    /// occurrence): only these can be reached a third time by a move.
    repeated: Vec<usize>,
}

fn color_index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl Tracker {
    /// Forgets the window (after a pawn move or capture, or at a new game).
    pub fn reset(&mut self) {
        self.window.clear();
        self.twice = [0, 0];
        self.repeated.clear();
    }

    /// Records the position of `ply` and returns its counts. The plies of the earlier board-equal
    /// and FIDE-equal positions are then available from [`Self::board_earlier`] and
    /// [`Self::fide_earlier`].
    #[inline(always)]
    pub fn observe(&mut self, key: Key, ply: u32) -> Counts {
        self.board_earlier.clear();
        self.fide_earlier.clear();
        let mut counts = Counts { board: 1, fide: 1, fen: 1, ..Counts::default() };
        for e in &self.window {
            if !e.key.same_board(&key) {
                continue;
            }
            counts.board += 1;
            if self.board_earlier.len() < EARLIER_PLIES_MAX {
                self.board_earlier.push(e.ply);
            }
            if e.key.same_rights(&key) {
                counts.fide += 1;
                if self.fide_earlier.len() < EARLIER_PLIES_MAX {
                    self.fide_earlier.push(e.ply);
                }
                if e.key.fen_ep == key.fen_ep {
                    counts.fen += 1;
                }
            } else {
                counts.castling_differs |= e.key.castling != key.castling;
                counts.ep_differs |= e.key.legal_ep != key.legal_ep;
            }
        }
        if counts.fide >= 2 {
            self.twice[color_index(key.turn)] += 1;
            let window = &self.window;
            let idx = window.len();
            match self.repeated.iter_mut().find(|i| window[**i].key.same_board(&key) && window[**i].key.same_rights(&key)) {
                Some(i) => *i = idx,
                None => self.repeated.push(idx),
            }
        }
        self.window.push(Entry { key, ply });
        counts
    }

    /// Key of the position observed last.
    pub fn last_key(&self) -> Option<&Key> {
        self.window.last().map(|e| &e.key)
    }

    pub fn board_earlier(&self) -> &[u32] {
        &self.board_earlier
    }

    pub fn fide_earlier(&self) -> &[u32] {
        &self.fide_earlier
    }

    /// Whether some window position with `turn` to move has occurred at least twice: only then
    /// can a move reach a third occurrence.
    pub fn any_twice(&self, turn: Color) -> bool {
        self.twice[color_index(turn)] > 0
    }

    /// Whether a position that occurred at least twice has the pieces-and-side Zobrist key
    /// `board_zobrist`: a cheap test before [`Self::lookup_repeated`].
    pub fn repeated_board(&self, board_zobrist: u64) -> bool {
        self.repeated.iter().any(|&i| self.window[i].key.board_zobrist == board_zobrist)
    }

    /// How often `key` occurred in the window if at least twice (else 0 or 1), with the earliest
    /// plies, without recording it.
    pub fn lookup_repeated(&self, key: &Key, plies: &mut Vec<u32>) -> u32 {
        plies.clear();
        let same = |e: &Entry| e.key.same_board(key) && e.key.same_rights(key);
        if !self.repeated.iter().any(|&i| same(&self.window[i])) {
            return 0;
        }
        let mut n = 0;
        for e in self.window.iter().filter(|e| same(e)) {
            n += 1;
            if plies.len() < EARLIER_PLIES_MAX {
                plies.push(e.ply);
            }
        }
        n
    }
}
