//! Lichess's database as Parquet (Hugging Face `Lichess/standard-chess-games` and its variant
//! siblings: `data/year=YYYY/month=MM/train-NNNNN-of-MMMMM.parquet`, one row per game, the PGN
//! tags as columns and the movetext in `movetext`) as an input.
//!
//! Each row is the PGN text the dump had for it — its tags in column order, a blank line, the
//! movetext — read as any PGN is: `dump` and `explain` write that text whole ([`Rendered`]);
//! `ingest` takes the tags straight from the columns, each value as the PGN reader reads it from
//! that text, and reads the movetext as the text after them, so that tags are not written to be
//! read again (the rows where the scanner would not read them so are written whole). So a game
//! read from Parquet gives the rows the same game gives from PGN, with no second reading of
//! moves to keep in step. Typed columns become the text Lichess writes: `UTCDate` (date32)
//! `2013.01.01`, `UTCTime` (a time type) `00:00:10`, an integer its decimal, a `…RatingDiff`
//! with its sign (`+12`, `+0`, `-5`); a null is a tag the game does not have.
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
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder, RowSelection,
    RowSelector,
};
use pgn_reader::RawTag;

use crate::pgn::{
    tag_section,
    tags::{Tags, push_decoded},
};

/// The column that holds a game's movetext.
pub const MOVETEXT: &str = "movetext";

/// Rows replayed as one piece of work: bounds the text held per piece (a Lichess game with
/// clocks is about 2 KB of PGN) whatever the writer chose as row group size.
pub const PIECE_ROWS: u64 = 1024;

/// Rows decoded at a time within a piece (it divides [`PIECE_ROWS`]). Small, so that a decoded
/// page (about 1 MiB of movetext) is freed soon after its rows are written, not held with the
/// piece's other pages until the piece is done.
const BATCH_ROWS: usize = 256;

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
enum Conversion {
    Text,
    Integer,
    /// An integer written with its sign, as Lichess writes rating changes.
    Signed,
    Date,
    Time,
    /// A column of nulls only (Arrow's null type): never a tag.
    Null,
}

fn kind_of(data_type: &DataType) -> Option<Conversion> {
    use DataType::*;
    Some(match data_type {
        Utf8 | LargeUtf8 | Utf8View => Conversion::Text,
        Dictionary(_, value) if matches!(**value, Utf8 | LargeUtf8 | Utf8View) => Conversion::Text,
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => Conversion::Integer,
        Date32 => Conversion::Date,
        Time32(_) | Time64(_) => Conversion::Time,
        Null => Conversion::Null,
        _ => return None,
    })
}

struct Column {
    index: usize,
    name: String,
    kind: Conversion,
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
pub struct RowGroup {
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
    pub groups: Vec<RowGroup>,
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
                if kind != Some(Conversion::Text) {
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
            let kind =
                if kind == Conversion::Integer && name.ends_with("RatingDiff") { Conversion::Signed } else { kind };
            tags.push(Column { index, name: name.clone(), kind });
        }
        // Strings (plain or dictionary-typed) read as views into the decompressed pages, not
        // copied into arrays of their own: each is copied once, into the game's text.
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .map(|f| match kind_of(f.data_type()) {
                Some(Conversion::Text) => f.as_ref().clone().with_data_type(DataType::Utf8View),
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
                groups.push(RowGroup { file: i, index, rows, bytes, compressed });
            }
            opened.push(file);
        }
        Ok(ParquetInput { files: opened, groups })
    }

    /// The number of row groups of each file, in order.
    pub fn row_groups_per_file(&self) -> Vec<u64> {
        let mut counts = vec![0; self.files.len()];
        for group in &self.groups {
            counts[group.file] += 1;
        }
        counts
    }

    /// A reader of rows `rows` of row group `group`.
    fn reader(&self, group: usize, rows: Range<u64>) -> io::Result<ParquetRecordBatchReader> {
        let RowGroup { file, index, rows: n, .. } = self.groups[group];
        let file = &self.files[file];
        let mut builder =
            ParquetRecordBatchReaderBuilder::new_with_metadata(File::open(&file.path)?, file.meta.clone())
                .with_row_groups(vec![index])
                .with_batch_size(BATCH_ROWS);
        if rows != (0..n) {
            let selection =
                vec![RowSelector::skip(rows.start as usize), RowSelector::select((rows.end - rows.start) as usize)];
            builder = builder.with_row_selection(RowSelection::from(selection));
        }
        builder.build().map_err(|e| self.located(group, e))
    }

    /// A decoding error, with the file and row group it is in.
    fn located(&self, group: usize, e: impl std::fmt::Display) -> io::Error {
        let RowGroup { file, index, .. } = self.groups[group];
        invalid(format!("{}: row group {index}: {e}", self.files[file].path.display()))
    }

    /// Writes rows `rows` of row group `group` as PGN text into `out`.
    pub fn render(&self, group: usize, rows: Range<u64>, out: &mut Rendered) -> io::Result<()> {
        out.pgn = true;
        let mut reader = self.reader(group, rows.clone())?;
        self.render_from(&mut reader, group, rows, out)
    }

    /// Writes every row of the input as PGN, piece after piece of at most [`PIECE_ROWS`] rows
    /// (each row group decoded once), and hands each to `f` with its row group and rows, until
    /// `f` breaks.
    pub fn for_each_piece(
        &self,
        mut f: impl FnMut(usize, Range<u64>, &mut Rendered) -> std::ops::ControlFlow<()>,
    ) -> io::Result<()> {
        let mut rendered = Rendered { pgn: true, ..Rendered::default() };
        for (g, group) in self.groups.iter().enumerate() {
            if group.rows == 0 {
                continue;
            }
            let mut reader = self.reader(g, 0..group.rows)?;
            let mut from = 0;
            while from < group.rows {
                let to = (from + PIECE_ROWS).min(group.rows);
                self.render_from(&mut reader, g, from..to, &mut rendered)?;
                if f(g, from..to, &mut rendered).is_break() {
                    return Ok(());
                }
                from = to;
            }
        }
        Ok(())
    }

    /// Writes the next `rows` of `reader` (of row group `group`) as PGN text into `out`.
    fn render_from(
        &self,
        reader: &mut ParquetRecordBatchReader,
        group: usize,
        rows: Range<u64>,
        out: &mut Rendered,
    ) -> io::Result<()> {
        let file = &self.files[self.groups[group].file];
        let want = (rows.end - rows.start) as usize;
        out.clear();
        // The text's size is about the rows' share of the row group's uncompressed bytes (the
        // tags' names and brackets add a little): reserved at once, not grown by doubling.
        let RowGroup { rows: n, bytes, .. } = self.groups[group];
        let share = (u128::from(bytes) * want as u128 / u128::from(n.max(1))) as usize;
        out.text.reserve(share + share / 8);
        // Batches of `BATCH_ROWS` rows, which divides `PIECE_ROWS`: a piece's last batch ends at
        // its last row.
        while out.starts.len() < want {
            let Some(batch) = reader.next() else { break };
            let batch = batch.map_err(|e| self.located(group, e))?;
            let columns: Vec<Values> = file.tags.iter().map(|c| Values::of(batch.column(c.index))).collect();
            let movetext = Values::of(batch.column(file.movetext));
            for row in 0..batch.num_rows() {
                out.starts.push(out.text.len());
                let text = movetext.str_at(row);
                if out.pgn || !out.keep_tags(&file.tags, &columns, row, text.unwrap_or_default()) {
                    out.row_tags.push(None);
                    let mut tags = 0;
                    for (column, values) in file.tags.iter().zip(&columns) {
                        tags += usize::from(write_tag(&mut out.text, column, values, row));
                    }
                    if tags > 0 {
                        out.text.push(b'\n');
                    }
                }
                out.null_movetext.push(text.is_none());
                out.text.extend_from_slice(text.unwrap_or_default().as_bytes());
                out.text.extend_from_slice(b"\n\n");
            }
        }
        if out.starts.len() != want {
            return Err(self.located(group, format!("{} rows read where its footer promises {want}", out.starts.len())));
        }
        Ok(())
    }

    /// Writes rows `rows` of row group `group` as PGN text into `out`, continuing the reader
    /// that wrote the rows before them when `first` is false: a row group's columns are
    /// decoded once, piece after piece, whatever thread takes each piece. A piece waits for the
    /// one before it in its row group (taken earlier, by another thread) to be written; `false`
    /// when `stop` is set meanwhile (another piece failed).
    pub fn render_next(
        &self,
        cursors: &Cursors,
        group: usize,
        rows: Range<u64>,
        first: bool,
        stop: &std::sync::atomic::AtomicBool,
        out: &mut Rendered,
    ) -> io::Result<bool> {
        let mut reader = if first {
            self.reader(group, rows.start..self.groups[group].rows)?
        } else {
            let mut cursor = cursors.groups[group].lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    return Ok(false);
                }
                if let Some((next, _)) = cursor.as_ref()
                    && *next == rows.start
                {
                    break cursor.take().expect("a cursor").1;
                }
                cursor = cursors
                    .moved
                    .wait_timeout(cursor, std::time::Duration::from_millis(50))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        };
        let done = self.render_from(&mut reader, group, rows.clone(), out);
        if done.is_ok() && rows.end < self.groups[group].rows {
            *cursors.groups[group].lock().unwrap_or_else(|e| e.into_inner()) = Some((rows.end, reader));
            cursors.moved.notify_all();
        }
        done.map(|()| true)
    }
}

/// Each row group's reader between two pieces: the row it is at and the reader.
pub struct Cursors {
    groups: Vec<std::sync::Mutex<Option<(u64, ParquetRecordBatchReader)>>>,
    moved: std::sync::Condvar,
}

impl Cursors {
    pub fn new(input: &ParquetInput) -> Cursors {
        Cursors {
            groups: input.groups.iter().map(|_| std::sync::Mutex::new(None)).collect(),
            moved: std::sync::Condvar::new(),
        }
    }
}

/// The first bytes of a Parquet file (and its last).
pub const MAGIC: &[u8; 4] = b"PAR1";

/// A stream that fails at once, saying why, when it holds Parquet: a Parquet file is read from
/// its footer, at its end, which says where each column's pages are, so it cannot be read as it
/// flows through a pipe (stdin). Any other stream is read through unchanged.
pub struct RefuseParquet<R> {
    inner: R,
    /// The stream's first bytes, read to look at them, and how many of them were handed on.
    head: Vec<u8>,
    given: usize,
    looked: bool,
}

impl<R> RefuseParquet<R> {
    pub fn new(inner: R) -> RefuseParquet<R> {
        RefuseParquet { inner, head: Vec::new(), given: 0, looked: false }
    }
}

impl<R: io::Read> io::Read for RefuseParquet<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.looked {
            let mut head = [0u8; MAGIC.len()];
            let mut n = 0;
            while n < head.len() {
                match self.inner.read(&mut head[n..]) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            self.looked = true;
            if &head[..n] == MAGIC {
                return Err(invalid(
                    "the input is Parquet (it starts with PAR1), which cannot be read from stdin: a Parquet \
                     file is read from its footer, at its end, where its columns are listed; give the file's \
                     path (or its month's folder) instead"
                        .to_owned(),
                ));
            }
            self.head = head[..n].to_vec();
        }
        if self.given < self.head.len() {
            let n = buf.len().min(self.head.len() - self.given);
            buf[..n].copy_from_slice(&self.head[self.given..self.given + n]);
            self.given += n;
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

/// Rows written as text: where each row's begins in it, which rows have no movetext (a null),
/// and the rows' tags. A row's text is its movetext and a blank line, after its tags written as
/// PGN (`[Name "value"]` lines and a blank line) when `pgn` is set (`dump`, `explain`: the PGN
/// the dump has for the game) or when the scanner would not read them as the columns give them
/// ([`Rendered::keep_tags`]); otherwise its tags are kept apart, as the PGN reader would read
/// them from that text, for [`Rendered::tags_of`] to hand to the replay: no text of theirs is
/// written to be read again.
#[derive(Default)]
pub struct Rendered {
    pub text: Vec<u8>,
    pub starts: Vec<usize>,
    pub null_movetext: Vec<bool>,
    /// Every row's tags written as PGN in its text.
    pub pgn: bool,
    /// The tags kept apart: their names and values, one after the other, row after row.
    tags: String,
    /// The length of each name and value in `tags`.
    tag_lens: Vec<(u32, u32)>,
    /// Per row: where its tags are in `tags` and `tag_lens`, or `None` when its text holds them.
    row_tags: Vec<Option<(Range<usize>, Range<usize>)>>,
    /// A value as PGN writes it, to read back ([`Rendered::keep_tags`]).
    scratch: Vec<u8>,
}

impl Rendered {
    fn clear(&mut self) {
        self.text.clear();
        self.starts.clear();
        self.null_movetext.clear();
        self.tags.clear();
        self.tag_lens.clear();
        self.row_tags.clear();
    }

    /// Keeps the row's tags apart, each value as the PGN reader reads it from the text
    /// [`write_tag`] writes (a text's escapes undone as `pgn-reader` undoes them, which is not
    /// always their inverse: `\\\\` reads as one backslash); `false`, keeping nothing, where
    /// the scanner would not read them so from the row's PGN (a tag too long to be sure of, a
    /// movetext that starts with a tag, a row of no tag and no movetext), whose text then holds
    /// them, to be read as any PGN is.
    fn keep_tags(&mut self, columns: &[Column], values: &[Values], row: usize, movetext: &str) -> bool {
        let (text, lens) = (self.tags.len(), self.tag_lens.len());
        let mut sure = true;
        for (column, values) in columns.iter().zip(values) {
            if column.kind == Conversion::Null || values.is_null(row) {
                continue;
            }
            let start = self.tags.len();
            self.tags.push_str(&column.name);
            let value = self.tags.len();
            let plain = if column.kind == Conversion::Text { values.str_at(row) } else { None };
            match plain {
                Some(plain) if !plain.bytes().any(needs_escape) => {
                    self.tags.push_str(plain);
                    sure &= tag_section::sure_tag(column.name.len(), plain.len());
                }
                _ => {
                    self.scratch.clear();
                    write_value(&mut self.scratch, column, values, row);
                    if column.kind == Conversion::Text {
                        push_decoded(&mut self.tags, &RawTag(&self.scratch).decode());
                    } else {
                        // A number, date or time: ASCII, with nothing to unescape.
                        self.tags.extend(self.scratch.iter().map(|&b| char::from(b)));
                    }
                    sure &= tag_section::sure_tag(column.name.len(), self.scratch.len());
                }
            }
            self.tag_lens.push(((value - start) as u32, (self.tags.len() - value) as u32));
        }
        let any = self.tag_lens.len() > lens;
        if !sure || !tag_section::movetext_after_tags(movetext.as_bytes(), any) {
            self.tags.truncate(text);
            self.tag_lens.truncate(lens);
            return false;
        }
        self.row_tags.push(Some((text..self.tags.len(), lens..self.tag_lens.len())));
        true
    }

    /// Fills `tags` with row `row`'s tags kept apart; `false` (nothing filled) when its text
    /// holds them.
    pub fn tags_of(&self, row: usize, tags: &mut Tags) -> bool {
        let Some((text, lens)) = &self.row_tags[row] else { return false };
        tags.refill(&self.tags[text.clone()]);
        let mut at = 0;
        for &(name, value) in &self.tag_lens[lens.clone()] {
            let (name, value) = (name as usize, value as usize);
            let kept = tags.push_within(at..at + name, at + name..at + name + value);
            debug_assert!(kept, "a tag kept apart is text");
            at += name + value;
        }
        true
    }
}

/// A batch's column, and its strings (a text column is read as string views) reached once per
/// batch rather than by a downcast per value.
struct Values<'a> {
    array: &'a ArrayRef,
    strings: Option<&'a arrow_array::StringViewArray>,
}

impl<'a> Values<'a> {
    fn of(array: &'a ArrayRef) -> Values<'a> {
        Values { array, strings: array.as_string_view_opt() }
    }

    fn is_null(&self, row: usize) -> bool {
        match self.strings {
            Some(strings) => strings.is_null(row),
            None => self.array.is_null(row),
        }
    }

    fn str_at(&self, row: usize) -> Option<&'a str> {
        match self.strings {
            Some(strings) => (!strings.is_null(row)).then(|| strings.value(row)),
            None => string_at(self.array, row),
        }
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
fn write_tag(out: &mut Vec<u8>, column: &Column, values: &Values, row: usize) -> bool {
    if column.kind == Conversion::Null || values.is_null(row) {
        return false;
    }
    out.push(b'[');
    out.extend_from_slice(column.name.as_bytes());
    out.extend_from_slice(b" \"");
    write_value(out, column, values, row);
    out.extend_from_slice(b"\"]\n");
    true
}

/// Whether a text's byte is written otherwise in a PGN tag's value (escaped, or a space).
fn needs_escape(b: u8) -> bool {
    matches!(b, b'"' | b'\\' | b'\n' | b'\r')
}

/// Writes the row's value of `column` (not null) as it stands between a PGN tag's quotes.
fn write_value(out: &mut Vec<u8>, column: &Column, values: &Values, row: usize) {
    use std::io::Write as _;
    let array = values.array;
    match column.kind {
        Conversion::Text => {
            // The value as the PGN writes it: quotes and backslashes escaped, and no line
            // break (a tag is one line). Most values need none of it: copied whole.
            let value = values.str_at(row).unwrap_or_default().as_bytes();
            if value.iter().copied().any(needs_escape) {
                for &b in value {
                    match b {
                        b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
                        b'\n' | b'\r' => out.push(b' '),
                        _ => out.push(b),
                    }
                }
            } else {
                out.extend_from_slice(value);
            }
        }
        Conversion::Integer => push_integer(out, integer_at(array, row), false),
        Conversion::Signed => push_integer(out, integer_at(array, row), true),
        Conversion::Date => {
            let (y, m, d) = crate::pgn::tags::civil_from_days(array.as_primitive::<Date32Type>().value(row).into());
            if (0..=9999).contains(&y) {
                push_digits(out, y as u64, 4);
                out.push(b'.');
                push_digits(out, u64::from(m), 2);
                out.push(b'.');
                push_digits(out, u64::from(d), 2);
            } else {
                let _ = write!(out, "{y:04}.{m:02}.{d:02}");
            }
        }
        Conversion::Time => {
            let s = seconds_at(array, row);
            if (0..100 * 3600).contains(&s) {
                let s = s as u64;
                push_digits(out, s / 3600, 2);
                out.push(b':');
                push_digits(out, s / 60 % 60, 2);
                out.push(b':');
                push_digits(out, s % 60, 2);
            } else {
                let _ = write!(out, "{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
            }
        }
        Conversion::Null => {}
    }
}

/// Appends `value` in decimal, with its sign when `signed` (`+0` too), as `{}` / `{:+}` write it.
fn push_integer(out: &mut Vec<u8>, value: i128, signed: bool) {
    if value < 0 {
        out.push(b'-');
    } else if signed {
        out.push(b'+');
    }
    let mut digits = [0u8; 40];
    let mut at = digits.len();
    let mut n = value.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Appends `value` in decimal, padded with zeros to `width` digits (`value` has at most that many).
fn push_digits(out: &mut Vec<u8>, mut value: u64, width: usize) {
    let start = out.len();
    out.resize(start + width, b'0');
    for at in (start..start + width).rev() {
        out[at] = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_names() {
        assert!(tag_name("WhiteRatingDiff") && tag_name("FICSGamesDBGameNo"));
        assert!(!tag_name("white elo") && !tag_name(""));
    }

    #[test]
    fn parquet_is_refused_on_a_stream_and_anything_else_read_through() {
        use std::io::Read as _;
        let mut text = String::new();
        RefuseParquet::new(&b"[Event \"x\"]\n\n1. e4 *\n"[..]).read_to_string(&mut text).unwrap();
        assert_eq!(text, "[Event \"x\"]\n\n1. e4 *\n");
        let mut short = Vec::new();
        RefuseParquet::new(&b"PA"[..]).read_to_end(&mut short).unwrap();
        assert_eq!(short, b"PA");
        let err = RefuseParquet::new(&b"PAR1\x15\x04"[..]).read_to_end(&mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("cannot be read from stdin"), "{err}");
    }

    /// Rows read with their tags taken from the columns (`ingest`) give the games their PGN
    /// text gives (`dump`): tag values that PGN escapes (quotes and backslashes, whose
    /// unescaping is not always the escaping's inverse) or writes otherwise (line breaks), tags
    /// too long for the scanner to be sure of, nulls, typed columns, a variant and a FEN, and
    /// movetexts that are empty or null, start with a tag or a `%` line, or hold another game.
    #[test]
    fn tags_from_columns_read_as_the_rows_pgn() {
        use arrow_array::{Date32Array, Int16Array, RecordBatch, StringArray, Time32SecondArray};

        use crate::{
            pgn::{GameVisitor, record::write_game},
            read::chunk::{Chunk, ChunkBytes},
        };
        let texts: Vec<Option<String>> = [
            "plain",
            "a\"b",
            "a\\b",
            "\\\\",
            "\\\"",
            "x\\\\\\\"y",
            "trail\\",
            "line\nbreak\r",
            "",
            " ",
            "Mil\u{e9}s \u{263a}",
            "br]acket",
        ]
        .into_iter()
        .map(|v| Some(v.to_owned()))
        .chain([None])
        .chain([190, 193, 194, 195, 250].map(|n| Some("L".repeat(n))))
        .chain([Some("Q\"".repeat(60)), Some("\\".repeat(97)), Some("\\".repeat(98))])
        .collect();
        let moves = [
            Some("1. e4 e5 2. Nf3 Nc6 1-0"),
            Some(""),
            None,
            Some("[Foo \"bar\"]\n1. e4 *"),
            Some("  \n\n  1. d4 d5 *"),
            Some("%escape\n1. e4 *"),
            Some("   "),
            Some("1. e4 e5 1-0 more"),
            Some("1. e4 *\n\n[Event \"x\"]\n1. d4 *"),
            Some("1. e4 { [%clk 0:01:00] unterminated"),
            Some("1. f3 e5 2. g4 Qh4# 0-1"),
            Some("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2"),
        ];
        let variants = [None, None, Some("Atomic"), Some("Shogi"), Some("Chess960")];
        let fens = [None, None, None, Some("8/8/8/8/8/8/8/K6k w - - 0 1"), Some("bad")];
        let n = 1000;
        // Every 11th row has no tag.
        let text_column = |pick: &dyn Fn(usize) -> Option<String>| -> ArrayRef {
            Arc::new(StringArray::from((0..n).map(|i| if i % 11 == 0 { None } else { pick(i) }).collect::<Vec<_>>()))
        };
        let columns: Vec<(&str, ArrayRef)> = vec![
            ("Event", text_column(&|i| texts[i % texts.len()].clone())),
            ("White", text_column(&|i| texts[i * 5 % texts.len()].clone())),
            ("Result", text_column(&|i| ["1-0", "0-1", "1/2-1/2", "*", "?"][i % 5].to_owned().into())),
            (
                "WhiteElo",
                Arc::new(Int16Array::from(
                    (0..n).map(|i| (i % 11 != 0 && i % 4 != 0).then_some(i as i16 - 500)).collect::<Vec<_>>(),
                )),
            ),
            (
                "WhiteRatingDiff",
                Arc::new(Int16Array::from(
                    (0..n).map(|i| (i % 11 != 0).then_some(i as i16 % 7 - 3)).collect::<Vec<_>>(),
                )),
            ),
            (
                "UTCDate",
                Arc::new(Date32Array::from(
                    (0..n).map(|i| (i % 11 != 0).then_some(15_706 + i as i32)).collect::<Vec<_>>(),
                )),
            ),
            (
                "UTCTime",
                Arc::new(Time32SecondArray::from(
                    (0..n).map(|i| (i % 11 != 0).then_some(i as i32 * 97)).collect::<Vec<_>>(),
                )),
            ),
            ("Variant", text_column(&|i| variants[i % variants.len()].map(str::to_owned))),
            ("FEN", text_column(&|i| fens[i / 3 % fens.len()].map(str::to_owned))),
            (MOVETEXT, Arc::new(StringArray::from((0..n).map(|i| moves[i % moves.len()]).collect::<Vec<_>>()))),
        ];
        let batch = RecordBatch::try_from_iter(columns).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.parquet");
        let props =
            parquet::file::properties::WriterProperties::builder().set_max_row_group_row_count(Some(300)).build();
        let mut writer =
            parquet::arrow::ArrowWriter::try_new(File::create(&path).unwrap(), batch.schema(), Some(props)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();

        let input = ParquetInput::open(&[path]).unwrap();
        let read = |pgn: bool| {
            let (mut out, mut apart) = (Vec::new(), 0);
            let mut visitor = GameVisitor::new();
            for (g, group) in input.groups.iter().enumerate() {
                let mut rendered = Rendered { pgn, ..Rendered::default() };
                let mut reader = input.reader(g, 0..group.rows).unwrap();
                input.render_from(&mut reader, g, 0..group.rows, &mut rendered).unwrap();
                apart += rendered.row_tags.iter().filter(|t| t.is_some()).count();
                let data = ChunkBytes::Owned(std::mem::take(&mut rendered.text));
                let chunk = Chunk { seq: 0, offset: 0, data, games: rendered.starts.clone(), starts_input: false };
                for game in crate::rows::row_games(&mut visitor, &chunk, &rendered) {
                    write_game(&mut out, 0, &game).unwrap();
                    let tags: Vec<_> = game.tags.iter().collect();
                    out.extend_from_slice(format!(" {tags:?} {:?}\n", game.result).as_bytes());
                    visitor.recycle(game);
                }
            }
            (String::from_utf8(out).unwrap(), apart)
        };
        let ((from_pgn, none), (from_columns, apart)) = (read(true), read(false));
        assert_eq!(none, 0);
        assert!(apart > n / 4 && apart < n, "{apart} of {n} rows had their tags kept apart");
        for (a, b) in from_pgn.lines().zip(from_columns.lines()) {
            assert_eq!(a, b);
        }
        assert_eq!(from_pgn.lines().count(), n);
        assert!(from_pgn.contains("the movetext holds 1 more game(s)") && from_pgn.contains("movetext is null"));
    }

    /// The digits written by hand are `format!`'s.
    #[test]
    fn numbers_as_format_writes_them() {
        for n in [0i128, 7, -7, 12, -12, 1500, i16::MIN.into(), i64::MAX.into(), u64::MAX.into(), i128::MIN] {
            let (mut plain, mut signed) = (Vec::new(), Vec::new());
            push_integer(&mut plain, n, false);
            push_integer(&mut signed, n, true);
            assert_eq!(String::from_utf8(plain).unwrap(), format!("{n}"));
            assert_eq!(String::from_utf8(signed).unwrap(), format!("{n:+}"));
        }
        for (n, width) in [(0u64, 2), (5, 2), (59, 2), (2013, 4), (7, 4)] {
            let mut out = Vec::new();
            push_digits(&mut out, n, width);
            assert_eq!(String::from_utf8(out).unwrap(), format!("{n:0width$}"));
        }
    }
}
