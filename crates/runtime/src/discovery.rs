//! Partition discovery (`scan.topic-partition-discovery.interval`): a
//! thread that looks for partitions added to a Kafka source's topics and
//! hands each new one to the source subtask Flink's formula assigns it to.
//! The partition travels as a message to the subtask's mailbox
//! (`crate::mailbox`); the subtask starts reading it from its earliest
//! offset at its next periodic emit; until the partition has records (or
//! goes idle) its watermark holds the subtask, as in Flink.

use std::time::Duration;

use lowwater_core::assignment::split_owner;
use lowwater_core::clock::Clock;
use lowwater_core::source::SplitId;
use lowwater_core::Timestamp;
use lowwater_sql::options::Connector;
use lowwater_sql::plan::JobPlan;

use crate::error::RunError;
use crate::mailbox::{Control, Link, NewSplit};
use crate::shared::{Shared, SplitMeta};

/// One source table whose partitions are looked for.
pub(crate) struct Watched {
    /// Index into `Shared::sources`.
    pub source: usize,
    /// Table index.
    pub table: usize,
    /// Interval between lookups.
    pub every: i64,
}

/// Runs until its mailbox says the job stops (or failed), sleeping on it
/// until the next lookup is due.
pub(crate) fn run(plan: &JobPlan, shared: &Shared, watched: &[Watched], mut link: Link) {
    let mut next: Vec<Timestamp> = watched.iter().map(|w| shared.start + w.every).collect();
    loop {
        let now = shared.clock.now();
        for (w, due) in watched.iter().zip(next.iter_mut()) {
            if now < *due {
                continue;
            }
            *due = now + w.every;
            look(plan, shared, w);
        }
        let wake = next.iter().min().copied().unwrap_or(now + 1_000);
        let wait = wake.saturating_sub(shared.clock.now()).clamp(1, 1_000);
        link.wait(Duration::from_millis(wait as u64));
        if link.stopped() {
            return;
        }
    }
}

fn look(plan: &JobPlan, shared: &Shared, w: &Watched) {
    let table = &plan.tables[w.table];
    let Connector::Kafka {
        topics, properties, ..
    } = &table.connector
    else {
        return;
    };
    for topic in topics {
        let found = match lowwater_kafka::partitions(properties, topic) {
            Ok(ps) => ps,
            Err(e) => {
                tracing::warn!(
                    "source '{}': partition discovery could not list topic '{topic}' ({e}); \
                     it tries again in {} ms",
                    table.name,
                    w.every
                );
                continue;
            }
        };
        let Ok(mut splits) = shared.splits.write() else {
            return;
        };
        for p in found {
            if splits
                .iter()
                .any(|m| m.table == w.table && m.partition == p && m.topic == *topic)
            {
                continue;
            }
            let subtask = match split_owner(topic, p, plan.settings.parallelism) {
                Ok(s) => s,
                Err(e) => {
                    shared.fail(RunError::Usage(e.to_string()));
                    return;
                }
            };
            let id = splits.len() as SplitId;
            splits.push(SplitMeta {
                table: w.table,
                topic: topic.clone(),
                partition: p,
                subtask,
            });
            let found = NewSplit {
                id,
                topic: topic.clone(),
                partition: p,
            };
            if let Some(post) = shared.post() {
                post.to_source(w.source, subtask, Control::Split(found));
            }
        }
    }
}

/// The source tables to watch: Kafka tables read from the broker without
/// an end (a bounded read covers the partitions it started with, as in
/// Flink), with discovery on.
pub(crate) fn watched(
    plan: &JobPlan,
    sources: &[usize],
    dumps: &std::collections::BTreeMap<usize, std::path::PathBuf>,
) -> Vec<Watched> {
    sources
        .iter()
        .enumerate()
        .filter_map(|(si, &t)| {
            let table = &plan.tables[t];
            let bounded = table
                .options
                .get("scan.bounded.mode")
                .is_some_and(|m| m == "latest-offset");
            match (&table.connector, table.discovery_interval) {
                (Connector::Kafka { .. }, Some(every)) if !bounded && !dumps.contains_key(&t) => {
                    Some(Watched {
                        source: si,
                        table: t,
                        every,
                    })
                }
                _ => None,
            }
        })
        .collect()
}
