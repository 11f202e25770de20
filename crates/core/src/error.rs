//! Errors of the event-time core.
//!
//! Every error says what is wrong and what to do. [`Error::class`] tells the
//! caller whether the user can fix it (a configuration or a record) or whether
//! it is a bug in lowwater; callers add the place (topic, partition, offset or
//! file and line), which the pure core does not know.

use crate::time::Timestamp;

/// Who can fix an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// A configuration or job definition the user can change.
    Config,
    /// A record that cannot be processed as it is (bad or absurd data).
    Data,
}

/// An error raised by the event-time core.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A window definition that Flink would reject too.
    #[error("invalid window: {0}")]
    InvalidWindow(String),
    /// A watermark strategy that cannot work (for example a zero idle timeout).
    #[error("invalid watermark strategy: {0}")]
    InvalidStrategy(String),
    /// A record's event time cannot be placed in a window.
    #[error(
        "event time {ts} cannot be assigned to a window: it lies at the minimum timestamp \
         (a missing or null time column?); fix the record or its timestamp column"
    )]
    TimestampOutOfRange {
        /// The offending event time.
        ts: Timestamp,
    },
    /// A record whose time column is missing, null or not a time.
    #[error("no usable event time: {0}")]
    MissingTimestamp(String),
    /// A parallelism, partition or split index outside its range.
    #[error("invalid parallelism or index: {0}")]
    InvalidIndex(String),
    /// A checkpoint that cannot be read, or does not fit the job.
    #[error("checkpoint: {0}")]
    Checkpoint(String),
}

impl Error {
    /// Whether the user fixes this in the job definition or in the data.
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::TimestampOutOfRange { .. } | Error::MissingTimestamp(_) => ErrorClass::Data,
            _ => ErrorClass::Config,
        }
    }
}

/// Result type of the core.
pub type Result<T> = std::result::Result<T, Error>;
