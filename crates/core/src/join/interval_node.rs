//! A node of one subtask for the joins that pair the rows of two streams,
//! the shape the replay stepper and the live task drive (as
//! [`super::node::TemporalJoinNode`] is for the temporal join): its input
//! gate (port 0 the left side's channels, port 1 the right side's), the
//! operator (an interval join, or a window join), and the bound on the
//! rows it caches.

use serde::{Deserialize, Serialize};

use crate::dataflow::gate::{GateState, InputGate};
use crate::time::{Millis, Timestamp};
use crate::value::{Row, Value};
use crate::watermark::Progress;
use crate::window::limit::{OpenStateGuard, Verdict};

use super::interval::{IntervalJoin, IntervalSpec, JoinKind, Paired, LEFT};
use super::node::JoinHold;
use super::window_join::WindowJoin;

/// An interval join node, or a window join node.
#[derive(Debug, Clone)]
pub struct IntervalJoinNode {
    gate: InputGate,
    op: PairOp,
    guard: OpenStateGuard,
}

/// The operator of an [`IntervalJoinNode`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum PairOp {
    /// An interval join: pairs come out as rows arrive.
    Interval(IntervalJoin),
    /// A window join: a window's pairs come out when the watermark reaches
    /// its time; a row's `ts` is its window's time (`window_end - 1`).
    Window(WindowJoin),
}

impl PairOp {
    /// Rows cached, both sides.
    pub fn cached(&self) -> u64 {
        match self {
            PairOp::Interval(j) => j.cached(),
            PairOp::Window(j) => j.cached(),
        }
    }

    /// Late rows of side `port` (see [`IntervalJoin::late`] and
    /// [`WindowJoin::late`]).
    pub fn late(&self, port: usize) -> u64 {
        match self {
            PairOp::Interval(j) => j.late(port),
            PairOp::Window(j) => j.late(port),
        }
    }

    /// The combined watermark it last saw.
    pub fn watermark(&self) -> Timestamp {
        match self {
            PairOp::Interval(j) => j.watermark(),
            PairOp::Window(j) => j.watermark(),
        }
    }

    /// An estimate of the bytes its state takes.
    pub fn state_bytes(&self) -> usize {
        match self {
            PairOp::Interval(j) => j.state_bytes(),
            PairOp::Window(j) => j.state_bytes(),
        }
    }
}

impl IntervalJoinState {
    /// The states of every subtask of one join (as a checkpoint holds
    /// them) regrouped into `n`, each key's rows in the subtask `route`
    /// picks for it, each port's valve rebuilt by `valve` (port, its output
    /// before): a restore at another parallelism.
    pub fn regroup(
        parts: Vec<IntervalJoinState>,
        n: usize,
        route: &dyn Fn(&[Value]) -> usize,
        valve: &dyn Fn(usize, Timestamp) -> crate::watermark::valve::ChannelValve,
    ) -> Vec<IntervalJoinState> {
        let Some(first) = parts.first() else {
            return Vec::new();
        };
        let (gate, guard) = (first.gate.regrouped(valve), first.guard.clone());
        let ops = match &first.op {
            PairOp::Interval(_) => IntervalJoin::regroup(
                parts
                    .into_iter()
                    .filter_map(|p| match p.op {
                        PairOp::Interval(j) => Some(j),
                        PairOp::Window(_) => None,
                    })
                    .collect(),
                n,
                route,
            )
            .into_iter()
            .map(PairOp::Interval)
            .collect::<Vec<_>>(),
            PairOp::Window(_) => WindowJoin::regroup(
                parts
                    .into_iter()
                    .filter_map(|p| match p.op {
                        PairOp::Window(j) => Some(j),
                        PairOp::Interval(_) => None,
                    })
                    .collect(),
                n,
                route,
            )
            .into_iter()
            .map(PairOp::Window)
            .collect(),
        };
        ops.into_iter()
            .map(|op| IntervalJoinState {
                gate: gate.clone(),
                op,
                guard: guard.clone(),
            })
            .collect()
    }
}

/// A node's state, as a checkpoint or a replay snapshot keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IntervalJoinState {
    gate: GateState,
    op: PairOp,
    guard: OpenStateGuard,
}

impl IntervalJoinNode {
    /// A join of shape `spec` over `left` and `right` channels, caching at
    /// most `limit` rows while its watermark stands still for longer than
    /// `grace`.
    pub fn new(spec: IntervalSpec, left: usize, right: usize, limit: u64, grace: Millis) -> Self {
        IntervalJoinNode {
            gate: InputGate::new(&[left, right]),
            op: PairOp::Interval(IntervalJoin::new(spec)),
            guard: OpenStateGuard::new(limit, grace),
        }
    }

    /// A window join of type `kind` (see [`IntervalJoinNode::new`]).
    pub fn window(kind: JoinKind, left: usize, right: usize, limit: u64, grace: Millis) -> Self {
        IntervalJoinNode {
            gate: InputGate::new(&[left, right]),
            op: PairOp::Window(WindowJoin::new(kind)),
            guard: OpenStateGuard::new(limit, grace),
        }
    }

    /// A row of side `port` ([`LEFT`] or [`super::interval::RIGHT`]) at
    /// `ts`: an interval join's pairs come out at once; returns whether it
    /// is late (see [`IntervalJoin::left`], and [`WindowJoin::row`], whose
    /// `ts` is the row's window's time).
    pub fn row<E>(
        &mut self,
        port: usize,
        ts: Timestamp,
        key: &[Value],
        row: impl Into<Row>,
        matches: &mut dyn FnMut(&Row, &Row) -> Result<bool, E>,
        out: &mut Vec<Paired>,
    ) -> Result<bool, E> {
        match (&mut self.op, port) {
            (PairOp::Interval(j), LEFT) => j.left(ts, key, row, matches, out),
            (PairOp::Interval(j), _) => j.right(ts, key, row, matches, out),
            (PairOp::Window(j), _) => Ok(j.row(port, ts, key, row.into())),
        }
    }

    /// Channel `ch` of `port` sent `p` at `now`: the rows the watermark
    /// expires come out (an interval join's outer side's unjoined ones
    /// padded; a window join's windows it reached, joined by `matches`).
    /// Returns the input watermark, if it moved, and the one to forward (an
    /// interval join's trails by its delay).
    pub fn progress<E>(
        &mut self,
        port: usize,
        ch: usize,
        p: Progress,
        now: Timestamp,
        matches: &mut dyn FnMut(&Row, &Row) -> Result<bool, E>,
        out: &mut Vec<Paired>,
    ) -> Result<Option<(Timestamp, Timestamp)>, E> {
        let mut moved = None;
        for step in self.gate.input(port, ch, p) {
            if let Some(wm) = step.watermark {
                let forward = match &mut self.op {
                    PairOp::Interval(j) => j.advance(wm, out),
                    PairOp::Window(j) => j.advance(wm, matches, out)?,
                };
                self.guard.on_watermark(wm, now);
                moved = Some((wm, forward));
            }
        }
        Ok(moved)
    }

    /// The cached rows against the limit at `now` (see [`OpenStateGuard`]).
    pub fn check(&mut self, now: Timestamp) -> Verdict {
        self.check_held(self.op.cached(), now)
    }

    /// [`Self::check`] of `held` cached rows: a live join's over all its
    /// subtasks (the limit is the join's, not each subtask's).
    pub fn check_held(&mut self, held: u64, now: Timestamp) -> Verdict {
        self.guard.check(held, now)
    }

    /// The bound on cached rows.
    pub fn limit(&self) -> u64 {
        self.guard.limit()
    }

    /// What holds the watermark, when a channel does (`waiting`: the rows
    /// cached).
    pub fn hold(&self) -> Option<JoinHold> {
        let (port, channel) = self.gate.holding()?;
        Some(JoinHold {
            port,
            channel,
            watermark: self.gate.current(),
            waiting: self.op.cached(),
        })
    }

    /// The operator.
    pub fn op(&self) -> &PairOp {
        &self.op
    }

    /// The input gate.
    pub fn gate(&self) -> &InputGate {
        &self.gate
    }

    /// The input gate, for the barriers and ends of its channels (a live
    /// task aligns checkpoints on it).
    pub fn gate_mut(&mut self) -> &mut InputGate {
        &mut self.gate
    }

    /// Its state.
    pub fn state(&self) -> IntervalJoinState {
        IntervalJoinState {
            gate: self.gate.state().clone(),
            op: self.op.clone(),
            guard: self.guard.clone(),
        }
    }

    /// A node continuing from `state`.
    pub fn restore(state: IntervalJoinState) -> Self {
        let mut guard = state.guard;
        guard.restored(state.op.watermark(), state.op.cached());
        IntervalJoinNode {
            gate: InputGate::restore(state.gate),
            op: state.op,
            guard,
        }
    }
}

impl Paired {
    /// The joined row: the left row, then the right, a padded side as
    /// `left_width` or `right_width` NULLs.
    pub fn into_row(self, left_width: usize, right_width: usize) -> Row {
        let mut row = self.left.unwrap_or_else(|| vec![Value::Null; left_width]);
        row.extend(self.right.unwrap_or_else(|| vec![Value::Null; right_width]));
        row
    }
}
