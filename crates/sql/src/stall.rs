//! What the explanation of a stalled watermark needs to know: who held it
//! ([`StallHolder`]) and of the job ([`StallContext`], the same for a
//! lowwater plan and a Flink job read from its REST API). The explanations
//! (`explain`'s stall reason, `advice`'s idle timeout and recurring holds)
//! read them; they are re-exported from `explain`, where they were first.

use lowwater_core::time::display_duration;
use lowwater_core::Millis;

use crate::plan::JobPlan;
use crate::windows::window_pace;

/// Who held a stalled watermark, for `explain::stall_reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StallHolder<'a> {
    /// Topic (`None` for a subtask without partitions).
    pub topic: Option<&'a str>,
    /// Partition (`None` for a subtask without partitions).
    pub partition: Option<i32>,
    /// Source subtask.
    pub subtask: usize,
    /// How long it has had no record.
    pub silent_ms: Millis,
    /// Whether it never had one.
    pub never_had_record: bool,
    /// The longest time between two of its records before this silence
    /// (`None`: fewer than two seen, or not known).
    pub gap_ms: Option<Millis>,
    /// Whether `silent_ms` is a lower bound (the observer began after the
    /// last record).
    pub silent_at_least: bool,
}

impl StallHolder<'_> {
    /// How long it has been silent, in words: `1m 30s`, or `at least 15s`
    /// when that is all the observer can know.
    pub fn silence(&self) -> String {
        match self.silent_at_least {
            true => format!("at least {}", display_duration(self.silent_ms)),
            false => display_duration(self.silent_ms),
        }
    }
}

/// What the explanation of a stall needs to know of the job: the same for
/// a lowwater plan ([`StallContext::of`]) and for a Flink job read from its
/// REST API, so that both say the same thing in the same words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StallContext {
    /// The source table.
    pub source: String,
    /// Whether the table sets `scan.watermark.idle-timeout` itself (the fix
    /// is then that option, not the job-wide SET).
    pub own_idle_option: bool,
    /// The idle timeout in force (`None`: disabled).
    pub idle_timeout: Option<Millis>,
    /// `scan.watermark.idle-mode` = 'caught-up'.
    pub caught_up: bool,
    /// `pipeline.auto-watermark-interval`.
    pub emit_interval: Millis,
    /// The source parallelism.
    pub parallelism: usize,
    /// How often the held operator's windows end (a TUMBLE's size, a HOP's
    /// slide, a CUMULATE's step, a SESSION's gap); `None`: a join, or not
    /// known.
    pub window: Option<Millis>,
    /// The source table's watermark delay (`None`: not known).
    pub delay: Option<Millis>,
}

impl StallContext {
    /// The context of pipeline `pi` of a lowwater plan.
    pub fn of(plan: &JobPlan, pi: usize) -> Self {
        let p = plan.pipelines[pi].first();
        StallContext {
            window: Some(window_pace(&p.window.assigner)),
            ..Self::of_table(plan, p.source)
        }
    }

    /// The context of a stall held by source table `t` of a lowwater plan
    /// (one side of a join).
    pub fn of_table(plan: &JobPlan, t: usize) -> Self {
        let src = &plan.tables[t];
        StallContext {
            source: src.name.clone(),
            own_idle_option: src.options.contains_key("scan.watermark.idle-timeout"),
            idle_timeout: src.idle_timeout,
            caught_up: src.caught_up,
            emit_interval: plan.settings.emit_interval,
            parallelism: plan.settings.parallelism,
            window: None,
            delay: src.watermark.map(|w| w.delay),
        }
    }
}
