//! Seeing the watermark while a job runs (`lowwater run --http ADDR`): the
//! job's side of the live model (`lowwater_observe`), read from the job's
//! shared state: `/metrics`, `/api/v1/watermarks` and the web page are
//! served from it by `lowwater_observe::http`.
//!
//! Nothing here is on the record path: every value is read from the job's
//! shared state when a client asks (the counters the threads keep anyway),
//! except the emission-lag histogram, observed once per window row emitted.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use lowwater_core::clock::Clock;
use lowwater_core::diagnose::Holder;
use lowwater_core::{Millis, Timestamp};
use lowwater_report::{wm, Report};
use lowwater_sql::plan::JobPlan;

pub use lowwater_observe::live::*;

use crate::shared::Shared;

/// The live state of a running job.
pub(crate) fn snapshot(plan: &JobPlan, shared: &Shared, threshold: Millis) -> Live {
    let now = shared.clock.now();
    let (current, past, stale, history, recurring, implausible) = match shared.live.lock() {
        Ok(l) => (
            l.current.clone(),
            l.past.clone(),
            l.stale.clone(),
            l.history.points(),
            l.recurring.clone(),
            l.implausible.clone(),
        ),
        Err(_) => Default::default(),
    };
    // Splits and every source subtask's view, taken once: the holders and
    // the partitions' entries below describe the same moment, so that the
    // holder is never a partition shown as idle.
    let splits = shared.splits_now();
    let views = crate::report::views(shared);
    let holders: Vec<Option<Holder>> = (0..plan.pipelines.len())
        .map(|pi| {
            let si = crate::report::source_index(plan, shared, pi);
            crate::report::holder_of(&views[si], shared.start, now).map(|(h, _)| h)
        })
        .collect();
    // What holds each join: its holding side's table and, in that table's
    // source, the partition with the lowest watermark.
    let joins = crate::joins::joins(plan);
    let join_holders: Vec<Option<(usize, usize, Holder)>> = joins
        .iter()
        .enumerate()
        .map(|(j, which)| {
            let hold = shared.joins[j].hold()?;
            let table = which.sides(plan).table(hold.port);
            let si = shared.sources.iter().position(|s| s.table == table)?;
            let (h, _) = crate::report::holder_of(&views[si], shared.start, now)?;
            Some((hold.port, table, h))
        })
        .collect();
    let mut stalls = past;
    stalls.extend(current.iter().flatten().cloned());
    let (
        Report {
            totals,
            partitions,
            sinks,
            replay,
            ..
        },
        ids,
    ) = crate::report::report_from(plan, shared, &splits, &views, Vec::new(), threshold, false);
    let mut live_parts = Vec::with_capacity(partitions.len());
    for (p, id) in partitions.into_iter().zip(ids) {
        let meta = &splits[id as usize];
        let view = shared
            .sources
            .iter()
            .position(|s| s.table == meta.table)
            .and_then(|si| views[si].get(meta.subtask));
        let backlog = view.and_then(|v| v.backlog.get(&id).copied());
        let paused = view.and_then(|v| v.paused.get(&id)).is_some_and(|p| p.0);
        let holding =
            plan.pipelines.iter().zip(&holders).any(|(pl, h)| {
                pl.reads_table(meta.table) && h.is_some_and(|h| h.split == Some(id))
            }) || join_holders
                .iter()
                .flatten()
                .any(|(_, t, h)| *t == meta.table && h.split == Some(id));
        live_parts.push(LivePartition {
            watermark: p.final_watermark,
            silent_ms: now - p.last_arrival.unwrap_or(shared.start),
            silent_at_least: false,
            consumer_lag: backlog.and_then(|b| match b {
                lowwater_kafka::Backlog::Unknown => None,
                lowwater_kafka::Backlog::CaughtUp => Some(0),
                lowwater_kafka::Backlog::Behind(n) => Some(n),
            }),
            holding,
            paused,
            implausible_time: implausible.contains_key(&id),
            report: p,
        });
    }
    let mut live_sinks = Vec::with_capacity(sinks.len());
    for (i, ((&t, w), report)) in shared.sink_counters.iter().zip(sinks).enumerate() {
        let Ok(w) = w.lock() else {
            continue;
        };
        live_sinks.push(LiveSink {
            report,
            last_emit: w.last_emit,
            last_emission_lag_ms: w.last_lag,
            freshness_ms: now - w.last_emit.unwrap_or(shared.start),
            max_emission_lag_slo_ms: plan.tables[t].max_emission_lag,
            max_staleness_slo_ms: plan.tables[t].max_staleness,
            emission_lag_breaches: w.lag_breaches,
            stale: stale.get(i).copied().unwrap_or(false),
            jdbc: w
                .jdbc
                .map(|(s, buffered)| lowwater_observe::live::LiveJdbc {
                    committed_rows: s.rows,
                    buffered_rows: buffered as u64,
                    last_commit: s.last_commit,
                    commit_age_ms: now - s.last_commit.unwrap_or(shared.start),
                    reconnects: s.reconnects,
                    retries: s.retries,
                }),
        });
    }
    let mut inserts: Vec<LiveInsert> = plan
        .pipelines
        .iter()
        .enumerate()
        .map(|(pi, pl)| LiveInsert {
            sink: plan.tables[pl.sink].name.clone(),
            source: plan.tables[pl.source].name.clone(),
            watermark: shared.windows[pi]
                .iter()
                .map(|w| w.load(Ordering::Relaxed))
                .min()
                .and_then(wm),
            stall: current.get(pi).cloned().flatten(),
            recurring: recurring
                .iter()
                .find(|r| r.to_ts.is_none() && r.sink == plan.tables[pl.sink].name)
                .cloned(),
            open_windows: shared.open[pi]
                .iter()
                .map(|[n, ..]| n.load(Ordering::Relaxed))
                .sum(),
            state_bytes: shared.open[pi]
                .iter()
                .map(|[_, b, _]| b.load(Ordering::Relaxed))
                .sum(),
        })
        .collect();
    // A join's INSERT: its watermark, its stall (after the windows' in
    // `current`) and the rows it holds as its open state.
    let mut live_joins = Vec::new();
    for (j, which) in joins.iter().enumerate() {
        let sides = which.sides(plan);
        let js = &shared.joins[j];
        let holding = join_holders[j].as_ref().map(|(port, ..)| *port);
        live_joins.push(LiveJoin {
            sink: plan.tables[sides.sink].name.clone(),
            join: sides.join.to_string(),
            sides: [sides.first, sides.second]
                .iter()
                .enumerate()
                .map(|(port, (t, side))| LiveJoinSide {
                    side: side.to_string(),
                    table: plan.tables[*t].name.clone(),
                    watermark: wm(js.input_watermark(port)),
                    holding: holding == Some(port),
                })
                .collect(),
            waiting_rows: js.waiting(),
            versions_deleted: js.deleted(),
        });
    }
    for (j, which) in joins.iter().enumerate() {
        let sides = which.sides(plan);
        let js = &shared.joins[j];
        inserts.push(LiveInsert {
            sink: plan.tables[sides.sink].name.clone(),
            source: format!(
                "{} JOIN {}",
                plan.tables[sides.first.0].name, plan.tables[sides.second.0].name
            ),
            watermark: wm(js.watermark()),
            stall: current.get(plan.pipelines.len() + j).cloned().flatten(),
            recurring: None,
            open_windows: js.waiting(),
            state_bytes: 0,
        });
    }
    let mut subtasks = Vec::new();
    for src in &shared.sources {
        for (i, v) in src.subtasks.iter().enumerate() {
            let Ok(v) = v.lock() else {
                continue;
            };
            subtasks.push(LiveSubtask {
                operator: format!("source:{}", plan.tables[src.table].name),
                subtask: i,
                input_watermark: None,
                output_watermark: wm(v.watermark),
                idle: Some(v.idle),
            });
        }
    }
    for (pi, pl) in plan.pipelines.iter().enumerate() {
        for (i, w) in shared.windows[pi].iter().enumerate() {
            let w = wm(w.load(Ordering::Relaxed));
            subtasks.push(LiveSubtask {
                operator: format!("window:{}", plan.tables[pl.sink].name),
                subtask: i,
                input_watermark: w,
                // The window operator forwards the watermark it received.
                output_watermark: w,
                idle: None,
            });
        }
    }
    for (j, which) in joins.iter().enumerate() {
        let sink = &plan.tables[which.sides(plan).sink].name;
        for (i, w) in shared.joins[j].watermarks.iter().enumerate() {
            let w = wm(w.load(Ordering::Relaxed));
            subtasks.push(LiveSubtask {
                operator: format!("join:{sink}"),
                subtask: i,
                input_watermark: w,
                output_watermark: w,
                idle: None,
            });
        }
    }
    Live {
        totals,
        partitions: live_parts,
        sinks: live_sinks,
        stalls,
        recurring_holds: recurring,
        replay,
        now,
        inserts,
        joins: live_joins,
        subtasks,
        history,
        checkpoints: shared
            .checkpoints
            .stats
            .lock()
            .map(|c| c.clone())
            .unwrap_or_default(),
        watched: None,
        implausible_times: implausible.into_values().collect(),
    }
}

/// The running job as the HTTP server sees it.
pub(crate) struct JobView {
    pub plan: Arc<JobPlan>,
    pub shared: Arc<Shared>,
    pub threshold: Millis,
    /// Where a stop asked for over HTTP goes (`crate::control`).
    pub control: std::sync::mpsc::Sender<crate::control::StopRequest>,
}

impl crate::http::LiveView for JobView {
    fn live(&self) -> Live {
        snapshot(&self.plan, &self.shared, self.threshold)
    }

    fn metrics(&self, live: &Live) -> String {
        let shared = &self.shared;
        let filtered = shared
            .sources
            .iter()
            .map(|s| {
                let table = self.plan.tables[s.table].name.clone();
                (
                    vec![("table".into(), table)],
                    s.filtered.load(Ordering::Relaxed),
                )
            })
            .collect();
        lowwater_observe::metrics::encode(live, Some(&shared.lag_histograms), filtered)
    }

    fn ready(&self) -> bool {
        !(self.shared.stop.load(Ordering::Relaxed) || self.shared.failed())
    }

    fn history(&self, since: Timestamp) -> Vec<crate::flight::FlightEvent> {
        self.shared
            .live
            .lock()
            .map(|l| l.flight.since(since))
            .unwrap_or_default()
    }

    fn stop(&self, req: crate::control::StopRequest) -> Result<(), String> {
        self.control
            .send(req)
            .map_err(|_| "the job is ending already".to_string())
    }
}
