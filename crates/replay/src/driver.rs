//! What runs a replay: the inputs checked against the job and ordered once
//! ([`prepare`]), and a [`Driver`] per engine that feeds it the ordered
//! records, restarts it from checkpoints when asked, maps a failed record
//! back to its file and line, and builds the outcome. `lowwater replay`
//! drives one engine; `lowwater tune` feeds the same records to one engine
//! per candidate setting.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use lowwater_connectors::dump::DumpRecord;
use lowwater_connectors::input::sorted::{self, SortOptions, Sorted};
use lowwater_connectors::input::Loaded;
use lowwater_connectors::payload::Payload;
use lowwater_core::{Millis, Timestamp};
use lowwater_sql::options::Connector;
use lowwater_sql::plan::JobPlan;

use crate::{engine, error, report, Outcome, Progress, ReplayArgs, ReplayError, SinkLags};

/// The inputs, checked against the job: what every engine of a replay
/// shares.
pub struct Layout {
    /// Topic names by number (a record's `topic`).
    pub topics: Vec<String>,
    /// The inputs' paths, by a record's `file`.
    pub paths: Vec<PathBuf>,
    /// Every split: (table, topic, partition).
    pub splits: Vec<(usize, String, i32)>,
    /// The (table, topic number, partition) the dumps hold.
    pub seen: Vec<(usize, u32, i32)>,
    /// The earliest arrival: the replay's start.
    pub t0: Timestamp,
    /// Records in the inputs.
    pub records: u64,
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

/// Checks `args`' inputs against `plan`, reads them and orders them (in
/// memory bounded by the sort buffer): the shared layout, and the records
/// in replay order.
pub fn prepare(
    plan: &JobPlan,
    args: &ReplayArgs,
    observe: &mut dyn FnMut(Progress),
) -> Result<(Layout, Sorted), ReplayError> {
    let sources = plan.source_tables();
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
    let mut sorted = sorted::sort(&inputs, &sort, &mut |bytes, total| {
        observe(Progress::Reading { bytes, total })
    })?;
    let topics = std::mem::take(&mut sorted.topics);
    let paths: Vec<PathBuf> = inputs.iter().map(|(_, p)| p.clone()).collect();
    let mut splits = Vec::new();
    for (&(table, topic, partition), first) in &sorted.partitions {
        let t = &plan.tables[table];
        let topic_name = &topics[topic as usize];
        if let Connector::Kafka { topics: read, .. } = &t.connector {
            if !read.contains(topic_name) {
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
                        read.join(", ")
                    ),
                    hint: None,
                })));
            }
        }
        splits.push((table, topic_name.clone(), partition));
    }
    for (t, n) in &declared {
        let mut names = plan.tables[*t].topics();
        if !matches!(plan.tables[*t].connector, Connector::Kafka { .. }) {
            let seen: Vec<String> = splits
                .iter()
                .filter(|s| s.0 == *t)
                .map(|s| s.1.clone())
                .collect();
            if let Some(first) = seen.first() {
                names = vec![first.clone()];
            }
        }
        for topic in names {
            for p in 0..*n {
                splits.push((*t, topic.clone(), p));
            }
        }
    }
    let layout = Layout {
        seen: sorted.partitions.keys().copied().collect(),
        t0: sorted.first_ts.unwrap_or(0),
        records: sorted.records,
        topics,
        paths,
        splits,
    };
    Ok((layout, sorted))
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
    fn of(l: &Loaded) -> Self {
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

/// Split ids by (table, topic) and partition, looked up once per record
/// without hashing for the partition numbers topics have; a partition
/// number is an id, not an index: any other (2147483647, -5) is looked up
/// in a map instead of sizing a table after it.
struct SplitIds {
    topics: usize,
    dense: Vec<Vec<Option<u32>>>,
    sparse: HashMap<(usize, i32), u32>,
}

const DENSE: i32 = 1 << 16;

impl SplitIds {
    fn new(plan: &JobPlan, layout: &Layout, engine: &engine::Engine<'_>) -> Self {
        let topics = layout.topics.len();
        let mut ids = SplitIds {
            topics,
            dense: vec![Vec::new(); plan.tables.len() * topics],
            sparse: HashMap::new(),
        };
        for &(table, topic, partition) in &layout.seen {
            let Some(id) = engine.split_id(table, &layout.topics[topic as usize], partition) else {
                continue;
            };
            let slot = ids.slot(table, topic);
            if (0..DENSE).contains(&partition) {
                let v = &mut ids.dense[slot];
                let p = partition as usize;
                if v.len() <= p {
                    v.resize(p + 1, None);
                }
                v[p] = Some(id);
            } else {
                ids.sparse.insert((slot, partition), id);
            }
        }
        ids
    }

    fn slot(&self, table: usize, topic: u32) -> usize {
        table * self.topics + topic as usize
    }

    fn get(&self, table: usize, topic: u32, partition: i32) -> Option<u32> {
        let slot = self.slot(table, topic);
        if (0..DENSE).contains(&partition) {
            self.dense[slot].get(partition as usize).copied().flatten()
        } else {
            self.sparse.get(&(slot, partition)).copied()
        }
    }
}

/// One engine fed the ordered records.
pub struct Driver<'p, 'l> {
    plan: &'p JobPlan,
    layout: &'l Layout,
    engine: engine::Engine<'p>,
    ids: SplitIds,
    threshold: Millis,
    /// Restart times, latest first.
    restarts: Vec<Timestamp>,
    /// Rows of engines before a restart.
    written: BTreeMap<usize, Vec<DumpRecord>>,
    /// Where records came from, by the driver's index: the current one,
    /// and with alignment those it may still hold back (pruned below the
    /// oldest it holds).
    held: BTreeMap<usize, Origin>,
    current: Option<(usize, Origin)>,
    aligns: bool,
    pruned_at: usize,
    read: u64,
    keep_rows: bool,
}

impl<'p, 'l> Driver<'p, 'l> {
    /// A driver of a new engine for `plan` over `layout`. Without
    /// `keep_rows` the sinks count their rows without keeping them.
    pub fn new(
        plan: &'p JobPlan,
        layout: &'l Layout,
        threshold: Millis,
        restarts: &[Timestamp],
        keep_rows: bool,
    ) -> Result<Self, ReplayError> {
        let mut engine = engine::Engine::new(plan, &layout.splits, layout.t0, threshold)
            .map_err(ReplayError::Usage)?;
        engine.keep_rows(keep_rows);
        let ids = SplitIds::new(plan, layout, &engine);
        let mut restarts = restarts.to_vec();
        restarts.sort_unstable();
        restarts.reverse();
        Ok(Driver {
            plan,
            layout,
            aligns: engine.aligns(),
            engine,
            ids,
            threshold,
            restarts,
            written: BTreeMap::new(),
            held: BTreeMap::new(),
            current: None,
            pruned_at: 0,
            read: 0,
            keep_rows,
        })
    }

    /// The engine's clock.
    pub fn now(&self) -> Timestamp {
        self.engine.now()
    }

    /// The error of a failed record, naming its file and line.
    fn failure(&self, f: engine::Failed) -> ReplayError {
        let o = match self.current {
            Some((i, o)) if i == f.origin => Some(o),
            _ => self.held.get(&f.origin).copied(),
        };
        let Some(o) = o else {
            return ReplayError::Usage(f.error.message);
        };
        let table = &self.plan.tables[o.table];
        ReplayError::Record(Box::new(error::RecordFailure {
            path: self.layout.paths[o.file].clone(),
            line: o.line,
            table: table.name.clone(),
            topic: self.layout.topics[o.topic as usize].clone(),
            partition: o.partition,
            offset: offset_text(o.offset),
            message: f.error.message,
            hint: table.value_format.skip_option().filter(|_| f.error.decode),
        }))
    }

    /// Processes record `origin` (its index in replay order).
    pub fn feed(&mut self, origin: usize, l: &Loaded) -> Result<(), ReplayError> {
        self.read += 1;
        while self.restarts.last().is_some_and(|t| *t < l.ts) {
            self.restarts.pop();
            self.restart()?;
        }
        let here = Origin::of(l);
        self.current = Some((origin, here));
        let rec = engine::RecordRef {
            topic: &self.layout.topics[l.topic as usize],
            partition: l.partition,
            offset: l.offset,
            ts: l.ts,
            payload: l.payload.as_ref().map(Payload::view),
            key: l.key.as_deref(),
        };
        let Some(id) = self.ids.get(l.table, l.topic, l.partition) else {
            return Err(self.failure(engine::Failed {
                origin,
                error: engine::RecordError::other(
                    "the record's partition is not a split of this job",
                ),
            }));
        };
        if let Err(f) = self.engine.process(origin, l.table, id, rec) {
            return Err(self.failure(f));
        }
        if let Some(e) = self.engine.sink_error() {
            return Err(ReplayError::Usage(e.to_string()));
        }
        // Kept while alignment holds it back; dropped once it holds none
        // older (the held records' count bounds the map).
        if self.aligns {
            if self.engine.is_deferred(id, origin) {
                self.held.insert(origin, here);
            }
            if self.held.len() >= 2 * self.pruned_at.max(1024) {
                let oldest = self.engine.oldest_deferred().unwrap_or(origin + 1);
                self.held = self.held.split_off(&oldest);
                self.pruned_at = self.held.len();
            }
        }
        Ok(())
    }

    /// Ends the replay (draining with `drain`) and builds its outcome.
    pub fn finish(mut self, drain: bool) -> Result<Outcome, ReplayError> {
        if self.read != self.layout.records {
            return Err(ReplayError::Usage(format!(
                "the dumps held {} records when first read and {} when replayed: \
                 an input changed while it was replayed; replay a copy that is not being written",
                self.layout.records, self.read
            )));
        }
        if !self.restarts.is_empty() {
            self.restart()?;
        }
        if let Err(f) = self.engine.finish(drain) {
            return Err(self.failure(f));
        }
        if let Some(e) = self.engine.sink_error() {
            return Err(ReplayError::Usage(e.to_string()));
        }
        let plan = self.plan;
        let report = report::build(plan, &self.engine, self.threshold, drain);
        let mut lags: BTreeMap<String, SinkLags> = BTreeMap::new();
        for (t, s) in self.engine.sinks() {
            lags.entry(plan.tables[t].name.clone()).or_default().emitted = s.lags.clone();
        }
        for (pi, pl) in plan.pipelines.iter().enumerate() {
            let (open, first_end) = self.engine.open_windows(pi);
            let l = lags.entry(plan.tables[pl.sink].name.clone()).or_default();
            l.open_at_end += open;
            l.first_open_end = match (l.first_open_end, first_end) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        // A join's probe rows still waiting are what its windows open are
        // to a window aggregation: written late, or not at all.
        for (ji, j) in plan.joins.iter().enumerate() {
            let (waiting, oldest) = self.engine.join_waiting(ji);
            let l = lags.entry(plan.tables[j.sink].name.clone()).or_default();
            l.open_at_end += waiting;
            l.first_open_end = match (l.first_open_end, oldest) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        let mut written = std::mem::take(&mut self.written);
        let outputs = self
            .engine
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
            .map(|(pi, pl)| (plan.tables[pl.sink].name.clone(), self.engine.peak_open(pi)))
            .collect();
        Ok(Outcome {
            report,
            outputs,
            peak_open_windows,
            lags,
        })
    }

    /// Checkpoints the engine to bytes, drops it, and goes on with a new
    /// engine restored from those bytes (its rows so far move to `written`).
    fn restart(&mut self) -> Result<(), ReplayError> {
        for (t, rows) in self.engine.take_records() {
            self.written.entry(t).or_default().extend(rows);
        }
        let bytes = lowwater_core::checkpoint::encode(1, &self.engine.snapshot())
            .map_err(|e| ReplayError::Usage(e.to_string()))?;
        let (_, snap) = lowwater_core::checkpoint::decode(&bytes)
            .map_err(|e| ReplayError::Usage(e.to_string()))?;
        let mut fresh = engine::Engine::new(
            self.plan,
            &self.layout.splits,
            self.layout.t0,
            self.threshold,
        )
        .map_err(ReplayError::Usage)?;
        fresh.keep_rows(self.keep_rows);
        fresh.restore(snap).map_err(ReplayError::Usage)?;
        self.engine = fresh;
        Ok(())
    }
}

fn offset_text(offset: Option<i64>) -> String {
    offset.map_or("?".to_string(), |o| o.to_string())
}
