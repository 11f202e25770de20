//! Rendering result rows the way a sink table writes them: the table's
//! format for Kafka and filesystem tables (`json`, `csv`, `avro`,
//! `avro-confluent`, `raw`; a JSON key for Kafka's `key.fields`), `+I[...]`
//! lines for `print`, nothing for `blackhole`.

use lowwater_core::Value;
use lowwater_sql::options::Connector;
use lowwater_sql::plan::TableDef;
use lowwater_sql::SqlType;

use lowwater_sql::formats::ValueFormat;

use crate::avro::{AvroWriter, Registration};
use crate::csv::CsvEncoder;
use crate::dump::DumpRecord;
use crate::json::{print_row, JsonEncoder};

/// The value's encoder.
#[derive(Debug, Clone)]
enum Encoder {
    Json(JsonEncoder),
    Csv(CsvEncoder),
    Avro(Box<AvroWriter>),
}

/// How rows of one sink table are rendered.
#[derive(Debug, Clone)]
pub struct SinkFormat {
    value: (Encoder, Vec<usize>),
    key: Option<(JsonEncoder, Vec<usize>)>,
    print: Option<String>,
    /// `'format' = 'raw'`: the one physical column is the value, as is.
    raw: Option<usize>,
    types: Vec<SqlType>,
    /// NOT NULL columns (name, position): a NULL for one fails the job, as
    /// Flink's default `table.exec.sink.not-null-enforcer` = ERROR does.
    not_null: Vec<(String, usize)>,
    discard: bool,
    topic: String,
}

/// One rendered row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The Kafka key, if the table has `key.fields`.
    pub key: Option<Vec<u8>>,
    /// The value in the table's format (or a print line).
    pub payload: Vec<u8>,
}

impl SinkFormat {
    /// The format of sink table `t` (an Avro schema that does not fit the
    /// table, or a registry that refuses the schema, is an error).
    /// `registration` says whether an `avro-confluent` sink registers its
    /// schema (a live job) or only looks it up (replay).
    pub fn new(t: &TableDef, registration: Registration) -> Result<Self, String> {
        let key = t.key.as_ref().map(|k| {
            (
                JsonEncoder::subset(t, &k.fields, &k.prefix),
                k.fields.clone(),
            )
        });
        // A sink's columns are all physical (the planner checks).
        let value_cols = t.value_columns();
        let topic = t
            .topics()
            .first()
            .cloned()
            .unwrap_or_else(|| t.name.clone());
        let encoder = match &t.value_format {
            ValueFormat::Csv(f) => Encoder::Csv(CsvEncoder::new(
                f,
                value_cols.iter().map(|&c| t.columns[c].ty).collect(),
            )),
            f @ (ValueFormat::Avro | ValueFormat::AvroConfluent(_)) => Encoder::Avro(Box::new(
                AvroWriter::new(f, &t.fields(&value_cols), &t.topics(), registration)
                    .map_err(|e| format!("table '{}': {e}", t.name))?,
            )),
            _ => Encoder::Json(JsonEncoder::subset(t, &value_cols, "")),
        };
        let raw_col = value_cols.first().copied();
        Ok(SinkFormat {
            value: (encoder, value_cols),
            key,
            print: matches!(t.connector, Connector::Print).then(|| {
                t.options
                    .get("print-identifier")
                    .map_or(String::new(), |id| format!("{id}> "))
            }),
            // 'raw': the value's one column (the key's are not in it under
            // 'EXCEPT_KEY').
            raw: t
                .value_format
                .eq(&lowwater_sql::formats::ValueFormat::Raw)
                .then_some(raw_col)
                .flatten(),
            types: t.columns.iter().map(|c| c.ty).collect(),
            not_null: t
                .columns
                .iter()
                .enumerate()
                .filter(|(_, c)| c.not_null)
                .map(|(i, c)| (c.name.clone(), i))
                .collect(),
            discard: matches!(t.connector, Connector::Blackhole),
            topic,
        })
    }

    /// An error when a NOT NULL column of the row is NULL (Flink's default
    /// `table.exec.sink.not-null-enforcer` = ERROR fails the job).
    pub fn check_not_null(&self, values: &[Value]) -> Result<(), String> {
        match self
            .not_null
            .iter()
            .find(|(_, i)| values.get(*i).is_none_or(Value::is_null))
        {
            Some((name, _)) => Err(format!(
                "Column '{name}' is NOT NULL, however, a null value is being written into it \
                 (sink {}); Flink fails the job the same way (table.exec.sink.not-null-enforcer)",
                self.topic
            )),
            None => Ok(()),
        }
    }

    /// Whether rows are discarded (`blackhole`).
    pub fn discards(&self) -> bool {
        self.discard
    }

    /// Whether rows are print lines.
    pub fn is_print(&self) -> bool {
        self.print.is_some()
    }

    /// The topic rows go to (the table name for non-Kafka sinks).
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// Renders one row as a dump record emitted at `ts` with `offset`.
    pub fn dump_record(
        &mut self,
        values: &[Value],
        offset: i64,
        ts: i64,
    ) -> Result<DumpRecord, String> {
        let r = self.render(values)?;
        Ok(DumpRecord {
            topic: self.topic.clone(),
            partition: 0,
            offset: Some(offset),
            ts,
            key: r.key,
            payload: Some(r.payload),
        })
    }

    /// Renders one row (one value per sink column, in column order). An
    /// Avro value that does not fit its schema, or a registry that refuses
    /// the schema, is an error.
    pub fn render(&mut self, values: &[Value]) -> Result<Rendered, String> {
        self.check_not_null(values)?;
        let pick = |cols: &[usize]| -> Vec<Value> {
            cols.iter()
                .map(|&c| values.get(c).cloned().unwrap_or(Value::Null))
                .collect()
        };
        let payload = match (&self.print, self.raw) {
            (Some(prefix), _) => format!("{prefix}{}", print_row(values, &self.types)).into_bytes(),
            // A NULL value is written as an empty value.
            (None, Some(c)) => match values.get(c) {
                Some(Value::Null) | None => Vec::new(),
                Some(v) => v.to_string().into_bytes(),
            },
            (None, None) => {
                let v = pick(&self.value.1);
                match &mut self.value.0 {
                    Encoder::Json(e) => e.encode(&v).into_bytes(),
                    Encoder::Csv(e) => e.encode(&v),
                    Encoder::Avro(w) => w
                        .write(&v)
                        .map_err(|e| format!("writing an Avro record to {}: {e}", self.topic))?,
                }
            }
        };
        Ok(Rendered {
            key: self
                .key
                .as_ref()
                .map(|(enc, cols)| enc.encode(&pick(cols)).into_bytes()),
            payload,
        })
    }
}
