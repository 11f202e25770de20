//! The live stall detector of joins: watches each join's watermark (the
//! lowest of its subtasks') on the system clock and, when it has not
//! advanced for longer than the threshold while records of either side keep
//! arriving, logs one WARN naming the side, table, partition and subtask
//! that hold it and the rows waiting (the words of the replay report), and
//! one INFO when it moves again.

use std::sync::atomic::Ordering;

use lowwater_core::diagnose::{Holder, Stall, StallDetector};
use lowwater_core::{Millis, Timestamp, MAX_WATERMARK, MIN_WATERMARK};
use lowwater_report::{join_stall_report, StallReport};
use lowwater_sql::plan::JobPlan;

use crate::joins::{joins, JoinRef};
use crate::shared::Shared;

/// One join's watch.
struct JoinWatch {
    which: JoinRef,
    detector: StallDetector,
    watermark: Timestamp,
    records: u64,
    /// The port that held it, as last explained.
    port: Option<usize>,
    stalls: Vec<StallReport>,
}

/// Every join's watch.
pub(crate) struct JoinWatches {
    threshold: Millis,
    watches: Vec<JoinWatch>,
}

impl JoinWatches {
    pub fn new(plan: &JobPlan, shared: &Shared, threshold: Millis) -> Self {
        let watches = joins(plan)
            .into_iter()
            .map(|which| JoinWatch {
                which,
                detector: StallDetector::new(threshold, shared.start, MIN_WATERMARK),
                watermark: MIN_WATERMARK,
                records: 0,
                port: None,
                stalls: Vec::new(),
            })
            .collect();
        JoinWatches { threshold, watches }
    }

    /// The source index of table `t`.
    fn source_of(shared: &Shared, t: usize) -> Option<usize> {
        shared.sources.iter().position(|s| s.table == t)
    }

    /// What holds join `j` now: the side its gate names, and in that side's
    /// source the subtask and partition with the lowest watermark.
    fn holding(
        &self,
        plan: &JobPlan,
        shared: &Shared,
        j: usize,
        now: Timestamp,
    ) -> Option<(usize, Holder, Timestamp)> {
        let hold = shared.joins[j].hold()?;
        let table = self.watches[j].which.sides(plan).table(hold.port);
        let si = Self::source_of(shared, table)?;
        let views = crate::report::views(shared);
        let (h, _) = crate::report::holder_of(&views[si], shared.start, now)?;
        Some((hold.port, h, hold.watermark))
    }

    fn report(
        &self,
        plan: &JobPlan,
        shared: &Shared,
        j: usize,
        s: &Stall,
        now: Timestamp,
    ) -> StallReport {
        let splits = shared.splits_now();
        let w = &self.watches[j];
        let sides = w.which.sides(plan);
        join_stall_report(
            plan,
            &sides,
            (s, w.port, shared.joins[j].waiting()),
            s.to.unwrap_or(now),
            self.threshold,
            |id| {
                let m = splits.get(id as usize)?;
                Some((m.table, m.topic.clone(), m.partition))
            },
            |t| splits.iter().filter(|m| m.table == t).count(),
        )
    }

    /// Explains join `j`'s open stall by what holds it now.
    fn explain(&mut self, plan: &JobPlan, shared: &Shared, j: usize, now: Timestamp) {
        let held = self.holding(plan, shared, j, now);
        let w = &mut self.watches[j];
        w.port = held.map(|(port, ..)| port);
        let (h, at) = held.map(|(_, h, at)| (h, at)).unzip();
        w.detector.explain(h, at.unwrap_or(MIN_WATERMARK));
    }

    pub fn tick(&mut self, plan: &JobPlan, shared: &Shared, now: Timestamp) {
        for j in 0..self.watches.len() {
            let wm = shared.joins[j].watermark();
            let sides = self.watches[j].which.sides(plan);
            let records: u64 = [sides.first.0, sides.second.0]
                .iter()
                .filter_map(|&t| Self::source_of(shared, t))
                .map(|si| shared.sources[si].records.load(Ordering::Relaxed))
                .sum();
            let w = &mut self.watches[j];
            // MAX is the end-of-input drain: a stall still open then ends
            // unresolved (see `finish`).
            if wm > w.watermark && wm != MAX_WATERMARK {
                w.watermark = wm;
                if let Some(s) = w.detector.on_advance(now, wm) {
                    let r = self.report(plan, shared, j, &s, now);
                    tracing::info!("{}", lowwater_report::resolved_line(&r, wm));
                    self.watches[j].stalls.push(r);
                }
            }
            let w = &mut self.watches[j];
            if records > w.records {
                w.records = records;
                if let Some(s) = w.detector.on_record(now) {
                    self.explain(plan, shared, j, now);
                    let held_by = self.watches[j].detector.current().and_then(|c| c.held_by);
                    let r = self.report(plan, shared, j, &Stall { held_by, ..s }, now);
                    tracing::warn!("{}", lowwater_report::stalled_line(&r, now));
                } else if w.detector.current().is_some() {
                    self.explain(plan, shared, j, now);
                }
            }
        }
    }

    /// The open stalls, one per join (`None`: none).
    pub fn current(
        &self,
        plan: &JobPlan,
        shared: &Shared,
        now: Timestamp,
    ) -> Vec<Option<StallReport>> {
        (0..self.watches.len())
            .map(|j| {
                let s = self.watches[j].detector.current()?;
                Some(self.report(plan, shared, j, &s, now))
            })
            .collect()
    }

    /// Closes open stalls (they end with the run).
    pub fn finish(&mut self, plan: &JobPlan, shared: &Shared, now: Timestamp) {
        for j in 0..self.watches.len() {
            if let Some(s) = self.watches[j].detector.finish() {
                let r = self.report(plan, shared, j, &s, now);
                self.watches[j].stalls.push(r);
            }
        }
    }

    /// Every ended stall.
    pub fn stalls(&self) -> impl Iterator<Item = &StallReport> {
        self.watches.iter().flat_map(|w| w.stalls.iter())
    }
}

/// At start: a partition of a temporal join's versioned table that holds
/// no record at all, read from Kafka without an idle-timeout, holds every
/// joined row at MIN until a record reaches it (a compacted topic with
/// fewer keys than partitions, rates that change once a day). One WARN per
/// table, before any stall could be seen, with the setting that releases
/// it. `dumped`: tables read from `--input` dumps instead.
pub(crate) fn warn_empty_versioned(plan: &JobPlan, dumped: &std::collections::BTreeSet<usize>) {
    let mut warned: Vec<usize> = Vec::new();
    for j in &plan.joins {
        let t = j.build;
        let table = &plan.tables[t];
        let lowwater_sql::options::Connector::Kafka { properties, .. } = &table.connector else {
            continue;
        };
        let idle = table
            .strategy(&plan.settings)
            .and_then(|s| s.idle_timeout)
            .is_some_and(|t| t > 0);
        if idle || dumped.contains(&t) || warned.contains(&t) {
            continue;
        }
        warned.push(t);
        for topic in table.topics() {
            match lowwater_kafka::empty_partitions(properties, &topic) {
                Ok(empty) if !empty.is_empty() => {
                    let list: Vec<String> = empty.iter().map(i32::to_string).collect();
                    tracing::warn!(
                        "table {}, the versioned side of the temporal join into {}: partition(s) \
                         {} of {topic} hold no record, and idle-timeout is disabled: each holds \
                         the join's watermark at MIN until a record reaches it, so no joined row \
                         is written while the probe rows wait in state. SET \
                         'scan.watermark.idle-timeout' on table {} (the trade: a probe row may \
                         be joined before a late version of its time arrives)",
                        table.name,
                        plan.tables[j.sink].name,
                        list.join(", "),
                        table.name
                    );
                }
                Ok(_) => {}
                // The source reports an unreachable broker itself.
                Err(e) => tracing::debug!("checking {topic} for empty partitions: {e}"),
            }
        }
    }
}
