//! Whether an input changed since it was ingested, without reading it again: its size and a
//! hash of samples of its bytes (the first and last 64 KiB and 64 KiB at each of 14 evenly
//! spaced offsets; all of a file up to 1 MiB): a nightly run over 100 monthly dumps reads 100 MB
//! of their 3 TB. A file rewritten in place with the same size and the same bytes at every
//! sample is taken as unchanged (dumps are published once, not edited); `--force` re-ingests.
//! The time of last modification is recorded but does not decide: a file touched (or copied
//! again) without a change stays up to date.
//!
//! The hash is XXH64 (`xxh64:` and 16 hex digits): it only tells a changed file from the same
//! one, which needs no cryptographic hash (`--verify-sha256` checks a file's integrity). Before,
//! it was SHA-256 (64 hex digits, no prefix), which cost as much as the rest of the writing
//! thread's set-up where the CPU has no SHA instructions (and under valgrind, which hides them:
//! docs/performance.md); a fingerprint recorded that way is still recognised ([`Fingerprint::matches`]).

use std::{
    fs::File,
    hash::Hasher,
    io::{self, Read, Seek, SeekFrom},
    path::Path,
    time::UNIX_EPOCH,
};

use sha2::{Digest, Sha256};
use twox_hash::XxHash64;

const SAMPLE: u64 = 64 << 10;
const SAMPLES: u64 = 16;
/// The start of a fingerprint of this form.
const PREFIX: &str = "xxh64:";

/// What identifies an input's content cheaply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    pub size: u64,
    /// Nanoseconds since the Unix epoch, where the file system tells.
    pub modified_unix_ns: Option<u64>,
    /// `xxh64:` and the hex XXH64 (seed 0) of the size and the sampled bytes.
    pub sample_hash: String,
    /// An input of Parquet files: each file's own (one file's too); empty for other inputs.
    pub files: Vec<FileFingerprint>,
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
        let mut hash = XxHash64::with_seed(0);
        hash.write(&size.to_le_bytes());
        samples(&mut file, size, |bytes| hash.write(bytes))?;
        let sample_hash = format!("{PREFIX}{:016x}", hash.finish());
        Ok(Fingerprint { size, modified_unix_ns, sample_hash, files: Vec::new() })
    }

    /// Whether `recorded`, a fingerprint from a manifest, is this one's: the same, or one that an
    /// earlier threefold recorded as a SHA-256 (64 hex digits), and the SHA-256 of the same samples
    /// of the file at `path` (read again) is it.
    pub fn matches(&self, recorded: &str, path: &Path) -> bool {
        recorded == self.sample_hash
            || (recorded.len() == 64
                && recorded.bytes().all(|b| b.is_ascii_hexdigit())
                && sample_sha256(path).is_ok_and(|sha| sha.eq_ignore_ascii_case(recorded)))
    }
}

/// The fingerprint of an earlier threefold: the hex SHA-256 of the size and the same samples.
fn sample_sha256(path: &Path) -> io::Result<String> {
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    let mut hash = Sha256::new();
    hash.update(size.to_le_bytes());
    samples(&mut file, size, |bytes| hash.update(bytes))?;
    Ok(hash.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Hands each sample of `file` (of `size` bytes) to `take`, in order.
fn samples(file: &mut File, size: u64, mut take: impl FnMut(&[u8])) -> io::Result<()> {
    let mut buffer = vec![0u8; SAMPLE as usize];
    for offset in offsets(size) {
        file.seek(SeekFrom::Start(offset))?;
        let n = (&mut *file).take(SAMPLE).read(&mut buffer)?;
        let mut filled = n;
        // `read` may return less than asked; read on to the sample's end (or the file's).
        while filled < buffer.len() && offset + (filled as u64) < size {
            match (&mut *file).take(SAMPLE - filled as u64).read(&mut buffer[filled..])? {
                0 => break,
                m => filled += m,
            }
        }
        take(&buffer[..filled]);
    }
    Ok(())
}

impl Fingerprint {
    /// The fingerprint of an input of several files (a month of Parquet files): their sizes
    /// summed, and the hash of each file's name and fingerprint, so that any file changed,
    /// added or taken away changes it. One file's is its own.
    pub fn of_files(paths: &[std::path::PathBuf]) -> io::Result<Fingerprint> {
        Ok(Fingerprint::combined(&FileFingerprint::of_each(paths)?))
    }

    /// [`Fingerprint::of_files`] of files already fingerprinted, in order.
    pub fn combined(files: &[FileFingerprint]) -> Fingerprint {
        if let [one] = files {
            return Fingerprint { files: files.to_vec(), ..one.fingerprint.clone() };
        }
        let mut hash = XxHash64::with_seed(0);
        let (mut size, mut modified) = (0, None);
        for file in files {
            size += file.fingerprint.size;
            modified = modified.max(file.fingerprint.modified_unix_ns);
            hash.write(file.name.as_bytes());
            hash.write(&[0]);
            hash.write(file.fingerprint.sample_hash.as_bytes());
        }
        let sample_hash = format!("{PREFIX}{:016x}", hash.finish());
        Fingerprint { size, modified_unix_ns: modified, sample_hash, files: files.to_vec() }
    }
}

/// One file of an input of several (a month of Parquet files), by name: a month's files are
/// told apart so that files added after the ones ingested can be read alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileFingerprint {
    pub name: String,
    pub fingerprint: Fingerprint,
}

impl FileFingerprint {
    /// The fingerprint of each of `paths`, in order.
    pub fn of_each(paths: &[std::path::PathBuf]) -> io::Result<Vec<FileFingerprint>> {
        paths
            .iter()
            .map(|path| {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                Ok(FileFingerprint { name, fingerprint: Fingerprint::of(path)? })
            })
            .collect()
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
        assert_eq!(Fingerprint::of(&path).unwrap().sample_hash, a.sample_hash);
        let mut changed = text.clone();
        changed[SAMPLE as usize + 7] ^= 1;
        std::fs::write(&path, &changed).unwrap();
        assert_ne!(Fingerprint::of(&path).unwrap().sample_hash, a.sample_hash);
        std::fs::write(&path, &text[..text.len() - 1]).unwrap();
        assert_ne!(Fingerprint::of(&path).unwrap(), a);
    }

    /// A fingerprint recorded as SHA-256 by an earlier threefold (the values it wrote to the
    /// manifest for these two files) matches the file it was taken of, and only that file.
    #[test]
    fn an_earlier_sha256_fingerprint_still_matches() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.pgn");
        let small: Vec<u8> = (0..3 * SAMPLE).map(|i| (i % 251) as u8).collect();
        let large: Vec<u8> = (0..40 * SAMPLE + 123).map(|i| ((i * 7 + i / 1000) % 256) as u8).collect();
        for (text, recorded) in [
            (&small, "469e6a0b6e08b8cc64e65d2ef367c542677b4fefae22ebc342099107fb8743c2"),
            (&large, "f06f63fe4a600df9c64c75c06af80494b47eff0a78d3870c14aaf778d84a0c08"),
        ] {
            std::fs::write(&path, text).unwrap();
            let now = Fingerprint::of(&path).unwrap();
            assert!(now.sample_hash.starts_with(PREFIX) && now.sample_hash.len() == PREFIX.len() + 16);
            assert!(now.matches(recorded, &path) && now.matches(&now.sample_hash, &path));
            let mut changed = text.clone();
            changed[10] ^= 1;
            std::fs::write(&path, &changed).unwrap();
            let then = Fingerprint::of(&path).unwrap();
            assert!(!then.matches(recorded, &path) && !then.matches(&now.sample_hash, &path));
        }
    }
}
