//! The virtual-time executor: one planned job over ordered records.
//!
//! The clock is the records' `ts` (their arrival time). Before a record at
//! time `t` every periodic tick `t0 + k*I < t` runs; at a tick every split's
//! generator emits (idleness first), every source subtask combines its splits
//! and the result goes through each pipeline's valve at once; windows fired
//! then carry the tick's time. A record is processed at its own time: its
//! split's generator sees it (before any filter, as in Flink), then each
//! pipeline reading the table filters, keys and aggregates it. The result is
//! a pure function of the inputs and flags.

use std::collections::{BTreeMap, HashMap};

use lowwater_connectors::dump::DumpRecord;
use lowwater_connectors::row::{Built, RowBuilder};
use lowwater_connectors::sink::SinkFormat;
use lowwater_core::assignment::split_owner;
use lowwater_core::dataflow::window::{OpenCheck, WindowNode};
use lowwater_core::diagnose::{Holder, Stall, StallDetector};
use lowwater_core::source::{SourceSubtask, SplitId, SplitView};
use lowwater_core::watermark::Progress;
use lowwater_core::window::batch::InputRef;
use lowwater_core::window::operator::WindowOutput;
use lowwater_core::{Millis, Row, Timestamp, MIN_WATERMARK};
use lowwater_sql::expr::truth;
use lowwater_sql::plan::{JobPlan, LateReason, LateRow, OnOpenLimit};

pub use lowwater_core::source::SplitMeta;

pub use lowwater_connectors::row::{RecordError, RecordRef};

struct Source {
    subtasks: Vec<SourceSubtask>,
    rows: RowBuilder,
    pipelines: Vec<usize>,
    /// The temporal joins reading this table, and the port (probe or
    /// build) it feeds.
    joins: Vec<(usize, usize)>,
    /// The interval joins reading it, and the port (left or right).
    intervals: Vec<(usize, usize)>,
}

struct Pipe {
    /// The gate, the operator and the open-state guard (the live window
    /// task drives the same node).
    node: WindowNode,
    detector: StallDetector,
    stalls: Vec<Stall>,
    filtered: u64,
    late_map: Option<LateRow>,
    /// The most open states at a tick so far.
    peak_open: u64,
    /// Recurring holds: the meter and its findings (see `recurring.rs`).
    meter: lowwater_core::recurring::HoldMeter,
    recurring: Vec<lowwater_core::recurring::Recurring>,
}

/// Rows a sink table received.
#[derive(Debug, Clone, Default)]
pub struct SinkOutput {
    /// The records, in emission order, as a dump would hold them.
    pub records: Vec<DumpRecord>,
    /// Rows written (also for sinks that keep no records, like blackhole).
    pub rows: u64,
    /// Window results among them.
    pub window_rows: u64,
    /// Late rows among them (from a `late-data.sink`).
    pub late_rows: u64,
    /// Largest emission time minus window end over window results.
    pub max_emission_lag: Option<Millis>,
    /// Every window result's emission lag, counted by value (exact
    /// percentiles; window results are few next to records).
    pub lags: BTreeMap<Millis, u64>,
    /// Window rows fired early (`lowwater.state.on-limit` = 'fire-oldest').
    pub early_rows: u64,
}

struct Sink {
    format: SinkFormat,
    out: SinkOutput,
    /// Whether rows are kept (else only counted).
    keep: bool,
}

/// The executor.
pub struct Engine<'p> {
    plan: &'p JobPlan,
    splits: Vec<SplitMeta>,
    index: HashMap<(usize, String, i32), SplitId>,
    sources: Vec<Source>,
    /// Source index by table index (`None` for tables no INSERT reads).
    source_of: Vec<Option<usize>>,
    pipes: Vec<Pipe>,
    joins: Vec<join::JoinPipe>,
    intervals: Vec<interval::IntervalPipe>,
    sinks: BTreeMap<usize, Sink>,
    skipped: BTreeMap<SplitId, u64>,
    nulled: BTreeMap<SplitId, u64>,
    /// Records kept out by the future-timestamp guard.
    future: BTreeMap<SplitId, u64>,
    interval: Millis,
    horizon: Millis,
    last_record: Timestamp,
    t0: Timestamp,
    last_tick: Timestamp,
    now: Timestamp,
    records_in: u64,
    buf: Vec<WindowOutput>,
    row: Row,
    /// The record's key and aggregate arguments (reused per record).
    key: Row,
    args: Row,
    /// The first row a sink could not write (an Avro value that does not
    /// fit its schema, a registry that refuses it), or that could not be
    /// computed: the replay fails.
    sink_error: Option<String>,
    /// Watermark alignment groups, and what they did.
    groups: align::Groups,
    align: align::AlignState,
}

/// A record that could not be processed, and which one (the driver's
/// index): with watermark alignment a record may be read after later ones.
#[derive(Debug)]
pub struct Failed {
    /// The driver's index of the record.
    pub origin: usize,
    /// Why.
    pub error: RecordError,
}

mod align;
mod interval;
mod join;
mod output;
mod recurring;
mod snapshot;

pub use join::JoinStall;

/// The source of `table` (its index in `sources`), added if it is new.
fn source_for(
    plan: &JobPlan,
    table: usize,
    sources: &mut Vec<Source>,
    source_of: &mut [Option<usize>],
) -> Result<usize, String> {
    if let Some(si) = source_of[table] {
        return Ok(si);
    }
    let t = &plan.tables[table];
    let strategy = t
        .strategy(&plan.settings)
        .ok_or_else(|| format!("table {} has no watermark", t.name))?;
    let subtasks = (0..plan.settings.parallelism)
        .map(|_| SourceSubtask::new(strategy))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    sources.push(Source {
        subtasks,
        rows: RowBuilder::new(plan, table)?,
        pipelines: Vec::new(),
        joins: Vec::new(),
        intervals: Vec::new(),
    });
    source_of[table] = Some(sources.len() - 1);
    Ok(sources.len() - 1)
}

use output::sink;
pub use snapshot::EngineSnapshot;

impl<'p> Engine<'p> {
    /// An executor for `plan` with the given splits (every partition of every
    /// source, known from the start), starting at `t0`, reporting stalls
    /// longer than `threshold`.
    pub fn new(
        plan: &'p JobPlan,
        split_list: &[(usize, String, i32)],
        t0: Timestamp,
        threshold: Millis,
    ) -> Result<Self, String> {
        let p = plan.settings.parallelism;
        let mut sources: Vec<Source> = Vec::new();
        let mut source_of: Vec<Option<usize>> = vec![None; plan.tables.len()];
        let mut pipes = Vec::new();
        let mut sinks = BTreeMap::new();
        for (pi, pl) in plan.pipelines.iter().enumerate() {
            // A window over a temporal join reads the join's rows, on one
            // channel (the join is one node here).
            let joined = pl.first().join.is_some() || pl.first().interval.is_some();
            if !joined {
                let si = source_for(plan, pl.source, &mut sources, &mut source_of)?;
                sources[si].pipelines.push(pi);
            }
            let channels = if joined { 1 } else { p };
            let late_map = plan.late_row(pl.source);
            let outs = late_map.iter().map(|l| l.sink).chain([pl.sink]);
            for t in outs.collect::<Vec<_>>() {
                if let std::collections::btree_map::Entry::Vacant(e) = sinks.entry(t) {
                    e.insert(sink(plan, t)?);
                }
            }
            let limit = plan.settings.max_open_windows;
            let chained = pl.chained().iter().map(|s| s.window.clone()).collect();
            pipes.push(Pipe {
                node: WindowNode::new(
                    pl.first().window.clone(),
                    channels,
                    limit,
                    plan.open_limit_grace(),
                )
                .and_then(|n| n.chained(chained))
                .map_err(|e| e.to_string())?,
                detector: StallDetector::new(threshold, t0, MIN_WATERMARK),
                stalls: Vec::new(),
                filtered: 0,
                late_map,
                peak_open: 0,
                meter: recurring::meter(plan, pipes.len(), (threshold, t0)),
                recurring: Vec::new(),
            });
        }
        let mut sources_of = (&mut sources, &mut source_of[..]);
        let (joins, intervals) = join::pipes(plan, &mut sources_of, &mut sinks, (threshold, t0))?;
        // After this long without a record, every periodic tick is a no-op
        // (generators repeat themselves, idleness has been decided, statuses
        // have settled) until the next record: such ticks are skipped.
        let max_idle = plan
            .tables
            .iter()
            .filter_map(|t| t.idle_timeout)
            .max()
            .unwrap_or(0);
        let horizon = max_idle.saturating_add(plan.settings.emit_interval.saturating_mul(6));
        let mut splits = Vec::new();
        let mut index = HashMap::new();
        let mut sorted = split_list.to_vec();
        sorted.sort();
        sorted.dedup();
        for (table, topic, partition) in sorted {
            let Some(si) = source_of[table] else {
                continue;
            };
            let subtask = split_owner(&topic, partition, p).map_err(|e| e.to_string())?;
            let id = splits.len() as SplitId;
            sources[si].subtasks[subtask]
                .add_split(id)
                .map_err(|e| e.to_string())?;
            index.insert((table, topic.clone(), partition), id);
            splits.push(SplitMeta {
                table,
                topic,
                partition,
                subtask,
            });
        }
        let groups = align::Groups::new(plan, &splits);
        Ok(Engine {
            plan,
            splits,
            index,
            sources,
            source_of,
            pipes,
            joins,
            intervals,
            sinks,
            skipped: BTreeMap::new(),
            nulled: BTreeMap::new(),
            future: BTreeMap::new(),
            interval: plan.settings.emit_interval,
            horizon,
            last_record: t0,
            t0,
            last_tick: t0,
            now: t0,
            records_in: 0,
            buf: Vec::new(),
            sink_error: None,
            row: Vec::new(),
            key: Vec::new(),
            args: Vec::new(),
            align: align::AlignState::new(&groups, t0),
            groups,
        })
    }

    /// Whether the sinks keep the rows they write (the default) or only
    /// count them (`lowwater tune`, which needs the counts of many replays).
    pub fn keep_rows(&mut self, keep: bool) {
        for s in self.sinks.values_mut() {
            s.keep = keep;
        }
    }

    /// Pipeline `pi`'s (window, key) states not fired yet, and the
    /// earliest end among their windows.
    pub fn open_windows(&self, pi: usize) -> (u64, Option<Timestamp>) {
        let node = &self.pipes[pi].node;
        (node.pending() as u64, node.op().first_open_end())
    }

    /// Takes the rows written so far, keeping the sinks' counters.
    pub fn take_records(&mut self) -> BTreeMap<usize, Vec<DumpRecord>> {
        self.sinks
            .iter_mut()
            .map(|(t, s)| (*t, std::mem::take(&mut s.out.records)))
            .collect()
    }

    /// The job's splits.
    pub fn splits(&self) -> &[SplitMeta] {
        &self.splits
    }

    /// The split of `table`'s `topic`/`partition`, if it is one of the job's.
    pub fn split_id(&self, table: usize, topic: &str, partition: i32) -> Option<SplitId> {
        self.index
            .get(&(table, topic.to_string(), partition))
            .copied()
    }

    /// Processes record `origin` (the driver's index), of split `id` of
    /// `table`, arriving at its `ts`. With watermark alignment it may wait
    /// (its split is paused) and be processed later: an error names the
    /// record that failed.
    pub fn process(
        &mut self,
        origin: usize,
        table: usize,
        id: SplitId,
        rec: RecordRef<'_>,
    ) -> Result<(), Failed> {
        self.run_ticks(rec.ts, false)?;
        self.now = self.now.max(rec.ts);
        if self.defer(origin, table, id, rec) {
            return Ok(());
        }
        self.process_now(table, id, rec)
            .map_err(|error| Failed { origin, error })?;
        self.check_pause(id);
        Ok(())
    }

    /// Processes one record now.
    fn process_now(
        &mut self,
        table: usize,
        id: SplitId,
        rec: RecordRef<'_>,
    ) -> Result<(), RecordError> {
        self.now = self.now.max(rec.ts);
        self.records_in += 1;
        let Some(si) = self.source_of.get(table).copied().flatten() else {
            return Ok(());
        };
        // The time it is read (a record that waited for alignment is read
        // after its arrival): ticks are skipped only after quiet time.
        self.last_record = self.now;
        let Some((ts, delete)) = self.decode(si, id, rec)? else {
            *self.skipped.entry(id).or_insert(0) += 1;
            return Ok(());
        };
        // A tombstone without a time of a normalized upsert table: it moves
        // no watermark and deletes its key's last version in each join.
        let Some(ts) = ts else {
            return self.feed_joins(si, id, lowwater_core::MIN_WATERMARK, true);
        };
        // An event time no window can hold is the record's error (or, with
        // json.ignore-parse-errors, a skipped record), as a decode error is.
        // (No window reads an upsert table: a tombstone goes to joins only.)
        let windows = if delete {
            0
        } else {
            self.sources[si].pipelines.len()
        };
        for &pi in &self.sources[si].pipelines[..windows] {
            if let Err(e) = self.plan.pipelines[pi].first().window.assigner.check(ts) {
                if self.sources[si].rows.ignores_errors() {
                    *self.skipped.entry(id).or_insert(0) += 1;
                    return Ok(());
                }
                return Err(RecordError::decode(e.to_string()));
            }
        }
        // The future-timestamp guard: a record dated further ahead of its
        // arrival than the table allows moves no watermark and joins no
        // window (one clock-skewed producer would make every later record
        // late); it is counted.
        if let Some(m) = self.plan.tables[table].max_future {
            if ts > self.now.saturating_add(m) {
                *self.future.entry(id).or_insert(0) += 1;
                if let Some(late) = self.plan.late_row(table) {
                    let values = late.values(&self.row, LateReason::Future);
                    self.write_late(late.sink, &values, self.now);
                }
                return Ok(());
            }
        }
        let subtask = self.splits[id as usize].subtask;
        let progress = self.sources[si].subtasks[subtask]
            .on_record(id, ts, self.now)
            .map_err(|e| RecordError::other(e.to_string()))?;
        self.forward(si, subtask, progress);
        for k in 0..windows {
            let pi = self.sources[si].pipelines[k];
            self.feed(pi, id, ts)?;
        }
        self.feed_joins(si, id, ts, delete)?;
        for k in 0..self.sources[si].intervals.len() {
            let (ii, port) = self.sources[si].intervals[k];
            self.feed_interval(ii, port, id, ts)?;
        }
        // On-event emission: the watermark this record made due follows it.
        let after = self.sources[si].subtasks[subtask].after_record(id, self.now);
        self.forward(si, subtask, after);
        Ok(())
    }

    /// The decoded row of source `si` into each temporal join reading it.
    fn feed_joins(
        &mut self,
        si: usize,
        id: SplitId,
        ts: Timestamp,
        delete: bool,
    ) -> Result<(), RecordError> {
        for k in 0..self.sources[si].joins.len() {
            let (ji, port) = self.sources[si].joins[k];
            self.feed_join(ji, port, id, ts, delete)?;
        }
        Ok(())
    }

    /// Decodes `rec` into `self.row` and returns its event time (`None`: a
    /// tombstone without one) and whether it is an upsert table's tombstone
    /// (see [`Built::Delete`]),
    /// or `None` when the record is skipped (see [`Built::Skipped`]).
    fn decode(
        &mut self,
        si: usize,
        id: SplitId,
        rec: RecordRef<'_>,
    ) -> Result<Option<(Option<Timestamp>, bool)>, RecordError> {
        let mut nulled = 0;
        let built = self.sources[si].rows.build(rec, &mut self.row, &mut nulled);
        if nulled > 0 {
            *self.nulled.entry(id).or_insert(0) += nulled;
        }
        Ok(match built? {
            Built::Row(ts) => Some((Some(ts), false)),
            Built::Delete(ts) => Some((ts, true)),
            Built::Skipped => None,
        })
    }

    fn feed(&mut self, pi: usize, id: SplitId, ts: Timestamp) -> Result<(), RecordError> {
        let plan = self.plan;
        // The aggregation reading the records (the first of cascading windows).
        let pl = plan.pipelines[pi].first();
        let now = self.now;
        if let Some(f) = &pl.filter {
            let keep = truth(
                &f.eval(&self.row)
                    .map_err(|m| RecordError::other(format!("WHERE: {m}")))?,
            );
            if keep != Some(true) {
                self.pipes[pi].filtered += 1;
                return self.note_record(pi);
            }
        }
        pl.window_input(&self.row, &mut self.key, &mut self.args)
            .map_err(RecordError::other)?;
        let input = InputRef {
            ts,
            split: id,
            key: &self.key,
            row: &self.args,
        };
        if pl.project {
            pl.project(input, &mut self.buf)
                .map_err(RecordError::other)?;
        } else {
            self.pipes[pi]
                .node
                .op_mut()
                .process_ref(input, &mut self.buf)
                .map_err(|e| RecordError::other(e.to_string()))?;
        }
        self.emit(pi, now, true);
        self.check_open(pi)?;
        self.note_record(pi)
    }

    /// Every few thousand records: the (window, key) states an INSERT
    /// holds stay within `lowwater.state.max-open-windows`, or the replay
    /// stops naming the stall that keeps them open.
    fn check_open(&mut self, pi: usize) -> Result<(), RecordError> {
        let pipe = &mut self.pipes[pi];
        if !pipe.node.due(1) {
            return Ok(());
        }
        let open = pipe.node.pending() as u64;
        let limit = self.plan.settings.max_open_windows;
        // The oldest windows fire early until 80% of the limit is left
        // (one operator holds the whole INSERT's states).
        let fire = self.plan.settings.on_open_limit == OnOpenLimit::FireOldest;
        let still_for = match pipe
            .node
            .check_open(open, self.now, fire.then_some(1), &mut self.buf)
        {
            OpenCheck::Within | OpenCheck::Near => return Ok(()),
            OpenCheck::FiredEarly(_) => {
                let now = self.now;
                self.emit(pi, now, false);
                return Ok(());
            }
            OpenCheck::Over { still_for } => still_for,
        };
        let held = match self.holder(pi) {
            Some(h) => match h.split.and_then(|id| self.splits.get(id as usize)) {
                Some(m) => format!(
                    "partition {} of topic {} holds it (no record for {})",
                    m.partition,
                    m.topic,
                    lowwater_core::time::display_duration(h.silent_ms)
                ),
                None => format!("source subtask {} holds it", h.subtask),
            },
            None => "no partition holds it".to_string(),
        };
        let sink = &self.plan.tables[self.plan.pipelines[pi].sink].name;
        Err(RecordError::other(format!(
            "{}; it is at {} and {held}: release the stall (an idle timeout for a silent \
             partition) or raise the limit with SET 'lowwater.state.max-open-windows'",
            lowwater_core::window::limit::over_message(sink, open, limit, still_for),
            match self.pipes[pi].node.op().watermark() {
                MIN_WATERMARK => "MIN (none yet)".to_string(),
                wm => lowwater_core::time::format_timestamp(wm, ' '),
            }
        )))
    }

    fn note_record(&mut self, pi: usize) -> Result<(), RecordError> {
        self.pipes[pi].meter.on_record(self.now);
        if self.pipes[pi].detector.on_record(self.now).is_some() {
            self.explain(pi);
        }
        Ok(())
    }

    /// Explains pipeline `pi`'s open stall by who holds it now (with the
    /// watermark of the channel it holds).
    fn explain(&mut self, pi: usize) {
        let h = self.holder(pi);
        let pipe = &mut self.pipes[pi];
        let at = pipe.node.gate().holding_watermark();
        pipe.detector.explain(h, at);
    }

    /// Who holds pipeline `pi`'s watermark now.
    pub fn holder(&self, pi: usize) -> Option<Holder> {
        let (_, subtask) = self.pipes[pi].node.gate().holding()?;
        let si = self.source_of[self.plan.pipelines[pi].source].unwrap_or(0);
        Some(self.holder_at(si, subtask))
    }

    /// What holds source `si`'s subtask `subtask`'s watermark.
    fn holder_at(&self, si: usize, subtask: usize) -> Holder {
        let src = &self.sources[si].subtasks[subtask];
        let split = src.holding_split().and_then(|id| src.split(id));
        Holder {
            subtask,
            split: split.map(|s| s.id),
            // Saturating: a dump may hold arrival times near the ends of
            // the range (a hostile or broken producer clock).
            silent_ms: self
                .now
                .saturating_sub(split.and_then(|s| s.last_arrival).unwrap_or(self.t0)),
            never_had_record: split.is_none_or(|s| s.records == 0),
            gap_ms: split.and_then(|s| s.max_gap),
            silent_at_least: false,
        }
    }

    fn forward(&mut self, si: usize, subtask: usize, p: Progress) {
        if p.is_empty() {
            return;
        }
        for k in 0..self.sources[si].joins.len() {
            let (ji, port) = self.sources[si].joins[k];
            self.forward_join(ji, port, subtask, p);
        }
        for k in 0..self.sources[si].intervals.len() {
            let (ii, port) = self.sources[si].intervals[k];
            self.forward_interval(ii, port, subtask, p);
        }
        for k in 0..self.sources[si].pipelines.len() {
            let pi = self.sources[si].pipelines[k];
            self.pipe_progress(pi, subtask, p);
        }
    }

    /// Channel `ch` of pipeline `pi`'s window sent `p`: the windows the
    /// watermark passes fire.
    pub(super) fn pipe_progress(&mut self, pi: usize, ch: usize, p: Progress) {
        let now = self.now;
        for out in self.pipes[pi].node.gate_mut().input(0, ch, p) {
            if let Some(wm) = out.watermark {
                let pl = &self.plan.pipelines[pi];
                let linked = self.pipes[pi].node.advance(
                    wm,
                    now,
                    &mut self.buf,
                    usize::MAX,
                    &mut |_| {},
                    pl,
                );
                if let Err(e) = linked {
                    self.sink_error.get_or_insert(format!(
                        "INSERT INTO {}: a window aggregation's row into the next: {e}",
                        self.plan.tables[pl.sink].name
                    ));
                }
                if let Some(s) = self.pipes[pi].detector.on_advance(now, wm) {
                    self.pipes[pi].stalls.push(s);
                }
                self.emit(pi, now, false);
            }
        }
    }

    fn run_ticks(&mut self, t: Timestamp, inclusive: bool) -> Result<(), Failed> {
        if self.interval <= 0 {
            return Ok(());
        }
        let limit = if inclusive { t } else { t.saturating_sub(1) };
        // Per alignment group, whether it took its slowest watermark again
        // in a quiet tick (past the horizon) that neither paused, resumed
        // nor read anything since the last that did: once all have, later
        // ticks change nothing either.
        let mut quiet_updates = vec![false; self.align.groups()];
        let mut settled = false;
        while let Some(mut next) = self.last_tick.checked_add(self.interval) {
            if next > limit {
                break;
            }
            let quiet = next > self.last_record.saturating_add(self.horizon);
            if quiet && (settled || !self.align.any_held()) {
                // Nothing can change until the next record: jump to the last
                // tick before `limit` and run only that one (it refreshes the
                // stall explanations at the right time). Records alignment
                // holds back change nothing either once a quiet tick left
                // them as they were (an arrival time years ahead must not
                // cost a tick per interval).
                // With records held, no further than the next alignment
                // update: it may resume a partition.
                let target = match !settled && self.align.any_held() {
                    true => self.align.next_update().map_or(limit, |u| u.min(limit)),
                    false => limit,
                };
                let k = ((target - self.last_tick) / self.interval).max(1);
                next = self.last_tick + k * self.interval;
            }
            let before = (self.align.signature(), self.align.updates());
            self.last_tick = next;
            self.now = self.now.max(next);
            self.keep_paused_active();
            for si in 0..self.sources.len() {
                for s in 0..self.sources[si].subtasks.len() {
                    let p = self.sources[si].subtasks[s].on_periodic_emit(next);
                    self.forward(si, s, p);
                }
            }
            self.update_alignment(next)?;
            if quiet && self.align.signature() == before.0 {
                let after = self.align.updates();
                for (g, ran) in quiet_updates.iter_mut().enumerate() {
                    *ran |= after[g] != before.1[g];
                }
            } else {
                quiet_updates.iter_mut().for_each(|r| *r = false);
            }
            settled = quiet_updates.iter().all(|r| *r);
            for p in &mut self.pipes {
                p.peak_open = p.peak_open.max(p.node.pending() as u64);
            }
            for pi in 0..self.pipes.len() {
                if self.pipes[pi].detector.current().is_some() {
                    self.explain(pi);
                }
            }
            self.meter_tick();
            for ji in 0..self.joins.len() {
                if self.joins[ji].stalled() {
                    self.explain_join(ji);
                }
            }
            for ii in 0..self.intervals.len() {
                if self.intervals[ii].stalled() {
                    self.explain_interval(ii);
                }
            }
        }
        Ok(())
    }

    /// Ends the replay: runs the ticks up to the last record's time, then,
    /// with `drain`, ends every source (MAX: every window fires), and closes
    /// open stalls.
    pub fn finish(&mut self, drain: bool) -> Result<(), Failed> {
        let end = self.now;
        self.run_ticks(end, true)?;
        if drain {
            self.end_alignment()?;
        }
        // Stalls still open end with the input: the drain's MAX is not the
        // watermark advancing, so it must not close them as resolved.
        for p in &mut self.pipes {
            if let Some(s) = p.detector.finish() {
                p.stalls.push(s);
            }
            p.recurring.extend(p.meter.finish(end));
        }
        for j in &mut self.joins {
            j.finish();
        }
        for j in &mut self.intervals {
            j.finish();
        }
        if drain {
            for si in 0..self.sources.len() {
                for s in 0..self.sources[si].subtasks.len() {
                    let p = self.sources[si].subtasks[s].end_of_input();
                    self.forward(si, s, p);
                }
            }
        }
        Ok(())
    }

    /// The most (window, key) states pipeline `pi` held at a tick.
    pub fn peak_open(&self, pi: usize) -> u64 {
        self.pipes[pi].peak_open
    }

    /// The state of split `id` and its late counters.
    pub fn split_state(&self, id: SplitId) -> Option<SplitState> {
        let meta = self.splits.get(id as usize)?;
        let si = self.source_of[meta.table]?;
        let view = self.sources[si].subtasks[meta.subtask].split(id)?;
        let (mut dropped, mut routed) = (0, 0);
        for &pi in &self.sources[si].pipelines {
            let late = self.pipes[pi].node.op().late();
            dropped += late.dropped.get(&id).copied().unwrap_or(0);
            routed += late.routed.get(&id).copied().unwrap_or(0);
        }
        Some(SplitState {
            view,
            skipped: self.skipped.get(&id).copied().unwrap_or(0),
            future: self.future.get(&id).copied().unwrap_or(0),
            nulled: self.nulled.get(&id).copied().unwrap_or(0),
            late_dropped: dropped,
            late_routed: routed,
        })
    }

    /// The first row a sink could not write, if any.
    pub fn sink_error(&self) -> Option<&str> {
        self.sink_error.as_deref()
    }

    /// Sink outputs by table index.
    pub fn sinks(&self) -> impl Iterator<Item = (usize, &SinkOutput)> {
        self.sinks.iter().map(|(t, s)| (*t, &s.out))
    }

    /// Takes the sink outputs.
    pub fn take_sinks(&mut self) -> BTreeMap<usize, SinkOutput> {
        std::mem::take(&mut self.sinks)
            .into_iter()
            .map(|(t, s)| (t, s.out))
            .collect()
    }

    /// Stalls of pipeline `pi`, in time order.
    pub fn stalls(&self, pi: usize) -> &[Stall] {
        &self.pipes[pi].stalls
    }

    /// Records filtered out by pipeline `pi`'s WHERE.
    pub fn filtered(&self, pi: usize) -> u64 {
        self.pipes[pi].filtered
    }

    /// Pipeline `pi`'s final watermark.
    pub fn watermark(&self, pi: usize) -> Timestamp {
        self.pipes[pi].node.gate().current()
    }

    /// Records read.
    pub fn records_in(&self) -> u64 {
        self.records_in
    }

    /// Replay start.
    pub fn t0(&self) -> Timestamp {
        self.t0
    }

    /// The last processing time.
    pub fn now(&self) -> Timestamp {
        self.now
    }
}

/// A split's final state.
#[derive(Debug, Clone, Copy)]
pub struct SplitState {
    /// Watermark, idle flag, records, last times.
    pub view: SplitView,
    /// Records skipped: empty payloads and tombstones, and with
    /// the format's ignore-parse-errors option undecodable records.
    pub skipped: u64,
    /// Fields set to NULL because they did not convert (ignore-parse-errors).
    pub nulled: u64,
    /// Late records dropped (all pipelines).
    pub late_dropped: u64,
    /// Late records routed to the late-data sink (all pipelines).
    pub late_routed: u64,
    /// Records kept out by `lowwater.watermark.max-future`.
    pub future: u64,
}
