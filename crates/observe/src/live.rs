//! The live model of a job: what `/api/v1/watermarks` serves, what
//! `/metrics` and the web page are made of, whoever describes the job (a
//! lowwater job of this process, or a Flink job read over its REST API).

use std::collections::VecDeque;

use lowwater_core::{Millis, Timestamp, MAX_WATERMARK};
use lowwater_report::{PartitionReport, Report, SinkReport, StallReport};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use serde::Serialize;

/// Labels of one metric sample.
pub type Labels = Vec<(String, String)>;

/// The emission-lag histograms, one per sink (label `sink`).
pub type LagFamily = Family<Labels, Histogram, fn() -> Histogram>;

fn lag_histogram() -> Histogram {
    // 100 ms .. 1 h: a healthy job emits within delay + interval; a stalled
    // one within hours.
    Histogram::new([
        0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0,
    ])
}

/// A new, empty family of emission-lag histograms.
pub fn lag_family() -> LagFamily {
    Family::new_with_constructor(lag_histogram as fn() -> Histogram)
}

/// One point of the page's chart: each INSERT's watermark and each sink's
/// last emission lag, once a second.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryPoint {
    /// When (processing time).
    pub t: Timestamp,
    /// Per INSERT, its watermark (`null`: MIN).
    pub watermarks: Vec<Option<Timestamp>>,
    /// Per sink, the emission lag of its last window row.
    pub emission_lag_ms: Vec<Option<Millis>>,
}

/// The page's chart: the last ten minutes of points, the oldest dropped
/// first. The producer (the monitor, or `lowwater watch`'s watcher) adds
/// at most one a second.
#[derive(Debug, Clone, Default)]
pub struct History(VecDeque<HistoryPoint>);

impl History {
    /// Adds `p`, dropping the oldest point past ten minutes' worth.
    pub fn push(&mut self, p: HistoryPoint) {
        if self.0.len() == HISTORY {
            self.0.pop_front();
        }
        self.0.push_back(p);
    }

    /// When the newest point was taken.
    pub fn last_t(&self) -> Option<Timestamp> {
        self.0.back().map(|p| p.t)
    }

    /// The points, oldest first.
    pub fn points(&self) -> Vec<HistoryPoint> {
        self.0.iter().cloned().collect()
    }
}

const HISTORY: usize = 600;

/// A source partition, live.
#[derive(Debug, Clone, Serialize)]
pub struct LivePartition {
    /// The report's fields.
    #[serde(flatten)]
    pub report: PartitionReport,
    /// Its watermark now (`null` before its first).
    pub watermark: Option<Timestamp>,
    /// How long it has had no record (since the job started, if never).
    pub silent_ms: Millis,
    /// Whether `silent_ms` is a lower bound (`lowwater watch` began after
    /// its last record; absent when exact).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub silent_at_least: bool,
    /// Kafka: offsets on the broker not read yet (`null`: not Kafka, or not
    /// known yet).
    pub consumer_lag: Option<i64>,
    /// Whether it holds its INSERT's watermark now.
    pub holding: bool,
    /// Whether watermark alignment pauses it now (it runs ahead of its
    /// group's slowest partition).
    pub paused: bool,
    /// Whether its newest event time is decades behind its records'
    /// arrival (a producer writing seconds: the past-side guard); absent
    /// when not.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub implausible_time: bool,
}

/// A sink, live.
#[derive(Debug, Clone, Serialize)]
pub struct LiveSink {
    /// The report's fields.
    #[serde(flatten)]
    pub report: SinkReport,
    /// When it last wrote a row.
    pub last_emit: Option<Timestamp>,
    /// Emission lag of its last window row.
    pub last_emission_lag_ms: Option<Millis>,
    /// Now minus the last row (or the job start).
    pub freshness_ms: Millis,
    /// `lowwater.sink.max-emission-lag`.
    pub max_emission_lag_slo_ms: Option<Millis>,
    /// `lowwater.sink.max-staleness`.
    pub max_staleness_slo_ms: Option<Millis>,
    /// Window rows later than the max emission lag.
    pub emission_lag_breaches: u64,
    /// No row for longer than the max staleness.
    pub stale: bool,
    /// A jdbc (PostgreSQL) sink's writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jdbc: Option<LiveJdbc>,
}

/// What a jdbc sink has written to its server.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LiveJdbc {
    /// Rows the server committed.
    pub committed_rows: u64,
    /// Rows handed to the sink and not committed yet.
    pub buffered_rows: u64,
    /// When the last flush committed.
    pub last_commit: Option<Timestamp>,
    /// Now minus the last commit (or the job start): grows through a
    /// server's outage while rows wait.
    pub commit_age_ms: Millis,
    /// Connections re-established after one was lost.
    pub reconnects: u64,
    /// Batches tried again after a transient refusal.
    pub retries: u64,
}

/// One join, live: each input's watermark, which holds the join, and the
/// rows it holds.
#[derive(Debug, Clone, Serialize)]
pub struct LiveJoin {
    /// Its INSERT's sink.
    pub sink: String,
    /// `temporal join` or `interval join`.
    pub join: String,
    /// Its two inputs, port 0 first.
    pub sides: Vec<LiveJoinSide>,
    /// Probe rows waiting for the watermark (a temporal join), or rows
    /// cached (an interval join), over its subtasks.
    pub waiting_rows: u64,
    /// Versions of an `upsert-kafka` versioned table that its tombstones
    /// deleted (0 for other joins).
    pub versions_deleted: u64,
}

/// One input of a join.
#[derive(Debug, Clone, Serialize)]
pub struct LiveJoinSide {
    /// `probe side`, `versioned side`, `left side` or `right side`.
    pub side: String,
    /// The table it reads.
    pub table: String,
    /// The lowest watermark the join's subtasks have from it (`null`: MIN).
    pub watermark: Option<Timestamp>,
    /// Whether this input holds the join's watermark now.
    pub holding: bool,
}

/// One INSERT, live.
#[derive(Debug, Clone, Serialize)]
pub struct LiveInsert {
    /// Its sink table.
    pub sink: String,
    /// Its source table.
    pub source: String,
    /// Its watermark (the minimum over its window subtasks; `null`: MIN).
    pub watermark: Option<Timestamp>,
    /// The stall going on, if any.
    pub stall: Option<StallReport>,
    /// A split holding its watermark again and again, each time for less
    /// than the stall threshold, if one does now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recurring: Option<lowwater_report::RecurringReport>,
    /// Open (window, key) states over its window subtasks.
    pub open_windows: u64,
    /// Their estimated size in bytes.
    pub state_bytes: u64,
}

/// One operator subtask, live (Flink's currentInputWatermark /
/// currentOutputWatermark).
#[derive(Debug, Clone, Serialize)]
pub struct LiveSubtask {
    /// `source:<table>` or `window:<sink>`.
    pub operator: String,
    /// Subtask index.
    pub subtask: usize,
    /// The watermark it has received (`null`: MIN, or a source).
    pub input_watermark: Option<Timestamp>,
    /// The watermark it has sent on (`null`: MIN).
    pub output_watermark: Option<Timestamp>,
    /// Whether it is idle (`null`: not tracked for window subtasks).
    pub idle: Option<bool>,
}

/// `/api/v1/watermarks`: the replay report's shape plus live fields.
#[derive(Debug, Clone, Serialize)]
pub struct Live {
    /// Totals.
    pub totals: lowwater_report::Totals,
    /// Source partitions.
    pub partitions: Vec<LivePartition>,
    /// Sinks.
    pub sinks: Vec<LiveSink>,
    /// Every stall so far (ended ones, then the ones going on).
    pub stalls: Vec<StallReport>,
    /// Every recurring hold so far (ended ones, then the ones going on;
    /// absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recurring_holds: Vec<lowwater_report::RecurringReport>,
    /// Run parameters.
    pub replay: lowwater_report::ReplayInfo,
    /// The server's time.
    pub now: Timestamp,
    /// Per INSERT.
    pub inserts: Vec<LiveInsert>,
    /// Per join (absent in a job without joins).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub joins: Vec<LiveJoin>,
    /// Per operator subtask.
    pub subtasks: Vec<LiveSubtask>,
    /// The chart's points.
    pub history: Vec<HistoryPoint>,
    /// Checkpoints: whether on, counts, the last one's id, time, duration
    /// and size, the last failure, the checkpoint this run restored.
    pub checkpoints: CheckpointStats,
    /// The job described, when it is not this process's own (`lowwater
    /// watch --flink`); absent for a lowwater job.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watched: Option<WatchedJob>,
    /// The past-side guard's findings, in words (absent when none): a
    /// partition whose event times look like seconds read as milliseconds.
    /// `/healthz` answers 503 while there is one.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub implausible_times: Vec<String>,
}

impl Live {
    /// The report's part of the live state (what `--report` writes at the
    /// end, and what the end-of-run summary reads).
    pub fn report(&self) -> Report {
        Report {
            totals: self.totals.clone(),
            partitions: self.partitions.iter().map(|p| p.report.clone()).collect(),
            sinks: self.sinks.iter().map(|s| s.report.clone()).collect(),
            stalls: self.stalls.clone(),
            recurring_holds: self.recurring_holds.clone(),
            replay: self.replay.clone(),
        }
    }
}

/// A job that another engine runs, described by `lowwater watch`.
#[derive(Debug, Clone, Serialize)]
pub struct WatchedJob {
    /// `flink`.
    pub engine: String,
    /// The REST address read.
    pub url: String,
    /// The job's id.
    pub job_id: String,
    /// Its name.
    pub job_name: String,
    /// Its state at the last poll (RUNNING, FAILED, ...).
    pub state: String,
    /// How often lowwater polls.
    pub poll_interval_ms: Millis,
    /// When it last read the job.
    pub last_poll: Timestamp,
    /// REST requests the last poll made.
    pub requests_per_poll: u64,
    /// What the values can and cannot say (how old they can be).
    pub note: String,
}

/// A watermark as a metric value: MAX (a drained input) is left out like
/// MIN, as no dashboard can plot 9.2e18.
pub fn finite(w: Option<Timestamp>) -> Option<Timestamp> {
    w.filter(|w| *w != MAX_WATERMARK)
}

/// What `/metrics`, the API and the end report say about checkpoints.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckpointStats {
    /// Whether the job takes checkpoints.
    pub enabled: bool,
    /// Checkpoints completed by this run.
    pub completed: u64,
    /// Checkpoints failed in this run.
    pub failed: u64,
    /// The newest completed checkpoint's id.
    pub last_id: Option<u64>,
    /// Processing time when the last completed checkpoint was triggered.
    pub last_at: Option<Timestamp>,
    /// How long the last completed checkpoint took.
    pub last_duration_ms: Option<Millis>,
    /// Its file's size.
    pub last_size_bytes: Option<u64>,
    /// The last failure, in words.
    pub last_failure: Option<String>,
    /// The checkpoint this run restored, if any.
    pub restored_id: Option<u64>,
}
