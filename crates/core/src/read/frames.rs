//! Decoding one input on several threads: the frames of a pzstd file, or the blocks of plain text.
//!
//! [`FrameDecoder`] hands out the decoded bytes in order, as a [`Read`] or block by block
//! (surveyed for game starts on the decoding threads, [`crate::read::blocks`]). Its output is the
//! streaming decoder's ([`crate::read::input::decompress`]): the same bytes and the same error at the
//! same decompressed offset, whatever the input, since anything that is not a pzstd frame sends
//! the rest of the input through that decoder.

use std::{
    collections::BTreeMap,
    fs::File,
    io::{self, Read},
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    thread,
};

use crossbeam_channel::{Receiver, Sender, bounded};

use crate::read::{
    key::{GameKey, SegmentLog},
    pzstd::{MAX_FRAME, PZSTD_MAGIC, ZSTD_MAGIC},
    survey::Survey,
};

/// Bytes handed out per piece when the rest of an input is decoded as a stream.
const STREAM_PIECE: usize = 1 << 20;

/// One unit of output, in input order: the bytes of one frame (or one piece of a stream), and
/// the error that ended them, if any.
struct Decoded {
    seq: u64,
    data: Vec<u8>,
    error: Option<io::Error>,
    survey: Option<Survey>,
    /// Nothing follows (a block read at its offset that came back short): units after it,
    /// read later, would not follow on from it.
    last: bool,
    /// The pzstd frame these bytes are of, and the offset of the first in it (see [`Origin`]).
    frame: Option<GameKey>,
}

impl Decoded {
    fn new(seq: u64, data: Vec<u8>, error: Option<io::Error>) -> Decoded {
        Decoded { seq, data, error, survey: None, last: false, frame: None }
    }
}

/// Where a decoder starts reading, and where it records the frames it hands out.
#[derive(Clone, Debug, Default)]
pub struct Origin {
    /// The compressed offset of the input's first byte as given (a shard or a resumed run seeks
    /// to a frame before handing the input over).
    pub compressed: u64,
    /// Decompressed bytes of the first frame to leave out: reading starts at a game inside it.
    pub skip: u64,
    /// Each frame's start in the decompressed stream handed out ([`crate::read::key`]).
    pub log: Option<SegmentLog>,
}

/// One unit of work for a decoder thread.
struct Job {
    seq: u64,
    /// A frame's compressed bytes, or a block of plain text already read.
    compressed: Vec<u8>,
    work: BlockJob,
    error: Option<io::Error>,
    /// A frame's compressed offset and the decompressed bytes to leave out at its start.
    frame: Option<GameKey>,
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum BlockJob {
    /// Decode the frame.
    Frame,
    /// Survey the block of plain text.
    Block,
    /// Read block `seq` of a [`Positional`] file, then survey it.
    ReadBlock,
}

/// A block of the stream in order, as [`FrameDecoder::next_block`] hands it out.
pub struct Block {
    pub data: Vec<u8>,
    /// Where games start in it ([`FrameDecoder::surveying`]).
    pub survey: Option<Survey>,
    /// The error that ends the stream after `data`.
    pub error: Option<io::Error>,
}

/// Bytes per block of a plain-text input read by [`FrameDecoder::plain`].
const PLAIN_BLOCK: usize = 4 << 20;

/// Decodes the frames of a pzstd file on several threads and reads out their bytes in order
/// (as [`Read`], or block by block with [`Self::next_block`], surveyed: [`Self::surveying`]; for
/// plain text, [`Self::plain`] reads blocks ahead and surveys them the same way).
///
/// A dispatcher thread reads each frame's compressed bytes (their size is in the skippable frame
/// before it) and hands them to the decoder threads, which decode each frame in one shot into a
/// recycled buffer; [`Read`] puts the decoded frames back in order. Games that straddle two
/// frames need no care: the output is the same byte stream as the streaming decoder's. At most
/// `threads + 2` frames are in flight (compressed, being decoded, or decoded and waiting), so
/// memory is bounded by that many frames: pzstd's frames hold 4 × its window size (8 MiB at its
/// default level 3, more at high levels). Anything that is not a pzstd frame — another skippable
/// frame, a frame without a size before it, a truncated or corrupt input — sends the rest of the
/// input through the streaming decoder, so the bytes and errors are those of [`crate::read::input::decompress`].
pub struct FrameDecoder {
    results: Receiver<Decoded>,
    /// The dispatcher thread's CPU time in ns once it has ended (`u64::MAX` until then); read by
    /// the instrumentation of the tests and examples only.
    dispatcher_cpu: Arc<AtomicU64>,
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
    /// The unit handed out last was the last ([`Decoded::last`]).
    last_seen: bool,
    /// Where frames are recorded, and the decompressed bytes handed out so far.
    log: Option<SegmentLog>,
    stream: u64,
}

impl FrameDecoder {
    /// Starts decoding `raw`, which should start with a pzstd frame (anything else is decoded as
    /// a stream), on `threads` decoder threads (at least 1) plus a dispatcher thread.
    pub fn new<R: Read + Send + 'static>(raw: R, threads: usize) -> io::Result<FrameDecoder> {
        FrameDecoder::start(raw, threads, Mode::Frames, Origin::default())
    }

    /// Decodes the frames of a pzstd file read from `origin` (a frame's start), unsurveyed (read
    /// it as [`Read`]), and records where each frame starts in `origin.log`.
    pub fn from_origin<R: Read + Send + 'static>(raw: R, threads: usize, origin: Origin) -> io::Result<FrameDecoder> {
        FrameDecoder::start(raw, threads, Mode::Frames, origin)
    }

    /// [`Self::surveying`] from `origin`.
    pub fn surveying_from<R: Read + Send + 'static>(
        raw: R,
        threads: usize,
        origin: Origin,
    ) -> io::Result<FrameDecoder> {
        FrameDecoder::start(raw, threads, Mode::SurveyedFrames, origin)
    }

    /// Like [`Self::new`], and each block is surveyed for game starts on the thread that decoded
    /// it ([`crate::read::blocks`]); read it with [`Self::next_block`].
    pub fn surveying<R: Read + Send + 'static>(raw: R, threads: usize) -> io::Result<FrameDecoder> {
        FrameDecoder::start(raw, threads, Mode::SurveyedFrames, Origin::default())
    }

    /// Reads plain text in blocks and surveys them on `threads` threads; read it with
    /// [`Self::next_block`].
    pub fn plain<R: Read + Send + 'static>(raw: R, threads: usize) -> io::Result<FrameDecoder> {
        FrameDecoder::start(raw, threads, Mode::Plain, Origin::default())
    }

    /// Like [`Self::plain`], but each decoder thread reads its blocks from the file itself.
    pub fn plain_at(source: Positional, threads: usize) -> io::Result<FrameDecoder> {
        FrameDecoder::start(io::empty(), threads, Mode::PlainAt(Arc::new(source)), Origin::default())
    }

    fn start<R: Read + Send + 'static>(raw: R, threads: usize, mode: Mode, origin: Origin) -> io::Result<FrameDecoder> {
        let threads = threads.max(1);
        let survey = !matches!(mode, Mode::Frames);
        let in_flight = threads + 2;
        let (slot_tx, slot_rx) = bounded::<()>(in_flight);
        for _ in 0..in_flight {
            let _ = slot_tx.send(());
        }
        let (job_tx, job_rx) = bounded::<Job>(in_flight);
        let (result_tx, result_rx) = bounded::<Decoded>(in_flight);
        // Frame buffers go back to the decoders once read out: no fresh memory per frame.
        let (recycle_tx, recycle_rx) = bounded::<Vec<u8>>(in_flight);
        let source = match &mode {
            Mode::PlainAt(source) => Some(source.clone()),
            _ => None,
        };
        for i in 0..threads {
            let (jobs, results) = (job_rx.clone(), result_tx.clone());
            let recycled = recycle_rx.clone();
            let source = source.clone();
            thread::Builder::new().name(format!("unzstd-{i}")).spawn(move || {
                let mut worker =
                    FrameWorker { bulk: None, recycled, largest: 0, source: source.clone(), staging: None };
                while let Ok(job) = jobs.recv() {
                    // Every unit must arrive, or the reader would take the gap for the end.
                    let seq = job.seq;
                    let mut decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| worker.decode(job)))
                        .unwrap_or_else(|_| Decoded {
                            last: true,
                            ..Decoded::new(
                                seq,
                                Vec::new(),
                                Some(io::Error::other("internal error: a decoder thread failed")),
                            )
                        });
                    if survey {
                        // A survey that failed (a bug) must not lose the block: without one,
                        // the reading thread reads the block's lines itself.
                        let data = &decoded.data;
                        decoded.survey = std::panic::catch_unwind(|| Survey::new(data)).ok().flatten();
                    }
                    if results.send(decoded).is_err() {
                        break;
                    }
                }
            })?;
        }
        drop(job_rx);
        let dispatcher_cpu = Arc::new(AtomicU64::new(u64::MAX));
        let cpu = dispatcher_cpu.clone();
        thread::Builder::new().name("unzstd-read".into()).spawn(move || {
            match mode {
                Mode::Plain => dispatch_plain(raw, slot_rx, &job_tx, recycle_rx),
                Mode::PlainAt(source) => dispatch_at(&source, slot_rx, &job_tx),
                _ => dispatch(raw, slot_rx, &job_tx, &result_tx, survey, (origin.compressed, origin.skip)),
            }
            // Before the channels close, so that whoever sees the end sees this too.
            let seconds = thread_cpu_seconds();
            if seconds.is_finite() {
                cpu.store((seconds * 1e9) as u64, Ordering::Release);
            }
            drop((job_tx, result_tx));
        })?;
        Ok(FrameDecoder {
            results: result_rx,
            dispatcher_cpu,
            recycle: recycle_tx,
            slots: Some(slot_tx),
            waiting: BTreeMap::new(),
            next: 0,
            current: Vec::new(),
            pos: 0,
            holding: false,
            error: None,
            ended: false,
            last_seen: false,
            log: origin.log,
            stream: 0,
        })
    }

    /// The next unit in order, `None` at the end of the input.
    fn next_unit(&mut self) -> Option<Decoded> {
        loop {
            if let Some(unit) = self.waiting.remove(&self.next) {
                self.next += 1;
                if let (Some(log), Some(frame)) = (&self.log, unit.frame) {
                    log.push(self.stream, frame);
                }
                self.stream += unit.data.len() as u64;
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

    /// The next block in order, `None` at the end. Give its buffer back with
    /// [`Self::give_back`] before asking for the next (it holds one of the blocks in flight).
    pub fn next_block(&mut self) -> Option<Block> {
        if self.ended || self.last_seen {
            self.end();
            return None;
        }
        match self.next_unit() {
            Some(unit) => {
                self.last_seen = unit.last;
                Some(Block { data: unit.data, survey: unit.survey, error: unit.error })
            }
            None => {
                self.end();
                None
            }
        }
    }

    /// CPU seconds of the thread that read the input (and sent frames or blocks to the decoder
    /// threads): a serial stage of its own. `None` until it has ended (or where the platform
    /// does not say).
    pub fn dispatcher_cpu_seconds(&self) -> Option<f64> {
        let ns = self.dispatcher_cpu.load(Ordering::Acquire);
        (ns != u64::MAX).then_some(ns as f64 * 1e-9)
    }

    /// A block's buffer, done with: its slot is free for the next block to decode.
    pub fn give_back(&mut self, buffer: Vec<u8>) {
        self.recycle_buffer(buffer);
        self.free_slot();
    }

    /// The block handed out last has been taken: the next may be decoded (its buffer may still
    /// be in use, see [`Self::recycle_buffer`]).
    pub fn free_slot(&mut self) {
        if let Some(slots) = &self.slots {
            let _ = slots.send(());
        }
    }

    /// A block's buffer, no longer in use, for a decoder thread to fill again.
    pub fn recycle_buffer(&mut self, buffer: Vec<u8>) {
        let _ = self.recycle.try_send(buffer);
    }
}

enum Mode {
    /// Frames as a stream, unsurveyed ([`FrameDecoder::new`], for the tests).
    Frames,
    SurveyedFrames,
    Plain,
    PlainAt(Arc<Positional>),
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
    /// Made for the first frame: plain text needs none, and a context is costly to make (a
    /// tenth of what a folder of small files cost per file).
    bulk: Option<zstd::bulk::Decompressor<'static>>,
    recycled: Receiver<Vec<u8>>,
    largest: usize,
    /// The file that blocks are read from ([`BlockJob::ReadBlock`]).
    source: Option<Arc<Positional>>,
    staging: Option<StagingBuffer>,
}

impl FrameWorker {
    /// Decodes one frame; on an error, the bytes decoded before it and the error.
    fn decode(&mut self, job: Job) -> Decoded {
        let frame = job.frame;
        let mut decoded = self.decode_frame(job);
        if let Some(frame) = frame {
            decoded.frame = Some(frame);
            // A reader that starts at a game inside the frame: the bytes before it are not its.
            let skip = frame.byte_offset as usize;
            if skip > 0 && decoded.error.is_none() {
                if skip > decoded.data.len() {
                    decoded.error = Some(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "the frame at byte {} holds {} bytes, fewer than the {skip} to start after (the file changed?)",
                            frame.frame_offset,
                            decoded.data.len()
                        ),
                    ));
                    decoded.data.clear();
                } else {
                    decoded.data.drain(..skip);
                }
            }
        }
        decoded
    }

    fn decode_frame(&mut self, job: Job) -> Decoded {
        match (job.work, &self.source) {
            (BlockJob::Block, _) => return Decoded::new(job.seq, job.compressed, job.error),
            (BlockJob::ReadBlock, Some(source)) => return self.read_block(&source.clone(), job.seq),
            (BlockJob::ReadBlock, None) => unreachable!("a block to read without a file"),
            (BlockJob::Frame, _) => {}
        }
        // pzstd does not record a frame's decompressed size: guess it from the frames so far,
        // decode in one shot straight into a recycled buffer, and fall back to the streaming
        // decoder when the guess was too small (or the frame is corrupt: it then says why).
        let known = zstd::zstd_safe::get_frame_content_size(&job.compressed).ok().flatten().map(|n| n as usize);
        let guess =
            known.unwrap_or(if self.largest > 0 { self.largest + self.largest / 16 } else { job.compressed.len() * 8 });
        let mut data = self.recycled.try_recv().unwrap_or_default();
        data.clear();
        if self.bulk.is_none() {
            self.bulk = zstd::bulk::Decompressor::new().ok();
        }
        if let (Some(bulk), true) = (self.bulk.as_mut(), guess <= MAX_FRAME) {
            data.reserve(guess);
            if bulk.decompress_to_buffer(&job.compressed[..], &mut data).is_ok() {
                self.largest = self.largest.max(data.len());
                return Decoded::new(job.seq, data, None);
            }
            data.clear();
        }
        let error = match zstd::stream::read::Decoder::with_buffer(&job.compressed[..]) {
            Ok(decoder) => decoder.single_frame().read_to_end(&mut data).err(),
            Err(e) => Some(e),
        };
        self.largest = self.largest.max(data.len());
        Decoded::new(job.seq, data, error)
    }

    /// Reads block `seq` of `source` into a recycled buffer.
    fn read_block(&mut self, source: &Positional, seq: u64) -> Decoded {
        let mut data = self.recycled.try_recv().unwrap_or_default();
        data.clear();
        let offset = source.base + seq * PLAIN_BLOCK as u64;
        let staging = self.staging.get_or_insert_with(StagingBuffer::new);
        let error = staging.read(&mut At { source, offset }, &mut data, PLAIN_BLOCK);
        let last = error.is_some() || data.len() < PLAIN_BLOCK;
        if last {
            source.last.fetch_min(seq, Ordering::AcqRel);
        }
        Decoded { last, ..Decoded::new(seq, data, error) }
    }
}

/// A small buffer that plain text is read into before its bytes go to their block: the kernel's
/// copy of file pages into a buffer that stays in cache is several times faster than into a
/// 4 MB block that rotates among the decoder threads (cold in cache), and the copy out of it
/// costs less than the difference (docs/performance.md, "Figures behind the code").
/// pzstd frames are read as before: their compressed bytes are a third of the text or less.
struct StagingBuffer {
    buffer: Vec<u8>,
}

/// Bytes of a staged read, and the alignment of the buffer (a misaligned destination also
/// slows the kernel's copy).
const STAGING: usize = 1 << 16;
const ALIGN: usize = 64;

impl StagingBuffer {
    fn new() -> StagingBuffer {
        StagingBuffer { buffer: vec![0; STAGING + ALIGN] }
    }

    /// Appends up to `want` bytes of `raw` to `out`, fewer only at the end of the input or an
    /// error, which is returned.
    fn read(&mut self, raw: &mut impl Read, out: &mut Vec<u8>, want: usize) -> Option<io::Error> {
        let skew = self.buffer.as_ptr().align_offset(ALIGN);
        let stage = &mut self.buffer[skew..skew + STAGING];
        out.reserve(want);
        let mut left = want;
        while left > 0 {
            match raw.read(&mut stage[..left.min(STAGING)]) {
                Ok(0) => break,
                Ok(k) => {
                    out.extend_from_slice(&stage[..k]);
                    left -= k;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Some(e),
            }
        }
        None
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
fn dispatch<R: Read>(
    mut raw: R,
    slots: Receiver<()>,
    jobs: &Sender<Job>,
    results: &Sender<Decoded>,
    survey: bool,
    (mut at, skip): (u64, u64),
) {
    let mut seq = 0u64;
    loop {
        if slots.recv().is_err() {
            return; // the reader is gone
        }
        let mut header = [0u8; 16];
        let (got, error) = read_full(&mut raw, &mut header[..12]);
        if let Some(error) = error {
            let _ = results.send(Decoded::new(seq, Vec::new(), Some(error)));
            return;
        }
        if got == 0 {
            return; // the end, between frames
        }
        let size = u32::from_le_bytes([header[8], header[9], header[10], header[11]]) as usize;
        let pzstd = got == 12 && header[..4] == PZSTD_MAGIC && header[4..8] == [4, 0, 0, 0] && size <= MAX_FRAME;
        if !pzstd && seq == 0 && skip > 0 {
            let error = io::Error::new(io::ErrorKind::InvalidData, format!("no pzstd frame at byte {at} to start in"));
            let _ = results.send(Decoded::new(seq, Vec::new(), Some(error)));
            return;
        }
        if !pzstd {
            return stream_rest(header[..got].to_vec(), raw, seq, slots, results, survey);
        }
        let mut compressed = vec![0u8; size];
        let (got_frame, error) = read_full(&mut raw, &mut compressed);
        if let Some(error) = error {
            let _ = results.send(Decoded::new(seq, Vec::new(), Some(error)));
            return;
        }
        if got_frame < size || size < 4 || compressed[..4] != ZSTD_MAGIC {
            if seq == 0 && skip > 0 {
                let error = io::Error::new(io::ErrorKind::InvalidData, format!("the frame at byte {at} is cut short"));
                let _ = results.send(Decoded::new(seq, Vec::new(), Some(error)));
                return;
            }
            // Truncated, or not what the size frame announced: the streaming decoder says why,
            // after the bytes it can still decode.
            let mut prefix = header[..12].to_vec();
            compressed.truncate(got_frame);
            prefix.extend_from_slice(&compressed);
            return stream_rest(prefix, raw, seq, slots, results, survey);
        }
        // Only the first frame is entered in its middle.
        let frame = GameKey { frame_offset: at, byte_offset: if seq == 0 { skip } else { 0 } };
        at += 12 + size as u64;
        if jobs.send(Job { seq, compressed, work: BlockJob::Frame, error: None, frame: Some(frame) }).is_err() {
            return;
        }
        seq += 1;
    }
}

/// Decodes `prefix` followed by the rest of `raw` with the streaming decoder, sending pieces of
/// its output in order, each while holding a slot (the caller holds one for the first).
fn stream_rest<R: Read>(
    prefix: Vec<u8>,
    raw: R,
    mut seq: u64,
    slots: Receiver<()>,
    results: &Sender<Decoded>,
    survey: bool,
) {
    let input = io::Cursor::new(prefix).chain(raw);
    let mut decoder = match zstd::stream::read::Decoder::new(input) {
        Ok(d) => d,
        Err(error) => {
            let _ = results.send(Decoded::new(seq, Vec::new(), Some(error)));
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
        let survey = if survey { Survey::new(&data) } else { None };
        if results.send(Decoded { survey, ..Decoded::new(seq, data, error) }).is_err() || end {
            return;
        }
        seq += 1;
        if slots.recv().is_err() {
            return;
        }
    }
}

/// The dispatcher for plain text: reads blocks while it holds slots and sends them to be surveyed.
fn dispatch_plain<R: Read>(mut raw: R, slots: Receiver<()>, jobs: &Sender<Job>, recycled: Receiver<Vec<u8>>) {
    let mut seq = 0u64;
    let mut staging = StagingBuffer::new();
    loop {
        if slots.recv().is_err() {
            return;
        }
        let mut block = recycled.try_recv().unwrap_or_default();
        block.clear();
        let error = staging.read(&mut raw, &mut block, PLAIN_BLOCK);
        let n = block.len();
        let end = error.is_some() || n < PLAIN_BLOCK;
        if (n > 0 || error.is_some())
            && jobs.send(Job { seq, compressed: block, work: BlockJob::Block, error, frame: None }).is_err()
        {
            return;
        }
        if end {
            return;
        }
        seq += 1;
    }
}

/// The dispatcher for a [`Positional`] file: hands out block numbers while it holds slots, until
/// a decoder thread has found the last block.
fn dispatch_at(source: &Positional, slots: Receiver<()>, jobs: &Sender<Job>) {
    let mut seq = 0u64;
    while slots.recv().is_ok() && seq <= source.last.load(Ordering::Acquire) {
        if jobs.send(Job { seq, compressed: Vec::new(), work: BlockJob::ReadBlock, error: None, frame: None }).is_err()
        {
            return;
        }
        seq += 1;
    }
}

/// A regular file whose blocks the decoder threads read at their offsets themselves, so that
/// no one thread copies every byte of plain text out of the page cache (that thread would cap a
/// big machine: docs/performance.md, "Figures behind the code").
pub struct Positional {
    pub(crate) file: File,
    /// Told the bytes of each read (progress).
    pub(crate) count: Box<dyn Fn(u64) + Send + Sync>,
    /// The lowest block found to be the last (short, or failed); `u64::MAX` until then.
    last: AtomicU64,
    /// The file offset of block 0 (a shard or a resumed run starts inside the file).
    base: u64,
}

impl Positional {
    pub fn new(file: File, count: impl Fn(u64) + Send + Sync + 'static) -> Positional {
        Positional { file, count: Box::new(count), last: AtomicU64::new(u64::MAX), base: 0 }
    }

    /// Reads from file offset `base` on.
    pub fn starting_at(self, base: u64) -> Positional {
        Positional { base, ..self }
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let n = self.peek_at(buf, offset)?;
        (self.count)(n as u64);
        Ok(n)
    }

    /// Reads without counting.
    #[cfg(unix)]
    pub(crate) fn peek_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(&self.file, buf, offset)
    }

    #[cfg(windows)]
    pub(crate) fn peek_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::windows::fs::FileExt::seek_read(&self.file, buf, offset)
    }
}

/// A [`Positional`] file read on from `offset`.
struct At<'a> {
    source: &'a Positional,
    offset: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.source.read_at(buf, self.offset)?;
        self.offset += n as u64;
        Ok(n)
    }
}

/// CPU seconds the calling thread has used (NaN where the platform does not say).
#[cfg(target_os = "linux")]
pub fn thread_cpu_seconds() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to fill.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return f64::NAN;
    }
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

#[cfg(not(target_os = "linux"))]
pub fn thread_cpu_seconds() -> f64 {
    f64::NAN
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gives its bytes a few at a time, with an interruption between reads and an error at the
    /// end if asked.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        interrupted: bool,
        fail_at_end: bool,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.interrupted = !self.interrupted;
            if self.interrupted {
                return Err(io::ErrorKind::Interrupted.into());
            }
            if self.at == self.data.len() && self.fail_at_end {
                return Err(io::Error::other("gone"));
            }
            let n = buf.len().min(self.data.len() - self.at).min(1 + self.at % 7000);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn staged_reads_append_exactly_the_bytes_asked_for() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i * 31 % 251) as u8).collect();
        let mut staging = StagingBuffer::new();
        for fail_at_end in [false, true] {
            let mut raw = Trickle { data: data.clone(), at: 0, interrupted: false, fail_at_end };
            let mut out = b"kept".to_vec();
            assert!(staging.read(&mut raw, &mut out, 200_000).is_none());
            assert_eq!(&out[..4], b"kept");
            assert_eq!(&out[4..], &data[..200_000]);
            // Past the end: what there is, then the end (or the error).
            let mut rest = Vec::new();
            let error = staging.read(&mut raw, &mut rest, STAGING * 3);
            assert_eq!(rest, &data[200_000..]);
            assert_eq!(error.is_some(), fail_at_end);
        }
    }
}
