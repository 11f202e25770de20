//! A deterministic test harness: a whole single-node job (Kafka-like
//! partitions -> source subtasks -> one windowed aggregation) on a manual
//! processing-time clock, for lowwater's own tests and for users testing their
//! pipelines.
//!
//! ```
//! use lowwater_core::harness::{Event, Harness};
//! use lowwater_core::time::secs;
//!
//! // The case study's test: partition 1 is silent, so no window ever fires.
//! let mut h = Harness::tumbling(secs(60)).out_of_orderness(secs(30)).partitions(2).idle_timeout(None);
//! for t in [0, 30, 90, 150] { h.process(Event::new("k0", secs(t)).partition(0)); }
//! h.advance_processing_time(secs(300));
//! assert!(h.output().is_empty()); // the bug, asserted
//! assert_eq!(h.held_by().and_then(|w| w.partition), Some(1)); // and who causes it
//!
//! // With idleness, partition 1 stops holding the watermark after 60 s.
//! let mut h = Harness::tumbling(secs(60)).out_of_orderness(secs(30)).partitions(2).idle_timeout(Some(secs(60)));
//! for t in [0, 30, 90, 150] { h.process(Event::new("k0", secs(t)).partition(0)); }
//! h.advance_processing_time(secs(300));
//! assert_eq!(h.output().len(), 2); // [0, 60 s) and [60 s, 120 s)
//! ```
//!
//! Time rules (the same as `lowwater replay`): processing time starts at 0;
//! periodic watermark emission runs at every multiple of the emit interval;
//! [`Harness::process`] handles a record at the current time and runs no
//! tick (so it comes after the ticks that already ran: after
//! `advance_processing_time(d)` the tick at the new time has run);
//! [`Harness::process_at`] runs the ticks before its time and handles the
//! record before the tick at its time, as replay orders records. At a tick every split's generator runs (idleness first), every
//! subtask combines its splits, and the result flows through the window
//! operator's gate at once; windows fired then are stamped with the tick time.
//!
//! Partitions map to subtasks with Flink's Kafka formula for the configured
//! topic. All subtasks feed one window operator through its input gate; a keyed
//! exchange to several window subtasks would give every subtask the same
//! watermark, so results do not depend on it.

use serde::{Deserialize, Serialize};

use crate::checkpoint::{self, CheckpointError};
use crate::dataflow::gate::InputGate;
use crate::error::{Error, Result};
use crate::source::{SourceSubtask, SplitView};
use crate::time::{display_duration, Millis, Timestamp, MIN_WATERMARK};
use crate::value::{Key, Row, Value};
use crate::watermark::generator::{WatermarkExpr, WatermarkStrategy};
use crate::watermark::Progress;
use crate::window::aggregate::AggSpec;
use crate::window::assigner::{Window, WindowAssigner};
use crate::window::operator::{
    LateCounters, WindowInput, WindowOperator, WindowOutput, WindowSpec,
};

/// A record to feed the harness.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Group key (one value; use [`Event::keyed`] for composite or no key).
    pub key: Key,
    /// Event time.
    pub ts: Timestamp,
    /// Partition it is read from.
    pub partition: i32,
    /// Values the aggregates read, by position.
    pub row: Row,
}

impl Event {
    /// An event for key `key` at event time `ts`, on partition 0.
    pub fn new(key: impl Into<Value>, ts: Timestamp) -> Self {
        Event::keyed(vec![key.into()], ts)
    }

    /// An event with a composite key (or `vec![]` for a global aggregate).
    pub fn keyed(key: Key, ts: Timestamp) -> Self {
        Event {
            key,
            ts,
            partition: 0,
            row: Vec::new(),
        }
    }

    /// The same event on partition `p`.
    pub fn partition(mut self, p: i32) -> Self {
        self.partition = p;
        self
    }

    /// Appends a value to the row the aggregates read.
    pub fn value(mut self, v: impl Into<Value>) -> Self {
        self.row.push(v.into());
        self
    }
}

/// A window result as the harness saw it leave the operator.
#[derive(Debug, Clone, PartialEq)]
pub struct Fired {
    /// Group key.
    pub key: Key,
    /// The window.
    pub window: Window,
    /// One value per aggregate.
    pub values: Vec<Value>,
    /// Processing time at which it fired.
    pub emitted_at: Timestamp,
}

impl Fired {
    /// The first aggregate as an integer (the count, by default).
    pub fn count(&self) -> i64 {
        self.values.first().and_then(Value::as_int).unwrap_or(0)
    }

    /// Processing time from the window's end to its emission.
    pub fn emission_lag(&self) -> Millis {
        self.emitted_at.saturating_sub(self.window.end)
    }
}

/// Who holds the job's watermark back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Holder {
    /// The source subtask whose channel is the minimum.
    pub subtask: usize,
    /// The partition holding that subtask (`None` if the subtask has none).
    pub partition: Option<i32>,
    /// The held watermark.
    pub watermark: Timestamp,
    /// How long the partition has had no record (since open if never).
    pub silent_for: Millis,
    /// Whether the partition never had a record.
    pub never_had_record: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Config {
    window: WindowSpec,
    strategy: WatermarkStrategy,
    partitions: usize,
    parallelism: usize,
    topic: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Job {
    sources: Vec<SourceSubtask>,
    owners: Vec<usize>,
    /// The window operator's input gate: one port, a channel per source
    /// subtask.
    gate: InputGate,
    op: WindowOperator,
}

#[derive(Serialize)]
struct HarnessSnapshot<'a> {
    config: &'a Config,
    job: &'a Job,
    now: Timestamp,
    last_tick: Timestamp,
}

#[derive(Deserialize)]
struct OwnedSnapshot {
    config: Config,
    job: Job,
    now: Timestamp,
    last_tick: Timestamp,
}

/// The harness. Configure with the builder methods, then feed it.
#[derive(Debug, Clone)]
pub struct Harness {
    config: Config,
    job: Option<Job>,
    now: Timestamp,
    last_tick: Timestamp,
    output: Vec<Fired>,
    late: Vec<Event>,
    timeline: Vec<(Timestamp, Timestamp)>,
    buf: Vec<WindowOutput>,
}

impl Harness {
    /// A job with the given windows, counting records per key; DataStream
    /// out-of-orderness 0, one partition, parallelism 1, no idleness.
    pub fn new(assigner: WindowAssigner) -> Self {
        Harness {
            config: Config {
                window: WindowSpec {
                    assigner,
                    aggregates: Vec::new(),
                    allowed_lateness: 0,
                    late_side_output: false,
                },
                strategy: WatermarkStrategy::bounded_out_of_orderness(0),
                partitions: 1,
                parallelism: 1,
                topic: "events".to_string(),
            },
            job: None,
            now: 0,
            last_tick: 0,
            output: Vec::new(),
            late: Vec::new(),
            timeline: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// Tumbling windows of `size`.
    pub fn tumbling(size: Millis) -> Self {
        Harness::new(WindowAssigner::tumbling(size))
    }

    /// Hopping windows of `size` every `slide`.
    pub fn hopping(size: Millis, slide: Millis) -> Self {
        Harness::new(WindowAssigner::hopping(size, slide))
    }

    /// Cumulating windows growing by `step` up to `max_size`.
    pub fn cumulate(step: Millis, max_size: Millis) -> Self {
        Harness::new(WindowAssigner::cumulate(step, max_size))
    }

    /// Session windows closed after `gap` without records.
    pub fn session(gap: Millis) -> Self {
        Harness::new(WindowAssigner::session(gap))
    }

    /// DataStream bounded out-of-orderness: watermark = max - `d` - 1.
    pub fn out_of_orderness(self, d: Millis) -> Self {
        self.watermark_expr(WatermarkExpr::BoundedOutOfOrderness { delay: d })
    }

    /// SQL `WATERMARK FOR ts AS ts - INTERVAL d`: the last row's `ts - d` (never
    /// below the split's previous watermark).
    pub fn sql_watermark(self, d: Millis) -> Self {
        self.watermark_expr(WatermarkExpr::SqlDelay { delay: d })
    }

    /// Any watermark expression.
    pub fn watermark_expr(mut self, expr: WatermarkExpr) -> Self {
        self.config.strategy.expr = expr;
        self
    }

    /// Idle timeout per partition (`None`: disabled, Flink's default).
    pub fn idle_timeout(mut self, t: Option<Millis>) -> Self {
        self.config.strategy.idle_timeout = t;
        self
    }

    /// Periodic watermark emission interval (default 200 ms; 0 disables it).
    pub fn emit_interval(mut self, interval: Millis) -> Self {
        self.config.strategy.emit_interval = interval;
        self
    }

    /// Number of partitions of the topic (default 1).
    pub fn partitions(mut self, n: usize) -> Self {
        self.config.partitions = n;
        self
    }

    /// Number of source subtasks (default 1).
    pub fn parallelism(mut self, p: usize) -> Self {
        self.config.parallelism = p;
        self
    }

    /// Topic name, which decides the partition -> subtask map (default "events").
    pub fn topic(mut self, name: &str) -> Self {
        self.config.topic = name.to_string();
        self
    }

    /// Adds an aggregate (default, if none is added: `COUNT(*)`).
    pub fn aggregate(mut self, agg: AggSpec) -> Self {
        self.config.window.aggregates.push(agg);
        self
    }

    /// DataStream allowed lateness (default 0).
    pub fn allowed_lateness(mut self, l: Millis) -> Self {
        self.config.window.allowed_lateness = l;
        self
    }

    /// Routes late records to [`Harness::late_records`] instead of dropping them.
    pub fn late_side_output(mut self) -> Self {
        self.config.window.late_side_output = true;
        self
    }

    /// Builds the job now, reporting an invalid configuration. Feeding a
    /// harness builds it implicitly (and panics on an invalid configuration).
    pub fn try_build(&mut self) -> Result<()> {
        if self.job.is_some() {
            return Ok(());
        }
        let c = &mut self.config;
        if c.window.aggregates.is_empty() {
            c.window.aggregates.push(AggSpec::count_star());
        }
        let mut sources = (0..c.parallelism)
            .map(|_| SourceSubtask::new(c.strategy))
            .collect::<Result<Vec<_>>>()?;
        let mut owners = Vec::with_capacity(c.partitions);
        for p in 0..c.partitions {
            let owner = crate::assignment::split_owner(&c.topic, p as i32, c.parallelism)?;
            sources[owner].add_split(p as u32)?;
            owners.push(owner);
        }
        self.job = Some(Job {
            gate: InputGate::new(&[c.parallelism]),
            op: WindowOperator::new(c.window.clone())?,
            sources,
            owners,
        });
        Ok(())
    }

    fn job(&mut self) -> &mut Job {
        if let Err(e) = self.try_build() {
            panic!("invalid harness configuration: {e}");
        }
        self.job.as_mut().expect("built above")
    }

    /// Feeds one record at the current processing time.
    ///
    /// # Panics
    /// On an invalid configuration, a partition that does not exist, or an
    /// event time of `MIN` (all test-authoring mistakes); [`Harness::try_process`]
    /// returns them as errors instead.
    pub fn process(&mut self, e: Event) {
        if let Err(err) = self.try_process(e) {
            panic!("{err}");
        }
    }

    /// Feeds one record at the current processing time, or says why it
    /// cannot: an invalid configuration, a partition that does not exist, or
    /// a record the window operator rejects (nothing is changed then).
    pub fn try_process(&mut self, e: Event) -> Result<()> {
        let now = self.now;
        self.try_build()?;
        let job = self.job.as_mut().expect("built above");
        let Some(&subtask) = usize::try_from(e.partition)
            .ok()
            .and_then(|p| job.owners.get(p))
        else {
            return Err(Error::InvalidIndex(format!(
                "partition {} does not exist: the topic has partitions 0..{}",
                e.partition,
                job.owners.len()
            )));
        };
        // Checked before any watermark state moves.
        job.op.spec().assigner.check(e.ts)?;
        let progress = job.sources[subtask].on_record(e.partition as u32, e.ts, now)?;
        self.forward(subtask, progress);
        let input = WindowInput {
            ts: e.ts,
            split: e.partition as u32,
            key: e.key,
            row: e.row,
        };
        let job = self.job.as_mut().expect("built above");
        job.op.process(input, &mut self.buf)?;
        self.collect(now);
        // On-event emission: the watermark this record made due follows it.
        let after = self.job().sources[subtask].after_record(e.partition as u32, now);
        if !after.is_empty() {
            self.forward(subtask, after);
            self.collect(now);
        }
        Ok(())
    }

    /// Runs the ticks before `t`, moves the clock to `t` and feeds the record
    /// there, before the tick at `t` (replay's order).
    pub fn process_at(&mut self, t: Timestamp, e: Event) {
        if let Err(err) = self.try_process_at(t, e) {
            panic!("{err}");
        }
    }

    /// [`Harness::process_at`], returning what [`Harness::try_process`] refuses.
    pub fn try_process_at(&mut self, t: Timestamp, e: Event) -> Result<()> {
        self.try_build()?;
        self.run_ticks(t, false);
        self.now = self.now.max(t);
        self.try_process(e)
    }

    /// Moves processing time forward by `d`, running every periodic emission
    /// on the way, including one at the new time.
    pub fn advance_processing_time(&mut self, d: Millis) {
        self.set_processing_time(self.now.saturating_add(d.max(0)));
    }

    /// Moves processing time to `t` (if later), running every periodic
    /// emission up to and including `t`.
    pub fn set_processing_time(&mut self, t: Timestamp) {
        self.run_ticks(t, true);
        self.now = self.now.max(t);
    }

    /// Adds partition number `partitions()` while running, as Kafka partition
    /// discovery would; it starts at `MIN` and holds its subtask until it
    /// catches up.
    pub fn add_partition(&mut self) -> i32 {
        let topic = self.config.topic.clone();
        let parallelism = self.config.parallelism;
        let job = self.job();
        let p = job.owners.len() as i32;
        let owner =
            crate::assignment::split_owner(&topic, p, parallelism).expect("valid parallelism");
        let progress = job.sources[owner]
            .add_split(p as u32)
            .expect("new partition");
        job.owners.push(owner);
        self.config.partitions += 1;
        self.forward(owner, progress);
        p
    }

    /// Ends the bounded input: every subtask sends `MAX` (also when idle),
    /// so every pending window fires now.
    pub fn end_of_input(&mut self) {
        let n = self.job().sources.len();
        for s in 0..n {
            let p = self.job().sources[s].end_of_input();
            self.forward(s, p);
        }
    }

    fn run_ticks(&mut self, t: Timestamp, inclusive: bool) {
        let interval = self.config.strategy.emit_interval;
        if interval <= 0 {
            return;
        }
        self.job();
        loop {
            let next = self.last_tick.saturating_add(interval);
            if next > t || (!inclusive && next == t) {
                break;
            }
            self.last_tick = next;
            self.now = self.now.max(next);
            self.tick();
        }
    }

    fn tick(&mut self) {
        let now = self.now;
        let n = self.job().sources.len();
        for s in 0..n {
            let p = self.job().sources[s].on_periodic_emit(now);
            self.forward(s, p);
        }
    }

    fn forward(&mut self, subtask: usize, p: Progress) {
        if p.is_empty() {
            return;
        }
        let now = self.now;
        let job = self.job.as_mut().expect("built");
        for out in job.gate.input(0, subtask, p) {
            if let Some(wm) = out.watermark {
                job.op.on_watermark(wm, &mut self.buf);
                self.timeline.push((now, wm));
            }
        }
        self.collect(now);
    }

    fn collect(&mut self, now: Timestamp) {
        for o in self.buf.drain(..) {
            match o {
                WindowOutput::Fired(r) => self.output.push(Fired {
                    key: r.key,
                    window: r.window,
                    values: r.values,
                    emitted_at: now,
                }),
                WindowOutput::Late(i) => self.late.push(Event {
                    key: i.key,
                    ts: i.ts,
                    partition: i.split as i32,
                    row: i.row,
                }),
            }
        }
    }

    /// A checkpoint of the job as it is now: every split's generator and
    /// idleness, every subtask's combiner, the valve, the window state and
    /// the processing-time clock. Results already emitted are not state: a
    /// restored harness starts with an empty [`Harness::output`].
    pub fn checkpoint(&mut self) -> Vec<u8> {
        self.job();
        let snapshot = HarnessSnapshot {
            config: &self.config,
            job: self.job.as_ref().expect("built above"),
            now: self.now,
            last_tick: self.last_tick,
        };
        checkpoint::encode(1, &snapshot).expect("harness state always encodes")
    }

    /// Restores a checkpoint taken by [`Harness::checkpoint`] of a harness
    /// configured the same way, as a restarted job would: the watermarks,
    /// idleness, open windows and the clock continue from the checkpoint.
    /// A harness at another parallelism restores it too, as `run` rescales:
    /// the splits regrouped by the assignment rule at the new parallelism
    /// ([`SourceSubtask::regroup`]), the valve over the new subtasks.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<()> {
        let (_, snap): (_, OwnedSnapshot) = checkpoint::decode(bytes)
            .map_err(|e: CheckpointError| Error::Checkpoint(e.to_string()))?;
        let mut config = self.config.clone();
        if config.window.aggregates.is_empty() {
            config.window.aggregates.push(AggSpec::count_star());
        }
        let at = |c: &Config| Config {
            parallelism: 0,
            ..c.clone()
        };
        if at(&snap.config) != at(&config) {
            return Err(Error::Checkpoint(
                "it was taken by a harness configured differently".into(),
            ));
        }
        let mut job = snap.job;
        if snap.config.parallelism != config.parallelism {
            let p = config.parallelism;
            let owners = (0..config.partitions)
                .map(|i| crate::assignment::split_owner(&config.topic, i as i32, p))
                .collect::<Result<Vec<_>>>()?;
            let by_split = |id: u32| owners.get(id as usize).copied().unwrap_or(0);
            let sources = SourceSubtask::regroup(job.sources, p, by_split)?;
            let output = job.gate.current();
            job = Job {
                gate: InputGate::single(SourceSubtask::valve_over(&sources, output)),
                sources,
                owners,
                op: job.op,
            };
        }
        self.config = config;
        self.job = Some(job);
        self.now = snap.now;
        self.last_tick = snap.last_tick;
        self.output.clear();
        self.late.clear();
        self.timeline.clear();
        Ok(())
    }

    /// Current processing time.
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// Every window result so far, in emission order.
    pub fn output(&self) -> &[Fired] {
        &self.output
    }

    /// Takes the results so far, leaving none.
    pub fn take_output(&mut self) -> Vec<Fired> {
        std::mem::take(&mut self.output)
    }

    /// Late records routed to the side output.
    pub fn late_records(&self) -> &[Event] {
        &self.late
    }

    /// Late-record counters per partition.
    pub fn late(&self) -> LateCounters {
        self.job
            .as_ref()
            .map(|j| j.op.late().clone())
            .unwrap_or_default()
    }

    /// Late records dropped in total.
    pub fn late_dropped(&self) -> u64 {
        self.late().total_dropped()
    }

    /// The job's event-time watermark: what the window operator has seen.
    pub fn watermark(&self) -> Timestamp {
        self.job
            .as_ref()
            .map_or(MIN_WATERMARK, |j| j.gate.current())
    }

    /// Whether every source is idle, so the job's watermark is not held.
    pub fn is_idle(&self) -> bool {
        self.job.as_ref().is_some_and(|j| j.gate.is_idle())
    }

    /// Every advance of the job's watermark: (processing time, watermark).
    pub fn watermark_timeline(&self) -> &[(Timestamp, Timestamp)] {
        &self.timeline
    }

    /// What is known about partition `p`, with its subtask.
    pub fn partition(&self, p: i32) -> Option<(usize, SplitView)> {
        let job = self.job.as_ref()?;
        let owner = *job.owners.get(usize::try_from(p).ok()?)?;
        job.sources[owner].split(p as u32).map(|v| (owner, v))
    }

    /// Source subtask `s`'s watermark and idle flag.
    pub fn subtask(&self, s: usize) -> Option<(Timestamp, bool)> {
        let src = self.job.as_ref()?.sources.get(s)?;
        Some((src.watermark(), src.is_idle()))
    }

    /// The subtask of partition `p` under Flink's Kafka assignment.
    pub fn owner_of(&self, p: i32) -> Option<usize> {
        self.job
            .as_ref()?
            .owners
            .get(usize::try_from(p).ok()?)
            .copied()
    }

    /// The partition (and subtask) holding the job's watermark back right
    /// now: the aligned active channel with the lowest watermark, and within
    /// it the active split with the lowest watermark. `None` when the job is
    /// idle or not started.
    pub fn held_by(&self) -> Option<Holder> {
        let job = self.job.as_ref()?;
        let (_, subtask) = job.gate.holding()?;
        let source = &job.sources[subtask];
        let split = source.holding_split().and_then(|id| source.split(id));
        Some(Holder {
            subtask,
            partition: split.map(|s| s.id as i32),
            watermark: job.gate.holding_watermark(),
            silent_for: self.now - split.and_then(|s| s.last_arrival).unwrap_or(0),
            never_had_record: split.is_none_or(|s| s.records == 0),
        })
    }

    /// [`Harness::held_by`] with the reason in words: why that partition
    /// holds the watermark and what releases it, in DataStream terms
    /// (`withIdleness`), as the replay report says it for SQL jobs.
    pub fn held_by_explained(&self) -> Option<(Holder, String)> {
        let h = self.held_by()?;
        let idle = self.config.strategy.idle_timeout;
        let Some(p) = h.partition else {
            return Some((
                h,
                format!(
                    "subtask {} reads no partition (parallelism {} > {} partitions) and holds the \
                     watermark at MIN; withIdleness releases it, or a parallelism no larger than \
                     the partition count",
                    h.subtask, self.config.parallelism, self.config.partitions
                ),
            ));
        };
        let what = format!("partition {p} (subtask {})", h.subtask);
        let silent = display_duration(h.silent_for);
        let why = match idle {
            None if h.never_had_record => format!(
                "{what} has had no record since the start and idleness is disabled, so it holds \
                 the watermark at MIN; withIdleness(...) releases it"
            ),
            Some(t) if h.never_had_record || h.silent_for > t => format!(
                "{what} has had no record for {silent}, longer than the idle timeout of {}; it \
                 goes idle at the next periodic watermark",
                display_duration(t)
            ),
            None if h.silent_for > self.config.window.assigner.max_size() => format!(
                "{what} has had no record for {silent} and idleness is disabled; \
                 withIdleness(...) releases it (its later records may then be late: they are \
                 counted per partition)"
            ),
            Some(t) if h.silent_for > 0 => format!(
                "{what} has had no record for {silent}, not longer than the idle timeout of {}, \
                 so it is not idle yet and its watermark trails the others",
                display_duration(t)
            ),
            _ => format!(
                "{what} has the lowest watermark: its event time trails the other partitions \
                 (its last record {silent} ago)"
            ),
        };
        Some((h, why))
    }
}
