//! Flink's `avro` and `avro-confluent` formats.
//!
//! - `avro`: each record value is one Avro binary datum written with the
//!   schema Flink derives from the table's columns ([`derived_schema`]), no
//!   framing; reading expects exactly that schema.
//! - `avro-confluent`: Confluent's wire format, a zero byte, the schema id
//!   (4 bytes, big-endian) and the datum. A reader fetches the writer schema
//!   of each id from the registry and resolves it against the table's
//!   columns by field name (a field the table lacks is skipped; a column
//!   the writer lacks is NULL, or the default of `avro-confluent.schema`);
//!   a sink registers its schema under its subject and frames its records
//!   with the id it gets.
//!
//! The decoder is compiled per writer schema ([`decode::ReadPlan`]) and
//! reads the binary straight into the row: no intermediate Avro value tree.

pub mod binary;
pub mod decode;
pub mod encode;
pub mod registry;
pub mod schema;

use std::collections::HashMap;

use lowwater_core::{Row, Value};
use lowwater_sql::formats::ValueFormat;
use lowwater_sql::SqlType;

use crate::json::Interner;
use decode::ReadPlan;
use encode::WritePlan;
use registry::Registry;
use schema::Schema;

/// The Avro type Flink's `AvroSchemaConverter` gives a column type (legacy
/// timestamp mapping, Flink's default).
fn avro_type(ty: SqlType) -> &'static str {
    match ty {
        SqlType::String => "\"string\"",
        SqlType::TinyInt | SqlType::SmallInt | SqlType::Int => "\"int\"",
        SqlType::BigInt => "\"long\"",
        SqlType::Float => "\"float\"",
        SqlType::Double => "\"double\"",
        SqlType::Boolean => "\"boolean\"",
        SqlType::Timestamp | SqlType::TimestampLtz => {
            "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}"
        }
        SqlType::Date => "{\"type\":\"int\",\"logicalType\":\"date\"}",
        // Refused when the table is planned (DECIMAL needs the json or csv
        // format); Flink's type would be bytes with logicalType decimal.
        SqlType::Decimal(..) => "\"bytes\"",
    }
}

/// The schema Flink derives from columns (name, type, NOT NULL): a record
/// named `record` in namespace `org.apache.flink.avro.generated`; a
/// nullable column is a union `["null", type]` with default null, a NOT
/// NULL one its plain type. A column name Avro does not allow is an error.
pub fn derived_schema(cols: &[(String, SqlType, bool)]) -> Result<String, String> {
    let mut out = String::from(
        "{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.flink.avro.generated\",\"fields\":[",
    );
    for (i, (name, ty, not_null)) in cols.iter().enumerate() {
        let valid = name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid {
            return Err(format!(
                "column '{name}' is not a valid Avro field name ([A-Za-z_][A-Za-z0-9_]*), so \
                 Flink's Avro schema cannot be derived from the table; rename the column"
            ));
        }
        if i > 0 {
            out.push(',');
        }
        if *not_null {
            out.push_str(&format!(
                "{{\"name\":\"{name}\",\"type\":{}}}",
                avro_type(*ty)
            ));
        } else {
            out.push_str(&format!(
                "{{\"name\":\"{name}\",\"type\":[\"null\",{}],\"default\":null}}",
                avro_type(*ty)
            ));
        }
    }
    out.push_str("]}");
    Ok(out)
}

/// Reads record values of one table.
#[derive(Debug, Clone)]
pub struct AvroReader {
    cols: Vec<(String, usize, SqlType)>,
    width: usize,
    strings: Interner,
    mode: ReadMode,
}

#[derive(Debug, Clone)]
enum ReadMode {
    Plain(Box<ReadPlan>),
    Confluent {
        registry: Box<Registry>,
        reader: Option<Box<Schema>>,
        plans: HashMap<u32, ReadPlan>,
    },
}

impl AvroReader {
    /// A reader for `format` filling columns `cols` (name, row position,
    /// type) of rows `width` wide; `all` are every physical column of the
    /// value (name, type, NOT NULL: the derived schema's fields).
    pub fn new(
        format: &ValueFormat,
        cols: Vec<(String, usize, SqlType)>,
        all: &[(String, SqlType, bool)],
        width: usize,
    ) -> Result<AvroReader, String> {
        let mode = match format {
            ValueFormat::AvroConfluent(r) => ReadMode::Confluent {
                registry: Box::new(Registry::new(r)?),
                reader: r
                    .schema
                    .as_deref()
                    .map(Schema::parse)
                    .transpose()
                    .map_err(|e| format!("avro-confluent.schema: {e}"))?
                    .map(Box::new),
                plans: HashMap::new(),
            },
            _ => {
                let schema = Schema::parse(&derived_schema(all)?)?;
                ReadMode::Plain(Box::new(ReadPlan::new(schema, &cols, None)?))
            }
        };
        Ok(AvroReader {
            cols,
            width,
            strings: Interner::default(),
            mode,
        })
    }

    /// Reads one record value into `row`. Every error stops the job (as in
    /// Flink, whose Avro formats cannot skip records): a bad record, a
    /// schema id the registry does not know, an unreachable registry.
    pub fn read(&mut self, bytes: &[u8], row: &mut Row) -> Result<(), String> {
        match &mut self.mode {
            ReadMode::Plain(plan) => plan
                .read(bytes, row, self.width, &mut self.strings)
                .map_err(|e| format!("Avro record: {e}")),
            ReadMode::Confluent {
                registry,
                reader,
                plans,
            } => {
                let (id, datum) = unframe(bytes)?;
                let plan = match plans.entry(id) {
                    std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        let writer = registry.schema(id)?;
                        let plan = ReadPlan::new((*writer).clone(), &self.cols, reader.as_deref())
                            .map_err(|e| format!("schema id {id}: {e}"))?;
                        v.insert(plan)
                    }
                };
                plan.read(datum, row, self.width, &mut self.strings)
                    .map_err(|e| format!("Avro record (schema id {id}): {e}"))
            }
        }
    }
}

/// Splits a Confluent-framed value into its schema id and datum.
pub fn unframe(bytes: &[u8]) -> Result<(u32, &[u8]), String> {
    match bytes {
        [0, a, b, c, d, rest @ ..] => Ok((u32::from_be_bytes([*a, *b, *c, *d]), rest)),
        [m, ..] if *m != 0 => Err(format!(
            "unknown magic byte {m} (a Confluent Schema Registry record starts with 0, then \
             the schema id); the topic holds something else, e.g. JSON or plain Avro"
        )),
        _ => Err(format!(
            "a value of {} bytes is too short for the Schema Registry framing (5 bytes)",
            bytes.len()
        )),
    }
}

/// Writes rows of one sink table.
#[derive(Debug, Clone)]
pub struct AvroWriter {
    plan: WritePlan,
    /// The registry id records are framed with (`avro-confluent`).
    id: Option<u32>,
}

/// How an `avro-confluent` sink gets its schema id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registration {
    /// Registers the schema under its subject, as Flink's sink does (the
    /// live job).
    Register,
    /// Only looks the schema up (replay: it must not change the registry).
    LookUp,
}

impl AvroWriter {
    /// A writer for `format` of rows whose values are `cols` (name, type,
    /// NOT NULL), writing to `topics` (the default subject is
    /// `<topic>-value` for one topic, as Flink's Kafka connector sets it).
    /// For `avro-confluent` the schema is registered (or looked up) here, so
    /// that a refused schema or bad credentials stop the job at its start.
    pub fn new(
        format: &ValueFormat,
        cols: &[(String, SqlType, bool)],
        topics: &[String],
        registration: Registration,
    ) -> Result<AvroWriter, String> {
        let schema_text = match format {
            ValueFormat::AvroConfluent(r) => match &r.schema {
                Some(s) => s.clone(),
                None => derived_schema(cols)?,
            },
            _ => derived_schema(cols)?,
        };
        let schema =
            Schema::parse(&schema_text).map_err(|e| format!("avro-confluent.schema: {e}"))?;
        let named: Vec<(String, SqlType)> = cols.iter().map(|(n, t, _)| (n.clone(), *t)).collect();
        let plan = WritePlan::new(schema, &named)?;
        let id = match format {
            ValueFormat::AvroConfluent(r) => {
                let subject = match (&r.subject, topics) {
                    (Some(s), _) => s.clone(),
                    (None, [topic]) => format!("{topic}-value"),
                    (None, _) => {
                        return Err(
                            "Option avro-confluent.subject is required for serialization \
                                    (the sink has not exactly one topic to name it after)"
                                .into(),
                        )
                    }
                };
                let mut registry = Registry::new(r)?;
                let id = match registration {
                    Registration::Register => registry.register(&subject, &schema_text),
                    Registration::LookUp => registry.look_up(&subject, &schema_text),
                };
                Some(id?)
            }
            _ => None,
        };
        Ok(AvroWriter { plan, id })
    }

    /// The record for `values` (framed with the registry id for
    /// `avro-confluent`).
    pub fn write(&mut self, values: &[Value]) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(64);
        if let Some(id) = self.id {
            out.push(0);
            out.extend_from_slice(&id.to_be_bytes());
        }
        self.plan.write(values, &mut out)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
