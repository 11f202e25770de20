//! A job that reads nothing while the brokers hold records for it.
//!
//! The stall detector explains a watermark stuck while records arrive. Its
//! blind spot is the opposite failure: no record arrives at all although
//! the topic has them (a consumer that cannot fetch: a group coordinator
//! that never became ready, a fetch error librdkafka keeps retrying, a
//! quota). Lag looks like a busy job and the windows just stop. So, per
//! Kafka source table: when no partition has handed out a record for longer
//! than the stall threshold while librdkafka's statistics report records
//! not read yet, one WARN names the partitions and the backlog; one INFO
//! when records flow again.

use lowwater_core::{Millis, Timestamp};

/// What one look at a source says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Nothing to say.
    Quiet,
    /// Reading nothing for this long while this many records wait.
    Stuck { silent: Millis, behind: u64 },
    /// Records flow again after a WARN.
    Resumed,
}

/// The reading progress of one source table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reading {
    records: u64,
    since: Timestamp,
    warned: bool,
}

impl Reading {
    /// A source that has read nothing yet, as of `start`.
    pub fn new(start: Timestamp) -> Self {
        Reading {
            records: 0,
            since: start,
            warned: false,
        }
    }

    /// One look at `now`: `records` read so far by the source; `behind`
    /// gives the records the brokers report not read yet (0 when unknown or
    /// none), asked only when the source has been silent long enough.
    pub fn look(
        &mut self,
        now: Timestamp,
        records: u64,
        threshold: Millis,
        behind: impl FnOnce() -> u64,
    ) -> Verdict {
        if records != self.records {
            self.records = records;
            self.since = now;
            return if std::mem::replace(&mut self.warned, false) {
                Verdict::Resumed
            } else {
                Verdict::Quiet
            };
        }
        let silent = now - self.since;
        if self.warned || silent <= threshold {
            return Verdict::Quiet;
        }
        match behind() {
            0 => Verdict::Quiet,
            behind => {
                self.warned = true;
                Verdict::Stuck { silent, behind }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warns_once_when_nothing_is_read_while_records_wait_and_says_when_it_resumes() {
        let mut r = Reading::new(0);
        assert_eq!(
            r.look(5_000, 0, 3_000, || 0),
            Verdict::Quiet,
            "nothing waits: an idle topic"
        );
        assert_eq!(
            r.look(5_000, 0, 3_000, || 10_000),
            Verdict::Stuck {
                silent: 5_000,
                behind: 10_000
            }
        );
        assert_eq!(
            r.look(9_000, 0, 3_000, || 10_000),
            Verdict::Quiet,
            "one WARN"
        );
        assert_eq!(r.look(9_500, 40, 3_000, || 9_960), Verdict::Resumed);
        assert_eq!(
            r.look(10_000, 80, 3_000, || 9_920),
            Verdict::Quiet,
            "reading"
        );
        assert_eq!(
            r.look(12_000, 80, 3_000, || 9_920),
            Verdict::Quiet,
            "not for long enough"
        );
        assert_eq!(
            r.look(13_001, 80, 3_000, || 9_920),
            Verdict::Stuck {
                silent: 3_001,
                behind: 9_920
            }
        );
    }
}
