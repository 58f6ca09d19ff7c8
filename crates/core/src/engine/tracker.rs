//! The repetition window: every position since the last pawn move or capture, with its counts.
//!
//! Nothing before a pawn move or capture can recur, so the window is cleared on those moves.
//! In real games the window is short, and a position is counted by a scan of it. A window that
//! grows past [`SCAN_MAX`] positions (a long shuffle: thousands of moves without a pawn move or
//! capture, which a scan would make quadratic) is kept as its distinct positions instead
//! (`Long`): each placement once, found by a hash of its Zobrist key, with its occurrences and
//! the FIDE identities and FEN e.p. fields it took. The storage is reused from game to game: no
//! allocation per ply once grown.

use std::{
    collections::HashMap,
    hash::{BuildHasherDefault, Hasher},
};

use shakmaty::{Bitboard, Board, ByColor, Color, Role, Square};

use crate::engine::{checks::Checks, event::Perpetual, identity::Key};

/// At most this many earlier plies are listed with an event (the earliest ones); the occurrence
/// numbers still count them all. Keeps a game of thousands of shuffling moves small.
pub const EARLIER_PLIES_MAX: usize = 16;

/// A window of up to this many positions is scanned; a longer one is kept as a `Long`
/// (its distinct positions).
pub(crate) const SCAN_MAX: usize = 64;

struct Entry {
    key: Key,
    ply: u32,
}

/// Occurrence counts of one position among the window, itself included.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Occurrences {
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

pub(crate) struct Tracker {
    /// The window while it is short.
    window: Vec<Entry>,
    /// Window indices of the distinct positions that occurred at least twice (their latest
    /// occurrence): only these can be reached a third time by a move.
    repeated: Vec<usize>,
    /// The window once it is long (then `window` is empty), and its latest position.
    long: Long,
    is_long: bool,
    last: Option<Key>,
    /// Which moves of a long window gave check (a short one asks its positions).
    long_checks: Checks,
    /// The short window's length at which [`Self::observe`] turns to the long one: [`SCAN_MAX`],
    /// or 0 once the window is long (one test per position for both).
    long_from: usize,
    /// Window positions that occurred at least twice, by side to move (shakmaty's `ByColor`).
    twice: ByColor<u32>,
    board_earlier: Vec<u32>,
    fide_earlier: Vec<u32>,
    /// Ply of the latest earlier FIDE-equal position, when there is one (set only then: no cost
    /// for the many positions that occur once).
    previous: u32,
}

impl Default for Tracker {
    fn default() -> Tracker {
        Tracker {
            window: Vec::new(),
            repeated: Vec::new(),
            long: Long::default(),
            is_long: false,
            last: None,
            long_checks: Checks::default(),
            long_from: SCAN_MAX,
            twice: ByColor::default(),
            board_earlier: Vec::new(),
            fide_earlier: Vec::new(),
            previous: 0,
        }
    }
}

impl Tracker {
    /// Forgets the window (after a pawn move or capture, or at a new game).
    pub(crate) fn reset(&mut self) {
        self.window.clear();
        self.repeated.clear();
        if self.is_long {
            self.long.clear();
            self.long_checks.clear();
            self.is_long = false;
            self.long_from = SCAN_MAX;
        }
        self.twice = ByColor::default();
    }

    /// Records the position of `ply` and returns its counts. The plies of the earlier board-equal
    /// and FIDE-equal positions are then available from [`Self::board_earlier`] and
    /// [`Self::fide_earlier`].
    #[inline(always)]
    pub(crate) fn observe(&mut self, key: Key, ply: u32) -> Occurrences {
        if self.window.len() >= self.long_from {
            return self.observe_long(key, ply);
        }
        self.board_earlier.clear();
        self.fide_earlier.clear();
        let mut counts = Occurrences { board: 1, fide: 1, fen: 1, ..Occurrences::default() };
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
                self.previous = e.ply;
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
            self.twice[key.turn] += 1;
            let window = &self.window;
            let idx = window.len();
            match self
                .repeated
                .iter_mut()
                .find(|i| window[**i].key.same_board(&key) && window[**i].key.same_rights(&key))
            {
                Some(i) => *i = idx,
                None => self.repeated.push(idx),
            }
        }
        self.window.push(Entry { key, ply });
        counts
    }

    /// [`Self::observe`] in a long window (made one first if the window just grew too long).
    #[inline(never)]
    fn observe_long(&mut self, key: Key, ply: u32) -> Occurrences {
        if !self.is_long {
            self.lengthen();
        }
        self.board_earlier.clear();
        self.fide_earlier.clear();
        let counts = self.long.observe(&key, ply, &mut self.board_earlier, &mut self.fide_earlier, &mut self.previous);
        if counts.fide >= 2 {
            self.twice[key.turn] += 1;
        }
        self.long_checks.record(ply, key.in_check());
        self.last = Some(key);
        counts
    }

    /// Moves the short window into a [`Long`] one.
    #[cold]
    fn lengthen(&mut self) {
        for e in self.window.drain(..) {
            self.board_earlier.clear();
            self.fide_earlier.clear();
            self.long.observe(&e.key, e.ply, &mut self.board_earlier, &mut self.fide_earlier, &mut self.previous);
            self.long_checks.record(e.ply, e.key.in_check());
        }
        self.repeated.clear();
        self.is_long = true;
        self.long_from = 0;
    }

    /// Key of the position observed last.
    pub(crate) fn last_key(&self) -> Option<&Key> {
        if self.is_long { self.last.as_ref() } else { self.window.last().map(|e| &e.key) }
    }

    pub(crate) fn board_earlier(&self) -> &[u32] {
        &self.board_earlier
    }

    pub(crate) fn fide_earlier(&self) -> &[u32] {
        &self.fide_earlier
    }

    /// Ply of the previous occurrence of the position observed last, when its FIDE count is 2
    /// or more: exact, unlike [`Self::fide_earlier`], which keeps the earliest plies.
    pub(crate) fn previous(&self) -> u32 {
        self.previous
    }

    /// Which side gave check with every one of its moves from window ply `from` to the position
    /// observed last, at ply `to`. Asked at repetitions only, so the hot path computes no check:
    /// a short window asks its positions, a long one the bits it recorded.
    pub(crate) fn perpetual(&self, from: u32, to: u32) -> Option<Perpetual> {
        let to_move = self.last_key()?.turn;
        if self.is_long {
            return self.long_checks.perpetual(from, to, to_move);
        }
        let (mut white, mut black) = (true, true);
        // The side to move at a position did not make the move that reached it.
        for e in self.window.iter().rev().take_while(|e| e.ply > from) {
            if !e.key.in_check() {
                *e.key.turn.fold_wb(&mut black, &mut white) = false;
                if !(white || black) {
                    break;
                }
            }
        }
        Perpetual::of(white, black)
    }

    /// Whether some window position with `turn` to move has occurred at least twice: only then
    /// can a move reach a third occurrence.
    pub(crate) fn any_twice(&self, turn: Color) -> bool {
        self.twice[turn] > 0
    }

    /// Whether some position that occurred at least twice, with `turn`'s opponent to move, could
    /// follow `board` by one move of `turn` that is no pawn move or capture: such a move leaves
    /// the opponent's pieces where they are and changes at most four squares (castling), so a
    /// position whose opponent pieces stand elsewhere cannot follow. Only a filter: `true` may
    /// still find no move. A long window always answers `true`.
    pub(crate) fn may_follow_by_one_move(&self, board: &Board, turn: Color) -> bool {
        if self.is_long {
            return true;
        }
        let them = board.by_color(!turn);
        self.repeated.iter().any(|&i| {
            let b = &self.window[i].key.board;
            self.window[i].key.turn != turn
                && b.by_color(!turn) == them
                && Role::ALL.iter().all(|&r| b.by_role(r) & them == board.by_role(r) & them)
                && (b.occupied() ^ board.occupied()).count() <= 4
        })
    }

    /// Whether a position that occurred at least twice has the pieces-and-side Zobrist key
    /// `board_zobrist`: a cheap test before [`Self::lookup_repeated`].
    #[inline]
    pub(crate) fn repeated_board(&self, board_zobrist: u64) -> bool {
        if self.is_long {
            return self.long.repeated_board(board_zobrist);
        }
        self.repeated.iter().any(|&i| self.window[i].key.board_zobrist == board_zobrist)
    }

    /// How often `key` occurred in the window if at least twice (else 0 or 1), with the earliest
    /// plies, without recording it.
    pub(crate) fn lookup_repeated(&self, key: &Key, plies: &mut Vec<u32>) -> u32 {
        plies.clear();
        if self.is_long {
            return self.long.lookup_repeated(key, plies);
        }
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

/// No further element in a chain.
const NONE: u32 = u32::MAX;

/// A long window: its distinct positions, each with its occurrence count and earliest plies.
#[derive(Default)]
struct Long {
    placements: Vec<Placement>,
    identities: Vec<Rights>,
    fens: Vec<Fen>,
    /// Placements by Zobrist key: the latest of each chain ([`Placement::next`]).
    index: HashMap<u64, u32, BuildHasherDefault<ZobristHasher>>,
}

/// One placement (pieces on squares and side to move).
struct Placement {
    /// The key of its first occurrence (its board and side are what count here).
    key: Key,
    seen: Seen,
    /// Its latest identity in `identities`; the others follow through [`Rights::next`].
    identities: u32,
    /// Some identity of it occurred at least twice.
    twice: bool,
    /// The placement indexed before it under the same Zobrist key (a collision).
    next: u32,
}

/// One FIDE identity of a placement: castling rights and legal e.p. square.
struct Rights {
    castling: Bitboard,
    legal_ep: Option<Square>,
    seen: Seen,
    /// Its latest FEN e.p. field in `fens`; the others follow through [`Fen::next`].
    fens: u32,
    next: u32,
}

/// Occurrences of an identity with one FEN e.p. field (after a double push without a legal
/// e.p. capture, FEN writes a square that the identity does not count).
struct Fen {
    ep: Option<Square>,
    count: u32,
    next: u32,
}

/// How often something occurred, the plies of its earliest occurrences (as many as an event
/// lists) and of its latest.
struct Seen {
    count: u32,
    plies: [u32; EARLIER_PLIES_MAX],
    last: u32,
}

impl Seen {
    fn first(ply: u32) -> Seen {
        let mut plies = [0; EARLIER_PLIES_MAX];
        plies[0] = ply;
        Seen { count: 1, plies, last: ply }
    }

    /// The plies of the earliest occurrences.
    fn earliest(&self) -> &[u32] {
        &self.plies[..(self.count as usize).min(EARLIER_PLIES_MAX)]
    }

    /// Records another occurrence at `ply`; returns how many came before, their plies in
    /// `earlier`.
    fn again(&mut self, ply: u32, earlier: &mut Vec<u32>) -> u32 {
        earlier.extend_from_slice(self.earliest());
        if let Some(slot) = self.plies.get_mut(self.count as usize) {
            *slot = ply;
        }
        self.last = ply;
        self.count += 1;
        self.count - 1
    }
}

/// Zobrist keys are uniformly random already: the index uses them as they are.
#[derive(Default)]
struct ZobristHasher(u64);

impl Hasher for ZobristHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// An index into one of [`Long`]'s vectors, which hold at most a position per ply (at most
/// [`crate::engine::replay::MAX_PLIES`] + 1).
fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(NONE - 1)
}

impl Long {
    fn clear(&mut self) {
        self.placements.clear();
        self.identities.clear();
        self.fens.clear();
        self.index.clear();
    }

    /// The placement of `key`.
    fn find(&self, key: &Key) -> Option<usize> {
        let mut i = *self.index.get(&key.board_zobrist)?;
        while i != NONE {
            let p = &self.placements[i as usize];
            if p.key.same_board(key) {
                return Some(i as usize);
            }
            i = p.next;
        }
        None
    }

    /// The identity of `key` under placement `p`.
    fn find_identity(&self, p: usize, key: &Key) -> Option<usize> {
        let mut i = self.placements[p].identities;
        while i != NONE {
            let id = &self.identities[i as usize];
            if id.castling == key.castling && id.legal_ep == key.legal_ep {
                return Some(i as usize);
            }
            i = id.next;
        }
        None
    }

    /// A new identity for `key`, first seen at `ply`, in front of chain `next`.
    fn new_identity(&mut self, key: &Key, ply: u32, next: u32) -> u32 {
        self.fens.push(Fen { ep: key.fen_ep, count: 1, next: NONE });
        let fens = index(self.fens.len() - 1);
        self.identities.push(Rights {
            castling: key.castling,
            legal_ep: key.legal_ep,
            seen: Seen::first(ply),
            fens,
            next,
        });
        index(self.identities.len() - 1)
    }

    /// Records an occurrence of `key` at `ply`; its counts as [`Tracker::observe`] gives them,
    /// the earlier plies in `board_earlier` and `fide_earlier` (empty on entry), and the
    /// previous FIDE-equal ply in `previous` when there is one.
    fn observe(
        &mut self,
        key: &Key,
        ply: u32,
        board_earlier: &mut Vec<u32>,
        fide_earlier: &mut Vec<u32>,
        previous: &mut u32,
    ) -> Occurrences {
        let mut counts = Occurrences { board: 1, fide: 1, fen: 1, ..Occurrences::default() };
        let Some(p) = self.find(key) else {
            let identities = self.new_identity(key, ply, NONE);
            let i = index(self.placements.len());
            let next = self.index.insert(key.board_zobrist, i).unwrap_or(NONE);
            self.placements.push(Placement {
                key: key.clone(),
                seen: Seen::first(ply),
                identities,
                twice: false,
                next,
            });
            return counts;
        };
        let placement = &mut self.placements[p];
        counts.board += placement.seen.again(ply, board_earlier);
        // One walk over its identities: the flags of the others, and its own.
        let (mut i, mut same) = (placement.identities, None);
        while i != NONE {
            let id = &self.identities[i as usize];
            if id.castling == key.castling && id.legal_ep == key.legal_ep {
                same = Some(i as usize);
            } else {
                counts.castling_differs |= id.castling != key.castling;
                counts.ep_differs |= id.legal_ep != key.legal_ep;
            }
            i = id.next;
        }
        let Some(i) = same else {
            let first = self.placements[p].identities;
            self.placements[p].identities = self.new_identity(key, ply, first);
            return counts;
        };
        let id = &mut self.identities[i];
        *previous = id.seen.last;
        counts.fide += id.seen.again(ply, fide_earlier);
        let mut f = id.fens;
        while f != NONE && self.fens[f as usize].ep != key.fen_ep {
            f = self.fens[f as usize].next;
        }
        if f == NONE {
            self.fens.push(Fen { ep: key.fen_ep, count: 1, next: self.identities[i].fens });
            self.identities[i].fens = index(self.fens.len() - 1);
        } else {
            let fen = &mut self.fens[f as usize];
            counts.fen += fen.count;
            fen.count += 1;
        }
        self.placements[p].twice = true;
        counts
    }

    fn repeated_board(&self, board_zobrist: u64) -> bool {
        let mut i = self.index.get(&board_zobrist).copied().unwrap_or(NONE);
        while i != NONE {
            let p = &self.placements[i as usize];
            if p.twice {
                return true;
            }
            i = p.next;
        }
        false
    }

    fn lookup_repeated(&self, key: &Key, plies: &mut Vec<u32>) -> u32 {
        let Some(id) = self.find(key).and_then(|p| self.find_identity(p, key)).map(|i| &self.identities[i]) else {
            return 0;
        };
        if id.seen.count < 2 {
            return 0;
        }
        plies.extend_from_slice(id.seen.earliest());
        id.seen.count
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Chess, Move, Position, fen::Fen};

    use super::*;

    /// A tracker whose every window is long from its first position.
    fn long_from_the_start() -> Tracker {
        Tracker { is_long: true, long_from: 0, ..Tracker::default() }
    }

    fn reset(tracker: &mut Tracker, long: bool) {
        tracker.reset();
        if long {
            (tracker.is_long, tracker.long_from) = (true, 0);
        }
    }

    /// xorshift64*: deterministic, so a failure names its seed.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Everything a tracker tells about the position `pos` just observed at `ply` (with the
    /// perpetual check since its previous occurrence), and about the positions each of its quiet
    /// moves would reach.
    fn answers(tracker: &Tracker, pos: &Chess, counts: Occurrences, ply: u32) -> String {
        let mut out = format!(
            "{counts:?} {:?} {:?} {} {} {:?}",
            tracker.board_earlier(),
            tracker.fide_earlier(),
            tracker.any_twice(Color::White),
            tracker.any_twice(Color::Black),
            tracker.last_key().map(|k| k.zobrist()),
        );
        if counts.fide >= 2 {
            out += &format!(" {} {:?}", tracker.previous(), tracker.perpetual(tracker.previous(), ply));
        }
        let mut plies = Vec::new();
        for m in pos.legal_moves().into_iter().filter(|m| !m.is_zeroing()) {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let key = Key::of(&after);
            let n = tracker.lookup_repeated(&key, &mut plies);
            out += &format!(" {}:{}:{n}:{plies:?}", m, tracker.repeated_board(key.board_zobrist));
        }
        out
    }

    const STARTS: [(&str, CastlingMode); 3] = [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", CastlingMode::Standard),
        ("r3k2r/pppq1ppp/2n2n2/3pp3/1bPP4/2N2N2/PP1QPPPP/R3KB1R w KQkq - 0 1", CastlingMode::Standard),
        ("rk4nr/pppppppp/8/8/8/8/PPPPPPPP/RK4NR w KQkq - 0 1", CastlingMode::Chess960),
    ];

    /// A move of a game that mostly shuffles: mostly the undoing of our own move of two plies
    /// ago, sometimes anything.
    fn shuffling_move(legal: &[Move], played: &[Move], state: &mut u64) -> Move {
        let back = played.len().checked_sub(2).and_then(|i| {
            let m = played[i];
            legal.iter().copied().find(|l| l.from() == Some(m.to()) && Some(l.to()) == m.from())
        });
        match back {
            Some(b) if next(state) % 10 < 7 => b,
            _ => legal[(next(state) % legal.len() as u64) as usize],
        }
    }

    /// The long window (distinct positions, found by hash) answers exactly as the scanned short
    /// one, and a window that turns long part-way answers as one long from the start: on random
    /// games that mostly shuffle, with castling rights lost and e.p. squares on the way.
    #[test]
    fn a_long_window_answers_as_a_scanned_one() {
        let mut windows_turned_long = 0;
        for (fen, mode) in STARTS {
            let start: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
            for seed in 0..40u64 {
                let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                let (mut short, mut long) = (Tracker::default(), long_from_the_start());
                let mut pos = start.clone();
                let mut played: Vec<Move> = Vec::new();
                for ply in 0..300u32 {
                    let was_long = short.is_long;
                    let (a, b) = (short.observe(Key::of(&pos), ply), long.observe(Key::of(&pos), ply));
                    assert_eq!(answers(&short, &pos, a, ply), answers(&long, &pos, b, ply), "seed {seed}, ply {ply}");
                    windows_turned_long += usize::from(short.is_long && !was_long);
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    let m = shuffling_move(&legal, &played, &mut state);
                    pos.play_unchecked(m);
                    played.push(m);
                    if m.is_zeroing() {
                        reset(&mut short, false);
                        reset(&mut long, true);
                    }
                }
            }
        }
        assert!(windows_turned_long > 0);
    }

    /// The filter before the claim-by-move search never turns away a position from which a
    /// quiet move reaches one that occurred twice (checked by trying every legal move), and does
    /// turn many away: on shuffling games as above, in short windows.
    #[test]
    fn the_one_move_filter_keeps_every_claim_by_move() {
        let (mut claims, mut turned_away) = (0, 0);
        let mut plies = Vec::new();
        for (fen, mode) in STARTS {
            let start: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
            for seed in 0..40u64 {
                let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                let mut tracker = Tracker::default();
                let mut pos = start.clone();
                let mut played: Vec<Move> = Vec::new();
                for ply in 0..300u32 {
                    tracker.observe(Key::of(&pos), ply);
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    let claim = legal.iter().filter(|m| !m.is_zeroing()).any(|&m| {
                        let mut after = pos.clone();
                        after.play_unchecked(m);
                        tracker.lookup_repeated(&Key::of(&after), &mut plies) >= 2
                    });
                    let may = tracker.may_follow_by_one_move(pos.board(), pos.turn());
                    assert!(may || !claim, "seed {seed}, ply {ply}: a claim by move turned away");
                    claims += usize::from(claim);
                    turned_away += usize::from(!may && tracker.any_twice(!pos.turn()));
                    let m = shuffling_move(&legal, &played, &mut state);
                    pos.play_unchecked(m);
                    played.push(m);
                    if m.is_zeroing() {
                        tracker.reset();
                    }
                }
            }
        }
        assert!(claims > 5_000 && turned_away > 5_000, "{claims} claims, {turned_away} turned away");
    }

    /// Regression: a game that shuffles for thousands of moves was counted against every
    /// earlier ply, quadratic in its length (100,000 plies of knight moves took 48 s to dump).
    /// The window now holds each distinct position once.
    #[test]
    fn a_shuffle_of_thousands_of_moves_keeps_each_position_once() {
        let mut pos = Chess::default();
        let mut tracker = Tracker::default();
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        for ply in 0..10_000u32 {
            let counts = tracker.observe(Key::of(&pos), ply);
            assert_eq!(counts.fide, ply / 4 + 1);
            assert_eq!(tracker.fide_earlier().len(), (ply as usize / 4).min(EARLIER_PLIES_MAX));
            // The previous occurrence is exact past the earliest plies listed.
            if ply >= 4 {
                assert_eq!(tracker.previous(), ply - 4);
            }
            let uci: shakmaty::uci::UciMove = shuffle[ply as usize % 4].parse().unwrap();
            pos.play_unchecked(uci.to_move(&pos).unwrap());
        }
        assert!(tracker.is_long);
        assert_eq!((tracker.window.len(), tracker.long.placements.len(), tracker.long.identities.len()), (0, 4, 4));
    }
}
