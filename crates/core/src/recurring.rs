//! Recurring holds: a watermark that stands still again and again, each
//! time for less than the stall threshold, held by the same partition.
//! Seed 000's incident at its real scale is this (a heartbeat every 60 s,
//! 1-minute windows): every window leaves up to a minute late, the
//! watermark never stands still for the 3 minutes a stall takes, and
//! nothing alarms. A [`HoldMeter`] watches one watermark: a standstill
//! while records arrive that lasts longer than a quarter of a window (a
//! window that waits that long is late by its own measure), and not longer
//! than the stall threshold (then it is a stall, reported as such), is a hold,
//! charged to the split that held it last; when one split's holds cover
//! at least half of the last ten windows' time (after three windows of
//! observation), that is a finding ([`Recurring`]), opened and closed as
//! a stall is.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::diagnose::Holder;
use crate::time::{Millis, Timestamp};

/// How many windows' time the share of holds is measured over.
pub const SPAN_WINDOWS: i64 = 10;
/// How many windows' time must be observed before a finding.
pub const MIN_WINDOWS: i64 = 3;
/// The share of that time a split's holds must cover.
pub const MIN_SHARE: f64 = 0.5;

/// A split that holds one watermark again and again.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Recurring {
    /// When the finding opened.
    pub from: Timestamp,
    /// When it closed (`None` while it lasts).
    pub to: Option<Timestamp>,
    /// The holder (its latest explanation).
    pub held_by: Holder,
    /// The share of the measured time its holds covered, as last measured
    /// while the finding lasted (at least [`MIN_SHARE`]).
    pub share: f64,
    /// The time that share was measured over (at most ten windows).
    pub over_ms: Millis,
    /// The longest single hold.
    pub longest_ms: Millis,
}

/// A hold: a standstill of the watermark longer than the slack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Hold {
    from: Timestamp,
    to: Timestamp,
    holder: Holder,
}

/// Watches one watermark for recurring holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HoldMeter {
    window: Millis,
    /// A standstill longer than this is a stall, reported as one, not a
    /// recurring hold.
    threshold: Millis,
    start: Timestamp,
    watermark: Timestamp,
    still_since: Timestamp,
    last_record: Option<Timestamp>,
    /// The holder of the standstill going on, as last seen.
    holder: Option<Holder>,
    holds: VecDeque<Hold>,
    open: Option<Recurring>,
}

/// Whether two holders are the same split (of the same subtask).
fn same(a: &Holder, b: &Holder) -> bool {
    (a.subtask, a.split) == (b.subtask, b.split)
}

impl HoldMeter {
    /// A meter of a watermark whose windows end every `window` (at least
    /// 1 ms) and whose stalls are standstills longer than `threshold`, from
    /// `start`.
    pub fn new(window: Millis, threshold: Millis, start: Timestamp, watermark: Timestamp) -> Self {
        HoldMeter {
            window: window.max(1),
            threshold,
            start,
            watermark,
            still_since: start,
            last_record: None,
            holder: None,
            holds: VecDeque::new(),
            open: None,
        }
    }

    /// How long a standstill may last before it is a hold: a quarter of a
    /// window.
    pub fn slack(&self) -> Millis {
        self.window / 4
    }

    /// A record arrived at `now`.
    pub fn on_record(&mut self, now: Timestamp) {
        self.last_record = Some(now);
    }

    /// The watermark is `wm` at `now`, held (if it stands still) by
    /// `holder`. Returns the finding this opened or closed, if any.
    pub fn observe(
        &mut self,
        now: Timestamp,
        wm: Timestamp,
        holder: Option<Holder>,
    ) -> Option<Recurring> {
        if wm > self.watermark {
            self.close_hold(now);
            self.watermark = wm;
            self.still_since = now;
        } else if self.last_record.is_some_and(|r| r > self.still_since) {
            if let Some(h) = holder {
                self.holder = Some(h);
            }
        }
        self.judge(now)
    }

    /// Ends the standstill going on at `now` (the watermark moved): a hold
    /// if it lasted longer than the slack while records arrived.
    fn close_hold(&mut self, now: Timestamp) {
        if let Some(h) = self.current(now) {
            self.holds.push_back(h);
        }
        self.holder = None;
    }

    /// The standstill going on at `now`, if it is a hold (longer than the
    /// slack, not longer than the stall threshold).
    fn current(&self, now: Timestamp) -> Option<Hold> {
        let holder = self.holder?;
        let lasted = now.saturating_sub(self.still_since);
        let long = lasted > self.slack() && lasted <= self.threshold;
        let waited = self.last_record.is_some_and(|r| r > self.still_since);
        (long && waited).then_some(Hold {
            from: self.still_since,
            to: now,
            holder,
        })
    }

    /// The measured time at `now` and the split whose holds cover the
    /// largest share of it: (holder, share, measured ms, longest hold).
    fn top(&mut self, now: Timestamp) -> Option<(Holder, f64, Millis, Millis)> {
        let over = now
            .saturating_sub(self.start)
            .min(SPAN_WINDOWS * self.window);
        let since = now.saturating_sub(over);
        while self.holds.front().is_some_and(|h| h.to <= since) {
            self.holds.pop_front();
        }
        if over < MIN_WINDOWS * self.window || over <= 0 {
            return None;
        }
        let current = self.current(now);
        let mut best: Option<(Holder, Millis, Millis)> = None;
        let all: Vec<Hold> = self.holds.iter().copied().chain(current).collect();
        for h in &all {
            if best.is_some_and(|(b, ..)| same(&b, &h.holder)) {
                continue;
            }
            let mine = all.iter().filter(|o| same(&o.holder, &h.holder));
            let (mut held, mut longest) = (0, 0);
            for o in mine {
                held += o.to.saturating_sub(o.from.max(since));
                longest = longest.max(o.to.saturating_sub(o.from));
            }
            // Again and again: two holds that ended, at least (one long
            // hold going on is the stall detector's).
            let ended = self.holds.iter().filter(|o| same(&o.holder, &h.holder));
            if ended.count() < 2 {
                continue;
            }
            if best.is_none_or(|(_, b, _)| held > b) {
                // The holder as last seen (its silence, its gap).
                let last = all.iter().rev().find(|o| same(&o.holder, &h.holder));
                best = Some((last.map_or(h.holder, |o| o.holder), held, longest));
            }
        }
        let (holder, held, longest) = best?;
        Some((holder, held as f64 / over as f64, over, longest))
    }

    /// Opens or closes the finding at `now`.
    fn judge(&mut self, now: Timestamp) -> Option<Recurring> {
        let top = self.top(now).filter(|t| t.1 >= MIN_SHARE);
        match (&mut self.open, top) {
            (None, Some((holder, share, over, longest))) => {
                self.open = Some(Recurring {
                    from: now,
                    to: None,
                    held_by: holder,
                    share,
                    over_ms: over,
                    longest_ms: longest,
                });
                self.open
            }
            (Some(r), Some((holder, share, over, longest))) => {
                r.held_by = holder;
                r.share = share;
                r.over_ms = over;
                r.longest_ms = r.longest_ms.max(longest);
                None
            }
            (Some(_), None) => self.open.take().map(|mut r| {
                r.to = Some(now);
                r
            }),
            (None, None) => None,
        }
    }

    /// The watermark it last saw move.
    pub fn watermark(&self) -> Timestamp {
        self.watermark
    }

    /// The finding going on now, if any.
    pub fn finding(&self) -> Option<Recurring> {
        self.open
    }

    /// Ends observation at `now`: the finding going on, closed there.
    pub fn finish(&mut self, now: Timestamp) -> Option<Recurring> {
        self.open.take().map(|mut r| {
            r.to = Some(now);
            r
        })
    }
}

#[cfg(test)]
#[path = "recurring_tests.rs"]
mod tests;
