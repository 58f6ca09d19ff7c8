//! The [`Rules`] of the Lichess variants (crazyhouse, three-check, atomic, antichess, king of the
//! hill, horde, racing kings): their games replayed by the same [`crate::engine::replay`] as
//! standard chess, with `shakmaty`'s variant positions and a window of their own.
//!
//! Rules of their own, so that standard chess keeps its fast paths (SAN without a move list, the
//! incremental Zobrist key, a window cleared on every pawn move or capture), which assume its
//! rules: here pieces come back by drops, captures explode, checks are counted. Its positions
//! are those of a shakmaty of their own (the `shakmaty_variant` dependency, 0.29 with the
//! `variant` feature): that feature on the shakmaty standard chess uses costs every standard
//! move (docs/performance.md). Only this module and [`crate::engine::start`] see its types;
//! what leaves here (keys, identities, events) is in the common ones. Identity is
//! python-chess's `_transposition_key` of the variant board: the standard one, plus pockets and
//! promoted pieces in crazyhouse and the checks still to give in three-check (both counted as
//! part of the board, so a pseudo-repetition still means "only castling or e.p. differ"). The
//! e.p. square counts when the variant's own move rules allow the capture (`legal_ep_square` of
//! the variant position: explosions, forced captures, a side without a king).

use std::collections::HashMap;

use shakmaty::{Bitboard, Board, ByColor as Sides, CastlingMode, Color, Square, san::SanPlus};
use shakmaty_variant::{
    self as v, ByColor, ByRole, Move, Position, RemainingChecks, Role,
    san::{San, SanError},
    uci::UciMove,
    variant::{Variant as LichessVariant, VariantPosition},
};

use crate::engine::{
    event::Perpetual,
    identity::{self, Identity, Key},
    laws::Automatic,
    rules::{Claim, Played, Rules},
    start::{ErrorKind, VariantStart},
    summary::{DrawReason, FinalStatus},
    tracker::{EARLIER_PLIES_MAX, Occurrences},
};

/// Whether the fifty- and seventy-five-move counts apply in `rules` (`first_ply_halfmove_100`,
/// `_150`): everywhere but in crazyhouse, as python-chess's `_is_halfmoves` has it.
pub fn halfmove_rules_apply(rules: LichessVariant) -> bool {
    rules != LichessVariant::Crazyhouse
}

/// Whether no position before `m` (played in `pos`) can occur again after it, so that the window
/// starts afresh: a pawn move or capture, and in three-check a check too (the checks left
/// are part of the identity). Never in crazyhouse, where captured pieces come back by drops and
/// a dropped pawn can stand where one stood before (only losing a castling right is final
/// there, and that makes every later position differ from the earlier ones anyway).
pub fn ends_window(pos: &VariantPosition, m: Move) -> bool {
    match pos.variant() {
        LichessVariant::Crazyhouse => false,
        LichessVariant::ThreeCheck => m.is_zeroing() || gives_check(pos, m),
        _ => m.is_zeroing(),
    }
}

fn gives_check(pos: &VariantPosition, m: Move) -> bool {
    let mut after = pos.clone();
    after.play_unchecked(m);
    after.is_check()
}

/// What a variant adds to a position's identity, as [`Identity::variant_state`] prints it:
/// crazyhouse `[QRBNPqrbnp]` pockets (white's, then black's, each from the queen down) then
/// `~` and the square of each promoted piece on the board (`[Pn]~e8`); three-check the checks
/// white and black still have to give (`3+2`).
pub fn variant_state(pos: &VariantPosition) -> Option<String> {
    if let Some(pockets) = pos.pockets() {
        let mut s = String::from("[");
        for color in v::Color::ALL {
            for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn] {
                let letter = role.of(color).char();
                s.extend(std::iter::repeat_n(letter, usize::from(*pockets.get(color).get(role))));
            }
        }
        s.push(']');
        for sq in pos.promoted() {
            s.push('~');
            s.push_str(&sq.to_string());
        }
        return Some(s);
    }
    pos.remaining_checks().map(|checks| format!("{}+{}", u32::from(checks.white), u32::from(checks.black)))
}

fn color(c: v::Color) -> Color {
    match c {
        v::Color::White => Color::White,
        v::Color::Black => Color::Black,
    }
}

fn square(sq: v::Square) -> Square {
    Square::new(u32::from(sq))
}

fn mode(m: v::CastlingMode) -> CastlingMode {
    match m {
        v::CastlingMode::Standard => CastlingMode::Standard,
        v::CastlingMode::Chess960 => CastlingMode::Chess960,
    }
}

/// The board in the common types, piece by piece.
fn board(b: &v::Board) -> Board {
    let mut out = Board::empty();
    for (sq, piece) in b.iter() {
        let role = match piece.role {
            Role::Pawn => shakmaty::Role::Pawn,
            Role::Knight => shakmaty::Role::Knight,
            Role::Bishop => shakmaty::Role::Bishop,
            Role::Rook => shakmaty::Role::Rook,
            Role::Queen => shakmaty::Role::Queen,
            Role::King => shakmaty::Role::King,
        };
        out.set_piece_at(square(sq), role.of(color(piece.color)));
    }
    out
}

/// Everything of a variant position that repetition compares.
#[derive(Clone)]
struct VKey {
    /// The standard parts: board, side, castling, legal and FEN e.p. squares.
    std: Key,
    pockets: Option<ByColor<ByRole<u8>>>,
    promoted: v::Bitboard,
    checks: Option<ByColor<RemainingChecks>>,
    /// Groups the board-equal keys: the board's Zobrist key mixed with the variant's parts.
    group: u64,
}

/// The standard parts of a variant position's key, in the common types.
fn standard_key(pos: &VariantPosition) -> Key {
    let (board, turn) = (board(pos.board()), color(pos.turn()));
    let board_zobrist = identity::board_zobrist(&board, turn);
    Key {
        board,
        turn,
        castling: Bitboard(pos.castles().castling_rights().0),
        legal_ep: pos.legal_ep_square().map(square),
        fen_ep: pos.maybe_ep_square().map(square),
        board_zobrist,
    }
}

impl VKey {
    fn of(pos: &VariantPosition) -> VKey {
        let std = standard_key(pos);
        let pockets = pos.pockets().copied();
        let checks = pos.remaining_checks().copied();
        let mut group = std.board_zobrist;
        let mut mix = |v: u64| group = (group ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
        if let Some(p) = &pockets {
            for color in v::Color::ALL {
                for &n in p.get(color).iter() {
                    mix(u64::from(n));
                }
            }
        }
        mix(pos.promoted().0);
        if let Some(c) = &checks {
            mix(u64::from(u32::from(c.white)) << 8 | u64::from(u32::from(c.black)));
        }
        VKey { std, pockets, promoted: pos.promoted(), checks, group }
    }

    /// Same pieces on the same squares (pockets and promoted pieces too), side and checks left.
    fn same_board(&self, other: &VKey) -> bool {
        self.group == other.group
            && self.std.same_board(&other.std)
            && self.pockets == other.pockets
            && self.promoted == other.promoted
            && self.checks == other.checks
    }

    fn same_rights(&self, other: &VKey) -> bool {
        self.std.same_rights(&other.std)
    }
}

/// The window: the positions that can still recur, each identity once, with its occurrences,
/// found by its board's group (a long shuffle costs a lookup per ply, not a scan of the window).
#[derive(Default)]
struct VariantTracker {
    seen: Vec<Seen>,
    /// Indices into `seen` by [`VKey::group`].
    groups: HashMap<u64, Vec<usize>>,
    last: Option<VKey>,
    /// Positions that occurred at least twice, by side to move.
    twice: Sides<u32>,
    board_earlier: Vec<u32>,
    fide_earlier: Vec<u32>,
    previous: u32,
}

/// One identity of the window: the key of its first occurrence, how often it occurred, the plies
/// of its earliest occurrences and of its latest, and its occurrences by FEN e.p. field.
struct Seen {
    key: VKey,
    count: u32,
    earliest: Vec<u32>,
    last: u32,
    fens: Vec<(Option<Square>, u32)>,
}

impl VariantTracker {
    fn clear(&mut self) {
        self.seen.clear();
        self.groups.clear();
        self.twice = Sides::default();
    }

    /// Records `key` at `ply` and returns its counts (earlier plies in `board_earlier`,
    /// `fide_earlier`, the latest FIDE-equal one in `previous`).
    fn observe(&mut self, key: VKey, ply: u32) -> Occurrences {
        self.board_earlier.clear();
        self.fide_earlier.clear();
        let mut counts = Occurrences { board: 1, fide: 1, fen: 1, ..Occurrences::default() };
        let group = self.groups.entry(key.group).or_default();
        let mut same = None;
        for &i in group.iter() {
            let s = &self.seen[i];
            if !s.key.same_board(&key) {
                continue;
            }
            counts.board += s.count;
            self.board_earlier.extend_from_slice(&s.earliest);
            if s.key.same_rights(&key) {
                same = Some(i);
                counts.fide += s.count;
                self.previous = s.last;
                self.fide_earlier.extend_from_slice(&s.earliest);
                counts.fen += s.fens.iter().find(|f| f.0 == key.std.fen_ep).map_or(0, |f| f.1);
            } else {
                counts.castling_differs |= s.key.std.castling != key.std.castling;
                counts.ep_differs |= s.key.std.legal_ep != key.std.legal_ep;
            }
        }
        // The earliest board-equal plies of all identities of this board, in order.
        self.board_earlier.sort_unstable();
        self.board_earlier.truncate(EARLIER_PLIES_MAX);
        match same {
            Some(i) => {
                let s = &mut self.seen[i];
                s.count += 1;
                if s.earliest.len() < EARLIER_PLIES_MAX {
                    s.earliest.push(ply);
                }
                s.last = ply;
                match s.fens.iter_mut().find(|f| f.0 == key.std.fen_ep) {
                    Some(f) => f.1 += 1,
                    None => s.fens.push((key.std.fen_ep, 1)),
                }
            }
            None => {
                group.push(self.seen.len());
                let fens = vec![(key.std.fen_ep, 1)];
                self.seen.push(Seen { key: key.clone(), count: 1, earliest: vec![ply], last: ply, fens });
            }
        }
        if counts.fide == 2 {
            self.twice[key.std.turn] += 1;
        }
        self.last = Some(key);
        counts
    }

    /// How often `key` occurred, with the earliest plies, without recording it.
    fn lookup(&self, key: &VKey, plies: &mut Vec<u32>) -> u32 {
        plies.clear();
        let group = self.groups.get(&key.group).map_or(&[][..], Vec::as_slice);
        match group.iter().map(|&i| &self.seen[i]).find(|s| s.key.same_board(key) && s.key.same_rights(key)) {
            Some(s) => {
                plies.extend_from_slice(&s.earliest);
                s.count
            }
            None => 0,
        }
    }

    fn last(&self) -> &VKey {
        self.last.as_ref().expect("just observed")
    }
}

/// The [`Rules`] of the Lichess variants: a variant position and its window.
pub struct VariantRules {
    pos: VariantPosition,
    mode: v::CastlingMode,
    tracker: VariantTracker,
    /// Per ply of the game: the side to move and whether it is in check (for perpetual checks).
    checks: Vec<(Color, bool)>,
    scratch: Vec<u32>,
}

impl Default for VariantRules {
    fn default() -> VariantRules {
        VariantRules {
            pos: VariantPosition::default(),
            mode: v::CastlingMode::Standard,
            tracker: VariantTracker::default(),
            checks: Vec::new(),
            scratch: Vec::new(),
        }
    }
}

impl VariantRules {
    fn identity_of(&self, key: &VKey, pos: &VariantPosition) -> Identity {
        let mut identity = Identity::of(&key.std, mode(self.mode));
        identity.variant_state = variant_state(pos);
        identity
    }
}

impl Rules for VariantRules {
    type Start = VariantStart;
    type Move = Move;

    fn start(&mut self, start: VariantStart) {
        self.tracker.clear();
        self.checks.clear();
        self.mode = start.mode;
        self.pos = start.pos;
    }

    fn turn(&self) -> Color {
        color(self.pos.turn())
    }

    fn halfmoves(&self) -> u32 {
        self.pos.halfmoves()
    }

    fn fullmoves(&self) -> u32 {
        self.pos.fullmoves().get()
    }

    /// The move as this module's shakmaty reads it: from its text, which both read alike.
    fn to_move(&self, san: &shakmaty::san::San) -> Result<Move, ErrorKind> {
        match San::from_ascii(san.to_string().as_bytes()) {
            Ok(San::Null) => Err(ErrorKind::NullMove),
            Ok(parsed) => parsed.to_move(&self.pos).map_err(|e| match e {
                SanError::AmbiguousSan => ErrorKind::AmbiguousMove,
                SanError::IllegalSan => ErrorKind::IllegalMove,
            }),
            Err(_) => Err(ErrorKind::InvalidMove),
        }
    }

    fn play(&mut self, m: Move) -> Played {
        let fresh = ends_window(&self.pos, m);
        let rights = self.pos.castles().castling_rights();
        let before = standard_key(&self.pos).board_zobrist;
        self.pos.play_unchecked(m);
        if fresh {
            self.tracker.clear();
        }
        let irreversible = fresh || self.pos.castles().castling_rights() != rights;
        Played { irreversible, board_change: before ^ standard_key(&self.pos).board_zobrist }
    }

    fn observe(&mut self, ply: u32) -> Occurrences {
        self.checks.push((color(self.pos.turn()), self.pos.is_check()));
        self.tracker.observe(VKey::of(&self.pos), ply)
    }

    fn identity(&self) -> Identity {
        self.identity_of(self.tracker.last(), &self.pos)
    }

    fn board_earlier(&self) -> &[u32] {
        &self.tracker.board_earlier
    }

    fn fide_earlier(&self) -> &[u32] {
        &self.tracker.fide_earlier
    }

    fn previous(&self) -> u32 {
        self.tracker.previous
    }

    fn perpetual(&self, from: u32, to: u32) -> Option<Perpetual> {
        let (mut white, mut black) = (true, true);
        for j in from + 1..=to {
            let (_, in_check) = self.checks[j as usize];
            if !in_check {
                let mover = self.checks[j as usize - 1].0;
                *mover.fold_wb(&mut white, &mut black) = false;
            }
        }
        Perpetual::of(white, black)
    }

    fn counts_halfmoves(&self) -> bool {
        halfmove_rules_apply(self.pos.variant())
    }

    fn may_claim_by_move(&self) -> bool {
        self.tracker.twice[!color(self.pos.turn())] > 0
    }

    /// Every legal move counts, drops too.
    fn claims_by_move(&mut self, mut claim: impl FnMut(Claim<Move>)) {
        for m in self.pos.legal_moves() {
            if ends_window(&self.pos, m) {
                continue;
            }
            let mut after = self.pos.clone();
            after.play_unchecked(m);
            let key = VKey::of(&after);
            let seen = self.tracker.lookup(&key, &mut self.scratch);
            if seen < 2 {
                continue;
            }
            claim(Claim {
                mv: m,
                identity: self.identity_of(&key, &after),
                san: v::san::SanPlus::from_move(self.pos.clone(), m).to_string(),
                uci: UciMove::from_move(m, self.mode).to_string(),
                occurrence: seen + 1,
                earlier_plies: self.scratch.clone(),
            });
        }
    }

    fn final_status(&self) -> FinalStatus {
        let pos = &self.pos;
        FinalStatus::first_of(|| pos.is_checkmate(), || pos.is_stalemate(), || pos.is_insufficient_material())
    }

    /// None: its inference follows the FIDE Laws, and the variants end games otherwise (a
    /// stalemate wins in antichess, a king explodes, ...).
    fn draw_reason(&self, _: FinalStatus, _: u32, _: bool, _: Automatic) -> Option<DrawReason> {
        None
    }
}

/// A position of a variant game as `threefold explain --html` draws it, in the common types.
#[derive(Clone, Debug)]
pub struct Drawn {
    /// Board, side to move, castling rooks, legal e.p. square.
    pub key: Key,
    pub mode: CastlingMode,
    pub fullmove: u32,
    /// White's and Black's pockets (crazyhouse), each as counts of queens, rooks, bishops,
    /// knights and pawns.
    pub pockets: Option<[[u8; 5]; 2]>,
    /// The checks White and Black still have to give (three-check).
    pub checks: Option<[u32; 2]>,
    /// The move that reached the position: where from (none for a drop), where to (the king's
    /// destination for castling), and its SAN as the game writes it.
    pub reached_by: Option<(Option<Square>, Square, String)>,
}

fn drawn(pos: &VariantPosition, mode: CastlingMode, reached_by: Option<(Option<Square>, Square, String)>) -> Drawn {
    let key = standard_key(pos);
    let pockets = pos.pockets().map(|p| {
        let count =
            |c: v::Color| [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn].map(|r| *p.get(c).get(r));
        [count(v::Color::White), count(v::Color::Black)]
    });
    let checks = pos.remaining_checks().map(|c| [u32::from(c.white), u32::from(c.black)]);
    Drawn { key, mode, fullmove: pos.fullmoves().get(), pockets, checks, reached_by }
}

/// The positions of a variant game's mainline, its start first, up to the first move that
/// cannot be played (the replay's events name plies of these). `None` when the start cannot be
/// set up.
pub fn drawn_positions(rules: LichessVariant, fen: Option<&str>, moves: &[SanPlus]) -> Option<Vec<Drawn>> {
    let start = VariantStart::new(rules, fen).ok()?;
    let (mut pos, castling) = (start.pos, mode(start.mode));
    let mut out = vec![drawn(&pos, castling, None)];
    for san in moves {
        let text = san.san.to_string();
        let Ok(parsed) = San::from_ascii(text.as_bytes()) else { break };
        let Ok(m) = parsed.to_move(&pos) else { break };
        let to = match m {
            Move::Castle { king, rook } => {
                let side = v::CastlingSide::from_king_side(king < rook);
                side.king_to(pos.turn())
            }
            _ => m.to(),
        };
        let reached = (m.from().map(square), square(to), san.to_string());
        pos.play_unchecked(m);
        out.push(drawn(&pos, castling, Some(reached)));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use shakmaty_variant::{CastlingMode, Square, fen::Fen};

    use super::*;

    fn pos(rules: LichessVariant, fen: &str) -> VariantPosition {
        let fen: Fen = fen.parse().unwrap();
        VariantPosition::from_setup(rules, fen.into_setup(), CastlingMode::Standard).unwrap()
    }

    #[test]
    fn variant_state_spells_pockets_promotions_and_checks() {
        let zh = pos(LichessVariant::Crazyhouse, "4k3/8/8/8/8/8/8/4K2R~[QPPn] w - - 0 1");
        assert_eq!(zh.promoted(), v::Bitboard::from(Square::H1));
        assert_eq!(variant_state(&zh).as_deref(), Some("[QPPn]~h1"));
        let three = pos(LichessVariant::ThreeCheck, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 2+3 0 1");
        assert_eq!(variant_state(&three).as_deref(), Some("2+3"));
        assert_eq!(variant_state(&VariantPosition::new(LichessVariant::Atomic)), None);
    }

    /// In crazyhouse a capture does not end the window: the pieces come back by drops.
    #[test]
    fn crazyhouse_window_survives_captures() {
        let zh = VariantPosition::new(LichessVariant::Crazyhouse);
        let capture = Move::Normal {
            role: Role::Pawn,
            from: Square::E4,
            capture: Some(Role::Pawn),
            to: Square::D5,
            promotion: None,
        };
        assert!(!ends_window(&zh, capture));
        assert!(ends_window(&VariantPosition::new(LichessVariant::Atomic), capture));
    }
}
