//! A recurring hold as reports show it (see `lowwater_core::recurring`):
//! the split that held a watermark again and again for less than the stall
//! threshold, the share of the time its holds covered, and what releases
//! it, for replay and live runs alike.

use lowwater_core::recurring::Recurring;
use lowwater_core::source::SplitId;
use lowwater_core::{Millis, Timestamp};
use lowwater_sql::advice::recurring_reason;
use lowwater_sql::explain::StallContext;
use serde::Serialize;

use crate::HeldBy;

/// One recurring hold.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RecurringReport {
    /// The INSERT's sink table.
    pub sink: String,
    /// The source table of the split that held it.
    pub source: String,
    /// When the finding opened (three windows of observation at least).
    pub from_ts: Timestamp,
    /// When it closed (`null`: still going on at the end).
    pub to_ts: Option<Timestamp>,
    /// The share of the measured time the split's holds covered, in
    /// percent (as last measured while it lasted; at least 50).
    pub held_percent: u32,
    /// The time that share was measured over (at most ten windows).
    pub over_ms: Millis,
    /// The longest single hold.
    pub longest_ms: Millis,
    /// One line a person can act on.
    pub reason: String,
    /// Who held it.
    pub held_by: HeldBy,
}

/// The report of `r`, a recurring hold of INSERT INTO `sink` whose windows
/// may wait `slack` (a quarter window); `split` gives a split's topic and
/// partition.
pub fn recurring_report_in(
    cx: &StallContext,
    sink: &str,
    r: &Recurring,
    slack: Millis,
    split: impl Fn(SplitId) -> Option<(String, i32)>,
) -> RecurringReport {
    let held_by = HeldBy::of(&r.held_by, split);
    let holder = held_by.holder();
    let percent = (r.share * 100.0).round().clamp(0.0, 100.0) as u32;
    let reason = recurring_reason(cx, &holder, (percent, r.over_ms, r.longest_ms, slack));
    RecurringReport {
        sink: sink.to_string(),
        source: cx.source.clone(),
        from_ts: r.from,
        to_ts: r.to,
        held_percent: percent,
        over_ms: r.over_ms,
        longest_ms: r.longest_ms,
        reason,
        held_by,
    }
}
