//! Which Kafka offset is safe to commit when a job runs without
//! checkpoints.
//!
//! Without a checkpoint, the only copy of an open window is in memory: an
//! offset committed past a record whose window has not been written yet
//! loses that record on a restart from group offsets. So, per partition,
//! the reader remembers for each record two things: the watermark at which
//! every window it went into has fired (its *release*: for windows of at
//! most `size`, `ts + size - 1`, plus any allowed lateness), and the
//! in-band *mark* the reader sends after it (the record was processed once
//! every window subtask has seen that mark: a late record is then written
//! to its late-data sink, a watermark from another input cannot have
//! overtaken it). It commits only up to the first record not released by
//! both: the operators' watermark (the minimum over window subtasks,
//! published after the fired rows were written) and the marks they have
//! processed. That is at least once: a restart may read again records whose
//! windows were written, never skip one whose window was not. (The live
//! runtime commits the watermark beside the offsets, so that a restart skips
//! the records it reads again of windows already written instead of writing
//! them again with part of their records: `lowwater_runtime`'s `written`.)
//!
//! Records are kept in runs (a first offset and the largest release of up
//! to [`RUN`] records), so memory stays small however long a watermark
//! stalls; the price is that a commit waits for the whole run.

use std::collections::VecDeque;

use crate::time::Timestamp;

/// Records per run.
pub const RUN: u32 = 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Run {
    first: i64,
    release: Timestamp,
    mark: u64,
    count: u32,
    /// Whether a record of the run was late when read (its processing is
    /// known only by its mark).
    late: bool,
}

/// The records of one partition not released yet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitTracker {
    runs: VecDeque<Run>,
    next: Option<i64>,
}

impl CommitTracker {
    /// A tracker with nothing read.
    pub fn new() -> Self {
        CommitTracker::default()
    }

    /// The record at `offset` was read before in-band mark `mark`; its
    /// windows have all fired once the operators' watermark reaches
    /// `release` (`MIN`: it went into no window, e.g. skipped).
    pub fn on_record(&mut self, offset: i64, release: Timestamp, mark: u64) {
        self.next = Some(offset.saturating_add(1));
        match self.runs.back_mut() {
            Some(r) if r.count < RUN => {
                r.release = r.release.max(release);
                r.mark = r.mark.max(mark);
                r.count += 1;
            }
            _ => self.runs.push_back(Run {
                first: offset,
                release,
                mark,
                count: 1,
                late: false,
            }),
        }
    }

    /// Continues after a restore: records from `from` up to `next` (not
    /// included) were read before it, the last of their windows firing at
    /// `release` at the latest (their partition's highest event time plus
    /// the longest window), so they stay needed until then.
    pub fn resume(&mut self, from: i64, release: Timestamp, next: i64) {
        if from < next {
            self.runs.push_back(Run {
                first: from,
                release,
                mark: 0,
                count: RUN,
                late: false,
            });
        }
        self.next = Some(next);
    }

    /// The record just given to [`CommitTracker::on_record`] was late when
    /// read (its windows had fired): it was processed only once its mark
    /// was.
    pub fn late(&mut self) {
        if let Some(r) = self.runs.back_mut() {
            r.late = true;
        }
    }

    /// The offset to commit (the next record to read after a restart) now
    /// that the operators' watermark is `watermark` and every operator has
    /// processed the marks up to `marked`; `None` before any record.
    pub fn committable(&mut self, watermark: Timestamp, marked: u64) -> Option<i64> {
        while self
            .runs
            .front()
            .is_some_and(|r| r.release <= watermark && r.mark <= marked)
        {
            self.runs.pop_front();
        }
        match self.runs.front() {
            Some(r) => Some(r.first),
            None => self.next,
        }
    }

    /// The offset below which every record read whose windows have fired
    /// was processed, now that the operators have processed the marks up
    /// to `marked`. A record read on time reached its windows before they
    /// fired (records come before the watermarks that follow them), so
    /// only a late one waits for its mark (it was counted, or written to
    /// its late-data sink). `None` before any record.
    pub fn processed_to(&self, marked: u64) -> Option<i64> {
        match self.runs.iter().find(|r| r.late && r.mark > marked) {
            Some(r) => Some(r.first),
            None => self.next,
        }
    }

    /// Runs held (for tests and metrics).
    pub fn runs(&self) -> usize {
        self.runs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records read on time are processed once read; a late one only once
    /// its mark was processed.
    #[test]
    fn processed_to_waits_only_for_late_records_marks() {
        let mut t = CommitTracker::new();
        assert_eq!(t.processed_to(0), None);
        for offset in 0..10 {
            t.on_record(offset, 5_000, 1);
        }
        assert_eq!(t.processed_to(0), Some(10), "on time: read is processed");
        for offset in 10..(i64::from(RUN) + 5) {
            t.on_record(offset, 5_000, 2);
        }
        t.late();
        assert_eq!(
            t.processed_to(1),
            Some(i64::from(RUN)),
            "the run holding a late record waits"
        );
        assert_eq!(t.processed_to(2), Some(i64::from(RUN) + 5));
    }

    #[test]
    fn commits_stop_at_the_first_record_whose_window_is_open() {
        let mut t = CommitTracker::new();
        assert_eq!(t.committable(0, 0), None);
        for (offset, release) in [(10, 999), (11, 1999), (12, 999)] {
            t.on_record(offset, release, 1);
        }
        // One run: the largest release decides.
        assert_eq!(t.committable(999, 1), Some(10));
        assert_eq!(t.committable(1999, 0), Some(10), "not processed yet");
        assert_eq!(t.committable(1999, 1), Some(13));
    }

    #[test]
    fn runs_bound_memory_and_release_in_order() {
        let mut t = CommitTracker::new();
        for i in 0..(3 * RUN as i64) {
            t.on_record(i, i, 1);
        }
        assert_eq!(t.runs(), 3);
        assert_eq!(t.committable(RUN as i64 - 1, 1), Some(RUN as i64));
        assert_eq!(
            t.committable(2 * RUN as i64 - 2, 1),
            Some(RUN as i64),
            "a run waits for its last record"
        );
        assert_eq!(t.committable(i64::MAX, 1), Some(3 * RUN as i64));
        assert_eq!(t.runs(), 0);
    }
}
