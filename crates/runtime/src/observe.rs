//! Seeing the watermark while a job runs (`lowwater run --http ADDR`):
//! `/metrics` (Prometheus/OpenMetrics text), `/api/v1/watermarks` (the
//! replay report's shape, live, plus what only a running job has) and `/`
//! (a web page built on that JSON). The metric names follow docs/metrics.md.
//!
//! Nothing here is on the record path: every value is read from the job's
//! shared state when a client asks (the counters the threads keep anyway),
//! except the emission-lag histogram, observed once per window row emitted.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use lowwater_core::clock::Clock;
use lowwater_core::diagnose::Holder;
use lowwater_core::{Millis, Timestamp, MAX_WATERMARK};
use lowwater_report::{wm, PartitionReport, Report, SinkReport, StallReport};
use lowwater_sql::plan::JobPlan;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use serde::Serialize;

use crate::job::Shared;

/// Labels of one metric sample.
pub(crate) type Labels = Vec<(String, String)>;

/// The emission-lag histograms, one per sink (label `sink`).
pub(crate) type LagFamily = Family<Labels, Histogram, fn() -> Histogram>;

fn lag_histogram() -> Histogram {
    // 100 ms .. 1 h: a healthy job emits within delay + interval; a stalled
    // one within hours.
    Histogram::new([
        0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0,
    ])
}

/// A new, empty family of emission-lag histograms.
pub(crate) fn lag_family() -> LagFamily {
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

/// What the monitor publishes for the endpoints.
#[derive(Debug, Default)]
pub(crate) struct LiveState {
    /// Per pipeline: the stall going on, if any (`to_ts` = now).
    pub current: Vec<Option<StallReport>>,
    /// Stalls that ended.
    pub past: Vec<StallReport>,
    /// Recurring holds, ended ones then the ones going on (`to_ts` null).
    pub recurring: Vec<lowwater_report::RecurringReport>,
    /// Per sink (in `Shared::sinks` order): stale under its max-staleness.
    pub stale: Vec<bool>,
    /// The last ten minutes, a point a second.
    pub history: History,
    /// Holds, flips and stalls of the last day (`crate::flight`).
    pub flight: crate::flight::FlightRecorder,
    /// Partitions whose newest event time is decades behind their records'
    /// arrival (a producer writing seconds), with the WARN that named each.
    pub implausible: std::collections::BTreeMap<lowwater_core::source::SplitId, String>,
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

impl LiveState {
    pub fn new(pipelines: usize) -> Self {
        LiveState {
            current: vec![None; pipelines],
            ..LiveState::default()
        }
    }

    pub fn push_history(&mut self, p: HistoryPoint) {
        self.history.push(p);
    }
}

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
    pub checkpoints: crate::checkpoint::CheckpointStats,
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
pub(crate) fn finite(w: Option<Timestamp>) -> Option<Timestamp> {
    w.filter(|w| *w != MAX_WATERMARK)
}

/// The live state of a running job.
pub(crate) fn snapshot(plan: &JobPlan, shared: &Shared, threshold: Millis) -> Live {
    let now = shared.clock.now();
    let (current, past, stale, history, recurring, implausible) = match shared.live.lock() {
        Ok(l) => (
            l.current.clone(),
            l.past.clone(),
            l.stale.clone(),
            l.history.points(),
            l.recurring.clone(),
            l.implausible.clone(),
        ),
        Err(_) => Default::default(),
    };
    // Splits and every source subtask's view, taken once: the holders and
    // the partitions' entries below describe the same moment, so that the
    // holder is never a partition shown as idle.
    let splits = shared.splits_now();
    let views = crate::report::views(shared);
    let holders: Vec<Option<Holder>> = (0..plan.pipelines.len())
        .map(|pi| {
            let si = crate::monitor::source_index(plan, shared, pi);
            crate::monitor::holder_of(&views[si], shared.start, now).map(|(h, _)| h)
        })
        .collect();
    // What holds each join: its holding side's table and, in that table's
    // source, the partition with the lowest watermark.
    let joins = crate::join_task::joins(plan);
    let join_holders: Vec<Option<(usize, usize, Holder)>> = joins
        .iter()
        .enumerate()
        .map(|(j, which)| {
            let hold = shared.joins[j].hold()?;
            let table = which.sides(plan).table(hold.port);
            let si = shared.sources.iter().position(|s| s.table == table)?;
            let (h, _) = crate::monitor::holder_of(&views[si], shared.start, now)?;
            Some((hold.port, table, h))
        })
        .collect();
    let mut stalls = past;
    stalls.extend(current.iter().flatten().cloned());
    let (
        Report {
            totals,
            partitions,
            sinks,
            replay,
            ..
        },
        ids,
    ) = crate::report::report_from(plan, shared, &splits, &views, Vec::new(), threshold, false);
    let mut live_parts = Vec::with_capacity(partitions.len());
    for (p, id) in partitions.into_iter().zip(ids) {
        let meta = &splits[id as usize];
        let view = shared
            .sources
            .iter()
            .position(|s| s.table == meta.table)
            .and_then(|si| views[si].get(meta.subtask));
        let backlog = view.and_then(|v| v.backlog.get(&id).copied());
        let paused = view.and_then(|v| v.paused.get(&id)).is_some_and(|p| p.0);
        let holding =
            plan.pipelines.iter().zip(&holders).any(|(pl, h)| {
                pl.reads_table(meta.table) && h.is_some_and(|h| h.split == Some(id))
            }) || join_holders
                .iter()
                .flatten()
                .any(|(_, t, h)| *t == meta.table && h.split == Some(id));
        live_parts.push(LivePartition {
            watermark: p.final_watermark,
            silent_ms: now - p.last_arrival.unwrap_or(shared.start),
            silent_at_least: false,
            consumer_lag: backlog.and_then(|b| match b {
                lowwater_kafka::Backlog::Unknown => None,
                lowwater_kafka::Backlog::CaughtUp => Some(0),
                lowwater_kafka::Backlog::Behind(n) => Some(n),
            }),
            holding,
            paused,
            implausible_time: implausible.contains_key(&id),
            report: p,
        });
    }
    let mut live_sinks = Vec::with_capacity(sinks.len());
    for (i, ((&t, w), report)) in shared.sink_counters.iter().zip(sinks).enumerate() {
        let Ok(w) = w.lock() else {
            continue;
        };
        live_sinks.push(LiveSink {
            report,
            last_emit: w.last_emit,
            last_emission_lag_ms: w.last_lag,
            freshness_ms: now - w.last_emit.unwrap_or(shared.start),
            max_emission_lag_slo_ms: plan.tables[t].max_emission_lag,
            max_staleness_slo_ms: plan.tables[t].max_staleness,
            emission_lag_breaches: w.lag_breaches,
            stale: stale.get(i).copied().unwrap_or(false),
        });
    }
    let mut inserts: Vec<LiveInsert> = plan
        .pipelines
        .iter()
        .enumerate()
        .map(|(pi, pl)| LiveInsert {
            sink: plan.tables[pl.sink].name.clone(),
            source: plan.tables[pl.source].name.clone(),
            watermark: shared.windows[pi]
                .iter()
                .map(|w| w.load(Ordering::Relaxed))
                .min()
                .and_then(wm),
            stall: current.get(pi).cloned().flatten(),
            recurring: recurring
                .iter()
                .find(|r| r.to_ts.is_none() && r.sink == plan.tables[pl.sink].name)
                .cloned(),
            open_windows: shared.open[pi]
                .iter()
                .map(|[n, ..]| n.load(Ordering::Relaxed))
                .sum(),
            state_bytes: shared.open[pi]
                .iter()
                .map(|[_, b, _]| b.load(Ordering::Relaxed))
                .sum(),
        })
        .collect();
    // A join's INSERT: its watermark, its stall (after the windows' in
    // `current`) and the rows it holds as its open state.
    let mut live_joins = Vec::new();
    for (j, which) in joins.iter().enumerate() {
        let sides = which.sides(plan);
        let js = &shared.joins[j];
        let holding = join_holders[j].as_ref().map(|(port, ..)| *port);
        live_joins.push(LiveJoin {
            sink: plan.tables[sides.sink].name.clone(),
            join: sides.join.to_string(),
            sides: [sides.first, sides.second]
                .iter()
                .enumerate()
                .map(|(port, (t, side))| LiveJoinSide {
                    side: side.to_string(),
                    table: plan.tables[*t].name.clone(),
                    watermark: wm(js.input_watermark(port)),
                    holding: holding == Some(port),
                })
                .collect(),
            waiting_rows: js.waiting(),
        });
    }
    for (j, which) in joins.iter().enumerate() {
        let sides = which.sides(plan);
        let js = &shared.joins[j];
        inserts.push(LiveInsert {
            sink: plan.tables[sides.sink].name.clone(),
            source: format!(
                "{} JOIN {}",
                plan.tables[sides.first.0].name, plan.tables[sides.second.0].name
            ),
            watermark: wm(js.watermark()),
            stall: current.get(plan.pipelines.len() + j).cloned().flatten(),
            recurring: None,
            open_windows: js.waiting(),
            state_bytes: 0,
        });
    }
    let mut subtasks = Vec::new();
    for src in &shared.sources {
        for (i, v) in src.subtasks.iter().enumerate() {
            let Ok(v) = v.lock() else {
                continue;
            };
            subtasks.push(LiveSubtask {
                operator: format!("source:{}", plan.tables[src.table].name),
                subtask: i,
                input_watermark: None,
                output_watermark: wm(v.watermark),
                idle: Some(v.idle),
            });
        }
    }
    for (pi, pl) in plan.pipelines.iter().enumerate() {
        for (i, w) in shared.windows[pi].iter().enumerate() {
            let w = wm(w.load(Ordering::Relaxed));
            subtasks.push(LiveSubtask {
                operator: format!("window:{}", plan.tables[pl.sink].name),
                subtask: i,
                input_watermark: w,
                // The window operator forwards the watermark it received.
                output_watermark: w,
                idle: None,
            });
        }
    }
    for (j, which) in joins.iter().enumerate() {
        let sink = &plan.tables[which.sides(plan).sink].name;
        for (i, w) in shared.joins[j].watermarks.iter().enumerate() {
            let w = wm(w.load(Ordering::Relaxed));
            subtasks.push(LiveSubtask {
                operator: format!("join:{sink}"),
                subtask: i,
                input_watermark: w,
                output_watermark: w,
                idle: None,
            });
        }
    }
    Live {
        totals,
        partitions: live_parts,
        sinks: live_sinks,
        stalls,
        recurring_holds: recurring,
        replay,
        now,
        inserts,
        joins: live_joins,
        subtasks,
        history,
        checkpoints: shared
            .checkpoints
            .stats
            .lock()
            .map(|c| c.clone())
            .unwrap_or_default(),
        watched: None,
        implausible_times: implausible.into_values().collect(),
    }
}

/// The running job as the HTTP server sees it.
pub(crate) struct JobView {
    pub plan: Arc<JobPlan>,
    pub shared: Arc<Shared>,
    pub threshold: Millis,
    /// Where a stop asked for over HTTP goes (`crate::control`).
    pub control: std::sync::mpsc::Sender<crate::control::StopRequest>,
}

impl crate::http::LiveView for JobView {
    fn live(&self) -> Live {
        snapshot(&self.plan, &self.shared, self.threshold)
    }

    fn metrics(&self, live: &Live) -> String {
        crate::metrics::metrics(live, &self.plan, &self.shared)
    }

    fn ready(&self) -> bool {
        !(self.shared.stop.load(Ordering::Relaxed) || self.shared.failed())
    }

    fn history(&self, since: Timestamp) -> Vec<crate::flight::FlightEvent> {
        self.shared
            .live
            .lock()
            .map(|l| l.flight.since(since))
            .unwrap_or_default()
    }

    fn stop(&self, req: crate::control::StopRequest) -> Result<(), String> {
        self.control
            .send(req)
            .map_err(|_| "the job is ending already".to_string())
    }
}
