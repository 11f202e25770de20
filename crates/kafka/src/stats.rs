//! [`Stats`]: the consumer context of a [`crate::PartitionReader`]. It
//! keeps what librdkafka's statistics say about each partition (fetch
//! position, end offset, records received), which the reader's backlog is
//! computed from, and the first failure of an asynchronous offset commit,
//! which would otherwise only reach a log.

use std::collections::BTreeMap;
use std::sync::Mutex;

use rdkafka::consumer::ConsumerContext;
use rdkafka::error::{KafkaError, KafkaResult};
use rdkafka::statistics::Statistics;
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::TopicPartitionList;

/// What librdkafka's statistics say about one partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FetchState {
    /// When these statistics arrived.
    pub(crate) at: std::time::Instant,
    /// Whether the partition is being fetched from a known leader (not
    /// stopped, resolving its offset, or waiting for a leader).
    pub(crate) fetching: bool,
    /// The next offset the fetcher will ask for.
    pub(crate) next_offset: i64,
    /// The end a consumer can read to: the last stable offset under
    /// `read_committed` (librdkafka's default), else the high watermark.
    pub(crate) end: i64,
    /// Records the fetcher received from the partition so far.
    pub(crate) received: u64,
}

/// Collects the consumer's statistics (per-partition fetch positions and
/// end offsets), delivered by librdkafka every `statistics.interval.ms`
/// from inside `poll`, and failed asynchronous commits.
#[derive(Default)]
pub(crate) struct Stats {
    pub(crate) read_committed: bool,
    /// `statistics.interval.ms`: statistics older than a few intervals are
    /// not trusted.
    pub(crate) interval_ms: u64,
    pub(crate) partitions: Mutex<BTreeMap<(String, i32), FetchState>>,
    /// The first asynchronous commit that failed since it was last taken.
    pub(crate) commit_error: Mutex<Option<String>>,
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

impl ConsumerContext for Stats {
    fn commit_callback(&self, result: KafkaResult<()>, _: &TopicPartitionList) {
        match result {
            // Nothing to commit is not a failure.
            Ok(()) | Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::NoOffset)) => {}
            Err(e) => {
                if let Ok(mut first) = self.commit_error.lock() {
                    first.get_or_insert_with(|| format!("committing offsets failed: {e}"));
                }
            }
        }
    }
}

impl Stats {
    /// The first failed asynchronous commit since the last call, if any.
    pub(crate) fn take_commit_error(&self) -> Option<String> {
        self.commit_error.lock().ok().and_then(|mut e| e.take())
    }
}
