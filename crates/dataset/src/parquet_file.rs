//! A Parquet file writer that encodes and compresses the columns of a row group in parallel.
//!
//! `ArrowWriter` encodes every column on the calling thread; in `ingest` that is the one writer
//! thread, which would then cap a many-core machine at the speed of a single encoder. This
//! writer lays the file out as `ArrowWriter` does (it starts from one, so the properties and the
//! embedded Arrow schema are the same, and row groups hold exactly `row_group_rows` rows) but
//! hands each column of each batch to a thread pool, using arrow-rs's own low-level column API.
//! Without a pool it encodes the columns one after another on the calling thread.

use std::{fs::File, mem, sync::Arc};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::{
    arrow::{
        ArrowWriter,
        arrow_writer::{ArrowColumnChunk, ArrowColumnWriter, ArrowRowGroupWriterFactory, compute_leaves},
    },
    errors::Result,
    file::{properties::WriterProperties, writer::SerializedFileWriter},
};
use rayon::prelude::*;

pub(crate) struct ParallelWriter {
    file: SerializedFileWriter<File>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// Column writers of the open row group; empty when none is open.
    columns: Vec<ArrowColumnWriter>,
    group_rows: usize,
    row_group_rows: usize,
    row_groups: usize,
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl ParallelWriter {
    /// A writer of `schema` to `file` with `props`, encoding on `pool` (or on the caller's thread).
    pub(crate) fn try_new(
        file: File,
        schema: SchemaRef,
        props: WriterProperties,
        pool: Option<Arc<rayon::ThreadPool>>,
    ) -> Result<Self> {
        let row_group_rows = props.max_row_group_row_count().unwrap_or(usize::MAX).max(1);
        let (file, factory) = ArrowWriter::try_new(file, schema.clone(), Some(props))?.into_serialized_writer()?;
        Ok(ParallelWriter {
            file,
            factory,
            schema,
            columns: Vec::new(),
            group_rows: 0,
            row_group_rows,
            row_groups: 0,
            pool,
        })
    }

    /// Appends `batch`, closing row groups as they fill.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut offset = 0;
        while offset < batch.num_rows() {
            let n = (self.row_group_rows - self.group_rows).min(batch.num_rows() - offset);
            self.write_to_group(&batch.slice(offset, n))?;
            offset += n;
            if self.group_rows == self.row_group_rows {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn write_to_group(&mut self, batch: &RecordBatch) -> Result<()> {
        if self.columns.is_empty() {
            self.columns = self.factory.create_column_writers(self.row_groups)?;
        }
        let mut leaves = Vec::with_capacity(self.columns.len());
        for (field, column) in self.schema.fields().iter().zip(batch.columns()) {
            leaves.extend(compute_leaves(field, column)?);
        }
        let columns = &mut self.columns;
        match &self.pool {
            Some(pool) => {
                pool.install(|| columns.par_iter_mut().zip(leaves.par_iter()).try_for_each(|(c, leaf)| c.write(leaf)))?
            }
            None => columns.iter_mut().zip(&leaves).try_for_each(|(c, leaf)| c.write(leaf))?,
        }
        self.group_rows += batch.num_rows();
        Ok(())
    }

    /// Finishes the open row group, if any, and appends it to the file in column order.
    fn flush(&mut self) -> Result<()> {
        if self.group_rows == 0 {
            return Ok(());
        }
        let columns = mem::take(&mut self.columns);
        let chunks: Vec<ArrowColumnChunk> = match &self.pool {
            Some(pool) => {
                pool.install(|| columns.into_par_iter().map(ArrowColumnWriter::close).collect::<Result<_>>())?
            }
            None => columns.into_iter().map(ArrowColumnWriter::close).collect::<Result<_>>()?,
        };
        let mut group = self.file.next_row_group()?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut group)?;
        }
        group.close()?;
        self.row_groups += 1;
        self.group_rows = 0;
        Ok(())
    }

    /// Writes the last row group and the footer.
    pub(crate) fn close(mut self) -> Result<()> {
        self.flush()?;
        self.file.close()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use parquet::{
        arrow::{ArrowWriter, arrow_reader::ParquetRecordBatchReaderBuilder},
        file::properties::WriterProperties,
    };

    use super::ParallelWriter;

    /// Row groups of exactly 7 rows from batches of 5: the same file contents and layout as
    /// `ArrowWriter` gives, with a pool of encoders and without.
    #[test]
    fn writes_what_arrow_writer_writes() {
        writes_what_arrow_writer_writes_with(Some(Arc::new(
            rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap(),
        )));
        writes_what_arrow_writer_writes_with(None);
    }

    fn writes_what_arrow_writer_writes_with(pool: Option<Arc<rayon::ThreadPool>>) {
        let schema =
            Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false), Field::new("s", DataType::Utf8, true)]));
        let batches: Vec<RecordBatch> = (0..6)
            .map(|b| {
                let n: ArrayRef = Arc::new(Int64Array::from_iter_values((0..5).map(|i| b * 5 + i)));
                let s: ArrayRef =
                    Arc::new(StringArray::from_iter((0..5).map(|i| (i % 2 == 0).then(|| format!("v{b}{i}")))));
                RecordBatch::try_new(schema.clone(), vec![n, s]).unwrap()
            })
            .collect();
        let props = || WriterProperties::builder().set_max_row_group_row_count(Some(7)).build();
        let dir = tempfile::tempdir().unwrap();
        let (ours, theirs) = (dir.path().join("ours.parquet"), dir.path().join("theirs.parquet"));
        let mut writer =
            ParallelWriter::try_new(std::fs::File::create(&ours).unwrap(), schema.clone(), props(), pool).unwrap();
        let mut reference =
            ArrowWriter::try_new(std::fs::File::create(&theirs).unwrap(), schema.clone(), Some(props())).unwrap();
        for batch in &batches {
            writer.write(batch).unwrap();
            reference.write(batch).unwrap();
        }
        writer.close().unwrap();
        reference.close().unwrap();

        let read = |path: &std::path::Path| {
            let builder = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap()).unwrap();
            let groups: Vec<i64> = builder.metadata().row_groups().iter().map(|g| g.num_rows()).collect();
            let kv = builder.metadata().file_metadata().key_value_metadata().cloned();
            let rows: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
            (groups, kv, rows)
        };
        let (ours, theirs) = (read(&ours), read(&theirs));
        assert_eq!(ours.0, vec![7, 7, 7, 7, 2]);
        assert_eq!(ours, theirs);
    }
}
