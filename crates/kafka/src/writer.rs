//! [`TopicWriter`]: the producer of one sink table, with its
//! `sink.partitioner` ([`Partitioner`]) and delivery reports
//! ([`Deliveries`]) that turn a row the broker rejected into an error
//! instead of a silent loss.

use std::collections::BTreeMap;
use std::time::Duration;

use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};

use crate::config::{config, partitions};

/// Delivery reports of a sink producer: a row the broker did not
/// acknowledge (too large, not authorized, timed out) is counted here and
/// fails the job on the next send or flush, instead of vanishing.
#[derive(Default)]
struct Deliveries {
    failed: std::sync::atomic::AtomicU64,
    first: std::sync::Mutex<Option<String>>,
}

impl rdkafka::ClientContext for Deliveries {}

impl ProducerContext for Deliveries {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        if let Err((e, _)) = result {
            self.failed
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if let Ok(mut first) = self.first.lock() {
                first.get_or_insert_with(|| e.to_string());
            }
        }
    }
}

/// `sink.partitioner`: which partition a row goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partitioner {
    /// 'default': the Kafka client's (by key hash; sticky without a key).
    Default,
    /// 'fixed': each sink subtask writes to one partition (`subtask %
    /// partitions`, Flink's `FlinkFixedPartitioner`).
    Fixed,
    /// 'round-robin': rows go to the partitions in turn.
    RoundRobin,
}

impl Partitioner {
    /// The partitioner an option value names, if it is one.
    pub fn parse(v: &str) -> Option<Self> {
        match v {
            "default" => Some(Partitioner::Default),
            "fixed" => Some(Partitioner::Fixed),
            "round-robin" => Some(Partitioner::RoundRobin),
            _ => None,
        }
    }
}

/// Picks the partition of each row of one sink topic.
#[derive(Debug, Clone)]
pub struct PartitionChooser {
    partitioner: Partitioner,
    /// The topic's partitions (for 'fixed' and 'round-robin').
    partitions: Vec<i32>,
    next: usize,
}

impl PartitionChooser {
    /// The chooser of `topic` (its partitions are listed for 'fixed' and
    /// 'round-robin').
    pub fn new(
        properties: &BTreeMap<String, String>,
        topic: &str,
        partitioner: Partitioner,
    ) -> Result<Self, String> {
        let partitions = match partitioner {
            Partitioner::Default => Vec::new(),
            _ => partitions(properties, topic)?,
        };
        Ok(PartitionChooser {
            partitioner,
            partitions,
            next: 0,
        })
    }

    /// The partition of the next row of sink subtask `subtask` (`None`:
    /// the Kafka client's choice).
    pub fn pick(&mut self, subtask: usize) -> Option<i32> {
        let n = self.partitions.len().max(1);
        match self.partitioner {
            Partitioner::Default => None,
            Partitioner::Fixed => self.partitions.get(subtask % n).copied(),
            Partitioner::RoundRobin => {
                let p = self.partitions.get(self.next % n).copied();
                self.next = self.next.wrapping_add(1);
                p
            }
        }
    }
}

/// The producer of one sink table.
pub struct TopicWriter {
    producer: BaseProducer<Deliveries>,
    topic: String,
    chooser: PartitionChooser,
}

impl TopicWriter {
    /// A producer writing to `topic` with these `properties.*`.
    pub fn new(
        properties: &BTreeMap<String, String>,
        topic: &str,
        partitioner: Partitioner,
    ) -> Result<Self, String> {
        let producer: BaseProducer<Deliveries> = config(properties)
            .create_with_context(Deliveries::default())
            .map_err(|e| crate::config::creation_error("producer", &e))?;
        crate::config::check_reachable(properties)?;
        Ok(TopicWriter {
            producer,
            topic: topic.to_string(),
            chooser: PartitionChooser::new(properties, topic, partitioner)?,
        })
    }

    /// Sends one row written by sink subtask `subtask` (retrying while the
    /// local queue is full).
    pub fn send(
        &mut self,
        key: Option<&[u8]>,
        payload: &[u8],
        timestamp: i64,
        subtask: usize,
    ) -> Result<(), String> {
        let partition = self.chooser.pick(subtask);
        let mut record = BaseRecord::to(&self.topic)
            .payload(payload)
            .timestamp(timestamp);
        if let Some(k) = key {
            record = record.key(k);
        }
        if let Some(p) = partition {
            record = record.partition(p);
        }
        loop {
            match self.producer.send(record) {
                Ok(()) => {
                    self.producer.poll(Duration::ZERO);
                    return self.undelivered();
                }
                Err((
                    rdkafka::error::KafkaError::MessageProduction(
                        rdkafka::types::RDKafkaErrorCode::QueueFull,
                    ),
                    r,
                )) => {
                    record = r;
                    self.producer.poll(Duration::from_millis(50));
                }
                Err((e, _)) => {
                    return Err(format!("writing to topic '{}' failed: {e}", self.topic))
                }
            }
        }
    }

    /// Serves the delivery reports that came in, without waiting: an error
    /// if the broker rejected any row sent so far.
    pub fn poll(&mut self) -> Result<(), String> {
        self.producer.poll(Duration::ZERO);
        self.undelivered()
    }

    /// Whether every row sent so far is acknowledged (delivery reports
    /// served; no wait): an error if the broker rejected any.
    pub fn acknowledged(&mut self) -> Result<bool, String> {
        self.producer.poll(Duration::ZERO);
        self.undelivered()?;
        Ok(self.producer.in_flight_count() == 0)
    }

    /// Waits until every row sent is acknowledged.
    pub fn flush(&self) -> Result<(), String> {
        self.producer
            .flush(Duration::from_secs(30))
            .map_err(|e| format!("flushing topic '{}' failed: {e}", self.topic))?;
        self.undelivered()
    }

    /// An error if the broker rejected any row sent so far.
    fn undelivered(&self) -> Result<(), String> {
        let ctx = self.producer.context();
        match ctx.failed.load(std::sync::atomic::Ordering::Relaxed) {
            0 => Ok(()),
            n => Err(format!(
                "{n} rows were not delivered to topic '{}' (first error: {}); \
                 check the topic, its max.message.bytes and the producer's properties.*",
                self.topic,
                ctx.first
                    .lock()
                    .ok()
                    .and_then(|f| f.clone())
                    .unwrap_or_default()
            )),
        }
    }
}
