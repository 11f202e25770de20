//! [`TxnError`]: what went wrong with the transactional producer of an
//! exactly-once sink, in the classes the caller acts on differently, and
//! how librdkafka's errors map onto them.
//!
//! librdkafka sorts transactional errors itself (its transactions guide,
//! `rd_kafka_error_is_fatal`, `_is_retriable`, `_txn_requires_abort`):
//! - fenced: a newer producer with the same `transactional.id` ran
//!   `init_transactions` (`PRODUCER_FENCED`, `INVALID_PRODUCER_EPOCH`, or
//!   librdkafka's own `_FENCED`). Checked first: it is also fatal, but
//!   the caller must know that another instance owns the output now;
//! - `INVALID_TRANSACTION_TIMEOUT`: the brokers' `transaction.max.timeout.ms`
//!   is below `transaction.timeout.ms`, a configuration error;
//! - fatal: the producer instance cannot be used again;
//! - abortable (`txn_requires_abort`): the transaction must be aborted, the
//!   producer can go on with a new one;
//! - retriable: the same call may be made again (a timeout, a coordinator
//!   that moved).
//!
//! A row librdkafka refuses to queue (too large, or the transaction already
//! in an abortable state) dooms its transaction: abort. Anything else is
//! treated as fatal.
//!
//! (Display and Error are written out rather than derived with thiserror:
//! this crate does not depend on it, and adding the dependency would change
//! the shared Cargo.lock.)

use std::fmt;

use rdkafka::error::KafkaError;
use rdkafka::types::RDKafkaErrorCode;

/// A failure of [`crate::TxnProducer`], by what the caller does about it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TxnError {
    /// Another producer with the same transactional id took over (a newer
    /// instance of the job): this instance must stop. Its open transaction
    /// is aborted by the broker; nothing it sent since its last commit
    /// becomes visible.
    Fenced {
        /// The transactional id both producers use.
        transactional_id: String,
        /// librdkafka's message.
        detail: String,
    },
    /// The brokers did not answer in time, also after retries. For a
    /// commit, the outcome is unknown until the next producer with this id
    /// starts; the last committed marker then says which checkpoint
    /// committed. Drop this producer.
    Timeout {
        /// The producer's transactional id.
        transactional_id: String,
        /// The call that timed out ("commit", "init", ...).
        during: &'static str,
        /// librdkafka's message.
        detail: String,
    },
    /// The open transaction was aborted (a row the broker refused, or the
    /// broker aborted the transaction): every row sent since the last
    /// commit is discarded and the next transaction has begun. The caller
    /// fails the checkpoint and goes back to the last committed one.
    Aborted {
        /// The producer's transactional id.
        transactional_id: String,
        /// The call that found it ("send", "commit").
        during: &'static str,
        /// What failed.
        detail: String,
    },
    /// The producer cannot be used again (librdkafka raised a fatal error).
    Fatal {
        /// The producer's transactional id.
        transactional_id: String,
        /// The call that failed.
        during: &'static str,
        /// librdkafka's message.
        detail: String,
    },
    /// The brokers aborted the open transaction because it was open longer
    /// than `transaction.timeout.ms` (no checkpoint committed it in time),
    /// and fenced this producer doing so. No other instance is involved;
    /// what the transaction held since the last commit is discarded.
    Expired {
        /// The producer's transactional id.
        transactional_id: String,
        /// How long the transaction had been open when this was found.
        open_ms: i64,
        /// The producer's `transaction.timeout.ms`.
        timeout_ms: i64,
        /// librdkafka's message.
        detail: String,
    },
    /// The configuration cannot work; the message says what to set.
    Config(String),
}

impl fmt::Display for TxnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TxnError::Fenced {
                transactional_id,
                detail,
            } => write!(
                f,
                "another producer with transactional id '{transactional_id}' took over \
                 (a newer instance of this job, or another job with the same name): \
                 this instance is fenced and stops; what it sent since its last commit \
                 is discarded ({detail})"
            ),
            TxnError::Timeout {
                transactional_id,
                during,
                detail,
            } => write!(
                f,
                "the Kafka transaction of '{transactional_id}' did not finish {during} in time, \
                 also after retries ({detail}); check that the brokers run and are reachable. \
                 The job restarts from the checkpoint the last committed marker names"
            ),
            TxnError::Aborted {
                transactional_id,
                during,
                detail,
            } => write!(
                f,
                "the Kafka transaction of '{transactional_id}' was aborted during {during} \
                 ({detail}); the rows sent since the last commit are discarded"
            ),
            TxnError::Fatal {
                transactional_id,
                during,
                detail,
            } => write!(
                f,
                "the transactional Kafka producer '{transactional_id}' failed during {during} \
                 and cannot go on: {detail}"
            ),
            TxnError::Expired {
                transactional_id,
                open_ms,
                timeout_ms,
                detail,
            } => write!(
                f,
                "the brokers aborted the Kafka transaction of '{transactional_id}': it had been \
                 open for {}, longer than transaction.timeout.ms ({}), because no checkpoint \
                 committed it in that time; no other instance took over (the brokers fence the \
                 producer of a transaction they abort, and librdkafka then speaks of a newer \
                 instance). What it held since the last commit is discarded (librdkafka: \
                 {detail})",
                seconds(*open_ms),
                seconds(*timeout_ms)
            ),
            TxnError::Config(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for TxnError {}

/// Milliseconds as seconds, the way Kafka's settings are usually read
/// (`60 s`, `12.5 s`).
fn seconds(ms: i64) -> String {
    if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// What to do about a failed transactional call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// A newer producer with the same id took over.
    Fenced,
    /// `transaction.timeout.ms` above the brokers' maximum.
    TimeoutAboveMax,
    /// The producer cannot go on.
    Fatal,
    /// Abort the transaction; the producer can go on.
    Abort,
    /// The call may be made again.
    Retry,
}

/// Whether `code` says that a newer producer fenced this one.
fn is_fenced(code: RDKafkaErrorCode) -> bool {
    matches!(
        code,
        RDKafkaErrorCode::ProducerFenced
            | RDKafkaErrorCode::InvalidProducerEpoch
            | RDKafkaErrorCode::Fenced
    )
}

/// The class of a fatal error librdkafka raised on the producer.
fn fatal_class(code: RDKafkaErrorCode) -> Class {
    if is_fenced(code) {
        Class::Fenced
    } else if code == RDKafkaErrorCode::InvalidTransactionTimeout {
        Class::TimeoutAboveMax
    } else {
        Class::Fatal
    }
}

/// The class of `e`, given the producer's fatal error if it has one (which
/// decides: a call can fail with a generic code after the fatal one).
pub(crate) fn classify(e: &KafkaError, fatal: Option<RDKafkaErrorCode>) -> Class {
    if let Some(code) = fatal {
        return fatal_class(code);
    }
    match e {
        KafkaError::Transaction(rd) => match fatal_class(rd.code()) {
            Class::Fatal if rd.is_fatal() => Class::Fatal,
            Class::Fatal if rd.txn_requires_abort() => Class::Abort,
            Class::Fatal if rd.is_retriable() => Class::Retry,
            class => class,
        },
        // The flush before a commit ran out of time: the commit may be
        // tried again (it flushes again).
        KafkaError::Flush(_) => Class::Retry,
        // A row not queued (too large, or the transaction already in an
        // abortable state): the transaction must not commit without it.
        KafkaError::MessageProduction(code) => match fatal_class(*code) {
            Class::Fatal if *code != RDKafkaErrorCode::Fatal => Class::Abort,
            class => class,
        },
        other => other.rdkafka_error_code().map_or(Class::Fatal, fatal_class),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fatal_error_decides_over_the_calls_own_error() {
        let e = KafkaError::Flush(RDKafkaErrorCode::MessageTimedOut);
        assert_eq!(classify(&e, None), Class::Retry);
        for fenced in [
            RDKafkaErrorCode::ProducerFenced,
            RDKafkaErrorCode::InvalidProducerEpoch,
            RDKafkaErrorCode::Fenced,
        ] {
            assert_eq!(classify(&e, Some(fenced)), Class::Fenced);
        }
        let timeout = Some(RDKafkaErrorCode::InvalidTransactionTimeout);
        assert_eq!(classify(&e, timeout), Class::TimeoutAboveMax);
        let other = Some(RDKafkaErrorCode::TransactionalIdAuthorizationFailed);
        assert_eq!(classify(&e, other), Class::Fatal);
    }

    #[test]
    fn a_row_not_queued_aborts_unless_the_producer_is_fenced_or_failed() {
        let code = |c| classify(&KafkaError::MessageProduction(c), None);
        assert_eq!(code(RDKafkaErrorCode::MessageSizeTooLarge), Class::Abort);
        assert_eq!(code(RDKafkaErrorCode::State), Class::Abort);
        assert_eq!(code(RDKafkaErrorCode::ProducerFenced), Class::Fenced);
        assert_eq!(code(RDKafkaErrorCode::Fatal), Class::Fatal);
    }

    #[test]
    fn other_errors_are_fatal_unless_they_say_fenced() {
        let e = KafkaError::MetadataFetch(RDKafkaErrorCode::BrokerTransportFailure);
        assert_eq!(classify(&e, None), Class::Fatal);
        let e = KafkaError::MetadataFetch(RDKafkaErrorCode::ProducerFenced);
        assert_eq!(classify(&e, None), Class::Fenced);
    }

    #[test]
    fn fenced_says_that_this_instance_stops() {
        let e = TxnError::Fenced {
            transactional_id: "job".to_string(),
            detail: "x".to_string(),
        };
        let m = e.to_string();
        assert!(m.contains("took over") && m.contains("stops"), "{m}");
    }
}
