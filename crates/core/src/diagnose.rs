//! Stall detection: noticing that event time stopped while data still flows.
//!
//! A watermark that does not move is normal when nothing arrives. It is the
//! seeds' failure when records keep arriving and the watermark stays put:
//! every window waits, and lag, checkpoints and CPU all look fine. The
//! detector opens a stall when a record arrives and the watermark has not
//! advanced for longer than the threshold, keeps the latest explanation of
//! who holds it (refreshed by the caller while the stall lasts), and closes
//! the stall when the watermark advances again. It is pure: the replay
//! engine drives it in virtual time, the live runtime in real time.

use crate::source::SplitId;
use crate::time::{Millis, Timestamp};
use serde::{Deserialize, Serialize};

/// Who holds a watermark back at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// The source subtask whose channel is the minimum.
    pub subtask: usize,
    /// The split holding that subtask, if it has any split.
    pub split: Option<SplitId>,
    /// How long that split has had no record (since the start if never).
    pub silent_ms: Millis,
    /// Whether that split never had a record.
    pub never_had_record: bool,
    /// The longest time between two of its records before this silence
    /// (`None`: fewer than two seen), see [`crate::source::SplitView::max_gap`].
    #[serde(default)]
    pub gap_ms: Option<Millis>,
    /// Whether `silent_ms` is a lower bound: the silence began before the
    /// observer could see it (`lowwater watch` started after the split's
    /// last record).
    #[serde(default)]
    pub silent_at_least: bool,
}

/// An interval in which the watermark did not advance while records arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stall {
    /// When the watermark last advanced (or the start, if it never did).
    pub from: Timestamp,
    /// When it advanced again (or the input ended); `None` while it lasts.
    pub to: Option<Timestamp>,
    /// Whether it ended because the watermark advanced.
    pub resolved: bool,
    /// The watermark it was stuck at.
    pub watermark: Timestamp,
    /// The last explanation seen while it lasted.
    pub held_by: Option<Holder>,
}

/// Watches one watermark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StallDetector {
    threshold: Millis,
    last_advance: Timestamp,
    watermark: Timestamp,
    last_record: Option<Timestamp>,
    first_record_since_advance: Option<Timestamp>,
    open: Option<Stall>,
}

impl StallDetector {
    /// A detector that reports stalls longer than `threshold`, starting at `start`.
    pub fn new(threshold: Millis, start: Timestamp, watermark: Timestamp) -> Self {
        StallDetector {
            threshold,
            last_advance: start,
            watermark,
            last_record: None,
            first_record_since_advance: None,
            open: None,
        }
    }

    /// A record arrived at `now`. Returns the stall if this opened it; the
    /// caller then explains it with [`StallDetector::explain`].
    pub fn on_record(&mut self, now: Timestamp) -> Option<Stall> {
        self.last_record = Some(now);
        let first = *self.first_record_since_advance.get_or_insert(now);
        let waiting_since = first.max(self.last_advance);
        if self.open.is_none() && now.saturating_sub(waiting_since) > self.threshold {
            self.open = Some(Stall {
                from: self.last_advance,
                to: None,
                resolved: false,
                watermark: self.watermark,
                held_by: None,
            });
            return self.open;
        }
        None
    }

    /// Records the current explanation of an open stall (ignored otherwise):
    /// `holder`, whose own watermark is `holding`.
    ///
    /// Only a holder that still holds the stuck watermark explains the
    /// stall. Once the partition that held it has a record again, its
    /// watermark moves first and the job's follows a little later (the next
    /// periodic emit, the window thread); in between, the slowest partition
    /// is the next-slowest one, whose watermark is above the stuck one and
    /// which held nothing: it is not recorded. And the same partition named
    /// again after a silence longer than the threshold keeps that silence:
    /// the record that released it ends its silence, it does not make it a
    /// partition that "trails".
    pub fn explain(&mut self, holder: Option<Holder>, holding: Timestamp) {
        let Some(s) = &mut self.open else {
            return;
        };
        let Some(h) = holder else {
            return;
        };
        if holding > s.watermark {
            return;
        }
        // A partition silent for longer than the threshold had its silence
        // end: that record releases the stall, it is not the explanation.
        // (One whose records keep coming with old event times is explained
        // by its latest record.)
        let threshold = self.threshold;
        let silence_ended = s.held_by.is_some_and(|old| {
            (old.subtask, old.split) == (h.subtask, h.split)
                && h.silent_ms < old.silent_ms
                && old.silent_ms > threshold
        });
        if !silence_ended {
            s.held_by = Some(h);
        }
    }

    /// The watermark advanced to `wm` at `now`. Returns the stall this closed.
    pub fn on_advance(&mut self, now: Timestamp, wm: Timestamp) -> Option<Stall> {
        self.last_advance = now;
        self.watermark = wm;
        self.first_record_since_advance = None;
        self.open.take().map(|mut s| {
            s.to = Some(now);
            s.resolved = true;
            s
        })
    }

    /// The stall going on now, if any.
    pub fn current(&self) -> Option<Stall> {
        self.open
    }

    /// Ends observation: an open stall ends at the last record's time.
    pub fn finish(&mut self) -> Option<Stall> {
        let end = self.last_record;
        self.open.take().map(|mut s| {
            s.to = end.or(Some(s.from));
            s
        })
    }

    /// The threshold.
    pub fn threshold(&self) -> Millis {
        self.threshold
    }
}

/// Why a partition's newest event time cannot be right, judged by when its
/// records arrive: decades behind them. A producer writing seconds where the
/// table reads milliseconds (`TO_TIMESTAMP_LTZ(ts, 3)` over a count of
/// seconds) dates every record in January 1970: the watermark creeps forward
/// in 1970 and no window of the present ever fires, without a stall (the
/// watermark moves) and without a late record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImplausibleTime {
    /// Read as seconds, it is within a day of its arrival or before it.
    Seconds,
    /// Decades behind its arrival, whatever the unit.
    Decades,
}

/// Event times this far behind their arrival are not data: at least 20
/// years (a backfill of last year's events is).
const IMPLAUSIBLY_OLD: i64 = 20 * 365 * 86_400_000;

/// Whether `newest`, a partition's largest event time, cannot be right when
/// its records arrive at `arrival` (both epoch ms), and the likely cause.
pub fn implausibly_old(newest: Timestamp, arrival: Timestamp) -> Option<ImplausibleTime> {
    if newest == crate::time::MIN_WATERMARK || arrival.saturating_sub(newest) < IMPLAUSIBLY_OLD {
        return None;
    }
    let as_seconds = newest.saturating_mul(1_000);
    let seconds = as_seconds <= arrival.saturating_add(86_400_000)
        && arrival.saturating_sub(as_seconds) < IMPLAUSIBLY_OLD;
    Some(if seconds {
        ImplausibleTime::Seconds
    } else {
        ImplausibleTime::Decades
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn seconds_read_as_milliseconds_are_told_from_old_data() {
        use super::{implausibly_old, ImplausibleTime};
        let now = 1_796_600_000_000; // 2026-12
                                     // A count of seconds read as milliseconds: January 1970.
        assert_eq!(
            implausibly_old(now / 1_000 - 60, now),
            Some(ImplausibleTime::Seconds)
        );
        // Decades old, and not seconds either.
        assert_eq!(
            implausibly_old(86_400_000, now),
            Some(ImplausibleTime::Decades)
        );
        // A backfill of last year, and the present, are data.
        assert_eq!(implausibly_old(now - 365 * 86_400_000, now), None);
        assert_eq!(implausibly_old(now, now), None);
        assert_eq!(implausibly_old(crate::time::MIN_WATERMARK, now), None);
    }

    use super::*;

    #[test]
    fn opens_only_when_records_arrive_past_the_threshold_and_closes_on_advance() {
        let mut d = StallDetector::new(1_000, 0, i64::MIN);
        assert_eq!(d.on_record(0), None);
        assert_eq!(d.on_record(500), None);
        assert_eq!(
            d.on_record(1_000),
            None,
            "exactly the threshold is not a stall"
        );
        let s = d.on_record(1_001).expect("opened");
        assert_eq!((s.from, s.to), (0, None));
        assert_eq!(d.on_record(1_500), None, "already open");
        let h = Holder {
            subtask: 2,
            split: Some(11),
            silent_ms: 1_500,
            never_had_record: true,
            gap_ms: None,
            silent_at_least: false,
        };
        d.explain(Some(h), i64::MIN);
        let closed = d.on_advance(2_000, 5).expect("closed");
        assert_eq!(
            (closed.from, closed.to, closed.held_by),
            (0, Some(2_000), Some(h))
        );
        assert_eq!(d.current(), None);
    }

    /// Issue 33 item 3: partition 5 held the watermark; once it had a
    /// record, the slowest partition for a moment was partition 10, whose
    /// watermark was already above the stuck one. The stall stays explained
    /// by partition 5 and its silence, as the live WARN said.
    #[test]
    fn the_holder_is_the_partition_that_held_the_stuck_watermark_not_the_next_slowest() {
        let mut d = StallDetector::new(1_000, 0, 5_000);
        d.on_record(0);
        d.on_record(2_000).expect("opened");
        let five = |silent_ms| Holder {
            subtask: 1,
            split: Some(5),
            silent_ms,
            never_had_record: false,
            gap_ms: None,
            silent_at_least: false,
        };
        d.explain(Some(five(8_000)), 5_000);
        d.explain(Some(five(9_000)), 5_000);
        // Partition 5 has a record: its silence is over, its watermark not
        // yet published.
        d.explain(Some(five(20)), 5_000);
        // Its watermark moved: the next-slowest, above the stuck one.
        let ten = Holder {
            subtask: 0,
            split: Some(10),
            silent_ms: 5,
            never_had_record: false,
            gap_ms: None,
            silent_at_least: false,
        };
        d.explain(Some(ten), 61_000);
        d.explain(None, 0);
        let closed = d.on_advance(10_000, 61_000).expect("closed");
        assert_eq!(closed.held_by, Some(five(9_000)));
        // Another partition at the stuck watermark does take over.
        let mut d = StallDetector::new(1_000, 0, 5_000);
        d.on_record(0);
        d.on_record(2_000).expect("opened");
        d.explain(Some(five(3_000)), 5_000);
        d.explain(Some(ten), 5_000);
        assert_eq!(d.current().and_then(|s| s.held_by), Some(ten));
        // A partition whose records keep coming (with old event times) is
        // explained by its latest record, not its longest gap.
        d.explain(Some(five(800)), 5_000);
        d.explain(Some(five(0)), 5_000);
        assert_eq!(d.current().and_then(|s| s.held_by), Some(five(0)));
    }

    #[test]
    fn silence_without_records_is_not_a_stall_and_open_stalls_end_at_the_last_record() {
        let mut d = StallDetector::new(1_000, 0, i64::MIN);
        d.on_advance(100, 1);
        assert_eq!(d.finish(), None);
        assert_eq!(
            d.on_record(5_000),
            None,
            "an hour of nothing, then one record"
        );
        assert_eq!(
            d.on_record(6_000),
            None,
            "records for exactly the threshold"
        );
        let s = d
            .on_record(6_001)
            .expect("records kept arriving, the watermark did not move");
        assert_eq!(
            s.from, 100,
            "the stall starts when the watermark last moved"
        );
        d.on_record(7_000);
        let end = d.finish().expect("open");
        assert_eq!((end.to, end.resolved), (Some(7_000), false));
    }
}
