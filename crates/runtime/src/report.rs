//! The report's shape from a live job's counters: at the end of a run
//! (`--report`, the summary) and at any moment for `/api/v1/watermarks`.

use std::sync::atomic::Ordering;

use lowwater_core::clock::Clock;
use lowwater_core::diagnose::Holder;
use lowwater_core::source::SplitId;
use lowwater_core::window::operator::LateCounters;
use lowwater_core::{Millis, Timestamp};
use lowwater_report::{PartitionReport, ReplayInfo, Report, SinkReport, StallReport, Totals};
use lowwater_sql::plan::JobPlan;

use crate::shared::{Shared, SplitMeta, SubtaskView};

/// The report's shape from the live counters (at the end of a run, or at
/// any moment for `/api/v1/watermarks`).
pub(crate) fn report(
    plan: &JobPlan,
    shared: &Shared,
    stalls: Vec<StallReport>,
    threshold: Millis,
    drained: bool,
) -> Report {
    let splits = shared.splits_now();
    report_from(
        plan,
        shared,
        &splits,
        &views(shared),
        stalls,
        threshold,
        drained,
    )
    .0
}

/// Every source subtask's view (per source, per subtask), taken once so
/// that what is derived from them describes one moment.
pub(crate) fn views(shared: &Shared) -> Vec<Vec<SubtaskView>> {
    shared
        .sources
        .iter()
        .map(|src| {
            src.subtasks
                .iter()
                .map(|m| m.lock().map(|v| v.clone()).unwrap_or_default())
                .collect()
        })
        .collect()
}

/// The report from `splits` and `views` taken by the caller, with the id
/// of the split behind each entry of `partitions`.
pub(crate) fn report_from(
    plan: &JobPlan,
    shared: &Shared,
    splits: &[SplitMeta],
    views: &[Vec<SubtaskView>],
    stalls: Vec<StallReport>,
    threshold: Millis,
    drained: bool,
) -> (Report, Vec<SplitId>) {
    let mut totals = Totals {
        records_in: shared
            .sources
            .iter()
            .map(|s| s.records.load(Ordering::Relaxed))
            .sum(),
        records_out: 0,
        late_records_dropped: 0,
        late_records_routed: 0,
        records_skipped: 0,
        fields_nulled: 0,
        future_records: 0,
        records_filtered: shared
            .sources
            .iter()
            .map(|s| s.filtered.load(Ordering::Relaxed))
            .sum::<u64>()
            + shared.joins.iter().map(|j| j.filtered()).sum::<u64>(),
    };
    let mut partitions = Vec::new();
    let mut ids = Vec::new();
    let late: Vec<LateCounters> = shared
        .late
        .iter()
        .flatten()
        .filter_map(|l| l.lock().ok().map(|l| l.clone()))
        .collect();
    for (id, meta) in splits.iter().enumerate() {
        let id = id as SplitId;
        let Some(view) = shared
            .sources
            .iter()
            .position(|s| s.table == meta.table)
            .and_then(|si| views.get(si)?.get(meta.subtask))
        else {
            continue;
        };
        let Some(split) = view.splits.iter().find(|s| s.id == id).copied() else {
            continue;
        };
        let dropped: u64 = late
            .iter()
            .map(|l| l.dropped.get(&id).copied().unwrap_or(0))
            .sum();
        let routed: u64 = late
            .iter()
            .map(|l| l.routed.get(&id).copied().unwrap_or(0))
            .sum();
        let skipped = view.skipped.get(&id).copied().unwrap_or(0);
        let nulled = view.nulled.get(&id).copied().unwrap_or(0);
        let future = view.future.get(&id).copied().unwrap_or(0);
        let paused_ms = view.paused.get(&id).map_or(0, |p| p.1 as u64);
        totals.future_records += future;
        totals.late_records_dropped += dropped;
        totals.late_records_routed += routed;
        totals.records_skipped += skipped;
        totals.fields_nulled += nulled;
        partitions.push(PartitionReport {
            table: plan.tables[meta.table].name.clone(),
            topic: meta.topic.clone(),
            partition: meta.partition,
            subtask: meta.subtask,
            records: split.records,
            late_records_dropped: dropped,
            late_records_routed: routed,
            records_skipped: skipped,
            fields_nulled: nulled,
            future_records: future,
            paused_ms,
            late_join_rows: shared.joins.iter().map(|j| j.late_of(id)).sum(),
            final_watermark: lowwater_report::wm(split.watermark),
            idle: split.idle,
            last_event_time: split.max_event_time,
            last_arrival: split.last_arrival,
        });
        ids.push(id);
    }
    // Late rows of windows after a join (their input is the join, not a
    // partition).
    totals.late_records_dropped += late
        .iter()
        .filter_map(|l| l.dropped.get(&crate::join_window::JOINED))
        .sum::<u64>();
    let sinks: Vec<SinkReport> = shared
        .sink_counters
        .iter()
        .filter_map(|(t, w)| {
            let w = w.lock().ok()?;
            Some(SinkReport {
                table: plan.tables[*t].name.clone(),
                rows: w.rows,
                window_rows: w.window_rows,
                late_rows: w.late_rows,
                max_emission_lag_ms: w.max_lag,
                early_rows: w.early_rows,
                emission_lag_breaches: w.lag_breaches,
            })
        })
        .collect();
    totals.records_out = sinks.iter().map(|s| s.rows).sum();
    let report = Report {
        totals,
        partitions,
        sinks,
        stalls,
        recurring_holds: Vec::new(),
        replay: ReplayInfo {
            start_ts: shared.start,
            end_ts: shared.clock.now(),
            emit_interval_ms: plan.settings.emit_interval,
            parallelism: plan.settings.parallelism,
            stall_threshold_ms: threshold,
            drained,
        },
    };
    (report, ids)
}

/// The index in `Shared::sources` of the table INSERT `pi` reads.
pub(crate) fn source_index(plan: &JobPlan, shared: &Shared, pi: usize) -> usize {
    let t = plan.pipelines[pi].source;
    shared
        .sources
        .iter()
        .position(|s| s.table == t)
        .unwrap_or(0)
}

/// The live holder of a watermark among one source's subtask views (taken
/// at one moment): the active source subtask with the lowest watermark, and
/// its active split with the lowest; with that subtask's watermark.
pub(crate) fn holder_of(
    views: &[crate::shared::SubtaskView],
    start: Timestamp,
    now: Timestamp,
) -> Option<(Holder, Timestamp)> {
    let (subtask, view) = views
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.idle)
        .min_by_key(|(i, v)| (v.watermark, *i))?;
    let split = view
        .splits
        .iter()
        .filter(|s| !s.idle)
        .min_by_key(|s| (s.watermark, s.id));
    let holder = Holder {
        subtask,
        split: split.map(|s| s.id),
        silent_ms: now - split.and_then(|s| s.last_arrival).unwrap_or(start),
        never_had_record: split.is_none_or(|s| s.records == 0),
        gap_ms: split.and_then(|s| s.max_gap),
        silent_at_least: false,
    };
    Some((holder, view.watermark))
}
