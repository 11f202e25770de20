//! A built row's way out of a source subtask: the checks on its event time,
//! the watermark, and the route to the window subtasks; and the loop that
//! generates a datagen partition's rows, or reads a file's lines, and sends
//! each on this way without a call (and a frame) per record.

use lowwater_connectors::payload::PayloadRef;
use lowwater_connectors::row::{Built, RecordError, RecordRef};
use lowwater_core::source::SplitId;
use lowwater_core::{Millis, Row, Timestamp};
use lowwater_sql::plan::LateReason;

use super::{Input, Read, SourceTask};
use crate::error::RunError;

impl SourceTask {
    /// Everything after a record of input `i` (split `id`) was built into
    /// `row` at `now` (`nulled`: fields set to NULL by the decoder): its
    /// event time checked, the watermark told, the row routed.
    #[inline(always)]
    pub(crate) fn deliver(
        &mut self,
        i: usize,
        id: SplitId,
        built: Result<Built, RecordError>,
        row: &mut Row,
        nulled: u64,
        now: Timestamp,
    ) -> Result<Read, RunError> {
        let built = built.map_err(|e| self.fail_at(i, e));
        self.records_read += 1;
        self.unpublished.0 += 1;
        let (ts, delete) = match built? {
            Built::Row(ts) => (ts, false),
            Built::Delete(Some(ts)) => (ts, true),
            Built::Delete(None) => return self.timeless_delete(i, id, row),
            Built::Skipped => {
                self.count(id, 1, 0);
                self.track_kafka(i, None);
                return Ok(Read::Record);
            }
        };
        if let Err(e) = self.placeable(ts) {
            if self.rows.ignores_errors() {
                self.count(id, 1, 0);
                self.track_kafka(i, None);
                return Ok(Read::Record);
            }
            return Err(self.fail_at(i, e));
        }
        if let Some(m) = self.rows.table().max_future {
            if ts > now.saturating_add(m) {
                self.future_record(i, id, ts, now, m, row);
                return Ok(Read::Record);
            }
        }
        self.track_kafka(i, Some(ts));
        if nulled > 0 {
            self.count(id, 0, nulled);
        }
        let progress = match self.sub.on_record(id, ts, now) {
            Ok(p) => p,
            Err(e) => return Err(self.fail_at(i, RecordError::other(e.to_string()))),
        };
        if !progress.is_empty() {
            self.flush_all();
            self.broadcast(progress);
        }
        // Joins first: the last INSERT reading the row may move its keys
        // out of it.
        for k in 0..self.join_outs.len() {
            if let Err(e) = self.route_join(k, id, ts, row, delete) {
                return Err(self.fail_at(i, e));
            }
        }
        let read_again = self.read_again(i, ts);
        let mut skipped = false;
        // A tombstone is for joins only (no window reads an upsert table).
        let windows = if delete { 0 } else { self.outs.len() };
        for k in 0..windows {
            if read_again && self.was_written(k, ts) {
                skipped = true;
                continue;
            }
            if let Err(e) = self.route(k, id, ts, row) {
                return Err(self.fail_at(i, e));
            }
        }
        self.rewritten += u64::from(skipped);
        // On-event emission: the watermark this record made due follows it.
        let after = self.sub.after_record(id, now);
        if !after.is_empty() {
            self.flush_all();
            self.broadcast(after);
        }
        Ok(Read::Record)
    }

    /// A tombstone without an event time of a table whose changelog is
    /// normalized (its rowtime is read from the value): it moves no
    /// watermark, and deletes its key's last version at that version's
    /// time in each join it reaches.
    #[cold]
    #[inline(never)]
    fn timeless_delete(&mut self, i: usize, id: SplitId, row: &Row) -> Result<Read, RunError> {
        self.track_kafka(i, None);
        for k in 0..self.join_outs.len() {
            let at = lowwater_core::MIN_WATERMARK;
            if let Err(e) = self.route_join(k, id, at, row, true) {
                return Err(self.fail_at(i, e));
            }
        }
        Ok(Read::Record)
    }

    /// The future-timestamp guard: a record dated further ahead of its
    /// arrival than the table allows (`max_future`) moves no watermark and
    /// joins no window; it is counted, the first of each partition is
    /// named, and it goes to the late-data sink if there is one.
    #[cold]
    #[inline(never)]
    fn future_record(
        &mut self,
        i: usize,
        id: SplitId,
        ts: Timestamp,
        now: Timestamp,
        max_future: Millis,
        row: &Row,
    ) {
        self.track_kafka(i, None);
        let first = match self.shared.sources[self.source].subtasks[self.subtask].lock() {
            Ok(mut v) => {
                let n = v.future.entry(id).or_insert(0);
                *n += 1;
                *n == 1
            }
            Err(_) => false,
        };
        if first {
            tracing::warn!(
                "{}: event time {} is {} ahead of its arrival, more than \
                 lowwater.watermark.max-future ({}) allows: it is kept out of the \
                 watermark and the windows, and counted (later ones of this partition \
                 are counted without a message)",
                self.place(i),
                lowwater_core::time::format_timestamp(ts, ' '),
                lowwater_core::time::display_duration(ts.saturating_sub(now)),
                lowwater_core::time::display_duration(max_future)
            );
        }
        if let Some(late) = self.plan.late_row(self.source) {
            let values = late.values(row, LateReason::Future);
            self.send_late(id, values);
        }
    }

    /// Up to `max` rows of datagen input `i`, generated at `now` into
    /// `row` one after another, completed (their metadata and computed
    /// columns) and delivered; how many, and why it stopped. The schedule
    /// and the partition's end are asked once per run of due rows.
    #[inline(always)]
    fn generate_run(
        &mut self,
        i: usize,
        id: SplitId,
        now: Timestamp,
        row: &mut Row,
        max: usize,
    ) -> (usize, Result<Read, RunError>) {
        let mut n = 0;
        while n < max {
            let ready = match &mut self.inputs[i].1 {
                Input::Gen(g) if !g.finished() => g.reserve(now, (max - n) as u64) as usize,
                _ => return (n, Ok(Read::Exhausted)),
            };
            if ready == 0 {
                // An unbounded partition that never produces (or has a
                // zero rate) is not done: it holds its watermark like a
                // silent Kafka partition.
                let done = matches!(&self.inputs[i].1, Input::Gen(g) if g.finished());
                return (n, Ok(if done { Read::Exhausted } else { Read::Nothing }));
            }
            for _ in 0..ready {
                let Input::Gen(g) = &mut self.inputs[i].1 else {
                    return (n, Ok(Read::Exhausted));
                };
                g.generate_next(now, row);
                let rec = RecordRef {
                    topic: &self.plan.tables[self.rows.table_index()].name,
                    partition: g.partition(),
                    offset: None,
                    ts: now,
                    payload: None,
                    key: None,
                };
                let built = self
                    .rows
                    .complete(rec, row)
                    .and_then(|_| self.rows.event_time(row, self.rows.ignores_errors()));
                if let Err(e) = self.deliver(i, id, built, row, 0, now) {
                    return (n, Err(e));
                }
                n += 1;
            }
        }
        (n, Ok(Read::Record))
    }

    /// The next line of file input `i` decoded into `row` (`nulled`
    /// counts the fields the decoder set to NULL), or why there is none.
    #[inline(always)]
    pub(crate) fn next_line(
        &mut self,
        i: usize,
        now: Timestamp,
        row: &mut Row,
        nulled: &mut u64,
    ) -> Result<Result<Built, RecordError>, Result<Read, RunError>> {
        let Input::Lines { path, reader, line } = &mut self.inputs[i].1 else {
            return Err(Ok(Read::Exhausted));
        };
        let buf = match reader.next_line() {
            Ok(None) => return Err(Ok(Read::Exhausted)),
            Ok(Some(buf)) => buf,
            Err(e) => {
                return Err(Err(RunError::Io(format!(
                    "{}:{}: {e}",
                    path.display(),
                    *line + 1
                ))))
            }
        };
        *line += 1;
        let mut bytes = buf;
        while let [rest @ .., b'\n' | b'\r'] = bytes {
            bytes = rest;
        }
        let rec = RecordRef {
            topic: &self.plan.tables[self.rows.table_index()].name,
            partition: self.names[i].1,
            offset: Some(*line as i64 - 1),
            ts: now,
            payload: Some(PayloadRef::from(bytes)),
            key: None,
        };
        Ok(self.rows.build(rec, row, nulled))
    }

    /// Reads and routes up to `max` records of datagen or file input `i`
    /// in one loop, the way a record is built and delivered inlined into
    /// it (no call and frame per record); returns how many, and why it
    /// stopped (`Record`: `max` were read).
    pub(crate) fn read_run(
        &mut self,
        i: usize,
        now: Timestamp,
        row: &mut Row,
        max: usize,
    ) -> (usize, Result<Read, RunError>) {
        let id = self.inputs[i].0;
        if matches!(self.inputs[i].1, Input::Gen(_)) {
            return self.generate_run(i, id, now, row, max);
        }
        for n in 0..max {
            let mut nulled = 0;
            let built = match self.next_line(i, now, row, &mut nulled) {
                Ok(built) => built,
                Err(read) => return (n, read),
            };
            if let Err(e) = self.deliver(i, id, built, row, nulled, now) {
                return (n, Err(e));
            }
        }
        (max, Ok(Read::Record))
    }

    /// Whether every INSERT reading this source can place event time `ts`
    /// in a window (an absurd time is the record's error, with its place).
    #[inline(always)]
    fn placeable(&self, ts: Timestamp) -> Result<(), RecordError> {
        if ts > self.placeable_above {
            return Ok(());
        }
        self.check_placeable(ts)
    }

    /// [`SourceTask::placeable`] of a time near MIN, against each window.
    #[cold]
    #[inline(never)]
    fn check_placeable(&self, ts: Timestamp) -> Result<(), RecordError> {
        for out in &self.outs {
            let pl = self.plan.pipelines[out.pipeline].first();
            pl.window
                .assigner
                .check(ts)
                .map_err(|e| RecordError::decode(e.to_string()))?;
        }
        Ok(())
    }

    /// Whether the Kafka record just read (of input `i`, at event time
    /// `ts`) is one the last run read and processed, in windows it may have
    /// written (a restart without checkpoints: `crate::written`).
    #[inline(always)]
    fn read_again(&self, i: usize, ts: Timestamp) -> bool {
        match (&self.written, self.kafka_current, &self.inputs[i].1) {
            (Some(w), Some(offset), Input::Kafka) if ts <= w.floor => {
                w.read_to.get(&self.names[i]).is_some_and(|to| offset < *to)
            }
            _ => false,
        }
    }

    /// Whether every window of event time `ts` in the INSERT of output `k`
    /// was written by the last run.
    #[cold]
    fn was_written(&mut self, k: usize, ts: Timestamp) -> bool {
        let Some(w) = &self.written else {
            return false;
        };
        let pipeline = std::iter::once(self.outs[k].pipeline);
        crate::written::all_written(&self.plan, pipeline, ts, w.floor, &mut self.windows_buf)
    }

    #[inline(always)]
    fn track_kafka(&mut self, i: usize, ts: Option<Timestamp>) {
        if let (Input::Kafka, Some(offset)) = (&self.inputs[i].1, self.kafka_current) {
            self.track(i, offset, ts);
        }
    }
}
