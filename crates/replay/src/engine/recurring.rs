//! The replay engine's recurring holds (see `lowwater_core::recurring`):
//! each window pipeline's watermark is metered at every periodic tick, and
//! a split that holds it again and again, each time for less than the
//! stall threshold, is a finding of the report.

use lowwater_core::recurring::{HoldMeter, Recurring};
use lowwater_core::{Millis, Timestamp, MIN_WATERMARK};
use lowwater_sql::explain::StallContext;
use lowwater_sql::plan::JobPlan;

use super::Engine;

/// The meter of pipeline `pi`, from `t0`: its windows' pace (a TUMBLE's
/// size, a HOP's slide, ...).
pub(super) fn meter(plan: &JobPlan, pi: usize, (threshold, t0): (Millis, Timestamp)) -> HoldMeter {
    let window = StallContext::of(plan, pi).window.unwrap_or(1);
    HoldMeter::new(window, threshold, t0, MIN_WATERMARK)
}

impl Engine<'_> {
    /// A periodic tick: every window pipeline's watermark and holder into
    /// its meter (a window after a join is the join's: its stalls are the
    /// join's too).
    pub(super) fn meter_tick(&mut self) {
        for pi in 0..self.pipes.len() {
            if self.plan.pipelines[pi].reads_join() {
                continue;
            }
            let wm = self.pipes[pi].node.op().watermark();
            let holder = self.holder(pi);
            let now = self.now;
            let pipe = &mut self.pipes[pi];
            if let Some(r) = pipe.meter.observe(now, wm, holder) {
                if r.to.is_some() {
                    pipe.recurring.push(r);
                }
            }
        }
    }

    /// Pipeline `pi`'s recurring holds, closed ones in time order.
    pub fn recurring(&self, pi: usize) -> &[Recurring] {
        &self.pipes[pi].recurring
    }
}
