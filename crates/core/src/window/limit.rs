//! The guard on an INSERT's open (window, key) states
//! (`lowwater.state.max-open-windows`).
//!
//! Open states grow without bound only while the watermark stands still:
//! a stalled watermark fires nothing, and every new key and window stays.
//! The guard therefore acts when the states of the whole INSERT (every
//! window subtask together, not each alone) are over the limit, unless the
//! watermark moved within a grace period (`JobPlan::open_limit_grace`): a
//! job over the limit whose watermark moves is catching up, its windows fire
//! and free their states, and stopping it would only lose the progress. A
//! restore counts as a move: that is what kept a job stopped by the limit
//! from ever coming back, its restore held as many states as when it
//! stopped, and the guard stopped it again before the watermark (released
//! meanwhile) could fire them; its grace starts with its first records, not
//! while it connects. A job whose watermark never moved gets no grace: its
//! states are bounded by the limit, past it by one batch. And however its
//! watermark moves, a job is stopped at twice the limit (or twice what it
//! restored), so that one partition that lags but keeps advancing cannot
//! grow the state without bound.
//!
//! Pure: the drivers hand in the time (replay's virtual clock, the live
//! runtime's system clock) and the open count.

use serde::{Deserialize, Serialize};

use crate::time::{Millis, Timestamp};

/// What the guard says about the open states now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// At most 80% of the limit.
    Within,
    /// Over 80% of the limit (worth one warning).
    Near,
    /// Over the limit, but the watermark moved within the grace period:
    /// windows are firing, states are being freed.
    CatchingUp,
    /// Over the limit while the watermark has stood still for longer than
    /// the grace period: act (stop the job, or fire the oldest windows).
    Over {
        /// How long the watermark has stood still (`None`: it never moved
        /// in this run).
        still_for: Option<Millis>,
    },
}

/// The guard of one INSERT.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenStateGuard {
    limit: u64,
    grace: Millis,
    watermark: Timestamp,
    moved_at: Option<Timestamp>,
    /// Restored and not checked since: the grace starts at the next check.
    restore_pending: bool,
    /// Past this many states the guard acts whatever the watermark does.
    ceiling: u64,
}

impl OpenStateGuard {
    /// A guard of `limit` states, acting unless the watermark moved within
    /// `grace`.
    pub fn new(limit: u64, grace: Millis) -> Self {
        OpenStateGuard {
            limit,
            grace,
            watermark: crate::time::MIN_WATERMARK,
            moved_at: None,
            restore_pending: false,
            ceiling: limit.saturating_mul(2),
        }
    }

    /// The job restored `open` states with watermark `wm`: that counts as a
    /// move at its first check, so that the restored windows get the grace
    /// period to fire once records flow.
    pub fn restored(&mut self, wm: Timestamp, open: u64) {
        self.watermark = wm;
        self.restore_pending = true;
        self.ceiling = self.ceiling.max(open.saturating_mul(2));
    }

    /// The INSERT's watermark is `wm` at `now`.
    pub fn on_watermark(&mut self, wm: Timestamp, now: Timestamp) {
        if wm > self.watermark {
            self.watermark = wm;
            self.moved_at = Some(now);
        }
    }

    /// The verdict for `open` states at `now`.
    pub fn check(&mut self, open: u64, now: Timestamp) -> Verdict {
        if std::mem::take(&mut self.restore_pending) {
            self.moved_at = Some(now);
        }
        if open > self.limit {
            let still_for = self.moved_at.map(|t| now.saturating_sub(t));
            return match still_for {
                Some(t) if t <= self.grace && open <= self.ceiling => Verdict::CatchingUp,
                _ => Verdict::Over { still_for },
            };
        }
        if open.saturating_mul(5) > self.limit.saturating_mul(4) {
            return Verdict::Near;
        }
        Verdict::Within
    }

    /// The limit.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The grace period.
    pub fn grace(&self) -> Millis {
        self.grace
    }
}

/// What [`Verdict::Over`] means for the INSERT into `sink`, in words: the
/// start of the message every driver gives (each adds what it knows of
/// the stall and what follows).
pub fn over_message(sink: &str, open: u64, limit: u64, still_for: Option<Millis>) -> String {
    format!(
        "INSERT INTO {sink}: {open} (window, key) states are open, more than \
         lowwater.state.max-open-windows ({limit}) allows, and the watermark {}",
        not_moved(still_for)
    )
}

/// How long a watermark has not moved ([`Verdict::Over`]), in words.
fn not_moved(still_for: Option<Millis>) -> String {
    match still_for {
        Some(t) => format!("has not moved for {}", crate::time::display_duration(t)),
        None => "has not moved since the job started".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acts_over_the_limit_unless_the_watermark_moved_within_the_grace() {
        let mut g = OpenStateGuard::new(100, 1_000);
        assert_eq!(g.check(80, 10), Verdict::Within);
        assert_eq!(g.check(81, 10), Verdict::Near);
        assert_eq!(
            g.check(101, 10),
            Verdict::Over { still_for: None },
            "a watermark that never moved gets no grace"
        );
        g.on_watermark(5, 1_500);
        assert_eq!(g.check(150, 2_500), Verdict::CatchingUp, "moved at 1.5 s");
        assert_eq!(
            g.check(150, 2_501),
            Verdict::Over {
                still_for: Some(1_001)
            }
        );
        g.on_watermark(5, 2_600);
        assert_eq!(
            g.check(150, 2_700),
            Verdict::Over {
                still_for: Some(1_200)
            },
            "the same watermark again is not a move"
        );
        g.on_watermark(6, 2_700);
        assert_eq!(g.check(150, 3_700), Verdict::CatchingUp);
        // A watermark that moves does not lift the limit past twice it.
        assert_eq!(
            g.check(201, 3_700),
            Verdict::Over {
                still_for: Some(1_000)
            }
        );
    }

    /// Issue 33 item 5: a job stopped by the limit restored its states (more
    /// than the limit) and was stopped again within 0.4 s, though the
    /// partition that held the watermark was writing again.
    #[test]
    fn a_restore_over_the_limit_gets_the_grace_to_move_its_watermark() {
        let restored_at = 50_000;
        let mut g = OpenStateGuard::new(100_000, 1_000);
        g.restored(7_000, 196_000);
        // The grace starts with the first check (the first records), not
        // while the job connects.
        assert_eq!(g.check(196_000, restored_at), Verdict::CatchingUp);
        assert_eq!(g.check(196_000, restored_at + 400), Verdict::CatchingUp);
        g.on_watermark(8_000, restored_at + 600);
        assert_eq!(g.check(150_000, restored_at + 1_500), Verdict::CatchingUp);
        g.on_watermark(60_000, restored_at + 2_000);
        assert_eq!(g.check(90_000, restored_at + 2_100), Verdict::Near);
        // A restore into a stall that is not released: the grace runs out.
        let mut g = OpenStateGuard::new(100_000, 1_000);
        g.restored(7_000, 196_000);
        assert_eq!(g.check(196_000, restored_at), Verdict::CatchingUp);
        assert_eq!(
            g.check(196_000, restored_at + 1_001),
            Verdict::Over {
                still_for: Some(1_001)
            }
        );
    }
}
