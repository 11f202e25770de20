//! Watermark alignment live (Flink's FLIP-182 and FLIP-217, per partition):
//! the source subtasks of every table in one group report their
//! partitions' watermarks to the group every update interval (an idle or
//! finished partition as `MAX`; one without a watermark yet not at all),
//! take the group's slowest back, and pause each of their partitions that
//! is more than the table's drift above it: a Kafka partition stops being
//! fetched, a file or generated partition stops being read. A paused
//! partition is checked again at every periodic emit (paused at once when
//! its watermark passes the limit, as Flink does when a split's watermark
//! moves) and read again at an update that finds it back within the
//! limit. It is kept active meanwhile: it has records waiting. The time
//! each partition spent paused is published for the report and `/metrics`.

use lowwater_core::source::SplitId;
use lowwater_core::{Millis, Timestamp, MAX_WATERMARK, MIN_WATERMARK};
use lowwater_sql::plan::JobPlan;

use super::{Input, SourceTask};

/// One source subtask's side of its table's alignment.
pub(crate) struct SourceAlign {
    group: usize,
    drift: Millis,
    interval: Millis,
    next_update: Timestamp,
    /// The group's slowest watermark at the last update (`MAX` before the
    /// first: nothing is paused, as in Flink).
    slowest: Timestamp,
    /// Per input: paused since when.
    paused_since: Vec<Option<Timestamp>>,
    /// Per input: time paused in pauses that ended.
    paused_ms: Vec<Millis>,
}

impl SourceAlign {
    /// The alignment of table `t`'s subtask with `inputs` inputs, if the
    /// table aligns.
    pub(crate) fn new(
        plan: &JobPlan,
        groups: &crate::align_groups::Groups,
        t: usize,
        inputs: usize,
        start: Timestamp,
    ) -> Option<Self> {
        let a = plan.tables[t].alignment.as_ref()?;
        // The group is updated at its tables' shortest interval (as replay).
        let interval = plan
            .tables
            .iter()
            .filter_map(|t| t.alignment.as_ref())
            .filter(|o| o.group == a.group)
            .map(|o| o.update_interval)
            .min()
            .unwrap_or(a.update_interval)
            .max(1);
        Some(SourceAlign {
            group: groups.index(&a.group)?,
            drift: a.max_drift,
            interval,
            next_update: start.saturating_add(interval),
            slowest: MAX_WATERMARK,
            paused_since: vec![None; inputs],
            paused_ms: vec![0; inputs],
        })
    }

    /// Whether input `i` is paused.
    pub(crate) fn paused(&self, i: usize) -> bool {
        self.paused_since.get(i).is_some_and(Option::is_some)
    }

    /// Time input `i` has spent paused, up to `now`.
    pub(crate) fn paused_ms(&self, i: usize, now: Timestamp) -> Millis {
        let open = self
            .paused_since
            .get(i)
            .copied()
            .flatten()
            .map_or(0, |s| now.saturating_sub(s));
        self.paused_ms.get(i).copied().unwrap_or(0) + open
    }
}

/// Split `id`'s watermark for alignment: what its generator would emit
/// now, but never below what it emitted (the SQL form follows the last row
/// and can go down), and whether it is idle.
fn watermark(sub: &lowwater_core::source::SourceSubtask, id: SplitId) -> (Timestamp, bool) {
    let view = sub.split(id);
    let emitted = view.map_or(MIN_WATERMARK, |v| v.watermark);
    let due = sub.due_watermark(id).unwrap_or(MIN_WATERMARK).max(emitted);
    (due, view.is_none_or(|v| v.idle))
}

impl SourceTask {
    /// Before a periodic emit: paused partitions have records waiting, so
    /// they stay active (Flink stops a paused split's idleness clock).
    pub(crate) fn keep_paused_active(&mut self) {
        let Some(a) = &self.align else {
            return;
        };
        let paused: Vec<SplitId> = (0..self.inputs.len())
            .filter(|&i| a.paused(i))
            .map(|i| self.inputs[i].0)
            .collect();
        for id in paused {
            let _ = self.sub.on_backlog(id);
        }
    }

    /// After a periodic emit at `now`: reports to the group when an update
    /// is due, and pauses or resumes this subtask's partitions. Exhausted
    /// inputs count as finished (`MAX`).
    pub(crate) fn align(&mut self, now: Timestamp, exhausted: &[bool]) {
        let Some(a) = &mut self.align else {
            return;
        };
        // Partitions discovered while running join the group.
        a.paused_since.resize(self.inputs.len(), None);
        a.paused_ms.resize(self.inputs.len(), 0);
        // A dump-fed table's partitions run out only with the whole input
        // (as in replay); others are finished when read to their end.
        let finished =
            |i: usize| !self.waits_for_siblings && exhausted.get(i).copied().unwrap_or(false);
        let update = now >= a.next_update;
        if update {
            a.next_update = now.saturating_add(a.interval);
            if let Some(Ok(mut g)) = self.shared.alignment.group(a.group).map(|g| g.lock()) {
                for (i, (id, _)) in self.inputs.iter().enumerate() {
                    match watermark(&self.sub, *id) {
                        _ if finished(i) => g.report_idle(*id),
                        (_, true) => g.report_idle(*id),
                        (MIN_WATERMARK, false) => {}
                        (wm, false) => g.report(*id, wm),
                    }
                }
                a.slowest = g.max_allowed();
            }
        }
        let limit = a.slowest.saturating_add(a.drift);
        let mut pause = Vec::new();
        let mut resume = Vec::new();
        for (i, (id, _)) in self.inputs.iter().enumerate() {
            let (wm, idle) = watermark(&self.sub, *id);
            let ahead = !idle && !finished(i) && wm > limit;
            match (a.paused_since[i], ahead) {
                (None, true) => {
                    a.paused_since[i] = Some(now);
                    pause.push(i);
                }
                (Some(since), false) if update => {
                    a.paused_since[i] = None;
                    a.paused_ms[i] += now.saturating_sub(since);
                    resume.push(i);
                }
                _ => {}
            }
        }
        self.apply(&pause, true);
        self.apply(&resume, false);
    }

    /// The subtask ends: its partitions no longer hold the group.
    pub(crate) fn leave_alignment(&mut self) {
        let Some(a) = &self.align else {
            return;
        };
        if let Some(Ok(mut g)) = self.shared.alignment.group(a.group).map(|g| g.lock()) {
            for (id, _) in &self.inputs {
                g.report_idle(*id);
            }
        }
    }

    /// Pauses (or resumes) the Kafka partitions among inputs `is`; other
    /// inputs are simply not read while paused.
    fn apply(&mut self, is: &[usize], pause: bool) {
        let parts: Vec<(String, i32)> = is
            .iter()
            .filter(|&&i| matches!(self.inputs[i].1, Input::Kafka))
            .map(|&i| self.names[i].clone())
            .collect();
        if parts.is_empty() {
            return;
        }
        if let Some(k) = &self.kafka {
            let r = if pause {
                k.pause(&parts)
            } else {
                k.resume(&parts)
            };
            if let Err(e) = r {
                tracing::warn!("watermark alignment: {e}");
            }
        }
        tracing::debug!(
            "watermark alignment: {} {parts:?}",
            if pause { "paused" } else { "resumed" }
        );
    }

    /// Whether input `i` is paused by alignment (not read now).
    pub(crate) fn is_paused(&self, i: usize) -> bool {
        self.align.as_ref().is_some_and(|a| a.paused(i))
    }
}
