//! [`dump_topic`]: a topic read once, from a start time to the end offsets
//! it had when the dump started, for `lowwater dump` (a kcat -J dump that
//! replay reads back).

use std::collections::BTreeMap;
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{Message, Offset, TopicPartitionList};

use crate::config::{config, partitions, REQUEST_TIMEOUT};
use crate::KafkaRecord;

/// Reads a topic into kcat -J records: every partition from `from` (epoch
/// ms; `None`: the beginning) up to the end it had when the dump started,
/// stopping early at records later than `to` (epoch ms). Calls `emit` for
/// each record, in partition order; replay orders them by timestamp.
pub fn dump_topic(
    bootstrap: &str,
    topic: &str,
    from: Option<i64>,
    to: Option<i64>,
    properties: &[(String, String)],
    mut emit: impl FnMut(KafkaRecord) -> Result<(), String>,
) -> Result<u64, String> {
    let mut props: BTreeMap<String, String> = properties.iter().cloned().collect();
    props.insert("bootstrap.servers".to_string(), bootstrap.to_string());
    let parts = partitions(&props, topic)?;
    let consumer: BaseConsumer = config(&props)
        .set("group.id", "lowwater-dump")
        .set("enable.auto.commit", "false")
        .create()
        .map_err(|e| crate::config::creation_error("consumer", &e))?;
    let mut ends = BTreeMap::new();
    let mut tpl = TopicPartitionList::new();
    for &p in &parts {
        let (_, high) = consumer
            .fetch_watermarks(topic, p, REQUEST_TIMEOUT)
            .map_err(|e| format!("cannot read the end offset of {topic}/{p}: {e}"))?;
        ends.insert(p, high);
        let start = match from {
            Some(ts) => Offset::Offset(ts),
            None => Offset::Beginning,
        };
        tpl.add_partition_offset(topic, p, start)
            .map_err(|e| e.to_string())?;
    }
    if from.is_some() {
        tpl = consumer
            .offsets_for_times(tpl, REQUEST_TIMEOUT)
            .map_err(|e| format!("cannot look up offsets for the start time: {e}"))?;
    }
    consumer
        .assign(&tpl)
        .map_err(|e| format!("cannot assign partitions: {e}"))?;
    // Partitions with nothing to read (empty, or no record after `from`) are done.
    let mut open: Vec<i32> = tpl
        .elements()
        .iter()
        .filter(|e| match e.offset() {
            Offset::Beginning => ends[&e.partition()] > 0,
            Offset::Offset(o) => o < ends[&e.partition()],
            _ => false,
        })
        .map(|e| e.partition())
        .collect();
    let mut n = 0;
    let mut idle = 0;
    while !open.is_empty() {
        let Some(m) = consumer.poll(Duration::from_millis(500)) else {
            idle += 1;
            if idle > 20 {
                return Err(format!(
                    "no record for 10 s while partitions {open:?} of {topic} have not reached their end offsets"
                ));
            }
            continue;
        };
        idle = 0;
        let m = m.map_err(|e| format!("reading {topic} failed: {e}"))?;
        let p = m.partition();
        if m.offset() + 1 >= ends[&p] {
            open.retain(|x| *x != p);
        }
        if m.offset() >= ends[&p] {
            continue;
        }
        let ts = m.timestamp().to_millis();
        if let (Some(t), Some(limit)) = (ts, to) {
            if t > limit {
                open.retain(|x| *x != p);
                continue;
            }
        }
        emit(KafkaRecord {
            topic: topic.to_string(),
            partition: p,
            offset: m.offset(),
            timestamp: ts,
            payload: m.payload().map(<[u8]>::to_vec),
            key: m.key().map(<[u8]>::to_vec),
        })?;
        n += 1;
    }
    Ok(n)
}
