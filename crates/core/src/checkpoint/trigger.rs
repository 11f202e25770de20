//! When to take the next checkpoint (Flink's `CheckpointCoordinator`
//! periodic trigger), on processing time passed in by the caller.
//!
//! One checkpoint is in flight at a time (Flink's default
//! `execution.checkpointing.max-concurrent-checkpoints` = 1). The next one is
//! due `interval` after the previous one *started*; if that moment passed
//! while the previous one was still running, it starts as soon as that one
//! ends (no burst to catch up). A checkpoint running longer than the timeout
//! (`execution.checkpointing.timeout`, 10 min in Flink) is declared failed.

use crate::time::{Millis, Timestamp};

use super::CheckpointId;

/// Flink's default `execution.checkpointing.timeout`.
pub const DEFAULT_TIMEOUT: Millis = 10 * 60 * 1000;

/// The periodic checkpoint trigger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointTrigger {
    interval: Millis,
    timeout: Millis,
    next_due: Timestamp,
    next_id: CheckpointId,
    in_flight: Option<(CheckpointId, Timestamp)>,
}

impl CheckpointTrigger {
    /// A trigger taking a checkpoint every `interval` from `now`, numbering
    /// from `last_id + 1` (0 for a job without checkpoints yet).
    pub fn new(interval: Millis, timeout: Millis, now: Timestamp, last_id: CheckpointId) -> Self {
        CheckpointTrigger {
            interval: interval.max(1),
            timeout: timeout.max(1),
            next_due: now.saturating_add(interval.max(1)),
            next_id: last_id + 1,
            in_flight: None,
        }
    }

    /// The checkpoint to start now, if one is due and none is running.
    pub fn poll(&mut self, now: Timestamp) -> Option<CheckpointId> {
        if self.in_flight.is_some() || now < self.next_due {
            return None;
        }
        Some(self.start(now))
    }

    /// Starts a checkpoint now, whatever the schedule (a final checkpoint
    /// on a graceful stop). `None` while another one is running.
    pub fn force(&mut self, now: Timestamp) -> Option<CheckpointId> {
        if self.in_flight.is_some() {
            return None;
        }
        Some(self.start(now))
    }

    /// The running checkpoint, and when it started.
    pub fn in_flight(&self) -> Option<(CheckpointId, Timestamp)> {
        self.in_flight
    }

    /// Checkpoint `id` completed at `now`; returns how long it took.
    pub fn completed(&mut self, id: CheckpointId, now: Timestamp) -> Option<Millis> {
        self.end(id, now)
    }

    /// Checkpoint `id` failed at `now`; the next one follows the schedule.
    pub fn failed(&mut self, id: CheckpointId, now: Timestamp) -> Option<Millis> {
        self.end(id, now)
    }

    /// When the trigger next has something to say: the next checkpoint
    /// when none is running, else the running one's timeout.
    pub fn next_event(&self) -> Timestamp {
        match self.in_flight {
            Some((_, started)) => started.saturating_add(self.timeout).saturating_add(1),
            None => self.next_due,
        }
    }

    /// The running checkpoint if it has run longer than the timeout at `now`.
    pub fn timed_out(&self, now: Timestamp) -> Option<CheckpointId> {
        self.in_flight
            .filter(|(_, started)| now.saturating_sub(*started) > self.timeout)
            .map(|(id, _)| id)
    }

    fn start(&mut self, now: Timestamp) -> CheckpointId {
        let id = self.next_id;
        self.next_id += 1;
        self.in_flight = Some((id, now));
        self.next_due = now.saturating_add(self.interval);
        id
    }

    fn end(&mut self, id: CheckpointId, now: Timestamp) -> Option<Millis> {
        match self.in_flight {
            Some((running, started)) if running == id => {
                self.in_flight = None;
                Some(now.saturating_sub(started))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_at_a_time_on_the_interval_without_catch_up_bursts() {
        let mut t = CheckpointTrigger::new(1000, DEFAULT_TIMEOUT, 0, 0);
        assert_eq!(t.poll(999), None);
        assert_eq!(t.poll(1000), Some(1));
        assert_eq!(t.poll(2500), None, "checkpoint 1 still running");
        assert_eq!(t.completed(1, 2500), Some(1500));
        assert_eq!(t.poll(2500), Some(2), "overdue: starts at once");
        assert_eq!(t.completed(2, 2510), Some(10));
        assert_eq!(t.poll(3499), None);
        assert_eq!(t.poll(3500), Some(3));
    }

    #[test]
    fn numbering_continues_after_a_restore_and_timeouts_are_reported() {
        let mut t = CheckpointTrigger::new(100, 500, 0, 41);
        assert_eq!(t.next_event(), 100, "the first checkpoint is due");
        assert_eq!(t.poll(100), Some(42));
        assert_eq!(t.next_event(), 601, "the running one times out then");
        assert_eq!(t.timed_out(600), None);
        assert_eq!(t.timed_out(601), Some(42));
        assert_eq!(t.failed(42, 601), Some(501));
        assert_eq!(t.completed(42, 700), None, "already ended");
        assert_eq!(t.force(650), Some(43));
    }
}
