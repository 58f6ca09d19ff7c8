//! The clocks and evaluations written in a game's mainline comments, kept per move while the
//! game is replayed and looked up by ply when its events and summary are made: the clock of the
//! side to move at ply `p` is the one written after move `p - 1` (its own previous move), the
//! opponent's the one after move `p`; before a side's first move its clock is the base time.
//! No side or colour enters: it holds for games from a FEN where Black moves first too.

use serde::Serialize;
use shakmaty::Color;

/// An evaluation from White's point of view, as `[%eval]` writes it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns.
    Cp(i64),
    /// Mate in so many moves (negative: Black mates; 0: the side to move is mated).
    Mate(i32),
}

impl Eval {
    /// The same evaluation from `color`'s point of view.
    pub fn for_side(self, color: Color) -> Eval {
        match (self, color) {
            (e, Color::White) => e,
            (Eval::Cp(cp), Color::Black) => Eval::Cp(-cp),
            (Eval::Mate(n), Color::Black) => Eval::Mate(-n),
        }
    }

    pub fn cp(self) -> Option<i64> {
        match self {
            Eval::Cp(cp) => Some(cp),
            Eval::Mate(_) => None,
        }
    }

    pub fn mate(self) -> Option<i32> {
        match self {
            Eval::Mate(n) => Some(n),
            Eval::Cp(_) => None,
        }
    }
}

/// The clocks and evaluation at one ply, as an event's fields (`dump` writes them inline).
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize)]
pub struct AtPly {
    /// Remaining time of the side to move, and of its opponent, in milliseconds.
    pub clock_ms: Option<i64>,
    pub opponent_clock_ms: Option<i64>,
    /// The evaluation written after the move that made the position, from White's side.
    pub eval_cp: Option<i64>,
    pub eval_mate: Option<i32>,
}

impl AtPly {
    pub fn eval(&self) -> Option<Eval> {
        self.eval_cp.map(Eval::Cp).or(self.eval_mate.map(Eval::Mate))
    }
}

/// What the comments of one game's moves said. Grown only when a move has a command, so a game
/// without any costs nothing per move.
#[derive(Default)]
pub struct Annotations {
    base_ms: Option<i64>,
    /// Index `k - 1`: the clock written after move `k` (the first valid one).
    clocks: Vec<Option<i64>>,
    evals: Vec<Option<Eval>>,
    with_clock: u32,
    with_eval: u32,
}

impl Annotations {
    /// A new game whose clocks start at `base_seconds` (from its `TimeControl`), if known.
    pub fn reset(&mut self, base_seconds: Option<u32>) {
        self.base_ms = base_seconds.map(|s| i64::from(s) * 1000);
        self.clocks.clear();
        self.evals.clear();
        self.with_clock = 0;
        self.with_eval = 0;
    }

    /// Notes a comment's clock and evaluation after move `ply` (>= 1); the first of each counts.
    #[inline]
    pub fn note(&mut self, ply: u32, clock_ms: Option<i64>, eval: Option<Eval>) {
        let i = ply as usize - 1;
        if let Some(ms) = clock_ms
            && set_once(&mut self.clocks, i, ms)
        {
            self.with_clock += 1;
        }
        if let Some(e) = eval
            && set_once(&mut self.evals, i, e)
        {
            self.with_eval += 1;
        }
    }

    /// The clocks and evaluation at ply `ply`.
    pub fn at(&self, ply: u32) -> AtPly {
        let p = ply as usize;
        let clock = |k: usize| if k == 0 { self.base_ms } else { self.clocks.get(k - 1).copied().flatten() };
        let eval = p.checked_sub(1).and_then(|i| self.evals.get(i).copied().flatten());
        AtPly {
            clock_ms: clock(p.saturating_sub(1)),
            opponent_clock_ms: clock(p),
            eval_cp: eval.and_then(Eval::cp),
            eval_mate: eval.and_then(Eval::mate),
        }
    }

    /// Every one of the `plies` moves (at least one) has a clock.
    pub fn has_clocks(&self, plies: u32) -> bool {
        plies > 0 && self.with_clock == plies
    }

    /// Some move has an evaluation.
    pub fn has_evals(&self) -> bool {
        self.with_eval > 0
    }
}

/// Sets `v[i]` if it is not set yet (growing `v`); returns whether it did.
#[inline]
fn set_once<T: Copy>(v: &mut Vec<Option<T>>, i: usize, value: T) -> bool {
    // The common case: a clock after every move, noted in order.
    if v.len() == i {
        v.push(Some(value));
        return true;
    }
    set_out_of_order(v, i, value)
}

/// [`set_once`] for a move noted again or after moves without one.
#[inline(never)]
fn set_out_of_order<T: Copy>(v: &mut Vec<Option<T>>, i: usize, value: T) -> bool {
    if v.len() < i {
        v.resize(i + 1, None);
    }
    let was_unset = v[i].is_none();
    if was_unset {
        v[i] = Some(value);
    }
    was_unset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_by_ply() {
        let mut a = Annotations::default();
        a.reset(Some(180));
        a.note(1, Some(179_000), None);
        a.note(1, Some(1), Some(Eval::Cp(20))); // a second clock for the same move is ignored
        a.note(3, Some(170_000), Some(Eval::Mate(-2)));
        let at = |p| a.at(p);
        let clocks = |p| (a.at(p).clock_ms, a.at(p).opponent_clock_ms);
        assert_eq!(clocks(0), (Some(180_000), Some(180_000)));
        assert_eq!(clocks(1), (Some(180_000), Some(179_000)));
        assert_eq!(at(1).eval(), Some(Eval::Cp(20)));
        assert_eq!(clocks(2), (Some(179_000), None));
        assert_eq!(at(2).eval(), None);
        assert_eq!(clocks(3), (None, Some(170_000)));
        assert_eq!((at(3).eval_cp, at(3).eval_mate), (None, Some(-2)));
        assert_eq!(clocks(4), (Some(170_000), None));
        assert!(!a.has_clocks(3) && a.has_evals());
        a.note(2, Some(175_000), None);
        assert!(a.has_clocks(3) && !a.has_clocks(4));
        assert_eq!(Eval::Mate(-2).for_side(Color::Black), Eval::Mate(2));
    }
}
