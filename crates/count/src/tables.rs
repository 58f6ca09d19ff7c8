//! A dataset's tables read back: their Parquet files and parts, streamed with only the named
//! columns, one record batch at a time, so a report over a month of Lichess games needs the
//! memory of one batch, not of the data.

use std::{
    fs::{self, File},
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, anyhow, bail};
use arrow_array::{Array, ArrowPrimitiveType, BooleanArray, PrimitiveArray, RecordBatch, StringArray};
use parquet::{
    arrow::{ProjectionMask, arrow_reader::ParquetRecordBatchReaderBuilder},
    file::{metadata::RowGroupMetaData, statistics::Statistics},
};

use crate::read::key::GameKey;

/// Rows per batch: large enough to amortise decoding, small enough to keep memory flat.
const BATCH_ROWS: usize = 8192;

/// The Parquet files of `table` (`games` or `events`): `DIR/table/source=*/*.parquet`, sorted.
/// Names starting with `.` are an ingest's temporary or replaced partitions and are skipped.
pub(crate) fn table_files(dir: &Path, table: &str) -> Result<Vec<PathBuf>> {
    let root = dir.join(table);
    let mut files = Vec::new();
    let entries = fs::read_dir(&root)
        .with_context(|| format!("cannot list {} (is {} a threefold dataset?)", root.display(), dir.display()))?;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with("source=") || !entry.file_type()?.is_dir() {
            continue;
        }
        for file in fs::read_dir(entry.path())? {
            let path = file?.path();
            let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if file_name.ends_with(".parquet") && !file_name.starts_with('.') {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// One part of a source's partition: its games and their events (ingest writes a part's games
/// and events to files of the same name in the two tables).
pub(crate) struct Part {
    pub source: String,
    pub games: PathBuf,
    pub events: PathBuf,
}

/// The parts of a dataset, in the order of [`table_files`].
pub(crate) fn parts(dir: &Path) -> Result<Vec<Part>> {
    let mut parts = Vec::new();
    for games in table_files(dir, "games")? {
        let (Some(folder), Some(name)) = (games.parent().and_then(Path::file_name), games.file_name()) else {
            bail!("internal error: {} has no folder", games.display());
        };
        let events = dir.join("events").join(folder).join(name);
        if !events.is_file() {
            bail!("{} has no events file {}: the dataset is incomplete", games.display(), events.display());
        }
        let source = folder.to_string_lossy().trim_start_matches("source=").to_owned();
        parts.push(Part { source, games, events });
    }
    Ok(parts)
}

fn builder(path: &Path) -> Result<ParquetRecordBatchReaderBuilder<File>> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    ParquetRecordBatchReaderBuilder::try_new(file).with_context(|| format!("cannot read {} as Parquet", path.display()))
}

/// Each row group's rows and whether `keep` accepts it (from the footer, nothing decoded).
pub(crate) fn row_groups(path: &Path, keep: &dyn Fn(&RowGroupMetaData) -> bool) -> Result<RowGroups> {
    Ok(builder(path)?.metadata().row_groups().iter().map(|g| (g.num_rows().max(0) as u64, keep(g))).collect())
}

/// The key of each row group's first row (its key columns' first values; an empty row group
/// has none).
pub(crate) fn first_keys(path: &Path) -> Result<Vec<Option<GameKey>>> {
    let groups = builder(path)?.metadata().num_row_groups();
    let mut keys = Vec::with_capacity(groups);
    for g in 0..groups {
        let b = builder(path)?;
        let mask = ProjectionMask::columns(b.parquet_schema(), ["frame_offset", "byte_offset"]);
        let mut reader = b.with_projection(mask).with_row_groups(vec![g]).with_limit(1).with_batch_size(1).build()?;
        keys.push(match reader.next().transpose()? {
            Some(batch) if batch.num_rows() > 0 => {
                let frame = numbers::<arrow_array::types::UInt64Type>(&batch, "frame_offset")?;
                let byte = numbers::<arrow_array::types::UInt64Type>(&batch, "byte_offset")?;
                Some(GameKey { frame_offset: frame.value(0), byte_offset: byte.value(0) })
            }
            _ => None,
        });
    }
    Ok(keys)
}

/// Whether a row group sorted by key may hold a key in `from..to` (`None`: unbounded), from its
/// key columns' statistics: its first key is at least (least frame, least byte), its last at
/// most (greatest frame, greatest byte). Without statistics it may.
pub(crate) fn may_hold_keys(group: &RowGroupMetaData, from: Option<GameKey>, to: Option<GameKey>) -> bool {
    let (Some(frame), Some(byte)) = (range(group, "frame_offset"), range(group, "byte_offset")) else {
        return true;
    };
    // Offsets are stored as unsigned 64-bit integers: compare them as such.
    let lowest = GameKey { frame_offset: frame.min as u64, byte_offset: byte.min as u64 };
    let highest = GameKey { frame_offset: frame.max as u64, byte_offset: byte.max as u64 };
    from.is_none_or(|f| highest >= f) && to.is_none_or(|t| lowest < t)
}

/// Rows of a Parquet file, from its footer (nothing decoded).
pub(crate) fn row_count(path: &Path) -> Result<u64> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .with_context(|| format!("cannot read {} as Parquet", path.display()))?;
    Ok(builder.metadata().file_metadata().num_rows().max(0) as u64)
}

/// An integer column's smallest and largest value in a row group, and its nulls, from the
/// statistics the writer stored (`None` where it stored none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub min: i64,
    pub max: i64,
    /// `None`: the null count is unknown.
    pub nulls: Option<u64>,
}

/// The [`Range`] of `column` in a row group (int32 and int64 columns: dates and Elos).
pub(crate) fn range(group: &RowGroupMetaData, column: &str) -> Option<Range> {
    let chunk = group.columns().iter().find(|c| c.column_path().parts() == [column])?;
    match chunk.statistics()? {
        Statistics::Int32(s) => {
            Some(Range { min: i64::from(*s.min_opt()?), max: i64::from(*s.max_opt()?), nulls: s.null_count_opt() })
        }
        Statistics::Int64(s) => Some(Range { min: *s.min_opt()?, max: *s.max_opt()?, nulls: s.null_count_opt() }),
        _ => None,
    }
}

/// Each row group's rows, and whether it is read, in file order.
pub(crate) type RowGroups = Vec<(u64, bool)>;

/// The batches of one file's row groups that `keep` accepts (given each one's index and
/// metadata), and its [`RowGroups`].
pub(crate) fn batches_where(
    path: &Path,
    columns: &[&str],
    keep: &dyn Fn(usize, &RowGroupMetaData) -> bool,
) -> Result<(impl Iterator<Item = Result<RecordBatch>> + use<>, RowGroups)> {
    batches_with(path, columns, &[], keep)
}

/// [`batches_where`], with the `optional` columns too where the file has them (a column added
/// after the file was written).
pub(crate) fn batches_with(
    path: &Path,
    columns: &[&str],
    optional: &[&str],
    keep: &dyn Fn(usize, &RowGroupMetaData) -> bool,
) -> Result<(impl Iterator<Item = Result<RecordBatch>> + use<>, RowGroups)> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .with_context(|| format!("cannot read {} as Parquet", path.display()))?;
    for column in columns {
        if builder.schema().field_with_name(column).is_err() {
            bail!("{} has no column {column}: not a threefold dataset, or of another version", path.display());
        }
    }
    let present = optional.iter().filter(|c| builder.schema().field_with_name(c).is_ok());
    let columns: Vec<&str> = columns.iter().chain(present).copied().collect();
    let groups: RowGroups = builder
        .metadata()
        .row_groups()
        .iter()
        .enumerate()
        .map(|(i, g)| (g.num_rows().max(0) as u64, keep(i, g)))
        .collect();
    let read: Vec<usize> = groups.iter().enumerate().filter(|(_, g)| g.1).map(|(i, _)| i).collect();
    let mask = ProjectionMask::columns(builder.parquet_schema(), columns.iter().copied());
    let reader = builder.with_projection(mask).with_row_groups(read).with_batch_size(BATCH_ROWS).build()?;
    let shown = path.display().to_string();
    Ok((reader.map(move |b| b.with_context(|| format!("cannot decode {shown}"))), groups))
}

fn column<'a, T: 'static>(batch: &'a RecordBatch, name: &str) -> Result<&'a T> {
    batch
        .column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<T>())
        .ok_or_else(|| anyhow!("column {name} is missing or of an unexpected type"))
}

pub(crate) fn strings<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a StringArray> {
    column(batch, name)
}

pub(crate) fn bools<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a BooleanArray> {
    column(batch, name)
}

pub(crate) fn numbers<'a, T: ArrowPrimitiveType>(batch: &'a RecordBatch, name: &str) -> Result<&'a PrimitiveArray<T>> {
    column(batch, name)
}

/// The value at `i`, or `None` where it is null. (These three are inlined: counting a game reads
/// some thirty values with them.)
#[inline]
pub(crate) fn get<T: ArrowPrimitiveType>(array: &PrimitiveArray<T>, i: usize) -> Option<T::Native> {
    array.is_valid(i).then(|| array.value(i))
}

#[inline]
pub(crate) fn get_str(array: &StringArray, i: usize) -> Option<&str> {
    array.is_valid(i).then(|| array.value(i))
}

#[inline]
pub(crate) fn get_bool(array: &BooleanArray, i: usize) -> Option<bool> {
    array.is_valid(i).then(|| array.value(i))
}

/// A `date32` (days since 1970-01-01) as `YYYY.MM.DD`, the PGN date format.
pub(crate) fn date32_to_pgn(days: i32) -> String {
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}.{month:02}.{day:02}")
}

/// `(year, month, day)` of a `date32` (days since 1970-01-01).
pub(crate) fn civil_from_days(days: i32) -> (i64, u32, u32) {
    crate::pgn::tags::civil_from_days(i64::from(days))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(date32_to_pgn(0), "1970.01.01");
        assert_eq!(date32_to_pgn(15_706), "2013.01.01");
        assert_eq!(date32_to_pgn(-1), "1969.12.31");
        assert_eq!(date32_to_pgn(11_016), "2000.02.29");
    }
}
