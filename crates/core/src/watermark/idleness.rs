//! Flink's idleness timer (`WatermarksWithIdleness.IdlenessTimer`), on an
//! injected processing-time `now` instead of `System.nanoTime()`.
//!
//! Idleness is only probed on a periodic emit. The first probe that sees no
//! record since the previous probe starts the countdown; a later probe marks
//! the split idle when strictly more than the timeout has passed since then.
//! So a split goes idle between `timeout` and `timeout + 3 x interval` after
//! its last record, never earlier. Flink uses `0` as "no countdown"; lowwater
//! uses `Option`, so that a virtual clock starting at 0 behaves the same.

use crate::time::{Millis, Timestamp};
use serde::{Deserialize, Serialize};

/// Counts activity between probes and decides idleness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdlenessTimer {
    timeout: Millis,
    counter: u64,
    last_counter: u64,
    start_of_inactivity: Option<Timestamp>,
}

impl IdlenessTimer {
    /// A timer that declares idleness after `timeout` ms without activity.
    pub fn new(timeout: Millis) -> Self {
        IdlenessTimer {
            timeout,
            counter: 0,
            last_counter: 0,
            start_of_inactivity: None,
        }
    }

    /// A record was seen.
    pub fn activity(&mut self) {
        self.counter = self.counter.wrapping_add(1);
    }

    /// Another timeout (a job restored with another idle timeout): the
    /// countdown going on is kept.
    pub fn set_timeout(&mut self, timeout: Millis) {
        self.timeout = timeout;
    }

    /// The probe made on each periodic emit.
    pub fn check_if_idle(&mut self, now: Timestamp) -> bool {
        if self.counter != self.last_counter {
            self.last_counter = self.counter;
            self.start_of_inactivity = None;
            return false;
        }
        match self.start_of_inactivity {
            None => {
                self.start_of_inactivity = Some(now);
                false
            }
            Some(start) => now.saturating_sub(start) > self.timeout,
        }
    }

    /// When the current countdown started, if one is running.
    pub fn inactive_since(&self) -> Option<Timestamp> {
        self.start_of_inactivity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn countdown_starts_at_first_quiet_probe_and_needs_strictly_more() {
        let mut t = IdlenessTimer::new(1000);
        assert!(!t.check_if_idle(0)); // starts the countdown at 0
        assert_eq!(t.inactive_since(), Some(0));
        assert!(!t.check_if_idle(1000)); // exactly the timeout: not yet
        assert!(t.check_if_idle(1001));
    }

    #[test]
    fn activity_resets_the_countdown() {
        let mut t = IdlenessTimer::new(1000);
        assert!(!t.check_if_idle(200));
        t.activity();
        assert!(!t.check_if_idle(5000)); // sees the activity, resets
        assert!(!t.check_if_idle(5200)); // starts again
        assert!(!t.check_if_idle(6200));
        assert!(t.check_if_idle(6400));
    }
}
