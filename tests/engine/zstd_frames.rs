//! pzstd files (independent zstd frames, each after a skippable frame holding its size) are
//! decoded frame by frame on several threads: the bytes must be exactly those of the streaming
//! decoder, in order, and a truncated file must fail at the same decompressed offset.

use std::{
    fs,
    io::{Cursor, Read},
    process::Command,
};

use serde_json::Value;
use threefold::{CHUNK_BYTES, Chunk, ReadError, Splitter};
use threefold_core::read::{blocks::Chunker, frames::FrameDecoder, input};
use threefold_ingest::Threads;

use crate::common;

/// About 4 MB of PGN and its number of games: the decompressed Lichess sample of the corpus
/// (5,550 games), or where the corpus is not, generated text of the same size.
fn sample() -> (Vec<u8>, usize) {
    common::lichess_sample("zstd frame tests on the Lichess sample (generated PGN instead)")
}

/// `data` in pzstd's format, cut into frames at `cuts` (offsets, anywhere, mid-game too).
fn pzstd_format(data: &[u8], cuts: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut from = 0;
    for &to in cuts.iter().chain([&data.len()]) {
        let frame = zstd::bulk::compress(&data[from..to], 1).unwrap();
        out.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0]);
        out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        out.extend_from_slice(&frame);
        from = to;
    }
    out
}

/// Uneven cuts: many frames, none on a game boundary by design.
fn uneven_cuts(len: usize, frames: usize) -> Vec<usize> {
    (1..frames).map(|i| len * i / frames + (i * 7919) % 1000).collect()
}

/// All the bytes of `reader`, read in odd-sized pieces, and the error that ended them.
fn drain(mut reader: impl Read) -> (Vec<u8>, Option<std::io::Error>) {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 12_345];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return (out, None),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return (out, Some(e)),
        }
    }
}

/// Chunks through the splitter: the concatenated bytes with the game starts (absolute offsets),
/// or the read error's decompressed offset.
fn split(reader: impl Read) -> Result<(Vec<u8>, Vec<u64>), u64> {
    let mut splitter = Splitter::new(reader, CHUNK_BYTES / 8);
    collect(|| splitter.next_chunk())
}

/// Chunks as `ingest --threads N` cuts them (surveyed blocks from 2 threads on).
fn chunked(raw: impl Read + Send + 'static, threads: usize) -> Result<(Vec<u8>, Vec<u64>), u64> {
    let (_, mut chunker) = input::chunker(raw, Threads::new(threads).decoders, CHUNK_BYTES / 8).unwrap();
    assert_eq!(matches!(chunker, Chunker::Blocks(_)), threads >= 2);
    collect(|| chunker.next_chunk())
}

fn collect(mut next: impl FnMut() -> Result<Option<Chunk>, ReadError>) -> Result<(Vec<u8>, Vec<u64>), u64> {
    let (mut bytes, mut starts) = (Vec::new(), Vec::new());
    loop {
        match next() {
            Ok(Some(chunk)) => {
                assert_eq!(chunk.offset, bytes.len() as u64);
                starts.extend(chunk.games.iter().map(|&g| chunk.offset + g as u64));
                bytes.extend_from_slice(&chunk.data);
            }
            Ok(None) => return Ok((bytes, starts)),
            Err(e) => return Err(e.offset),
        }
    }
}

#[test]
fn many_frames_decode_in_parallel_to_exactly_the_original_bytes() {
    let (text, games) = sample();
    let file = pzstd_format(&text, &uneven_cuts(text.len(), 41));
    assert!(threefold_core::read::pzstd::is_pzstd(&file));
    for threads in [1, 2, 5] {
        let (bytes, error) = drain(FrameDecoder::new(Cursor::new(file.clone()), threads).unwrap());
        assert!(error.is_none(), "{error:?}");
        assert!(bytes == text, "{threads} threads: {} bytes instead of {}", bytes.len(), text.len());
    }
    // Through the splitter, the chunks and game starts are those of the plain text.
    let plain = split(&text[..]).unwrap();
    let parallel = split(FrameDecoder::new(Cursor::new(file.clone()), 3).unwrap()).unwrap();
    assert!(parallel.0 == plain.0);
    assert_eq!(parallel.1, plain.1);
    assert_eq!(plain.1.len(), games);
    // Surveyed blocks, frames and plain text, give the same chunks too.
    let (compression, _) = input::chunker(Cursor::new(file.clone()), Threads::new(2).decoders, CHUNK_BYTES).unwrap();
    assert_eq!(compression, input::Compression::Zstd);
    for threads in [2, 3, 8] {
        let surveyed = chunked(Cursor::new(file.clone()), threads).unwrap();
        assert!(surveyed.0 == plain.0, "{threads} threads");
        assert_eq!(surveyed.1, plain.1, "{threads} threads");
        assert_eq!(chunked(Cursor::new(text.clone()), threads).unwrap(), plain, "plain text, {threads} threads");
    }
}

/// Plain text in a regular file is read by the decoder threads at their blocks' offsets
/// (`input::chunker_file`): the chunks must be those of the splitter whatever the file's size
/// against the 4 MiB block (empty, shorter than the format check, a block exactly, a byte more
/// or less), and every byte counted once for progress.
#[test]
fn plain_files_read_at_offsets_give_the_splitters_chunks() {
    use std::sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    };
    let tmp = tempfile::tempdir().unwrap();
    let block = 4 << 20;
    let game = sample().0;
    let text = game.repeat(3 * block / game.len() + 1);
    for len in [0, 5, 100_000, block - 1, block, block + 1, 2 * block, 3 * block - 7, text.len()] {
        let path = tmp.path().join(format!("{len}.pgn"));
        fs::write(&path, &text[..len]).unwrap();
        let plain = split(&text[..len]).unwrap();
        for threads in [1, 2, 3, 8] {
            let counted = Arc::new(AtomicU64::new(0));
            let count = counted.clone();
            let file = fs::File::open(&path).unwrap();
            let (compression, mut chunker) = input::chunker_file(
                file,
                move |n| {
                    count.fetch_add(n, Ordering::Relaxed);
                },
                Threads::new(threads).decoders,
                CHUNK_BYTES / 8,
            )
            .unwrap();
            assert_eq!(compression, input::Compression::None);
            assert_eq!(matches!(chunker, Chunker::Blocks(_)), threads >= 2);
            let got = collect(|| chunker.next_chunk()).unwrap();
            assert!(got.0 == plain.0, "{len} bytes, {threads} threads: {} bytes", got.0.len());
            assert_eq!(got.1, plain.1, "{len} bytes, {threads} threads");
            assert_eq!(counted.load(Ordering::Relaxed), len as u64, "{len} bytes, {threads} threads");
        }
    }
    // A compressed file goes the way `chunker` takes it.
    let path = tmp.path().join("x.pgn.zst");
    fs::write(&path, pzstd_format(&game, &uneven_cuts(game.len(), 5))).unwrap();
    let (compression, mut chunker) =
        input::chunker_file(fs::File::open(&path).unwrap(), |_| {}, 3, CHUNK_BYTES / 8).unwrap();
    assert_eq!(compression, input::Compression::Zstd);
    assert_eq!(collect(|| chunker.next_chunk()).unwrap(), split(&game[..]).unwrap());
}

#[test]
fn a_file_made_by_pzstd_decodes_in_parallel_to_the_original_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let text = sample().0.repeat(3);
    let plain = tmp.path().join("x.pgn");
    fs::write(&plain, &text).unwrap();
    let zst = tmp.path().join("x.pgn.zst");
    let status = Command::new("pzstd")
        .args(["-q", "-1", "-p", "2", plain.to_str().unwrap(), "-o", zst.to_str().unwrap()])
        .status()
        .expect("pzstd is needed for this test (apt-get install zstd)");
    assert!(status.success());
    let file = fs::read(&zst).unwrap();
    let frames = file.windows(4).filter(|w| *w == [0x28, 0xb5, 0x2f, 0xfd]).count();
    assert!(frames >= 4, "pzstd wrote {frames} frames");
    let (bytes, error) = drain(FrameDecoder::new(fs::File::open(&zst).unwrap(), 2).unwrap());
    assert!(error.is_none(), "{error:?}");
    assert!(bytes == text);
    let (bytes, _) = chunked(fs::File::open(&zst).unwrap(), 2).unwrap();
    assert!(bytes == text);
}

#[test]
fn what_is_not_a_pzstd_frame_goes_through_the_streaming_decoder() {
    let text = sample().0;
    let half = text.len() / 2;
    // pzstd frames, then a plain zstd frame and an unrelated skippable frame, then pzstd again.
    let mut file = pzstd_format(&text[..half], &uneven_cuts(half, 5));
    file.extend(zstd::bulk::compress(&text[half..half + 1000], 3).unwrap());
    file.extend_from_slice(&[0x5e, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
    file.extend(pzstd_format(&text[half + 1000..], &uneven_cuts(text.len() - half - 1000, 3)));
    let (bytes, error) = drain(FrameDecoder::new(Cursor::new(file.clone()), 2).unwrap());
    assert!(error.is_none(), "{error:?}");
    assert!(bytes == text);
    let (streamed, error) = drain(zstd::stream::read::Decoder::new(Cursor::new(file)).unwrap());
    assert!(error.is_none());
    assert!(streamed == text);
}

#[test]
fn a_truncated_file_fails_at_the_same_decompressed_offset_as_the_streaming_decoder() {
    let text = sample().0;
    let file = pzstd_format(&text, &uneven_cuts(text.len(), 17));
    // Mid-frame, inside a size frame, inside a frame header, and one byte short of the end.
    let size_frame = file.windows(4).enumerate().filter(|(_, w)| *w == [0x50, 0x2a, 0x4d, 0x18]).nth(9).unwrap().0;
    for cut in [file.len() / 3, file.len() * 3 / 4, size_frame + 6, size_frame + 14, file.len() - 1] {
        let truncated = &file[..cut];
        let streaming = split(zstd::stream::read::Decoder::new(truncated).unwrap());
        let parallel = split(FrameDecoder::new(Cursor::new(truncated.to_vec()), 3).unwrap());
        let Err(offset) = parallel else { panic!("cut at {cut}: no error") };
        assert_eq!(streaming, Err(offset), "cut at {cut}");
        assert_eq!(chunked(Cursor::new(truncated.to_vec()), 3), Err(offset), "cut at {cut}, surveyed blocks");
        assert!(offset > 0 && offset < text.len() as u64, "cut at {cut}: offset {offset}");
        // The bytes before the error are the original's.
        let (bytes, error) = drain(FrameDecoder::new(Cursor::new(truncated.to_vec()), 2).unwrap());
        assert!(error.is_some(), "cut at {cut}");
        assert_eq!(bytes.len() as u64, offset);
        assert!(bytes[..] == text[..bytes.len()]);
    }
}

#[test]
fn ingest_reports_the_same_error_offset_on_every_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let text = sample().0;
    let file = pzstd_format(&text, &uneven_cuts(text.len(), 13));
    let cut = tmp.path().join("cut.pgn.zst");
    fs::write(&cut, &file[..file.len() * 2 / 3]).unwrap();
    let mut offsets = Vec::new();
    for threads in ["1", "2", "4"] {
        let out = tmp.path().join(format!("ds{threads}"));
        let result = Command::new(common::bin())
            .args(["ingest", "--quiet", "--threads", threads, cut.to_str().unwrap(), "--out", out.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(result.status.code(), Some(1), "{}", String::from_utf8_lossy(&result.stderr));
        let manifest: Value = serde_json::from_slice(&fs::read(out.join("_manifest.json")).unwrap()).unwrap();
        let entry = &manifest["inputs"][0];
        assert_eq!(entry["status"], "failed");
        // Named as games are: the frame the error is in, and the offset from its start.
        offsets.push((entry["error_frame_offset"].as_u64().unwrap_or(0), entry["error_offset"].as_u64().unwrap()));
    }
    assert!(offsets[0].0 > 0, "the error is in a later frame: {offsets:?}");
    assert!(offsets.iter().all(|&o| o == offsets[0]), "{offsets:?}");
}

/// A reader that fails after `ok` bytes.
struct FailsAfter {
    data: Cursor<Vec<u8>>,
    ok: u64,
}

impl Read for FailsAfter {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.ok - self.data.position();
        if left == 0 {
            return Err(std::io::Error::other("disk gone"));
        }
        let n = buf.len().min(left as usize);
        self.data.read(&mut buf[..n])
    }
}

#[test]
fn plain_text_read_in_blocks_fails_at_the_same_offset_as_one_stream() {
    let text = sample().0.repeat(3);
    for ok in [100u64, 5_000_000, text.len() as u64 - 7] {
        let lines = split(FailsAfter { data: Cursor::new(text.clone()), ok });
        assert_eq!(lines, Err(ok));
        assert_eq!(chunked(FailsAfter { data: Cursor::new(text.clone()), ok }, 2), Err(ok));
    }
}
