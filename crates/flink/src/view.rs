//! The watcher's state as lowwater's live view ([`Live`]), so that a Flink
//! job is served on the same `/api/v1/watermarks`, `/metrics`, `/healthz`
//! and web page as a lowwater job, and `lowwater status` reads it as it
//! reads a lowwater job.
//!
//! What Flink's REST API does not give is left empty (`null`, or 0 for the
//! counts) rather than made up: no event times or emission lags per row
//! (the page shows `-`), no open window counts or state sizes, no
//! checkpoints (Flink's own UI has them). A partition's `records` are the
//! records read since the watch began (its offset moved by that much), and
//! its `last_arrival` the poll at which its offset last moved; a sink's
//! `last_emit` is the poll at which its writers' count last grew. The
//! window vertex's watermark is the minimum over its subtasks (one
//! aggregated metric request per vertex), shown as one subtask row.

use std::sync::{Arc, Mutex};

use lowwater_core::{Millis, Timestamp};
use lowwater_observe::live::{Live, LiveInsert, LivePartition, LiveSink, LiveSubtask, WatchedJob};
use lowwater_report::{wm, PartitionReport, ReplayInfo, SinkReport, Totals};

use crate::watch::Watcher;

/// Where the view comes from, for its `watched` entry.
#[derive(Debug, Clone)]
pub struct Origin {
    /// Flink's REST address.
    pub url: String,
    /// Job id.
    pub job_id: String,
    /// Job name.
    pub job_name: String,
    /// The poll interval.
    pub poll_interval_ms: Millis,
    /// REST requests the last poll made.
    pub requests_per_poll: u64,
}

/// The live view of a watched job.
pub fn live(w: &Watcher, origin: &Origin, now: Timestamp) -> Live {
    let parts = w.parts();
    let mut partitions = Vec::new();
    for (i, (s, silent_ms, at_least)) in parts.splits.iter().enumerate() {
        let x = s.sample();
        let holding =
            parts.holders.iter().zip(parts.pipes).any(|(h, p)| {
                p.source() == x.table && h.is_some_and(|h| h.split == Some(i as u32))
            });
        partitions.push(LivePartition {
            report: PartitionReport {
                table: x.table.clone(),
                topic: x.topic.clone(),
                partition: x.partition,
                subtask: x.subtask,
                records: s.records(),
                late_records_dropped: 0,
                late_records_routed: 0,
                records_skipped: 0,
                fields_nulled: 0,
                future_records: 0,
                paused_ms: 0,
                late_join_rows: 0,
                final_watermark: x.watermark.and_then(wm),
                idle: s.idle(),
                last_event_time: None,
                last_arrival: s.last_change(),
            },
            watermark: x.watermark.and_then(wm),
            silent_ms: *silent_ms,
            silent_at_least: *at_least,
            consumer_lag: None,
            holding,
            paused: false,
            implausible_time: false,
        });
    }
    let sinks = parts
        .pipes
        .iter()
        .map(|p| LiveSink {
            report: SinkReport {
                table: p.sink().to_string(),
                rows: p.rows(),
                window_rows: p.rows(),
                late_rows: 0,
                max_emission_lag_ms: None,
                early_rows: 0,
                emission_lag_breaches: 0,
            },
            // The poll at which its writers' count last grew.
            last_emit: p.last_emit(),
            last_emission_lag_ms: None,
            freshness_ms: now - p.last_emit().unwrap_or(parts.started),
            max_emission_lag_slo_ms: None,
            max_staleness_slo_ms: None,
            emission_lag_breaches: 0,
            stale: false,
            jdbc: None,
        })
        .collect();
    let inserts = parts
        .pipes
        .iter()
        .zip(&parts.current)
        .map(|(p, c)| LiveInsert {
            sink: p.sink().to_string(),
            source: p.sources().join(" JOIN "),
            watermark: wm(p.watermark()),
            stall: c.clone(),
            recurring: None,
            open_windows: 0,
            state_bytes: 0,
        })
        .collect();
    let mut subtasks = Vec::new();
    let mut tables: Vec<&str> = parts
        .pipes
        .iter()
        .flat_map(|p| p.sources().iter().map(String::as_str))
        .collect();
    tables.sort_unstable();
    tables.dedup();
    for t in tables {
        for (i, (w, idle)) in w.subtasks(t) {
            subtasks.push(LiveSubtask {
                operator: format!("source:{t}"),
                subtask: i,
                input_watermark: None,
                output_watermark: w.and_then(wm),
                idle: Some(idle),
            });
        }
    }
    for p in parts.pipes {
        subtasks.push(LiveSubtask {
            operator: format!("window:{}", p.sink()),
            subtask: 0,
            input_watermark: wm(p.watermark()),
            output_watermark: wm(p.watermark()),
            idle: None,
        });
    }
    let mut stalls = parts.past.to_vec();
    stalls.extend(parts.current.iter().flatten().cloned());
    let records_in = partitions.iter().map(|p| p.report.records).sum();
    Live {
        totals: Totals {
            records_in,
            records_out: parts.pipes.iter().map(|p| p.rows()).sum(),
            late_records_dropped: parts.pipes.iter().map(|p| p.late_dropped()).sum(),
            late_records_routed: 0,
            records_skipped: 0,
            fields_nulled: 0,
            records_filtered: 0,
            future_records: 0,
        },
        partitions,
        sinks,
        stalls,
        recurring_holds: Vec::new(),
        replay: ReplayInfo {
            start_ts: parts.started,
            end_ts: now,
            emit_interval_ms: parts.settings.emit_interval,
            parallelism: parts.parallelism,
            stall_threshold_ms: parts.threshold,
            drained: false,
        },
        now,
        inserts,
        joins: Vec::new(),
        subtasks,
        history: parts.history.points(),
        checkpoints: Default::default(),
        implausible_times: Vec::new(),
        watched: Some(WatchedJob {
            engine: "flink".into(),
            url: origin.url.clone(),
            job_id: origin.job_id.clone(),
            job_name: origin.job_name.clone(),
            state: w.state().to_string(),
            poll_interval_ms: origin.poll_interval_ms,
            last_poll: parts.last_poll,
            requests_per_poll: origin.requests_per_poll,
            note: format!(
                "read from Flink's REST API every {}; Flink refreshes its metrics every 10 s \
                 (metrics.fetcher.update-interval), so a value can be that much older",
                lowwater_core::time::display_duration(origin.poll_interval_ms)
            ),
        }),
    }
}

/// A watched job for the HTTP server: the watcher behind a lock, read
/// when a client asks.
pub struct Shared {
    /// The watcher, updated by the polling loop.
    pub watcher: Mutex<Watcher>,
    /// Where it reads (and the last poll's cost).
    pub origin: Mutex<Origin>,
    /// The clock of `now` (the system clock, or a test's).
    pub clock: Arc<dyn lowwater_core::clock::Clock + Send + Sync>,
    /// Set when the watch ends.
    pub stopped: std::sync::atomic::AtomicBool,
    /// Set while Flink does not answer (what is served is old).
    pub stale: std::sync::atomic::AtomicBool,
}

impl lowwater_observe::http::LiveView for Shared {
    fn live(&self) -> Live {
        let now = self.clock.now();
        let origin = match self.origin.lock() {
            Ok(o) => o.clone(),
            Err(p) => p.into_inner().clone(),
        };
        match self.watcher.lock() {
            Ok(w) => live(&w, &origin, now),
            Err(p) => live(&p.into_inner(), &origin, now),
        }
    }

    fn ready(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        !self.stopped.load(Relaxed) && !self.stale.load(Relaxed)
    }
}
