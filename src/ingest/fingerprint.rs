//! Whether an input changed since it was ingested, without reading it again: its size and a
//! SHA-256 of samples of its bytes (the first and last 64 KiB and 64 KiB at each of 14 evenly
//! spaced offsets; all of a file up to 1 MiB): a nightly run over 100 monthly dumps reads 100 MB
//! of their 3 TB. A file rewritten in place with the same size and the same bytes at every
//! sample is taken as unchanged (dumps are published once, not edited); `--force` re-ingests.
//! The time of last modification is recorded but does not decide: a file touched (or copied
//! again) without a change stays up to date.

use std::{
    fs::File,
    io::{self, Read, Seek, SeekFrom},
    path::Path,
    time::UNIX_EPOCH,
};

use sha2::{Digest, Sha256};

const SAMPLE: u64 = 64 << 10;
const SAMPLES: u64 = 16;

/// What identifies an input's content cheaply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    pub size: u64,
    /// Nanoseconds since the Unix epoch, where the file system tells.
    pub modified_unix_ns: Option<u64>,
    /// Hex SHA-256 of the size and the sampled bytes.
    pub sample_sha256: String,
}

impl Fingerprint {
    pub fn of(path: &Path) -> io::Result<Fingerprint> {
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        let size = meta.len();
        let modified_unix_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .and_then(|d| u64::try_from(d.as_nanos()).ok());
        let mut hash = Sha256::new();
        hash.update(size.to_le_bytes());
        let mut buffer = vec![0u8; SAMPLE as usize];
        for offset in offsets(size) {
            file.seek(SeekFrom::Start(offset))?;
            let n = (&mut file).take(SAMPLE).read(&mut buffer)?;
            let mut filled = n;
            // `read` may return less than asked; read on to the sample's end (or the file's).
            while filled < buffer.len() && offset + (filled as u64) < size {
                match (&mut file).take(SAMPLE - filled as u64).read(&mut buffer[filled..])? {
                    0 => break,
                    m => filled += m,
                }
            }
            hash.update(&buffer[..filled]);
        }
        let sample_sha256 = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Ok(Fingerprint { size, modified_unix_ns, sample_sha256 })
    }
}

impl Fingerprint {
    /// The fingerprint of an input of several files (a month of Parquet files): their sizes
    /// summed, and a SHA-256 of each file's name and fingerprint, so that any file changed,
    /// added or taken away changes it. One file's is its own.
    pub fn of_files(paths: &[std::path::PathBuf]) -> io::Result<Fingerprint> {
        if let [one] = paths {
            return Fingerprint::of(one);
        }
        let mut hash = Sha256::new();
        let (mut size, mut modified) = (0, None);
        for path in paths {
            let each = Fingerprint::of(path)?;
            size += each.size;
            modified = modified.max(each.modified_unix_ns);
            hash.update(path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default().as_bytes());
            hash.update([0]);
            hash.update(each.sample_sha256.as_bytes());
        }
        let sample_sha256 = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Ok(Fingerprint { size, modified_unix_ns: modified, sample_sha256 })
    }
}

/// Where the samples start: the whole file when it is small, else the first and last MiB and
/// evenly spaced MiBs between.
fn offsets(size: u64) -> Vec<u64> {
    if size <= SAMPLE * SAMPLES {
        return (0..size.div_ceil(SAMPLE)).map(|i| i * SAMPLE).collect();
    }
    let step = (size - SAMPLE) / (SAMPLES - 1);
    let mut starts: Vec<u64> = (0..SAMPLES - 1).map(|i| i * step).collect();
    starts.push(size - SAMPLE);
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_files_are_read_whole_and_large_ones_sampled() {
        assert_eq!(offsets(0), Vec::<u64>::new());
        assert_eq!(offsets(10), [0]);
        assert_eq!(offsets(SAMPLE * 2 + 1), [0, SAMPLE, 2 * SAMPLE]);
        let big = 30 << 30;
        let o = offsets(big);
        assert_eq!((o.len(), o[0], *o.last().unwrap()), (16, 0, big - SAMPLE));
        assert!(o.windows(2).all(|w| w[1] - w[0] >= SAMPLE));
    }

    /// A change in a sampled byte or in the size changes the fingerprint; a touch does not.
    #[test]
    fn content_and_size_decide() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.pgn");
        let text: Vec<u8> = (0..3 * SAMPLE).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &text).unwrap();
        let a = Fingerprint::of(&path).unwrap();
        std::fs::write(&path, &text).unwrap();
        assert_eq!(Fingerprint::of(&path).unwrap().sample_sha256, a.sample_sha256);
        let mut changed = text.clone();
        changed[SAMPLE as usize + 7] ^= 1;
        std::fs::write(&path, &changed).unwrap();
        assert_ne!(Fingerprint::of(&path).unwrap().sample_sha256, a.sample_sha256);
        std::fs::write(&path, &text[..text.len() - 1]).unwrap();
        assert_ne!(Fingerprint::of(&path).unwrap(), a);
    }
}
