//! pzstd files as a series of frames: whether a file is one, where its frames are, and one frame
//! decoded on its own. A file of its own because three modules use it: [`crate::read::input`]
//! chooses how to read an input by it, and a shard (`ingest::shard`) and `locate` find the frame
//! where a game starts; the decoder that reads the frames on many threads
//! ([`crate::read::frames`]) shares its constants.

#[cfg(unix)]
use std::{
    fs::File,
    io::{self, Read},
};

/// Magic number of the skippable frame pzstd writes before each zstd frame (its 4-byte content
/// is the compressed size of the frame that follows).
pub(crate) const PZSTD_MAGIC: [u8; 4] = [0x50, 0x2a, 0x4d, 0x18];
pub(crate) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// A frame larger than this is not trusted to be what its header says: the rest of the input
/// goes through the streaming decoder instead.
pub(crate) const MAX_FRAME: usize = 256 << 20;

/// Whether `head` starts the way pzstd starts a file: a 4-byte skippable frame holding the size
/// of the zstd frame that follows.
pub fn is_pzstd(head: &[u8]) -> bool {
    head.len() >= 16 && head[..4] == PZSTD_MAGIC && head[4..8] == [4, 0, 0, 0] && head[12..16] == ZSTD_MAGIC
}

/// The compressed offsets of a pzstd file's frames (of each frame's skippable header), read
/// from the headers alone: each says how far the next one is. The list ends at the first thing
/// that is not a pzstd frame (whatever follows is read with the last frame).
#[cfg(unix)]
pub fn frame_offsets(file: &File) -> io::Result<Vec<u64>> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata()?.len();
    let (mut offsets, mut at) = (Vec::new(), 0u64);
    let mut head = [0u8; 16];
    while at + 16 <= len {
        file.read_exact_at(&mut head, at)?;
        if !is_pzstd(&head) {
            break;
        }
        offsets.push(at);
        at += 12 + u64::from(u32::from_le_bytes([head[8], head[9], head[10], head[11]]));
    }
    Ok(offsets)
}

/// The decompressed bytes of the pzstd frame whose skippable header is at `offset`.
#[cfg(unix)]
pub fn decode_frame_at(file: &File, offset: u64) -> io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; 16];
    file.read_exact_at(&mut head, offset)?;
    if !is_pzstd(&head) {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("no pzstd frame at byte {offset}")));
    }
    let size = u32::from_le_bytes([head[8], head[9], head[10], head[11]]) as usize;
    if size > MAX_FRAME {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("the frame at byte {offset} is too large")));
    }
    let mut compressed = vec![0u8; size];
    file.read_exact_at(&mut compressed, offset + 12)?;
    let mut data = Vec::new();
    zstd::stream::read::Decoder::with_buffer(&compressed[..])?.single_frame().read_to_end(&mut data)?;
    Ok(data)
}
