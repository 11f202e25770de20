//! Turning one source record into a row of its table: the payload decoded by
//! the format (only the columns the job reads), metadata columns from the
//! record, computed columns in declaration order, and the event time from
//! the rowtime column. Shared by the replay executor and the live runtime, so
//! that both read records exactly alike.

use lowwater_core::{Row, Timestamp, Value};
use lowwater_sql::plan::{ColumnSource, JobPlan, MetadataKey, TableDef};

use lowwater_sql::formats::ValueFormat;

use crate::avro::AvroReader;
use crate::csv::{CsvDecoder, CsvRead};
use crate::json::JsonDecoder;
use crate::payload::{Borrowed, PayloadRef};

/// One input record, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct RecordRef<'a> {
    /// Topic (the table name for non-Kafka sources).
    pub topic: &'a str,
    /// Partition.
    pub partition: i32,
    /// Offset, if known.
    pub offset: Option<i64>,
    /// The connector's record timestamp (Kafka's; arrival time in a dump).
    pub ts: Timestamp,
    /// Value (`None`: tombstone).
    pub payload: Option<PayloadRef<'a>>,
    /// Key (`None`: no key), read with `key.format` when the table takes
    /// columns from it (`key.fields` with `value.fields-include` =
    /// 'EXCEPT_KEY').
    pub key: Option<&'a [u8]>,
}

/// Why a record could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    /// What is wrong.
    pub message: String,
    /// Whether the record failed to decode (so that the format's
    /// ignore-parse-errors option, `json.` or `csv.`, would have skipped it).
    pub decode: bool,
}

impl RecordError {
    /// A decoding failure.
    pub fn decode(message: impl Into<String>) -> Self {
        RecordError {
            message: message.into(),
            decode: true,
        }
    }

    /// Any other failure (an expression, a window assignment).
    pub fn other(message: impl Into<String>) -> Self {
        RecordError {
            message: message.into(),
            decode: false,
        }
    }
}

/// What became of one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Built {
    /// A row with this event time.
    Row(Timestamp),
    /// A tombstone of an upsert table, with its event time if it has one
    /// (a rowtime from metadata; one read from the value is NULL): the row
    /// holds the key's columns, read from the record key, and the metadata
    /// and computed columns; the rest are NULL. Without a time it moves no
    /// watermark; it comes only from a table whose changelog is normalized
    /// (the deletion takes the time of the version it deletes).
    Delete(Option<Timestamp>),
    /// Skipped and to be counted: a tombstone, an empty JSON payload (Flink's
    /// json format skips them too), a CSV comment line, or, with the
    /// format's ignore-parse-errors option, a value that does not decode or
    /// a row without event time.
    Skipped,
}

/// Builds rows of one source table.
#[derive(Debug, Clone)]
pub struct RowBuilder {
    index: usize,
    table: TableDef,
    decoder: JsonDecoder,
    /// The value's decoder, for formats other than `json`.
    value: ValueDecoder,
    /// Undecodable records are skipped (and counted).
    ignore: bool,
    /// The key's decoder and the key columns, when the value leaves them
    /// out (`value.fields-include` = 'EXCEPT_KEY') or the table is an
    /// upsert table (whose tombstones have their key only).
    key: Option<(JsonDecoder, Vec<usize>, Row)>,
    /// The value holds no key column (EXCEPT_KEY): they come from the key.
    except_key: bool,
    /// An `upsert-kafka` table: a tombstone is a deletion of its key.
    upsert: bool,
    /// Its changelog is normalized before a join (a tombstone without a
    /// time still deletes a version).
    normalized: bool,
    /// The needed columns that are not physical (metadata and computed
    /// ones), in column order: what [`RowBuilder::complete`] fills.
    derived: Vec<usize>,
    time_col: usize,
}

/// How a record value is read (`json` by the builder's JSON decoder).
#[derive(Debug, Clone)]
enum ValueDecoder {
    Json,
    /// `raw`: the one physical column the value fills.
    Raw(usize),
    Csv(Box<CsvDecoder>),
    Avro(Box<AvroReader>),
}

/// A record's bytes as text, or a decode error naming which part is not
/// UTF-8 (nothing is replaced).
fn text<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str, RecordError> {
    std::str::from_utf8(bytes)
        .map_err(|e| RecordError::decode(format!("the {what} is not valid UTF-8 ({e})")))
}

impl RowBuilder {
    /// A builder for table `t` of `plan`, decoding only the columns the job
    /// reads. An Avro registry that cannot be set up (an unreadable CA
    /// file) or an `avro-confluent.schema` that does not parse is an error.
    pub fn new(plan: &JobPlan, t: usize) -> Result<Self, String> {
        let table = plan.tables[t].clone();
        let needed = plan.needed_columns(t);
        let upsert = table.upsert();
        let except_key = table.key.as_ref().is_some_and(|k| k.except_key);
        let key = table
            .key
            .as_ref()
            .filter(|k| k.except_key || upsert)
            .map(|k| {
                let fields = k
                    .fields
                    .iter()
                    .filter(|&&c| needed.get(c).copied().unwrap_or(true))
                    .map(|&c| {
                        let col = &table.columns[c];
                        let name = col.name.strip_prefix(&k.prefix).unwrap_or(&col.name);
                        (name.to_string(), c, col.ty)
                    })
                    .collect();
                (
                    JsonDecoder::with_fields(&table, fields),
                    k.fields.clone(),
                    Row::new(),
                )
            });
        // The value holds every physical column but the key's when the key
        // holds them (EXCEPT_KEY); with 'ALL' it holds them too, and wins,
        // as in Flink (the value's fields are set after the key's).
        let mut from_value = needed.clone();
        if let Some((_, cols, _)) = key.as_ref().filter(|_| except_key) {
            for &c in cols {
                from_value[c] = false;
            }
        }
        let value_cols = table.value_columns();
        let (value, ignore) = match &table.value_format {
            ValueFormat::Json => (
                ValueDecoder::Json,
                table.format.is_some_and(|f| f.ignore_parse_errors),
            ),
            ValueFormat::Raw => (
                ValueDecoder::Raw(value_cols.first().copied().unwrap_or(0)),
                table.format.is_some_and(|f| f.ignore_parse_errors),
            ),
            ValueFormat::Csv(f) => {
                let cols = value_cols
                    .iter()
                    .map(|&c| {
                        let col = &table.columns[c];
                        (c, col.name.clone(), col.ty, from_value[c])
                    })
                    .collect();
                (
                    ValueDecoder::Csv(Box::new(CsvDecoder::new(f, cols, table.columns.len()))),
                    f.ignore_parse_errors,
                )
            }
            f @ (ValueFormat::Avro | ValueFormat::AvroConfluent(_)) => {
                let all = table.fields(&value_cols);
                let cols = value_cols
                    .iter()
                    .filter(|&&c| from_value[c])
                    .map(|&c| (table.columns[c].name.clone(), c, table.columns[c].ty))
                    .collect();
                let reader = AvroReader::new(f, cols, &all, table.columns.len())
                    .map_err(|e| format!("table '{}': {e}", table.name))?;
                (ValueDecoder::Avro(Box::new(reader)), false)
            }
        };
        Ok(RowBuilder {
            index: t,
            value,
            ignore,
            key,
            except_key,
            upsert,
            normalized: plan.joins.iter().any(|j| j.build == t && j.normalize),
            decoder: JsonDecoder::projected(&table, &from_value),
            time_col: table.watermark.map_or(0, |w| w.column),
            derived: (0..table.columns.len())
                .filter(|&i| {
                    needed.get(i).copied().unwrap_or(true)
                        && !matches!(table.columns[i].source, ColumnSource::Physical)
                })
                .collect(),
            table,
        })
    }

    /// Builds `row` from `rec`. With ignore-parse-errors (json, csv) a field that
    /// does not convert is NULL (as in Flink); their number is added to
    /// `nulled`.
    pub fn build(
        &mut self,
        rec: RecordRef<'_>,
        row: &mut Row,
        nulled: &mut u64,
    ) -> Result<Built, RecordError> {
        let ignore = self.ignore;
        if self.upsert && rec.payload.is_none() {
            return self.tombstone(rec, row, nulled);
        }
        match &mut self.value {
            ValueDecoder::Raw(col) => {
                // 'raw': the value as is (a tombstone is NULL, as in Flink).
                let col = *col;
                row.clear();
                row.resize(self.table.columns.len(), Value::Null);
                let bytes = rec.payload.map(PayloadRef::bytes);
                row[col] = match bytes.as_deref().map(|p| text(p, "value")).transpose() {
                    Ok(p) => p.map_or(Value::Null, |p| self.decoder.intern(p)),
                    Err(_) if ignore => return Ok(Built::Skipped),
                    Err(e) => return Err(e),
                };
                if self.except_key && !self.read_key(rec, row, nulled)? {
                    return Ok(Built::Skipped);
                }
                self.complete(rec, row)?;
                return self.event_time(row, ignore);
            }
            ValueDecoder::Json => {
                let decoded = match rec.payload.map(PayloadRef::form) {
                    // A dump's payload as written in its line: read as it
                    // stands (its text is UTF-8, its line was).
                    Some(Borrowed::Quoted(q)) if !q.trim().is_empty() => {
                        self.decoder.decode_quoted(q, row)
                    }
                    Some(Borrowed::Bytes(p)) => match text(p, "value") {
                        Ok(p) if !p.trim().is_empty() => self.decoder.decode(p, row),
                        Err(_) if ignore => return Ok(Built::Skipped),
                        Err(e) => return Err(e),
                        Ok(_) => return Ok(Built::Skipped),
                    },
                    _ => return Ok(Built::Skipped),
                };
                match decoded {
                    Ok(n) => *nulled += n as u64,
                    Err(_) if ignore => return Ok(Built::Skipped),
                    Err(e) => return Err(RecordError::decode(e.0)),
                }
            }
            ValueDecoder::Csv(d) => {
                // A tombstone gives no row (Flink's csv format returns none).
                let Some(p) = rec.payload.map(PayloadRef::bytes) else {
                    return Ok(Built::Skipped);
                };
                match d.decode(&p, row) {
                    Ok(CsvRead::Row(n)) => *nulled += n as u64,
                    Ok(CsvRead::Skipped) => return Ok(Built::Skipped),
                    Err(e) => return Err(RecordError::decode(format!("CSV record: {e}"))),
                }
            }
            ValueDecoder::Avro(r) => {
                // A tombstone gives no row, as in Flink's Avro formats.
                let Some(p) = rec.payload.map(PayloadRef::bytes) else {
                    return Ok(Built::Skipped);
                };
                // Flink's Avro formats have no option to skip such records.
                r.read(&p, row).map_err(RecordError::other)?;
            }
        }
        if self.except_key && !self.read_key(rec, row, nulled)? {
            return Ok(Built::Skipped);
        }
        self.complete(rec, row)?;
        self.event_time(row, ignore)
    }

    /// A tombstone of an upsert table: its key's columns from the record
    /// key, its metadata and computed columns, NULL elsewhere; a deletion
    /// (with its event time, if it has one), or skipped (counted) when it
    /// has no key, or no time and no normalization (Flink's join then reads
    /// a NULL time, and the deletion changes nothing).
    #[cold]
    fn tombstone(
        &mut self,
        rec: RecordRef<'_>,
        row: &mut Row,
        nulled: &mut u64,
    ) -> Result<Built, RecordError> {
        row.clear();
        row.resize(self.table.columns.len(), Value::Null);
        if !self.read_key(rec, row, nulled)? {
            return Ok(Built::Skipped);
        }
        self.complete(rec, row)?;
        match row.get(self.time_col) {
            Some(Value::Timestamp(t)) => Ok(Built::Delete(Some(*t))),
            _ if self.normalized => Ok(Built::Delete(None)),
            _ => Ok(Built::Skipped),
        }
    }

    /// Reads the record key into the key columns of `row`; `false` when
    /// the record is to be skipped (no key, or an undecodable one with
    /// ignore-parse-errors).
    fn read_key(
        &mut self,
        rec: RecordRef<'_>,
        row: &mut Row,
        nulled: &mut u64,
    ) -> Result<bool, RecordError> {
        let ignore = self.ignore;
        if let Some((decoder, cols, scratch)) = &mut self.key {
            let key = match rec.key.map(|k| text(k, "key")).transpose() {
                Ok(k) => k,
                Err(_) if ignore => return Ok(false),
                Err(e) => return Err(e),
            };
            match key.filter(|k| !k.trim().is_empty()) {
                Some(k) => match decoder.decode(k, scratch) {
                    Ok(n) => *nulled += n as u64,
                    Err(_) if ignore => return Ok(false),
                    Err(e) => return Err(RecordError::decode(format!("the key: {}", e.0))),
                },
                // No key: Flink's Kafka source emits no row for it (its key
                // format yields none); here it is skipped and counted.
                None => return Ok(false),
            }
            for &c in cols.iter() {
                row[c] = scratch.get(c).cloned().unwrap_or(Value::Null);
            }
        }
        Ok(true)
    }

    /// Fills metadata and computed columns of a row whose physical columns
    /// are set (by the decoder, or by a generator).
    #[inline]
    pub fn complete(&self, rec: RecordRef<'_>, row: &mut Row) -> Result<(), RecordError> {
        if row.len() != self.table.columns.len() {
            row.resize(self.table.columns.len(), Value::Null);
        }
        if self.derived.is_empty() {
            return Ok(());
        }
        self.derive(rec, row)
    }

    /// The metadata and computed columns of [`RowBuilder::complete`].
    fn derive(&self, rec: RecordRef<'_>, row: &mut Row) -> Result<(), RecordError> {
        for &i in &self.derived {
            let c = &self.table.columns[i];
            match &c.source {
                ColumnSource::Physical => {}
                ColumnSource::Metadata(k) => {
                    row[i] = match k {
                        MetadataKey::Timestamp => Value::Timestamp(rec.ts),
                        MetadataKey::Partition => Value::Int(i64::from(rec.partition)),
                        MetadataKey::Offset => rec.offset.map_or(Value::Null, Value::Int),
                        MetadataKey::Topic => Value::str(rec.topic),
                    }
                }
                ColumnSource::Computed(e) => {
                    row[i] = e.eval(row).map_err(|m| {
                        RecordError::other(format!("computed column '{}': {m}", c.name))
                    })?
                }
            }
        }
        Ok(())
    }

    /// The row's event time (`Skipped` if NULL and errors are ignored).
    pub fn event_time(&self, row: &Row, ignore: bool) -> Result<Built, RecordError> {
        match row.get(self.time_col) {
            Some(Value::Timestamp(t)) => Ok(Built::Row(*t)),
            _ if ignore => Ok(Built::Skipped),
            _ => Err(RecordError::decode(format!(
                "the event-time column '{}' is NULL or missing",
                self.table.columns[self.time_col].name
            ))),
        }
    }

    /// Whether rows take columns from the record key (only then is the key
    /// read: a job that does not use it never fails on a binary key).
    pub fn reads_key(&self) -> bool {
        self.key.is_some()
    }

    /// Whether undecodable records are skipped (and counted).
    pub fn ignores_errors(&self) -> bool {
        self.ignore
    }

    /// The table's index in the plan.
    pub fn table_index(&self) -> usize {
        self.index
    }

    /// The table.
    pub fn table(&self) -> &TableDef {
        &self.table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builder(columns: &str, with: &str) -> RowBuilder {
        let sql = format!(
            "CREATE TABLE orders (id INT, k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) \
             WITH ('connector' = 'filesystem', 'path' = 'o', 'format' = 'json');
             CREATE TABLE rates ({columns}, WATERMARK FOR t AS t, PRIMARY KEY (k) NOT ENFORCED) \
             WITH ('connector' = 'upsert-kafka', 'topic' = 'rates', \
             'properties.bootstrap.servers' = 'b:9092', 'key.format' = 'json', \
             'value.format' = 'json'{with});
             CREATE TABLE out (id INT, rate INT) WITH ('connector' = 'print');
             INSERT INTO out SELECT o.id, r.rate FROM orders AS o \
             JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k;"
        );
        let plan = JobPlan::from_sql(&sql).expect("plans");
        RowBuilder::new(&plan, 1).expect("a builder")
    }

    fn rec<'a>(key: Option<&'a str>, value: Option<&'a str>) -> RecordRef<'a> {
        RecordRef {
            topic: "rates",
            partition: 0,
            offset: Some(7),
            ts: 5_000,
            payload: value.map(|v| PayloadRef::from(v.as_bytes())),
            key: key.map(str::as_bytes),
        }
    }

    #[test]
    fn a_tombstone_is_a_deletion_of_its_key_at_its_metadata_time() {
        let mut b = builder(
            "k STRING, rate INT, t TIMESTAMP(3) METADATA FROM 'timestamp'",
            "",
        );
        let (mut row, mut nulled) = (Row::new(), 0);
        let built = b.build(rec(Some(r#"{"k":"EUR"}"#), None), &mut row, &mut nulled);
        assert_eq!(built, Ok(Built::Delete(Some(5_000))));
        assert_eq!(
            row,
            vec![Value::from("EUR"), Value::Null, Value::Timestamp(5_000)]
        );
        // An upsert reads the key's column from the value ('ALL').
        let built = b.build(
            rec(Some(r#"{"k":"x"}"#), Some(r#"{"k":"EUR","rate":7}"#)),
            &mut row,
            &mut nulled,
        );
        assert_eq!(built, Ok(Built::Row(5_000)));
        assert_eq!(row[0], Value::from("EUR"), "the value wins");
        // A tombstone without a key deletes nothing: skipped.
        assert_eq!(
            b.build(rec(None, None), &mut row, &mut nulled),
            Ok(Built::Skipped)
        );
    }

    #[test]
    fn except_key_reads_the_key_column_from_the_record_key_and_a_value_rowtime_tombstone_is_skipped(
    ) {
        let mut b = builder(
            "k STRING, rate INT, t TIMESTAMP(3) METADATA FROM 'timestamp'",
            ", 'value.fields-include' = 'EXCEPT_KEY'",
        );
        let (mut row, mut nulled) = (Row::new(), 0);
        let built = b.build(
            rec(Some(r#"{"k":"GBP"}"#), Some(r#"{"rate":9}"#)),
            &mut row,
            &mut nulled,
        );
        assert_eq!(built, Ok(Built::Row(5_000)));
        assert_eq!(
            row,
            vec![Value::from("GBP"), Value::Int(9), Value::Timestamp(5_000)]
        );
        let mut b = builder("k STRING, rate INT, t TIMESTAMP(3)", "");
        let built = b.build(rec(Some(r#"{"k":"GBP"}"#), None), &mut row, &mut nulled);
        assert_eq!(
            built,
            Ok(Built::Skipped),
            "no time: Flink's join ignores it"
        );
    }
}
