//! The live stall detector: watches each pipeline's watermark on the system
//! clock and, when it has not advanced for longer than the threshold while
//! records keep arriving, logs one WARN naming the partition and subtask that
//! hold it (the same words as the replay report), and one INFO when it moves
//! again.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use lowwater_core::diagnose::{Holder, Stall, StallDetector};
use lowwater_core::time::display_duration;
use lowwater_core::{Millis, Timestamp, MAX_WATERMARK, MIN_WATERMARK};
use lowwater_report::{build_stall_report, StallReport};
use lowwater_sql::plan::JobPlan;

#[path = "recurring.rs"]
mod recurring;

use crate::shared::Shared;

pub(crate) struct Monitor {
    plan: Arc<JobPlan>,
    shared: Arc<Shared>,
    threshold: Millis,
    pipes: Vec<PipeWatch>,
    /// Per sink (in `Shared::sinks` order): whether it is stale, the
    /// emission-lag breaches already reported, and when the last WARN about
    /// them was logged.
    slo: Vec<SloWatch>,
    next_history: Timestamp,
    /// Per source table: whether it reads (for the silent-reader WARN).
    reading: Vec<crate::silence::Reading>,
    /// The joins' watches.
    joins: crate::join_watch::JoinWatches,
    /// Splits already warned about for implausibly old event times, and
    /// when they are looked at next (once a second, not every tick: each
    /// look copies every source subtask's view).
    implausible: std::collections::BTreeSet<lowwater_core::source::SplitId>,
    next_times: Timestamp,
}

/// What [`Monitor::flight_look`] sees: per INSERT what the recorder is
/// shown of it, and per split its place and idleness.
type FlightLook = (
    Vec<(usize, crate::flight::InsertSeen)>,
    Vec<(usize, crate::flight::Place, bool)>,
);

#[derive(Default, Clone)]
struct SloWatch {
    stale: bool,
    breaches: u64,
    warned_at: Option<Timestamp>,
}

struct PipeWatch {
    detector: StallDetector,
    watermark: Timestamp,
    records: u64,
    stalls: Vec<StallReport>,
    open_reason: Option<String>,
    /// Recurring holds (see the `recurring` module).
    holds: recurring::HoldWatch,
}

impl Monitor {
    pub fn new(plan: Arc<JobPlan>, shared: Arc<Shared>, threshold: Millis) -> Self {
        let pipes = plan
            .pipelines
            .iter()
            .enumerate()
            .map(|(pi, _)| PipeWatch {
                detector: StallDetector::new(threshold, shared.start, MIN_WATERMARK),
                watermark: MIN_WATERMARK,
                records: 0,
                stalls: Vec::new(),
                open_reason: None,
                holds: recurring::HoldWatch::new(&plan, pi, (threshold, shared.start)),
            })
            .collect();
        let slo = vec![SloWatch::default(); shared.sink_counters.len()];
        let next_history = shared.start;
        let reading = shared
            .sources
            .iter()
            .map(|_| crate::silence::Reading::new(shared.start))
            .collect();
        Monitor {
            implausible: Default::default(),
            next_times: shared.start,
            joins: crate::join_watch::JoinWatches::new(&plan, &shared, threshold),
            reading,
            plan,
            shared,
            threshold,
            pipes,
            slo,
            next_history,
        }
    }

    fn source_index(&self, pi: usize) -> usize {
        crate::report::source_index(&self.plan, &self.shared, pi)
    }

    /// The live holder of pipeline `pi`'s watermark: the active source subtask
    /// with the lowest watermark, and its active split with the lowest.
    fn holder(&self, pi: usize, now: Timestamp) -> Option<Holder> {
        self.holding(pi, now).map(|(h, _)| h)
    }

    /// [`Monitor::holder`] with the watermark of the subtask it holds.
    fn holding(&self, pi: usize, now: Timestamp) -> Option<(Holder, Timestamp)> {
        let views = crate::report::views(&self.shared);
        crate::report::holder_of(&views[self.source_index(pi)], self.shared.start, now)
    }

    /// Explains pipeline `pi`'s open stall by who holds it now.
    fn explain(&mut self, pi: usize, now: Timestamp) -> Option<Holder> {
        let (h, at) = self.holding(pi, now).unzip();
        self.pipes[pi]
            .detector
            .explain(h, at.unwrap_or(MIN_WATERMARK));
        self.pipes[pi].detector.current().and_then(|s| s.held_by)
    }

    fn report(&self, pi: usize, s: &Stall, now: Timestamp) -> StallReport {
        let source = self.plan.pipelines[pi].source;
        let splits = self.shared.splits_now();
        let mut r = build_stall_report(
            &self.plan,
            pi,
            s,
            s.to.unwrap_or(now),
            self.threshold,
            splits.iter().filter(|m| m.table == source).count(),
            |id| {
                let m = splits.get(id as usize)?;
                Some((m.topic.clone(), m.partition))
            },
        );
        // Watermark alignment: partitions that wait for the holder.
        let views = crate::report::views(&self.shared);
        let paused: Vec<String> = views[self.source_index(pi)]
            .iter()
            .flat_map(|v| v.paused.iter())
            .filter(|(_, p)| p.0)
            .filter_map(|(id, _)| splits.get(*id as usize))
            .map(|m| format!("{}/{}", m.topic, m.partition))
            .collect();
        if !paused.is_empty() && s.to.is_none() {
            let waits = match &r.held_by {
                Some(h) if h.partition.is_some() => format!(
                    "partition {} of {}",
                    h.partition.unwrap_or_default(),
                    h.topic.as_deref().unwrap_or_default()
                ),
                _ => "the slowest partition".to_string(),
            };
            r.reason.push_str(&format!(
                "; watermark alignment pauses {} (ahead of their group), waiting for {waits}",
                paused.join(", ")
            ));
        }
        r
    }

    pub fn tick(&mut self, now: Timestamp) {
        for pi in 0..self.pipes.len() {
            // A window after a join stalls with the join, which reports it
            // (naming the side and partition that hold both).
            if self.plan.pipelines[pi].reads_join() {
                continue;
            }
            let wm = self.shared.windows[pi]
                .iter()
                .map(|w| w.load(Ordering::Relaxed))
                .min()
                .unwrap_or(MIN_WATERMARK);
            let records = self.shared.sources[self.source_index(pi)]
                .records
                .load(Ordering::Relaxed);
            // MAX is the end-of-input drain, not the watermark moving on: a
            // stall still open then ends unresolved (see `finish`).
            if wm > self.pipes[pi].watermark && wm != MAX_WATERMARK {
                self.pipes[pi].watermark = wm;
                if let Some(s) = self.pipes[pi].detector.on_advance(now, wm) {
                    let r = self.report(pi, &s, now);
                    tracing::info!("{}", lowwater_report::resolved_line(&r, wm));
                    self.pipes[pi].stalls.push(r);
                    self.pipes[pi].open_reason = None;
                }
            }
            self.meter(pi, now, wm, records);
            if records > self.pipes[pi].records {
                self.pipes[pi].records = records;
                if let Some(s) = self.pipes[pi].detector.on_record(now) {
                    let h = self.explain(pi, now).or_else(|| self.holder(pi, now));
                    let r = self.report(pi, &Stall { held_by: h, ..s }, now);
                    tracing::warn!("{}", lowwater_report::stalled_line(&r, now));
                    self.pipes[pi].open_reason = Some(r.reason);
                } else if self.pipes[pi].detector.current().is_some() {
                    self.explain(pi, now);
                }
            }
        }
        self.joins.tick(&self.plan, &self.shared, now);
        if now >= self.next_times {
            self.next_times = now + 1_000;
            self.check_times();
        }
        self.check_slos(now);
        self.check_reading(now);
        self.publish(now);
    }

    /// One WARN per partition whose newest event time is decades behind
    /// its records' arrival (a producer writing seconds): its watermark
    /// moves, in 1970, so no stall would ever name it.
    fn check_times(&mut self) {
        let splits = self.shared.splits_now();
        for (si, views) in crate::report::views(&self.shared).iter().enumerate() {
            let table = &self.plan.tables[self.shared.sources[si].table].name;
            for split in views.iter().flat_map(|v| v.splits.iter()) {
                let (Some(ev), Some(at)) = (split.max_event_time, split.last_arrival) else {
                    continue;
                };
                if self.implausible.contains(&split.id) {
                    continue;
                }
                let Some(m) = splits.get(split.id as usize) else {
                    continue;
                };
                let place = (table.as_str(), m.topic.as_str(), m.partition);
                if let Some(line) =
                    lowwater_report::implausible_time(place, "newest event time", ev, at)
                {
                    self.implausible.insert(split.id);
                    tracing::warn!("{line}");
                    // Shown, and held as unhealthy, while the job runs.
                    if let Ok(mut live) = self.shared.live.lock() {
                        live.implausible.insert(split.id, line);
                    }
                }
            }
        }
    }

    /// Each Kafka source: one WARN when it has read nothing for longer than
    /// the threshold while the brokers report records it has not read.
    fn check_reading(&mut self, now: Timestamp) {
        use crate::silence::Verdict;
        for (si, src) in self.shared.sources.iter().enumerate() {
            let records = src.records.load(Ordering::Relaxed);
            // The backlog is gathered only when the source has been silent
            // for long enough to matter, not on every tick.
            let mut waiting = Vec::new();
            let shared = &self.shared;
            let verdict = self.reading[si].look(now, records, self.threshold, || {
                waiting = backlog_of(shared, si);
                waiting.iter().map(|(_, n)| n).sum()
            });
            let table = &self.plan.tables[src.table].name;
            match verdict {
                Verdict::Stuck { silent, behind } => tracing::warn!(
                    "source '{table}' has read no record for {} while the brokers report {behind} \
                     records it has not read ({}): it is not reading; see the Kafka WARNs above \
                     (brokers, the group coordinator, fetch errors, a quota)",
                    display_duration(silent),
                    waiting
                        .iter()
                        .map(|(p, n)| format!("{p}: {n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Verdict::Resumed => tracing::info!("source '{table}' reads records again"),
                Verdict::Quiet => {}
            }
        }
    }

    /// The sinks' SLOs: a sink that emitted nothing for longer than its
    /// `lowwater.sink.max-staleness` is stale (one WARN, one INFO when it
    /// emits again); window rows later than `lowwater.sink.max-emission-lag`
    /// are counted and reported at most every 10 s. Each WARN says what
    /// holds the watermark when a stall explains it.
    fn check_slos(&mut self, now: Timestamp) {
        for (i, (&t, w)) in self.shared.sink_counters.iter().enumerate() {
            let Ok(w) = w.lock() else {
                continue;
            };
            let (last_emit, breaches) = (w.last_emit, w.lag_breaches);
            drop(w);
            let table = &self.plan.tables[t];
            let max_lag = table.max_emission_lag;
            let why = || {
                let pi = self.plan.pipelines.iter().position(|p| p.sink == t);
                if let Some(r) = pi.and_then(|pi| self.pipes[pi].open_reason.clone()) {
                    return format!("; the watermark is stalled: {r}");
                }
                if let Some(h) = pi.and_then(|pi| self.pipes[pi].holds.open()) {
                    return format!("; {}", h.reason);
                }
                // No stall or recurring hold now: what the job itself allows.
                let delay = pi
                    .and_then(|pi| self.plan.tables[self.plan.pipelines[pi].source].watermark)
                    .map_or(0, |w| w.delay);
                let floor = delay + self.plan.settings.emit_interval;
                match max_lag {
                    Some(max) if floor > max => format!(
                        "; no stall explains it: a window's row leaves at least the watermark \
                         delay ({}) and up to a watermark interval ({}) after its end, more \
                         than this SLO allows",
                        display_duration(delay),
                        display_duration(self.plan.settings.emit_interval)
                    ),
                    _ => "; no stall or recurring hold explains it now: the rows' windows \
                          waited before (the API's stall history), or their records came late \
                          to the job (consumer lag)"
                        .to_string(),
                }
            };
            if let Some(max) = table.max_staleness {
                let quiet = now - last_emit.unwrap_or(self.shared.start);
                let stale = quiet > max;
                if stale && !self.slo[i].stale {
                    tracing::warn!(
                        "sink {} is stale: no row for {} (lowwater.sink.max-staleness {}){}",
                        table.name,
                        display_duration(quiet),
                        display_duration(max),
                        why()
                    );
                } else if !stale && self.slo[i].stale {
                    tracing::info!("sink {} emits again (within its max-staleness)", table.name);
                }
                self.slo[i].stale = stale;
            }
            if let Some(max) = max_lag {
                let new = breaches - self.slo[i].breaches;
                let due = self.slo[i].warned_at.is_none_or(|at| now - at >= 10_000);
                if new > 0 && due {
                    tracing::warn!(
                        "sink {}: {new} window rows emitted more than {} after their window ended \
                         (lowwater.sink.max-emission-lag; {breaches} in all){}",
                        table.name,
                        display_duration(max),
                        why()
                    );
                    self.slo[i].breaches = breaches;
                    self.slo[i].warned_at = Some(now);
                }
            }
        }
    }

    /// Publishes holders, open stalls, stall history and the chart's
    /// history for the HTTP endpoints.
    fn publish(&mut self, now: Timestamp) {
        let mut current: Vec<Option<StallReport>> = (0..self.pipes.len())
            .map(|pi| {
                let s = self.pipes[pi].detector.current()?;
                let s = Stall {
                    held_by: s.held_by.or_else(|| self.holder(pi, now)),
                    ..s
                };
                Some(self.report(pi, &s, now))
            })
            .collect();
        // The joins' after the INSERTs' (`crate::observe` reads them so).
        current.extend(self.joins.current(&self.plan, &self.shared, now));
        let point = (now >= self.next_history).then(|| {
            self.next_history = now + 1_000;
            lowwater_observe::live::HistoryPoint {
                t: now,
                watermarks: self
                    .pipes
                    .iter()
                    .map(|p| (p.watermark != MIN_WATERMARK).then_some(p.watermark))
                    .collect(),
                emission_lag_ms: self
                    .shared
                    .sink_counters
                    .values()
                    .map(|w| w.lock().ok().and_then(|w| w.last_lag))
                    .collect(),
            }
        });
        let stale: Vec<bool> = self.slo.iter().map(|s| s.stale).collect();
        let recurring = self.recurring();
        // The flight recorder looks once a second.
        let flight = point.is_some().then(|| self.flight_look(now));
        if let Ok(mut live) = self.shared.live.lock() {
            if let Some((inserts, flips)) = &flight {
                // Flips first: a partition going idle is why a hold ends.
                for (id, place, idle) in flips {
                    live.flight.partition(*id, place, *idle, now);
                }
                for (pi, seen) in inserts {
                    live.flight.insert(*pi, seen, now);
                }
            }
            live.current = current;
            live.past = self.stalls();
            live.recurring = recurring;
            live.stale = stale;
            if let Some(p) = point {
                live.push_history(p);
            }
        }
    }

    /// What the flight recorder is shown of every INSERT (its sink, its
    /// watermark, the partition holding it, a quarter window, its stall's
    /// reason) and every partition's idleness.
    fn flight_look(&self, now: Timestamp) -> FlightLook {
        use crate::flight::{InsertSeen, Place};
        // One copy of the split table and of every subtask's view, for the
        // holders and the flips alike.
        let splits = self.shared.splits_now();
        let views = crate::report::views(&self.shared);
        let place = |id: lowwater_core::source::SplitId, subtask: usize| {
            let m = splits.get(id as usize)?;
            Some(Place {
                table: self.plan.tables[m.table].name.clone(),
                topic: m.topic.clone(),
                partition: m.partition,
                subtask,
            })
        };
        let mut inserts = Vec::new();
        for (pi, pl) in self.plan.pipelines.iter().enumerate() {
            if pl.reads_join() {
                continue;
            }
            let holder =
                crate::report::holder_of(&views[self.source_index(pi)], self.shared.start, now)
                    .and_then(|(h, _)| place(h.split?, h.subtask));
            let seen = InsertSeen {
                insert: self.plan.tables[pl.sink].name.clone(),
                watermark: self.pipes[pi].watermark,
                holder,
                hold_after: lowwater_sql::explain::window_pace(&pl.window.assigner) / 4,
                stall: self.pipes[pi].open_reason.clone(),
            };
            inserts.push((pi, seen));
        }
        let mut flips = Vec::new();
        for s in views.iter().flatten().flat_map(|v| v.splits.iter()) {
            let subtask = splits.get(s.id as usize).map_or(0, |m| m.subtask);
            if let Some(p) = place(s.id, subtask) {
                flips.push((s.id as usize, p, s.idle));
            }
        }
        (inserts, flips)
    }

    /// Closes open stalls (they end with the run).
    pub fn finish(&mut self, now: Timestamp) {
        for pi in 0..self.pipes.len() {
            if let Some(s) = self.pipes[pi].detector.finish() {
                let r = self.report(pi, &s, now);
                self.pipes[pi].stalls.push(r);
            }
            self.finish_holds(pi, now);
        }
        self.joins.finish(&self.plan, &self.shared, now);
    }

    pub fn stalls(&self) -> Vec<StallReport> {
        let windows = self.pipes.iter().flat_map(|p| p.stalls.iter());
        windows.chain(self.joins.stalls()).cloned().collect()
    }
}

/// Source `si`'s Kafka partitions that are behind, named, with how many
/// records the brokers report they have not read.
fn backlog_of(shared: &Shared, si: usize) -> Vec<(String, u64)> {
    let splits = shared.splits_now();
    let mut out = Vec::new();
    for v in &shared.sources[si].subtasks {
        let Ok(v) = v.lock() else {
            continue;
        };
        for (id, b) in &v.backlog {
            if let lowwater_kafka::Backlog::Behind(n) = b {
                let name = splits.get(*id as usize).map_or_else(String::new, |m| {
                    format!("{} partition {}", m.topic, m.partition)
                });
                out.push((name, (*n).max(0) as u64));
            }
        }
    }
    out
}
