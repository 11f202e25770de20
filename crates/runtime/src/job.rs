//! Building a job's threads from a plan, running them, and collecting the
//! outcome (the same report shape as replay).

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lowwater_connectors::datagen::DatagenTable;
use lowwater_connectors::row::RowBuilder;
use lowwater_core::assignment::split_owner;
use lowwater_core::clock::Clock;
use lowwater_core::source::{SourceSubtask, SplitId, SplitView};
use lowwater_core::window::operator::LateCounters;
use lowwater_core::{Millis, Timestamp, MIN_WATERMARK};
use lowwater_report::Report;
use lowwater_sql::options::Connector;
use lowwater_sql::plan::JobPlan;

use crate::clock::SystemClock;
use crate::inputs::{
    kafka_offsets, restore_counters, skip_to, source_inputs, warn_offsets_without_checkpoints,
};
use crate::monitor::Monitor;
use crate::report::report;
use crate::sink::{sink_writer, SinkCounters, SinkWriter};
use crate::source::{Input, PipeOut, SourceTask};
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
}

impl Default for RunArgs {
    fn default() -> Self {
        RunArgs {
            inputs: Vec::new(),
            outputs: Vec::new(),
            duration: None,
            stall_threshold: None,
            stop: Arc::new(AtomicBool::new(false)),
            batch: 512,
            channel_capacity: 16,
            http: None,
            job_name: "job".to_string(),
            from_checkpoint: None,
            reset_state: false,
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
}

/// A split's identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SplitMeta {
    pub table: usize,
    pub topic: String,
    pub partition: i32,
    pub subtask: usize,
}

/// What a source subtask publishes for the monitor and the report.
#[derive(Debug, Clone, Default)]
pub(crate) struct SubtaskView {
    pub watermark: Timestamp,
    pub idle: bool,
    pub splits: Vec<SplitView>,
    pub skipped: BTreeMap<SplitId, u64>,
    pub nulled: BTreeMap<SplitId, u64>,
    /// How far each Kafka partition's reader is from the partition's end.
    pub backlog: BTreeMap<SplitId, lowwater_kafka::Backlog>,
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
    /// Partitions found by partition discovery, per subtask, waiting to be
    /// picked up on the subtask's next periodic emit.
    pub discovered: Vec<Mutex<Vec<(SplitId, String, i32)>>>,
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
    /// Late counters per pipeline and window subtask, published live.
    pub late: Vec<Vec<Mutex<LateCounters>>>,
    /// What the monitor knows (stalls, history), for the HTTP endpoints.
    pub live: Mutex<crate::observe::LiveState>,
    /// The emission lag histograms of the sinks, by sink table name.
    pub lag_histograms: crate::observe::LagFamily,
    /// The hasher of the key exchange, one for all source subtasks. Its
    /// seed is fixed: a key must reach the same window subtask after a
    /// restore as before it, where its state is.
    pub route: foldhash::fast::FixedState,
    /// Checkpoints: requested, in progress, completed, statistics.
    pub checkpoints: crate::checkpoint::Checkpoints,
    /// Source subtasks that have finished (bounded inputs, or stopped).
    pub ended_sources: std::sync::atomic::AtomicUsize,
    /// Table names by index (for checkpoint files).
    pub table_names: Vec<String>,
    /// The transactional producer of exactly-once Kafka sinks.
    pub exactly_once: Option<crate::txn::ExactlyOnce>,
}

impl Shared {
    /// The name of table `t`.
    pub fn table_name(&self, t: usize) -> String {
        self.table_names.get(t).cloned().unwrap_or_default()
    }

    /// Whether the job has failed.
    pub fn failed(&self) -> bool {
        self.error.lock().map_or(true, |e| e.is_some())
    }

    /// Records the first error and stops the job.
    pub fn fail(&self, e: RunError) {
        if let Ok(mut slot) = self.error.lock() {
            if slot.is_none() {
                *slot = Some(e);
            }
        }
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Runs `plan` until its bounded inputs end (then drains: every window
/// fires) or `args.stop` is set or `args.duration` passes (then stops:
/// emitted rows are flushed, pending windows are not fired, as a Flink job
/// stopped without drain).
pub fn run(plan: &JobPlan, args: &RunArgs) -> Result<RunOutcome, RunError> {
    let plan = Arc::new(plan.clone());
    let p = plan.settings.parallelism;
    let clock = SystemClock::new();
    let start = clock.now();
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
        if !plan.pipelines.iter().any(|p| p.source == t) {
            return Err(RunError::Usage(format!(
                "--input {name}: table '{name}' is not read by any INSERT of the job"
            )));
        }
        dumps.insert(t, path.clone());
    }
    let mut outputs = Vec::new();
    for (name, path) in &args.outputs {
        let t = named(name, "--output")?;
        if !plan
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
    // Source tables and their splits.
    let mut source_tables: Vec<usize> = Vec::new();
    for pl in &plan.pipelines {
        if !source_tables.contains(&pl.source) {
            source_tables.push(pl.source);
        }
    }
    let checkpointing = plan.settings.checkpoints.interval.is_some();
    let store = match &plan.settings.checkpoints.dir {
        Some(dir) => Some(
            crate::checkpoint::FileStore::open(&PathBuf::from(dir).join(&args.job_name))
                .map_err(RunError::Usage)?,
        ),
        None => None,
    };
    // The transactional producer first: it fences an older instance and
    // settles its open transaction, so the marker read next is final.
    let exactly_once = crate::txn::ExactlyOnce::open(&plan, &args.job_name)?;
    let committed = match &exactly_once {
        Some(eo) => Some(eo.committed()?),
        None => None,
    };
    let restored = crate::restore::load(
        &plan,
        store.as_ref(),
        args.from_checkpoint.as_deref(),
        args.reset_state,
        start,
        committed,
    )?;
    let snapshot = restored.as_ref().map(|r| &r.snapshot);
    let mut all = Vec::new();
    for (si, &t) in source_tables.iter().enumerate() {
        let mut list = source_inputs(&plan, t, dumps.get(&t), start)?;
        list.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        all.extend(
            list.into_iter()
                .map(|(topic, partition, input)| (si, t, topic, partition, input)),
        );
    }
    if let Some(snap) = snapshot {
        let keys: Vec<crate::checkpoint::SplitKey> = all
            .iter()
            .map(|(_, t, topic, partition, _)| crate::checkpoint::SplitKey {
                table: plan.tables[*t].name.clone(),
                topic: topic.clone(),
                partition: *partition,
            })
            .collect();
        let order = crate::restore::split_order(snap, &keys)?;
        let mut slots: Vec<Option<_>> = all.into_iter().map(Some).collect();
        all = order.into_iter().filter_map(|i| slots[i].take()).collect();
    }
    let mut splits = Vec::new();
    let mut inputs_by_source: Vec<Vec<Vec<(SplitId, Input)>>> = source_tables
        .iter()
        .map(|_| (0..p).map(|_| Vec::new()).collect())
        .collect();
    for (si, t, topic, partition, mut input) in all {
        let subtask =
            split_owner(&topic, partition, p).map_err(|e| RunError::Usage(e.to_string()))?;
        let id = splits.len() as SplitId;
        let key = crate::checkpoint::SplitKey {
            table: plan.tables[t].name.clone(),
            topic: topic.clone(),
            partition,
        };
        if let Some(pos) = snapshot.and_then(|s| s.position(&key)) {
            skip_to(&mut input, pos)?;
        }
        splits.push(SplitMeta {
            table: t,
            topic,
            partition,
            subtask,
        });
        inputs_by_source[si][subtask].push((id, input));
    }
    let lag_histograms = crate::observe::lag_family();
    let mut sinks = BTreeMap::new();
    for pl in &plan.pipelines {
        for t in std::iter::once(pl.sink).chain(plan.tables[pl.source].late_data_sink) {
            if let std::collections::btree_map::Entry::Vacant(e) = sinks.entry(t) {
                e.insert(Mutex::new(sink_writer(
                    &plan,
                    t,
                    &outputs,
                    &lag_histograms,
                    exactly_once.as_ref(),
                    restored.as_ref().map(|r| r.id),
                )?));
            }
        }
    }
    let listener = match &args.http {
        Some(addr) => Some(std::net::TcpListener::bind(addr).map_err(|e| {
            RunError::Usage(format!(
                "--http {addr}: cannot listen there ({e}); pick a free port, or port 0 for any"
            ))
        })?),
        None => None,
    };
    let shared = Arc::new(Shared {
        // The user's stop (Ctrl-C, SIGTERM, --duration) is `args.stop`: the
        // main loop takes a final checkpoint before it stops the threads.
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
                discovered: (0..p).map(|_| Mutex::new(Vec::new())).collect(),
            })
            .collect(),
        windows: plan
            .pipelines
            .iter()
            .map(|_| (0..p).map(|_| AtomicI64::new(MIN_WATERMARK)).collect())
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
        live: Mutex::new(crate::observe::LiveState::new(plan.pipelines.len())),
        lag_histograms,
        sink_counters: sinks
            .iter()
            .filter_map(|(t, w)| Some((*t, w.lock().ok()?.counters.clone())))
            .collect(),
        sinks,
        splits: std::sync::RwLock::new(splits),
        route: foldhash::fast::FixedState::with_seed(0x6c6f_7777_6174_6572),
        checkpoints: crate::checkpoint::Checkpoints::new(
            checkpointing,
            restored.as_ref().map(|r| r.id),
        ),
        ended_sources: std::sync::atomic::AtomicUsize::new(0),
        table_names: plan.tables.iter().map(|t| t.name.clone()).collect(),
        exactly_once,
    });
    if let Some(snap) = snapshot {
        restore_counters(&shared, snap);
    }
    // Channels: one per window subtask, fed by every source subtask of its source.
    let mut window_tasks = Vec::new();
    let mut senders = Vec::new();
    for (pi, _) in plan.pipelines.iter().enumerate() {
        let mut per_window = Vec::new();
        for w in 0..p {
            let (tx, rx) = sync_channel(args.channel_capacity.max(1));
            per_window.push(tx);
            let mut task = WindowTask::new(plan.clone(), pi, w, p, rx, shared.clone())
                .map_err(RunError::Usage)?;
            if let Some(part) = snapshot.and_then(|s| s.windows.get(pi)?.get(w)) {
                task.restore(part.clone());
            }
            window_tasks.push(task);
        }
        senders.push(per_window);
    }
    let mut source_tasks = Vec::new();
    for (si, &t) in source_tables.iter().enumerate() {
        let strategy = plan.tables[t].strategy(&plan.settings).ok_or_else(|| {
            RunError::Usage(format!("table {} has no watermark", plan.tables[t].name))
        })?;
        for (s, inputs) in std::mem::take(&mut inputs_by_source[si])
            .into_iter()
            .enumerate()
        {
            let part = snapshot.and_then(|snap| snap.sources.get(si)?.get(s));
            let mut sub = match part {
                Some(part) => part.sub.clone(),
                None => SourceSubtask::new(strategy).map_err(|e| RunError::Usage(e.to_string()))?,
            };
            let names: Vec<(String, i32)> = {
                let all = shared.splits.read().map_err(|_| {
                    RunError::Usage("the split table is poisoned (a bug in lowwater)".into())
                })?;
                inputs
                    .iter()
                    .map(|(id, _)| {
                        let m = &all[*id as usize];
                        (m.topic.clone(), m.partition)
                    })
                    .collect()
            };
            // librdkafka's statistics (end offsets) are parsed on the
            // source thread: only when lag-aware idleness or the consumer
            // lag metric needs them.
            let statistics = plan.tables[t].caught_up || args.http.is_some();
            let kafka = match (&plan.tables[t].connector, dumps.contains_key(&t)) {
                (Connector::Kafka { properties, .. }, false) if !inputs.is_empty() => {
                    let parts = &names;
                    let options = &plan.tables[t].options;
                    let reader = match snapshot {
                        Some(snap) => {
                            let offsets = kafka_offsets(snap, &plan.tables[t].name, parts);
                            lowwater_kafka::PartitionReader::restored(
                                properties, options, parts, statistics, &offsets,
                            )
                        }
                        None => lowwater_kafka::PartitionReader::new(
                            properties, options, parts, statistics,
                        ),
                    };
                    Some(reader.map_err(|e| {
                        RunError::Usage(format!("source '{}': {e}", plan.tables[t].name))
                    })?)
                }
                _ => None,
            };
            for (id, _) in &inputs {
                if sub.split(*id).is_none() {
                    sub.add_split(*id)
                        .map_err(|e| RunError::Usage(e.to_string()))?;
                }
            }
            if !inputs.is_empty() {
                shared.sources[si].reading.fetch_add(1, Ordering::SeqCst);
            }
            let outs = plan
                .pipelines
                .iter()
                .enumerate()
                .filter(|(_, pl)| pl.source == t)
                .map(|(pi, _)| PipeOut::new(&plan, pi, senders[pi].clone()))
                .collect();
            source_tasks.push(SourceTask {
                source: si,
                subtask: s,
                plan: plan.clone(),
                sub,
                inputs,
                names,
                rows: RowBuilder::new(&plan, t),
                outs,
                shared: shared.clone(),
                batch: args.batch.max(1),
                bounded: dumps.contains_key(&t)
                    || match &plan.tables[t].connector {
                        Connector::Datagen(d) => DatagenTable::new(&plan.tables[t], d).bounded(),
                        Connector::Kafka { .. } => plan.tables[t]
                            .options
                            .get("scan.bounded.mode")
                            .is_some_and(|m| m == "latest-offset"),
                        _ => true,
                    },
                kafka,
                kafka_current: None,
                kafka_pending: None,
                caught_up: plan.tables[t].caught_up && !dumps.contains_key(&t),
                kafka_warned: None,
                kafka_statistics: statistics,
                waits_for_siblings: dumps.contains_key(&t),
                checkpointing,
                checkpoint_seen: restored.as_ref().map_or(0, |r| r.id),
                commits: VecDeque::new(),
                records_read: part.map_or(0, |p| p.records),
                filtered_count: part.map_or(0, |p| p.filtered),
                release_after: crate::progress::release_after(&plan, t),
                trackers: BTreeMap::new(),
            });
        }
    }
    drop(senders);
    let threshold = args
        .stall_threshold
        .unwrap_or_else(|| plan.default_stall_threshold());
    let mut monitor = Monitor::new(plan.clone(), shared.clone(), threshold);
    let mut coordinator = match (plan.settings.checkpoints.interval, store) {
        (Some(interval), Some(store)) => {
            let last = match &restored {
                Some(r) => r.id,
                // Numbering continues after checkpoints left on disk (after
                // --reset-state), so that old files are retired, never
                // overwritten by a different job state.
                None => {
                    use lowwater_core::checkpoint::store::CheckpointStore;
                    store
                        .list()
                        .unwrap_or_default()
                        .into_iter()
                        .max()
                        .unwrap_or(0)
                }
            };
            Some(crate::coordinator::Coordinator::new(
                &plan,
                store,
                crate::restore::identity(&plan),
                interval,
                start,
                last,
                source_tables.len(),
            ))
        }
        _ => {
            warn_offsets_without_checkpoints(&plan, &dumps);
            None
        }
    };
    let deadline = args.duration.map(|d| start + d.as_millis() as i64);
    let watched = crate::discovery::watched(&plan, &source_tables, &dumps);
    let discovery_done = std::sync::atomic::AtomicBool::new(false);
    // Partitions are visible (metrics, API) before the first record.
    for t in &source_tasks {
        t.publish();
    }
    let server = match listener {
        Some(l) => Some(
            crate::observe::Server::start(l, plan.clone(), shared.clone(), threshold)
                .map_err(RunError::Io)?,
        ),
        None => None,
    };
    let completed = std::thread::scope(|scope| {
        if !watched.is_empty() {
            let (plan, shared, watched, done) = (&plan, &shared, &watched, &discovery_done);
            let spawned = std::thread::Builder::new()
                .name("discovery".into())
                .spawn_scoped(scope, move || {
                    crate::discovery::run(plan, shared, watched, done)
                });
            if let Err(e) = spawned {
                shared.fail(RunError::Io(format!(
                    "could not start the partition discovery thread: {e}"
                )));
            }
        }
        let windows: Vec<_> = window_tasks
            .into_iter()
            .map(|w| {
                std::thread::Builder::new()
                    .name(format!("window-{}-{}", w.pipeline(), w.subtask()))
                    .spawn_scoped(scope, move || w.run())
            })
            .collect();
        let sources: Vec<_> = source_tasks
            .into_iter()
            .map(|s| {
                std::thread::Builder::new()
                    .name(format!("source-{}-{}", s.source, s.subtask))
                    .spawn_scoped(scope, move || s.run())
            })
            .collect();
        let handles_alive = || {
            windows
                .iter()
                .any(|h| h.as_ref().is_ok_and(|h| !h.is_finished()))
                || sources
                    .iter()
                    .any(|h| h.as_ref().is_ok_and(|h| !h.is_finished()))
        };
        while handles_alive() {
            let now = shared.clock.now();
            let asked = args.stop.load(Ordering::SeqCst) || deadline.is_some_and(|d| now >= d);
            if asked && !shared.stop.load(Ordering::SeqCst) {
                if let Some(c) = coordinator.as_mut() {
                    let wait = plan.settings.checkpoints.timeout.min(60_000);
                    if c.final_checkpoint(&shared, wait) {
                        tracing::info!(
                            "stopping: final checkpoint {} written; the same command continues from it",
                            shared.checkpoints.completed.load(Ordering::SeqCst)
                        );
                    }
                }
                shared.stop.store(true, Ordering::SeqCst);
            }
            if let Some(c) = coordinator.as_mut() {
                c.tick(now, &shared);
            }
            monitor.tick(now);
            // With checkpoints the coordinator looks more often, so that a
            // checkpoint completes (and its offsets commit) soon after its
            // last part arrives.
            let pause = if coordinator.is_some() { 10 } else { 50 };
            std::thread::sleep(Duration::from_millis(pause));
        }
        discovery_done.store(true, Ordering::SeqCst);
        let mut completed = true;
        for h in sources {
            match h.map(|h| h.join()) {
                Ok(Ok(drained)) => completed &= drained,
                Ok(Err(_)) => {
                    completed = false;
                    shared.fail(RunError::Usage(
                        "a source subtask panicked (a bug in lowwater)".into(),
                    ));
                }
                Err(e) => {
                    completed = false;
                    shared.fail(RunError::Io(format!(
                        "could not start a source thread: {e}"
                    )));
                }
            }
        }
        for h in windows {
            match h.map(|h| h.join()) {
                Ok(Ok(())) => {}
                Ok(Err(_)) => shared.fail(RunError::Usage(
                    "a window subtask panicked (a bug in lowwater)".into(),
                )),
                Err(e) => shared.fail(RunError::Io(format!(
                    "could not start a window thread: {e}"
                ))),
            }
        }
        completed
    });
    monitor.finish(shared.clock.now());
    if let Some(s) = server {
        s.stop();
    }
    for s in shared.sinks.values() {
        if let Ok(mut w) = s.lock() {
            w.flush().map_err(|e| RunError::Io(e.to_string()))?;
        }
    }
    if completed && !shared.failed() {
        // A bounded job's part files all finish as it ends.
        let last = shared.checkpoints.completed.load(Ordering::SeqCst);
        for s in shared.sinks.values() {
            if let Ok(mut w) = s.lock() {
                if let Some(p) = &mut w.parts {
                    p.finish(last).map_err(RunError::Io)?;
                }
            }
        }
    }
    if let (Some(eo), true, false) = (&shared.exactly_once, completed, shared.failed()) {
        // A bounded job's rows after its last checkpoint commit as it ends.
        let last = shared.checkpoints.completed.load(Ordering::SeqCst);
        eo.commit(last).map_err(RunError::Io)?;
    }
    if let Some(e) = shared.error.lock().ok().and_then(|mut e| e.take()) {
        return Err(e);
    }
    let report = report(&plan, &shared, monitor.stalls(), threshold, completed);
    Ok(RunOutcome { report, completed })
}
