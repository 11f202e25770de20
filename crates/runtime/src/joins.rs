//! The joins of a job as `run` numbers them, the rows a source subtask
//! sends to them, and what their subtasks publish for the monitor, the
//! report and the API: below the tasks that send, run and watch them.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;

use lowwater_core::join::node::JoinHold;
use lowwater_core::source::SplitId;
use lowwater_core::{Row, Timestamp, MIN_WATERMARK};
use lowwater_report::JoinSides;
use lowwater_sql::plan::JobPlan;

/// A join as `run` numbers them: the plan's temporal joins, then its
/// interval joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JoinRef {
    Temporal(usize),
    Interval(usize),
}

/// The plan's joins in `run`'s order.
pub(crate) fn joins(plan: &JobPlan) -> Vec<JoinRef> {
    let temporal = (0..plan.joins.len()).map(JoinRef::Temporal);
    temporal
        .chain((0..plan.intervals.len()).map(JoinRef::Interval))
        .collect()
}

impl JoinRef {
    /// The INSERT whose window aggregation reads the join, if one does.
    pub fn into(self, plan: &JobPlan) -> Option<usize> {
        match self {
            JoinRef::Temporal(j) => plan.joins[j].into,
            JoinRef::Interval(j) => plan.intervals[j].into,
        }
    }

    /// What it is, in messages ("temporal join", "interval join", ...).
    pub fn what(self, plan: &JobPlan) -> &'static str {
        self.sides(plan).join
    }

    /// Its sides, sink and kind.
    pub fn sides(self, plan: &JobPlan) -> JoinSides {
        match self {
            JoinRef::Temporal(j) => {
                let j = &plan.joins[j];
                JoinSides::temporal(j.probe, j.build, j.sink)
            }
            JoinRef::Interval(j) => {
                let j = &plan.intervals[j];
                JoinSides::interval(j)
            }
        }
    }
}

/// A row for a join subtask: its side's row and join key.
pub(crate) struct SideRow {
    pub ts: Timestamp,
    pub split: SplitId,
    pub key: Row,
    pub row: Row,
    /// An upsert table's tombstone (its row holds the primary key only).
    pub delete: bool,
}

/// What the job's other threads see of one join (per join subtask where
/// it is a vector), published by its subtasks.
pub(crate) struct JoinShared {
    pub watermarks: Vec<AtomicI64>,
    /// Per subtask, the watermark of each input (port).
    pub inputs: Vec<[AtomicI64; 2]>,
    /// Probe rows waiting (a temporal join) or rows cached (an interval join).
    pub waiting: Vec<AtomicU64>,
    /// The rows `lowwater.state.max-join-rows` counts (waiting probe rows
    /// and versions, or cached rows), per subtask.
    pub held: Vec<AtomicU64>,
    /// What holds each subtask's watermark.
    pub holds: Vec<Mutex<Option<JoinHold>>>,
    /// Records that reached the join behind its watermark, per split.
    pub late: Vec<Mutex<BTreeMap<SplitId, u64>>>,
    /// Joined rows WHERE dropped, and probe rows an inner temporal join
    /// wrote nothing for.
    pub filtered: Vec<AtomicU64>,
    pub unmatched: Vec<AtomicU64>,
    /// Versions an upsert table's tombstones deleted (its normalization's
    /// count, restored with its state).
    pub deleted: Vec<AtomicU64>,
}

impl JoinShared {
    pub fn new(subtasks: usize) -> Self {
        JoinShared {
            watermarks: (0..subtasks)
                .map(|_| AtomicI64::new(MIN_WATERMARK))
                .collect(),
            inputs: (0..subtasks)
                .map(|_| [AtomicI64::new(MIN_WATERMARK), AtomicI64::new(MIN_WATERMARK)])
                .collect(),
            waiting: (0..subtasks).map(|_| AtomicU64::new(0)).collect(),
            held: (0..subtasks).map(|_| AtomicU64::new(0)).collect(),
            holds: (0..subtasks).map(|_| Mutex::new(None)).collect(),
            late: (0..subtasks).map(|_| Mutex::new(BTreeMap::new())).collect(),
            filtered: (0..subtasks).map(|_| AtomicU64::new(0)).collect(),
            unmatched: (0..subtasks).map(|_| AtomicU64::new(0)).collect(),
            deleted: (0..subtasks).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The join's watermark: the lowest of its subtasks'.
    pub fn watermark(&self) -> Timestamp {
        let wms = self.watermarks.iter().map(|w| w.load(Ordering::Relaxed));
        wms.min().unwrap_or(MIN_WATERMARK)
    }

    /// The lowest watermark the join's subtasks have from input `port`.
    pub fn input_watermark(&self, port: usize) -> Timestamp {
        let wms = self.inputs.iter().map(|w| w[port].load(Ordering::Relaxed));
        wms.min().unwrap_or(MIN_WATERMARK)
    }

    /// Rows waiting (or cached) over every subtask.
    pub fn waiting(&self) -> u64 {
        self.waiting.iter().map(|w| w.load(Ordering::Relaxed)).sum()
    }

    /// What holds the subtask with the lowest watermark.
    pub fn hold(&self) -> Option<JoinHold> {
        let holds = self.holds.iter().filter_map(|h| *h.lock().ok()?);
        holds.min_by_key(|h| h.watermark)
    }

    /// Late records of split `id` over every subtask.
    pub fn late_of(&self, id: SplitId) -> u64 {
        let late = self
            .late
            .iter()
            .filter_map(|l| l.lock().ok()?.get(&id).copied());
        late.sum()
    }

    /// Versions deleted by tombstones, over every subtask.
    pub fn deleted(&self) -> u64 {
        self.deleted.iter().map(|d| d.load(Ordering::Relaxed)).sum()
    }

    /// Joined rows dropped by WHERE, over every subtask.
    pub fn filtered(&self) -> u64 {
        self.filtered
            .iter()
            .map(|f| f.load(Ordering::Relaxed))
            .sum()
    }
}
