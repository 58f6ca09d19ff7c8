//! A table's columns declared once: each column's name and nullability beside the value it takes
//! from a record, so that a column cannot be filled from another column's field (Arrow checks
//! types, not names). [`crate::schema`] declares the tables with these; [`Columns`] fills them.

use std::{borrow::Cow, sync::Arc};

use arrow_array::{
    ArrayRef, BooleanArray, ListArray, PrimitiveArray, StringArray, UInt32Array, new_null_array,
    types::{Date32Type, Float64Type, Int16Type, Int32Type, Int64Type, Time32MillisecondType, UInt64Type},
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field};

/// One column of a table whose rows are `R`s.
pub struct Column<R> {
    pub name: &'static str,
    pub nullable: bool,
    pub value: Value<R>,
}

/// What a column holds, and how a block of a batch's records (`None`: a row of nulls) is added
/// to it: declared with [`value!`] from how the column's value is read from a record.
pub enum Value<R> {
    U32(Fill<R>),
    U64(Fill<R>),
    I32(Fill<R>),
    I64(Fill<R>),
    F64(Fill<R>),
    Bool(Fill<R>),
    Str(Fill<R>),
    /// A list of non-null `u32`s (never null itself).
    U32List(Fill<R>),
}

/// Appends a block of a batch's records (at most [`BLOCK`]) to a column's [`Filling`].
pub type Fill<R> = fn(&mut Filling, &[Option<&R>]);

/// A column's [`Value`] of kind `$kind` (a [`Value`] variant) from `$get`, a closure from a
/// record to the column's value: `Option<u32>` for `U32` (`None` is null), `Option<u64>`,
/// `Option<i32>`, `Option<i64>`, `Option<f64>`, `Option<bool>`, `Option<Cow<str>>` for `Str`,
/// `&[u32]` for `U32List`. A macro, so that each column's loop over the rows is compiled with
/// its accessor inlined rather than called through a pointer per row (−8.5 M instructions on
/// 8 MB of pgnmentor, a quarter of the columns' loops; docs/performance.md). Its paths start at
/// `column`, which the caller imports (`use crate::column`).
macro_rules! value {
    (U32, $get:expr) => {
        column::Value::U32(|filling, rows| column::fill_primitive::<u32, _>(filling, rows, |r| r.and_then($get)))
    };
    (U64, $get:expr) => {
        column::Value::U64(|filling, rows| column::fill_primitive::<u64, _>(filling, rows, |r| r.and_then($get)))
    };
    (I32, $get:expr) => {
        column::Value::I32(|filling, rows| column::fill_primitive::<i32, _>(filling, rows, |r| r.and_then($get)))
    };
    (I64, $get:expr) => {
        column::Value::I64(|filling, rows| column::fill_primitive::<i64, _>(filling, rows, |r| r.and_then($get)))
    };
    (F64, $get:expr) => {
        column::Value::F64(|filling, rows| column::fill_primitive::<f64, _>(filling, rows, |r| r.and_then($get)))
    };
    (Bool, $get:expr) => {
        column::Value::Bool(|filling, rows| column::fill_primitive::<bool, _>(filling, rows, |r| r.and_then($get)))
    };
    (Str, $get:expr) => {
        column::Value::Str(|filling, rows| column::fill_str_column(filling, rows, $get))
    };
    (U32List, $get:expr) => {
        column::Value::U32List(|filling, rows| column::fill_u32_lists(filling, rows, $get))
    };
}
pub(crate) use value;

impl<R> Column<R> {
    /// A column that may hold nulls.
    pub const fn null(name: &'static str, value: Value<R>) -> Column<R> {
        Column { name, nullable: true, value }
    }

    /// A column every row fills.
    pub const fn required(name: &'static str, value: Value<R>) -> Column<R> {
        Column { name, nullable: false, value }
    }

    pub fn field(&self) -> Field {
        Field::new(self.name, self.data_type(), self.nullable)
    }

    fn data_type(&self) -> DataType {
        match self.value {
            Value::U32(_) => DataType::UInt32,
            Value::U64(_) => DataType::UInt64,
            Value::I32(_) => DataType::Int32,
            Value::I64(_) => DataType::Int64,
            Value::F64(_) => DataType::Float64,
            Value::Bool(_) => DataType::Boolean,
            Value::Str(_) => DataType::Utf8,
            Value::U32List(_) => u32_list_type(),
        }
    }

    fn fill(&self) -> Fill<R> {
        match self.value {
            Value::U32(fill)
            | Value::U64(fill)
            | Value::I32(fill)
            | Value::I64(fill)
            | Value::F64(fill)
            | Value::Bool(fill)
            | Value::Str(fill)
            | Value::U32List(fill) => fill,
        }
    }
}

/// `List<UInt32>` with non-null items, as `earlier_plies` is written.
pub fn u32_list_type() -> DataType {
    DataType::List(Arc::new(u32_item()))
}

fn u32_item() -> Field {
    Field::new("item", DataType::UInt32, false)
}

/// Rows are added to the columns a block of this many at a time. Each column is a short loop of
/// its own over a block, rather than a pass through every column per row: the loop's code stays
/// hot (callgrind's simulation of the replay thread: 64% fewer instruction-cache misses, 60% fewer
/// mispredicted indirect calls), and the block's records stay in the first-level data cache
/// from one column's loop to the next, which a pass over the whole batch per column did not keep
/// (1.7 M more data-cache misses on 8 MB of pgnmentor; docs/performance.md). A block's validity
/// is one word.
pub const BLOCK: usize = 64;

/// The columns of `table` being filled, a block of records at a time.
pub struct Columns<'t, R> {
    table: &'t [Column<R>],
    fillings: Vec<Filling>,
}

impl<'t, R> Columns<'t, R> {
    /// Columns with room for `rows` rows.
    pub fn new(table: &'t [Column<R>], rows: usize) -> Self {
        let fillings = table.iter().map(|c| Filling::new(c.data_type(), rows)).collect();
        Columns { table, fillings }
    }

    /// Adds a block of rows (at most [`BLOCK`]; every block but the last exactly that many).
    pub fn append(&mut self, block: &[Option<&R>]) {
        for (column, filling) in self.table.iter().zip(&mut self.fillings) {
            (column.fill())(filling, block);
        }
    }

    pub fn finish(self) -> impl Iterator<Item = ArrayRef> {
        self.fillings.into_iter().map(Filling::finish)
    }
}

/// A column's values so far. Rows before its first value are only counted, so that a column no
/// row of the batch has (a clock where no game has one, most tags) is made of nulls at once.
pub struct Filling {
    data_type: DataType,
    rows: usize,
    /// Room for the batch's rows, reserved with the first value.
    capacity: usize,
    /// Whether the values are stored (from the first block with a value on).
    stored: bool,
    /// Validity, a word per block, once stored.
    valid: Vec<u64>,
    data: Data,
}

pub(crate) enum Data {
    U32(Vec<u32>),
    U64(Vec<u64>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    /// Text: the bytes, and where each row ends (after a first 0).
    Str(Vec<u8>, Vec<i32>),
    /// Lists of `u32`: the items, and where each row's end (after a first 0).
    U32List(Vec<u32>, Vec<i32>),
}

impl Filling {
    /// An empty column of `data_type`, one of those [`Value`] and the tag columns have.
    pub fn new(data_type: DataType, capacity: usize) -> Filling {
        let data = match data_type {
            DataType::UInt32 => Data::U32(Vec::new()),
            DataType::UInt64 => Data::U64(Vec::new()),
            DataType::Int16 => Data::I16(Vec::new()),
            DataType::Int32 | DataType::Date32 | DataType::Time32(_) => Data::I32(Vec::new()),
            DataType::Int64 => Data::I64(Vec::new()),
            DataType::Float64 => Data::F64(Vec::new()),
            DataType::Boolean => Data::Bool(Vec::new()),
            DataType::Utf8 => Data::Str(Vec::new(), vec![0]),
            DataType::List(_) => Data::U32List(Vec::new(), vec![0]),
            ref other => unreachable!("no column of type {other}"),
        };
        Filling { data_type, rows: 0, capacity, stored: false, valid: Vec::new(), data }
    }

    /// Adds a block of `n` rows of nulls.
    pub fn push_nulls(&mut self, n: usize) {
        debug_assert!(n <= BLOCK && self.rows.is_multiple_of(BLOCK), "blocks of {BLOCK} rows");
        if self.stored {
            self.valid.push(0);
            self.pad(self.rows + n);
        }
        self.rows += n;
    }

    /// Stores the nulls counted so far, to store values after them.
    #[cold]
    fn store(&mut self) {
        self.stored = true;
        self.capacity = self.capacity.max(self.rows);
        self.valid = Vec::with_capacity(self.capacity.div_ceil(BLOCK));
        self.valid.resize(self.rows.div_ceil(BLOCK), 0);
        self.pad(self.rows);
    }

    /// The stored values as `len` rows, the rows added null (0, or where the last text ends),
    /// with room for the batch's rows.
    fn pad(&mut self, len: usize) {
        let capacity = self.capacity;
        match &mut self.data {
            Data::U32(v) => pad(v, len, capacity, 0),
            Data::U64(v) => pad(v, len, capacity, 0),
            Data::I16(v) => pad(v, len, capacity, 0),
            Data::I32(v) => pad(v, len, capacity, 0),
            Data::I64(v) => pad(v, len, capacity, 0),
            Data::F64(v) => pad(v, len, capacity, 0.0),
            Data::Bool(v) => pad(v, len, capacity, false),
            Data::Str(bytes, ends) => pad(ends, len + 1, capacity + 1, offset(bytes.len())),
            Data::U32List(items, ends) => pad(ends, len + 1, capacity + 1, offset(items.len())),
        }
    }

    /// The column's array.
    pub fn finish(self) -> ArrayRef {
        if !self.stored {
            return new_null_array(&self.data_type, self.rows);
        }
        let valid: usize = self.valid.iter().map(|w| w.count_ones() as usize).sum();
        let nulls = (valid < self.rows)
            .then(|| NullBuffer::new(BooleanBuffer::new(Buffer::from_vec(self.valid), 0, self.rows)));
        match (self.data, &self.data_type) {
            (Data::U32(v), _) => Arc::new(UInt32Array::new(v.into(), nulls)),
            (Data::U64(v), _) => Arc::new(PrimitiveArray::<UInt64Type>::new(v.into(), nulls)),
            (Data::I16(v), _) => Arc::new(PrimitiveArray::<Int16Type>::new(v.into(), nulls)),
            (Data::I32(v), DataType::Date32) => Arc::new(PrimitiveArray::<Date32Type>::new(v.into(), nulls)),
            (Data::I32(v), DataType::Time32(_)) => {
                Arc::new(PrimitiveArray::<Time32MillisecondType>::new(v.into(), nulls))
            }
            (Data::I32(v), _) => Arc::new(PrimitiveArray::<Int32Type>::new(v.into(), nulls)),
            (Data::I64(v), _) => Arc::new(PrimitiveArray::<Int64Type>::new(v.into(), nulls)),
            (Data::F64(v), _) => Arc::new(PrimitiveArray::<Float64Type>::new(v.into(), nulls)),
            (Data::Bool(v), _) => Arc::new(BooleanArray::new(BooleanBuffer::from(v), nulls)),
            // SAFETY: the ends start at 0 and each is the end of a whole `str` appended to `bytes`
            // after the one before: they only grow, lie on character boundaries, and `bytes` is
            // UTF-8, all that `StringArray::try_new` would check (at a fifth of building the column).
            (Data::Str(bytes, ends), _) => Arc::new(unsafe {
                StringArray::new_unchecked(
                    OffsetBuffer::new_unchecked(ScalarBuffer::from(ends)),
                    Buffer::from_vec(bytes),
                    nulls,
                )
            }),
            (Data::U32List(items, ends), _) => {
                let items = Arc::new(UInt32Array::new(items.into(), None));
                Arc::new(ListArray::new(Arc::new(u32_item()), OffsetBuffer::new(ends.into()), items, nulls))
            }
        }
    }
}

/// `v` grown to `len` with copies of `null`, with room for `capacity`.
fn pad<T: Clone>(v: &mut Vec<T>, len: usize, capacity: usize, null: T) {
    v.reserve(capacity.saturating_sub(v.len()));
    v.resize(len, null);
}

/// A value type of a primitive column, and its vector in [`Data`].
pub(crate) trait Native: Copy + Default {
    fn values(data: &mut Data) -> &mut Vec<Self>;
}

macro_rules! native {
    ($t:ty, $variant:ident) => {
        impl Native for $t {
            #[inline]
            fn values(data: &mut Data) -> &mut Vec<$t> {
                match data {
                    Data::$variant(v) => v,
                    _ => unreachable!(concat!("a column of ", stringify!($t), " filled with another type")),
                }
            }
        }
    };
}
native!(u32, U32);
native!(u64, U64);
native!(i16, I16);
native!(i32, I32);
native!(i64, I64);
native!(f64, F64);
native!(bool, Bool);

/// Adds a block of rows to a primitive (or boolean) column, each row's value from `get` (`None`:
/// null, its value 0).
#[inline]
pub(crate) fn fill_primitive<T: Native, X>(filling: &mut Filling, rows: &[X], get: impl Fn(&X) -> Option<T>) {
    let mut block = [T::default(); BLOCK];
    let mut bits = 0u64;
    for (i, (row, slot)) in rows.iter().zip(&mut block).enumerate() {
        if let Some(v) = get(row) {
            *slot = v;
            bits |= 1 << i;
        }
    }
    let n = rows.len();
    debug_assert!(n <= BLOCK && filling.rows.is_multiple_of(BLOCK), "blocks of {BLOCK} rows");
    if bits != 0 && !filling.stored {
        filling.store();
    }
    if filling.stored {
        T::values(&mut filling.data).extend_from_slice(&block[..n]);
        filling.valid.push(bits.to_le());
    }
    filling.rows += n;
}

/// Adds a block of rows to a text column, each row's text from `get` (`None`: null).
#[inline]
pub(crate) fn fill_strings<X, S: AsRef<str>>(filling: &mut Filling, rows: &[X], get: impl Fn(&X) -> Option<S>) {
    if !filling.stored {
        // Until a first value, a block is looked at before it is stored.
        match rows.iter().position(|r| get(r).is_some()) {
            None => return filling.push_nulls(rows.len()),
            Some(_) => filling.store(),
        }
    }
    let Data::Str(bytes, ends) = &mut filling.data else { unreachable!("a text column") };
    let mut bits = 0u64;
    for (i, row) in rows.iter().enumerate() {
        if let Some(s) = get(row) {
            bytes.extend_from_slice(s.as_ref().as_bytes());
            bits |= 1 << i;
        }
        ends.push(offset(bytes.len()));
    }
    filling.valid.push(bits.to_le());
    filling.rows += rows.len();
}

/// Adds a block of rows to a text column of records ([`value!`]).
#[inline]
pub(crate) fn fill_str_column<R>(filling: &mut Filling, rows: &[Option<&R>], get: impl Fn(&R) -> Option<Cow<'_, str>>) {
    fill_strings(filling, rows, |r| r.and_then(&get));
}

/// Adds a block of rows to a list column, each row's list from `get` (a null row: a null list).
#[inline]
pub(crate) fn fill_u32_lists<R>(filling: &mut Filling, rows: &[Option<&R>], get: impl Fn(&R) -> &[u32]) {
    if !filling.stored {
        if rows.iter().all(Option::is_none) {
            return filling.push_nulls(rows.len());
        }
        filling.store();
    }
    let Data::U32List(items, ends) = &mut filling.data else { unreachable!("a list column") };
    let mut bits = 0u64;
    for (i, row) in rows.iter().enumerate() {
        if let Some(r) = row {
            items.extend_from_slice(get(r));
            bits |= 1 << i;
        }
        ends.push(offset(items.len()));
    }
    filling.valid.push(bits.to_le());
    filling.rows += rows.len();
}

/// A column's `i32` offset at `len` values (Arrow's builders panic past it too).
#[inline]
fn offset(len: usize) -> i32 {
    i32::try_from(len).expect("a column of one batch holds under 2 GiB")
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use arrow_array::{
        Array, BooleanArray, StringArray, UInt32Array,
        builder::{ListBuilder, UInt32Builder},
    };

    use super::*;
    use crate::column;

    struct Row {
        n: Option<u32>,
        text: Option<String>,
        flag: Option<bool>,
        list: Vec<u32>,
    }

    const TABLE: [Column<Row>; 4] = [
        Column::null("n", value!(U32, |r| r.n)),
        Column::null("text", value!(Str, |r| r.text.as_deref().map(Cow::Borrowed))),
        Column::null("flag", value!(Bool, |r| r.flag)),
        Column::null("list", value!(U32List, |r| &r.list)),
    ];

    /// Rows `i` of a batch of `len`, null before `first` and from `last` on, and every 7th.
    fn rows(len: usize, first: usize, last: usize) -> Vec<Option<Row>> {
        (0..len)
            .map(|i| {
                (i >= first && i < last && i % 7 != 0).then(|| Row {
                    n: (i % 3 != 0).then_some(i as u32),
                    text: (i % 5 != 0).then(|| format!("r{i}é")),
                    flag: (i % 4 != 0).then_some(i % 2 == 0),
                    list: (0..(i % 3) as u32).collect(),
                })
            })
            .collect()
    }

    /// The columns filled a block at a time equal Arrow's builders' row by row, across blocks
    /// of nulls before the first value (kept as a count), values, and nulls after them.
    #[test]
    fn blocks_fill_the_arrays_a_builder_fills() {
        for (len, first, last) in [(0, 0, 0), (1, 0, 1), (150, 0, 150), (300, 130, 260), (200, 200, 200), (64, 63, 64)]
        {
            let owned = rows(len, first, last);
            let records: Vec<Option<&Row>> = owned.iter().map(Option::as_ref).collect();
            let mut columns = Columns::new(&TABLE, len);
            for block in records.chunks(BLOCK) {
                columns.append(block);
            }
            let got: Vec<ArrayRef> = columns.finish().collect();

            let n: UInt32Array = records.iter().map(|r| r.and_then(|r| r.n)).collect();
            let text: StringArray = records.iter().map(|r| r.and_then(|r| r.text.as_deref())).collect();
            let flag: BooleanArray = records.iter().map(|r| r.and_then(|r| r.flag)).collect();
            let mut list = ListBuilder::new(UInt32Builder::new()).with_field(Arc::new(u32_item()));
            for r in &records {
                match r {
                    Some(r) => list.append_value(r.list.iter().map(|&v| Some(v))),
                    None => list.append_null(),
                }
            }
            let want: [ArrayRef; 4] = [Arc::new(n), Arc::new(text), Arc::new(flag), Arc::new(list.finish())];
            for ((column, got), want) in TABLE.iter().zip(&got).zip(&want) {
                assert_eq!(got.to_data(), want.to_data(), "{} of {len} rows, values in {first}..{last}", column.name);
                assert_eq!(got.data_type(), &column.data_type());
            }
        }
    }

    /// A block of nulls added at once (a tag no game of the block has) after values and before
    /// more: as Arrow's builder, for each kind of column that tags have.
    #[test]
    fn a_block_of_nulls_between_values() {
        let values = |i: usize| (!i.is_multiple_of(3)).then_some(i as i32);
        let blocks = [Some(0..64), None, Some(128..150)];
        let want: Vec<Option<i32>> = (0..150).map(|i| if (64..128).contains(&i) { None } else { values(i) }).collect();
        for data_type in [DataType::Int32, DataType::Date32, DataType::Utf8] {
            let mut filling = Filling::new(data_type.clone(), 150);
            for block in &blocks {
                match block {
                    Some(rows) if data_type == DataType::Utf8 => {
                        fill_strings(&mut filling, &rows.clone().collect::<Vec<_>>(), |&i| {
                            values(i).map(|v| v.to_string())
                        })
                    }
                    Some(rows) => fill_primitive(&mut filling, &rows.clone().collect::<Vec<_>>(), |&i| values(i)),
                    None => filling.push_nulls(BLOCK),
                }
            }
            let got = filling.finish();
            let want: ArrayRef = match data_type {
                DataType::Utf8 => Arc::new(want.iter().map(|v| v.map(|v| v.to_string())).collect::<StringArray>()),
                DataType::Date32 => Arc::new(want.iter().copied().collect::<PrimitiveArray<Date32Type>>()),
                _ => Arc::new(want.iter().copied().collect::<PrimitiveArray<Int32Type>>()),
            };
            assert_eq!(got.to_data(), want.to_data(), "{data_type}");
        }
    }
}
