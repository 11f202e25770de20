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
use lowwater_sql::formats::{RegistryFormat, ValueFormat};
use lowwater_sql::SqlType;

use crate::json::Interner;
use decode::ReadPlan;
use encode::WritePlan;
use registry::{Registry, RegistryError};
use schema::Schema;

/// The Avro type Flink's `AvroSchemaConverter` gives a column type (legacy
/// timestamp mapping, Flink's default).
fn avro_type(ty: SqlType) -> &'static str {
    match ty {
        SqlType::String => "\"string\"",
        SqlType::Int => "\"int\"",
        SqlType::BigInt => "\"long\"",
        SqlType::Double => "\"double\"",
        SqlType::Boolean => "\"boolean\"",
        SqlType::Timestamp | SqlType::TimestampLtz => {
            "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}"
        }
    }
}

/// The schema Flink derives from columns (name, type): a record named
/// `record` in namespace `org.apache.flink.avro.generated`, every column a
/// nullable union `["null", type]` with default null (lowwater's columns
/// are nullable).
pub fn derived_schema(cols: &[(String, SqlType)]) -> String {
    let mut out = String::from(
        "{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.flink.avro.generated\",\"fields\":[",
    );
    for (i, (name, ty)) in cols.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"name\":");
        crate::dump::write_json_str(&mut out, name);
        out.push_str(&format!(
            ",\"type\":[\"null\",{}],\"default\":null}}",
            avro_type(*ty)
        ));
    }
    out.push_str("]}");
    out
}

/// Why a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AvroError {
    /// What is wrong.
    pub message: String,
    /// Whether the job cannot go on regardless of the record (the registry
    /// is unreachable or refuses the credentials).
    pub fatal: bool,
}

fn bad(message: String) -> AvroError {
    AvroError {
        message,
        fatal: false,
    }
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
    /// value (the derived schema's fields).
    pub fn new(
        format: &ValueFormat,
        cols: Vec<(String, usize, SqlType)>,
        all: &[(String, SqlType)],
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
                let schema = Schema::parse(&derived_schema(all))?;
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

    /// Reads one record value into `row`.
    pub fn read(&mut self, bytes: &[u8], row: &mut Row) -> Result<(), AvroError> {
        match &mut self.mode {
            ReadMode::Plain(plan) => plan
                .read(bytes, row, self.width, &mut self.strings)
                .map_err(|e| bad(format!("Avro record: {e}"))),
            ReadMode::Confluent {
                registry,
                reader,
                plans,
            } => {
                let (id, datum) = unframe(bytes).map_err(bad)?;
                let plan = match plans.entry(id) {
                    std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        let writer = registry.schema(id).map_err(|e| match e {
                            RegistryError::UnknownId(m) => bad(m),
                            RegistryError::Failed(m) => AvroError {
                                message: m,
                                fatal: true,
                            },
                        })?;
                        let plan = ReadPlan::new((*writer).clone(), &self.cols, reader.as_deref())
                            .map_err(|e| bad(format!("schema id {id}: {e}")))?;
                        v.insert(plan)
                    }
                };
                plan.read(datum, row, self.width, &mut self.strings)
                    .map_err(|e| bad(format!("Avro record (schema id {id}): {e}")))
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
    schema_text: String,
    registry: Option<(Box<Registry>, String, Option<u32>)>,
}

impl AvroWriter {
    /// A writer for `format` of rows whose values are `cols` (name, type),
    /// writing to `topic` (the default subject is `<topic>-value`).
    pub fn new(
        format: &ValueFormat,
        cols: &[(String, SqlType)],
        topic: &str,
    ) -> Result<AvroWriter, String> {
        let (schema_text, registry) = match format {
            ValueFormat::AvroConfluent(r) => (
                r.schema.clone().unwrap_or_else(|| derived_schema(cols)),
                Some(registry_of(r, topic)?),
            ),
            _ => (derived_schema(cols), None),
        };
        let schema =
            Schema::parse(&schema_text).map_err(|e| format!("avro-confluent.schema: {e}"))?;
        Ok(AvroWriter {
            plan: WritePlan::new(schema, cols)?,
            schema_text,
            registry,
        })
    }

    /// The record for `values` (framed with the registry id for
    /// `avro-confluent`; the schema is registered on the first record).
    pub fn write(&mut self, values: &[Value]) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(64);
        if let Some((registry, subject, id)) = &mut self.registry {
            let id = match id {
                Some(i) => *i,
                None => {
                    let got = registry
                        .register(subject, &self.schema_text)
                        .map_err(|e| e.to_string())?;
                    *id = Some(got);
                    got
                }
            };
            out.push(0);
            out.extend_from_slice(&id.to_be_bytes());
        }
        self.plan.write(values, &mut out)?;
        Ok(out)
    }
}

fn registry_of(
    r: &RegistryFormat,
    topic: &str,
) -> Result<(Box<Registry>, String, Option<u32>), String> {
    Ok((
        Box::new(Registry::new(r)?),
        r.subject
            .clone()
            .unwrap_or_else(|| format!("{topic}-value")),
        None,
    ))
}

#[cfg(test)]
mod tests;
