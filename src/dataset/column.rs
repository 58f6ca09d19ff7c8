//! A table's columns declared once: each column's name and nullability beside the value it takes
//! from a record, so that a column cannot be filled from another column's field (Arrow checks
//! types, not names). [`crate::dataset::schema`] declares the tables with these; [`arrays`] builds them.

use std::{borrow::Cow, sync::Arc};

use arrow_array::{ArrayRef, ArrowPrimitiveType, BooleanArray, ListArray, PrimitiveArray, StringArray, UInt32Array};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field};

/// One column of a table whose rows are `R`s.
pub struct Column<R> {
    pub name: &'static str,
    pub nullable: bool,
    pub value: Value<R>,
}

/// What a column holds, and how its array is built from a batch's records (`None`: a row of
/// nulls): declared with [`value!`] from how the column's value is read from a record.
pub enum Value<R> {
    U32(Build<R>),
    U64(Build<R>),
    I32(Build<R>),
    I64(Build<R>),
    F64(Build<R>),
    Bool(Build<R>),
    Str(Build<R>),
    /// A list of non-null `u32`s (never null itself).
    U32List(Build<R>),
}

/// Builds a column's array from a batch's records.
pub type Build<R> = fn(&[Option<&R>]) -> ArrayRef;

/// A column's [`Value`] of kind `$kind` (a [`Value`] variant) from `$get`, a closure from a
/// record to the column's value: `Option<u32>` for `U32` (`None` is null), `Option<u64>`,
/// `Option<i32>`, `Option<i64>`, `Option<f64>`, `Option<bool>`, `Option<Cow<str>>` for `Str`,
/// `&[u32]` for `U32List`. A macro, so that each column's loop over the rows is compiled with
/// its accessor inlined rather than called through a pointer per row (−8.5 M instructions on
/// 8 MB of pgnmentor, a quarter of the columns' loops; docs/performance.md). Its paths start at
/// `column`, which the caller imports (`use crate::dataset::column`).
macro_rules! value {
    (U32, $get:expr) => {
        column::Value::U32(|rows| column::primitive_column::<arrow_array::types::UInt32Type, _>(rows, $get))
    };
    (U64, $get:expr) => {
        column::Value::U64(|rows| column::primitive_column::<arrow_array::types::UInt64Type, _>(rows, $get))
    };
    (I32, $get:expr) => {
        column::Value::I32(|rows| column::primitive_column::<arrow_array::types::Int32Type, _>(rows, $get))
    };
    (I64, $get:expr) => {
        column::Value::I64(|rows| column::primitive_column::<arrow_array::types::Int64Type, _>(rows, $get))
    };
    (F64, $get:expr) => {
        column::Value::F64(|rows| column::primitive_column::<arrow_array::types::Float64Type, _>(rows, $get))
    };
    (Bool, $get:expr) => {
        column::Value::Bool(|rows| column::bool_column(rows, $get))
    };
    (Str, $get:expr) => {
        column::Value::Str(|rows| column::str_column(rows, $get))
    };
    (U32List, $get:expr) => {
        column::Value::U32List(|rows| column::u32_list_column(rows, $get))
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
        let data_type = match self.value {
            Value::U32(_) => DataType::UInt32,
            Value::U64(_) => DataType::UInt64,
            Value::I32(_) => DataType::Int32,
            Value::I64(_) => DataType::Int64,
            Value::F64(_) => DataType::Float64,
            Value::Bool(_) => DataType::Boolean,
            Value::Str(_) => DataType::Utf8,
            Value::U32List(_) => u32_list_type(),
        };
        Field::new(self.name, data_type, self.nullable)
    }
}

/// `List<UInt32>` with non-null items, as `earlier_plies` is written.
pub fn u32_list_type() -> DataType {
    DataType::List(Arc::new(u32_item()))
}

fn u32_item() -> Field {
    Field::new("item", DataType::UInt32, false)
}

/// Each column of `table` over `rows` (`None`: a row of nulls), built column by column: a short
/// loop per column over the batch, rather than a pass through every column's builder per row,
/// keeps the loop's code hot (callgrind's simulation of the replay thread: 64% fewer
/// instruction-cache misses, 60% fewer mispredicted indirect calls; docs/performance.md). Each
/// loop fills vectors sized beforehand, 64 rows' validity bits at a time ([`fill`]), not
/// Arrow's builders, which check capacity and grow their null bitmap value by value (the arrays
/// are the same).
pub fn arrays<'r, R>(table: &'r [Column<R>], rows: &'r [Option<&'r R>]) -> impl Iterator<Item = ArrayRef> + 'r {
    table.iter().map(move |column| match column.value {
        Value::U32(build)
        | Value::U64(build)
        | Value::I32(build)
        | Value::I64(build)
        | Value::F64(build)
        | Value::Bool(build)
        | Value::Str(build)
        | Value::U32List(build) => build(rows),
    })
}

/// A primitive column of `rows` ([`value!`]).
#[inline]
pub fn primitive_column<T: ArrowPrimitiveType, R>(
    rows: &[Option<&R>],
    get: impl Fn(&R) -> Option<T::Native>,
) -> ArrayRef {
    Arc::new(primitive::<T, _>(rows, |r| r.and_then(&get)))
}

/// A boolean column of `rows` ([`value!`]).
#[inline]
pub fn bool_column<R>(rows: &[Option<&R>], get: impl Fn(&R) -> Option<bool>) -> ArrayRef {
    let mut values = vec![false; rows.len()];
    let nulls = fill(rows, &mut values, |r, value| r.and_then(&get).map(|v| *value = v).is_some());
    Arc::new(BooleanArray::new(BooleanBuffer::from(values), nulls))
}

/// A text column of `rows` ([`value!`]).
#[inline]
pub fn str_column<R>(rows: &[Option<&R>], get: impl Fn(&R) -> Option<Cow<'_, str>>) -> ArrayRef {
    Arc::new(strings(rows, |r| r.and_then(&get)))
}

/// A list column of `rows` ([`value!`]): a null row is a null list.
#[inline]
pub fn u32_list_column<R>(rows: &[Option<&R>], get: impl Fn(&R) -> &[u32]) -> ArrayRef {
    let mut values: Vec<u32> = Vec::new();
    let mut offsets = vec![0; rows.len() + 1];
    let nulls = fill(rows, &mut offsets[1..], |row, end| {
        if let Some(r) = row {
            values.extend_from_slice(get(r));
        }
        *end = offset(values.len());
        row.is_some()
    });
    let values = Arc::new(UInt32Array::new(values.into(), None));
    Arc::new(ListArray::new(Arc::new(u32_item()), OffsetBuffer::new(offsets.into()), values, nulls))
}

/// A column's `i32` offset at `len` values (Arrow's builders panic past it too).
#[inline]
fn offset(len: usize) -> i32 {
    i32::try_from(len).expect("a column of one batch holds under 2 GiB")
}

/// Fills each row's slot of `slots` (as many as `rows`) with `set`, which says whether the row
/// is valid, and returns the validity: none when every row is (as Arrow's builders give), else
/// 64 rows' bits to a word.
#[inline]
fn fill<X, T>(rows: &[X], slots: &mut [T], mut set: impl FnMut(&X, &mut T) -> bool) -> Option<NullBuffer> {
    let n = rows.len();
    let mut words = vec![0u64; n.div_ceil(64)];
    for ((rows, slots), word) in rows.chunks(64).zip(slots.chunks_mut(64)).zip(&mut words) {
        let mut bits = 0u64;
        for (i, (row, slot)) in rows.iter().zip(slots).enumerate() {
            bits |= u64::from(set(row, slot)) << i;
        }
        *word = bits.to_le();
    }
    let valid: usize = words.iter().map(|w| w.count_ones() as usize).sum();
    (valid < n).then(|| NullBuffer::new(BooleanBuffer::new(Buffer::from_vec(words), 0, n)))
}

/// A primitive column, a row from each of `rows` (`None`: null, its value 0).
#[inline]
pub fn primitive<T: ArrowPrimitiveType, X>(rows: &[X], get: impl Fn(&X) -> Option<T::Native>) -> PrimitiveArray<T> {
    let mut values = vec![T::Native::default(); rows.len()];
    let nulls = fill(rows, &mut values, |row, value| get(row).map(|v| *value = v).is_some());
    PrimitiveArray::new(ScalarBuffer::from(values), nulls)
}

/// A text column, a row from each of `rows` (`None`: null).
#[inline]
pub fn strings<X, S: AsRef<str>>(rows: &[X], get: impl Fn(&X) -> Option<S>) -> StringArray {
    let mut bytes: Vec<u8> = Vec::new();
    let mut offsets = vec![0; rows.len() + 1];
    // Each row's slot is where it ends (a null ends where the row before it does).
    let nulls = fill(rows, &mut offsets[1..], |row, end| {
        let v = get(row);
        if let Some(s) = &v {
            bytes.extend_from_slice(s.as_ref().as_bytes());
        }
        *end = offset(bytes.len());
        v.is_some()
    });
    // SAFETY: the offsets start at 0 and each is the end of a whole `str` appended to `bytes`
    // after the one before: they only grow, lie on character boundaries, and `bytes` is UTF-8,
    // all that `StringArray::try_new` would check (at a fifth of building the column).
    unsafe {
        StringArray::new_unchecked(
            OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)),
            Buffer::from_vec(bytes),
            nulls,
        )
    }
}
