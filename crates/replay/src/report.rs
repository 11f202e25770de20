//! The replay report: built from a finished engine. The types, the stall
//! reports and the summary live in `lowwater-report`, shared with the live
//! runtime; they are re-exported here.

use lowwater_core::diagnose::Stall;
use lowwater_core::Millis;
use lowwater_sql::explain::StallContext;
use lowwater_sql::plan::JobPlan;

pub use lowwater_report::*;

use crate::engine::{Engine, JoinStall};

/// Builds the report of a finished engine.
pub fn build(plan: &JobPlan, engine: &Engine<'_>, threshold: Millis, drained: bool) -> Report {
    let mut partitions = Vec::new();
    let mut totals = Totals {
        records_in: engine.records_in(),
        records_out: 0,
        late_records_dropped: 0,
        late_records_routed: 0,
        records_skipped: 0,
        fields_nulled: 0,
        records_filtered: (0..plan.pipelines.len())
            .map(|p| engine.filtered(p))
            .sum::<u64>()
            + (0..plan.joins.len())
                .map(|j| engine.join_dropped(j).0)
                .sum::<u64>()
            + (0..plan.intervals.len())
                .map(|j| engine.interval_state(j).1)
                .sum::<u64>(),
        future_records: 0,
    };
    for (id, meta) in engine.splits().iter().enumerate() {
        let Some(st) = engine.split_state(id as u32) else {
            continue;
        };
        totals.late_records_dropped += st.late_dropped;
        totals.late_records_routed += st.late_routed;
        totals.records_skipped += st.skipped;
        totals.fields_nulled += st.nulled;
        totals.future_records += st.future;
        partitions.push(PartitionReport {
            table: plan.tables[meta.table].name.clone(),
            topic: meta.topic.clone(),
            partition: meta.partition,
            subtask: meta.subtask,
            records: st.view.records,
            late_records_dropped: st.late_dropped,
            late_records_routed: st.late_routed,
            records_skipped: st.skipped,
            fields_nulled: st.nulled,
            future_records: st.future,
            paused_ms: engine.paused_ms(id as u32) as u64,
            late_join_rows: engine.late_join_rows(id as u32),
            final_watermark: wm(st.view.watermark),
            idle: st.view.idle,
            last_event_time: st.view.max_event_time,
            last_arrival: st.view.last_arrival,
        });
    }
    // Late rows of windows after a temporal join (their input is the join,
    // not a partition).
    for pi in 0..plan.pipelines.len() {
        totals.late_records_dropped += engine.joined_late(pi);
    }
    let sinks: Vec<SinkReport> = engine
        .sinks()
        .map(|(t, s)| SinkReport {
            table: plan.tables[t].name.clone(),
            rows: s.rows,
            window_rows: s.window_rows,
            late_rows: s.late_rows,
            max_emission_lag_ms: s.max_emission_lag,
            early_rows: s.early_rows,
            emission_lag_breaches: 0,
        })
        .collect();
    totals.records_out = sinks.iter().map(|s| s.rows).sum();
    let mut stalls = Vec::new();
    for pi in 0..plan.pipelines.len() {
        for s in engine.stalls(pi) {
            stalls.push(stall_report(plan, engine, pi, s, threshold));
        }
    }
    for ji in 0..plan.joins.len() {
        for s in engine.join_stalls(ji) {
            let j = &plan.joins[ji];
            let sides = JoinSides::temporal(j.probe, j.build, j.sink);
            stalls.push(join_stall(plan, engine, &sides, s, threshold));
        }
    }
    for ii in 0..plan.intervals.len() {
        for s in engine.interval_stalls(ii) {
            let j = &plan.intervals[ii];
            let sides = JoinSides::interval(j);
            stalls.push(join_stall(plan, engine, &sides, s, threshold));
        }
    }
    let mut recurring_holds = Vec::new();
    for pi in 0..plan.pipelines.len() {
        let cx = StallContext::of(plan, pi);
        let slack = cx.window.unwrap_or(0) / 4;
        let sink = &plan.tables[plan.pipelines[pi].sink].name;
        for r in engine.recurring(pi) {
            recurring_holds.push(recurring_report_in(&cx, sink, r, slack, |id| {
                let m = engine.splits().get(id as usize)?;
                Some((m.topic.clone(), m.partition))
            }));
        }
    }
    Report {
        totals,
        partitions,
        sinks,
        stalls,
        recurring_holds,
        replay: ReplayInfo {
            start_ts: engine.t0(),
            end_ts: engine.now(),
            emit_interval_ms: plan.settings.emit_interval,
            parallelism: plan.settings.parallelism,
            stall_threshold_ms: threshold,
            drained,
        },
    }
}

fn stall_report(
    plan: &JobPlan,
    engine: &Engine<'_>,
    pi: usize,
    s: &Stall,
    threshold: Millis,
) -> StallReport {
    let source = plan.pipelines[pi].source;
    let partitions = engine.splits().iter().filter(|m| m.table == source).count();
    build_stall_report(
        plan,
        pi,
        s,
        s.to.unwrap_or(s.from),
        threshold,
        partitions,
        |id| {
            let m = engine.splits().get(id as usize)?;
            Some((m.topic.clone(), m.partition))
        },
    )
}

/// A join's stall in the report, from the engine's splits.
fn join_stall(
    plan: &JobPlan,
    engine: &Engine<'_>,
    sides: &JoinSides,
    js: &JoinStall,
    threshold: Millis,
) -> StallReport {
    let splits = engine.splits();
    join_stall_report(
        plan,
        sides,
        (&js.stall, js.port, js.waiting),
        js.stall.to.unwrap_or(js.stall.from),
        threshold,
        |id| {
            let m = splits.get(id as usize)?;
            Some((m.table, m.topic.clone(), m.partition))
        },
        |t| splits.iter().filter(|m| m.table == t).count(),
    )
}
