//! The watcher: what a Flink job's REST answers say about its watermarks,
//! in lowwater's model, with lowwater's stall detector and reasons.
//!
//! Each poll hands it one [`Poll`] and the time it was taken. It keeps, per
//! Kafka partition, its watermark (FLIP-513's `currentWatermark`), whether
//! it is idle (`idleTimeMsPerSecond`: idle most of the last second), and
//! when its reader's offset last moved, which is when it last had a record
//! as far as the REST API can tell (to the poll interval and Flink's metric
//! refresh). Per sink (an INSERT) it watches the input watermark of the
//! vertex that runs its windows with the core's [`StallDetector`]: records
//! arrive (an offset moved) and the watermark does not advance for longer
//! than the threshold. The holder is found by Flink's own rule: a source
//! subtask's watermark is the minimum over its active splits, and the
//! INSERT's the minimum over its active subtasks.
//!
//! What the REST API cannot tell is said: a partition quiet since before
//! the watch began is "silent for at least" the time watched (or since the
//! job started, when it never had a record), and without FLIP-513's gauges
//! (Flink < 2.1) the holder is inferred from offsets alone.

use std::collections::BTreeMap;

use lowwater_core::diagnose::{Holder, StallDetector};
use lowwater_core::source::SplitId;
use lowwater_core::time::format_timestamp;
use lowwater_core::{Millis, Timestamp, MIN_WATERMARK};
use lowwater_observe::live::{History, HistoryPoint};
use lowwater_report::{stall_report_in, wm, StallReport};
use lowwater_sql::explain::StallContext;

use crate::model::Job;

/// The job's settings that decide its watermarks, as far as they are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSettings {
    /// `table.exec.source.idle-timeout` (`None`: disabled).
    pub idle_timeout: Option<Millis>,
    /// Whether `idle_timeout` was read from the job file (`lowwater
    /// submit`), or is Flink's default because nothing said otherwise
    /// (Flink's REST API does not show it).
    pub idle_timeout_known: bool,
    /// Whether the source table sets `scan.watermark.idle-timeout` itself.
    pub own_idle_option: bool,
    /// `pipeline.auto-watermark-interval`.
    pub emit_interval: Millis,
    /// How often the first INSERT's windows end, and its source table's
    /// watermark delay, from the job file: what the suggested idle
    /// timeout is chosen from (as a lowwater job's is).
    pub window: Option<Millis>,
    /// See `window`.
    pub delay: Option<Millis>,
}

impl Default for JobSettings {
    fn default() -> Self {
        JobSettings {
            idle_timeout: None,
            idle_timeout_known: false,
            own_idle_option: false,
            emit_interval: 200,
            window: None,
            delay: None,
        }
    }
}

/// One Kafka partition as one poll read it.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitSample {
    /// The source table.
    pub table: String,
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// The source subtask reading it.
    pub subtask: usize,
    /// Its watermark (FLIP-513; `None` on Flink < 2.1).
    pub watermark: Option<Timestamp>,
    /// `idleTimeMsPerSecond` (FLIP-513).
    pub idle_ms_per_s: Option<f64>,
    /// The reader's `currentOffset`: the last offset read (-1 before the
    /// first record).
    pub offset: Option<i64>,
}

/// A vertex that ends in sinks, as one poll read it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SinkSample {
    /// Vertex id.
    pub vertex: String,
    /// The minimum input watermark over its subtasks (`None`: unknown).
    pub watermark: Option<Timestamp>,
    /// Late records its window operators dropped (`numLateRecordsDropped`).
    pub late_dropped: u64,
    /// Rows each of its sinks' writers sent (`<sink>[n]__Writer.numRecordsSend`), by sink.
    pub rows: Vec<(String, u64)>,
}

impl SinkSample {
    fn rows_of(&self, sink: &str) -> u64 {
        self.rows
            .iter()
            .filter(|(s, _)| s == sink)
            .map(|(_, n)| n)
            .sum()
    }

    /// Late drops are the vertex's: counted once, on its first sink.
    fn first_sink_of_vertex(&self, sink: &str) -> bool {
        self.rows.first().is_none_or(|(s, _)| s == sink)
    }
}

/// What one poll read.
#[derive(Debug, Clone, PartialEq)]
pub struct Poll {
    /// The job.
    pub job: Job,
    /// Every partition of its Kafka sources.
    pub splits: Vec<SplitSample>,
    /// Every vertex that writes a sink.
    pub sinks: Vec<SinkSample>,
}

/// What a poll changed that a person should hear about.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// An INSERT's watermark stopped while records arrive.
    Stalled(StallReport),
    /// It advanced again, to this watermark.
    Resolved(StallReport, Timestamp),
    /// A partition's watermark is decades behind the records it reads (a
    /// producer writing seconds where the table reads milliseconds): what
    /// it looks like, once per partition.
    Implausible(String),
}

#[derive(Debug, Clone)]
pub(crate) struct Split {
    sample: SplitSample,
    first_offset: Option<i64>,
    /// When its offset last moved (`None`: not since the watch began).
    last_change: Option<Timestamp>,
    /// When the watch first saw it.
    first_seen: Timestamp,
}

impl Split {
    /// Idle most of the last second, as Flink's gauge says.
    pub(crate) fn idle(&self) -> bool {
        self.sample.idle_ms_per_s.is_some_and(|ms| ms > 500.0)
    }

    fn never_had_record(&self) -> bool {
        self.sample.offset.is_some_and(|o| o < 0)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Pipe {
    sink: String,
    /// The Kafka table that holds it (of a join: the input with the lowest
    /// watermark, as last explained).
    source: String,
    /// Every Kafka table upstream, in input order (a join's: probe or left
    /// first).
    sources: Vec<String>,
    /// A join upstream of the sink (`temporal join`, `interval join`,
    /// `join`): its watermark is the lower of its inputs'.
    join: Option<&'static str>,
    vertex: String,
    watermark: Timestamp,
    detector: StallDetector,
    late_dropped: u64,
    rows: u64,
    /// The poll at which its row count last grew.
    last_emit: Option<Timestamp>,
}

/// A Flink job under watch.
#[derive(Debug, Clone)]
pub struct Watcher {
    threshold: Millis,
    started: Timestamp,
    job_start: Timestamp,
    settings: JobSettings,
    /// Per Kafka table, its source vertex's parallelism.
    readers: BTreeMap<String, usize>,
    pipes: Vec<Pipe>,
    splits: Vec<Split>,
    index: BTreeMap<(String, String, i32), SplitId>,
    past: Vec<StallReport>,
    history: History,
    last_poll: Option<Timestamp>,
    state: String,
    /// Splits already named for an implausibly old watermark.
    implausible: std::collections::BTreeSet<SplitId>,
}

impl Watcher {
    /// Watches `job` (its first poll) from `now`, reporting stalls longer
    /// than `threshold`. Errors when the job reads no Kafka topic.
    pub fn new(
        job: &Job,
        settings: JobSettings,
        threshold: Millis,
        now: Timestamp,
    ) -> Result<Self, String> {
        let pipes = pipes_of(job, threshold, now)?;
        let readers = job
            .vertices
            .iter()
            .filter_map(|v| Some((v.kafka_table()?, v.parallelism)))
            .collect();
        Ok(Watcher {
            readers,
            threshold,
            started: now,
            job_start: job.summary.start_time,
            settings,
            pipes,
            splits: Vec::new(),
            index: BTreeMap::new(),
            past: Vec::new(),
            history: History::default(),
            last_poll: None,
            implausible: Default::default(),
            state: job.summary.state.clone(),
        })
    }

    /// The job's state at the last poll (RUNNING, FAILED, ...).
    pub fn state(&self) -> &str {
        &self.state
    }

    /// Takes in one poll made at `now`.
    pub fn observe(&mut self, poll: &Poll, now: Timestamp) -> Vec<Event> {
        self.state = poll.job.summary.state.clone();
        // Records arrived on a table when one of its offsets moved (a move
        // back is a restart re-reading: records arrive too).
        let mut arrived: std::collections::BTreeSet<String> = Default::default();
        for s in &poll.splits {
            let key = (s.table.clone(), s.topic.clone(), s.partition);
            match self.index.get(&key).map(|&i| &mut self.splits[i as usize]) {
                Some(old) => {
                    if s.offset.is_some() && s.offset != old.sample.offset {
                        old.last_change = Some(now);
                        arrived.insert(s.table.clone());
                    }
                    old.sample = s.clone();
                }
                None => {
                    self.index.insert(key, self.splits.len() as SplitId);
                    self.splits.push(Split {
                        sample: s.clone(),
                        first_offset: s.offset,
                        last_change: None,
                        first_seen: now,
                    });
                }
            }
        }
        let mut events = Vec::new();
        // A split reading records (its offset moved now) whose watermark is
        // decades behind them: the same words as a lowwater job's.
        for (id, s) in self.splits.iter().enumerate() {
            let (Some(w), true) = (s.sample.watermark, s.last_change == Some(now)) else {
                continue;
            };
            if self.implausible.contains(&(id as SplitId)) {
                continue;
            }
            let x = &s.sample;
            let place = (x.table.as_str(), x.topic.as_str(), x.partition);
            if let Some(line) = lowwater_report::implausible_time(place, "watermark", w, now) {
                self.implausible.insert(id as SplitId);
                events.push(Event::Implausible(line));
            }
        }
        if self.state != "RUNNING" {
            // Restarting, failing or ending: no watermark to judge.
            self.after_poll(now);
            return events;
        }
        for pi in 0..self.pipes.len() {
            // A join: the input with the lowest watermark holds it.
            self.pipes[pi].source = self.holding_source(pi);
            let sample = poll
                .sinks
                .iter()
                .find(|k| k.vertex == self.pipes[pi].vertex);
            if let Some(k) = sample {
                let sink = self.pipes[pi].sink.clone();
                let p = &mut self.pipes[pi];
                let rows = k.rows_of(&sink);
                if rows != p.rows {
                    p.last_emit = Some(now);
                }
                p.rows = rows;
                p.late_dropped = if k.first_sink_of_vertex(&sink) {
                    k.late_dropped
                } else {
                    0
                };
            }
            let wm = sample.and_then(|k| k.watermark).or_else(|| {
                let p = &self.pipes[pi];
                p.sources
                    .iter()
                    .filter_map(|t| self.source_watermark(t))
                    .min()
            });
            if let Some(w) = wm {
                if w < self.pipes[pi].watermark {
                    // A restart: the job's watermark starts again from its
                    // checkpoint (or MIN). What was open ends unresolved.
                    if let Some(s) = self.pipes[pi].detector.finish() {
                        self.past.push(self.report(pi, &s, now));
                    }
                    self.pipes[pi].detector = StallDetector::new(self.threshold, now, w);
                    self.pipes[pi].watermark = w;
                } else if w > self.pipes[pi].watermark {
                    self.pipes[pi].watermark = w;
                    if let Some(s) = self.pipes[pi].detector.on_advance(now, w) {
                        let r = self.report(pi, &s, now);
                        self.past.push(r.clone());
                        events.push(Event::Resolved(r, w));
                    }
                }
            }
            if self.pipes[pi].sources.iter().any(|t| arrived.contains(t)) {
                if self.pipes[pi].detector.on_record(now).is_some() {
                    self.explain(pi, now);
                    if let Some(s) = self.pipes[pi].detector.current() {
                        events.push(Event::Stalled(self.report(pi, &s, now)));
                    }
                } else if self.pipes[pi].detector.current().is_some() {
                    self.explain(pi, now);
                }
            }
        }
        self.after_poll(now);
        events
    }

    fn after_poll(&mut self, now: Timestamp) {
        if self.history.last_t().is_none_or(|t| now - t >= 1_000) {
            self.history.push(HistoryPoint {
                t: now,
                watermarks: self.pipes.iter().map(|p| wm(p.watermark)).collect(),
                emission_lag_ms: self.pipes.iter().map(|_| None).collect(),
            });
        }
        self.last_poll = Some(now);
    }

    /// The input of pipeline `pi` that holds it: its only Kafka table, or of
    /// a join the one whose watermark is the lowest (the first on a tie;
    /// one with every subtask idle holds nothing).
    fn holding_source(&self, pi: usize) -> String {
        let p = &self.pipes[pi];
        let lowest = p
            .sources
            .iter()
            .enumerate()
            .filter_map(|(i, t)| Some((self.source_watermark(t)?, i, t)))
            .min();
        lowest.map_or_else(|| p.source.clone(), |(_, _, t)| t.clone())
    }

    /// The minimum over a table's active subtasks, each the minimum over its
    /// active splits (for an INSERT whose sink is chained to its source).
    fn source_watermark(&self, table: &str) -> Option<Timestamp> {
        let subtasks = self.subtasks(table);
        subtasks
            .values()
            .filter(|(_, idle)| !idle)
            .map(|(w, _)| w.unwrap_or(MIN_WATERMARK))
            .min()
    }

    /// Per source subtask of `table`: its watermark (the minimum over its
    /// active splits; `None` if no split has one) and whether every split
    /// of it is idle.
    pub fn subtasks(&self, table: &str) -> BTreeMap<usize, (Option<Timestamp>, bool)> {
        let mut out: BTreeMap<usize, (Option<Timestamp>, bool)> = BTreeMap::new();
        for s in self.splits.iter().filter(|s| s.sample.table == table) {
            let e = out.entry(s.sample.subtask).or_insert((None, true));
            if !s.idle() {
                e.1 = false;
                if let Some(w) = s.sample.watermark {
                    e.0 = Some(e.0.map_or(w, |x: Timestamp| x.min(w)));
                }
            }
        }
        // A reader with no partition (parallelism above the partition
        // count) holds MIN unless the idle timeout marks it idle.
        if !out.is_empty() {
            let n = self.readers.get(table).copied().unwrap_or(0);
            let idle = self.settings.idle_timeout.is_some();
            for i in 0..n {
                out.entry(i).or_insert((Some(MIN_WATERMARK), idle));
            }
        }
        out
    }

    /// Whether [`Watcher::silent_ms`] of `s` is a lower bound: its last
    /// record came before the watch began.
    pub(crate) fn silent_at_least(&self, s: &Split) -> bool {
        s.last_change.is_none() && !(s.first_seen == self.started && s.never_had_record())
    }

    /// How long a split has had no record, as far as the watch can tell.
    fn silent_ms(&self, s: &Split, now: Timestamp) -> Millis {
        match s.last_change {
            Some(t) => now - t,
            // Seen from the first poll: silent since the job started, or
            // at least since the watch began.
            None if s.first_seen == self.started && s.never_had_record() => {
                now - self.job_start.min(now)
            }
            None => now - s.first_seen,
        }
    }

    /// Explains pipeline `pi`'s open stall by who holds it now, with the
    /// watermark of the subtask it holds (an inferred holder, on a Flink
    /// without per-split watermarks, has none to compare: MIN).
    fn explain(&mut self, pi: usize, now: Timestamp) {
        let h = self.holder(pi, now);
        let table = &self.pipes[pi].source;
        let at = match (h, self.inferred(table)) {
            (Some(h), false) => self
                .subtasks(table)
                .get(&h.subtask)
                .and_then(|(w, _)| *w)
                .unwrap_or(MIN_WATERMARK),
            _ => MIN_WATERMARK,
        };
        self.pipes[pi].detector.explain(h, at);
    }

    /// Who holds pipeline `pi` now: the active subtask with the smallest
    /// watermark, and in it the active split with the smallest.
    fn holder(&self, pi: usize, now: Timestamp) -> Option<Holder> {
        let table = &self.pipes[pi].source;
        let of_table = || {
            self.splits
                .iter()
                .enumerate()
                .filter(|(_, s)| s.sample.table == *table && !s.idle())
        };
        let holder = |(id, s): (usize, &Split)| Holder {
            subtask: s.sample.subtask,
            split: Some(id as SplitId),
            silent_ms: self.silent_ms(s, now),
            never_had_record: s.never_had_record(),
            gap_ms: None,
            silent_at_least: self.silent_at_least(s),
        };
        if self.inferred(table) {
            // Flink < 2.1 has no per-split watermarks: the partition whose
            // offset has stood still the longest while others moved.
            return of_table()
                .max_by_key(|(_, s)| (self.silent_ms(s, now), -s.sample.partition))
                .map(holder);
        }
        let subtasks = self.subtasks(table);
        let (&subtask, _) = subtasks
            .iter()
            .filter(|(_, (_, idle))| !idle)
            .min_by_key(|(i, (w, _))| (w.unwrap_or(MIN_WATERMARK), **i))?;
        let split = of_table()
            .filter(|(_, s)| s.sample.subtask == subtask)
            .min_by_key(|(_, s)| {
                (
                    s.sample.watermark.unwrap_or(MIN_WATERMARK),
                    s.sample.partition,
                )
            })
            .map(holder);
        // A subtask that reads no partition holds MIN by itself.
        split.or(Some(Holder {
            subtask,
            split: None,
            silent_ms: now - self.job_start.min(now),
            never_had_record: true,
            gap_ms: None,
            silent_at_least: false,
        }))
    }

    /// Whether the holder of `table` can only be inferred: Flink shows no
    /// per-split watermark for any of its partitions (Flink < 2.1).
    fn inferred(&self, table: &str) -> bool {
        let mut of = self
            .splits
            .iter()
            .filter(|s| s.sample.table == table)
            .peekable();
        of.peek().is_some() && of.all(|s| s.sample.watermark.is_none())
    }

    fn context(&self, pi: usize) -> StallContext {
        let p = &self.pipes[pi];
        // A temporal join's versioned side is released by its own table's
        // idle-timeout: the job-wide one would also let the probe side's
        // quiet partitions go (as lowwater's own report says).
        let versioned = p.join == Some("temporal join")
            && p.sources.len() > 1
            && p.sources.iter().position(|t| *t == p.source) == Some(1);
        StallContext {
            source: self.pipes[pi].source.clone(),
            own_idle_option: self.settings.own_idle_option || versioned,
            idle_timeout: self.settings.idle_timeout,
            caught_up: false,
            emit_interval: self.settings.emit_interval,
            parallelism: self.parallelism(),
            // Flink's REST API shows neither: from the job file, if any.
            window: self.settings.window,
            delay: self.settings.delay,
        }
    }

    /// The largest source parallelism (the job's, for the reason text).
    fn parallelism(&self) -> usize {
        self.readers.values().copied().max().unwrap_or(1)
    }

    fn report(&self, pi: usize, s: &lowwater_core::diagnose::Stall, now: Timestamp) -> StallReport {
        let p = &self.pipes[pi];
        let split = |h: &Holder| h.split.and_then(|i| self.splits.get(i as usize));
        let partitions = self
            .splits
            .iter()
            .filter(|x| x.sample.table == p.source)
            .count();
        let mut r = stall_report_in(
            &self.context(pi),
            &p.sink,
            s,
            s.to.unwrap_or(now),
            self.threshold,
            partitions,
            |id| {
                let x = self.splits.get(id as usize)?;
                Some((x.sample.topic.clone(), x.sample.partition))
            },
        );
        let reason = &mut r.reason;
        let before_watch = s.held_by.as_ref().and_then(split).is_some_and(|x| {
            !x.never_had_record() && x.last_change.is_none() && x.first_seen == self.started
        });
        if before_watch {
            reason.push_str(&format!(
                " (it has been silent since before lowwater began watching at {}, so for at \
                 least that long)",
                format_timestamp(self.started, ' ')
            ));
        }
        if self.inferred(&p.source) {
            reason.push_str(
                " (inferred from the readers' offsets: this Flink shows no per-partition \
                 watermarks, which Flink 2.1 added)",
            );
        }
        if let (Some(join), true) = (p.join, p.sources.len() > 1) {
            let side = match (join, p.sources.iter().position(|t| *t == p.source)) {
                ("temporal join", Some(0)) => "probe side",
                ("temporal join", Some(_)) => "versioned side",
                ("interval join", Some(0)) => "left side",
                ("interval join", Some(_)) => "right side",
                _ => "input",
            };
            *reason = format!(
                "the {join} waits for its {side}, table {}: {reason}",
                p.source
            );
        }
        if !self.settings.idle_timeout_known {
            reason.push_str(
                " (the job's idle timeout could not be read from Flink; Flink's default, \
                 disabled, is assumed)",
            );
        }
        r
    }

    /// The stall of each INSERT going on now (`to_ts` = now).
    pub fn current(&self, now: Timestamp) -> Vec<Option<StallReport>> {
        (0..self.pipes.len())
            .map(|pi| {
                self.pipes[pi]
                    .detector
                    .current()
                    .map(|s| self.report(pi, &s, now))
            })
            .collect()
    }

    /// Stalls that ended.
    pub fn past(&self) -> &[StallReport] {
        &self.past
    }

    pub(crate) fn parts(&self) -> WatchParts<'_> {
        let at = self.last_poll.unwrap_or(self.started);
        WatchParts {
            holders: (0..self.pipes.len())
                .map(|pi| self.holder(pi, at))
                .collect(),
            current: self.current(at),
            past: &self.past,
            started: self.started,
            splits: self
                .splits
                .iter()
                .map(|s| (s, self.silent_ms(s, at), self.silent_at_least(s)))
                .collect(),
            pipes: &self.pipes,
            history: &self.history,
            settings: &self.settings,
            parallelism: self.parallelism(),
            threshold: self.threshold,
            last_poll: at,
        }
    }
}

/// The watcher's state for [`crate::view`].
pub(crate) struct WatchParts<'a> {
    pub holders: Vec<Option<Holder>>,
    pub current: Vec<Option<StallReport>>,
    pub past: &'a [StallReport],
    pub started: Timestamp,
    /// Each split, how long it has been silent, and whether that is a
    /// lower bound.
    pub splits: Vec<(&'a Split, Millis, bool)>,
    pub pipes: &'a [Pipe],
    pub history: &'a History,
    pub settings: &'a JobSettings,
    pub parallelism: usize,
    pub threshold: Millis,
    pub last_poll: Timestamp,
}

/// The INSERTs of a job: one per sink table, its watermark read at the
/// vertex that writes it (where its windows fire), its source the Kafka
/// table upstream.
fn pipes_of(job: &Job, threshold: Millis, now: Timestamp) -> Result<Vec<Pipe>, String> {
    if !job.vertices.iter().any(|v| v.kafka_table().is_some()) {
        return Err(format!(
            "Flink job {} ({}) reads no Kafka topic: lowwater watch explains the watermarks of \
             Kafka sources (its vertices: {})",
            job.summary.id,
            job.summary.name,
            vertex_names(job)
        ));
    }
    let mut pipes = Vec::new();
    for v in &job.vertices {
        for sink in v.sinks() {
            let sources = upstream_kafka(job, &v.id);
            let Some(source) = sources.first().cloned() else {
                continue;
            };
            pipes.push(Pipe {
                sink,
                source,
                sources,
                join: upstream_join(job, &v.id),
                vertex: v.id.clone(),
                watermark: MIN_WATERMARK,
                detector: StallDetector::new(threshold, now, MIN_WATERMARK),
                late_dropped: 0,
                rows: 0,
                last_emit: None,
            });
        }
    }
    if pipes.is_empty() {
        return Err(format!(
            "Flink job {} ({}) writes no sink that lowwater can find downstream of a Kafka source \
             (lowwater looks for a vertex with '<table>[n]: Writer' or 'Sink: <table>' in its \
             name; its vertices: {})",
            job.summary.id,
            job.summary.name,
            vertex_names(job)
        ));
    }
    Ok(pipes)
}

fn vertex_names(job: &Job) -> String {
    job.vertices
        .iter()
        .map(|v| v.name.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Visits a vertex and everything upstream of it, depth first, the first
/// input first, each once; `visit` returns whether to stop there (not go
/// further up from that vertex).
fn walk_upstream(job: &Job, id: &str, mut visit: impl FnMut(&crate::model::Vertex) -> bool) {
    let mut todo = vec![id.to_string()];
    let mut seen = Vec::new();
    while let Some(id) = todo.pop() {
        if seen.contains(&id) {
            continue;
        }
        seen.push(id.clone());
        let Some(v) = job.vertices.iter().find(|v| v.id == id) else {
            continue;
        };
        if !visit(v) {
            todo.extend(v.inputs.iter().rev().cloned());
        }
    }
}

/// The Kafka tables a vertex reads, itself or upstream, in input order (a
/// join's first input first).
fn upstream_kafka(job: &Job, id: &str) -> Vec<String> {
    let mut tables = Vec::new();
    walk_upstream(job, id, |v| match v.kafka_table() {
        Some(t) => {
            if !tables.contains(&t) {
                tables.push(t);
            }
            true
        }
        None => false,
    });
    tables
}

/// The kind of join at or upstream of a vertex, from its operators' names
/// (`TemporalJoin[23]`, `IntervalJoin[7]`, `Join[9]`, or with `(...)`), if
/// any: the nearest.
fn upstream_join(job: &Job, id: &str) -> Option<&'static str> {
    let mut found = None;
    walk_upstream(job, id, |v| {
        for op in v.name.split(" -> ") {
            let name = op.split(['[', '(']).next().unwrap_or(op).trim();
            let kind = match name {
                "TemporalJoin" => Some("temporal join"),
                "IntervalJoin" => Some("interval join"),
                n if n.ends_with("Join") => Some("join"),
                _ => None,
            };
            if kind.is_some() && found.is_none() {
                found = kind;
            }
        }
        found.is_some()
    });
    found
}

/// A stall threshold for a Flink job: three times its largest window (as
/// for a lowwater job), and at least twice the time one reading can be old
/// (the poll interval plus Flink's metric refresh, 10 s by default).
pub fn default_threshold(job: &Job, poll: Millis, refresh: Millis) -> Millis {
    let window = job
        .vertices
        .iter()
        .filter_map(|v| v.window_size())
        .max()
        .unwrap_or(0);
    (3 * window).max(2 * (poll + refresh))
}

impl Split {
    pub(crate) fn sample(&self) -> &SplitSample {
        &self.sample
    }

    pub(crate) fn records(&self) -> u64 {
        // `currentOffset` is the offset of the last record read (-1 before
        // the first), so -1 to 4 is five records.
        match (self.first_offset, self.sample.offset) {
            (Some(a), Some(b)) if b > a => (b - a) as u64,
            _ => 0,
        }
    }

    pub(crate) fn last_change(&self) -> Option<Timestamp> {
        self.last_change
    }
}

impl Pipe {
    pub(crate) fn sink(&self) -> &str {
        &self.sink
    }

    pub(crate) fn source(&self) -> &str {
        &self.source
    }

    /// Every Kafka table it reads (two for a join).
    pub(crate) fn sources(&self) -> &[String] {
        &self.sources
    }

    pub(crate) fn watermark(&self) -> Timestamp {
        self.watermark
    }

    pub(crate) fn late_dropped(&self) -> u64 {
        self.late_dropped
    }

    pub(crate) fn rows(&self) -> u64 {
        self.rows
    }

    pub(crate) fn last_emit(&self) -> Option<Timestamp> {
        self.last_emit
    }
}
