//! A join's stall as reports show it, for replay and live runs alike: the
//! side, table and partition that held the join (with the setting that
//! releases it), and the rows waiting for it.

use lowwater_core::diagnose::Stall;
use lowwater_core::source::SplitId;
use lowwater_core::{Millis, Timestamp};
use lowwater_sql::explain::StallContext;
use lowwater_sql::plan::JobPlan;

use crate::{stall_report_in, StallReport};

/// A join's two inputs (table, name of the side), its sink and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JoinSides {
    /// Port 0: the probe side of a temporal join, the left of an interval join.
    pub first: (usize, &'static str),
    /// Port 1: the versioned side, or the right.
    pub second: (usize, &'static str),
    /// The INSERT's sink table.
    pub sink: usize,
    /// "temporal join", "interval join" or "window join".
    pub join: &'static str,
    /// A window join's windows' pace (what the suggested idle timeout is
    /// chosen from, with the holding partition's gaps).
    pub window: Option<Millis>,
}

impl JoinSides {
    /// A temporal join of `probe` with the versioned table `build`.
    pub fn temporal(probe: usize, build: usize, sink: usize) -> Self {
        JoinSides {
            first: (probe, "probe side"),
            second: (build, "versioned side"),
            sink,
            join: "temporal join",
            window: None,
        }
    }

    /// Interval join or window join `j`.
    pub fn interval(j: &lowwater_sql::plan::IntervalPlan) -> Self {
        JoinSides {
            first: (j.left, "left side"),
            second: (j.right, "right side"),
            sink: j.sink,
            join: j.what(),
            window: j
                .window
                .as_ref()
                .map(|w| lowwater_sql::explain::window_pace(&w.assigner)),
        }
    }

    /// The table of port `port`.
    pub fn table(&self, port: usize) -> usize {
        if port == 1 {
            self.second.0
        } else {
            self.first.0
        }
    }
}

/// A join's stall `(stall, port that held it, rows waiting)`, ending at
/// `to`. `split` gives a split's table, topic and partition; `partitions`
/// how many partitions a table has.
pub fn join_stall_report(
    plan: &JobPlan,
    sides: &JoinSides,
    (s, port, waiting): (&Stall, Option<usize>, u64),
    to: Timestamp,
    threshold: Millis,
    split: impl Fn(SplitId) -> Option<(usize, String, i32)>,
    partitions: impl Fn(usize) -> usize,
) -> StallReport {
    let held = s.held_by.and_then(|h| h.split).and_then(&split);
    let table = held
        .as_ref()
        .map_or_else(|| sides.table(port.unwrap_or(0)), |(t, ..)| *t);
    let mut cx = StallContext::of_table(plan, table);
    cx.window = sides.window;
    // The versioned side is released by its own table's idle-timeout: the
    // job-wide one would also let the probe side's quiet partitions go.
    cx.own_idle_option |= table == sides.second.0 && sides.join == "temporal join";
    let sink = &plan.tables[sides.sink].name;
    let mut r = stall_report_in(&cx, sink, s, to, threshold, partitions(table), |id| {
        split(id).map(|(_, topic, p)| (topic, p))
    });
    let side = if table == sides.second.0 {
        sides.second.1
    } else {
        sides.first.1
    };
    // A stall going on (a live WARN) says what waits now.
    let open = s.to.is_none();
    let waited = match sides.join {
        "temporal join" => format!(
            "{waiting} probe row(s) of {} {} for it",
            plan.tables[sides.first.0].name,
            if open { "wait" } else { "waited" }
        ),
        _ => format!(
            "{waiting} row(s) {} cached",
            if open { "are" } else { "were" }
        ),
    };
    r.reason = format!(
        "the {} waits for its {side}, table {}: {}; {waited}",
        sides.join, plan.tables[table].name, r.reason,
    );
    r
}
