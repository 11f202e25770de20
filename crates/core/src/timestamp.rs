//! Where a record's event time comes from (Flink's timestamp assigner).
//!
//! Either a column of the row (a `TIMESTAMP(3)` or epoch-millisecond BIGINT) or
//! the record's own timestamp as the connector delivered it (for Kafka, the
//! message timestamp; `METADATA FROM 'timestamp'` in SQL). A missing or NULL
//! time is an error the caller reports with the record's place: the core never
//! guesses a time, because a guessed time silently moves windows.

use crate::error::{Error, Result};
use crate::time::Timestamp;
use crate::value::Value;

/// How the event time of a record is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimestampAssigner {
    /// The connector's record timestamp (Kafka message timestamp).
    RecordTimestamp,
    /// Column `index` of the row, a TIMESTAMP or BIGINT epoch milliseconds.
    Column(usize),
}

impl TimestampAssigner {
    /// The event time of `row`, whose connector timestamp is `record_ts`.
    pub fn extract(&self, row: &[Value], record_ts: Option<Timestamp>) -> Result<Timestamp> {
        match *self {
            TimestampAssigner::RecordTimestamp => record_ts.ok_or_else(|| {
                Error::MissingTimestamp(
                    "the record has no connector timestamp; declare a time column in the \
                     WATERMARK clause instead"
                        .into(),
                )
            }),
            TimestampAssigner::Column(i) => match row.get(i) {
                Some(Value::Timestamp(t)) | Some(Value::Int(t)) => Ok(*t),
                Some(Value::Null) | None => Err(Error::MissingTimestamp(format!(
                    "the event-time column (position {i}) is NULL or missing"
                ))),
                Some(other) => Err(Error::MissingTimestamp(format!(
                    "the event-time column (position {i}) holds {other}, not a timestamp"
                ))),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_and_record_timestamps() {
        let row = vec![Value::str("k"), Value::Timestamp(42), Value::Null];
        assert_eq!(TimestampAssigner::Column(1).extract(&row, None), Ok(42));
        assert_eq!(
            TimestampAssigner::RecordTimestamp.extract(&row, Some(7)),
            Ok(7)
        );
        assert!(TimestampAssigner::Column(2).extract(&row, Some(7)).is_err());
        assert!(TimestampAssigner::Column(0).extract(&row, Some(7)).is_err());
        assert!(TimestampAssigner::RecordTimestamp
            .extract(&row, None)
            .is_err());
    }
}
