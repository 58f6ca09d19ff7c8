//! A table's columns declared once: each column's name and nullability beside the value it takes
//! from a record, so that a column cannot be filled from another column's field (Arrow checks
//! types, not names). [`crate::dataset::schema`] declares the tables with these; [`arrays`] builds them.

use std::{borrow::Cow, sync::Arc};

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, StringArray, UInt32Array, UInt64Array,
    builder::{ListBuilder, UInt32Builder},
};
use arrow_schema::{DataType, Field};

/// One column of a table whose rows are `R`s.
pub struct Column<R> {
    pub name: &'static str,
    pub nullable: bool,
    pub value: Value<R>,
}

/// What a column holds and how it is read from a record (`None` is null).
pub enum Value<R> {
    U32(fn(&R) -> Option<u32>),
    U64(fn(&R) -> Option<u64>),
    I32(fn(&R) -> Option<i32>),
    I64(fn(&R) -> Option<i64>),
    F64(fn(&R) -> Option<f64>),
    Bool(fn(&R) -> Option<bool>),
    Str(fn(&R) -> Option<Cow<'_, str>>),
    /// A list of non-null `u32`s (never null itself).
    U32List(fn(&R) -> &[u32]),
}

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
/// keeps the loop's code and its accessor's call target hot (callgrind's simulation of the
/// replay thread: 64% fewer instruction-cache misses, 60% fewer mispredicted indirect calls;
/// docs/performance.md).
pub fn arrays<'r, R>(table: &'r [Column<R>], rows: &'r [Option<&'r R>]) -> impl Iterator<Item = ArrayRef> + 'r {
    table.iter().map(move |column| -> ArrayRef {
        match column.value {
            Value::U32(get) => Arc::new(rows.iter().map(|r| r.and_then(get)).collect::<UInt32Array>()),
            Value::U64(get) => Arc::new(rows.iter().map(|r| r.and_then(get)).collect::<UInt64Array>()),
            Value::I32(get) => Arc::new(rows.iter().map(|r| r.and_then(get)).collect::<Int32Array>()),
            Value::I64(get) => Arc::new(rows.iter().map(|r| r.and_then(get)).collect::<Int64Array>()),
            Value::F64(get) => Arc::new(rows.iter().map(|r| r.and_then(get)).collect::<Float64Array>()),
            Value::Bool(get) => Arc::new(rows.iter().map(|r| r.and_then(get)).collect::<BooleanArray>()),
            Value::Str(get) => Arc::new(rows.iter().map(|r| r.and_then(get)).collect::<StringArray>()),
            Value::U32List(get) => {
                let mut list = ListBuilder::with_capacity(UInt32Builder::new(), rows.len()).with_field(u32_item());
                for row in rows {
                    match row {
                        Some(r) => {
                            list.values().append_slice(get(r));
                            list.append(true);
                        }
                        None => list.append(false),
                    }
                }
                Arc::new(list.finish())
            }
        }
    })
}
