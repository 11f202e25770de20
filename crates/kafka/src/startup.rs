//! Where each partition of a source subtask starts reading, resolved to a
//! number before the partition is assigned.
//!
//! A checkpoint stores, per partition, the offset of the next record to
//! read. For a checkpoint taken before a partition's first record to store
//! a real offset, the symbolic starts of `scan.startup.mode` (earliest,
//! latest, timestamp, group offsets) are turned into numbers when the
//! reader is created, and those numbers are assigned, so that the offset a
//! checkpoint stores is the one the consumer really starts from:
//!
//! - earliest: the partition's low watermark;
//! - latest: its high watermark (the end when the reader is created);
//! - timestamp: `offsets_for_times`, or the high watermark when no record
//!   is that late (Flink's rule);
//! - specific offsets and restored checkpoints: the offset as given; a
//!   partition `scan.startup.specific-offsets` does not name starts at its
//!   earliest offset, as before;
//! - group offsets: the group's committed offset. A partition without one
//!   stays unresolved: librdkafka applies `auto.offset.reset` (its default
//!   is the end of the partition) when it fetches, and the reader knows the
//!   position only once a record was handed out.
//!
//! Known limit: the low watermark can move (retention) between resolving
//! and fetching; the consumer then applies `auto.offset.reset`, which the
//! reader sets to 'earliest' for earliest and restored starts unless the
//! table's properties set it.

use std::collections::BTreeMap;

use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::{Offset, TopicPartitionList};

use crate::config::REQUEST_TIMEOUT;

/// Where one partition starts, before it is resolved to an offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Start {
    /// The first offset still in the partition (its low watermark).
    Earliest,
    /// The partition's end offset when the reader is created.
    Latest,
    /// The first record at or after this timestamp (epoch ms), or the end.
    Timestamp(i64),
    /// Exactly this offset (specific offsets, or a checkpoint).
    At(i64),
    /// The consumer group's committed offset.
    Committed,
}

/// The starts `scan.startup.mode` asks for, one per partition.
pub(crate) fn from_options(
    options: &BTreeMap<String, String>,
    partitions: &[(String, i32)],
) -> Result<Vec<Start>, String> {
    let mode = startup_mode(options);
    let ts = match mode {
        "timestamp" => Some(timestamp(options)?),
        _ => None,
    };
    partitions
        .iter()
        .map(|(_, p)| {
            Ok(match (mode, ts) {
                ("earliest-offset", _) => Start::Earliest,
                ("latest-offset", _) => Start::Latest,
                ("specific-offsets", _) => specific(options, *p)?,
                (_, Some(ts)) => Start::Timestamp(ts),
                _ => Start::Committed,
            })
        })
        .collect()
}

/// `scan.startup.mode` (default 'group-offsets'); an `upsert-kafka`
/// table always reads from the earliest offset (every version), as in
/// Flink, which has no startup option on that connector.
pub(crate) fn startup_mode(options: &BTreeMap<String, String>) -> &str {
    if options
        .get("connector")
        .is_some_and(|c| c == "upsert-kafka")
    {
        return "earliest-offset";
    }
    options
        .get("scan.startup.mode")
        .map(String::as_str)
        .unwrap_or("group-offsets")
}

/// The starts of a restored reader: the checkpoint's offset where it has
/// one, else the earliest offset (a partition new since the checkpoint,
/// Flink's rule).
pub(crate) fn from_checkpoint(
    partitions: &[(String, i32)],
    offsets: &BTreeMap<(String, i32), i64>,
) -> Vec<Start> {
    partitions
        .iter()
        .map(|tp| offsets.get(tp).map_or(Start::Earliest, |o| Start::At(*o)))
        .collect()
}

fn timestamp(options: &BTreeMap<String, String>) -> Result<i64, String> {
    options
        .get("scan.startup.timestamp-millis")
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| {
            "scan.startup.mode 'timestamp' needs 'scan.startup.timestamp-millis' (epoch ms)"
                .to_string()
        })
}

/// The low and high watermark of each partition asked for, fetched once.
#[derive(Default)]
pub(crate) struct Watermarks(BTreeMap<(String, i32), (i64, i64)>);

impl Watermarks {
    /// `topic`/`partition`'s (low, high) watermarks.
    pub(crate) fn get<C: ConsumerContext>(
        &mut self,
        consumer: &BaseConsumer<C>,
        topic: &str,
        partition: i32,
    ) -> Result<(i64, i64), String> {
        let key = (topic.to_string(), partition);
        if let Some(w) = self.0.get(&key) {
            return Ok(*w);
        }
        let w = consumer
            .fetch_watermarks(topic, partition, REQUEST_TIMEOUT)
            .map_err(|e| {
                format!("cannot read the first and end offsets of {topic}/{partition}: {e}")
            })?;
        self.0.insert(key, w);
        Ok(w)
    }
}

/// Each start as an offset, in the order of `partitions`; `None` for a
/// partition of the group without a committed offset.
pub(crate) fn resolve<C: ConsumerContext>(
    consumer: &BaseConsumer<C>,
    partitions: &[(String, i32)],
    starts: &[Start],
    marks: &mut Watermarks,
) -> Result<Vec<Option<i64>>, String> {
    let stamped = by_timestamp(consumer, partitions, starts)?;
    let committed = committed(consumer, partitions, starts)?;
    partitions
        .iter()
        .zip(starts)
        .map(|((t, p), start)| {
            let looked_up = || stamped.get(&(t.clone(), *p)).copied();
            Ok(match start {
                Start::Earliest => Some(marks.get(consumer, t, *p)?.0),
                Start::Latest => Some(marks.get(consumer, t, *p)?.1),
                Start::At(o) => Some(*o),
                Start::Timestamp(_) => match looked_up() {
                    Some(o) => Some(o),
                    None => Some(marks.get(consumer, t, *p)?.1),
                },
                Start::Committed => committed.get(&(t.clone(), *p)).copied(),
            })
        })
        .collect()
}

/// The offsets of the first records at or after each timestamp start
/// (partitions without such a record are left out).
fn by_timestamp<C: ConsumerContext>(
    consumer: &BaseConsumer<C>,
    partitions: &[(String, i32)],
    starts: &[Start],
) -> Result<BTreeMap<(String, i32), i64>, String> {
    let mut times = TopicPartitionList::new();
    for ((t, p), start) in partitions.iter().zip(starts) {
        if let Start::Timestamp(ts) = start {
            times
                .add_partition_offset(t, *p, Offset::Offset(*ts))
                .map_err(|e| e.to_string())?;
        }
    }
    if times.count() == 0 {
        return Ok(BTreeMap::new());
    }
    let found = consumer
        .offsets_for_times(times, REQUEST_TIMEOUT)
        .map_err(|e| {
            format!("cannot look up the offsets for scan.startup.timestamp-millis: {e}")
        })?;
    numbers(
        &found,
        "look up the offset for scan.startup.timestamp-millis",
    )
}

/// The committed offsets of the group for each group-offsets start
/// (partitions without one are left out).
fn committed<C: ConsumerContext>(
    consumer: &BaseConsumer<C>,
    partitions: &[(String, i32)],
    starts: &[Start],
) -> Result<BTreeMap<(String, i32), i64>, String> {
    let mut tpl = TopicPartitionList::new();
    for ((t, p), start) in partitions.iter().zip(starts) {
        if *start == Start::Committed {
            tpl.add_partition(t, *p);
        }
    }
    if tpl.count() == 0 {
        return Ok(BTreeMap::new());
    }
    // A brand-new cluster has no group coordinator until it has created
    // its offsets topic: that is waited for (with a WARN), not taken for
    // "no committed offsets" nor for a failure.
    let deadline = std::time::Instant::now() + COORDINATOR_WAIT;
    let mut warned = false;
    loop {
        match consumer.committed_offsets(tpl.clone(), REQUEST_TIMEOUT) {
            Ok(found) => return numbers(&found, "read the committed offset"),
            Err(e) if coordinator_not_ready(&e) && std::time::Instant::now() < deadline => {
                if !warned {
                    tracing::warn!(
                        "the consumer group's coordinator is not ready yet ({e}; a new cluster \
                         creates it on first use): waiting up to {}s before reading",
                        COORDINATOR_WAIT.as_secs()
                    );
                    warned = true;
                }
                std::thread::sleep(std::time::Duration::from_millis(500));
            }
            Err(e) => {
                return Err(format!(
                    "cannot read the consumer group's committed offsets: {e} (waited up to {}s \
                     for the group coordinator)",
                    COORDINATOR_WAIT.as_secs()
                ))
            }
        }
    }
}

/// How long a group coordinator that is not ready yet is waited for.
const COORDINATOR_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

fn coordinator_not_ready(e: &rdkafka::error::KafkaError) -> bool {
    use rdkafka::types::RDKafkaErrorCode as C;
    matches!(
        e.rdkafka_error_code(),
        Some(C::NotCoordinator | C::CoordinatorLoadInProgress | C::CoordinatorNotAvailable)
    )
}

/// The numeric offsets in `tpl`; a partition's own error fails.
fn numbers(tpl: &TopicPartitionList, what: &str) -> Result<BTreeMap<(String, i32), i64>, String> {
    let mut out = BTreeMap::new();
    for e in tpl.elements() {
        if let Err(err) = e.error() {
            return Err(format!(
                "cannot {what} of {}/{}: {err}",
                e.topic(),
                e.partition()
            ));
        }
        if let Offset::Offset(o) = e.offset() {
            out.insert((e.topic().to_string(), e.partition()), o);
        }
    }
    Ok(out)
}

/// The start `scan.startup.specific-offsets` gives `partition` (earliest
/// when it names no offset for it).
fn specific(options: &BTreeMap<String, String>, partition: i32) -> Result<Start, String> {
    let spec = options
        .get("scan.startup.specific-offsets")
        .ok_or("scan.startup.mode 'specific-offsets' needs 'scan.startup.specific-offsets'")?;
    for part in spec.split(';').filter(|p| !p.trim().is_empty()) {
        let (p, o) = specific_entry(part)?;
        if p == Some(partition) {
            return match o {
                Some(o) if o >= 0 => Ok(Start::At(o)),
                _ => Err(format!(
                    "bad offset in '{part}' of scan.startup.specific-offsets (an offset >= 0)"
                )),
            };
        }
    }
    Ok(Start::Earliest)
}

/// One 'partition:N,offset:M' entry of `scan.startup.specific-offsets`.
fn specific_entry(part: &str) -> Result<(Option<i32>, Option<i64>), String> {
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
    Ok((p, o))
}

/// The metadata group `group.id` committed beside its offsets of
/// `partitions` (those without a commit, or with empty metadata, are left
/// out). One request; an error says what failed.
pub fn committed_metadata(
    properties: &BTreeMap<String, String>,
    partitions: &[(String, i32)],
) -> Result<BTreeMap<(String, i32), String>, String> {
    let consumer: BaseConsumer = crate::config::config(properties)
        .set("enable.auto.commit", "false")
        .create()
        .map_err(|e| crate::config::creation_error("consumer", &e))?;
    let mut tpl = TopicPartitionList::new();
    for (t, p) in partitions {
        tpl.add_partition(t, *p);
    }
    let found = consumer
        .committed_offsets(tpl, REQUEST_TIMEOUT)
        .map_err(|e| format!("cannot read the consumer group's committed offsets: {e}"))?;
    Ok(found
        .elements()
        .iter()
        .filter(|e| matches!(e.offset(), Offset::Offset(_)) && !e.metadata().is_empty())
        .map(|e| {
            (
                (e.topic().to_string(), e.partition()),
                e.metadata().to_string(),
            )
        })
        .collect())
}

/// Per (topic, partition): its first offset and its end.
pub type PartitionBounds = BTreeMap<(String, i32), (i64, i64)>;

/// The first offset still in each of `partitions` and its end (its low
/// and high watermarks: records below the first were deleted by
/// retention). One request per partition; an error says which failed.
pub fn first_offsets(
    properties: &BTreeMap<String, String>,
    partitions: &[(String, i32)],
) -> Result<PartitionBounds, String> {
    let consumer: BaseConsumer = crate::config::config(properties)
        .set("enable.auto.commit", "false")
        .create()
        .map_err(|e| crate::config::creation_error("consumer", &e))?;
    let mut marks = Watermarks::default();
    let mut out = BTreeMap::new();
    for (t, p) in partitions {
        out.insert((t.clone(), *p), marks.get(&consumer, t, *p)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn parts() -> Vec<(String, i32)> {
        vec![("t".to_string(), 0), ("t".to_string(), 1)]
    }

    #[test]
    fn specific_offsets_name_some_partitions_the_rest_start_earliest() {
        let o = opts(&[
            ("scan.startup.mode", "specific-offsets"),
            ("scan.startup.specific-offsets", "partition:1,offset:42"),
        ]);
        let starts = from_options(&o, &parts()).expect("starts");
        assert_eq!(starts, vec![Start::Earliest, Start::At(42)]);
    }

    #[test]
    fn a_negative_specific_offset_is_refused() {
        let o = opts(&[
            ("scan.startup.mode", "specific-offsets"),
            ("scan.startup.specific-offsets", "partition:0,offset:-2"),
        ]);
        let e = from_options(&o, &parts()).expect_err("negative");
        assert!(e.contains(">= 0"), "{e}");
    }

    #[test]
    fn timestamp_mode_needs_its_timestamp() {
        let o = opts(&[("scan.startup.mode", "timestamp")]);
        let e = from_options(&o, &parts()).expect_err("no timestamp");
        assert!(e.contains("scan.startup.timestamp-millis"), "{e}");
        let o = opts(&[
            ("scan.startup.mode", "timestamp"),
            ("scan.startup.timestamp-millis", "1700000000000"),
        ]);
        let starts = from_options(&o, &parts()).expect("starts");
        assert_eq!(starts, vec![Start::Timestamp(1_700_000_000_000); 2]);
    }

    #[test]
    fn group_offsets_is_the_default() {
        let starts = from_options(&BTreeMap::new(), &parts()).expect("starts");
        assert_eq!(starts, vec![Start::Committed; 2]);
    }

    #[test]
    fn a_checkpoint_gives_its_offsets_and_new_partitions_start_earliest() {
        let mut offsets = BTreeMap::new();
        offsets.insert(("t".to_string(), 0), 7);
        offsets.insert(("other".to_string(), 0), 9);
        let starts = from_checkpoint(&parts(), &offsets);
        assert_eq!(starts, vec![Start::At(7), Start::Earliest]);
    }
}
