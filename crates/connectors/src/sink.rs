//! Rendering result rows the way a sink table writes them: Flink's `json`
//! format for Kafka and filesystem tables (with a JSON key for Kafka's
//! `key.fields`), `+I[...]` lines for `print`, nothing for `blackhole`.

use lowwater_core::Value;
use lowwater_sql::options::Connector;
use lowwater_sql::plan::TableDef;
use lowwater_sql::SqlType;

use crate::dump::DumpRecord;
use crate::json::{print_row, JsonEncoder};

/// How rows of one sink table are rendered.
#[derive(Debug, Clone)]
pub struct SinkFormat {
    value: (JsonEncoder, Vec<usize>),
    key: Option<(JsonEncoder, Vec<usize>)>,
    print: Option<String>,
    /// `'format' = 'raw'`: the one physical column is the value, as is.
    raw: Option<usize>,
    types: Vec<SqlType>,
    discard: bool,
    topic: String,
}

/// One rendered row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The Kafka key, if the table has `key.fields`.
    pub key: Option<Vec<u8>>,
    /// The value (a JSON object, or a print line).
    pub payload: Vec<u8>,
}

impl SinkFormat {
    /// The format of sink table `t`.
    pub fn new(t: &TableDef) -> Self {
        let all: Vec<usize> = (0..t.columns.len()).collect();
        let key = t.key.as_ref().map(|k| {
            (
                JsonEncoder::subset(t, &k.fields, &k.prefix),
                k.fields.clone(),
            )
        });
        let value_cols: Vec<usize> = match &t.key {
            Some(k) if k.except_key => all.into_iter().filter(|c| !k.fields.contains(c)).collect(),
            _ => all,
        };
        SinkFormat {
            value: (JsonEncoder::subset(t, &value_cols, ""), value_cols),
            key,
            print: matches!(t.connector, Connector::Print).then(|| {
                t.options
                    .get("print-identifier")
                    .map_or(String::new(), |id| format!("{id}> "))
            }),
            raw: t
                .raw_format
                .then(|| {
                    t.columns
                        .iter()
                        .position(|c| c.source == lowwater_sql::plan::ColumnSource::Physical)
                })
                .flatten(),
            types: t.columns.iter().map(|c| c.ty).collect(),
            discard: matches!(t.connector, Connector::Blackhole),
            topic: t
                .topics()
                .first()
                .cloned()
                .unwrap_or_else(|| t.name.clone()),
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
    pub fn dump_record(&self, values: &[Value], offset: i64, ts: i64) -> DumpRecord {
        let r = self.render(values);
        DumpRecord {
            topic: self.topic.clone(),
            partition: 0,
            offset: Some(offset),
            ts,
            key: r.key,
            payload: Some(r.payload),
        }
    }

    /// Renders one row (one value per sink column, in column order).
    pub fn render(&self, values: &[Value]) -> Rendered {
        let pick = |cols: &[usize]| -> Vec<Value> {
            cols.iter()
                .map(|&c| values.get(c).cloned().unwrap_or(Value::Null))
                .collect()
        };
        let payload = match (&self.print, self.raw) {
            (Some(prefix), _) => format!("{prefix}{}", print_row(values, &self.types)),
            // A NULL value is written as an empty value.
            (None, Some(c)) => match values.get(c) {
                Some(Value::Null) | None => String::new(),
                Some(v) => v.to_string(),
            },
            (None, None) => self.value.0.encode(&pick(&self.value.1)),
        };
        Rendered {
            key: self
                .key
                .as_ref()
                .map(|(enc, cols)| enc.encode(&pick(cols)).into_bytes()),
            payload: payload.into_bytes(),
        }
    }
}
