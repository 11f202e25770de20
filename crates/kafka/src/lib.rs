//! # lowwater-kafka: Apache Kafka for the live runtime
//!
//! A source subtask owns a set of partitions (assigned by Flink's formula,
//! not by the consumer group protocol, so that the same partition always
//! feeds the same subtask and watermark): [`PartitionReader`] assigns them to
//! one consumer at the offsets `scan.startup.mode` asks for and hands out
//! records with their partition, offset and timestamp. [`TopicWriter`]
//! produces sink rows. Offsets are committed to the consumer group
//! (`properties.group.id`) as records are read, at least once.
//!
//! The crate's modules: `config` (client configuration, partitions, topic
//! administration), `reader` (the source consumer and its statistics),
//! `writer` (the sink producer) and `dump` (a topic read once for replay).

mod config;
mod dump;
mod reader;
mod writer;

pub use config::{add_topic_partitions, create_topic, partitions, REQUEST_TIMEOUT};
pub use dump::dump_topic;
pub use reader::{Backlog, KafkaRecord, PartitionReader};
pub use writer::{Partitioner, TopicWriter};
