//! `lowwater tune`: the idle timeout and watermark delay chosen from data.
//!
//! A captured incident is replayed once per candidate setting, by the same
//! engine as `lowwater replay`, without draining at the end (a stream does
//! not end: windows a stall still holds when the dump ends have not left,
//! and how long they have waited counts). Each candidate gets when its
//! windows left (max and p99 emission lag per sink), its stalls, and the
//! late records it would have dropped, per partition. Given an emission-lag
//! SLO and a bound on dropped records, [`choose`] picks the setting that
//! meets both, or says which one binds.
//!
//! The dumps are read and ordered once; the ordered records go in batches
//! to one thread per core, each running its share of the candidates.

mod choose;
mod table;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use lowwater_connectors::input::Loaded;
use lowwater_core::{Millis, Timestamp};
use lowwater_sql::plan::JobPlan;
use serde::Serialize;

use crate::driver::{self, Driver, Layout};
use crate::{default_threshold, Outcome, Progress, ReplayArgs, ReplayError};

pub use choose::{choose, Change, Choice};
pub use table::render;

/// The default idle timeouts tried: disabled, then 10 s to 10 min.
pub const DEFAULT_IDLE_TIMEOUTS: [Option<Millis>; 7] = [
    None,
    Some(10_000),
    Some(30_000),
    Some(60_000),
    Some(120_000),
    Some(300_000),
    Some(600_000),
];

/// A watermark delay tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Delay {
    /// As each table's WATERMARK clause says.
    AsWritten,
    /// Each table's delay times this.
    Times(u32),
    /// This delay for every table.
    Fixed(Millis),
}

/// The default delays tried: as written, x2, x4.
pub const DEFAULT_DELAYS: [Delay; 3] = [Delay::AsWritten, Delay::Times(2), Delay::Times(4)];

/// What to tune.
#[derive(Debug, Clone)]
pub struct TuneArgs {
    /// The inputs, partitions, stall threshold and sort buffer (`drain` and
    /// `restarts` are not used: tune never drains).
    pub replay: ReplayArgs,
    /// Idle timeouts to try (`None`: disabled).
    pub idle_timeouts: Vec<Option<Millis>>,
    /// Delays to try.
    pub delays: Vec<Delay>,
    /// The emission-lag SLO: every window must leave within this.
    pub max_emission_lag: Option<Millis>,
    /// The most late records that may be dropped over the dump.
    pub max_late: Option<u64>,
    /// Threads running candidates (0: one per core).
    pub threads: usize,
}

impl Default for TuneArgs {
    fn default() -> Self {
        TuneArgs {
            replay: ReplayArgs::default(),
            idle_timeouts: DEFAULT_IDLE_TIMEOUTS.to_vec(),
            delays: DEFAULT_DELAYS.to_vec(),
            max_emission_lag: None,
            max_late: None,
            threads: 0,
        }
    }
}

/// One candidate setting, resolved for the job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// The idle timeout of every source table (`None`: disabled); of a job
    /// with a temporal join, of its versioned tables only
    /// ([`Candidate::idle_tables`]).
    pub idle_timeout_ms: Option<Millis>,
    /// The tables the idle timeout is set on, by name: every source table,
    /// or a temporal join's versioned tables (the quiet side the stall
    /// report names; the probe side keeps its own setting, so that its
    /// quiet partitions still hold the join's rows).
    pub idle_tables: Vec<String>,
    /// The delay as asked for.
    pub delay: Delay,
    /// Each source table's resolved delay, by table name.
    #[serde(rename = "delays_ms")]
    pub delays: BTreeMap<String, Millis>,
    /// Whether this is the job as written.
    pub as_written: bool,
}

/// One sink under one candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SinkResult {
    /// Sink table.
    pub table: String,
    /// Window results written.
    pub windows_emitted: u64,
    /// The largest emission lag of a window result written.
    pub max_emission_lag_ms: Option<Millis>,
    /// The emission lag 99% of the window results were written within.
    pub p99_emission_lag_ms: Option<Millis>,
    /// (window, key) states not fired when the dump ended.
    pub open_at_end: u64,
    /// How long past its end the oldest of them had waited.
    pub open_wait_ms: Option<Millis>,
}

impl SinkResult {
    /// The worst lag: the largest of the emitted and the still-open
    /// windows' (a lower bound when windows are still open).
    pub fn worst_lag(&self) -> Option<Millis> {
        match (self.max_emission_lag_ms, self.open_wait_ms) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Late records of one partition under one candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionLate {
    /// Source table.
    pub table: String,
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Late records dropped.
    pub dropped: u64,
    /// Late records written to the late-data sink.
    pub routed: u64,
}

/// The stalls of one candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stalls {
    /// How many.
    pub count: usize,
    /// The longest, ms.
    pub longest_ms: Option<Millis>,
    /// Who held the longest: `topic/partition` (or `subtask N`).
    pub held_by: Option<String>,
}

/// What one candidate did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CandidateResult {
    /// The setting.
    pub candidate: Candidate,
    /// Per sink.
    pub sinks: Vec<SinkResult>,
    /// Stalls.
    pub stalls: Stalls,
    /// Late records dropped, over all partitions.
    pub late_dropped: u64,
    /// Late records routed to a late-data sink, over all partitions.
    pub late_routed: u64,
    /// Partitions with late records.
    pub late: Vec<PartitionLate>,
    /// What to write in the job file for this setting (empty: as written).
    pub change: Vec<Change>,
}

impl CandidateResult {
    /// The worst lag over the sinks.
    pub fn worst_lag(&self) -> Option<Millis> {
        self.sinks.iter().filter_map(SinkResult::worst_lag).max()
    }
}

/// What `lowwater tune` found.
#[derive(Debug, Clone, Serialize)]
pub struct Tuned {
    /// Records replayed per candidate.
    pub records: u64,
    /// The dump's first arrival.
    pub start_ts: Timestamp,
    /// The dump's last arrival.
    pub end_ts: Timestamp,
    /// The stall threshold used.
    pub stall_threshold_ms: Millis,
    /// The SLO the choice was made for.
    pub max_emission_lag_ms: Option<Millis>,
    /// Where the SLO came from: `--max-emission-lag` or a sink's
    /// `lowwater.sink.max-emission-lag`.
    pub slo_from: Option<String>,
    /// The bound on dropped records the choice was made for.
    pub max_late: Option<u64>,
    /// Every candidate, in the order tried.
    pub candidates: Vec<CandidateResult>,
    /// The choice (absent without an SLO or a bound).
    pub choice: Option<Choice>,
}

/// The candidates of `args` for `plan`, the job as written first among
/// equals; candidates that resolve to the same setting are tried once.
pub fn candidates(plan: &JobPlan, args: &TuneArgs) -> Result<Vec<Candidate>, ReplayError> {
    let sources = source_tables(plan);
    if sources.is_empty() {
        return Err(ReplayError::Usage(
            "the job reads no table with a WATERMARK: nothing to tune".into(),
        ));
    }
    let swept = idle_tables(plan);
    let written_idle = swept
        .iter()
        .map(|&t| plan.tables[t].idle_timeout)
        .collect::<Vec<_>>();
    let idle_names: Vec<String> = swept.iter().map(|&t| plan.tables[t].name.clone()).collect();
    let mut out: Vec<Candidate> = Vec::new();
    for &delay in &args.delays {
        for &idle in &args.idle_timeouts {
            if idle.is_none() && sources.iter().any(|&t| plan.tables[t].caught_up) {
                // 'caught-up' needs an idle timeout: Flink's planner and
                // lowwater refuse the job without one.
                continue;
            }
            let delays: BTreeMap<String, Millis> = sources
                .iter()
                .map(|&t| {
                    let written = plan.tables[t].watermark.map_or(0, |w| w.delay);
                    let d = match delay {
                        Delay::AsWritten => written,
                        Delay::Times(k) => written.saturating_mul(Millis::from(k)),
                        Delay::Fixed(d) => d,
                    };
                    (plan.tables[t].name.clone(), d)
                })
                .collect();
            let as_written = written_idle.iter().all(|w| *w == idle)
                && sources.iter().all(|&t| {
                    plan.tables[t].watermark.map(|w| w.delay)
                        == delays.get(&plan.tables[t].name).copied()
                });
            let c = Candidate {
                idle_timeout_ms: idle,
                idle_tables: idle_names.clone(),
                delay,
                delays,
                as_written,
            };
            if !out
                .iter()
                .any(|o| o.idle_timeout_ms == c.idle_timeout_ms && o.delays == c.delays)
            {
                out.push(c);
            }
        }
    }
    if out.is_empty() {
        return Err(ReplayError::Usage(
            "no candidate to try: a table with scan.watermark.idle-mode 'caught-up' needs an idle \
             timeout, and only 'disabled' was asked for"
                .into(),
        ));
    }
    Ok(out)
}

/// The source tables (with a watermark) of `plan`.
fn source_tables(plan: &JobPlan) -> Vec<usize> {
    let mut v: Vec<usize> = plan
        .source_tables()
        .into_iter()
        .filter(|&t| plan.tables[t].watermark.is_some())
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The tables a sweep sets the idle timeout on: of a job with a temporal
/// join, its versioned tables (their own `scan.watermark.idle-timeout`,
/// the setting a join's stall names); else every source table.
pub fn idle_tables(plan: &JobPlan) -> Vec<usize> {
    let sources = source_tables(plan);
    let mut versioned: Vec<usize> = plan
        .joins
        .iter()
        .map(|j| j.build)
        .filter(|t| sources.contains(t))
        .collect();
    versioned.sort_unstable();
    versioned.dedup();
    if versioned.is_empty() {
        sources
    } else {
        versioned
    }
}

/// Whether candidate `c` sets the idle timeout of its tables themselves
/// (a temporal join's versioned tables), not the job's.
pub(super) fn per_table(plan: &JobPlan, c: &Candidate) -> bool {
    !plan.joins.is_empty() && !c.idle_tables.is_empty()
}

/// `plan` with candidate `c`'s setting: what replaying the job file with
/// that change gives.
pub fn plan_for(plan: &JobPlan, c: &Candidate) -> JobPlan {
    let mut p = plan.clone();
    if !per_table(plan, c) {
        p.settings.idle_timeout = c.idle_timeout_ms;
    }
    for name in &c.idle_tables {
        if let Some(t) = p.table(name) {
            p.tables[t].idle_timeout = c.idle_timeout_ms;
        }
    }
    for (name, delay) in &c.delays {
        if let Some(t) = p.table(name) {
            if let Some(w) = &mut p.tables[t].watermark {
                w.delay = *delay;
            }
        }
    }
    p
}

/// Records per batch handed to the candidate threads.
const BATCH: usize = 2_048;

/// A batch: the replay-order index of its first record, and the records.
type Batch = Arc<(usize, Vec<Loaded>)>;

/// Replays the inputs once per candidate of `args` (in parallel) and
/// chooses, telling `observe` how far it is.
pub fn tune(
    plan: &JobPlan,
    args: &TuneArgs,
    observe: &mut dyn FnMut(Progress),
) -> Result<Tuned, ReplayError> {
    let cands = candidates(plan, args)?;
    let plans: Vec<JobPlan> = cands.iter().map(|c| plan_for(plan, c)).collect();
    let (layout, sorted) = driver::prepare(plan, &args.replay, observe)?;
    let threshold = args
        .replay
        .stall_threshold
        .unwrap_or_else(|| default_threshold(plan));
    let threads = match args.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .clamp(1, plans.len());
    let failed = AtomicBool::new(false);
    let total = layout.records;
    let outcomes: Vec<(usize, Option<Result<Outcome, ReplayError>>)> =
        std::thread::scope(|scope| {
            let mut senders = Vec::new();
            let mut workers = Vec::new();
            for w in 0..threads {
                let (tx, rx) = mpsc::sync_channel::<Batch>(4);
                senders.push(tx);
                let mine: Vec<usize> = (w..plans.len()).step_by(threads).collect();
                let (plans, layout, failed) = (&plans, &layout, &failed);
                workers.push(
                    scope.spawn(move || run_share(plans, &mine, layout, threshold, rx, failed)),
                );
            }
            let read = feed(sorted, &senders, &failed, total, observe);
            drop(senders);
            let mut all = Vec::new();
            for w in workers {
                match w.join() {
                    Ok(v) => all.extend(v),
                    Err(p) => std::panic::resume_unwind(p),
                }
            }
            if let Err(e) = read {
                // A reading error comes first: the engines saw a cut input.
                all = vec![(0, Some(Err(e)))];
            }
            all
        });
    let mut results: Vec<Option<CandidateResult>> = vec![None; cands.len()];
    let mut first_error: Option<(usize, ReplayError)> = None;
    let mut end = layout.t0;
    for (i, o) in outcomes {
        match o {
            None => {}
            Some(Ok(o)) => {
                end = end.max(o.report.replay.end_ts);
                results[i] = Some(result_of(plan, &cands[i], &o));
            }
            Some(Err(e)) if first_error.as_ref().is_none_or(|(j, _)| i < *j) => {
                first_error = Some((i, e));
            }
            Some(Err(_)) => {}
        }
    }
    if let Some((_, e)) = first_error {
        return Err(e);
    }
    let candidates: Vec<CandidateResult> = results.into_iter().flatten().collect();
    let (slo, slo_from) = match args.max_emission_lag {
        Some(d) => (Some(d), Some("--max-emission-lag".to_string())),
        None => job_slo(plan),
    };
    let choice = choose(&candidates, slo, args.max_late, plan, end - layout.t0);
    Ok(Tuned {
        records: total,
        start_ts: layout.t0,
        end_ts: end,
        stall_threshold_ms: threshold,
        max_emission_lag_ms: slo,
        slo_from,
        max_late: args.max_late,
        candidates,
        choice,
    })
}

/// The tightest `lowwater.sink.max-emission-lag` of the job's sinks.
fn job_slo(plan: &JobPlan) -> (Option<Millis>, Option<String>) {
    let sinks = plan.pipelines.iter().map(|p| p.sink);
    sinks
        .chain(plan.joins.iter().map(|j| j.sink))
        .chain(plan.intervals.iter().map(|j| j.sink))
        .filter_map(|s| {
            let t = &plan.tables[s];
            t.max_emission_lag.map(|m| (m, t.name.clone()))
        })
        .min()
        .map_or((None, None), |(m, name)| {
            (
                Some(m),
                Some(format!("'lowwater.sink.max-emission-lag' of {name}")),
            )
        })
}

/// Reads the ordered records and hands them to every thread in batches.
fn feed(
    sorted: lowwater_connectors::input::sorted::Sorted,
    senders: &[mpsc::SyncSender<Batch>],
    failed: &AtomicBool,
    total: u64,
    observe: &mut dyn FnMut(Progress),
) -> Result<(), ReplayError> {
    let mut batch = Vec::with_capacity(BATCH);
    let mut first = 0usize;
    let mut last_ts = 0;
    let send = |first: usize, batch: Vec<Loaded>| {
        let b = Arc::new((first, batch));
        // A thread that failed has stopped listening: the others go on
        // until the reader sees the flag.
        for tx in senders {
            let _ = tx.send(b.clone());
        }
    };
    for (i, l) in sorted.enumerate() {
        let l = l?;
        last_ts = l.ts;
        batch.push(l);
        if batch.len() == BATCH {
            send(
                first,
                std::mem::replace(&mut batch, Vec::with_capacity(BATCH)),
            );
            first = i + 1;
            if failed.load(Ordering::Relaxed) {
                return Ok(());
            }
            if (first / BATCH).is_multiple_of(8) {
                observe(Progress::Replaying {
                    records: first as u64,
                    total,
                    now: last_ts,
                });
            }
        }
    }
    if !batch.is_empty() {
        send(first, batch);
    }
    observe(Progress::Replaying {
        records: total,
        total,
        now: last_ts,
    });
    Ok(())
}

/// Runs candidates `mine` over the batches from `rx`: each one's outcome,
/// or its error, or `None` when it stopped because another one failed.
fn run_share(
    plans: &[JobPlan],
    mine: &[usize],
    layout: &Layout,
    threshold: Millis,
    rx: mpsc::Receiver<Batch>,
    failed: &AtomicBool,
) -> Vec<(usize, Option<Result<Outcome, ReplayError>>)> {
    let mut drivers: Vec<(usize, Result<Driver<'_, '_>, ReplayError>)> = mine
        .iter()
        .map(|&i| (i, Driver::new(&plans[i], layout, threshold, &[], false)))
        .collect();
    if drivers.iter().any(|(_, d)| d.is_err()) {
        failed.store(true, Ordering::Relaxed);
    }
    while !failed.load(Ordering::Relaxed) {
        let Ok(batch) = rx.recv() else { break };
        let (first, records) = &*batch;
        for (_, d) in &mut drivers {
            let Ok(run) = d else { continue };
            for (k, l) in records.iter().enumerate() {
                if let Err(e) = run.feed(first + k, l) {
                    *d = Err(e);
                    failed.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
    }
    let stopped = failed.load(Ordering::Relaxed);
    drivers
        .into_iter()
        .map(|(i, d)| match d {
            Err(e) => (i, Some(Err(e))),
            Ok(_) if stopped => (i, None),
            Ok(d) => (i, Some(d.finish(false))),
        })
        .collect()
}

/// The figures of candidate `c` from its replay's outcome.
fn result_of(plan: &JobPlan, c: &Candidate, o: &Outcome) -> CandidateResult {
    let r = &o.report;
    let end = r.replay.end_ts;
    // The INSERTs' sinks (not the late-data sinks); a join's rows count
    // as its windows do.
    let window_sink = |name: &str| {
        plan.pipelines
            .iter()
            .any(|p| plan.tables[p.sink].name == name)
    };
    let join_sink = |name: &str| {
        let sinks = plan.joins.iter().map(|j| j.sink);
        let mut sinks = sinks.chain(plan.intervals.iter().map(|j| j.sink));
        sinks.any(|t| plan.tables[t].name == name)
    };
    let sinks = r
        .sinks
        .iter()
        .filter(|s| window_sink(&s.table) || join_sink(&s.table))
        .map(|s| {
            let lags = o.lags.get(&s.table).cloned().unwrap_or_default();
            SinkResult {
                table: s.table.clone(),
                windows_emitted: match window_sink(&s.table) {
                    true => s.window_rows,
                    false => s.rows,
                },
                max_emission_lag_ms: s.max_emission_lag_ms,
                p99_emission_lag_ms: lags.quantile(0.99),
                open_at_end: lags.open_at_end,
                open_wait_ms: lags.open_wait(end),
            }
        })
        .collect();
    let longest = r.stalls.iter().max_by_key(|s| s.duration_ms);
    let stalls = Stalls {
        count: r.stalls.len(),
        longest_ms: longest.map(|s| s.duration_ms),
        held_by: longest
            .and_then(|s| s.held_by.as_ref())
            .map(|h| match (&h.topic, h.partition) {
                (Some(t), Some(p)) => format!("{t}/{p}"),
                _ => format!("subtask {}", h.subtask),
            }),
    };
    let late = r
        .partitions
        .iter()
        .filter(|p| p.late_records_dropped > 0 || p.late_records_routed > 0)
        .map(|p| PartitionLate {
            table: p.table.clone(),
            topic: p.topic.clone(),
            partition: p.partition,
            dropped: p.late_records_dropped,
            routed: p.late_records_routed,
        })
        .collect();
    CandidateResult {
        change: choose::change(c, plan),
        candidate: c.clone(),
        sinks,
        stalls,
        late_dropped: r.totals.late_records_dropped,
        late_routed: r.totals.late_records_routed,
        late,
    }
}
