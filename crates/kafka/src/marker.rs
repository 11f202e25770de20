//! The state topic of exactly-once Kafka sinks: a compacted, single-partition
//! topic that holds, per job (the record key), the commit marker of the
//! job's last committed checkpoint. [`crate::TxnProducer::commit`] writes
//! the marker in the checkpoint's transaction; on restore,
//! [`last_committed_marker`] reads it back with `read_committed`, so a
//! marker of a transaction that did not commit is never seen.
//!
//! Restore order: create the job's `TxnProducer` first, then read the
//! marker. Creating it fences the job's older producer and settles the
//! transaction that producer left open (aborted, or completed if its commit
//! had begun), so the marker read afterwards is final.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{Message, Offset, TopicPartitionList};

use crate::config::{block_on, bootstrap, config, REQUEST_TIMEOUT};

/// How long reading the state topic to its end may take.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Creates the state topic `topic` if it is missing: one partition,
/// `cleanup.policy=compact`, the brokers' default replication. A topic
/// that exists already is left as it is.
pub fn ensure_state_topic(
    properties: &BTreeMap<String, String>,
    topic: &str,
) -> Result<(), String> {
    let admin: AdminClient<DefaultClientContext> = config(properties)
        .create()
        .map_err(|e| crate::config::creation_error("admin client", &e))?;
    // -1: the brokers' default.replication.factor.
    let new = NewTopic::new(topic, 1, TopicReplication::Fixed(-1)).set("cleanup.policy", "compact");
    let options = AdminOptions::new()
        .request_timeout(Some(REQUEST_TIMEOUT))
        .operation_timeout(Some(REQUEST_TIMEOUT));
    let results = block_on(admin.create_topics(&[new], &options)).map_err(|e| {
        format!(
            "cannot create the state topic '{topic}' on {} ({e}); check \
             'properties.bootstrap.servers' and that the brokers run",
            bootstrap(properties)
        )
    })?;
    for r in results {
        match r {
            Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((t, e)) => return Err(format!("creating the state topic '{t}' failed: {e}")),
        }
    }
    Ok(())
}

/// The value of the last committed record with key `key` in the state
/// topic `topic`, read from the beginning to the last stable offset with
/// `read_committed`; `None` when the topic is missing or holds no such
/// record. Takes at most about 40 s; an error says when the brokers
/// cannot be reached.
pub fn last_committed_marker(
    properties: &BTreeMap<String, String>,
    topic: &str,
    key: &str,
) -> Result<Option<Vec<u8>>, String> {
    let consumer: BaseConsumer = config(properties)
        .set("group.id", "lowwater-marker")
        .set("isolation.level", "read_committed")
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "true")
        .create()
        .map_err(|e| crate::config::creation_error("consumer", &e))?;
    let Some(open) = partitions_to_read(&consumer, properties, topic)? else {
        return Ok(None);
    };
    let mut tpl = TopicPartitionList::new();
    for p in &open {
        tpl.add_partition_offset(topic, *p, Offset::Beginning)
            .map_err(|e| e.to_string())?;
    }
    consumer
        .assign(&tpl)
        .map_err(|e| format!("cannot assign the state topic '{topic}': {e}"))?;
    read_to_end(&consumer, topic, key, open)
}

/// The partitions of `topic` with committed records (up to the last stable
/// offset, which a `read_committed` client's end offset is); `None` when
/// the topic does not exist.
fn partitions_to_read(
    consumer: &BaseConsumer,
    properties: &BTreeMap<String, String>,
    topic: &str,
) -> Result<Option<Vec<i32>>, String> {
    let unreachable = |e: KafkaError| {
        format!(
            "cannot reach the Kafka brokers at {} within {}s to read the state topic \
             '{topic}' ({e}); check 'properties.bootstrap.servers' and that the brokers run",
            bootstrap(properties),
            REQUEST_TIMEOUT.as_secs()
        )
    };
    let md = consumer
        .fetch_metadata(Some(topic), REQUEST_TIMEOUT)
        .map_err(unreachable)?;
    let Some(t) = md.topics().iter().find(|t| t.name() == topic) else {
        return Ok(None);
    };
    if t.error().is_some() || t.partitions().is_empty() {
        return Ok(None);
    }
    let mut open = Vec::new();
    for p in t.partitions() {
        let (low, stable) = consumer
            .fetch_watermarks(topic, p.id(), REQUEST_TIMEOUT)
            .map_err(unreachable)?;
        if stable > low {
            open.push(p.id());
        }
    }
    Ok(Some(open))
}

/// Polls until every partition in `open` reported its end (with
/// `read_committed`: past the last stable offset, transaction markers and
/// aborted records skipped), keeping the last value under `key`.
fn read_to_end(
    consumer: &BaseConsumer,
    topic: &str,
    key: &str,
    mut open: Vec<i32>,
) -> Result<Option<Vec<u8>>, String> {
    let started = Instant::now();
    let mut last = None;
    // librdkafka retries by itself; a transient error only explains a
    // timeout.
    let mut error = String::new();
    while !open.is_empty() {
        if started.elapsed() > READ_TIMEOUT {
            return Err(format!(
                "the state topic '{topic}' was not read to its end within {}s \
                 (partitions {open:?} left){error}",
                READ_TIMEOUT.as_secs()
            ));
        }
        match consumer.poll(Duration::from_millis(200)) {
            None => {}
            Some(Err(KafkaError::PartitionEOF(p))) => open.retain(|x| *x != p),
            Some(Err(e)) => error = format!("; last error: {e}"),
            Some(Ok(m)) if m.key() == Some(key.as_bytes()) => {
                last = m.payload().map(<[u8]>::to_vec);
            }
            Some(Ok(_)) => {}
        }
    }
    Ok(last)
}
