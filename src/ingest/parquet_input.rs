//! Lichess's database as Parquet (Hugging Face `Lichess/standard-chess-games` and its variant
//! siblings: `data/year=YYYY/month=MM/train-NNNNN-of-MMMMM.parquet`, one row per game, the PGN
//! tags as columns and the movetext in `movetext`) as an input.
//!
//! Each row is written back as the PGN text the dump had for it — its tags in column order, a
//! blank line, the movetext — and that text is read as any PGN is. So a game read from Parquet
//! gives the rows the same game gives from PGN, with no second reading of tags or moves to keep
//! in step. Typed columns become the text Lichess writes: `UTCDate` (date32) `2013.01.01`,
//! `UTCTime` (a time type) `00:00:10`, an integer its decimal, a `…RatingDiff` with its sign
//! (`+12`, `+0`, `-5`); a null is a tag the game does not have.
//!
//! A game's key is its place in the input: `frame_offset` is the row group, counted over the
//! input's files in name order, and `byte_offset` the row within it. Row groups are what a
//! reader can enter without reading what comes before, as pzstd frames are for PGN.

use std::{
    fs::File,
    io,
    ops::Range,
    path::{Path, PathBuf},
    sync::Arc,
};

use arrow_array::{Array, ArrayRef, cast::AsArray, types::*};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection, RowSelector,
};

/// The column that holds a game's movetext.
pub const MOVETEXT: &str = "movetext";

/// Rows replayed as one piece of work: bounds the text held per piece (a Lichess game with
/// clocks is about 2 KB of PGN) whatever the writer chose as row group size.
pub const PIECE_ROWS: u64 = 4096;

/// Rows decoded at a time within a piece.
const BATCH_ROWS: usize = PIECE_ROWS as usize;

/// Whether `path` names a Parquet file (by its extension, as `.pgn` files are found).
pub fn is_parquet_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// The Parquet files of an input: the file itself, or a folder's `.parquet` files (not its
/// subfolders'), in name order.
pub fn files_of(path: &Path) -> io::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path)? {
        let path = entry?.path();
        if path.is_file() && is_parquet_file(&path) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// How a column's values become tag values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Text,
    Integer,
    /// An integer written with its sign, as Lichess writes rating changes.
    Signed,
    Date,
    Time,
    /// A column of nulls only (Arrow's null type): never a tag.
    Null,
}

fn kind_of(data_type: &DataType) -> Option<Kind> {
    use DataType::*;
    Some(match data_type {
        Utf8 | LargeUtf8 | Utf8View => Kind::Text,
        Dictionary(_, value) if matches!(**value, Utf8 | LargeUtf8 | Utf8View) => Kind::Text,
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => Kind::Integer,
        Date32 => Kind::Date,
        Time32(_) | Time64(_) => Kind::Time,
        Null => Kind::Null,
        _ => return None,
    })
}

struct Column {
    index: usize,
    name: String,
    kind: Kind,
}

/// One file: its footer, read once, and what each column is.
struct ParquetFile {
    path: PathBuf,
    meta: ArrowReaderMetadata,
    tags: Vec<Column>,
    movetext: usize,
}

/// A row group of the input.
#[derive(Copy, Clone, Debug)]
pub struct Group {
    file: usize,
    index: usize,
    pub rows: u64,
    /// Its columns' uncompressed and compressed size.
    pub bytes: u64,
    pub compressed: u64,
}

/// An input's Parquet files, opened (footers read and columns checked).
pub struct ParquetInput {
    files: Vec<ParquetFile>,
    pub groups: Vec<Group>,
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// A name PGN allows for a tag (what `pgn-reader` reads as one).
fn tag_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_+#=:-".contains(&b))
}

impl ParquetFile {
    fn open(path: &Path) -> io::Result<ParquetFile> {
        let file = File::open(path)?;
        let unreadable = |e: parquet::errors::ParquetError| invalid(format!("not a readable Parquet file: {e}"));
        let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()).map_err(unreadable)?;
        let schema = meta.schema().clone();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        let Some(movetext) = names.iter().position(|&n| n == MOVETEXT) else {
            return Err(invalid(format!(
                "no `{MOVETEXT}` column: games in Parquet need one (this file has {})",
                names.join(", ")
            )));
        };
        let mut tags = Vec::new();
        for (index, field) in schema.fields().iter().enumerate() {
            let name = field.name();
            let kind = kind_of(field.data_type());
            if index == movetext {
                if kind != Some(Kind::Text) {
                    return Err(invalid(format!("column `{MOVETEXT}` is {}, not a string", field.data_type())));
                }
                continue;
            }
            // pandas writes its index as a column of its own: not a tag.
            if name.starts_with("__index_level_") {
                continue;
            }
            let Some(kind) = kind else {
                return Err(invalid(format!(
                    "column `{name}` is {}: a tag column must be a string, an integer, date32 or a time",
                    field.data_type()
                )));
            };
            if !tag_name(name) {
                return Err(invalid(format!(
                    "column `{name}` cannot be a PGN tag name (letters, digits, _+#=:- only)"
                )));
            }
            let kind = if kind == Kind::Integer && name.ends_with("RatingDiff") { Kind::Signed } else { kind };
            tags.push(Column { index, name: name.clone(), kind });
        }
        // Strings (plain or dictionary-typed) read as views into the decompressed pages, not
        // copied into arrays of their own: each is copied once, into the game's text.
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .map(|f| match kind_of(f.data_type()) {
                Some(Kind::Text) => f.as_ref().clone().with_data_type(DataType::Utf8View),
                _ => f.as_ref().clone(),
            })
            .collect();
        let options = ArrowReaderOptions::new().with_schema(Arc::new(Schema::new(fields)));
        let meta = ArrowReaderMetadata::try_new(meta.metadata().clone(), options).map_err(unreadable)?;
        Ok(ParquetFile { path: path.to_path_buf(), meta, tags, movetext })
    }
}

impl ParquetInput {
    /// Reads the footers of `files` and checks their columns.
    pub fn open(files: &[PathBuf]) -> io::Result<ParquetInput> {
        if files.is_empty() {
            return Err(invalid("no Parquet files".to_owned()));
        }
        let mut opened = Vec::new();
        let mut groups = Vec::new();
        for (i, path) in files.iter().enumerate() {
            let file =
                ParquetFile::open(path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            for (index, group) in file.meta.metadata().row_groups().iter().enumerate() {
                let (rows, bytes) = (group.num_rows().max(0) as u64, group.total_byte_size().max(0) as u64);
                let compressed = group.compressed_size().max(0) as u64;
                groups.push(Group { file: i, index, rows, bytes, compressed });
            }
            opened.push(file);
        }
        Ok(ParquetInput { files: opened, groups })
    }

    /// Writes rows `rows` of row group `group` as PGN text into `out`.
    pub fn render(&self, group: usize, rows: Range<u64>, out: &mut Rendered) -> io::Result<()> {
        let Group { file, index, rows: n, .. } = self.groups[group];
        let file = &self.files[file];
        let located =
            |e: parquet::errors::ParquetError| invalid(format!("{}: row group {index}: {e}", file.path.display()));
        let mut builder =
            ParquetRecordBatchReaderBuilder::new_with_metadata(File::open(&file.path)?, file.meta.clone())
                .with_row_groups(vec![index])
                .with_batch_size(BATCH_ROWS);
        if rows != (0..n) {
            let selection =
                vec![RowSelector::skip(rows.start as usize), RowSelector::select((rows.end - rows.start) as usize)];
            builder = builder.with_row_selection(RowSelection::from(selection));
        }
        out.clear();
        for batch in builder.build().map_err(located)? {
            let batch = batch.map_err(|e| invalid(format!("{}: row group {index}: {e}", file.path.display())))?;
            let columns: Vec<&ArrayRef> = file.tags.iter().map(|c| batch.column(c.index)).collect();
            let movetext = batch.column(file.movetext);
            for row in 0..batch.num_rows() {
                out.starts.push(out.text.len());
                let mut tags = 0;
                for (column, array) in file.tags.iter().zip(&columns) {
                    tags += usize::from(write_tag(&mut out.text, column, array, row));
                }
                if tags > 0 {
                    out.text.push(b'\n');
                }
                let text = string_at(movetext, row);
                out.null_movetext.push(text.is_none());
                out.text.extend_from_slice(text.unwrap_or_default().as_bytes());
                out.text.extend_from_slice(b"\n\n");
            }
        }
        if out.starts.len() as u64 != rows.end - rows.start {
            return Err(invalid(format!(
                "{}: row group {index}: {} rows read where its footer promises {}",
                file.path.display(),
                out.starts.len(),
                rows.end - rows.start
            )));
        }
        Ok(())
    }
}

/// Rows written as PGN: the text, where each row's game begins in it, and which rows have no
/// movetext (a null).
#[derive(Default)]
pub struct Rendered {
    pub text: Vec<u8>,
    pub starts: Vec<usize>,
    pub null_movetext: Vec<bool>,
}

impl Rendered {
    fn clear(&mut self) {
        self.text.clear();
        self.starts.clear();
        self.null_movetext.clear();
    }
}

fn string_at(array: &ArrayRef, row: usize) -> Option<&str> {
    if array.is_null(row) {
        return None;
    }
    Some(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().value(row),
        DataType::LargeUtf8 => array.as_string::<i64>().value(row),
        DataType::Utf8View => array.as_string_view().value(row),
        _ => return None,
    })
}

fn integer_at(array: &ArrayRef, row: usize) -> i128 {
    match array.data_type() {
        DataType::Int8 => array.as_primitive::<Int8Type>().value(row).into(),
        DataType::Int16 => array.as_primitive::<Int16Type>().value(row).into(),
        DataType::Int32 => array.as_primitive::<Int32Type>().value(row).into(),
        DataType::Int64 => array.as_primitive::<Int64Type>().value(row).into(),
        DataType::UInt8 => array.as_primitive::<UInt8Type>().value(row).into(),
        DataType::UInt16 => array.as_primitive::<UInt16Type>().value(row).into(),
        DataType::UInt32 => array.as_primitive::<UInt32Type>().value(row).into(),
        DataType::UInt64 => array.as_primitive::<UInt64Type>().value(row).into(),
        _ => 0,
    }
}

/// Seconds since midnight of a time value (a fraction of a second is dropped: PGN's
/// `UTCTime` has whole seconds).
fn seconds_at(array: &ArrayRef, row: usize) -> i64 {
    match array.data_type() {
        DataType::Time32(TimeUnit::Second) => array.as_primitive::<Time32SecondType>().value(row).into(),
        DataType::Time32(_) => i64::from(array.as_primitive::<Time32MillisecondType>().value(row)) / 1000,
        DataType::Time64(TimeUnit::Microsecond) => array.as_primitive::<Time64MicrosecondType>().value(row) / 1_000_000,
        DataType::Time64(_) => array.as_primitive::<Time64NanosecondType>().value(row) / 1_000_000_000,
        _ => 0,
    }
}

/// Writes `[Name "value"]` and a line break for the row's value of `column`; `false` (nothing
/// written) for a null.
fn write_tag(out: &mut Vec<u8>, column: &Column, array: &ArrayRef, row: usize) -> bool {
    use std::io::Write as _;
    if column.kind == Kind::Null || array.is_null(row) {
        return false;
    }
    out.push(b'[');
    out.extend_from_slice(column.name.as_bytes());
    out.extend_from_slice(b" \"");
    let _ = match column.kind {
        Kind::Text => {
            // The value as the PGN writes it: quotes and backslashes escaped, and no line
            // break (a tag is one line).
            for &b in string_at(array, row).unwrap_or_default().as_bytes() {
                match b {
                    b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
                    b'\n' | b'\r' => out.push(b' '),
                    _ => out.push(b),
                }
            }
            Ok(())
        }
        Kind::Integer => write!(out, "{}", integer_at(array, row)),
        Kind::Signed => write!(out, "{:+}", integer_at(array, row)),
        Kind::Date => {
            let (y, m, d) = crate::pgn::tags::civil_from_days(array.as_primitive::<Date32Type>().value(row).into());
            write!(out, "{y:04}.{m:02}.{d:02}")
        }
        Kind::Time => {
            let s = seconds_at(array, row);
            write!(out, "{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
        }
        Kind::Null => Ok(()),
    };
    out.extend_from_slice(b"\"]\n");
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_names() {
        assert!(tag_name("WhiteRatingDiff") && tag_name("FICSGamesDBGameNo"));
        assert!(!tag_name("white elo") && !tag_name(""));
    }
}
