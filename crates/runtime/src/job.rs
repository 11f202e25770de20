//! Building a job's threads from a plan, running them, and collecting the
//! outcome (the same report shape as replay).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lowwater_core::clock::Clock;
use lowwater_core::source::{SplitId, SplitView};
use lowwater_core::window::operator::LateCounters;
use lowwater_core::{Millis, Timestamp, MIN_WATERMARK};
use lowwater_report::Report;
use lowwater_sql::plan::JobPlan;

use crate::clock::SystemClock;
use crate::inputs::{number_splits, restore_counters, warn_offsets_without_checkpoints};
use crate::monitor::Monitor;
use crate::report::report;
use crate::sink::{sink_writer, SinkCounters, SinkWriter};
use crate::window::WindowTask;

/// How to run a job.
#[derive(Debug, Clone)]
pub struct RunArgs {
    /// `TABLE=DUMP`: read a source table from a topic dump (kcat -J lines)
    /// instead of its connector, as fast as possible.
    pub inputs: Vec<(String, PathBuf)>,
    /// `TABLE=FILE`: write a sink table's rows to a dump file instead of its connector.
    pub outputs: Vec<(String, PathBuf)>,
    /// Stop (gracefully) after this long.
    pub duration: Option<Duration>,
    /// Report stalls longer than this; default 3 x max(window, emit interval).
    pub stall_threshold: Option<Millis>,
    /// Set to stop the job gracefully (Ctrl-C, SIGTERM).
    pub stop: Arc<AtomicBool>,
    /// Records per batch between threads.
    pub batch: usize,
    /// Capacity of each channel, in batches.
    pub channel_capacity: usize,
    /// `--http ADDR`: serve `/metrics`, `/api/v1/watermarks` and the web
    /// page on this address while the job runs (port 0: any free port; the
    /// address is logged).
    pub http: Option<String>,
    /// The job's name: its checkpoints live in `<checkpoint dir>/<name>`.
    pub job_name: String,
    /// `--from-checkpoint PATH`: restore this checkpoint file (or the
    /// newest in this directory) instead of the job's own newest.
    pub from_checkpoint: Option<PathBuf>,
    /// `--reset-state`: start without the job's checkpoints (they stay on
    /// disk until newer ones retire them).
    pub reset_state: bool,
    /// `--rebuild-open-windows`: a checkpoint whose window state does not
    /// fit the changed job is not refused; its open windows are rebuilt by
    /// reading their records again (`crate::rebuild`).
    pub rebuild_open_windows: bool,
}

impl Default for RunArgs {
    fn default() -> Self {
        RunArgs {
            inputs: Vec::new(),
            outputs: Vec::new(),
            duration: None,
            stall_threshold: None,
            stop: Arc::new(AtomicBool::new(false)),
            batch: 8192,
            channel_capacity: 8,
            http: None,
            job_name: "job".to_string(),
            from_checkpoint: None,
            reset_state: false,
            rebuild_open_windows: false,
        }
    }
}

/// Why a job could not run or stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The job or the command line asks for something this runtime cannot do.
    #[error("{0}")]
    Usage(String),
    /// A record that cannot be processed, with its place.
    #[error("{0}")]
    Record(String),
    /// A file could not be read or written.
    #[error("{0}")]
    Io(String),
}

/// What a finished run produced.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The report (the replay report's shape, from live values).
    pub report: Report,
    /// Whether the job ended because its bounded inputs ended (else stopped).
    pub completed: bool,
    /// Per INSERT (by sink table name), the most (window, key) states its
    /// window subtasks held at once (each subtask's most, summed), as
    /// counted every second or few thousand records.
    pub peak_open_windows: BTreeMap<String, u64>,
}

pub(crate) use lowwater_core::source::SplitMeta;

/// What a source subtask publishes for the monitor and the report.
#[derive(Debug, Clone, Default)]
pub(crate) struct SubtaskView {
    pub watermark: Timestamp,
    pub idle: bool,
    pub splits: Vec<SplitView>,
    pub skipped: BTreeMap<SplitId, u64>,
    pub nulled: BTreeMap<SplitId, u64>,
    /// Records kept out by `lowwater.watermark.max-future` (not in
    /// checkpoints: counted again from a restore).
    pub future: BTreeMap<SplitId, u64>,
    /// How far each Kafka partition's reader is from the partition's end.
    pub backlog: BTreeMap<SplitId, lowwater_kafka::Backlog>,
    /// Watermark alignment: per partition whether it is paused now and the
    /// time it spent paused.
    pub paused: BTreeMap<SplitId, (bool, lowwater_core::Millis)>,
}

/// One source table's shared counters.
pub(crate) struct SourceShared {
    pub table: usize,
    pub records: AtomicU64,
    pub filtered: AtomicU64,
    /// Subtasks with splits still reading: subtasks without splits of a
    /// dump-fed (Kafka) table wait for them before ending, so that they hold
    /// the watermark as they do in replay.
    pub reading: std::sync::atomic::AtomicUsize,
    pub subtasks: Vec<Mutex<SubtaskView>>,
}

/// State shared by every thread of a job.
pub(crate) struct Shared {
    pub stop: Arc<AtomicBool>,
    pub error: Mutex<Option<RunError>>,
    pub clock: SystemClock,
    pub start: Timestamp,
    pub sources: Vec<SourceShared>,
    pub windows: Vec<Vec<AtomicI64>>,
    pub sinks: BTreeMap<usize, Mutex<SinkWriter>>,
    /// Each sink's counters (the same as its writer's), by sink table.
    pub sink_counters: BTreeMap<usize, Arc<Mutex<SinkCounters>>>,
    /// Every split by id; grows when partition discovery finds partitions.
    pub splits: std::sync::RwLock<Vec<SplitMeta>>,
    /// Without checkpoints: per pipeline, window subtask and channel, the
    /// last in-band mark processed (published after the rows before it).
    pub marks: Vec<Vec<Vec<AtomicU64>>>,
    /// Late counters per pipeline and window subtask, published live.
    pub late: Vec<Vec<Mutex<LateCounters>>>,
    /// Open (window, key) states, their estimated bytes and the most
    /// states open at once, per pipeline and window subtask, published
    /// every second or few thousand records and after windows fire.
    pub open: Vec<Vec<[AtomicU64; 3]>>,
    /// Watermark alignment groups.
    pub alignment: crate::align::Groups,
    /// What the monitor knows (stalls, history), for the HTTP endpoints.
    pub live: Mutex<crate::observe::LiveState>,
    /// A Kafka outage already logged (its distinct errors, the first
    /// first, and its start), so that the job's source subtasks log it
    /// once, and once that it is over.
    pub kafka_outage: Mutex<Option<(Vec<String>, lowwater_core::Timestamp)>>,
    /// The emission lag histograms of the sinks, by sink table name.
    pub lag_histograms: crate::observe::LagFamily,
    /// Checkpoints' statistics (the protocol travels by `post`).
    pub checkpoints: crate::checkpoint::Checkpoints,
    /// Every task's mailbox and the coordinator's inbox, once the tasks
    /// are built.
    pub post: crate::mailbox::PostSlot,
    /// Table names by index (for checkpoint files).
    pub table_names: Vec<String>,
    /// The transactional producer of exactly-once Kafka sinks.
    pub exactly_once: Option<crate::txn::ExactlyOnce>,
    /// Per pipeline, the batches its window subtasks have emptied, for its
    /// source subtasks to fill again.
    pub batch_pools: Vec<crate::exchange::BatchPool>,
    /// Per join (`crate::join_task::joins`), what its subtasks publish.
    pub joins: Vec<crate::join_task::JoinShared>,
    /// Window rows computed again after a restore from a checkpoint older
    /// than the committed one, and not written (the committed output holds
    /// them: `crate::restore`).
    pub recomputed: AtomicU64,
    /// Exactly-once, restored from a checkpoint older than the committed
    /// one: per INSERT, the watermark up to which the committed output
    /// holds its windows (`crate::restore`). Its window subtasks write none
    /// at or below it, and every commit marker says at least it (the
    /// output holds those windows whatever the restored operators fired).
    pub written_to: Option<Vec<Timestamp>>,
}

impl Shared {
    /// The state of a job about to start.
    #[allow(clippy::too_many_arguments)]
    fn new(
        plan: &JobPlan,
        source_tables: &[usize],
        clock: SystemClock,
        start: Timestamp,
        sinks: BTreeMap<usize, Mutex<SinkWriter>>,
        splits: Vec<SplitMeta>,
        lag_histograms: crate::observe::LagFamily,
        (restored, written_to): (
            Option<lowwater_core::checkpoint::CheckpointId>,
            Option<Vec<Timestamp>>,
        ),
        exactly_once: Option<crate::txn::ExactlyOnce>,
    ) -> Self {
        let p = plan.settings.parallelism;
        Shared {
            // The user's stop (Ctrl-C, SIGTERM, --duration) is `RunArgs::stop`:
            // the main loop takes a final checkpoint before it stops the threads.
            stop: Arc::new(AtomicBool::new(false)),
            error: Mutex::new(None),
            clock,
            start,
            sources: source_tables
                .iter()
                .map(|&t| SourceShared {
                    table: t,
                    records: AtomicU64::new(0),
                    filtered: AtomicU64::new(0),
                    reading: std::sync::atomic::AtomicUsize::new(0),
                    subtasks: (0..p).map(|_| Mutex::new(SubtaskView::default())).collect(),
                })
                .collect(),
            windows: plan
                .pipelines
                .iter()
                .map(|_| (0..p).map(|_| AtomicI64::new(MIN_WATERMARK)).collect())
                .collect(),
            marks: plan
                .pipelines
                .iter()
                .map(|_| {
                    (0..p)
                        .map(|_| (0..p).map(|_| AtomicU64::new(0)).collect())
                        .collect()
                })
                .collect(),
            late: plan
                .pipelines
                .iter()
                .map(|_| {
                    (0..p)
                        .map(|_| Mutex::new(LateCounters::default()))
                        .collect()
                })
                .collect(),
            open: plan
                .pipelines
                .iter()
                .map(|_| {
                    (0..p)
                        .map(|_| [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)])
                        .collect()
                })
                .collect(),
            alignment: crate::align::Groups::new(plan),
            live: Mutex::new(crate::observe::LiveState::new(plan.pipelines.len())),
            kafka_outage: Mutex::new(None),
            lag_histograms,
            sink_counters: sinks
                .iter()
                .filter_map(|(t, w)| Some((*t, w.lock().ok()?.counters.clone())))
                .collect(),
            sinks,
            splits: std::sync::RwLock::new(splits),
            checkpoints: crate::checkpoint::Checkpoints::new(
                plan.settings.checkpoints.interval.is_some(),
                restored,
            ),
            post: crate::mailbox::PostSlot::new(),
            table_names: plan.tables.iter().map(|t| t.name.clone()).collect(),
            exactly_once,
            batch_pools: plan.pipelines.iter().map(|_| Default::default()).collect(),
            joins: crate::join_task::joins(plan)
                .iter()
                .map(|_| crate::join_task::JoinShared::new(p))
                .collect(),
            recomputed: AtomicU64::new(0),
            written_to,
        }
    }

    /// Every split as it is now (partition discovery adds to them).
    pub fn splits_now(&self) -> Vec<SplitMeta> {
        self.splits.read().map(|s| s.clone()).unwrap_or_default()
    }

    /// The name of table `t`.
    pub fn table_name(&self, t: usize) -> String {
        self.table_names.get(t).cloned().unwrap_or_default()
    }

    /// Sink `t`'s writer, locked; `None` when the job has no such sink,
    /// or when a thread panicked while it held the writer: then the job
    /// fails naming the sink, rather than the rows to it being skipped.
    pub fn sink(&self, t: usize) -> Option<std::sync::MutexGuard<'_, SinkWriter>> {
        match self.sinks.get(&t)?.lock() {
            Ok(w) => Some(w),
            Err(_) => {
                self.fail(RunError::Io(format!(
                    "sink {}: a thread panicked while writing to it (a bug in lowwater); \
                     its rows from then on are not written, so the job stops",
                    self.table_name(t)
                )));
                None
            }
        }
    }

    /// Whether the job has failed.
    pub fn failed(&self) -> bool {
        self.error.lock().map_or(true, |e| e.is_some())
    }

    /// The job's post, once its tasks are built.
    pub fn post(&self) -> Option<&crate::mailbox::Post> {
        self.post.get()
    }

    /// Installs the post of the tasks built (before their threads start).
    pub fn install_post(&self, post: crate::mailbox::Post) {
        let _ = self.post.set(post);
        if self.failed() {
            self.tell_failed();
        }
    }

    /// The job stops: the sources are told (and `stop` says it to those
    /// who look: the API, partition discovery).
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(post) = self.post() {
            post.to_sources(crate::mailbox::Control::Stop);
        }
    }

    /// Records the first error and stops the job: every task and the
    /// coordinator are told.
    pub fn fail(&self, e: RunError) {
        let first = match self.error.lock() {
            Ok(mut slot) => slot.is_none() && slot.replace(e).is_none(),
            Err(_) => false,
        };
        self.stop.store(true, Ordering::SeqCst);
        if first {
            self.tell_failed();
        }
    }

    fn tell_failed(&self) {
        if let Some(post) = self.post() {
            post.to_all(crate::mailbox::Control::Failed);
            post.to_coordinator(crate::mailbox::Inbox::Failed);
        }
    }
}

/// Runs `plan` until its bounded inputs end (then drains: every window
/// fires) or `args.stop` is set or `args.duration` passes (then stops:
/// emitted rows are flushed, pending windows are not fired, as a Flink job
/// stopped without drain; with checkpoints a final one keeps them).
pub fn run(plan: &JobPlan, args: &RunArgs) -> Result<RunOutcome, RunError> {
    let (dumps, outputs) = io_args(plan, args)?;
    let dumped = dumps.keys().copied().collect();
    crate::exchange::refuse_unsupported(plan, &dumped).map_err(RunError::Usage)?;
    crate::join_watch::warn_empty_versioned(plan, &dumped);
    let plan = Arc::new(plan.clone());
    let clock = SystemClock::new();
    let start = clock.now();
    let sources = source_tables(&plan);
    let state = crate::restore::open_state(&plan, args, start)?;
    let snapshot = state.restored.as_ref().map(|r| &r.snapshot);
    let restored_id = state.restored.as_ref().map(|r| r.id);
    let (splits, inputs) = number_splits(&plan, &sources, &dumps, start, snapshot)?;
    // Without checkpoints: how far the last run wrote each source's windows.
    // --rebuild-open-windows: what the old job wrote.
    let written = match (&state.rebuilt, snapshot) {
        (Some(w), _) => w.clone(),
        (None, Some(_)) => BTreeMap::new(),
        (None, None) => crate::written::floors(&plan, &splits, &dumps),
    };
    let lag_histograms = crate::observe::lag_family();
    let eo = state.exactly_once.as_ref();
    let sinks = sink_writers(&plan, &outputs, &lag_histograms, (eo, restored_id), start)?;
    let listener = listen(args)?;
    let shared = Arc::new(Shared::new(
        &plan,
        &sources,
        clock,
        start,
        sinks,
        splits,
        lag_histograms,
        (restored_id, state.written_to.clone()),
        state.exactly_once,
    ));
    if let Some(snap) = snapshot {
        restore_counters(&shared, snap);
    }
    let (mut window_tasks, senders) = window_tasks(&plan, &shared, snapshot, args, &written)?;
    let (mut join_tasks, join_senders) =
        crate::join_route::join_tasks(&plan, &shared, snapshot, args, &senders);
    let build = crate::inputs::SourceBuild {
        plan: &plan,
        shared: &shared,
        dumps: &dumps,
        senders: &senders,
        join_senders: &join_senders,
        snapshot,
        restored_id,
        args,
        written: &written,
    };
    let mut source_tasks = build.tasks(&sources, inputs)?;
    drop(senders);
    drop(join_senders);
    // Control travels by messages: every task gets a mailbox, and with
    // checkpoints the coordinator an inbox for the tasks' reports.
    let (mut post, inbox) = crate::mailbox::Post::new(plan.settings.checkpoints.interval.is_some());
    for t in &mut source_tasks {
        t.link = post.source_link(t.source, t.subtask).restored(restored_id);
    }
    let watched = crate::discovery::watched(&plan, &sources, &dumps);
    let discovery = (!watched.is_empty()).then(|| post.watcher_link());
    for t in &mut window_tasks {
        t.link = post.task_link().restored(restored_id);
    }
    for t in &mut join_tasks {
        t.link = post.task_link().restored(restored_id);
    }
    shared.install_post(post);
    let threshold = args
        .stall_threshold
        .unwrap_or_else(|| plan.default_stall_threshold());
    let mut monitor = Monitor::new(plan.clone(), shared.clone(), threshold);
    // The flight recorder keeps its events beside the checkpoints, so that
    // a restart keeps them (`crate::flight`).
    let history = state.store.as_ref().map(|s| s.dir().join("history.jsonl"));
    if let Ok(mut live) = shared.live.lock() {
        live.flight = crate::flight::FlightRecorder::open(history, plan.pipelines.len(), start);
    }
    let coordinator =
        crate::coordinator::Coordinator::for_job(&plan, (state.store, inbox), restored_id, start);
    if coordinator.is_none() {
        warn_offsets_without_checkpoints(&plan, &dumps);
    }
    // Partitions are visible (metrics, API) before the first record.
    for t in &source_tasks {
        t.publish();
    }
    let (control, control_rx) = std::sync::mpsc::channel();
    let control_open = control.clone();
    let server = match listener {
        Some(l) => Some(
            crate::http::Server::start(
                l,
                Arc::new(crate::observe::JobView {
                    plan: plan.clone(),
                    shared: shared.clone(),
                    threshold,
                    control,
                }),
            )
            .map_err(RunError::Io)?,
        ),
        None => None,
    };
    let threads = crate::threads::Threads {
        plan: &plan,
        shared: &shared,
        args,
        deadline: args.duration.map(|d| start + d.as_millis() as i64),
        watched: (watched, std::sync::Mutex::new(discovery)),
        control: std::sync::Mutex::new(control_rx),
        _control_open: control_open,
    };
    let mut coordinator = coordinator;
    let tasks = (window_tasks, join_tasks, source_tasks);
    let completed = threads.run(tasks, &mut coordinator, &mut monitor);
    monitor.finish(shared.clock.now());
    let recomputed = shared.recomputed.load(Ordering::Relaxed);
    if recomputed > 0 {
        tracing::info!(
            "{recomputed} window rows the committed output already held were computed again \
             from the older checkpoint and not written"
        );
    }
    if let Some(s) = server {
        s.stop();
    }
    crate::sink::finish_outputs(&shared, completed, coordinator.as_mut())?;
    if let Some(e) = shared.error.lock().ok().and_then(|mut e| e.take()) {
        return Err(e);
    }
    let mut report = report(&plan, &shared, monitor.stalls(), threshold, completed);
    report.recurring_holds = monitor.recurring();
    let peak_open_windows = plan
        .pipelines
        .iter()
        .enumerate()
        .map(|(pi, pl)| {
            let peak = shared.open[pi]
                .iter()
                .map(|[.., p]| p.load(Ordering::Relaxed))
                .sum();
            (plan.tables[pl.sink].name.clone(), peak)
        })
        .collect();
    Ok(RunOutcome {
        report,
        completed,
        peak_open_windows,
    })
}

/// `--input` dumps by source table.
type Dumps = BTreeMap<usize, PathBuf>;

/// The `--input` dumps and `--output` files by table, checked against the job.
fn io_args(plan: &JobPlan, args: &RunArgs) -> Result<(Dumps, Vec<(usize, PathBuf)>), RunError> {
    let named = |name: &str, what: &str| {
        plan.table(name).ok_or_else(|| {
            RunError::Usage(format!(
                "{what} names table '{name}', which the job does not define"
            ))
        })
    };
    let mut dumps = BTreeMap::new();
    for (name, path) in &args.inputs {
        let t = named(name, "--input")?;
        if !plan.source_tables().contains(&t) {
            return Err(RunError::Usage(format!(
                "--input {name}: table '{name}' is not read by any INSERT of the job"
            )));
        }
        dumps.insert(t, path.clone());
    }
    let mut outputs = Vec::new();
    for (name, path) in &args.outputs {
        let t = named(name, "--output")?;
        let joined = crate::join_task::joins(plan)
            .iter()
            .any(|j| j.sides(plan).sink == t);
        if !joined
            && !plan
                .pipelines
                .iter()
                .any(|p| p.sink == t || plan.tables[p.source].late_data_sink == Some(t))
        {
            return Err(RunError::Usage(format!(
                "--output {name}: table '{name}' receives no rows in this job"
            )));
        }
        outputs.push((t, path.clone()));
    }
    Ok((dumps, outputs))
}

/// The tables INSERTs read, in the job's order (the window aggregations'
/// first, then the joins').
fn source_tables(plan: &JobPlan) -> Vec<usize> {
    plan.source_tables()
}

/// The writers of every sink table, one each.
fn sink_writers(
    plan: &JobPlan,
    outputs: &[(usize, PathBuf)],
    lag_histograms: &crate::observe::LagFamily,
    (eo, restored): (
        Option<&crate::txn::ExactlyOnce>,
        Option<lowwater_core::checkpoint::CheckpointId>,
    ),
    start: Timestamp,
) -> Result<BTreeMap<usize, Mutex<SinkWriter>>, RunError> {
    let mut sinks = BTreeMap::new();
    let joins = crate::join_task::joins(plan);
    let joined = joins.iter().map(|j| j.sides(plan).sink);
    let windowed = plan
        .pipelines
        .iter()
        .flat_map(|pl| std::iter::once(pl.sink).chain(plan.tables[pl.source].late_data_sink));
    for t in windowed.chain(joined) {
        if let std::collections::btree_map::Entry::Vacant(e) = sinks.entry(t) {
            let w = sink_writer(plan, t, outputs, lag_histograms, eo, (restored, start))?;
            e.insert(Mutex::new(w));
        }
    }
    Ok(sinks)
}

/// Whether a listener on `addr` can be reached from other machines.
fn exposed(addr: &std::net::SocketAddr) -> bool {
    !addr.ip().is_loopback()
}

/// The `--http` listener, bound before the job starts.
fn listen(args: &RunArgs) -> Result<Option<std::net::TcpListener>, RunError> {
    match &args.http {
        Some(addr) => {
            let l = std::net::TcpListener::bind(addr).map_err(|e| {
                RunError::Usage(format!(
                    "--http {addr}: cannot listen there ({e}); pick a free port, or port 0 for any"
                ))
            })?;
            if l.local_addr().is_ok_and(|a| exposed(&a)) {
                tracing::warn!(
                    "--http {addr} listens beyond this machine: anyone who can reach it reads \
                     the job's internals (watermarks, partitions, metrics) without \
                     authentication; use 127.0.0.1 unless a proxy or firewall guards it"
                );
            }
            Ok(Some(l))
        }
        None => Ok(None),
    }
}

/// The window subtasks (restored from `snapshot`) and the channels that
/// feed them: one per window subtask, fed by every source subtask.
type Senders = Vec<Vec<SyncSender<crate::source::Envelope>>>;

fn window_tasks(
    plan: &Arc<JobPlan>,
    shared: &Arc<Shared>,
    snapshot: Option<&crate::checkpoint::JobSnapshot>,
    args: &RunArgs,
    written: &BTreeMap<usize, crate::written::Written>,
) -> Result<(Vec<WindowTask>, Senders), RunError> {
    let p = plan.settings.parallelism;
    let mut tasks = Vec::new();
    let mut senders = Vec::new();
    for pi in 0..plan.pipelines.len() {
        let mut per_window = Vec::new();
        for w in 0..p {
            let (tx, rx) = sync_channel(args.channel_capacity.max(1));
            per_window.push(tx);
            let mut task = WindowTask::new(plan.clone(), pi, w, p, rx, shared.clone())
                .map_err(RunError::Usage)?;
            if let Some(part) = snapshot.and_then(|s| s.windows.get(pi)?.get(w)) {
                task.restore(part.clone());
            }
            // (A window after a join reads the join, not its source.)
            let floor = written.get(&plan.pipelines[pi].source);
            if let Some(w) = floor.filter(|_| !plan.pipelines[pi].reads_join()) {
                task.start_at(w.floor);
            }
            tasks.push(task);
        }
        senders.push(per_window);
    }
    Ok((tasks, senders))
}

/// The shared state of `plan` about to start, with its sinks and no
/// splits (unit tests of the runtime's pieces).
#[cfg(test)]
pub(crate) fn test_shared(plan: &JobPlan) -> Shared {
    let lags = crate::observe::lag_family();
    let sinks = sink_writers(plan, &[], &lags, (None, None), 0).expect("sinks");
    let clock = SystemClock::new();
    let start = clock.now();
    Shared::new(
        plan,
        &source_tables(plan),
        clock,
        start,
        sinks,
        Vec::new(),
        lags,
        (None, None),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink whose writer a panicking thread held fails the job by name
    /// instead of having its later rows skipped.
    #[test]
    fn a_poisoned_sink_fails_the_job_naming_it() {
        let plan = JobPlan::from_sql(
            "CREATE TABLE src (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
               WITH ('connector' = 'datagen', 'number-of-rows' = '10');
             CREATE TABLE out_counts (n BIGINT) WITH ('connector' = 'blackhole');
             INSERT INTO out_counts SELECT COUNT(*)
               FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
               GROUP BY window_start, window_end;",
        )
        .expect("plans");
        let shared = test_shared(&plan);
        let t = plan.table("out_counts").expect("sink table");
        assert!(shared.sink(t).is_some() && !shared.failed());
        std::thread::scope(|s| {
            let held = s.spawn(|| {
                let _w = shared.sinks[&t].lock();
                panic!("a bug while writing");
            });
            assert!(held.join().is_err());
        });
        assert!(shared.sink(t).is_none());
        assert!(shared.failed());
        let e = shared
            .error
            .lock()
            .expect("error slot")
            .take()
            .expect("an error");
        assert!(
            e.to_string().contains("sink out_counts: a thread panicked"),
            "{e}"
        );
    }

    #[test]
    fn only_loopback_addresses_are_private() {
        for (addr, out) in [
            ("127.0.0.1:9249", false),
            ("[::1]:9249", false),
            ("0.0.0.0:9249", true),
            ("[::]:9249", true),
            ("192.168.1.5:9249", true),
        ] {
            assert_eq!(exposed(&addr.parse().expect("address")), out, "{addr}");
        }
    }
}
