//! # lowwater-core: event time, exactly as Flink computes it
//!
//! lowwater exists because event time fails silently: a watermark across
//! Kafka partitions is a *minimum*, so one quiet partition freezes every
//! event-time window while lag, checkpoints and CPU look healthy. This crate
//! is the pure model of that machinery, with Flink's exact rules, so that
//! everything built on it (SQL, replay, the live runtime, diagnostics) agrees
//! with Flink to the millisecond and can explain who holds the watermark.
//!
//! ## The model
//! - **Time** ([`time`]): event time and watermarks are `i64` milliseconds;
//!   `MIN`/`MAX` are "no progress" and "end of input". Processing time enters
//!   only as an argument, read by the caller from a [`clock::Clock`]; this
//!   crate has no threads, no I/O and never reads the wall clock.
//! - **Per split** ([`watermark::generator`], [`watermark::idleness`]): a
//!   generator remembers the largest event time and, on each periodic emit,
//!   yields a watermark (DataStream form `max - d - 1`, SQL form
//!   the last row's `ts - d`, kept monotone per split) or, after the idle
//!   timeout, IDLE.
//! - **Per source subtask** ([`source`], [`watermark::combiner`]): the
//!   minimum over active splits, never going backwards; all idle -> the
//!   maximum is flushed, then IDLE.
//! - **Per operator** ([`watermark::valve`]): the minimum over active,
//!   aligned input channels; again never backwards.
//! - **Windows** ([`window`]): assigners (tumbling, hopping, cumulate,
//!   session), incremental aggregates, and an operator that fires a window
//!   when the watermark reaches `end - 1`, handles allowed lateness and
//!   counts every late record per partition.
//! - **Checkpoints** ([`checkpoint`]): every type above is serializable;
//!   the checkpoint file format with its checksum, barrier alignment, the
//!   periodic trigger, the job identity a restore checks, and which stored
//!   checkpoint a restart uses. A restored job has the same future as one
//!   that never stopped.
//! - **Assignment** ([`assignment`]): Flink's Kafka partition -> subtask map.
//! - **Alignment** ([`watermark::alignment`]): which sources to pause.
//! - **Operators with input ports** ([`dataflow`]): the operator trait,
//!   the input gate (per-port valves, the ports' combination, barrier
//!   alignment across all channels) and an operator test harness.
//! - **Harness** ([`harness`]): a deterministic single-node job on a manual
//!   clock for tests, yours and ours.
//!
//! Where Flink has open bugs, lowwater does the fixed thing (a resumed split
//! re-activates its subtask; end of input always flushes `MAX`); each place
//! says so.

#![forbid(unsafe_code)]

pub mod assignment;
pub mod checkpoint;
pub mod clock;
pub mod dataflow;
pub mod decimal;
pub mod diagnose;
pub mod error;
pub mod harness;
pub mod javafmt;
pub mod join;
pub mod recurring;
pub mod route;
pub mod source;
pub mod text;
pub mod time;
pub mod timestamp;
pub mod value;
pub mod watermark;
pub mod window;

pub use error::{Error, ErrorClass, Result};
pub use time::{hours, millis, mins, secs, Millis, Timestamp, MAX_WATERMARK, MIN_WATERMARK};
pub use value::{Key, Row, Value};
