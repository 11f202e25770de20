//! # lowwater-replay: incidents replayed in virtual time
//!
//! `lowwater replay` runs a job over topic dumps (the `kcat -J` shape) with
//! the dumps' arrival timestamps as the processing-time clock, so that hours
//! of a production incident replay in seconds, bit for bit, and a changed
//! setting (an idle timeout, say) can be compared on the same data. The
//! report names every stall of the event-time watermark, the partition that
//! held it and what releases it.

pub mod engine;
pub mod error;
pub mod input;
pub mod report;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use lowwater_connectors::dump::DumpRecord;
use lowwater_connectors::input::sorted::SortOptions;
use lowwater_core::{Millis, Timestamp};
use lowwater_sql::options::Connector;
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
}

fn table_index(plan: &JobPlan, name: &str, what: &str) -> Result<usize, ReplayError> {
    plan.table(name).ok_or_else(|| {
        ReplayError::Usage(format!(
            "{what} names table '{name}', which the job does not define (tables: {})",
            plan.tables
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// The default stall threshold: 3 x max(largest window, emit interval).
pub fn default_threshold(plan: &JobPlan) -> Millis {
    plan.default_stall_threshold()
}

/// Replays `plan` over the inputs.
pub fn replay(plan: &JobPlan, args: &ReplayArgs) -> Result<Outcome, ReplayError> {
    replay_observed(plan, args, &mut |_| {})
}

/// Where a record came from, kept while alignment may read it later.
#[derive(Debug, Clone, Copy)]
struct Origin {
    file: usize,
    line: usize,
    table: usize,
    topic: u32,
    partition: i32,
    offset: Option<i64>,
}

impl Origin {
    fn of(l: &input::Loaded) -> Self {
        Origin {
            file: l.file,
            line: l.line,
            table: l.table,
            topic: l.topic,
            partition: l.partition,
            offset: l.offset,
        }
    }
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
    let sources: Vec<usize> = plan.pipelines.iter().map(|p| p.source).collect();
    let mut inputs = Vec::new();
    for (name, path) in &args.inputs {
        let t = table_index(plan, name, "--input")?;
        if !sources.contains(&t) {
            return Err(ReplayError::Usage(format!(
                "--input {name}: table '{name}' is not read by any INSERT of the job"
            )));
        }
        inputs.push((t, path.clone()));
    }
    let mut declared = Vec::new();
    for (name, n) in &args.partitions {
        let t = table_index(plan, name, "--partitions")?;
        if *n < 1 {
            return Err(ReplayError::Usage(format!(
                "--partitions {name}={n}: needs at least 1"
            )));
        }
        declared.push((t, *n));
    }
    for &s in &sources {
        if !inputs.iter().any(|(t, _)| *t == s) && !declared.iter().any(|(t, _)| *t == s) {
            return Err(ReplayError::Usage(format!(
                "no --input for source table '{}' (give its dump, or --partitions {}=N for a silent topic)",
                plan.tables[s].name, plan.tables[s].name
            )));
        }
    }
    let sort = SortOptions {
        buffer_bytes: args.sort_buffer_bytes,
        spill_dir: args.spill_dir.clone(),
    };
    let mut sorted = input::sorted::sort(&inputs, &sort, &mut |bytes, total| {
        observe(Progress::Reading { bytes, total })
    })?;
    let topic_names = std::mem::take(&mut sorted.topics);
    let paths: Vec<PathBuf> = inputs.iter().map(|(_, p)| p.clone()).collect();
    let distinct = sorted.partitions.clone();
    let mut splits = Vec::new();
    for (&(table, topic, partition), first) in &distinct {
        let t = &plan.tables[table];
        let topic_name = &topic_names[topic as usize];
        if let Connector::Kafka { topics, .. } = &t.connector {
            if !topics.contains(topic_name) {
                return Err(ReplayError::Record(Box::new(error::RecordFailure {
                    path: paths[first.file].clone(),
                    line: first.line,
                    table: t.name.clone(),
                    topic: topic_name.clone(),
                    partition,
                    offset: offset_text(first.offset),
                    message: format!(
                        "table {} reads topic(s) {}, not this record's topic",
                        t.name,
                        topics.join(", ")
                    ),
                    hint: None,
                })));
            }
        }
        splits.push((table, topic_name.clone(), partition));
    }
    for (t, n) in &declared {
        let mut topics = plan.tables[*t].topics();
        if !matches!(plan.tables[*t].connector, Connector::Kafka { .. }) {
            let seen: Vec<String> = splits
                .iter()
                .filter(|s| s.0 == *t)
                .map(|s| s.1.clone())
                .collect();
            if let Some(first) = seen.first() {
                topics = vec![first.clone()];
            }
        }
        for topic in topics {
            for p in 0..*n {
                splits.push((*t, topic.clone(), p));
            }
        }
    }
    let t0 = sorted.first_ts.unwrap_or(0);
    let threshold = args
        .stall_threshold
        .unwrap_or_else(|| default_threshold(plan));
    let mut engine =
        engine::Engine::new(plan, &splits, t0, threshold).map_err(ReplayError::Usage)?;
    // Split ids by (table, topic) and partition, looked up once per record
    // without hashing for the partition numbers topics have; a partition
    // number is an id, not an index: any other (2147483647, -5) is looked
    // up in a map instead of sizing a table after it.
    const DENSE: i32 = 1 << 16;
    let slot = |table: usize, topic: u32| table * topic_names.len() + topic as usize;
    let mut ids: Vec<Vec<Option<u32>>> = vec![Vec::new(); plan.tables.len() * topic_names.len()];
    let mut sparse: HashMap<(usize, i32), u32> = HashMap::new();
    for &(table, topic, partition) in distinct.keys() {
        if let Some(id) = engine.split_id(table, &topic_names[topic as usize], partition) {
            if (0..DENSE).contains(&partition) {
                let v = &mut ids[slot(table, topic)];
                let p = partition as usize;
                if v.len() <= p {
                    v.resize(p + 1, None);
                }
                v[p] = Some(id);
            } else {
                sparse.insert((slot(table, topic), partition), id);
            }
        }
    }
    let split_of = |table: usize, topic: u32, partition: i32| -> Option<u32> {
        if (0..DENSE).contains(&partition) {
            ids[slot(table, topic)]
                .get(partition as usize)
                .copied()
                .flatten()
        } else {
            sparse.get(&(slot(table, topic), partition)).copied()
        }
    };
    let mut restarts = args.restarts.clone();
    restarts.sort_unstable();
    restarts.reverse();
    let mut written: BTreeMap<usize, Vec<DumpRecord>> = BTreeMap::new();
    // Where records came from, by the driver's index: the current one, and
    // with alignment those it may still hold back (pruned below the oldest
    // it holds).
    let mut held: BTreeMap<usize, Origin> = BTreeMap::new();
    let mut current: Option<(usize, Origin)> = None;
    let failure =
        |f: engine::Failed, held: &BTreeMap<usize, Origin>, current: Option<(usize, Origin)>| {
            let o = match current {
                Some((i, o)) if i == f.origin => Some(o),
                _ => held.get(&f.origin).copied(),
            };
            let Some(o) = o else {
                return ReplayError::Usage(f.error.message);
            };
            ReplayError::Record(Box::new(error::RecordFailure {
                path: paths[o.file].clone(),
                line: o.line,
                table: plan.tables[o.table].name.clone(),
                topic: topic_names[o.topic as usize].clone(),
                partition: o.partition,
                offset: offset_text(o.offset),
                message: f.error.message,
                hint: plan.tables[o.table]
                    .value_format
                    .skip_option()
                    .filter(|_| f.error.decode),
            }))
        };
    let total = sorted.records;
    let aligns = engine.aligns();
    let mut pruned_at = 0usize;
    let mut read = 0u64;
    for (origin, l) in sorted.by_ref().enumerate() {
        let l = l?;
        read += 1;
        while restarts.last().is_some_and(|t| *t < l.ts) {
            restarts.pop();
            engine = restart(plan, &splits, t0, threshold, engine, &mut written)?;
        }
        let here = Origin::of(&l);
        current = Some((origin, here));
        let rec = engine::RecordRef {
            topic: &topic_names[l.topic as usize],
            partition: l.partition,
            offset: l.offset,
            ts: l.ts,
            payload: l.payload.as_deref(),
            key: l.key.as_deref(),
        };
        let id = split_of(l.table, l.topic, l.partition).ok_or_else(|| {
            failure(
                engine::Failed {
                    origin,
                    error: engine::RecordError::other(
                        "the record's partition is not a split of this job",
                    ),
                },
                &held,
                current,
            )
        })?;
        engine
            .process(origin, l.table, id, rec)
            .map_err(|f| failure(f, &held, current))?;
        if let Some(e) = engine.sink_error() {
            return Err(ReplayError::Usage(e.to_string()));
        }
        // Kept while alignment holds it back; dropped once it holds none
        // older (the held records' count bounds the map).
        if aligns {
            if engine.is_deferred(id, origin) {
                held.insert(origin, here);
            }
            if held.len() >= 2 * pruned_at.max(1024) {
                let oldest = engine.oldest_deferred().unwrap_or(origin + 1);
                held = held.split_off(&oldest);
                pruned_at = held.len();
            }
        }
        if origin % 16_384 == 0 {
            observe(Progress::Replaying {
                records: origin as u64,
                total,
                now: engine.now(),
            });
        }
    }
    if read != total {
        return Err(ReplayError::Usage(format!(
            "the dumps held {total} records when first read and {read} when replayed: \
             an input changed while it was replayed; replay a copy that is not being written"
        )));
    }
    if !restarts.is_empty() {
        engine = restart(plan, &splits, t0, threshold, engine, &mut written)?;
    }
    engine
        .finish(args.drain)
        .map_err(|f| failure(f, &held, current))?;
    observe(Progress::Replaying {
        records: total,
        total,
        now: engine.now(),
    });
    if let Some(e) = engine.sink_error() {
        return Err(ReplayError::Usage(e.to_string()));
    }
    let report = report::build(plan, &engine, threshold, args.drain);
    let outputs = engine
        .take_sinks()
        .into_iter()
        .map(|(t, s)| {
            let mut rows = written.remove(&t).unwrap_or_default();
            rows.extend(s.records);
            (plan.tables[t].name.clone(), rows)
        })
        .collect();
    let peak_open_windows = plan
        .pipelines
        .iter()
        .enumerate()
        .map(|(pi, pl)| (plan.tables[pl.sink].name.clone(), engine.peak_open(pi)))
        .collect();
    Ok(Outcome {
        report,
        outputs,
        peak_open_windows,
    })
}

/// Checkpoints `engine` to bytes, drops it, and returns a new engine
/// restored from those bytes (its rows so far move to `written`).
fn restart<'p>(
    plan: &'p JobPlan,
    splits: &[(usize, String, i32)],
    t0: Timestamp,
    threshold: Millis,
    mut engine: engine::Engine<'p>,
    written: &mut BTreeMap<usize, Vec<DumpRecord>>,
) -> Result<engine::Engine<'p>, ReplayError> {
    for (t, rows) in engine.take_records() {
        written.entry(t).or_default().extend(rows);
    }
    let bytes = lowwater_core::checkpoint::encode(1, &engine.snapshot())
        .map_err(|e| ReplayError::Usage(e.to_string()))?;
    drop(engine);
    let (_, snap) =
        lowwater_core::checkpoint::decode(&bytes).map_err(|e| ReplayError::Usage(e.to_string()))?;
    let mut fresh = engine::Engine::new(plan, splits, t0, threshold).map_err(ReplayError::Usage)?;
    fresh.restore(snap).map_err(ReplayError::Usage)?;
    Ok(fresh)
}

fn offset_text(offset: Option<i64>) -> String {
    offset.map_or("?".to_string(), |o| o.to_string())
}
