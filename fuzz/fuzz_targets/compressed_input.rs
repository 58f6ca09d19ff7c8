//! Any bytes as a (possibly compressed) input: decompression and reading end in data or an
//! error, never a panic, and never more output than a bound (no decompression bomb runs away).
#![no_main]

use std::io::Read;

use libfuzzer_sys::fuzz_target;
use threefold::{input, pgn};

fuzz_target!(|data: &[u8]| {
    let Ok((_, reader)) = input::decompress(data) else { return };
    let mut limited = reader.take(1 << 24);
    let mut out = Vec::new();
    let _ = limited.read_to_end(&mut out);
    let _ = pgn::for_each_game(&out[..], |_| std::ops::ControlFlow::Continue(()));
});
