//! [`TxnProducer`]: the one transactional producer of a job with
//! exactly-once Kafka sinks.
//!
//! The design: all Kafka sink output of a job goes through one producer,
//! one Kafka transaction per checkpoint. The job's state snapshot is
//! written to a file first; the transaction then carries the output rows
//! and one small commit marker (key: the job's name; value: what the
//! caller gives, the checkpoint id and the snapshot's checksum) to a
//! compacted single-partition state topic (`crate::marker`). Committing the
//! transaction is the commit point of the checkpoint: on restore, the last
//! committed marker names the snapshot to restore, and rows of a
//! transaction that did not commit are never seen by `read_committed`
//! consumers.
//!
//! A transaction stays open for a checkpoint interval plus the checkpoint
//! itself, and the broker aborts one older than `transaction.timeout.ms`.
//! [`TxnProducer::new`] therefore refuses a timeout below twice the
//! checkpoint interval plus 10 s: room for a checkpoint as long as an
//! interval, and for the flush and round trips of a short interval.
//! librdkafka's default of 60 s allows an interval up to 25 s; the brokers
//! cap the timeout at their `transaction.max.timeout.ms` (15 min by
//! default), which allows an interval up to 445 s.
//!
//! Delivery reports carry the number of their transaction, so that rows an
//! abort discards do not count against the next transaction.
//!
//! Known limits: a commit that still fails after 3 attempts of 30 s leaves
//! its outcome open until the next producer with this id starts (the
//! marker then tells); a producer that is killed leaves its transaction
//! open, and `read_committed` consumers of its topics wait, until the next
//! producer with the id starts or the broker's timeout aborts it; an abort
//! first sends the rows still queued locally (see `abort_open`).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rdkafka::error::{KafkaError, KafkaResult};
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::Message;

use crate::config::{bootstrap, config};
use crate::txn_error::{classify, Class, TxnError};

/// librdkafka's default `transaction.timeout.ms`.
const DEFAULT_TRANSACTION_TIMEOUT_MS: i64 = 60_000;
/// The room a transaction needs beyond two checkpoint intervals.
const TIMEOUT_ROOM_MS: i64 = 10_000;
/// How long one attempt of `init_transactions`, a commit or an abort may
/// take before it is retried (commits and aborts: flush included).
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// How often a call that failed with a retriable error is made in all.
const ATTEMPTS: u32 = 3;

/// Delivery reports of the transactional producer, counted per
/// transaction: a row the broker refused dooms its transaction only.
#[derive(Default)]
struct TxnDeliveries {
    /// The number of the open transaction (what rows carry as opaque).
    txn: AtomicUsize,
    /// Rows of the open transaction the broker did not acknowledge.
    failed: AtomicU64,
    /// The first of them: where and why.
    first: Mutex<Option<String>>,
}

impl rdkafka::ClientContext for TxnDeliveries {}

impl ProducerContext for TxnDeliveries {
    type DeliveryOpaque = usize;

    fn delivery(&self, result: &DeliveryResult<'_>, txn: usize) {
        if let Err((e, m)) = result {
            if txn == self.txn.load(Ordering::Relaxed) {
                self.failed.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut first) = self.first.lock() {
                    first.get_or_insert_with(|| format!("{}/{}: {e}", m.topic(), m.partition()));
                }
            }
        }
    }
}

impl TxnDeliveries {
    /// Starts counting for transaction `txn`.
    fn start(&self, txn: usize) {
        self.txn.store(txn, Ordering::Relaxed);
        self.failed.store(0, Ordering::Relaxed);
        if let Ok(mut first) = self.first.lock() {
            *first = None;
        }
    }

    /// The rows of the open transaction that failed, if any, said plainly.
    fn undelivered(&self) -> Option<String> {
        match self.failed.load(Ordering::Relaxed) {
            0 => None,
            n => Some(format!(
                "{n} rows were not delivered (first: {}); check the topics, their \
                 max.message.bytes and the producer's properties.*",
                self.first
                    .lock()
                    .ok()
                    .and_then(|f| f.clone())
                    .unwrap_or_default()
            )),
        }
    }
}

/// The transactional producer of a job: one Kafka transaction per
/// checkpoint, committed with the checkpoint's marker.
pub struct TxnProducer {
    producer: BaseProducer<TxnDeliveries>,
    id: String,
    /// The number of the open transaction.
    txn: usize,
    /// When the open transaction's first row was sent (the brokers time a
    /// transaction from its first partition, not from its begin).
    opened: Option<Instant>,
    /// `transaction.timeout.ms`.
    timeout_ms: i64,
}

impl TxnProducer {
    /// A producer with `transactional.id` = `transactional_id` (and
    /// idempotence) over these `properties.*`: checks
    /// `transaction.timeout.ms` against `checkpoint_interval_ms`, fences
    /// any older producer with the same id (aborting its open transaction;
    /// one it was committing is completed first) and begins the first
    /// transaction.
    pub fn new(
        properties: &BTreeMap<String, String>,
        transactional_id: &str,
        checkpoint_interval_ms: i64,
    ) -> Result<Self, TxnError> {
        let timeout_ms = transaction_timeout(properties, checkpoint_interval_ms)?;
        let producer: BaseProducer<TxnDeliveries> = config(properties)
            .set("transactional.id", transactional_id)
            .set("enable.idempotence", "true")
            .create_with_context(TxnDeliveries::default())
            .map_err(|e| {
                TxnError::Config(format!(
                    "{} (transactional id '{transactional_id}'); check the sink's properties.*",
                    crate::config::creation_error("transactional producer", &e)
                ))
            })?;
        let mut p = TxnProducer {
            producer,
            id: transactional_id.to_string(),
            txn: 0,
            opened: None,
            timeout_ms,
        };
        p.init(properties, timeout_ms)?;
        p.begin()?;
        Ok(p)
    }

    /// `init_transactions`, retried while the error is retriable.
    fn init(
        &mut self,
        properties: &BTreeMap<String, String>,
        timeout_ms: i64,
    ) -> Result<(), TxnError> {
        let mut attempt = 1;
        loop {
            let Err(e) = self.producer.init_transactions(CALL_TIMEOUT) else {
                return Ok(());
            };
            match self.class(&e) {
                Class::Retry if attempt < ATTEMPTS => attempt += 1,
                Class::Retry => {
                    return Err(TxnError::Timeout {
                        transactional_id: self.id.clone(),
                        during: "initializing transactions",
                        detail: format!(
                            "no answer from the brokers at {} within {} x {}s: {e}",
                            bootstrap(properties),
                            ATTEMPTS,
                            CALL_TIMEOUT.as_secs()
                        ),
                    })
                }
                Class::TimeoutAboveMax => return Err(above_broker_max(timeout_ms, &e)),
                class => return Err(self.error(class, "initializing transactions", &e)),
            }
        }
    }

    /// How long the open transaction has been open: its rows are not
    /// visible to `read_committed` consumers until it commits, and the
    /// brokers abort it past [`TxnProducer::timeout_ms`].
    pub fn open_for(&self) -> Duration {
        self.opened.map_or(Duration::ZERO, |t| t.elapsed())
    }

    /// The producer's `transaction.timeout.ms`.
    pub fn timeout_ms(&self) -> i64 {
        self.timeout_ms
    }

    /// Begins the next transaction.
    fn begin(&mut self) -> Result<(), TxnError> {
        self.txn = self.txn.wrapping_add(1);
        self.opened = None;
        self.producer.context().start(self.txn);
        self.producer
            .begin_transaction()
            .map_err(|e| self.error(self.class(&e), "beginning a transaction", &e))
    }

    /// Sends one row in the open transaction: to `partition`, or where
    /// the client's partitioner puts it. Retries while the local queue is
    /// full. A row the broker refused, or one that cannot be queued, aborts
    /// the transaction ([`TxnError::Aborted`]).
    pub fn send(
        &mut self,
        topic: &str,
        key: Option<&[u8]>,
        payload: &[u8],
        timestamp: i64,
        partition: Option<i32>,
    ) -> Result<(), TxnError> {
        self.healthy("send")?;
        self.opened.get_or_insert_with(Instant::now);
        let mut record = BaseRecord::with_opaque_to(topic, self.txn)
            .payload(payload)
            .timestamp(timestamp);
        if let Some(k) = key {
            record = record.key(k);
        }
        if let Some(p) = partition {
            record = record.partition(p);
        }
        self.enqueue(record, "send")
    }

    /// Queues `record`, waiting while the local queue is full.
    fn enqueue<K, P>(
        &mut self,
        mut record: BaseRecord<'_, K, P, usize>,
        during: &'static str,
    ) -> Result<(), TxnError>
    where
        K: rdkafka::message::ToBytes + ?Sized,
        P: rdkafka::message::ToBytes + ?Sized,
    {
        loop {
            match self.producer.send(record) {
                Ok(()) => {
                    self.producer.poll(Duration::ZERO);
                    return self.healthy(during);
                }
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), r)) => {
                    record = r;
                    self.producer.poll(Duration::from_millis(50));
                }
                Err((e, r)) => {
                    let class = self.class(&e);
                    if matches!(class, Class::Fenced | Class::Fatal) {
                        return Err(self.error(class, during, &e));
                    }
                    // A row that cannot be queued (too large, say) would be
                    // missing from the transaction: it must not commit.
                    let detail = format!("writing to topic '{}' failed: {e}", r.topic);
                    return Err(self.abort_because(during, detail));
                }
            }
        }
    }

    /// Commits the open transaction with the checkpoint's marker: sends
    /// `marker_value` under `marker_key` to `marker_topic`, flushes every
    /// row, commits (retrying a retriable failure a few times) and begins
    /// the next transaction. When this returns `Ok`, the checkpoint is
    /// committed. An `Err` does not always mean it is not: a commit that
    /// timed out may have completed, and beginning the next transaction
    /// can fail after the commit. The last committed marker
    /// ([`crate::last_committed_marker`]) is what counts on restore.
    pub fn commit(
        &mut self,
        marker_topic: &str,
        marker_key: &str,
        marker_value: &[u8],
    ) -> Result<(), TxnError> {
        self.healthy("commit")?;
        let marker = BaseRecord::with_opaque_to(marker_topic, self.txn)
            .key(marker_key)
            .payload(marker_value);
        self.enqueue(marker, "commit")?;
        let mut attempt = 1;
        loop {
            let Err(e) = self.producer.commit_transaction(CALL_TIMEOUT) else {
                return self.begin();
            };
            match self.class(&e) {
                Class::Retry if attempt < ATTEMPTS => attempt += 1,
                Class::Retry => return Err(self.timed_out("committing", &e)),
                Class::Abort => {
                    let detail = match self.producer.context().undelivered() {
                        Some(rows) => format!("{e}; {rows}"),
                        None => e.to_string(),
                    };
                    return Err(self.abort_because("commit", detail));
                }
                class => return Err(self.error(class, "commit", &e)),
            }
        }
    }

    /// Aborts the open transaction (its rows are never visible to
    /// `read_committed` consumers) and begins the next one.
    pub fn abort(&mut self) -> Result<(), TxnError> {
        let mut attempt = 1;
        loop {
            let Err(e) = abort_open(&self.producer, CALL_TIMEOUT) else {
                return self.begin();
            };
            match self.class(&e) {
                Class::Retry if attempt < ATTEMPTS => attempt += 1,
                Class::Retry => return Err(self.timed_out("aborting", &e)),
                class => return Err(self.error(class, "abort", &e)),
            }
        }
    }

    /// Aborts because of `detail`, returning what to report: `Aborted`, or
    /// the error the abort itself met.
    fn abort_because(&mut self, during: &'static str, detail: String) -> TxnError {
        match self.abort() {
            Ok(()) => TxnError::Aborted {
                transactional_id: self.id.clone(),
                during,
                detail,
            },
            Err(e) => e,
        }
    }

    /// An error if the producer is fenced or failed, or if a row of the
    /// open transaction was refused (which aborts the transaction).
    fn healthy(&mut self, during: &'static str) -> Result<(), TxnError> {
        if let Some((code, reason)) = self.producer.client().fatal_error() {
            let class = classify(&KafkaError::MessageProduction(code), Some(code));
            return Err(self.error_from(class, during, reason));
        }
        match self.producer.context().undelivered() {
            None => Ok(()),
            Some(detail) => Err(self.abort_because(during, detail)),
        }
    }

    fn class(&self, e: &KafkaError) -> Class {
        let fatal = self.producer.client().fatal_error().map(|(code, _)| code);
        classify(e, fatal)
    }

    fn error(&self, class: Class, during: &'static str, e: &KafkaError) -> TxnError {
        let detail = match self.producer.client().fatal_error() {
            Some((_, reason)) => reason,
            None => e.to_string(),
        };
        self.error_from(class, during, detail)
    }

    fn error_from(&self, class: Class, during: &'static str, detail: String) -> TxnError {
        let transactional_id = self.id.clone();
        let open_ms = i64::try_from(self.open_for().as_millis()).unwrap_or(i64::MAX);
        match class {
            // The brokers abort a transaction older than its timeout and
            // bump the producer's epoch: the producer learns it as a fence,
            // though no other producer exists.
            Class::Fenced if self.opened.is_some() && open_ms >= self.timeout_ms => {
                TxnError::Expired {
                    transactional_id,
                    open_ms,
                    timeout_ms: self.timeout_ms,
                    detail,
                }
            }
            Class::Fenced => TxnError::Fenced {
                transactional_id,
                detail,
            },
            Class::Retry => TxnError::Timeout {
                transactional_id,
                during,
                detail,
            },
            Class::Abort => TxnError::Aborted {
                transactional_id,
                during,
                detail,
            },
            Class::TimeoutAboveMax | Class::Fatal => TxnError::Fatal {
                transactional_id,
                during,
                detail,
            },
        }
    }

    fn timed_out(&self, during: &'static str, e: &KafkaError) -> TxnError {
        TxnError::Timeout {
            transactional_id: self.id.clone(),
            during,
            detail: format!("{ATTEMPTS} attempts of {}s: {e}", CALL_TIMEOUT.as_secs()),
        }
    }
}

impl Drop for TxnProducer {
    /// Aborts the open transaction, so that `read_committed` consumers do
    /// not wait on it until the broker times it out. Nothing is reported
    /// (a fenced or failed producer cannot abort; the broker or the next
    /// producer with this id aborts it instead).
    fn drop(&mut self) {
        if self.producer.client().fatal_error().is_none() {
            let _aborted = abort_open(&self.producer, Duration::from_secs(5));
        }
    }
}

/// Aborts the open transaction. librdkafka waits for the delivery reports
/// of the transaction's rows, which only a poll serves (rdkafka's event
/// API), so a flush runs first: the rows still queued are sent, then
/// aborted. (Purging them here instead would leave gaps in the idempotent
/// sequence that fail the next transaction; librdkafka's own purge in the
/// abort is marked as part of it.)
fn abort_open(producer: &BaseProducer<TxnDeliveries>, timeout: Duration) -> KafkaResult<()> {
    producer.flush(timeout)?;
    producer.abort_transaction(timeout)
}

/// `transaction.timeout.ms` of `properties` (librdkafka's default when not
/// set), if it leaves room for a checkpoint interval of
/// `checkpoint_interval_ms`: at least 2 x the interval + 10 s.
fn transaction_timeout(
    properties: &BTreeMap<String, String>,
    checkpoint_interval_ms: i64,
) -> Result<i64, TxnError> {
    if checkpoint_interval_ms <= 0 {
        return Err(TxnError::Config(format!(
            "an exactly-once Kafka sink needs checkpoints: the checkpoint interval is \
             {checkpoint_interval_ms} ms"
        )));
    }
    let timeout = match properties.get("transaction.timeout.ms") {
        None => DEFAULT_TRANSACTION_TIMEOUT_MS,
        Some(v) => v.trim().parse().map_err(|_| {
            TxnError::Config(format!(
                "'properties.transaction.timeout.ms' = '{v}' is not a number of milliseconds"
            ))
        })?,
    };
    let needed = checkpoint_interval_ms
        .saturating_mul(2)
        .saturating_add(TIMEOUT_ROOM_MS);
    if timeout < needed {
        return Err(TxnError::Config(format!(
            "transaction.timeout.ms is {timeout} ms{}, too short for a checkpoint interval of \
             {checkpoint_interval_ms} ms: a Kafka transaction stays open for a checkpoint \
             interval plus the checkpoint, and the broker aborts it after the timeout. The \
             rule: transaction.timeout.ms >= 2 x checkpoint interval + 10 s. Set \
             'properties.transaction.timeout.ms' = '{needed}' (at most the brokers' \
             transaction.max.timeout.ms, 900000 by default), or a checkpoint interval of at \
             most {} ms",
            if properties.contains_key("transaction.timeout.ms") {
                ""
            } else {
                " (librdkafka's default)"
            },
            ((timeout - TIMEOUT_ROOM_MS) / 2).max(0)
        )));
    }
    Ok(timeout)
}

/// The brokers refused `transaction.timeout.ms` in `init_transactions`.
fn above_broker_max(timeout_ms: i64, e: &KafkaError) -> TxnError {
    TxnError::Config(format!(
        "the Kafka brokers refuse 'properties.transaction.timeout.ms' = '{timeout_ms}': it is \
         above their transaction.max.timeout.ms (900000 = 15 min by default) ({e}). Set \
         'properties.transaction.timeout.ms' to at most the brokers' maximum (with a \
         checkpoint interval of at most (that - 10 s) / 2), or raise \
         transaction.max.timeout.ms on the brokers"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_default_timeout_allows_a_25_s_interval() {
        assert_eq!(transaction_timeout(&props(&[]), 25_000), Ok(60_000));
        let e = transaction_timeout(&props(&[]), 25_001).expect_err("too short");
        assert!(e.to_string().contains("librdkafka's default"), "{e}");
    }

    #[test]
    fn a_short_timeout_is_refused_with_the_rule_and_the_fix() {
        let p = props(&[("transaction.timeout.ms", "60000")]);
        let e = transaction_timeout(&p, 60_000).expect_err("too short");
        let m = e.to_string();
        assert!(matches!(e, TxnError::Config(_)));
        assert!(m.contains("2 x checkpoint interval + 10 s"), "{m}");
        assert!(
            m.contains("'properties.transaction.timeout.ms' = '130000'"),
            "{m}"
        );
        assert!(m.contains("at most 25000 ms"), "{m}");
        let p = props(&[("transaction.timeout.ms", "130000")]);
        assert_eq!(transaction_timeout(&p, 60_000), Ok(130_000));
    }

    #[test]
    fn a_timeout_that_is_not_a_number_or_no_checkpoints_is_refused() {
        let p = props(&[("transaction.timeout.ms", "1m")]);
        assert!(transaction_timeout(&p, 1_000).is_err());
        assert!(transaction_timeout(&props(&[]), 0).is_err());
    }
}
