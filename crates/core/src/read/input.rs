//! Opening inputs: files or stdin, decompressed by what their first bytes say, not their names.
//!
//! zstd files written by pzstd (the Lichess dumps) are a series of independent frames, each
//! preceded by a skippable frame that holds its compressed size. [`crate::read::frames`] decodes such
//! frames on several threads and hands out their bytes in order, so one big file feeds every
//! core; any other input goes through the streaming decoders. Both give the same bytes, and the
//! same error at the same decompressed offset. [`chunker`], for `ingest`, has a pzstd file's
//! frames, or plain text's blocks, also surveyed for game starts on those threads
//! ([`crate::read::blocks`]), so that no stage reads every line on one thread; [`chunker_file`] has
//! the decoder threads read a plain file's blocks at their offsets themselves, so that no one
//! thread copies every byte out of the page cache either.

use std::{
    fs::File,
    io::{self, BufRead, BufReader, Read, Seek, SeekFrom},
    path::Path,
};

use crate::{
    read::blocks::{BlockSplitter, Chunker},
    read::chunk::Splitter,
    read::frames::{FrameDecoder, Origin, Positional},
    read::key::{GameKey, SegmentLog},
    read::pzstd::is_pzstd,
};

/// Compression of an input, detected from its magic bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    /// One or more zstd frames (pzstd writes many, with skippable frames between).
    Zstd,
    /// One or more bzip2 streams (pbzip2 writes many).
    Bzip2,
    /// One or more gzip members.
    Gzip,
}

impl Compression {
    pub fn detect(head: &[u8]) -> Compression {
        if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
            || (head.len() >= 4 && head[0] & 0xf0 == 0x50 && head[1..4] == [0x2a, 0x4d, 0x18])
        {
            Compression::Zstd
        } else if head.starts_with(b"BZh") {
            Compression::Bzip2
        } else if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else {
            Compression::None
        }
    }
}

/// Wraps a raw byte stream in the decoder its first bytes call for.
pub fn decompress<'a, R: Read + Send + 'a>(raw: R) -> io::Result<(Compression, Box<dyn Read + 'a>)> {
    let mut raw = BufReader::with_capacity(1 << 16, raw);
    let compression = Compression::detect(raw.fill_buf()?);
    Ok((compression, streaming(compression, raw)?))
}

/// The streaming decoder for `compression`: the one place a compression's decoder is named.
fn streaming<'a, R: BufRead + Send + 'a>(compression: Compression, raw: R) -> io::Result<Box<dyn Read + Send + 'a>> {
    Ok(match compression {
        Compression::None => Box::new(raw),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(raw)?),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(raw)),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(raw)),
    })
}

/// Decompresses `raw` and cuts it into chunks of about `target` bytes of whole games. With
/// `decoders` > 0, a pzstd file or plain text is read in blocks that that many threads decode and
/// survey ([`crate::read::blocks`]); anything else is decompressed as a stream and split on the
/// calling thread. The chunks are the same either way.
pub fn chunker<R: Read + Send + 'static>(raw: R, decoders: usize, target: usize) -> io::Result<(Compression, Chunker)> {
    chunker_at(raw, decoders, target, GameKey::default(), None)
}

/// [`chunker`] for `raw` positioned at `at` (see [`chunker_file_at`]), recording in `log` where
/// each pzstd frame begins in the stream ([`crate::read::key`]); a pzstd file is then read in
/// frames even without decoder threads (on one).
pub fn chunker_at<R: Read + Send + 'static>(
    raw: R,
    decoders: usize,
    target: usize,
    at: GameKey,
    log: Option<&SegmentLog>,
) -> io::Result<(Compression, Chunker)> {
    let mut raw = BufReader::with_capacity(1 << 16, raw);
    let head = raw.fill_buf()?;
    let compression = Compression::detect(head);
    let pzstd = is_pzstd(head);
    let inside = at != GameKey::default();
    let origin = Origin { compressed: at.frame_offset, skip: at.byte_offset, log: log.cloned() };
    let blocks = decoders > 0 && (pzstd || compression == Compression::None);
    if !blocks {
        let stream: Box<dyn Read + Send> = if pzstd && log.is_some() {
            Box::new(FrameDecoder::from_origin(raw, 1, origin)?)
        } else {
            streaming(compression, raw)?
        };
        let splitter = Splitter::new(stream, target);
        return Ok((compression, Chunker::Lines(if inside { splitter.inside() } else { splitter })));
    }
    let decoder = if compression == Compression::None {
        FrameDecoder::plain(raw, decoders)?
    } else {
        FrameDecoder::surveying_from(raw, decoders, origin)?
    };
    let splitter = BlockSplitter::new(decoder, target);
    Ok((compression, Chunker::Blocks(Box::new(if inside { splitter.inside() } else { splitter }))))
}

/// How an input is laid out, from its first bytes: what a reader may start inside of.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// pzstd frames: a reader starts at a frame.
    Frames,
    /// Plain text: a reader starts at any byte.
    Text,
    /// One compressed stream: read from its start.
    Stream,
}

impl Layout {
    pub fn of(head: &[u8]) -> Layout {
        if is_pzstd(head) {
            Layout::Frames
        } else if Compression::detect(head) == Compression::None {
            Layout::Text
        } else {
            Layout::Stream
        }
    }

    /// The layout of the file at `path`.
    pub fn of_file(path: &Path) -> io::Result<Layout> {
        let mut head = Vec::with_capacity(16);
        File::open(path)?.take(16).read_to_end(&mut head)?;
        Ok(Layout::of(&head))
    }
}

/// Positions `file` at key `at` (a game's start, as [`crate::read::key`] names it) for a reader
/// to start there: a pzstd frame's start (the frame's first `at.byte_offset` bytes are then left
/// out), or plain text's byte. Errors if the input cannot be entered there.
pub fn seek_to(file: &mut File, layout: Layout, at: GameKey) -> io::Result<()> {
    match layout {
        _ if at == GameKey::default() => Ok(()),
        Layout::Frames => file.seek(SeekFrom::Start(at.frame_offset)).map(drop),
        Layout::Text if at.frame_offset == 0 => file.seek(SeekFrom::Start(at.byte_offset)).map(drop),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("cannot start reading at {at}: the input is one compressed stream"),
        )),
    }
}

/// [`chunker`] for an open file, which `count` is told the raw bytes read from. Plain text in a
/// regular file is read by the decoder threads themselves, each at its blocks' offsets
/// ([`FrameDecoder::plain_at`]); anything else as [`chunker`] reads it.
pub fn chunker_file(
    file: File,
    count: impl Fn(u64) + Send + Sync + 'static,
    decoders: usize,
    target: usize,
) -> io::Result<(Compression, Chunker)> {
    chunker_file_at(file, count, decoders, target, GameKey::default(), None)
}

/// [`chunker_file`] from the game at `at` on ([`seek_to`]), recording frames in `log`
/// ([`chunker_at`]).
pub fn chunker_file_at(
    mut file: File,
    count: impl Fn(u64) + Send + Sync + 'static,
    decoders: usize,
    target: usize,
    at: GameKey,
    log: Option<&SegmentLog>,
) -> io::Result<(Compression, Chunker)> {
    let mut head = Vec::with_capacity(16);
    (&file).take(16).read_to_end(&mut head)?;
    let layout = Layout::of(&head);
    #[cfg(any(unix, windows))]
    if decoders > 0 && layout == Layout::Text && file.metadata()?.is_file() {
        let source = Positional::new(file, count).starting_at(at.byte_offset);
        let decoder = FrameDecoder::plain_at(source, decoders)?;
        let splitter = BlockSplitter::new(decoder, target);
        let inside = at != GameKey::default();
        return Ok((Compression::None, Chunker::Blocks(Box::new(if inside { splitter.inside() } else { splitter }))));
    }
    file.seek(SeekFrom::Start(0))?;
    seek_to(&mut file, layout, at)?;
    chunker_at(Counted { inner: file, count }, decoders, target, at, log)
}

/// Opens a file (or `-` for stdin) and decompresses it.
pub fn open(path: &Path) -> io::Result<(Compression, Box<dyn Read>)> {
    if path.as_os_str() == "-" { decompress(io::stdin()) } else { decompress(File::open(path)?) }
}

/// Counts the bytes read through it (progress against a file's size).
pub struct Counted<R, F> {
    pub inner: R,
    pub count: F,
}

impl<R: Read, F: Fn(u64)> Read for Counted<R, F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        (self.count)(n as u64);
        Ok(n)
    }
}

/// Computes the SHA-256 of the bytes read through it, and hands the hex digest to `done` at the
/// end of the input (never if reading stops early: then there is no digest to compare).
pub struct Hashed<R> {
    inner: R,
    hash: Option<sha2::Sha256>,
    done: std::sync::Arc<std::sync::Mutex<Option<String>>>,
}

impl<R> Hashed<R> {
    pub fn new(inner: R, done: std::sync::Arc<std::sync::Mutex<Option<String>>>) -> Hashed<R> {
        use sha2::Digest;
        Hashed { inner, hash: Some(sha2::Sha256::new()), done }
    }
}

impl<R: Read> Read for Hashed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use sha2::Digest;
        let n = self.inner.read(buf)?;
        match (n, self.hash.take()) {
            (0, Some(hash)) if !buf.is_empty() => {
                let hex = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
                if let Ok(mut done) = self.done.lock() {
                    *done = Some(hex);
                }
            }
            (_, Some(mut hash)) => {
                hash.update(&buf[..n]);
                self.hash = Some(hash);
            }
            (_, None) => {}
        }
        Ok(n)
    }
}
