//! [`PartitionReader`]: the consumer of one source subtask's partitions.
//! It assigns them itself (no group rebalancing), hands out records with
//! their place, tracks what it handed out, and, from librdkafka's
//! statistics ([`Stats`]), how far each partition is from its end
//! ([`Backlog`], what lag-aware idleness decides on).

use std::collections::BTreeMap;
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, ConsumerContext};
use rdkafka::statistics::Statistics;
use rdkafka::{Message, Offset, TopicPartitionList};

use crate::config::{config, REQUEST_TIMEOUT};

/// One record read from Kafka.
#[derive(Debug, Clone)]
pub struct KafkaRecord {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Offset.
    pub offset: i64,
    /// The record timestamp (create or log-append time), if any.
    pub timestamp: Option<i64>,
    /// The value (`None`: tombstone), as the broker stored it: the caller
    /// reports invalid UTF-8 with the record's place (nothing is replaced).
    pub payload: Option<Vec<u8>>,
}

/// What librdkafka's statistics say about one partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FetchState {
    /// When these statistics arrived.
    at: std::time::Instant,
    /// Whether the partition is being fetched from a known leader (not
    /// stopped, resolving its offset, or waiting for a leader).
    fetching: bool,
    /// The next offset the fetcher will ask for.
    next_offset: i64,
    /// The end a consumer can read to: the last stable offset under
    /// `read_committed` (librdkafka's default), else the high watermark.
    end: i64,
    /// Records the fetcher received from the partition so far.
    received: u64,
}

/// Collects the consumer's statistics (per-partition fetch positions and
/// end offsets), delivered by librdkafka every `statistics.interval.ms`
/// from inside `poll`.
#[derive(Default)]
struct Stats {
    read_committed: bool,
    /// `statistics.interval.ms`: statistics older than a few intervals are
    /// not trusted.
    interval_ms: u64,
    partitions: std::sync::Mutex<BTreeMap<(String, i32), FetchState>>,
}

impl rdkafka::ClientContext for Stats {
    fn stats(&self, statistics: Statistics) {
        let Ok(mut map) = self.partitions.lock() else {
            return;
        };
        for (name, topic) in &statistics.topics {
            for (&p, s) in &topic.partitions {
                // -1 is librdkafka's internal "unassigned" partition.
                if p < 0 {
                    continue;
                }
                let end = if self.read_committed && s.ls_offset >= 0 {
                    s.ls_offset
                } else {
                    s.hi_offset
                };
                map.insert(
                    (name.clone(), p),
                    FetchState {
                        at: std::time::Instant::now(),
                        fetching: s.fetch_state == "active" && s.leader >= 0 && s.broker >= 0,
                        next_offset: s.next_offset,
                        end,
                        received: s.rxmsgs,
                    },
                );
            }
        }
    }
}

impl ConsumerContext for Stats {}

/// How far one partition's reader is from the end of the partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backlog {
    /// Not known yet (no statistics, or the broker has not answered a
    /// fetch): counts as behind.
    Unknown,
    /// Every record up to the partition's end offset was handed out.
    CaughtUp,
    /// At least this many offsets are still to be read.
    Behind(i64),
}

/// Per topic, per partition (looked up by a borrowed topic name).
type ByTopic<T> = BTreeMap<String, BTreeMap<i32, T>>;

/// The consumer of one source subtask's partitions.
pub struct PartitionReader {
    consumer: BaseConsumer<Stats>,
    commit: bool,
    /// Per topic and partition: records handed out and the next offset
    /// after the last one (for the backlog). Keyed by topic first so that
    /// a record's lookup borrows its topic instead of allocating.
    read: ByTopic<(u64, i64)>,
    /// With `scan.bounded.mode` = 'latest-offset': the end offset of each
    /// partition when the job started, and whether it was reached.
    ends: Option<ByTopic<(i64, bool)>>,
    last_error: Option<String>,
}

fn is_fatal(e: &rdkafka::error::KafkaError) -> bool {
    use rdkafka::error::KafkaError;
    use rdkafka::types::RDKafkaErrorCode as C;
    match e.rdkafka_error_code() {
        Some(
            C::Fatal
            | C::UnknownTopicOrPartition
            | C::TopicAuthorizationFailed
            | C::GroupAuthorizationFailed,
        ) => true,
        _ => matches!(e, KafkaError::ClientCreation(_)),
    }
}

impl PartitionReader {
    /// A consumer for `partitions` (topic, partition) of a source table with
    /// these `properties.*` and `scan.startup.mode` (and its
    /// `scan.startup.timestamp-millis` / `scan.startup.specific-offsets`).
    /// With `statistics`, librdkafka reports end offsets (every 500 ms unless
    /// `statistics.interval.ms` says otherwise) for [`Self::backlog`];
    /// without it, `backlog` stays unknown unless the properties turn
    /// statistics on themselves.
    pub fn new(
        properties: &BTreeMap<String, String>,
        options: &BTreeMap<String, String>,
        partitions: &[(String, i32)],
        statistics: bool,
    ) -> Result<Self, String> {
        let mut cfg = config(properties);
        let commit = properties.contains_key("group.id");
        if !commit {
            cfg.set("group.id", "lowwater");
        }
        cfg.set("enable.auto.commit", "false")
            .set("enable.partition.eof", "false");
        if statistics && !properties.contains_key("statistics.interval.ms") {
            // The per-partition end offsets behind `backlog` (and the
            // consumer lag) come with librdkafka's statistics.
            cfg.set("statistics.interval.ms", "500");
        }
        let interval_ms = properties
            .get("statistics.interval.ms")
            .and_then(|v| v.parse().ok())
            .unwrap_or(if statistics { 500 } else { 0 });
        let stats = Stats {
            interval_ms,
            read_committed: properties
                .get("isolation.level")
                .is_none_or(|l| l != "read_uncommitted"),
            ..Stats::default()
        };
        let consumer: BaseConsumer<Stats> = cfg
            .create_with_context(stats)
            .map_err(|e| format!("cannot create a Kafka consumer: {e}"))?;
        let mode = options
            .get("scan.startup.mode")
            .map(String::as_str)
            .unwrap_or("group-offsets");
        let mut tpl = TopicPartitionList::new();
        for (topic, p) in partitions {
            let offset = match mode {
                "earliest-offset" => Offset::Beginning,
                "latest-offset" => Offset::End,
                "specific-offsets" => specific(options, *p)?,
                "timestamp" => Offset::Beginning,
                _ => Offset::Stored,
            };
            tpl.add_partition_offset(topic, *p, offset)
                .map_err(|e| e.to_string())?;
        }
        if mode == "timestamp" {
            let ts: i64 = options
                .get("scan.startup.timestamp-millis")
                .and_then(|v| v.parse().ok())
                .ok_or("scan.startup.mode 'timestamp' needs 'scan.startup.timestamp-millis' (epoch ms)")?;
            let mut times = TopicPartitionList::new();
            for (topic, p) in partitions {
                times
                    .add_partition_offset(topic, *p, Offset::Offset(ts))
                    .map_err(|e| e.to_string())?;
            }
            tpl = consumer
                .offsets_for_times(times, REQUEST_TIMEOUT)
                .map_err(|e| format!("cannot look up offsets for timestamp {ts}: {e}"))?;
        }
        let ends = match options.get("scan.bounded.mode").map(String::as_str) {
            Some("latest-offset") => {
                let mut ends = BTreeMap::new();
                for (topic, p) in partitions {
                    let (low, high) = consumer
                        .fetch_watermarks(topic, *p, REQUEST_TIMEOUT)
                        .map_err(|e| format!("cannot read the end offset of {topic}/{p}: {e}"))?;
                    ends.entry(topic.clone())
                        .or_insert_with(BTreeMap::new)
                        .insert(*p, (high, high <= low));
                }
                Some(ends)
            }
            _ => None,
        };
        consumer
            .assign(&tpl)
            .map_err(|e| format!("cannot assign partitions: {e}"))?;
        Ok(PartitionReader {
            consumer,
            commit,
            read: BTreeMap::new(),
            ends,
            last_error: None,
        })
    }

    /// Starts reading partitions found while running (partition discovery)
    /// from their earliest offset, as Flink does for new partitions.
    pub fn add_partitions(&mut self, partitions: &[(String, i32)]) -> Result<(), String> {
        let mut tpl = TopicPartitionList::new();
        for (topic, p) in partitions {
            tpl.add_partition_offset(topic, *p, Offset::Beginning)
                .map_err(|e| e.to_string())?;
        }
        self.consumer
            .incremental_assign(&tpl)
            .map_err(|e| format!("cannot assign new partitions {partitions:?}: {e}"))
    }

    /// Whether a bounded reader has read `topic`/`partition` up to its end
    /// (always `false` for an unbounded one).
    pub fn finished(&self, topic: &str, partition: i32) -> bool {
        self.ends
            .as_ref()
            .and_then(|e| e.get(topic)?.get(&partition))
            .is_some_and(|(_, done)| *done)
    }

    /// Whether this reader stops at the end offsets it saw at the start.
    pub fn bounded(&self) -> bool {
        self.ends.is_some()
    }

    /// The next record, waiting at most `timeout`. A bounded reader drops
    /// records past a partition's end offset and marks the partition done.
    pub fn poll(&mut self, timeout: Duration) -> Result<Option<KafkaRecord>, String> {
        match self.consumer.poll(timeout) {
            None => Ok(None),
            // librdkafka reconnects by itself: a broker that went away is a
            // reason to wait, not to fail the job. Only fatal errors stop it.
            Some(Err(e)) if !is_fatal(&e) => {
                self.last_error = Some(e.to_string());
                Ok(None)
            }
            Some(Err(e)) => Err(format!("reading from Kafka failed: {e}")),
            Some(Ok(m)) => {
                if !self.read.contains_key(m.topic()) {
                    self.read.insert(m.topic().to_string(), BTreeMap::new());
                }
                if let Some(parts) = self.read.get_mut(m.topic()) {
                    let read = parts.entry(m.partition()).or_insert((0, 0));
                    read.0 += 1;
                    read.1 = m.offset() + 1;
                }
                if let Some(ends) = &mut self.ends {
                    if let Some((end, done)) = ends
                        .get_mut(m.topic())
                        .and_then(|e| e.get_mut(&m.partition()))
                    {
                        if *done || m.offset() >= *end {
                            *done = true;
                            return Ok(None);
                        }
                        if m.offset() + 1 >= *end {
                            *done = true;
                        }
                    }
                }
                Ok(Some(KafkaRecord {
                    topic: m.topic().to_string(),
                    partition: m.partition(),
                    offset: m.offset(),
                    timestamp: m.timestamp().to_millis(),
                    payload: m.payload().map(<[u8]>::to_vec),
                }))
            }
        }
    }

    /// How far `topic`/`partition` is from its end, from the latest
    /// statistics (at most `statistics.interval.ms` old) and the records
    /// handed out since. A partition counts as caught up when every record
    /// below the end offset the broker last reported was handed out, or when
    /// the fetcher is at that end and nothing it received is still queued
    /// (a partition without records, or ending in a transaction marker).
    pub fn backlog(&self, topic: &str, partition: i32) -> Backlog {
        let key = (topic.to_string(), partition);
        let Some(f) = self
            .consumer
            .context()
            .partitions
            .lock()
            .ok()
            .and_then(|m| m.get(&key).copied())
        else {
            return Backlog::Unknown;
        };
        // Old statistics, or a partition not being fetched (no leader, a
        // leader change, its offset being resolved), say nothing about
        // records the broker may have now.
        let fresh = u128::from(self.consumer.context().interval_ms.max(500)) * 3;
        if f.end < 0 || !f.fetching || f.at.elapsed().as_millis() > fresh {
            return Backlog::Unknown;
        }
        let (handed, next) = self
            .read
            .get(topic)
            .and_then(|r| r.get(&partition))
            .copied()
            .unwrap_or((0, -1));
        if handed == 0 && f.next_offset < 0 {
            return Backlog::Unknown;
        }
        if next >= f.end || (f.next_offset >= f.end && f.received <= handed) {
            return Backlog::CaughtUp;
        }
        let position = if handed > 0 { next } else { f.next_offset };
        Backlog::Behind((f.end - position).max(1))
    }

    /// The last transient error librdkafka reported (and recovers from by
    /// itself), taken, for the caller to log.
    pub fn take_error(&mut self) -> Option<String> {
        self.last_error.take()
    }

    /// Commits the offsets read so far to the consumer group
    /// (asynchronously). Records read but still in open windows are
    /// committed too: until checkpoints exist, a restart from group offsets
    /// does not see them again (at most once for open windows). A failed
    /// commit is returned for the caller to log; the next one retries.
    pub fn commit(&self) -> Result<(), String> {
        if self.commit {
            match self.consumer.commit_consumer_state(CommitMode::Async) {
                // Nothing read since the last commit.
                Err(rdkafka::error::KafkaError::ConsumerCommit(
                    rdkafka::types::RDKafkaErrorCode::NoOffset,
                ))
                | Ok(()) => {}
                Err(e) => return Err(format!("committing offsets failed: {e}")),
            }
        }
        Ok(())
    }
}

fn specific(options: &BTreeMap<String, String>, partition: i32) -> Result<Offset, String> {
    let spec = options
        .get("scan.startup.specific-offsets")
        .ok_or("scan.startup.mode 'specific-offsets' needs 'scan.startup.specific-offsets'")?;
    for part in spec.split(';').filter(|p| !p.trim().is_empty()) {
        let mut p = None;
        let mut o = None;
        for kv in part.split(',') {
            match kv.trim().split_once(':') {
                Some(("partition", v)) => {
                    p = Some(v.trim().parse::<i32>().map_err(|_| {
                        format!("bad partition '{v}' in scan.startup.specific-offsets '{part}'")
                    })?)
                }
                Some(("offset", v)) => {
                    o = Some(v.trim().parse::<i64>().map_err(|_| {
                        format!("bad offset '{v}' in scan.startup.specific-offsets '{part}'")
                    })?)
                }
                _ => {
                    return Err(format!(
                    "'{kv}' in scan.startup.specific-offsets is not 'partition:N' or 'offset:N' \
                         (expected e.g. 'partition:0,offset:42;partition:1,offset:300')"
                ))
                }
            }
        }
        if p == Some(partition) {
            return o
                .map(Offset::Offset)
                .ok_or_else(|| format!("bad offset in '{part}'"));
        }
    }
    Ok(Offset::Beginning)
}
