//! # lowwater-replay: incidents replayed in virtual time
//!
//! `lowwater replay` runs a job over topic dumps (the `kcat -J` shape) with
//! the dumps' arrival timestamps as the processing-time clock, so that hours
//! of a production incident replay in seconds, bit for bit, and a changed
//! setting (an idle timeout, say) can be compared on the same data. The
//! report names every stall of the event-time watermark, the partition that
//! held it and what releases it.

mod driver;
pub mod engine;
pub mod error;
pub mod input;
pub mod report;
pub mod tune;

use std::collections::BTreeMap;
use std::path::PathBuf;

use lowwater_connectors::dump::DumpRecord;
use lowwater_connectors::input::sorted::SortOptions;
use lowwater_core::{Millis, Timestamp};
use lowwater_sql::plan::JobPlan;

pub use error::ReplayError;
pub use report::Report;

/// What to replay. The default drains at the end of input, as the CLI does.
#[derive(Debug, Clone)]
pub struct ReplayArgs {
    /// `TABLE=FILE` inputs, in command-line order.
    pub inputs: Vec<(String, PathBuf)>,
    /// `TABLE=N`: partitions 0..N-1 exist even without records.
    pub partitions: Vec<(String, i32)>,
    /// Flush MAX at the end (default) or stop as the input ends.
    pub drain: bool,
    /// Stall threshold; default 3 x max(window size, emit interval).
    pub stall_threshold: Option<Millis>,
    /// Virtual times at which the replay takes a checkpoint, stops, and
    /// continues in a new engine restored from the checkpoint's bytes (after
    /// every record with `ts <= T`): the rows and the report must not change.
    /// A check of checkpoint and restore, for lowwater's tests and yours.
    pub restarts: Vec<Timestamp>,
    /// Memory for ordering the inputs (records with their payloads); more
    /// input is spilled to sorted runs in `spill_dir` and merged.
    pub sort_buffer_bytes: usize,
    /// Where the runs go (unnamed files, gone when the replay ends).
    pub spill_dir: PathBuf,
}

impl Default for ReplayArgs {
    fn default() -> Self {
        ReplayArgs {
            inputs: Vec::new(),
            partitions: Vec::new(),
            drain: true,
            stall_threshold: None,
            restarts: Vec::new(),
            sort_buffer_bytes: SortOptions::default().buffer_bytes,
            spill_dir: SortOptions::default().spill_dir,
        }
    }
}

/// How far a replay is, for a progress bar.
#[derive(Debug, Clone, Copy)]
pub enum Progress {
    /// Reading and ordering the inputs: bytes read of all.
    Reading {
        /// Bytes read.
        bytes: u64,
        /// The inputs' size.
        total: u64,
    },
    /// Replaying: records processed of all, and the virtual time reached.
    Replaying {
        /// Records processed.
        records: u64,
        /// Records in the inputs.
        total: u64,
        /// The replay's clock (the last record's arrival time).
        now: Timestamp,
    },
}

/// What a replay produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The report.
    pub report: Report,
    /// Records written per sink table name.
    pub outputs: BTreeMap<String, Vec<DumpRecord>>,
    /// Per INSERT (by sink table name), the most (window, key) states open
    /// at once, counted at every periodic tick: what state a job needs.
    pub peak_open_windows: BTreeMap<String, u64>,
    /// Per sink table name, when its window results left.
    pub lags: BTreeMap<String, SinkLags>,
}

/// When a sink's window results left: the emission lag (emission time
/// minus window end) of each, and the windows not fired when the replay
/// ended (without draining, those a stall still held).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SinkLags {
    /// Window results counted by emission lag.
    pub emitted: BTreeMap<Millis, u64>,
    /// (window, key) states still open at the end.
    pub open_at_end: u64,
    /// The earliest end among the windows still open.
    pub first_open_end: Option<Timestamp>,
}

impl SinkLags {
    /// The emission lag at or under which `q` (0..=1) of the window
    /// results left (nearest rank), `None` without results.
    pub fn quantile(&self, q: f64) -> Option<Millis> {
        let n: u64 = self.emitted.values().sum();
        if n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * n as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (&lag, &c) in &self.emitted {
            seen += c;
            if seen >= rank {
                return Some(lag);
            }
        }
        self.emitted.keys().next_back().copied()
    }

    /// How long past its end the oldest window still open at `end` had
    /// waited (`None`: none had ended).
    pub fn open_wait(&self, end: Timestamp) -> Option<Millis> {
        self.first_open_end
            .filter(|e| *e <= end)
            .map(|e| end.saturating_sub(e))
    }
}

/// The default stall threshold: 3 x max(largest window, emit interval).
pub fn default_threshold(plan: &JobPlan) -> Millis {
    plan.default_stall_threshold()
}

/// Replays `plan` over the inputs.
pub fn replay(plan: &JobPlan, args: &ReplayArgs) -> Result<Outcome, ReplayError> {
    replay_observed(plan, args, &mut |_| {})
}

/// Replays `plan` over the inputs, telling `observe` how far it is now
/// and then (every 16,384 records). The inputs are read and ordered with
/// memory bounded by `args.sort_buffer_bytes` (see
/// `lowwater_connectors::input::sorted`), then streamed through the engine.
pub fn replay_observed(
    plan: &JobPlan,
    args: &ReplayArgs,
    observe: &mut dyn FnMut(Progress),
) -> Result<Outcome, ReplayError> {
    let (layout, sorted) = driver::prepare(plan, args, observe)?;
    let threshold = args
        .stall_threshold
        .unwrap_or_else(|| default_threshold(plan));
    let mut run = driver::Driver::new(plan, &layout, threshold, &args.restarts, true)?;
    let total = layout.records;
    for (origin, l) in sorted.enumerate() {
        run.feed(origin, &l?)?;
        if origin % 16_384 == 0 {
            observe(Progress::Replaying {
                records: origin as u64,
                total,
                now: run.now(),
            });
        }
    }
    let outcome = run.finish(args.drain)?;
    observe(Progress::Replaying {
        records: total,
        total,
        now: outcome.report.replay.end_ts,
    });
    Ok(outcome)
}
