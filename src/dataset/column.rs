//! A table's columns declared once: each column's name and nullability beside the value it takes
//! from a record, so that a column cannot be filled from another column's field (Arrow checks
//! types, not names). [`crate::dataset::schema`] declares the tables with these; [`Columns`] builds them.

use std::{borrow::Cow, sync::Arc};

use arrow_array::{
    ArrayRef,
    builder::{
        BooleanBuilder, Float64Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder, UInt32Builder,
        UInt64Builder,
    },
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

/// A column's builder with the accessor that fills it.
enum Builder<R> {
    U32(UInt32Builder, fn(&R) -> Option<u32>),
    U64(UInt64Builder, fn(&R) -> Option<u64>),
    I32(Int32Builder, fn(&R) -> Option<i32>),
    I64(Int64Builder, fn(&R) -> Option<i64>),
    F64(Float64Builder, fn(&R) -> Option<f64>),
    Bool(BooleanBuilder, fn(&R) -> Option<bool>),
    Str(StringBuilder, fn(&R) -> Option<Cow<'_, str>>),
    U32List(ListBuilder<UInt32Builder>, fn(&R) -> &[u32]),
}

/// Builders for the columns of a table, appended one record (or one row of nulls) at a time.
pub struct Columns<R> {
    builders: Vec<Builder<R>>,
}

impl<R> Columns<R> {
    pub fn new(table: &[Column<R>]) -> Columns<R> {
        let builders = table
            .iter()
            .map(|c| match c.value {
                Value::U32(get) => Builder::U32(UInt32Builder::new(), get),
                Value::U64(get) => Builder::U64(UInt64Builder::new(), get),
                Value::I32(get) => Builder::I32(Int32Builder::new(), get),
                Value::I64(get) => Builder::I64(Int64Builder::new(), get),
                Value::F64(get) => Builder::F64(Float64Builder::new(), get),
                Value::Bool(get) => Builder::Bool(BooleanBuilder::new(), get),
                Value::Str(get) => Builder::Str(StringBuilder::new(), get),
                Value::U32List(get) => {
                    Builder::U32List(ListBuilder::new(UInt32Builder::new()).with_field(u32_item()), get)
                }
            })
            .collect();
        Columns { builders }
    }

    /// Appends `record`'s value to every column, or a null to every column when it is `None`.
    pub fn append(&mut self, record: Option<&R>) {
        for builder in &mut self.builders {
            match builder {
                Builder::U32(b, get) => b.append_option(record.and_then(*get)),
                Builder::U64(b, get) => b.append_option(record.and_then(*get)),
                Builder::I32(b, get) => b.append_option(record.and_then(*get)),
                Builder::I64(b, get) => b.append_option(record.and_then(*get)),
                Builder::F64(b, get) => b.append_option(record.and_then(*get)),
                Builder::Bool(b, get) => b.append_option(record.and_then(*get)),
                Builder::Str(b, get) => b.append_option(record.and_then(*get)),
                Builder::U32List(b, get) => match record {
                    Some(r) => {
                        b.values().append_slice(get(r));
                        b.append(true);
                    }
                    None => b.append(false),
                },
            }
        }
    }

    /// The columns appended since the last call, in table order.
    pub fn finish(&mut self) -> impl Iterator<Item = ArrayRef> + '_ {
        self.builders.iter_mut().map(|b| -> ArrayRef {
            match b {
                Builder::U32(b, _) => Arc::new(b.finish()),
                Builder::U64(b, _) => Arc::new(b.finish()),
                Builder::I32(b, _) => Arc::new(b.finish()),
                Builder::I64(b, _) => Arc::new(b.finish()),
                Builder::F64(b, _) => Arc::new(b.finish()),
                Builder::Bool(b, _) => Arc::new(b.finish()),
                Builder::Str(b, _) => Arc::new(b.finish()),
                Builder::U32List(b, _) => Arc::new(b.finish()),
            }
        })
    }
}
