//! Where games start in one block of text, read on the thread that decoded the block.
//!
//! The text before a block may have left the line model in one of a few states
//! (`line::CANDIDATES`); a [`Survey`] reads the block's whole lines from each of them. The runs
//! agree as soon as they reach the same state, mostly within a game, so a survey costs little more
//! than one reading. [`crate::read::blocks::Stitcher`] later picks the run that starts from the
//! state really reached.

use memchr::{memchr, memrchr};

use crate::read::line::{CANDIDATES, Lines};

/// Game starts in one block, from each state the text before it may leave.
#[derive(Debug)]
pub struct Survey {
    /// `block[..head]` ends the line begun before the block (with its line break); `block[tail..]`
    /// begins a line that goes on after it. The runs read `block[head..tail]`.
    pub(super) head: usize,
    pub(super) tail: usize,
    /// Run `i` starts from candidate state `i`.
    runs: Vec<Run>,
}

#[derive(Debug)]
struct Run {
    lines: Lines,
    /// Game starts, as offsets in the block.
    starts: Vec<usize>,
    /// From some line on, this run read as another did: that run and its number of starts then.
    joined: Option<(usize, usize)>,
}

impl Survey {
    /// Surveys a block; `None` if it holds no line break (it is all one line's middle).
    pub fn new(block: &[u8]) -> Option<Survey> {
        let head = memchr(b'\n', block)? + 1;
        let tail = memrchr(b'\n', block)? + 1;
        let mut runs: Vec<Run> =
            (0..CANDIDATES).map(|i| Run { lines: Lines::guess(i), starts: Vec::new(), joined: None }).collect();
        let mut live: Vec<usize> = (0..CANDIDATES).collect();
        let mut kept: Vec<usize> = Vec::with_capacity(CANDIDATES);
        let mut awake: Vec<usize> = Vec::with_capacity(CANDIDATES);
        // Where the line holding the next `}` starts: runs inside a comment sleep until there
        // (a run from inside a comment may stay there for the whole block: text without braces).
        let close_from = |at: usize| {
            memchr(b'}', &block[at..tail])
                .map_or(tail, |p| memrchr(b'\n', &block[at..at + p]).map_or(at, |n| at + n + 1))
        };
        let mut at = head;
        let mut close = close_from(at);
        while at < tail && live.len() > 1 {
            if close < at {
                close = close_from(at);
            }
            awake.clear();
            awake.extend(live.iter().copied().filter(|&r| !runs[r].lines.in_comment() || close == at));
            match awake[..] {
                // All asleep: nothing changes before the `}` line.
                [] => at = close,
                // One awake: it reads at full speed up to the `}` line, where the others wake.
                [r] if close > at => {
                    let run = &mut runs[r];
                    run.lines.scan(&block[at..close], at, &mut run.starts);
                    at = close;
                }
                // Line by line while the runs differ.
                _ => {
                    let end = at + memchr(b'\n', &block[at..tail]).unwrap_or(tail - at - 1);
                    for &r in &awake {
                        if runs[r].lines.line(&block[at..end]) {
                            runs[r].starts.push(at);
                        }
                    }
                    at = end + 1;
                }
            }
            // Runs that now read alike go on as one; undecided ones stop.
            kept.clear();
            for &r in &live {
                if runs[r].lines.undecided() {
                    continue;
                }
                match kept.iter().find(|&&k| runs[k].lines.same_as(&runs[r].lines)) {
                    Some(&k) => runs[r].joined = Some((k, runs[k].starts.len())),
                    None => kept.push(r),
                }
            }
            std::mem::swap(&mut live, &mut kept);
        }
        if let [r] = live[..] {
            let run = &mut runs[r];
            run.lines.scan(&block[at..tail], at, &mut run.starts);
        }
        Some(Survey { head, tail, runs })
    }

    /// Appends the game starts in `block[head..tail]` when the text before it left `before`,
    /// and returns the model after it; `None` (with `starts` as it was) if the survey cannot tell.
    pub(super) fn read(&self, before: &Lines, starts: &mut Vec<usize>) -> Option<Lines> {
        let had = starts.len();
        let (mut r, mut from) = (before.candidate(), 0);
        loop {
            let run = &self.runs[r];
            starts.extend_from_slice(&run.starts[from..]);
            match run.joined {
                Some((k, n)) => (r, from) = (k, n),
                None => break,
            }
        }
        let after = &self.runs[r].lines;
        if after.undecided() {
            starts.truncate(had);
            return None;
        }
        Some(after.clone().following(before))
    }
}
