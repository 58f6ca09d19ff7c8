//! Which files of a Parquet month a run must read, from the files its manifest entry records.
//!
//! A game's key counts row groups over the month's files in name order, so the rows of the
//! files recorded stay right only while each of them is unchanged and they come first: then a
//! run reads only the files after them (a month synced in part, finished later). A file
//! changed, removed or put before the last recorded one may shift every later key, and the
//! whole month is read again.

use crate::{dataset::manifest::FileEntry, fingerprint::FileFingerprint};

/// What a run reads of a Parquet month ingested before.
#[derive(Debug, PartialEq)]
pub(crate) enum Freshness {
    /// The recorded files are the month's first, unchanged; only the files after them are read.
    Added { kept: Vec<FileEntry> },
    /// Every file is read: why, when the recorded files say (none for an entry without them).
    Whole(Option<String>),
}

impl Freshness {
    /// Compares the files `recorded` for a month with its files now, in name order.
    pub(crate) fn of(recorded: &[FileEntry], current: &[FileFingerprint]) -> Freshness {
        if recorded.is_empty() {
            return Freshness::Whole(None);
        }
        for (i, was) in recorded.iter().enumerate() {
            let why = match current.get(i) {
                Some(now) if now.name == was.name => {
                    let same = now.fingerprint.size == was.size && now.fingerprint.sample_hash == was.fingerprint;
                    if same {
                        continue;
                    }
                    format!("{} changed since it was ingested", was.name)
                }
                Some(now) if current[i..].iter().any(|c| c.name == was.name) => {
                    format!("{} was added before {}, which was ingested", now.name, was.name)
                }
                _ => format!("{} was ingested and is gone", was.name),
            };
            return Freshness::Whole(Some(why));
        }
        if current.len() == recorded.len() {
            // Every file unchanged: only the entry's other fields made it not up to date.
            return Freshness::Whole(None);
        }
        Freshness::Added { kept: recorded.to_vec() }
    }
}

/// The row groups of `files`: the first row group number of the files after them.
pub(crate) fn row_groups(files: &[FileEntry]) -> u64 {
    files.iter().map(|f| f.row_groups).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::Fingerprint;

    fn now(name: &str, hash: &str) -> FileFingerprint {
        let fingerprint =
            Fingerprint { size: 10, modified_unix_ns: None, sample_hash: hash.to_owned(), files: Vec::new() };
        FileFingerprint { name: name.to_owned(), fingerprint }
    }

    fn was(name: &str, hash: &str) -> FileEntry {
        FileEntry { name: name.to_owned(), size: 10, fingerprint: hash.to_owned(), row_groups: 3 }
    }

    #[test]
    fn only_files_after_the_unchanged_recorded_ones_are_read_alone() {
        let recorded = [was("a", "1"), was("b", "2")];
        let added = Freshness::of(&recorded, &[now("a", "1"), now("b", "2"), now("c", "3")]);
        assert_eq!(added, Freshness::Added { kept: recorded.to_vec() });
        assert_eq!(row_groups(&recorded), 6);
        let whole = |current: &[FileFingerprint]| match Freshness::of(&recorded, current) {
            Freshness::Whole(why) => why.unwrap_or_default(),
            other => panic!("{other:?}"),
        };
        assert_eq!(whole(&[now("a", "1"), now("b", "x"), now("c", "3")]), "b changed since it was ingested");
        assert_eq!(whole(&[now("a", "1"), now("c", "3")]), "b was ingested and is gone");
        assert_eq!(whole(&[now("a", "1"), now("a2", "9"), now("b", "2")]), "a2 was added before b, which was ingested");
        assert_eq!(whole(&[now("a", "1"), now("b", "2")]), "");
        assert_eq!(Freshness::of(&[], &[now("a", "1")]), Freshness::Whole(None));
    }
}
