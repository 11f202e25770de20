//! Combining the split watermarks of one source subtask.
//!
//! This is Flink's `WatermarkOutputMultiplexer` + `CombinedWatermarkStatus`
//! + `WatermarkToDataOutput`, in one state machine:
//! - every split starts at `MIN`, active; a split's watermark only moves up,
//!   and setting it clears the split's idle flag;
//! - combined = min over active splits; when every split is idle, the maximum
//!   over all splits is flushed (so the result does not depend on the order in
//!   which splits went idle), and the subtask reports IDLE on the next combine
//!   that changes nothing, exactly as Flink's multiplexer does;
//! - the subtask only ever emits a watermark strictly greater than its last.
//!
//! lowwater's decisions (see SEMANTICS.md):
//! - FLINK-40504: a split that resumes behind the combined watermark leaves
//!   the subtask IDLE in Flink. Here a record on any split makes the subtask
//!   ACTIVE again at once, and so does any combine that finds an active split.
//! - FLINK-25818: a subtask without any split goes idle only when idleness is
//!   configured; it then follows the same timer as a split that never had a
//!   record (idle after `timeout` + one or two intervals).

use crate::time::{Millis, Timestamp, MIN_WATERMARK};
use serde::{Deserialize, Serialize};

use super::idleness::IdlenessTimer;
use super::Progress;

/// One split's view as seen by the combiner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartialWatermark {
    /// The highest watermark the split has emitted (`MIN` if none).
    pub watermark: Timestamp,
    /// Whether the split is excluded from the minimum.
    pub idle: bool,
}

/// The watermark combiner of one source subtask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitCombiner {
    splits: Vec<PartialWatermark>,
    combined: Timestamp,
    emitted: Timestamp,
    finished: bool,
    output_idle: bool,
    no_split_timer: Option<IdlenessTimer>,
}

impl SplitCombiner {
    /// A combiner without splits. `idle_timeout` only matters while the
    /// subtask has no split at all (FLINK-25818).
    pub fn new(idle_timeout: Option<Millis>) -> Self {
        SplitCombiner {
            splits: Vec::new(),
            combined: MIN_WATERMARK,
            emitted: MIN_WATERMARK,
            finished: false,
            output_idle: false,
            no_split_timer: idle_timeout.filter(|t| *t > 0).map(IdlenessTimer::new),
        }
    }

    /// A combiner over splits moved here from other subtasks (a restore
    /// at another parallelism), each with its watermark and idleness. Its
    /// watermark is what combining them gives (the minimum over the active
    /// ones, the maximum when all are idle), taken as emitted: downstream
    /// restores its channel at the same value ([`Self::watermark`],
    /// [`Self::is_idle`]).
    pub fn regrouped(splits: Vec<PartialWatermark>, idle_timeout: Option<Millis>) -> Self {
        let mut c = SplitCombiner::new(idle_timeout);
        if splits.is_empty() {
            return c;
        }
        let all_idle = splits.iter().all(|s| s.idle);
        let active = splits.iter().filter(|s| s.idle == all_idle);
        let combined = match all_idle {
            true => active.map(|s| s.watermark).max(),
            false => active.map(|s| s.watermark).min(),
        };
        c.combined = combined.unwrap_or(MIN_WATERMARK);
        c.emitted = c.combined;
        c.output_idle = all_idle;
        c.splits = splits;
        c
    }

    /// Registers a split at `MIN`, active; its index is `len() - 1`. A split
    /// added while running therefore freezes the subtask's watermark until it
    /// catches up; the subtask's output never goes backwards. Registering a
    /// split sends nothing downstream (as in Flink): an IDLE subtask stays
    /// IDLE until a record or a higher watermark arrives.
    pub fn add_split(&mut self) -> Progress {
        self.splits.push(PartialWatermark {
            watermark: MIN_WATERMARK,
            idle: false,
        });
        Progress::NONE
    }

    /// Number of registered splits.
    pub fn len(&self) -> usize {
        self.splits.len()
    }

    /// Whether no split is registered.
    pub fn is_empty(&self) -> bool {
        self.splits.is_empty()
    }

    /// The combiner's view of split `i`.
    pub fn split(&self, i: usize) -> Option<PartialWatermark> {
        self.splits.get(i).copied()
    }

    /// A split emitted watermark `wm` (deferred until [`Self::combine`]).
    /// Clears the split's idle flag; the split's watermark only moves up.
    pub fn set_split_watermark(&mut self, i: usize, wm: Timestamp) {
        debug_assert!(i < self.splits.len(), "split {i} is not registered");
        if let Some(s) = self.splits.get_mut(i) {
            s.idle = false;
            s.watermark = s.watermark.max(wm);
        }
    }

    /// A split declared itself idle (deferred until [`Self::combine`]).
    pub fn set_split_idle(&mut self, i: usize) {
        debug_assert!(i < self.splits.len(), "split {i} is not registered");
        if let Some(s) = self.splits.get_mut(i) {
            s.idle = true;
        }
    }

    /// A record arrived on split `i`: the split counts in the minimum again
    /// at its last watermark, and an IDLE subtask becomes ACTIVE at once
    /// (lowwater's fix for FLINK-40504).
    pub fn on_split_record(&mut self, i: usize) -> Progress {
        debug_assert!(i < self.splits.len(), "split {i} is not registered");
        if self.finished {
            return Progress::NONE;
        }
        if let Some(s) = self.splits.get_mut(i) {
            s.idle = false;
        }
        self.reactivate()
    }

    /// Combines the splits after a round of periodic emits (Flink's
    /// `WatermarkOutputMultiplexer.onPeriodicEmit`). `now` only matters for
    /// a subtask without splits.
    pub fn combine(&mut self, now: Timestamp) -> Progress {
        if self.finished {
            return Progress::NONE;
        }
        if self.splits.is_empty() {
            return self.combine_without_splits(now);
        }
        let mut max_all = MIN_WATERMARK;
        let mut min_active = Timestamp::MAX;
        let mut all_idle = true;
        for s in &self.splits {
            max_all = max_all.max(s.watermark);
            if !s.idle {
                min_active = min_active.min(s.watermark);
                all_idle = false;
            }
        }
        let candidate = if all_idle { max_all } else { min_active };
        if candidate > self.combined {
            self.combined = candidate;
            return self.emit_watermark(candidate);
        }
        if all_idle {
            return self.mark_idle();
        }
        self.reactivate()
    }

    /// End of a bounded input: `MAX` always reaches downstream, also when the
    /// subtask is idle (lowwater's fix for FLINK-40499). The combiner is
    /// finished afterwards: nothing more goes downstream.
    pub fn end_of_input(&mut self) -> Progress {
        self.combined = Timestamp::MAX;
        self.finished = true;
        let was_idle = std::mem::replace(&mut self.output_idle, false);
        let watermark = (self.emitted < Timestamp::MAX).then_some(Timestamp::MAX);
        self.emitted = Timestamp::MAX;
        Progress {
            became_active: was_idle,
            watermark,
            became_idle: false,
        }
    }

    /// The last watermark this subtask emitted downstream.
    pub fn watermark(&self) -> Timestamp {
        self.emitted
    }

    /// Whether this subtask last told downstream it is idle.
    pub fn is_idle(&self) -> bool {
        self.output_idle
    }

    /// The active split with the lowest watermark: the one holding this
    /// subtask back (ties: the lowest index). `None` when every split is idle.
    pub fn holding_split(&self) -> Option<usize> {
        self.splits
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.idle)
            .min_by_key(|(i, s)| (s.watermark, *i))
            .map(|(i, _)| i)
    }

    fn combine_without_splits(&mut self, now: Timestamp) -> Progress {
        let idle = self
            .no_split_timer
            .as_mut()
            .is_some_and(|timer| timer.check_if_idle(now));
        if idle {
            self.mark_idle()
        } else {
            Progress::NONE
        }
    }

    fn emit_watermark(&mut self, wm: Timestamp) -> Progress {
        if wm <= self.emitted {
            return Progress::NONE;
        }
        self.emitted = wm;
        let was_idle = std::mem::replace(&mut self.output_idle, false);
        Progress {
            became_active: was_idle,
            watermark: Some(wm),
            became_idle: false,
        }
    }

    fn mark_idle(&mut self) -> Progress {
        if self.output_idle {
            return Progress::NONE;
        }
        self.output_idle = true;
        Progress {
            became_idle: true,
            ..Progress::NONE
        }
    }

    fn reactivate(&mut self) -> Progress {
        if !self.output_idle || self.splits.iter().all(|s| s.idle) {
            return Progress::NONE;
        }
        self.output_idle = false;
        Progress {
            became_active: true,
            ..Progress::NONE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_over_active_splits_and_no_regression() {
        let mut c = SplitCombiner::new(None);
        c.add_split();
        c.add_split();
        c.set_split_watermark(0, 10);
        c.set_split_watermark(1, 5);
        assert_eq!(c.combine(0).watermark, Some(5));
        c.set_split_watermark(1, 3); // a split never goes back
        assert_eq!(c.split(1).map(|s| s.watermark), Some(5));
        assert!(c.combine(0).is_empty());
        assert_eq!(c.holding_split(), Some(1));
    }

    #[test]
    fn a_split_added_while_running_freezes_but_never_regresses() {
        let mut c = SplitCombiner::new(None);
        c.add_split();
        c.set_split_watermark(0, 100);
        assert_eq!(c.combine(0).watermark, Some(100));
        c.add_split();
        c.set_split_watermark(0, 200);
        assert!(c.combine(0).is_empty());
        assert_eq!(c.watermark(), 100);
        c.set_split_watermark(1, 150);
        assert_eq!(c.combine(0).watermark, Some(150));
    }
}
