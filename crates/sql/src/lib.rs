//! # lowwater-sql: the Flink SQL subset lowwater runs
//!
//! A job file is what a Flink user already has: `SET` statements, `CREATE
//! TABLE` with a `WATERMARK` clause and connector options, and `INSERT INTO
//! sink SELECT ... FROM TABLE(TUMBLE|HOP|CUMULATE|SESSION(...)) GROUP BY
//! window_start, window_end, keys`. This crate parses it ([`parse`]) into
//! a statement tree ([`ast`]), checks it against what lowwater supports
//! (every unsupported construct or option is an error with line and column,
//! as in Flink nothing is silently ignored), and plans it ([`plan`]) into
//! the core's watermark strategies, window assigners and aggregates, with
//! compiled row expressions ([`expr`]).

pub mod advice;
pub mod ast;
pub mod compile;
mod compile_functions;
mod compile_json;
mod compile_numeric;
mod compile_regex;
mod compile_temporal;
pub mod dates;
pub mod decimal;
pub mod error;
pub mod explain;
mod explain_join;
pub mod expr;
pub mod formats;
pub mod functions;
pub mod inline;
pub mod jdbc;
mod join;
pub mod json_fns;
mod json_query;
pub mod kafka_props;
pub mod legacy;
pub mod numeric;
pub mod options;
pub mod parse;
pub mod plan;
pub mod portability;
pub mod query;
pub mod regex_fns;
mod semi;
mod setting_keys;
mod stall;
pub mod suggest;
pub mod target;
pub mod temporal;
mod tokens;
mod tvf;
pub mod types;
pub mod values;
mod views;
mod windows;

pub use error::{Loc, Result, SqlError};
pub use types::SqlType;
