//! Opening inputs: files or stdin, decompressed by what their first bytes say, not their names.
//!
//! zstd files written by pzstd (the Lichess dumps) are a series of independent frames, each
//! preceded by a skippable frame that holds its compressed size. [`decompress_parallel`] decodes
//! such frames on several threads ([`FrameDecoder`]) and hands out their bytes in order, so one
//! big file feeds every core; any other input goes through the streaming decoders. Both give the
//! same bytes, and the same error at the same decompressed offset.

use std::{
    collections::BTreeMap,
    fs::File,
    io::{self, BufRead, BufReader, Read},
    path::Path,
    thread,
};

use crossbeam_channel::{Receiver, Sender, bounded};

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
pub fn decompress<'a, R: Read + 'a>(raw: R) -> io::Result<(Compression, Box<dyn Read + 'a>)> {
    let mut raw = BufReader::with_capacity(1 << 16, raw);
    let compression = Compression::detect(raw.fill_buf()?);
    let reader: Box<dyn Read + 'a> = match compression {
        Compression::None => Box::new(raw),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(raw)?),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(raw)),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(raw)),
    };
    Ok((compression, reader))
}

/// Like [`decompress`], but a pzstd file (see [`is_pzstd`]) is decoded by a [`FrameDecoder`]
/// when `threads` is 2 or more, on `threads` decoder threads but at most [`MAX_DECODERS`].
pub fn decompress_parallel<R: Read + Send + 'static>(
    raw: R,
    threads: usize,
) -> io::Result<(Compression, Box<dyn Read + Send>)> {
    let mut raw = BufReader::with_capacity(1 << 16, raw);
    let head = raw.fill_buf()?;
    let compression = Compression::detect(head);
    if threads >= 2 && is_pzstd(head) {
        return Ok((compression, Box::new(FrameDecoder::new(raw, threads.min(MAX_DECODERS))?)));
    }
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(raw),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(raw)?),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(raw)),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(raw)),
    };
    Ok((compression, reader))
}

/// Opens a file (or `-` for stdin) and decompresses it.
pub fn open(path: &Path) -> io::Result<(Compression, Box<dyn Read>)> {
    if path.as_os_str() == "-" {
        decompress(io::stdin())
    } else {
        decompress(File::open(path)?)
    }
}

/// Opens a file (or `-` for stdin) and decompresses it, pzstd files on `threads` threads.
pub fn open_parallel(path: &Path, threads: usize) -> io::Result<(Compression, Box<dyn Read + Send>)> {
    if path.as_os_str() == "-" {
        decompress_parallel(io::stdin(), threads)
    } else {
        decompress_parallel(File::open(path)?, threads)
    }
}

/// Decoder threads for one pzstd input. One thread decodes a frame at several hundred MB/s
/// (and the splitter after it runs at about that speed), while a replay thread reads PGN at a few
/// tens of MB/s: four keep 32 replay threads fed, and bound the frames in memory.
pub const MAX_DECODERS: usize = 4;

/// Magic number of the skippable frame pzstd writes before each zstd frame (its 4-byte content
/// is the compressed size of the frame that follows).
const PZSTD_MAGIC: [u8; 4] = [0x50, 0x2a, 0x4d, 0x18];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// A frame larger than this is not trusted to be what its header says: the rest of the input
/// goes through the streaming decoder instead.
const MAX_FRAME: usize = 256 << 20;
/// Bytes handed out per piece when the rest of an input is decoded as a stream.
const STREAM_PIECE: usize = 1 << 20;

/// Whether `head` starts the way pzstd starts a file: a 4-byte skippable frame holding the size
/// of the zstd frame that follows.
pub fn is_pzstd(head: &[u8]) -> bool {
    head.len() >= 16 && head[..4] == PZSTD_MAGIC && head[4..8] == [4, 0, 0, 0] && head[12..16] == ZSTD_MAGIC
}

/// One unit of output, in input order: the bytes of one frame (or one piece of a stream), and
/// the error that ended them, if any.
struct Decoded {
    seq: u64,
    data: Vec<u8>,
    error: Option<io::Error>,
}

/// One frame to decode.
struct Job {
    seq: u64,
    compressed: Vec<u8>,
}

/// Decodes the frames of a pzstd file on several threads and reads out their bytes in order.
///
/// A dispatcher thread reads each frame's compressed bytes (their size is in the skippable frame
/// before it) and hands them to the decoder threads, which decode each frame in one shot into a
/// recycled buffer; [`Read`] puts the decoded frames back in order. Games that straddle two
/// frames need no care: the output is the same byte stream as the streaming decoder's. At most
/// `threads + 2` frames are in flight (compressed, being decoded, or decoded and waiting), so
/// memory is bounded by that many frames: pzstd's frames hold 4 × its window size (8 MiB at its
/// default level 3, more at high levels). Anything that is not a pzstd frame — another skippable
/// frame, a frame without a size before it, a truncated or corrupt input — sends the rest of the
/// input through the streaming decoder, so the bytes and errors are those of [`decompress`].
pub struct FrameDecoder {
    results: Receiver<Decoded>,
    recycle: Sender<Vec<u8>>,
    /// Gives a slot back to the dispatcher each time a unit has been read out.
    slots: Option<Sender<()>>,
    waiting: BTreeMap<u64, Decoded>,
    next: u64,
    /// The unit being read out (it holds a slot while `holding`).
    current: Vec<u8>,
    pos: usize,
    holding: bool,
    /// The error that ends `current`.
    error: Option<io::Error>,
    ended: bool,
}

impl FrameDecoder {
    /// Starts decoding `raw`, which should start with a pzstd frame (anything else is decoded as
    /// a stream), on `threads` decoder threads (at least 1) plus a dispatcher thread.
    pub fn new<R: Read + Send + 'static>(raw: R, threads: usize) -> io::Result<FrameDecoder> {
        let threads = threads.max(1);
        let in_flight = threads + 2;
        let (slot_tx, slot_rx) = bounded::<()>(in_flight);
        for _ in 0..in_flight {
            let _ = slot_tx.send(());
        }
        let (job_tx, job_rx) = bounded::<Job>(in_flight);
        let (result_tx, result_rx) = bounded::<Decoded>(in_flight);
        // Frame buffers go back to the decoders once read out: no fresh memory per frame.
        let (recycle_tx, recycle_rx) = bounded::<Vec<u8>>(in_flight);
        for i in 0..threads {
            let (jobs, results) = (job_rx.clone(), result_tx.clone());
            let recycled = recycle_rx.clone();
            thread::Builder::new().name(format!("unzstd-{i}")).spawn(move || {
                let mut worker = FrameWorker { bulk: zstd::bulk::Decompressor::new().ok(), recycled, largest: 0 };
                while let Ok(job) = jobs.recv() {
                    if results.send(worker.decode(job)).is_err() {
                        break;
                    }
                }
            })?;
        }
        drop(job_rx);
        thread::Builder::new().name("unzstd-read".into()).spawn(move || dispatch(raw, slot_rx, job_tx, result_tx))?;
        Ok(FrameDecoder {
            results: result_rx,
            recycle: recycle_tx,
            slots: Some(slot_tx),
            waiting: BTreeMap::new(),
            next: 0,
            current: Vec::new(),
            pos: 0,
            holding: false,
            error: None,
            ended: false,
        })
    }

    /// The next unit in order, `None` at the end of the input.
    fn next_unit(&mut self) -> Option<Decoded> {
        loop {
            if let Some(unit) = self.waiting.remove(&self.next) {
                self.next += 1;
                return Some(unit);
            }
            match self.results.recv() {
                Ok(unit) => {
                    self.waiting.insert(unit.seq, unit);
                }
                // Every sender is gone and the next unit never came: the input has ended.
                Err(_) => return None,
            }
        }
    }
}

impl Read for FrameDecoder {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.pos < self.current.len() {
                let n = buf.len().min(self.current.len() - self.pos);
                buf[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            if let Some(error) = self.error.take() {
                self.end();
                return Err(error);
            }
            if self.ended || buf.is_empty() {
                return Ok(0);
            }
            // The current unit has been read out: its slot is free again, and its buffer.
            if self.holding {
                let _ = self.recycle.try_send(std::mem::take(&mut self.current));
                if let Some(slots) = &self.slots {
                    let _ = slots.send(());
                }
            }
            let Some(unit) = self.next_unit() else {
                self.end();
                return Ok(0);
            };
            self.current = unit.data;
            self.pos = 0;
            self.holding = true;
            self.error = unit.error;
        }
    }
}

impl FrameDecoder {
    /// Nothing more will be read: stop the threads and free the buffers.
    fn end(&mut self) {
        self.ended = true;
        self.slots = None;
        self.current = Vec::new();
        self.pos = 0;
        self.waiting.clear();
    }
}

impl Drop for FrameDecoder {
    fn drop(&mut self) {
        // Closing the slots stops the dispatcher; the decoders stop when their job channel
        // closes or their result cannot be delivered. Nobody waits for them.
        self.slots = None;
    }
}

/// A decoder thread's state: its zstd context, buffers given back by the reader, and how large
/// frames have turned out so far.
struct FrameWorker {
    bulk: Option<zstd::bulk::Decompressor<'static>>,
    recycled: Receiver<Vec<u8>>,
    largest: usize,
}

impl FrameWorker {
    /// Decodes one frame; on an error, the bytes decoded before it and the error.
    fn decode(&mut self, job: Job) -> Decoded {
        // pzstd does not record a frame's decompressed size: guess it from the frames so far,
        // decode in one shot straight into a recycled buffer, and fall back to the streaming
        // decoder when the guess was too small (or the frame is corrupt: it then says why).
        let known = zstd::zstd_safe::get_frame_content_size(&job.compressed).ok().flatten().map(|n| n as usize);
        let guess = known.unwrap_or(if self.largest > 0 { self.largest + self.largest / 16 } else { job.compressed.len() * 8 });
        let mut data = self.recycled.try_recv().unwrap_or_default();
        data.clear();
        if let (Some(bulk), true) = (self.bulk.as_mut(), guess <= MAX_FRAME) {
            data.reserve(guess);
            if bulk.decompress_to_buffer(&job.compressed[..], &mut data).is_ok() {
                self.largest = self.largest.max(data.len());
                return Decoded { seq: job.seq, data, error: None };
            }
            data.clear();
        }
        let error = match zstd::stream::read::Decoder::with_buffer(&job.compressed[..]) {
            Ok(decoder) => decoder.single_frame().read_to_end(&mut data).err(),
            Err(e) => Some(e),
        };
        self.largest = self.largest.max(data.len());
        Decoded { seq: job.seq, data, error }
    }
}

/// Reads until `buf` is full, the input ends or an error occurs; returns the bytes read and the
/// error.
fn read_full(raw: &mut impl Read, buf: &mut [u8]) -> (usize, Option<io::Error>) {
    let mut n = 0;
    while n < buf.len() {
        match raw.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (n, Some(e)),
        }
    }
    (n, None)
}

/// The dispatcher: reads pzstd frames and sends them to the decoders while it holds slots; at
/// anything else, decodes the rest of the input as a stream itself.
fn dispatch<R: Read>(mut raw: R, slots: Receiver<()>, jobs: Sender<Job>, results: Sender<Decoded>) {
    let mut seq = 0u64;
    loop {
        if slots.recv().is_err() {
            return; // the reader is gone
        }
        let mut header = [0u8; 16];
        let (got, error) = read_full(&mut raw, &mut header[..12]);
        if let Some(error) = error {
            let _ = results.send(Decoded { seq, data: Vec::new(), error: Some(error) });
            return;
        }
        if got == 0 {
            return; // the end, between frames
        }
        let size = u32::from_le_bytes([header[8], header[9], header[10], header[11]]) as usize;
        if got < 12 || header[..4] != PZSTD_MAGIC || header[4..8] != [4, 0, 0, 0] || size > MAX_FRAME {
            return stream_rest(header[..got].to_vec(), raw, seq, slots, &results);
        }
        let mut compressed = vec![0u8; size];
        let (got_frame, error) = read_full(&mut raw, &mut compressed);
        if let Some(error) = error {
            let _ = results.send(Decoded { seq, data: Vec::new(), error: Some(error) });
            return;
        }
        if got_frame < size || size < 4 || compressed[..4] != ZSTD_MAGIC {
            // Truncated, or not what the size frame announced: the streaming decoder says why,
            // after the bytes it can still decode.
            let mut prefix = header[..12].to_vec();
            compressed.truncate(got_frame);
            prefix.extend_from_slice(&compressed);
            return stream_rest(prefix, raw, seq, slots, &results);
        }
        if jobs.send(Job { seq, compressed }).is_err() {
            return;
        }
        seq += 1;
    }
}

/// Decodes `prefix` followed by the rest of `raw` with the streaming decoder, sending pieces of
/// its output in order, each while holding a slot (the caller holds one for the first).
fn stream_rest<R: Read>(prefix: Vec<u8>, raw: R, mut seq: u64, slots: Receiver<()>, results: &Sender<Decoded>) {
    let input = io::Cursor::new(prefix).chain(raw);
    let mut decoder = match zstd::stream::read::Decoder::new(input) {
        Ok(d) => d,
        Err(error) => {
            let _ = results.send(Decoded { seq, data: Vec::new(), error: Some(error) });
            return;
        }
    };
    loop {
        let mut data = vec![0u8; STREAM_PIECE];
        let (n, error) = read_full(&mut decoder, &mut data);
        data.truncate(n);
        let end = error.is_some() || n < STREAM_PIECE;
        if n == 0 && error.is_none() {
            return;
        }
        if results.send(Decoded { seq, data, error }).is_err() || end {
            return;
        }
        seq += 1;
        if slots.recv().is_err() {
            return;
        }
    }
}
