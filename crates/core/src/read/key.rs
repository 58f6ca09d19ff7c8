//! Where a game is in its input, named so that any reader of the input can name it alike: a run
//! over the whole input, a shard that starts at a frame in its middle, a resumed run that seeks.
//!
//! A pzstd file is a series of frames whose decompressed sizes are not written anywhere, so a
//! reader that starts at a frame cannot know its decompressed offset from the input's start. A
//! game is therefore named by the frame it starts in (the compressed offset of the frame's
//! skippable header, where a reader seeks to read it) and its decompressed offset from that
//! frame's start ([`GameKey`]). Any other input is one frame at offset 0: there the key is the
//! game's decompressed offset from the input's start.
//!
//! A reader knows where each frame begins in the stream it reads (its decompressed bytes from
//! where it started), and records it in a [`SegmentLog`]; the key of a game at stream offset `p`
//! is then found in the last segment that starts at or before `p`.

use std::sync::{Arc, Mutex};

/// A game's place in its input: the frame it starts in and its offset from the frame's start.
/// Keys order as the games do in the input.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct GameKey {
    /// Compressed offset of the pzstd frame (its skippable header) the game starts in; 0 for an
    /// input that is not in pzstd frames.
    pub frame_offset: u64,
    /// Decompressed offset of the game's first byte from the frame's start (from the input's
    /// start for an input that is not in frames).
    pub byte_offset: u64,
}

impl GameKey {
    /// `(frame_offset, byte_offset)`, which orders as the key does.
    pub fn pair(self) -> (u64, u64) {
        (self.frame_offset, self.byte_offset)
    }
}

impl GameKey {
    /// The key as a user writes it: `BYTE`, or `FRAME:BYTE` when the frame is not 0 (as
    /// `threefold report` prints it after `@` and `explain --game` reads it).
    pub fn text(&self) -> String {
        match self.frame_offset {
            0 => self.byte_offset.to_string(),
            frame => format!("{frame}:{}", self.byte_offset),
        }
    }

    /// Reads [`Self::text`]'s form.
    pub fn parse(text: &str) -> Result<GameKey, String> {
        let number = |s: &str| s.trim().parse::<u64>().map_err(|_| format!("{text:?} is not BYTE or FRAME:BYTE"));
        Ok(match text.split_once(':') {
            Some((frame, byte)) => GameKey { frame_offset: number(frame)?, byte_offset: number(byte)? },
            None => GameKey { frame_offset: 0, byte_offset: number(text)? },
        })
    }
}

impl std::fmt::Display for GameKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.frame_offset == 0 {
            write!(f, "decompressed byte {}", self.byte_offset)
        } else {
            write!(f, "decompressed byte {} of the frame at byte {}", self.byte_offset, self.frame_offset)
        }
    }
}

/// From `stream` on (a decompressed offset in the stream a reader reads), the stream's byte at
/// `stream` is byte `key.byte_offset` of the frame at `key.frame_offset`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub stream: u64,
    pub key: GameKey,
}

impl Segment {
    /// The key of the byte at stream offset `at` (at or after `self.stream`).
    pub fn key_at(&self, at: u64) -> GameKey {
        GameKey { frame_offset: self.key.frame_offset, byte_offset: self.key.byte_offset + (at - self.stream) }
    }
}

/// The segments of one reading, in stream order, appended by the thread that hands out the
/// decompressed bytes (before any chunk holding them is cut) and read by the thread that cuts
/// chunks: shared, so that neither needs the other's type.
#[derive(Clone, Debug)]
pub struct SegmentLog(Arc<Mutex<Vec<Segment>>>);

impl SegmentLog {
    /// A log whose stream starts at `key`.
    pub fn starting_at(key: GameKey) -> SegmentLog {
        SegmentLog(Arc::new(Mutex::new(vec![Segment { stream: 0, key }])))
    }

    /// A frame begins at stream offset `stream`; its first byte there is `key`.
    pub fn push(&self, stream: u64, key: GameKey) {
        let mut log = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // A frame at the stream's start replaces the guess made before it was seen.
        if log.last().is_some_and(|s| s.stream == stream) {
            log.pop();
        }
        log.push(Segment { stream, key });
    }

    /// The segments that cover stream offsets `from..to`, in order (at least one).
    pub fn covering(&self, from: u64, to: u64, out: &mut Vec<Segment>) {
        out.clear();
        let log = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let first = log.partition_point(|s| s.stream <= from).saturating_sub(1);
        out.extend(log[first..].iter().take_while(|s| s.stream < to.max(from + 1)));
    }

    /// The key of stream offset `at`.
    pub fn key_at(&self, at: u64) -> GameKey {
        let log = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let i = log.partition_point(|s| s.stream <= at).saturating_sub(1);
        log[i].key_at(at)
    }
}

/// The key of stream offset `at` among `segments` (in order, the first at or before `at`).
pub fn key_in(segments: &[Segment], at: u64) -> GameKey {
    let i = segments.partition_point(|s| s.stream <= at).saturating_sub(1);
    segments[i].key_at(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_and_write_alike() {
        for key in [GameKey { frame_offset: 0, byte_offset: 516 }, GameKey { frame_offset: 12, byte_offset: 0 }] {
            assert_eq!(GameKey::parse(&key.text()), Ok(key));
        }
        assert!(GameKey::parse("x").is_err() && GameKey::parse("1:").is_err());
    }

    #[test]
    fn keys_follow_the_frame_a_byte_is_in() {
        let log = SegmentLog::starting_at(GameKey { frame_offset: 500, byte_offset: 40 });
        log.push(100, GameKey { frame_offset: 900, byte_offset: 0 });
        log.push(250, GameKey { frame_offset: 1300, byte_offset: 0 });
        assert_eq!(log.key_at(0), GameKey { frame_offset: 500, byte_offset: 40 });
        assert_eq!(log.key_at(99), GameKey { frame_offset: 500, byte_offset: 139 });
        assert_eq!(log.key_at(100), GameKey { frame_offset: 900, byte_offset: 0 });
        assert_eq!(log.key_at(400), GameKey { frame_offset: 1300, byte_offset: 150 });
        let mut covering = Vec::new();
        log.covering(120, 260, &mut covering);
        assert_eq!(covering.len(), 2);
        assert_eq!(key_in(&covering, 130), GameKey { frame_offset: 900, byte_offset: 30 });
        assert_eq!(key_in(&covering, 255), GameKey { frame_offset: 1300, byte_offset: 5 });
        // A frame seen at the stream's start replaces the starting guess.
        let log = SegmentLog::starting_at(GameKey::default());
        log.push(0, GameKey { frame_offset: 0, byte_offset: 7 });
        assert_eq!(log.key_at(3), GameKey { frame_offset: 0, byte_offset: 10 });
    }
}
