//! The system clock: the one place lowwater reads wall-clock time.

use lowwater_core::clock::Clock;
use lowwater_core::Timestamp;

/// Milliseconds since the Unix epoch from the operating system, never going
/// backwards within one process (a clock step back is held at the last value).
#[derive(Debug, Default)]
pub struct SystemClock {
    last: std::sync::atomic::AtomicI64,
}

impl SystemClock {
    /// A new system clock.
    pub fn new() -> Self {
        SystemClock::default()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        self.last
            .fetch_max(wall, std::sync::atomic::Ordering::Relaxed)
            .max(wall)
    }
}
