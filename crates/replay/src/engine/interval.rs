//! The replay engine's interval joins: each INSERT over an event-time
//! interval join is one [`IntervalJoinNode`], fed the left table's rows on
//! port 0 and the right table's on port 1. Pairs are written as rows
//! arrive; an outer side's unjoined rows when the watermark expires them.
//! A stall names the side, table and partition that hold the join.

use std::collections::BTreeMap;

use lowwater_connectors::row::RecordError;
use lowwater_core::diagnose::StallDetector;
use lowwater_core::join::interval::{Paired, RIGHT};
use lowwater_core::join::interval_node::{IntervalJoinNode, IntervalJoinState};
use lowwater_core::source::SplitId;
use lowwater_core::watermark::Progress;
use lowwater_core::window::limit::Verdict;
use lowwater_core::{Row, Timestamp, MIN_WATERMARK};
use lowwater_sql::plan::JobPlan;
use serde::{Deserialize, Serialize};

use super::{Engine, JoinStall};

pub(super) struct IntervalPipe {
    node: IntervalJoinNode,
    detector: StallDetector,
    stalls: Vec<JoinStall>,
    port: Option<usize>,
    filtered: u64,
    /// Rows that came after the watermark passed their range, per split.
    late: BTreeMap<SplitId, u64>,
    out: Vec<Paired>,
    /// A window join's side rows of one record (kept for its capacity).
    windowed: Vec<(Timestamp, Row)>,
}

/// An interval join's part of the engine's snapshot.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct IntervalSnapshot {
    node: IntervalJoinState,
    detector: StallDetector,
    stalls: Vec<JoinStall>,
    port: Option<usize>,
    filtered: u64,
    #[serde(default)]
    late: BTreeMap<SplitId, u64>,
}

impl IntervalPipe {
    pub(super) fn new(plan: &JobPlan, ii: usize, threshold: i64, t0: Timestamp) -> Self {
        let p = plan.settings.parallelism;
        let limit = plan.settings.max_join_rows;
        IntervalPipe {
            node: plan.intervals[ii].node(p, p, limit, plan.open_limit_grace()),
            detector: StallDetector::new(threshold, t0, MIN_WATERMARK),
            stalls: Vec::new(),
            port: None,
            filtered: 0,
            late: BTreeMap::new(),
            out: Vec::new(),
            windowed: Vec::new(),
        }
    }

    pub(super) fn snapshot(&self) -> IntervalSnapshot {
        IntervalSnapshot {
            node: self.node.state(),
            detector: self.detector.clone(),
            stalls: self.stalls.clone(),
            port: self.port,
            filtered: self.filtered,
            late: self.late.clone(),
        }
    }

    pub(super) fn restore(&mut self, s: IntervalSnapshot) {
        self.node = IntervalJoinNode::restore(s.node);
        self.detector = s.detector;
        self.stalls = s.stalls;
        self.port = s.port;
        self.filtered = s.filtered;
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
                waiting: self.node.op().cached(),
            });
        }
    }

    pub(super) fn filtered(&self) -> u64 {
        self.filtered
    }

    pub(super) fn stalls(&self) -> &[JoinStall] {
        &self.stalls
    }
}

impl Engine<'_> {
    /// The decoded row (`self.row`, at event time `ts`) of interval join
    /// `ii`'s side `port`.
    pub(super) fn feed_interval(
        &mut self,
        ii: usize,
        port: usize,
        id: SplitId,
        ts: Timestamp,
    ) -> Result<(), RecordError> {
        let plan = self.plan;
        let jp = &plan.intervals[ii];
        let mut matches = |l: &Row, r: &Row| jp.matches(l, r);
        let pipe = &mut self.intervals[ii];
        let mut out = std::mem::take(&mut pipe.out);
        let mut late = 0;
        match &jp.window {
            // A window join's side: a row per window its WHERE keeps, at
            // the window's time.
            Some(w) => {
                let mut rows = std::mem::take(&mut pipe.windowed);
                pipe.filtered += w
                    .side_rows(port, ts, &self.row, &mut rows)
                    .map_err(RecordError::other)?;
                // Every window's key first: a record whose key fails is
                // refused whole, not kept in some of its windows (the
                // buffers taken are only reused capacity).
                let keys = rows
                    .iter()
                    .map(|(_, row)| jp.side_key(port, row))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(RecordError::other)?;
                for ((wt, row), key) in rows.drain(..).zip(keys) {
                    let l = pipe
                        .node
                        .row(port, wt, &key, row, &mut matches, &mut out)
                        .map_err(|m| RecordError::other(format!("the join condition: {m}")))?;
                    late += u64::from(l);
                }
                pipe.windowed = rows;
            }
            None => {
                let key = jp.side_key(port, &self.row).map_err(RecordError::other)?;
                let l = pipe
                    .node
                    .row(port, ts, &key, &self.row[..], &mut matches, &mut out)
                    .map_err(|m| RecordError::other(format!("the join condition: {m}")))?;
                late += u64::from(l);
            }
        }
        if late > 0 {
            *pipe.late.entry(id).or_insert(0) += late;
        }
        if let Verdict::Over { still_for } = pipe.node.check(self.now) {
            let moved = match still_for {
                Some(t) => format!(
                    "has not moved for {}",
                    lowwater_core::time::display_duration(t)
                ),
                None => "has not moved since the job started".to_string(),
            };
            return Err(RecordError::other(format!(
                "INSERT INTO {}: the {} caches {} rows, more than \
                 lowwater.state.max-join-rows ({}) allows, and its watermark {moved}: release \
                 the stall that holds it (the report names it) or raise the limit with SET \
                 'lowwater.state.max-join-rows'",
                plan.tables[jp.sink].name,
                jp.what(),
                pipe.node.op().cached(),
                pipe.node.limit(),
            )));
        }
        let now = self.now;
        self.write_pairs(ii, &mut out, now);
        self.intervals[ii].out = out;
        if self.intervals[ii].detector.on_record(self.now).is_some() {
            self.explain_interval(ii);
        }
        Ok(())
    }

    /// Source subtask `subtask` of interval join `ii`'s side `port` sent `p`.
    pub(super) fn forward_interval(&mut self, ii: usize, port: usize, subtask: usize, p: Progress) {
        let now = self.now;
        let jp = &self.plan.intervals[ii];
        let mut matches = |l: &Row, r: &Row| jp.matches(l, r);
        let pipe = &mut self.intervals[ii];
        let mut out = std::mem::take(&mut pipe.out);
        let moved = match pipe
            .node
            .progress(port, subtask, p, now, &mut matches, &mut out)
        {
            Ok(moved) => moved,
            Err(e) => {
                self.sink_error.get_or_insert(format!(
                    "INSERT INTO {}: the window join's condition: {e}",
                    self.plan.tables[jp.sink].name
                ));
                None
            }
        };
        if let Some((wm, _)) = moved {
            if let Some(s) = pipe.detector.on_advance(now, wm) {
                let waiting = pipe.node.op().cached();
                pipe.stalls.push(JoinStall {
                    stall: s,
                    port: pipe.port,
                    waiting,
                });
            }
        }
        self.write_pairs(ii, &mut out, now);
        self.intervals[ii].out = out;
        // A window over the join: its rows are in, then its watermark
        // (the input's less the join's delay).
        if let (Some((_, forward)), Some(pi)) = (moved, self.plan.intervals[ii].into) {
            let p = Progress {
                watermark: Some(forward),
                ..Progress::NONE
            };
            self.pipe_progress(pi, 0, p);
        }
    }

    fn write_pairs(&mut self, ii: usize, out: &mut Vec<Paired>, now: Timestamp) {
        let plan = self.plan;
        let jp = &plan.intervals[ii];
        let width = plan.tables[jp.sink].columns.len();
        let (lw, rw) = jp.widths;
        for p in out.drain(..) {
            let row = p.into_row(lw, rw);
            if let Some(pi) = jp.into {
                self.window_pair(ii, pi, &row);
                continue;
            }
            match jp.sink_values(&row, width) {
                Ok(Some(values)) => {
                    if let Some(s) = self.sinks.get_mut(&jp.sink) {
                        if let Err(e) = s.write(&values, now) {
                            self.sink_error.get_or_insert(e);
                        }
                        // A pair's emission lag runs from its later rowtime
                        // (as in `run`).
                        if let Some(ts) = jp.pair_time(&row) {
                            let lag = now.saturating_sub(ts);
                            s.out.max_emission_lag =
                                Some(s.out.max_emission_lag.map_or(lag, |m| m.max(lag)));
                            *s.out.lags.entry(lag).or_insert(0) += 1;
                        }
                    }
                }
                Ok(None) => self.intervals[ii].filtered += 1,
                Err(e) => {
                    self.sink_error.get_or_insert(format!(
                        "a joined row of INSERT INTO {}: {e}",
                        plan.tables[jp.sink].name
                    ));
                }
            }
        }
    }

    /// A joined row of interval join `ii` into the window aggregation of
    /// pipeline `pi`, at the time of the rowtime its window function reads.
    fn window_pair(&mut self, ii: usize, pi: usize, row: &[lowwater_core::Value]) {
        let plan = self.plan;
        let jp = &plan.intervals[ii];
        let derived = match jp.sink_values(row, jp.outputs.len()) {
            Ok(Some(d)) => d,
            Ok(None) => {
                self.intervals[ii].filtered += 1;
                return;
            }
            Err(e) => {
                self.sink_error.get_or_insert(format!(
                    "a joined row of INSERT INTO {}: {e}",
                    plan.tables[jp.sink].name
                ));
                return;
            }
        };
        match jp.window_ts(&derived) {
            Ok(ts) => self.feed_window(pi, ts, &derived),
            Err(e) => {
                self.sink_error
                    .get_or_insert(format!("INSERT INTO {}: {e}", plan.tables[jp.sink].name));
            }
        }
    }

    /// Explains interval join `ii`'s open stall by the side and partition
    /// that hold it now.
    pub(super) fn explain_interval(&mut self, ii: usize) {
        let hold = self.intervals[ii].node.hold();
        let jp = &self.plan.intervals[ii];
        let holder = hold.and_then(|h| {
            let table = if h.port == RIGHT { jp.right } else { jp.left };
            let si = self.source_of[table]?;
            Some(self.holder_at(si, h.channel))
        });
        let pipe = &mut self.intervals[ii];
        pipe.port = hold.map(|h| h.port);
        let at = pipe.node.gate().holding_watermark();
        pipe.detector.explain(holder, at);
    }

    /// Records of split `id` that came to an interval join after the
    /// watermark passed their range (every interval join's).
    pub(super) fn interval_late_rows(&self, id: SplitId) -> u64 {
        self.intervals.iter().filter_map(|j| j.late.get(&id)).sum()
    }

    /// Stalls of interval join `ii`, in time order.
    pub fn interval_stalls(&self, ii: usize) -> &[JoinStall] {
        self.intervals[ii].stalls()
    }

    /// Rows interval join `ii` caches, and its rows WHERE dropped.
    pub fn interval_state(&self, ii: usize) -> (u64, u64) {
        let p = &self.intervals[ii];
        (p.node.op().cached(), p.filtered())
    }

    /// Rows of interval join `ii`'s side `port` that came after the
    /// watermark passed their range.
    pub fn interval_late(&self, ii: usize, port: usize) -> u64 {
        self.intervals[ii].node.op().late(port)
    }
}
