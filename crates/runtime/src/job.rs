//! Building a job's threads from a plan, running them, and collecting the
//! outcome (the same report shape as replay).

use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lowwater_connectors::datagen::DatagenTable;
use lowwater_connectors::dump::format_record;
use lowwater_connectors::row::RowBuilder;
use lowwater_connectors::sink::SinkFormat;
use lowwater_core::assignment::split_owner;
use lowwater_core::clock::Clock;
use lowwater_core::source::{SourceSubtask, SplitId, SplitView};
use lowwater_core::window::operator::LateCounters;
use lowwater_core::{Millis, Timestamp, Value, MIN_WATERMARK};
use lowwater_replay::report::{
    PartitionReport, ReplayInfo, Report, SinkReport, StallReport, Totals,
};
use lowwater_sql::options::Connector;
use lowwater_sql::plan::JobPlan;

use crate::clock::SystemClock;
use crate::monitor::Monitor;
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

/// A sink's counters, behind their own short-held lock: readers (the
/// monitor, the HTTP endpoints) never wait for the sink's I/O, which can
/// block for minutes while a Kafka broker is away.
#[derive(Debug, Clone, Default)]
pub(crate) struct SinkCounters {
    pub rows: u64,
    pub window_rows: u64,
    pub late_rows: u64,
    pub max_lag: Option<Millis>,
    /// When the last row was written, and the emission lag of the last
    /// window row.
    pub last_emit: Option<Timestamp>,
    pub last_lag: Option<Millis>,
    /// Window rows later than `lowwater.sink.max-emission-lag`.
    pub lag_breaches: u64,
}

/// A sink table's writer, shared by the window subtasks writing to it.
pub(crate) struct SinkWriter {
    pub format: SinkFormat,
    pub out: Option<Box<dyn Write + Send>>,
    pub kafka: Option<lowwater_kafka::TopicWriter>,
    /// An exactly-once Kafka sink: rows go into the job's transaction.
    pub txn: Option<crate::txn::TxnSink>,
    /// A filesystem sink under checkpoints: part files per window subtask,
    /// finished when their checkpoint completes.
    pub parts: Option<crate::fs_sink::PartFiles>,
    pub dump: bool,
    /// Rows written (the offsets of dump output).
    pub written: u64,
    pub counters: Arc<Mutex<SinkCounters>>,
    /// Emission lag of window rows, in seconds.
    pub lag_seconds: prometheus_client::metrics::histogram::Histogram,
    /// `lowwater.sink.max-emission-lag`.
    pub max_emission_lag: Option<Millis>,
}

impl SinkWriter {
    pub fn write(
        &mut self,
        values: &[Value],
        now: Timestamp,
        lag: Option<Millis>,
        subtask: usize,
    ) -> std::io::Result<()> {
        let offset = self.written as i64;
        self.written += 1;
        if let Ok(mut c) = self.counters.lock() {
            c.rows += 1;
            c.last_emit = Some(now);
            match lag {
                Some(l) => {
                    c.window_rows += 1;
                    c.max_lag = Some(c.max_lag.map_or(l, |m| m.max(l)));
                    c.last_lag = Some(l);
                    if self.max_emission_lag.is_some_and(|m| l > m) {
                        c.lag_breaches += 1;
                    }
                }
                None => c.late_rows += 1,
            }
        }
        if let Some(l) = lag {
            self.lag_seconds.observe(l as f64 / 1000.0);
        }
        if let Some(k) = &mut self.kafka {
            let r = self.format.render(values);
            return k
                .send(r.key.as_deref(), &r.payload, now, subtask)
                .map_err(std::io::Error::other);
        }
        if let Some(t) = &mut self.txn {
            let r = self.format.render(values);
            return t
                .send(r.key.as_deref(), &r.payload, now, subtask)
                .map_err(std::io::Error::other);
        }
        if let Some(p) = &mut self.parts {
            return p.write(subtask, &self.format.render(values).payload);
        }
        let Some(out) = self.out.as_mut() else {
            return Ok(());
        };
        if self.dump {
            writeln!(
                out,
                "{}",
                format_record(&self.format.dump_record(values, offset, now))
            )
        } else {
            writeln!(out, "{}", self.format.render(values).payload)
        }
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        if let Some(k) = &self.kafka {
            k.flush().map_err(std::io::Error::other)?;
        }
        if let Some(p) = &mut self.parts {
            p.flush()?;
        }
        match self.out.as_mut() {
            Some(o) => o.flush(),
            None => Ok(()),
        }
    }
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

fn sink_writer(
    plan: &JobPlan,
    t: usize,
    outputs: &[(usize, PathBuf)],
    lag_histograms: &crate::observe::LagFamily,
    eo: Option<&crate::txn::ExactlyOnce>,
    restored: Option<lowwater_core::checkpoint::CheckpointId>,
) -> Result<SinkWriter, RunError> {
    let table = &plan.tables[t];
    let format = SinkFormat::new(table);
    let file = |p: &PathBuf| -> Result<Box<dyn Write + Send>, RunError> {
        let f =
            std::fs::File::create(p).map_err(|e| RunError::Io(format!("{}: {e}", p.display())))?;
        Ok(Box::new(std::io::BufWriter::new(f)))
    };
    let mut kafka = None;
    let mut txn = None;
    let mut parts = None;
    let (out, dump): (Option<Box<dyn Write + Send>>, bool) = match outputs
        .iter()
        .find(|(o, _)| *o == t)
    {
        Some((_, path)) => (Some(file(path)?), true),
        None => match &table.connector {
            Connector::Print => (Some(Box::new(std::io::stdout())), false),
            Connector::Blackhole => (None, false),
            Connector::Filesystem { path } if plan.settings.checkpoints.interval.is_some() => {
                let p = plan.settings.parallelism;
                parts = Some(
                    crate::fs_sink::PartFiles::open(&PathBuf::from(path), p, restored.unwrap_or(0))
                        .map_err(|e| RunError::Io(format!("sink '{}': {e}", table.name)))?,
                );
                (None, false)
            }
            Connector::Filesystem { path } => {
                let dir = PathBuf::from(path);
                std::fs::create_dir_all(&dir)
                    .map_err(|e| RunError::Io(format!("{}: {e}", dir.display())))?;
                (Some(file(&dir.join("part-0.json"))?), false)
            }
            Connector::Kafka {
                topics, properties, ..
            } => {
                let topic = topics.first().cloned().unwrap_or_default();
                let partitioner = table
                    .options
                    .get("sink.partitioner")
                    .and_then(|v| lowwater_kafka::Partitioner::parse(v))
                    .unwrap_or(lowwater_kafka::Partitioner::Default);
                let fail = |e: String| RunError::Usage(format!("sink '{}': {e}", table.name));
                match eo.filter(|_| table.exactly_once()) {
                    Some(eo) => {
                        txn = Some(
                            crate::txn::TxnSink::new(eo, properties, &topic, partitioner)
                                .map_err(fail)?,
                        )
                    }
                    None => {
                        kafka = Some(
                            lowwater_kafka::TopicWriter::new(properties, &topic, partitioner)
                                .map_err(fail)?,
                        )
                    }
                }
                (None, false)
            }
            other => {
                return Err(RunError::Usage(format!(
                    "sink '{}' uses connector '{}', which `lowwater run` cannot write yet; \
                     use --output {}=FILE to write its rows as a topic dump",
                    table.name,
                    other.name(),
                    table.name
                )))
            }
        },
    };
    Ok(SinkWriter {
        format,
        out,
        kafka,
        txn,
        parts,
        dump,
        written: 0,
        counters: Arc::new(Mutex::new(SinkCounters::default())),
        lag_seconds: lag_histograms
            .get_or_create(&vec![("sink".to_string(), table.name.clone())])
            .clone(),
        max_emission_lag: table.max_emission_lag,
    })
}

/// Moves a file or dump input to a checkpoint's position (lines or records
/// already read); Kafka and datagen inputs position themselves.
fn skip_to(input: &mut Input, pos: i64) -> Result<(), RunError> {
    match input {
        Input::Lines {
            path,
            reader,
            buf,
            line,
        } => {
            use std::io::BufRead;
            while (*line as i64) < pos {
                buf.clear();
                let n = reader
                    .read_until(b'\n', buf)
                    .map_err(|e| RunError::Io(format!("{}: {e}", path.display())))?;
                if n == 0 {
                    return Err(RunError::Usage(format!(
                        "{}: the checkpoint read {pos} lines of it, but it has only {line} now; \
                         was the file replaced? Start without state with --reset-state",
                        path.display()
                    )));
                }
                *line += 1;
            }
        }
        Input::Dump { recs, read, .. } => {
            let n = usize::try_from(pos).unwrap_or(0).min(recs.len());
            recs.drain(..n);
            *read = n as i64;
        }
        Input::Gen(_) | Input::Kafka => {}
    }
    Ok(())
}

/// The Kafka offsets a checkpoint holds for `parts` of table `table`.
fn kafka_offsets(
    snap: &crate::checkpoint::JobSnapshot,
    table: &str,
    parts: &[(String, i32)],
) -> BTreeMap<(String, i32), i64> {
    parts
        .iter()
        .filter_map(|(topic, p)| {
            let key = crate::checkpoint::SplitKey {
                table: table.to_string(),
                topic: topic.clone(),
                partition: *p,
            };
            Some(((topic.clone(), *p), snap.position(&key)?))
        })
        .collect()
}

/// The report counters a checkpoint carries (records read and filtered,
/// skipped records, nulled fields).
fn restore_counters(shared: &Shared, snap: &crate::checkpoint::JobSnapshot) {
    for (si, parts) in snap.sources.iter().enumerate() {
        let Some(src) = shared.sources.get(si) else {
            continue;
        };
        src.records
            .store(parts.iter().map(|p| p.records).sum(), Ordering::Relaxed);
        src.filtered
            .store(parts.iter().map(|p| p.filtered).sum(), Ordering::Relaxed);
        for (s, part) in parts.iter().enumerate() {
            if let Some(Ok(mut v)) = src.subtasks.get(s).map(|m| m.lock()) {
                v.skipped.clone_from(&part.skipped);
                v.nulled.clone_from(&part.nulled);
            }
        }
    }
}

/// Without checkpoints, Kafka offsets are committed behind the windows
/// written (at least once): say once per table what a restart then does.
fn warn_offsets_without_checkpoints(plan: &JobPlan, dumps: &BTreeMap<usize, PathBuf>) {
    let mut told = Vec::new();
    for pl in &plan.pipelines {
        let t = &plan.tables[pl.source];
        let Connector::Kafka { properties, .. } = &t.connector else {
            continue;
        };
        let Some(group) = properties.get("group.id") else {
            continue;
        };
        if dumps.contains_key(&pl.source) || told.contains(&pl.source) {
            continue;
        }
        told.push(pl.source);
        match crate::progress::release_after(plan, pl.source) {
            Some(_) => tracing::warn!(
                "source '{}': no checkpoints, so offsets are committed to group '{group}' only \
                 behind records whose windows were written: a restart from group offsets reads \
                 again the records of windows still open (none is lost), and may write again \
                 windows that had fired, some with part of their records. SET \
                 'execution.checkpointing.interval' and 'execution.checkpointing.dir' for exact \
                 restarts",
                t.name
            ),
            None => tracing::warn!(
                "source '{}': no checkpoints and session windows, whose end is never known in \
                 advance: offsets are not committed to group '{group}' while the job runs (a \
                 restart reads from the last committed ones). SET 'execution.checkpointing.interval' \
                 and 'execution.checkpointing.dir' for exact restarts",
                t.name
            ),
        }
    }
}

/// The inputs of one source table: splits with their readers.
fn source_inputs(
    plan: &JobPlan,
    t: usize,
    dump: Option<&PathBuf>,
    start: Timestamp,
) -> Result<Vec<(String, i32, Input)>, RunError> {
    let table = &plan.tables[t];
    if let Some(path) = dump {
        let loaded = lowwater_replay::input::load(&[(t, path.clone())])
            .map_err(|e| RunError::Usage(e.to_string()))?;
        let mut by_split: BTreeMap<(u32, i32), VecDeque<lowwater_replay::input::Loaded>> =
            BTreeMap::new();
        for l in loaded.records {
            by_split
                .entry((l.topic, l.partition))
                .or_default()
                .push_back(l);
        }
        return Ok(by_split
            .into_iter()
            .map(|((topic, p), recs)| {
                (
                    loaded.topics[topic as usize].clone(),
                    p,
                    Input::Dump {
                        path: path.clone(),
                        recs,
                        read: 0,
                    },
                )
            })
            .collect());
    }
    match &table.connector {
        Connector::Datagen(d) => {
            let g = DatagenTable::new(table, d);
            Ok((0..g.partitions())
                .map(|p| {
                    (
                        table.name.clone(),
                        p,
                        Input::Gen(Box::new(g.partition(p, start))),
                    )
                })
                .collect())
        }
        Connector::Kafka {
            topics, properties, ..
        } => {
            let mut inputs = Vec::new();
            for topic in topics {
                for p in lowwater_kafka::partitions(properties, topic)
                    .map_err(|e| RunError::Usage(format!("source '{}': {e}", table.name)))?
                {
                    inputs.push((topic.clone(), p, Input::Kafka));
                }
            }
            Ok(inputs)
        }
        Connector::Filesystem { path } => {
            let root = PathBuf::from(path);
            let mut files: Vec<PathBuf> = if root.is_dir() {
                std::fs::read_dir(&root)
                    .map_err(|e| RunError::Io(format!("{}: {e}", root.display())))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_file())
                    .collect()
            } else {
                vec![root.clone()]
            };
            files.sort();
            let mut inputs = Vec::new();
            for (i, f) in files.into_iter().enumerate() {
                let file = std::fs::File::open(&f)
                    .map_err(|e| RunError::Io(format!("{}: {e}", f.display())))?;
                let reader = std::io::BufReader::with_capacity(1 << 16, file);
                inputs.push((
                    table.name.clone(),
                    i as i32,
                    Input::Lines {
                        path: f,
                        reader,
                        buf: Vec::new(),
                        line: 0,
                    },
                ));
            }
            Ok(inputs)
        }
        other => Err(RunError::Usage(format!(
            "source '{}' uses connector '{}', which `lowwater run` cannot read yet; \
             use --input {}=DUMP to read a topic dump (kcat -J lines) in its place",
            table.name,
            other.name(),
            table.name
        ))),
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
        .unwrap_or_else(|| lowwater_replay::default_threshold(&plan));
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

/// The report's shape from the live counters (at the end of a run, or at
/// any moment for `/api/v1/watermarks`).
pub(crate) fn report(
    plan: &JobPlan,
    shared: &Shared,
    stalls: Vec<StallReport>,
    threshold: Millis,
    drained: bool,
) -> Report {
    let splits = shared.splits.read().map(|s| s.clone()).unwrap_or_default();
    report_from(
        plan,
        shared,
        &splits,
        &views(shared),
        stalls,
        threshold,
        drained,
    )
    .0
}

/// Every source subtask's view (per source, per subtask), taken once so
/// that what is derived from them describes one moment.
pub(crate) fn views(shared: &Shared) -> Vec<Vec<SubtaskView>> {
    shared
        .sources
        .iter()
        .map(|src| {
            src.subtasks
                .iter()
                .map(|m| m.lock().map(|v| v.clone()).unwrap_or_default())
                .collect()
        })
        .collect()
}

/// The report from `splits` and `views` taken by the caller, with the id
/// of the split behind each entry of `partitions`.
pub(crate) fn report_from(
    plan: &JobPlan,
    shared: &Shared,
    splits: &[SplitMeta],
    views: &[Vec<SubtaskView>],
    stalls: Vec<StallReport>,
    threshold: Millis,
    drained: bool,
) -> (Report, Vec<SplitId>) {
    let mut totals = Totals {
        records_in: shared
            .sources
            .iter()
            .map(|s| s.records.load(Ordering::Relaxed))
            .sum(),
        records_out: 0,
        late_records_dropped: 0,
        late_records_routed: 0,
        records_skipped: 0,
        fields_nulled: 0,
        records_filtered: shared
            .sources
            .iter()
            .map(|s| s.filtered.load(Ordering::Relaxed))
            .sum(),
    };
    let mut partitions = Vec::new();
    let mut ids = Vec::new();
    let late: Vec<LateCounters> = shared
        .late
        .iter()
        .flatten()
        .filter_map(|l| l.lock().ok().map(|l| l.clone()))
        .collect();
    for (id, meta) in splits.iter().enumerate() {
        let id = id as SplitId;
        let Some(view) = shared
            .sources
            .iter()
            .position(|s| s.table == meta.table)
            .and_then(|si| views.get(si)?.get(meta.subtask))
        else {
            continue;
        };
        let Some(split) = view.splits.iter().find(|s| s.id == id).copied() else {
            continue;
        };
        let dropped: u64 = late
            .iter()
            .map(|l| l.dropped.get(&id).copied().unwrap_or(0))
            .sum();
        let routed: u64 = late
            .iter()
            .map(|l| l.routed.get(&id).copied().unwrap_or(0))
            .sum();
        let skipped = view.skipped.get(&id).copied().unwrap_or(0);
        let nulled = view.nulled.get(&id).copied().unwrap_or(0);
        totals.late_records_dropped += dropped;
        totals.late_records_routed += routed;
        totals.records_skipped += skipped;
        totals.fields_nulled += nulled;
        partitions.push(PartitionReport {
            table: plan.tables[meta.table].name.clone(),
            topic: meta.topic.clone(),
            partition: meta.partition,
            subtask: meta.subtask,
            records: split.records,
            late_records_dropped: dropped,
            late_records_routed: routed,
            records_skipped: skipped,
            fields_nulled: nulled,
            final_watermark: lowwater_replay::report::wm(split.watermark),
            idle: split.idle,
            last_event_time: split.max_event_time,
            last_arrival: split.last_arrival,
        });
        ids.push(id);
    }
    let sinks: Vec<SinkReport> = shared
        .sink_counters
        .iter()
        .filter_map(|(t, w)| {
            let w = w.lock().ok()?;
            Some(SinkReport {
                table: plan.tables[*t].name.clone(),
                rows: w.rows,
                window_rows: w.window_rows,
                late_rows: w.late_rows,
                max_emission_lag_ms: w.max_lag,
            })
        })
        .collect();
    totals.records_out = sinks.iter().map(|s| s.rows).sum();
    let report = Report {
        totals,
        partitions,
        sinks,
        stalls,
        replay: ReplayInfo {
            start_ts: shared.start,
            end_ts: shared.clock.now(),
            emit_interval_ms: plan.settings.emit_interval,
            parallelism: plan.settings.parallelism,
            stall_threshold_ms: threshold,
            drained,
        },
    };
    (report, ids)
}
