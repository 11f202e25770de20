//! Exactly-once Kafka output: one Kafka transaction per checkpoint.
//!
//! Every Kafka sink of the job with `'sink.delivery-guarantee' =
//! 'exactly-once'` writes through one transactional producer, whose
//! `transactional.id` comes from `sink.transactional-id-prefix` (a newer
//! instance of the job fences an older one, and the open transaction of a
//! crashed one is aborted when the job starts again). At a checkpoint, once
//! every window subtask has handed in its state, the coordinator writes the
//! checkpoint file and then commits the transaction together with a marker
//! naming that checkpoint in a compacted state topic. The commit is the one
//! commit point:
//! - it fails or the process dies before it: the rows are never visible to
//!   `read_committed` readers, the marker still names the previous
//!   checkpoint, and a restart restores that one (the newer file is ignored
//!   and later replaced);
//! - it succeeds: rows and marker are visible together, and the file the
//!   marker names was written before.
//!
//! While a transaction commits, the window subtasks that handed in their
//! state wait, so that no row of the next checkpoint enters this
//! transaction; output reaches `read_committed` readers once per checkpoint.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use lowwater_core::checkpoint::CheckpointId;
use lowwater_core::Timestamp;
use lowwater_kafka::{TxnError, TxnProducer};
use lowwater_sql::options::Connector;
use lowwater_sql::plan::JobPlan;

use crate::error::RunError;

/// The job's transactional producer and where its markers go.
pub(crate) struct ExactlyOnce {
    pub producer: Arc<Mutex<TxnProducer>>,
    state_topic: String,
    key: String,
    properties: BTreeMap<String, String>,
}

impl ExactlyOnce {
    /// The producer of a job with exactly-once sinks (`None` without).
    /// Creating it fences an older instance of the job and settles what that
    /// one left open.
    pub fn open(plan: &JobPlan, job_name: &str) -> Result<Option<Self>, RunError> {
        let sinks: Vec<_> = plan.tables.iter().filter(|t| t.exactly_once()).collect();
        let Some(first) = sinks.first() else {
            return Ok(None);
        };
        let Connector::Kafka { properties, .. } = &first.connector else {
            return Ok(None);
        };
        let servers = |p: &BTreeMap<String, String>| p.get("bootstrap.servers").cloned();
        for t in &sinks[1..] {
            if let Connector::Kafka {
                properties: other, ..
            } = &t.connector
            {
                if servers(other) != servers(properties) {
                    return Err(RunError::Usage(format!(
                        "exactly-once sinks '{}' and '{}' write to different Kafka clusters; one \
                         transaction cannot span clusters",
                        first.name, t.name
                    )));
                }
            }
        }
        lowwater_kafka::check_reachable(properties)
            .map_err(|e| RunError::Usage(format!("sink '{}': {e}", first.name)))?;
        let prefix = first.transactional_id_prefix().unwrap_or(job_name);
        let interval = plan.settings.checkpoints.interval.unwrap_or(0);
        let id = format!("{prefix}-lowwater");
        let producer = TxnProducer::new(properties, &id, interval)
            .map_err(|e| RunError::Usage(format!("sink '{}': {e}", first.name)))?;
        let state_topic = format!("{prefix}.lowwater-checkpoints");
        lowwater_kafka::ensure_state_topic(properties, &state_topic)
            .map_err(|e| RunError::Usage(format!("sink '{}': {e}", first.name)))?;
        tracing::info!(
            "exactly-once output: transactional id '{id}', commit markers in topic '{state_topic}'; \
             rows become visible to read_committed readers at each checkpoint"
        );
        Ok(Some(ExactlyOnce {
            producer: Arc::new(Mutex::new(producer)),
            state_topic,
            key: job_name.to_string(),
            properties: properties.clone(),
        }))
    }

    /// The newest checkpoint whose output was committed, with the CRC of
    /// its file (markers name both: `checkpoint <id> crc <hex>`).
    pub fn committed(&self) -> Result<Option<Marker>, RunError> {
        let marker =
            lowwater_kafka::last_committed_marker(&self.properties, &self.state_topic, &self.key)
                .map_err(RunError::Io)?;
        Ok(marker.and_then(|m| Marker::parse(&String::from_utf8_lossy(&m))))
    }

    /// How long the open transaction has been open, and the brokers'
    /// limit for it (`transaction.timeout.ms`), in milliseconds. `None`
    /// while a sink holds the producer (this never waits for it).
    pub fn open_transaction(&self) -> Option<(i64, i64)> {
        let p = self.producer.try_lock().ok()?;
        let open = i64::try_from(p.open_for().as_millis()).unwrap_or(i64::MAX);
        Some((open, p.timeout_ms()))
    }

    /// Commits the open transaction with the marker of checkpoint `id`
    /// (whose file has CRC `crc`; 0 for no checkpoint) and, per INSERT,
    /// the watermark up to which its windows were written (`fired`; `None`
    /// where that does not say what was written: a join's rows).
    pub fn commit(
        &self,
        id: CheckpointId,
        crc: u32,
        fired: Option<Vec<Timestamp>>,
    ) -> Result<(), String> {
        let mut p = self
            .producer
            .lock()
            .map_err(|_| "the transactional producer is poisoned".to_string())?;
        let marker = Marker {
            id,
            crc: Some(crc),
            fired,
        }
        .to_string();
        p.commit(&self.state_topic, &self.key, marker.as_bytes())
            .map_err(|e| describe(&e))
    }
}

/// The commit marker of a checkpoint: its id and the CRC of its file, so
/// that a restore finds the very file whose output was committed (and not
/// one another instance of the job wrote over it); and, per INSERT, the
/// watermark up to which its windows had been written, so that when that
/// file cannot be read an older checkpoint restores without writing any
/// of them again (`crate::restore`). Text: `checkpoint <id> crc <hex>
/// [fired <wm>,<wm>,...]` (older markers lack the last part, and older
/// lowwater versions ignore it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marker {
    pub id: CheckpointId,
    pub crc: Option<u32>,
    pub fired: Option<Vec<Timestamp>>,
}

impl Marker {
    fn parse(text: &str) -> Option<Self> {
        let mut words = text.strip_prefix("checkpoint ")?.split_whitespace();
        let id = words.next()?.parse().ok()?;
        let crc = match (words.next(), words.next()) {
            (Some("crc"), Some(hex)) => Some(u32::from_str_radix(hex, 16).ok()?),
            _ => None,
        };
        // An unreadable list only loses the fallback, not the marker.
        let fired = match (words.next(), words.next()) {
            (Some("fired"), Some(list)) => list
                .split(',')
                .map(|w| w.parse().ok())
                .collect::<Option<Vec<Timestamp>>>(),
            _ => None,
        };
        Some(Marker { id, crc, fired })
    }
}

impl std::fmt::Display for Marker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "checkpoint {}", self.id)?;
        if let Some(crc) = self.crc {
            write!(f, " crc {crc:08x}")?;
        }
        if let Some(fired) = self.fired.as_ref().filter(|f| !f.is_empty()) {
            let list: Vec<String> = fired.iter().map(Timestamp::to_string).collect();
            write!(f, " fired {}", list.join(","))?;
        }
        Ok(())
    }
}

/// A transaction error as the job reports it when it stops.
pub(crate) fn describe(e: &TxnError) -> String {
    match e {
        TxnError::Fenced { .. } => format!(
            "{e}. Another instance of this job (same sink.transactional-id-prefix) is running; \
             this one stops, its uncommitted output is discarded"
        ),
        TxnError::Expired { .. } => format!(
            "{e}. The job stops; the same command continues from the last committed checkpoint \
             and writes that output again (nothing committed is lost or written twice). Find why \
             the checkpoints failed (the WARNs above), or give a transaction more time with \
             'properties.transaction.timeout.ms' (up to the brokers' \
             transaction.max.timeout.ms, 15 min by default)"
        ),
        _ => format!(
            "{e}. The job stops; the same command continues from the last committed checkpoint \
             (nothing committed is lost or written twice)"
        ),
    }
}

/// One exactly-once sink table's side of the transactional producer.
pub(crate) struct TxnSink {
    producer: Arc<Mutex<TxnProducer>>,
    topic: String,
    chooser: lowwater_kafka::PartitionChooser,
}

impl TxnSink {
    pub fn new(
        eo: &ExactlyOnce,
        properties: &BTreeMap<String, String>,
        topic: &str,
        partitioner: lowwater_kafka::Partitioner,
    ) -> Result<Self, String> {
        Ok(TxnSink {
            producer: eo.producer.clone(),
            topic: topic.to_string(),
            chooser: lowwater_kafka::PartitionChooser::new(properties, topic, partitioner)?,
        })
    }

    /// Sends one row of sink subtask `subtask` into the open transaction.
    pub fn send(
        &mut self,
        key: Option<&[u8]>,
        payload: &[u8],
        timestamp: i64,
        subtask: usize,
    ) -> Result<(), String> {
        let partition = self.chooser.pick(subtask);
        let mut p = self
            .producer
            .lock()
            .map_err(|_| "the transactional producer is poisoned".to_string())?;
        p.send(&self.topic, key, payload, timestamp, partition)
            .map_err(|e| describe(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_round_trip_and_old_ones_parse() {
        let m = Marker {
            id: 42,
            crc: Some(0xdead_beef),
            fired: None,
        };
        assert_eq!(m.to_string(), "checkpoint 42 crc deadbeef");
        assert_eq!(Marker::parse(&m.to_string()), Some(m.clone()));
        let with = Marker {
            fired: Some(vec![1_757_808_059_999, i64::MIN]),
            ..m
        };
        assert_eq!(
            with.to_string(),
            "checkpoint 42 crc deadbeef fired 1757808059999,-9223372036854775808"
        );
        assert_eq!(Marker::parse(&with.to_string()), Some(with));
        assert_eq!(
            Marker::parse("checkpoint 7"),
            Some(Marker {
                id: 7,
                crc: None,
                fired: None
            })
        );
        assert_eq!(Marker::parse("something else"), None);
    }
}
