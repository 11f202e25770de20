//! The replay engine's temporal joins: each INSERT over an event-time
//! temporal join is one [`TemporalJoinNode`] (the node the live runtime
//! will drive too), fed the probe table's rows on port 0 and the versioned
//! table's on port 1, its watermark the combined one of both sides' source
//! subtasks. Joined rows are written when the watermark passes their time;
//! a stall names the side, table and partition that holds the join and
//! how many probe rows wait for it.

use std::collections::BTreeMap;

use lowwater_connectors::row::RecordError;
use lowwater_core::diagnose::{Stall, StallDetector};
use lowwater_core::join::node::{TemporalJoinNode, TemporalJoinState};
use lowwater_core::join::temporal::{Joined, BUILD, PROBE};
use lowwater_core::source::SplitId;
use lowwater_core::watermark::Progress;
use lowwater_core::window::limit::Verdict;
use lowwater_core::{Timestamp, MIN_WATERMARK};
use lowwater_sql::plan::JobPlan;
use serde::{Deserialize, Serialize};

use super::Engine;

/// The split the rows of a join carry into a window after it (late rows
/// there are counted under it: the window's input is the join, not a
/// partition).
pub const JOINED: SplitId = SplitId::MAX;

/// A stall of a join, with the side that held it when it ended and the
/// probe rows then waiting.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JoinStall {
    /// The stall.
    pub stall: Stall,
    /// The port that held it ([`PROBE`] or [`BUILD`]), when one did.
    pub port: Option<usize>,
    /// Probe rows waiting for the watermark then.
    pub waiting: u64,
}

pub(super) struct JoinPipe {
    node: TemporalJoinNode,
    detector: StallDetector,
    stalls: Vec<JoinStall>,
    /// The port that holds the join, as last explained.
    port: Option<usize>,
    /// Joined rows WHERE dropped.
    filtered: u64,
    /// Probe rows an inner join wrote nothing for (no version, or the ON
    /// condition beyond the key false).
    unmatched: u64,
    /// Records that reached it behind its watermark, per split.
    late: BTreeMap<SplitId, u64>,
    out: Vec<Joined>,
}

/// A join's part of the engine's snapshot.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct JoinSnapshot {
    node: TemporalJoinState,
    detector: StallDetector,
    stalls: Vec<JoinStall>,
    port: Option<usize>,
    filtered: u64,
    unmatched: u64,
    late: BTreeMap<SplitId, u64>,
}

impl JoinPipe {
    pub(super) fn new(plan: &JobPlan, ji: usize, threshold: i64, t0: Timestamp) -> Self {
        let channels = plan.settings.parallelism;
        let limit = plan.settings.max_join_rows;
        JoinPipe {
            node: plan.joins[ji].node(channels, channels, limit, plan.open_limit_grace()),
            detector: StallDetector::new(threshold, t0, MIN_WATERMARK),
            stalls: Vec::new(),
            port: None,
            filtered: 0,
            unmatched: 0,
            late: BTreeMap::new(),
            out: Vec::new(),
        }
    }

    pub(super) fn snapshot(&self) -> JoinSnapshot {
        JoinSnapshot {
            node: self.node.state(),
            detector: self.detector.clone(),
            stalls: self.stalls.clone(),
            port: self.port,
            filtered: self.filtered,
            unmatched: self.unmatched,
            late: self.late.clone(),
        }
    }

    pub(super) fn restore(&mut self, s: JoinSnapshot) {
        self.node = TemporalJoinNode::restore(s.node);
        self.detector = s.detector;
        self.stalls = s.stalls;
        self.port = s.port;
        self.filtered = s.filtered;
        self.unmatched = s.unmatched;
        self.late = s.late;
    }

    pub(super) fn stalled(&self) -> bool {
        self.detector.current().is_some()
    }

    pub(super) fn finish(&mut self) {
        if let Some(s) = self.detector.finish() {
            self.stalls.push(JoinStall {
                stall: s,
                port: self.port,
                waiting: self.node.op().waiting(),
            });
        }
    }
}

impl Engine<'_> {
    /// The decoded row (`self.row`, at event time `ts`) of join `ji`'s
    /// side `port`.
    pub(super) fn feed_join(
        &mut self,
        ji: usize,
        port: usize,
        id: SplitId,
        ts: Timestamp,
        delete: bool,
    ) -> Result<(), RecordError> {
        let jp = &self.plan.joins[ji];
        let join = &mut self.joins[ji];
        let key = jp
            .side_input(port, &self.row, &mut self.args)
            .map_err(RecordError::other)?;
        let late = if port == PROBE {
            join.node.probe(ts, &key, &self.args[..])
        } else {
            jp.build_into(&mut join.node, ts, &key, &self.args, delete)
        };
        if let Verdict::Over { still_for } = join.node.check(self.now) {
            return Err(RecordError::other(self.over_limit(ji, still_for)));
        }
        let join = &mut self.joins[ji];
        if late {
            *join.late.entry(id).or_insert(0) += 1;
        }
        if join.detector.on_record(self.now).is_some() {
            self.explain_join(ji);
        }
        Ok(())
    }

    /// Source subtask `subtask` of join `ji`'s side `port` sent `p`.
    pub(super) fn forward_join(&mut self, ji: usize, port: usize, subtask: usize, p: Progress) {
        let now = self.now;
        let join = &mut self.joins[ji];
        let mut out = std::mem::take(&mut join.out);
        let moved = join.node.progress(port, subtask, p, now, &mut out);
        if let Some(wm) = moved {
            if let Some(s) = join.detector.on_advance(now, wm) {
                let waiting = join.node.op().waiting();
                join.stalls.push(JoinStall {
                    stall: s,
                    port: join.port,
                    waiting,
                });
            }
        }
        self.write_joined(ji, &mut out, now);
        self.joins[ji].out = out;
        // A window over the join: its rows are in, then the watermark.
        if let (Some(wm), Some(pi)) = (moved, self.plan.joins[ji].into) {
            let p = Progress {
                watermark: Some(wm),
                ..Progress::NONE
            };
            self.pipe_progress(pi, 0, p);
        }
    }

    /// A joined row (`derived`: the join's select list) into the window
    /// aggregation of pipeline `pi`, at its probe row's time `ts`.
    pub(super) fn feed_window(
        &mut self,
        pi: usize,
        ts: Timestamp,
        derived: &[lowwater_core::Value],
    ) {
        let plan = self.plan;
        let pl = plan.pipelines[pi].first();
        let sink = &plan.tables[pl.sink].name;
        match pl.joined_input(ts, derived, &mut self.key, &mut self.args) {
            Ok(true) => {}
            Ok(false) => {
                self.pipes[pi].filtered += 1;
                return;
            }
            Err(e) => {
                self.sink_error
                    .get_or_insert(format!("INSERT INTO {sink}: {e}"));
                return;
            }
        }
        let input = lowwater_core::window::batch::InputRef {
            ts,
            split: JOINED,
            key: &self.key,
            row: &self.args,
        };
        let placed = self.pipes[pi]
            .node
            .op_mut()
            .process_ref(input, &mut self.buf);
        if let Err(e) = placed {
            self.sink_error
                .get_or_insert(format!("INSERT INTO {sink}: {e}"));
        }
        let now = self.now;
        self.emit(pi, now, false);
    }

    fn write_joined(&mut self, ji: usize, out: &mut Vec<Joined>, now: Timestamp) {
        let jp = &self.plan.joins[ji];
        let width = self.plan.tables[jp.sink].columns.len();
        for j in out.drain(..) {
            let ts = j.ts;
            let row = match jp.joined_row(j) {
                Ok(Some(r)) => r,
                Ok(None) => {
                    self.joins[ji].unmatched += 1;
                    continue;
                }
                Err(e) => {
                    self.sink_error.get_or_insert(format!(
                        "the join condition of INSERT INTO {} at {}: {e}",
                        self.plan.tables[jp.sink].name,
                        lowwater_core::time::format_timestamp(ts, ' ')
                    ));
                    continue;
                }
            };
            if let Some(pi) = jp.into {
                match jp.sink_values(&row, jp.outputs.len()) {
                    Ok(Some(derived)) => self.feed_window(pi, ts, &derived),
                    Ok(None) => self.joins[ji].filtered += 1,
                    Err(e) => {
                        self.sink_error.get_or_insert(format!(
                            "a joined row of INSERT INTO {}: {e}",
                            self.plan.tables[jp.sink].name
                        ));
                    }
                }
                continue;
            }
            match jp.sink_values(&row, width) {
                Ok(Some(values)) => {
                    if let Some(s) = self.sinks.get_mut(&jp.sink) {
                        if let Err(e) = s.write(&values, now) {
                            self.sink_error.get_or_insert(e);
                        }
                        // A joined row's emission lag runs from its probe
                        // row's time.
                        let lag = now.saturating_sub(ts);
                        s.out.max_emission_lag =
                            Some(s.out.max_emission_lag.map_or(lag, |m| m.max(lag)));
                        *s.out.lags.entry(lag).or_insert(0) += 1;
                    }
                }
                Ok(None) => self.joins[ji].filtered += 1,
                Err(e) => {
                    self.sink_error.get_or_insert(format!(
                        "a joined row of INSERT INTO {}: {e}",
                        self.plan.tables[jp.sink].name
                    ));
                }
            }
        }
    }

    /// Join `ji` holds more waiting probe rows than
    /// `lowwater.state.max-join-rows` while its watermark stands still: the
    /// error, with what holds the watermark.
    fn over_limit(&self, ji: usize, still_for: Option<lowwater_core::Millis>) -> String {
        let jp = &self.plan.joins[ji];
        let node = &self.joins[ji].node;
        let held = match node.hold() {
            Some(h) => {
                let table = if h.port == BUILD { jp.build } else { jp.probe };
                let holder = self.source_of[table].map(|si| self.holder_at(si, h.channel));
                match holder.and_then(|h| Some((h, self.splits.get(h.split? as usize)?))) {
                    Some((h, m)) => format!(
                        "partition {} of {} ({} side) holds it (no record for {})",
                        m.partition,
                        m.topic,
                        if table == jp.build {
                            "versioned"
                        } else {
                            "probe"
                        },
                        lowwater_core::time::display_duration(h.silent_ms)
                    ),
                    None => format!(
                        "subtask {} of {} holds it",
                        h.channel, self.plan.tables[table].name
                    ),
                }
            }
            None => "no partition holds it".to_string(),
        };
        let wm = match node.gate().current() {
            MIN_WATERMARK => "MIN (none yet)".to_string(),
            wm => lowwater_core::time::format_timestamp(wm, ' '),
        };
        format!(
            "INSERT INTO {}: {} probe rows of {} wait for the temporal join's watermark and {} \
             versions of {} are held, more than lowwater.state.max-join-rows ({}) allows, and the \
             watermark {}; it is at {wm} and {held}: release the stall (the idle-timeout of the \
             quiet table) or raise the limit with SET 'lowwater.state.max-join-rows'",
            self.plan.tables[jp.sink].name,
            node.op().waiting(),
            self.plan.tables[jp.probe].name,
            node.op().versions(),
            self.plan.tables[jp.build].name,
            node.limit(),
            match still_for {
                Some(t) => format!(
                    "has not moved for {}",
                    lowwater_core::time::display_duration(t)
                ),
                None => "has not moved since the job started".to_string(),
            }
        )
    }

    /// Explains join `ji`'s open stall by the side and partition that
    /// hold it now.
    pub(super) fn explain_join(&mut self, ji: usize) {
        let hold = self.joins[ji].node.hold();
        let jp = &self.plan.joins[ji];
        let holder = hold.and_then(|h| {
            let table = if h.port == BUILD { jp.build } else { jp.probe };
            let si = self.source_of[table]?;
            Some(self.holder_at(si, h.channel))
        });
        let join = &mut self.joins[ji];
        join.port = hold.map(|h| h.port);
        let at = join.node.gate().holding_watermark();
        join.detector.explain(holder, at);
    }

    /// Records of split `id` that reached a temporal join behind its
    /// watermark (every join's).
    pub fn late_join_rows(&self, id: SplitId) -> u64 {
        let temporal: u64 = self.joins.iter().filter_map(|j| j.late.get(&id)).sum();
        temporal + self.interval_late_rows(id)
    }

    /// Rows a window after a temporal join dropped as late (pipeline `pi`).
    pub fn joined_late(&self, pi: usize) -> u64 {
        let late = self.pipes[pi].node.op().late();
        late.dropped.get(&JOINED).copied().unwrap_or(0)
    }

    /// Stalls of join `ji`, in time order.
    pub fn join_stalls(&self, ji: usize) -> &[JoinStall] {
        &self.joins[ji].stalls
    }

    /// Join `ji`'s probe rows waiting for the watermark, and the oldest
    /// one's time.
    pub fn join_waiting(&self, ji: usize) -> (u64, Option<Timestamp>) {
        let op = self.joins[ji].node.op();
        (op.waiting(), op.oldest_waiting())
    }

    /// Joined rows join `ji`'s WHERE dropped, and probe rows its inner
    /// join wrote nothing for.
    pub fn join_dropped(&self, ji: usize) -> (u64, u64) {
        (self.joins[ji].filtered, self.joins[ji].unmatched)
    }

    /// Join `ji`'s watermark.
    pub fn join_watermark(&self, ji: usize) -> Timestamp {
        self.joins[ji].node.gate().current()
    }

    /// Versions join `ji`'s view dropped as older than their key's last.
    pub fn join_deduplicated(&self, ji: usize) -> u64 {
        self.joins[ji].node.deduplicated()
    }
}

/// The pipes of the plan's joins, temporal and interval, with their
/// sources (added when new) and sinks.
pub(super) fn pipes(
    plan: &JobPlan,
    (sources, source_of): &mut (&mut Vec<super::Source>, &mut [Option<usize>]),
    sinks: &mut std::collections::BTreeMap<usize, super::Sink>,
    (threshold, t0): (lowwater_core::Millis, Timestamp),
) -> Result<(Vec<JoinPipe>, Vec<super::interval::IntervalPipe>), String> {
    let mut sink_of = |t: usize| -> Result<(), String> {
        if let std::collections::btree_map::Entry::Vacant(e) = sinks.entry(t) {
            e.insert(super::output::sink(plan, t)?);
        }
        Ok(())
    };
    let mut joins = Vec::new();
    for (ji, j) in plan.joins.iter().enumerate() {
        for (table, port) in [(j.probe, PROBE), (j.build, BUILD)] {
            let si = super::source_for(plan, table, sources, source_of)?;
            sources[si].joins.push((ji, port));
        }
        sink_of(j.sink)?;
        joins.push(JoinPipe::new(plan, ji, threshold, t0));
    }
    let mut intervals = Vec::new();
    for (ii, j) in plan.intervals.iter().enumerate() {
        for (table, port) in [(j.left, 0), (j.right, 1)] {
            let si = super::source_for(plan, table, sources, source_of)?;
            sources[si].intervals.push((ii, port));
        }
        sink_of(j.sink)?;
        intervals.push(super::interval::IntervalPipe::new(plan, ii, threshold, t0));
    }
    Ok((joins, intervals))
}
