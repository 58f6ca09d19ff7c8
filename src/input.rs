//! Opening inputs: files or stdin, decompressed by what their first bytes say, not their names.

use std::{
    fs::File,
    io::{self, BufRead, BufReader, Read},
    path::Path,
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

/// Opens a file (or `-` for stdin) and decompresses it.
pub fn open(path: &Path) -> io::Result<(Compression, Box<dyn Read>)> {
    if path.as_os_str() == "-" {
        decompress(io::stdin())
    } else {
        decompress(File::open(path)?)
    }
}
