//! The reading stage of `threefold ingest` alone: open and decompress one input and cut it into
//! chunks of whole games, as the reader thread does, with nothing downstream. Its throughput is
//! the most `ingest` can reach on any number of cores.
//!
//! ```sh
//! cargo build --release --example split
//! target/release/examples/split FILE [--threads N] [--frames N [--serial]] [--check]
//! ```
//!
//! `--threads N` opens the input as `ingest --threads N` does (with N >= 2, a pzstd file or
//! plain text is read in blocks that decoder threads decompress and survey for game starts;
//! otherwise it is streamed and split on one thread); `--frames N` forces the block path on N
//! decoder threads (N may be 1: decoding then overlaps stitching), and `--serial` with it decodes
//! frames in parallel but splits them on one thread, as before blocks were surveyed. `--check`
//! also prints an FNV-1a hash of the bytes and game starts, to compare the paths. Prints one
//! line: `bytes chunks game_starts seconds thread_cpu_seconds dispatcher_cpu_seconds [hash]`, or
//! the error and its decompressed offset. `thread_cpu_seconds` is the CPU time of the thread
//! that hands out the chunks (ingest's reading thread): a serial stage, whatever the other
//! threads do. On the block path, `dispatcher_cpu_seconds` is that of the thread that reads the
//! input (plain text's `read(2)` calls, or a pzstd file's frames) for the decoder threads: the
//! other serial stage (`-` when the input was streamed).

use std::{fs::File, path::PathBuf, process::ExitCode, time::Instant};

use threefold::{CHUNK_BYTES, Splitter};
use threefold_core::read::{
    blocks::{BlockSplitter, Chunker},
    frames::FrameDecoder,
    input,
};
use threefold_ingest::Threads;

fn main() -> ExitCode {
    let mut path = None;
    let mut threads = 1usize;
    let mut frames = None;
    let mut check = false;
    let mut serial = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--threads" => threads = args.next().and_then(|n| n.parse().ok()).unwrap_or(1),
            "--frames" => frames = args.next().and_then(|n| n.parse().ok()),
            "--check" => check = true,
            "--serial" => serial = true,
            _ if path.is_none() && !arg.starts_with("--") => path = Some(PathBuf::from(arg)),
            _ => path = None,
        }
    }
    let Some(path) = path else {
        eprintln!("usage: split FILE [--threads N] [--frames N [--serial]] [--check]");
        return ExitCode::from(2);
    };
    let started = Instant::now();
    let opened = File::open(&path).and_then(|f| match frames {
        Some(n) if serial => Ok(Chunker::Lines(Splitter::new(Box::new(FrameDecoder::new(f, n)?), CHUNK_BYTES))),
        Some(n) => Ok(Chunker::Blocks(Box::new(BlockSplitter::new(FrameDecoder::surveying(f, n)?, CHUNK_BYTES)))),
        None => input::chunker_file(f, |_| {}, Threads::new(threads).decoders, CHUNK_BYTES).map(|(_, c)| c),
    });
    let mut splitter = match opened {
        Ok(c) => c,
        Err(e) => {
            eprintln!("split: {}: {e}", path.display());
            return ExitCode::from(1);
        }
    };
    let (mut chunks, mut games, mut hash) = (0u64, 0u64, 0xcbf2_9ce4_8422_2325u64);
    loop {
        match splitter.next_chunk() {
            Ok(Some(chunk)) => {
                chunks += 1;
                games += chunk.games.len() as u64;
                if check {
                    for &b in chunk.data.iter() {
                        hash = (hash ^ b as u64).wrapping_mul(0x100_0000_01b3);
                    }
                    for &g in &chunk.games {
                        hash = (hash ^ (chunk.offset + g as u64)).wrapping_mul(0x100_0000_01b3);
                    }
                }
                // As ingest's replay threads do once a chunk is replayed.
                splitter.recycle(chunk.data);
            }
            Ok(None) => break,
            Err(e) => {
                println!("error at decompressed byte {}: {}", e.offset, e.error);
                return ExitCode::from(1);
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let cpu = threefold_core::read::frames::thread_cpu_seconds();
    // The dispatcher stores its time as it ends, which may be just after the last block.
    let mut dispatcher = splitter.dispatcher_cpu_seconds();
    for _ in 0..200 {
        if dispatcher.is_some() || matches!(splitter, Chunker::Lines(_)) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
        dispatcher = splitter.dispatcher_cpu_seconds();
    }
    let dispatcher = dispatcher.map_or("-".to_string(), |s| format!("{s:.4}"));
    if check {
        println!("{} {chunks} {games} {secs:.3} {cpu:.4} {dispatcher} {hash:016x}", splitter.bytes_read());
    } else {
        println!("{} {chunks} {games} {secs:.3} {cpu:.4} {dispatcher}", splitter.bytes_read());
    }
    ExitCode::SUCCESS
}
