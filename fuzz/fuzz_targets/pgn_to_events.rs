//! Any bytes, read as PGN: no panic, and readings agree. The whole-stream reader (chunked), a
//! reader that hands out one byte at a time and `pgn-reader` shown each game slice whole (not
//! just the first game's tags) must give the same records; and the movetext scanner, whose
//! moves the replay plays, must read the moves `pgn-reader`'s own parser reads. Cut into blocks
//! that are surveyed and stitched (`ingest` on several threads), the input must give the chunks
//! the one-thread splitter gives.
#![no_main]

use std::ops::ControlFlow;

use libfuzzer_sys::fuzz_target;
use threefold_core::{
    Chunk, Splitter, game_json,
    pgn::reference,
    read::{blocks::Stitcher, chunk::MAX_GAME, survey::Survey},
};

/// Chunks as (offset, bytes, game starts).
fn drained(chunks: impl Iterator<Item = Chunk>) -> Vec<(u64, Vec<u8>, Vec<usize>)> {
    chunks.map(|c| (c.offset, c.data.to_vec(), c.games)).collect()
}

fuzz_target!(|data: &[u8]| {
    if let Err(diff) = reference::check_scan_against_reader(data) {
        panic!("the scanner and pgn-reader read different moves:\n{diff}");
    }
    let mut whole = Vec::new();
    let _ = threefold_core::for_each_game(data, |g| {
        whole.push(game_json(0, &g).expect("a record"));
        ControlFlow::Continue(())
    });
    // Read again through a reader that hands out one byte at a time: buffering must not matter.
    struct Trickle<'a>(&'a [u8]);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some((&b, rest)) = self.0.split_first() else { return Ok(0) };
            if buf.is_empty() {
                return Ok(0);
            }
            buf[0] = b;
            self.0 = rest;
            Ok(1)
        }
    }
    let mut trickled = Vec::new();
    let _ = threefold_core::for_each_game(Trickle(data), |g| {
        trickled.push(game_json(0, &g).expect("a record"));
        ControlFlow::Continue(())
    });
    assert_eq!(whole, trickled, "the reading must not depend on how the input is buffered");
    let mut shown_whole = Vec::new();
    let _ = threefold_core::for_each_game_with(data, threefold_core::GameVisitor::showing_whole_slices(), |g| {
        shown_whole.push(game_json(0, &g).expect("a record"));
        ControlFlow::Continue(())
    });
    assert_eq!(whole, shown_whole, "pgn-reader shown only the tags must read what it reads shown whole slices");

    // Blocks of a size the input picks, chunks of 64 bytes; games bounded (the bound too picked
    // by the input, half of the time small enough to end it).
    let max = match data.get(1) {
        Some(&b) if b % 2 == 1 => 16 + b as usize * 8,
        _ => MAX_GAME,
    };
    let mut splitter = Splitter::new(data, 64).with_max_game(max);
    let mut line_error = None;
    let lines = drained(std::iter::from_fn(|| match splitter.next_chunk() {
        Ok(chunk) => chunk,
        Err(e) => {
            line_error = Some(e.offset);
            None
        }
    }));
    let size = 1 + data.first().map_or(0, |&b| b as usize) % 50;
    let mut stitcher = Stitcher::new(64).with_max_game(max);
    let mut stitched = Vec::new();
    let mut block_error = None;
    for block in data.chunks(size) {
        block_error = stitcher.push(&std::sync::Arc::new(block.to_vec()), Survey::new(block).as_ref()).err().map(|e| e.offset);
        stitched.extend(drained(std::iter::from_fn(|| stitcher.next_ready())));
        if block_error.is_some() {
            break;
        }
    }
    if block_error.is_none() {
        stitcher.finish();
        stitched.extend(drained(std::iter::from_fn(|| stitcher.next_ready())));
    }
    assert_eq!(line_error, block_error, "surveyed blocks of {size} bytes must end where the splitter ends (games within {max})");
    assert!(lines == stitched, "surveyed blocks of {size} bytes must give the splitter's chunks");
});
