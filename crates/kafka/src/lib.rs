//! # lowwater-kafka: Apache Kafka for the live runtime
//!
//! A source subtask owns a set of partitions (assigned by Flink's formula,
//! not by the consumer group protocol, so that the same partition always
//! feeds the same subtask and watermark): [`PartitionReader`] assigns them to
//! one consumer at the offsets `scan.startup.mode` asks for, or at a
//! checkpoint's ([`PartitionReader::restored`]), resolved to numbers so
//! that [`PartitionReader::position`] is what a checkpoint stores, and
//! hands out records with their partition, offset and timestamp.
//! [`TopicWriter`] produces sink rows; for exactly-once sinks,
//! [`TxnProducer`] carries all of a job's Kafka output in one transaction
//! per checkpoint, committed with a marker in a state topic that
//! [`last_committed_marker`] reads back on restore. Offsets go to the consumer group
//! (`properties.group.id`) when the caller commits: what was read
//! ([`PartitionReader::commit`], at least once), or a completed
//! checkpoint's positions ([`PartitionReader::commit_offsets`]).
//!
//! The crate's modules: `config` (client configuration, partitions, topic
//! administration), `reader` (the source consumer), `startup` (start
//! offsets resolved to numbers), `stats` (the consumer's statistics and
//! commit failures), `writer` (the sink producer), `txn` and `txn_error`
//! (the transactional producer and its errors), `marker` (the state topic
//! of commit markers) and `dump` (a topic read once for replay).

mod config;
mod dump;
mod marker;
mod reader;
mod startup;
mod stats;
mod txn;
mod txn_error;
mod writer;

pub use config::{
    add_topic_partitions, check_reachable, create_topic, delete_topics, empty_partitions,
    partition_count, partitions, topic_exists, REQUEST_TIMEOUT,
};
pub use dump::dump_topic;
pub use marker::{ensure_state_topic, last_committed_marker};
pub use reader::{Backlog, KafkaRecord, PartitionReader};
pub use startup::{committed_metadata, first_offsets};
pub use txn::TxnProducer;
pub use txn_error::TxnError;
pub use writer::{PartitionChooser, Partitioner, TopicWriter};
