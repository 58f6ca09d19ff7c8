//! Which moves of a long window gave check, one bit per ply, so that the moves between two
//! occurrences of a position can be classified as a perpetual check (or not) in a few word
//! operations. A short window asks its own positions instead (see [`crate::engine::tracker`]).

use shakmaty::Color;

use crate::engine::event::Perpetual;

/// Bit `j` is set when the move reaching ply `j` gave check. Reused from window to window: no
/// allocation per ply once grown.
#[derive(Default)]
pub(crate) struct Checks {
    words: Vec<u64>,
}

/// Bits at even positions of a word (plies 0, 2, 4, ... of it: 64 is even, so every word starts
/// at an even ply).
const EVEN: u64 = 0x5555_5555_5555_5555;

impl Checks {
    pub(crate) fn clear(&mut self) {
        self.words.clear();
    }

    /// Records whether the move reaching `ply` gave check; plies come in increasing order.
    pub(crate) fn record(&mut self, ply: u32, check: bool) {
        let w = (ply / 64) as usize;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= u64::from(check) << (ply % 64);
    }

    /// Whether every ply from `lo` to `hi` (both included) of parity `odd` has its bit set.
    fn all_set(&self, lo: u32, hi: u32, odd: bool) -> bool {
        let alternate = if odd { EVEN << 1 } else { EVEN };
        (lo / 64..=hi / 64).all(|w| {
            let mut mask = alternate;
            if w == lo / 64 {
                mask &= u64::MAX << (lo % 64);
            }
            if w == hi / 64 {
                mask &= u64::MAX >> (63 - hi % 64);
            }
            self.words.get(w as usize).copied().unwrap_or(0) & mask == mask
        })
    }

    /// Which side gave check with each of its moves from ply `from` to ply `to` (the moves
    /// reaching plies `from + 1..=to`), `to_move` being the side to move at `to`. Both sides move
    /// in such a span: a position recurs at the earliest after 4 plies.
    pub(crate) fn perpetual(&self, from: u32, to: u32, to_move: Color) -> Option<Perpetual> {
        debug_assert!(to >= from + 4, "a cycle of {from}..{to}");
        // The moves reaching plies of `to`'s parity are the other side's.
        let odd = !to.is_multiple_of(2);
        let theirs = self.all_set(from + 1, to, odd);
        let ours = self.all_set(from + 1, to, !odd);
        let (white, black) = if to_move == Color::White { (ours, theirs) } else { (theirs, ours) };
        Perpetual::of(white, black)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-wise answer equals a ply-by-ply one over random bit patterns and every span of
    /// up to 200 plies, across word boundaries, for either side to move.
    #[test]
    fn perpetual_equals_a_ply_by_ply_count() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for round in 0..20 {
            let mut checks = Checks::default();
            let mut bits = Vec::new();
            for ply in 0..300u32 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Mostly checks, so that long all-check runs occur.
                let check = round % 2 == 0 || !state.is_multiple_of(8);
                checks.record(ply, check);
                bits.push(check);
            }
            for from in 0..100u32 {
                for to in from + 4..from + 200 {
                    for to_move in Color::ALL {
                        // The side to move at ply j made the moves reaching plies of the other parity.
                        let mover = |j: u32| if (to - j).is_multiple_of(2) { !to_move } else { to_move };
                        let all = |c: Color| (from + 1..=to).filter(|&j| mover(j) == c).all(|j| bits[j as usize]);
                        let expected = Perpetual::of(all(Color::White), all(Color::Black));
                        assert_eq!(checks.perpetual(from, to, to_move), expected, "round {round}, {from}..{to}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_cleared_window_starts_without_checks() {
        let mut checks = Checks::default();
        for ply in 0..10 {
            checks.record(ply, true);
        }
        checks.clear();
        for ply in 3..13 {
            checks.record(ply, ply % 2 == 1);
        }
        // White to move at even plies: White's moves reach the odd ones.
        assert_eq!(checks.perpetual(4, 12, Color::White), Some(Perpetual::White));
        assert_eq!(checks.perpetual(5, 11, Color::Black), Some(Perpetual::White));
        assert_eq!(checks.perpetual(4, 12, Color::Black), Some(Perpetual::Black));
        assert_eq!(checks.perpetual(0, 12, Color::White), None, "plies 1 and 2 were cleared");
    }
}
