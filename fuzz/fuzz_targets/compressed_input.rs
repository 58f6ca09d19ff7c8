//! Any bytes as a (possibly compressed) input: decompression and reading end in data or an
//! error, never a panic, and never more output than a bound (no decompression bomb runs away).
//! Read as a stream that may fail part-way, the games are those of the bytes the stream gave
//! before failing, read as text: all of them without an error, else the first of them (all but
//! those of the last game slices begun, which the failure may have cut).
#![no_main]

use std::{io::Read, ops::ControlFlow};

use libfuzzer_sys::fuzz_target;
use threefold_core::{game_json, read::input};

/// Passes reads on and keeps a copy of every byte read.
struct Tee<'a, R> {
    inner: R,
    seen: &'a mut Vec<u8>,
}

impl<R: Read> Read for Tee<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.seen.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok((_, reader)) = input::decompress(data) else { return };
    let mut seen = Vec::new();
    let mut from_stream = Vec::new();
    let read = threefold_core::for_each_game(Tee { inner: reader.take(1 << 24), seen: &mut seen }, |g| {
        from_stream.push(game_json(0, &g).expect("a record"));
        ControlFlow::Continue(())
    });
    let mut from_text = Vec::new();
    let text_read = threefold_core::for_each_game(&seen[..], |g| {
        from_text.push(game_json(0, &g).expect("a record"));
        ControlFlow::Continue(())
    });
    assert!(text_read.is_ok(), "bytes in memory read without an error");
    let (n, m) = (from_stream.len(), from_text.len());
    match read {
        Ok(()) => assert_eq!(n, m, "the stream read to its end gives the text's games"),
        Err(_) => assert!(n <= m, "{n} games salvaged from the stream, {m} in the text it gave"),
    }
    assert!(from_stream[..] == from_text[..n], "the stream's games are the text's first ones");
});
