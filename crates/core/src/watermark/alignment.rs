//! Watermark alignment decisions (Flink's FLIP-182 / FLIP-217).
//!
//! Sources in one alignment group report their watermark (MAX while idle) every
//! update interval. The group allows `min(reports) + max_drift`; a member whose
//! watermark is strictly above that is paused until it no longer is. This
//! module only decides; pausing a Kafka partition is the runtime's job.

use std::collections::BTreeMap;

use crate::time::{Millis, Timestamp, MAX_WATERMARK};

/// Flink's default `update-interval` for alignment reports.
pub const DEFAULT_ALIGNMENT_UPDATE_INTERVAL: Millis = 1_000;

/// The reports of one alignment group and the pause decision.
#[derive(Debug, Clone)]
pub struct AlignmentGroup {
    max_drift: Millis,
    /// Each member's last report: its watermark, or `None` while idle.
    reports: BTreeMap<u32, Option<Timestamp>>,
}

impl AlignmentGroup {
    /// A group that lets members run at most `max_drift` ms ahead of the slowest.
    pub fn new(max_drift: Millis) -> Self {
        AlignmentGroup {
            max_drift,
            reports: BTreeMap::new(),
        }
    }

    /// Member `id` reports its current watermark. Members report only after
    /// their first watermark (as in Flink): a member at `MIN` would hold the
    /// whole group at `MIN + max_drift`.
    pub fn report(&mut self, id: u32, watermark: Timestamp) {
        self.reports.insert(id, Some(watermark));
    }

    /// Member `id` reports that it is idle: it counts as `MAX` in the
    /// minimum (it holds nobody back) and is itself never paused.
    pub fn report_idle(&mut self, id: u32) {
        self.reports.insert(id, None);
    }

    /// The highest watermark a member may have without being paused;
    /// `MAX` while no member holds anyone back.
    pub fn max_allowed(&self) -> Timestamp {
        match self.reports.values().flatten().min() {
            Some(&min) => min.saturating_add(self.max_drift),
            None => MAX_WATERMARK,
        }
    }

    /// Whether a member at `watermark` must pause. Exactly at the limit is allowed.
    pub fn should_pause(&self, watermark: Timestamp) -> bool {
        watermark > self.max_allowed()
    }

    /// The active members that must pause now, in id order. An idle member
    /// is never paused: a paused member reads nothing and would stay idle, and
    /// paused, forever.
    pub fn paused(&self) -> Vec<u32> {
        let limit = self.max_allowed();
        self.reports
            .iter()
            .filter(|(_, wm)| wm.is_some_and(|w| w > limit))
            .map(|(id, _)| *id)
            .collect()
    }
}
