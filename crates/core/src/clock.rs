//! The only door through which processing time enters the core.
//!
//! Idleness, periodic watermark emission and lag metrics depend on processing
//! time. The core never reads the wall clock: components take `now` as an
//! argument, and whoever drives them asks a [`Clock`]. The live runtime hands in
//! a system clock (outside this crate); replays and tests hand in a
//! [`ManualClock`] and move it explicitly, so no test ever sleeps.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use crate::time::{Millis, Timestamp};

/// A source of processing time in milliseconds.
pub trait Clock: Send + Sync {
    /// The current processing time. Must never go backwards.
    fn now(&self) -> Timestamp;
}

/// A clock that only moves when told to. Cloning shares the same time, so a
/// test can keep one handle and give another to the code under test.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    now: Arc<AtomicI64>,
}

impl ManualClock {
    /// A clock standing at `start`.
    pub fn new(start: Timestamp) -> Self {
        ManualClock {
            now: Arc::new(AtomicI64::new(start)),
        }
    }

    /// Moves the clock forward by `d` (negative values are ignored: processing
    /// time never goes backwards). Returns the new time.
    pub fn advance(&self, d: Millis) -> Timestamp {
        let step = d.max(0);
        self.now.fetch_add(step, Ordering::SeqCst) + step
    }

    /// Sets the clock to `t` if that is not in the past. Returns the new time.
    pub fn set(&self, t: Timestamp) -> Timestamp {
        self.now.fetch_max(t, Ordering::SeqCst).max(t)
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        self.now.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_forward_and_is_shared() {
        let c = ManualClock::new(100);
        let view = c.clone();
        assert_eq!(c.advance(50), 150);
        assert_eq!(view.now(), 150);
        assert_eq!(c.advance(-10), 150);
        assert_eq!(c.set(120), 150);
        assert_eq!(c.set(400), 400);
        assert_eq!(view.now(), 400);
    }
}
