//! The live monitor's recurring holds (see `lowwater_core::recurring`):
//! each INSERT's watermark is metered at every tick, its holder looked at
//! once a second while it stands still (each look copies every source
//! subtask's view); a finding is a WARN when it opens, an INFO when it
//! closes, and an entry of the API, the page and the final report.

use lowwater_core::recurring::{HoldMeter, Recurring};
use lowwater_core::{Millis, Timestamp, MIN_WATERMARK};
use lowwater_report::{recurring_report_in, RecurringReport};
use lowwater_sql::explain::StallContext;
use lowwater_sql::plan::JobPlan;

use super::Monitor;

/// One INSERT's meter and findings.
pub(super) struct HoldWatch {
    meter: HoldMeter,
    /// Findings that ended.
    past: Vec<RecurringReport>,
    /// The finding going on, as last reported.
    open: Option<RecurringReport>,
    next_look: Timestamp,
    next_describe: Timestamp,
    records: u64,
}

impl HoldWatch {
    /// The finding going on, if any.
    pub(super) fn open(&self) -> Option<&RecurringReport> {
        self.open.as_ref()
    }

    pub(super) fn new(plan: &JobPlan, pi: usize, (threshold, start): (Millis, Timestamp)) -> Self {
        let window = StallContext::of(plan, pi).window.unwrap_or(1);
        HoldWatch {
            meter: HoldMeter::new(window, threshold, start, MIN_WATERMARK),
            past: Vec::new(),
            open: None,
            next_look: start,
            next_describe: start,
            records: 0,
        }
    }
}

impl Monitor {
    /// INSERT `pi`'s watermark `wm` and its source's `records` at `now`
    /// into its meter.
    pub(super) fn meter(&mut self, pi: usize, now: Timestamp, wm: Timestamp, records: u64) {
        let w = &mut self.pipes[pi].holds;
        if records > w.records {
            w.records = records;
            w.meter.on_record(now);
        }
        let still = wm <= w.meter.watermark();
        let look = still && now >= self.pipes[pi].holds.next_look;
        let holder = match look {
            true => {
                self.pipes[pi].holds.next_look = now + 1_000;
                self.holder(pi, now)
            }
            false => None,
        };
        let changed = self.pipes[pi].holds.meter.observe(now, wm, holder);
        if let Some(r) = changed {
            let rep = self.recurring_report(pi, &r);
            match r.to {
                None => tracing::warn!(
                    "watermark held again and again: INSERT INTO {}: {}",
                    rep.sink,
                    rep.reason
                ),
                Some(_) => {
                    tracing::info!(
                        "recurring hold over: the watermark of INSERT INTO {} is no longer held \
                         again and again by one partition",
                        rep.sink
                    );
                    self.pipes[pi].holds.past.push(rep);
                }
            }
        }
        // The finding going on, described again once a second (a report
        // reads the splits' names).
        if changed.is_some() || now >= self.pipes[pi].holds.next_describe {
            self.pipes[pi].holds.next_describe = now + 1_000;
            let open = self.pipes[pi].holds.meter.finding();
            self.pipes[pi].holds.open = open.map(|r| self.recurring_report(pi, &r));
        }
    }

    /// Closes INSERT `pi`'s finding going on (the run ends at `now`).
    pub(super) fn finish_holds(&mut self, pi: usize, now: Timestamp) {
        if let Some(r) = self.pipes[pi].holds.meter.finish(now) {
            let rep = self.recurring_report(pi, &r);
            self.pipes[pi].holds.past.push(rep);
            self.pipes[pi].holds.open = None;
        }
    }

    /// Every recurring hold so far: ended ones, then the ones going on.
    pub fn recurring(&self) -> Vec<RecurringReport> {
        let past = self.pipes.iter().flat_map(|p| p.holds.past.iter());
        let open = self.pipes.iter().filter_map(|p| p.holds.open.as_ref());
        past.chain(open).cloned().collect()
    }

    fn recurring_report(&self, pi: usize, r: &Recurring) -> RecurringReport {
        let cx = StallContext::of(&self.plan, pi);
        let slack = cx.window.unwrap_or(0) / 4;
        let sink = &self.plan.tables[self.plan.pipelines[pi].sink].name;
        let splits = self.shared.splits_now();
        recurring_report_in(&cx, sink, r, slack, |id| {
            let m = splits.get(id as usize)?;
            Some((m.topic.clone(), m.partition))
        })
    }
}
