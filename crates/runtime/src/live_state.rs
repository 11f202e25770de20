//! What the monitor publishes for the live endpoints (stalls, recurring
//! holds, staleness, history and the flight recorder): written by the
//! monitor, read by `crate::observe` when a client asks.

use lowwater_observe::live::{History, HistoryPoint};
use lowwater_report::StallReport;

/// What the monitor publishes for the endpoints.
#[derive(Debug, Default)]
pub(crate) struct LiveState {
    /// Per pipeline: the stall going on, if any (`to_ts` = now).
    pub current: Vec<Option<StallReport>>,
    /// Stalls that ended.
    pub past: Vec<StallReport>,
    /// Recurring holds, ended ones then the ones going on (`to_ts` null).
    pub recurring: Vec<lowwater_report::RecurringReport>,
    /// Per sink (in `Shared::sinks` order): stale under its max-staleness.
    pub stale: Vec<bool>,
    /// The last ten minutes, a point a second.
    pub history: History,
    /// Holds, flips and stalls of the last day (`crate::flight`).
    pub flight: crate::flight::FlightRecorder,
    /// Partitions whose newest event time is decades behind their records'
    /// arrival (a producer writing seconds), with the WARN that named each.
    pub implausible: std::collections::BTreeMap<lowwater_core::source::SplitId, String>,
}

impl LiveState {
    pub fn new(pipelines: usize) -> Self {
        LiveState {
            current: vec![None; pipelines],
            ..LiveState::default()
        }
    }

    pub fn push_history(&mut self, p: HistoryPoint) {
        self.history.push(p);
    }
}
