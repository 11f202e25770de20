//! [`PartitionReader`]: the consumer of one source subtask's partitions.
//! It assigns them itself (no group rebalancing) at start offsets resolved
//! to numbers (`crate::startup`), from `scan.startup.mode` or from a
//! checkpoint, hands out records with their place, and tracks per
//! partition what it handed out: the position a checkpoint stores, and,
//! with librdkafka's statistics (`crate::stats`), how far the partition is
//! from its end ([`Backlog`], what lag-aware idleness decides on).
//! Offsets go to the consumer group only when the caller commits them.

use std::collections::BTreeMap;
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::message::BorrowedMessage;
use rdkafka::{Message, Offset, TopicPartitionList};

use crate::config::config;
use crate::startup::{self, Start, Watermarks};
use crate::stats::Stats;

/// One record read from Kafka.
#[derive(Debug, Clone, Default)]
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
    /// The key (`None`: no key), as the broker stored it.
    pub key: Option<Vec<u8>>,
}

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

/// What a reader did with one partition so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Progress {
    /// Records taken from the consumer (handed out, or dropped past a
    /// bounded end), for the backlog.
    taken: u64,
    /// The offset after the last record taken (-1 before the first).
    next: i64,
    /// The offset of the next record to hand out: the resolved start, then
    /// the last handed-out offset + 1 (`None`: not known yet).
    position: Option<i64>,
}

impl Progress {
    fn starting_at(position: Option<i64>) -> Self {
        Progress {
            taken: 0,
            next: -1,
            position,
        }
    }
}

/// The consumer of one source subtask's partitions.
pub struct PartitionReader {
    consumer: BaseConsumer<Stats>,
    commit: bool,
    /// Per topic and partition: what was read (for the backlog and the
    /// position). Keyed by topic first so that a lookup borrows its topic.
    read: ByTopic<Progress>,
    /// With `scan.bounded.mode` = 'latest-offset': the end offset of each
    /// partition when the reader was created, and whether it was reached.
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
            | C::GroupAuthorizationFailed
            | C::Authentication
            | C::SaslAuthenticationFailed
            | C::SSL,
        ) => true,
        _ => matches!(e, KafkaError::ClientCreation(_)),
    }
}

impl PartitionReader {
    /// A consumer for `partitions` (topic, partition) of a source table with
    /// these `properties.*` and `scan.startup.mode` (and its
    /// `scan.startup.timestamp-millis` / `scan.startup.specific-offsets`),
    /// resolved to offsets now (see [`Self::position`]).
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
        let starts = startup::from_options(options, partitions)?;
        let earliest = startup::startup_mode(options) == "earliest-offset";
        Self::open(
            properties, options, partitions, statistics, &starts, earliest,
        )
    }

    /// A reader restored from a checkpoint: each partition in `offsets`
    /// starts at exactly its offset (the next record to read); a partition
    /// missing there starts at its earliest offset (new since the
    /// checkpoint, Flink's rule). `scan.startup.mode` is ignored;
    /// `scan.bounded.mode` = 'latest-offset' ends at the end offsets when
    /// this reader is created. An offset no longer in the log (retention)
    /// falls back to `auto.offset.reset`, 'earliest' unless the properties
    /// say otherwise.
    pub fn restored(
        properties: &BTreeMap<String, String>,
        options: &BTreeMap<String, String>,
        partitions: &[(String, i32)],
        statistics: bool,
        offsets: &BTreeMap<(String, i32), i64>,
    ) -> Result<Self, String> {
        let starts = startup::from_checkpoint(partitions, offsets);
        Self::open(properties, options, partitions, statistics, &starts, true)
    }

    /// Creates the consumer, resolves `starts` to offsets and assigns them.
    fn open(
        properties: &BTreeMap<String, String>,
        options: &BTreeMap<String, String>,
        partitions: &[(String, i32)],
        statistics: bool,
        starts: &[Start],
        reset_earliest: bool,
    ) -> Result<Self, String> {
        let consumer = consumer(properties, statistics, reset_earliest)?;
        let mut marks = Watermarks::default();
        let mut at = startup::resolve(&consumer, partitions, starts, &mut marks)?;
        // Group offsets without a commit: resolved now as librdkafka's
        // `auto.offset.reset` would ('largest' unless set), so that a
        // checkpoint taken before the partition's first record holds a real
        // offset (a restore must not read a quiet partition from its start).
        let reset = properties.get("auto.offset.reset").map(String::as_str);
        for ((t, p), slot) in partitions.iter().zip(at.iter_mut()) {
            if slot.is_none() {
                *slot = match reset {
                    Some("earliest" | "smallest" | "beginning") => {
                        Some(marks.get(&consumer, t, *p)?.0)
                    }
                    None | Some("latest" | "largest" | "end") => {
                        Some(marks.get(&consumer, t, *p)?.1)
                    }
                    Some(_) => None,
                };
            }
        }
        let ends = match options.get("scan.bounded.mode").map(String::as_str) {
            Some("latest-offset") => Some(bounded_ends(&consumer, partitions, &at, &mut marks)?),
            _ => None,
        };
        let mut tpl = TopicPartitionList::new();
        let mut read = ByTopic::new();
        for ((topic, p), start) in partitions.iter().zip(&at) {
            // Unresolved (group offsets without a commit): librdkafka
            // applies `auto.offset.reset`.
            let offset = start.map_or(Offset::Stored, Offset::Offset);
            tpl.add_partition_offset(topic, *p, offset)
                .map_err(|e| e.to_string())?;
            read.entry(topic.clone())
                .or_insert_with(BTreeMap::new)
                .insert(*p, Progress::starting_at(*start));
        }
        consumer
            .assign(&tpl)
            .map_err(|e| format!("cannot assign partitions: {e}"))?;
        Ok(PartitionReader {
            consumer,
            commit: properties.contains_key("group.id"),
            read,
            ends,
            last_error: None,
        })
    }

    /// Starts reading partitions found while running (partition discovery)
    /// from their earliest offset, as Flink does for new partitions. Their
    /// position stays unknown until their first record: a checkpoint taken
    /// before leaves them out, and a restore reads them from the earliest
    /// offset again, where they started anyway.
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

    /// Stops fetching `partitions` (watermark alignment: they run ahead);
    /// records librdkafka already fetched may still be handed out.
    pub fn pause(&self, partitions: &[(String, i32)]) -> Result<(), String> {
        self.consumer
            .pause(&list(partitions))
            .map_err(|e| format!("cannot pause partitions {partitions:?}: {e}"))
    }

    /// Fetches `partitions` again, from where they were paused.
    pub fn resume(&self, partitions: &[(String, i32)]) -> Result<(), String> {
        self.consumer
            .resume(&list(partitions))
            .map_err(|e| format!("cannot resume partitions {partitions:?}: {e}"))
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
        let mut record = KafkaRecord::default();
        Ok(self.poll_into(timeout, &mut record)?.then_some(record))
    }

    /// The next record into `record`, waiting at most `timeout`; its
    /// buffers are reused, so that once they are as large as the records,
    /// reading one allocates nothing. Returns whether a record was handed
    /// out (`record` is otherwise left as it was, or holds a record past a
    /// bounded end, which marks its partition done).
    pub fn poll_into(
        &mut self,
        timeout: Duration,
        record: &mut KafkaRecord,
    ) -> Result<bool, String> {
        match self.consumer.poll(timeout) {
            None => Ok(false),
            // librdkafka reconnects by itself: a broker that went away is a
            // reason to wait, not to fail the job. Only fatal errors stop it.
            Some(Err(e)) if !is_fatal(&e) => {
                self.last_error = Some(e.to_string());
                Ok(false)
            }
            Some(Err(e)) => Err(format!("reading from Kafka failed: {e}")),
            Some(Ok(m)) => {
                fill(&m, record);
                Ok(self.take(record))
            }
        }
    }

    /// Counts `record` as read; whether it is handed out (not past a
    /// bounded end).
    fn take(&mut self, record: &KafkaRecord) -> bool {
        let past_end = self.past_end(&record.topic, record.partition, record.offset);
        // Every assigned partition has its entry; one librdkafka hands out
        // unasked gets one here rather than being lost to the backlog.
        if !self.read.contains_key(&record.topic) {
            self.read.insert(record.topic.clone(), BTreeMap::new());
        }
        if let Some(parts) = self.read.get_mut(&record.topic) {
            let progress = parts
                .entry(record.partition)
                .or_insert(Progress::starting_at(None));
            progress.taken += 1;
            progress.next = record.offset + 1;
            if !past_end {
                progress.position = Some(record.offset + 1);
            }
        }
        !past_end
    }

    /// Whether a record at `offset` lies past the bounded end of its
    /// partition (marking the partition done when it reaches the end).
    fn past_end(&mut self, topic: &str, partition: i32, offset: i64) -> bool {
        let Some((end, done)) = self
            .ends
            .as_mut()
            .and_then(|e| e.get_mut(topic)?.get_mut(&partition))
        else {
            return false;
        };
        if *done || offset >= *end {
            *done = true;
            return true;
        }
        if offset + 1 >= *end {
            *done = true;
        }
        false
    }

    /// The offset of the next record this reader would hand out for
    /// `topic`/`partition` (what a checkpoint stores): the last handed-out
    /// offset + 1, or before the first record the offset the partition was
    /// assigned to start from. `None` for a partition this reader does not
    /// read, one of group offsets without a committed offset (librdkafka's
    /// `auto.offset.reset` picks its start) or one added while running,
    /// until a record of it was handed out.
    pub fn position(&self, topic: &str, partition: i32) -> Option<i64> {
        self.read.get(topic)?.get(&partition)?.position
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
            .map_or((0, -1), |p| (p.taken, p.next));
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
    /// itself), or the first failed asynchronous commit, taken, for the
    /// caller to log.
    pub fn take_error(&mut self) -> Option<String> {
        self.last_error
            .take()
            .or_else(|| self.consumer.context().take_commit_error())
    }

    /// Commits the offsets read so far to the consumer group
    /// (asynchronously). Records read but still in open windows are
    /// committed too: without checkpoints, a restart from group offsets
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

    /// Commits exactly these (topic, partition, next offset) to the consumer
    /// group, when the table gave `properties.group.id` (else nothing): the
    /// positions of a completed checkpoint, as Flink commits on checkpoint
    /// completion. Asynchronous: an error the call itself meets is
    /// returned; a commit the broker refuses later shows in
    /// [`Self::take_error`].
    pub fn commit_offsets(&self, offsets: &[(String, i32, i64)]) -> Result<(), String> {
        let plain: Vec<(String, i32, i64, Option<String>)> = offsets
            .iter()
            .map(|(t, p, o)| (t.clone(), *p, *o, None))
            .collect();
        self.commit_offsets_with(&plain)
    }

    /// [`PartitionReader::commit_offsets`] with each offset's metadata
    /// (Kafka keeps it with the offset; a restart reads both).
    pub fn commit_offsets_with(
        &self,
        offsets: &[(String, i32, i64, Option<String>)],
    ) -> Result<(), String> {
        if !self.commit || offsets.is_empty() {
            return Ok(());
        }
        let mut tpl = TopicPartitionList::new();
        for (topic, p, o, metadata) in offsets {
            let mut e = tpl.add_partition(topic, *p);
            e.set_offset(Offset::Offset(*o))
                .map_err(|e| format!("cannot commit offset {o} of {topic}/{p}: {e}"))?;
            if let Some(m) = metadata {
                e.set_metadata(m);
            }
        }
        self.consumer
            .commit(&tpl, CommitMode::Async)
            .map_err(|e| format!("committing offsets failed: {e}"))
    }
}

/// `partitions` as a list for librdkafka.
fn list(partitions: &[(String, i32)]) -> TopicPartitionList {
    let mut tpl = TopicPartitionList::new();
    for (topic, p) in partitions {
        tpl.add_partition(topic, *p);
    }
    tpl
}

/// The consumer behind a reader: no automatic commits, no rebalancing
/// (partitions are assigned), statistics when asked for.
fn consumer(
    properties: &BTreeMap<String, String>,
    statistics: bool,
    reset_earliest: bool,
) -> Result<BaseConsumer<Stats>, String> {
    let mut cfg = config(properties);
    if !properties.contains_key("group.id") {
        cfg.set("group.id", "lowwater");
    }
    cfg.set("enable.auto.commit", "false")
        .set("enable.partition.eof", "false");
    if !properties.contains_key("fetch.queue.backoff.ms") {
        // librdkafka's fetcher stops fetching while its pre-fetch queue is
        // full and looks again only after this long (default 1000 ms). A
        // reader that decodes and aggregates empties the queue in well under
        // a second, then waits for the rest of it: measured at parallelism
        // 1, 34-36 s of wall time for 8 s of CPU. 10 ms keeps the fetcher
        // busy at no measurable cost. A user's 'properties.*' still wins.
        cfg.set("fetch.queue.backoff.ms", "10");
    }
    if reset_earliest && !properties.contains_key("auto.offset.reset") {
        // A resolved earliest or restored offset that retention deleted
        // meanwhile: read what is left, not jump to the end.
        cfg.set("auto.offset.reset", "earliest");
    }
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
    cfg.create_with_context(stats)
        .map_err(|e| crate::config::creation_error("consumer", &e))
}

/// With `scan.bounded.mode` = 'latest-offset': each partition's end offset
/// now, and whether there is nothing to read before it from its start.
fn bounded_ends(
    consumer: &BaseConsumer<Stats>,
    partitions: &[(String, i32)],
    at: &[Option<i64>],
    marks: &mut Watermarks,
) -> Result<ByTopic<(i64, bool)>, String> {
    let mut ends = ByTopic::new();
    for ((topic, p), start) in partitions.iter().zip(at) {
        let (low, high) = marks.get(consumer, topic, *p)?;
        let from = start.unwrap_or(low).max(low);
        ends.entry(topic.clone())
            .or_insert_with(BTreeMap::new)
            .insert(*p, (high, high <= from));
    }
    Ok(ends)
}

/// A record's place and contents, copied out of librdkafka's buffer into
/// `record`, whose buffers are reused.
fn fill(m: &BorrowedMessage<'_>, record: &mut KafkaRecord) {
    if record.topic != m.topic() {
        record.topic.clear();
        record.topic.push_str(m.topic());
    }
    record.partition = m.partition();
    record.offset = m.offset();
    record.timestamp = m.timestamp().to_millis();
    copy_into(&mut record.payload, m.payload());
    copy_into(&mut record.key, m.key());
}

fn copy_into(to: &mut Option<Vec<u8>>, from: Option<&[u8]>) {
    match (to.as_mut(), from) {
        (Some(buf), Some(bytes)) => {
            buf.clear();
            buf.extend_from_slice(bytes);
        }
        (_, bytes) => *to = bytes.map(<[u8]>::to_vec),
    }
}
