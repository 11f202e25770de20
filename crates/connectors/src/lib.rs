//! # lowwater-connectors: formats and record envelopes
//!
//! - [`json`]: Flink's `json` format, decoding a payload into a table's row
//!   and encoding a result row, with Flink's conversions (numbers from
//!   strings, timestamps in the SQL or ISO-8601 text form, missing fields as
//!   NULL);
//! - [`csv`]: Flink's `csv` format; [`avro`]: Flink's `avro` and
//!   `avro-confluent` formats (with a Schema Registry client);
//! - [`row`] turns a record (bytes, with its place) into a row in any of
//!   them, [`sink`] renders a result row;
//! - [`dump`]: topic dumps in the shape `kcat -J` prints, one record per
//!   line, which `lowwater replay` reads and writes; [`input`] reads dumps
//!   as a job's inputs, in arrival order.
//!
//! [`lines`] reads a file's lines for the `filesystem` source; [`payload`]
//! is a record's value as a source holds it (a dump's JSON payload is kept
//! as written in its line, and read so).
//!
//! Kafka, filesystem, datagen and print connectors for the live runtime
//! come with it.

pub mod avro;
pub mod csv;
pub mod datagen;
pub mod dump;
mod escape;
pub mod input;
pub mod json;
pub mod lines;
pub mod payload;
pub mod row;
pub mod sink;
mod word;
