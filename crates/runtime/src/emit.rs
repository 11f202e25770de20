//! What a window subtask writes: its fired windows' rows (and late rows)
//! into the sinks, with their emission lag against the system clock.
//!
//! A batch of results is written under one lock of its sink (taken again
//! only when the next row goes to another sink), into one reused row, and
//! the sink's counters are published at its flush (and every 4,096 rows of
//! a longer batch), not under a lock per row. A ranking pipeline's
//! watermark is written at once, so that a failed ranking writes none of
//! its rows.

use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};

use lowwater_core::clock::Clock;
use lowwater_core::window::operator::WindowOutput;
use lowwater_core::{Millis, Timestamp, Value};
use lowwater_sql::plan::{JobPlan, LateReason};

use crate::error::RunError;
use crate::shared::Shared;
use crate::sink::SinkWriter;

/// A window subtask's writer of rows.
pub(crate) struct Rows {
    plan: Arc<JobPlan>,
    shared: Arc<Shared>,
    pipeline: usize,
    subtask: usize,
    /// The sink row being written, its buffer reused from row to row.
    row: Vec<Value>,
    /// A window's row could not be computed: the job stops, and no later
    /// row is written (the rest of a watermark's chunks included).
    stopped: bool,
    /// Exactly-once, restored from a checkpoint older than the committed
    /// one: the committed output holds every window ending at or below
    /// this watermark; computed again, they are not written
    /// (`crate::restore`).
    written_to: Option<Timestamp>,
}

impl Rows {
    pub fn new(plan: Arc<JobPlan>, shared: Arc<Shared>, pipeline: usize, subtask: usize) -> Self {
        Rows {
            plan,
            pipeline,
            subtask,
            row: Vec::new(),
            stopped: false,
            written_to: shared
                .written_to
                .as_ref()
                .and_then(|w| w.get(pipeline).copied()),
            shared,
        }
    }

    /// This subtask's number among the window subtasks of every INSERT:
    /// its own part files in a filesystem sink several INSERTs write to.
    pub fn writer(&self) -> usize {
        crate::sink::writer(&self.plan, self.pipeline, self.subtask)
    }

    /// Writes `out`'s rows (emptying it) and flushes the sinks written to.
    pub fn emit(&mut self, out: &mut Vec<WindowOutput>) {
        if self.stopped {
            out.clear();
            return;
        }
        let now: Timestamp = self.shared.clock.now();
        let pl = &self.plan.pipelines[self.pipeline];
        // Late rows are the first aggregation's records (cascading windows).
        let n_args = pl.first().agg_args.len();
        let late = self.plan.late_row(pl.source);
        let width = self.plan.tables[pl.sink].columns.len();
        let mut touched = Vec::new();
        // Window Top-N: the rows of a window (and partition) fire together
        // in this subtask and are ranked.
        let ranks = match pl.ranks(out, Some(now)) {
            Ok(r) => r,
            Err(e) => {
                self.shared.fail(RunError::Record(format!(
                    "ranking the windows of INSERT INTO {}: {e}",
                    self.plan.tables[pl.sink].name
                )));
                self.stopped = true;
                out.clear();
                return;
            }
        };
        let mut held: Option<(usize, MutexGuard<'_, SinkWriter>)> = None;
        for (i, o) in out.drain(..).enumerate() {
            let (table, lag, early) = match o {
                // Fired again after a restore from an older checkpoint:
                // the committed output has it (its last millisecond is at
                // or below the watermark it was written up to).
                WindowOutput::Fired(r)
                    if self.written_to.is_some_and(|w| r.window.end - 1 <= w) =>
                {
                    if self.shared.recomputed.fetch_add(1, Ordering::Relaxed) == 0 {
                        tracing::info!(
                            "INSERT INTO {}: the window [{}, {}) and the others the committed \
                             output holds are computed again from the older checkpoint and not \
                             written",
                            self.plan.tables[pl.sink].name,
                            lowwater_core::time::format_timestamp(r.window.start, ' '),
                            lowwater_core::time::format_timestamp(r.window.end, ' ')
                        );
                    }
                    continue;
                }
                WindowOutput::Fired(r) => {
                    let rank = ranks.get(i).map_or(&[][..], Vec::as_slice);
                    match pl.sink_values_into(&r, rank, width, &mut self.row, Some(now)) {
                        Ok(true) => (pl.sink, Some(now.saturating_sub(r.window.end)), r.early),
                        // HAVING filtered the window's row out.
                        Ok(false) => continue,
                        Err(e) => {
                            self.shared.fail(RunError::Record(format!(
                                "the window [{}, {}) of INSERT INTO {}: {e}",
                                lowwater_core::time::display_time(r.window.start),
                                lowwater_core::time::display_time(r.window.end),
                                self.plan.tables[pl.sink].name
                            )));
                            // The job stops here, as a Flink task does at
                            // the exception: no later row is written.
                            self.stopped = true;
                            return;
                        }
                    }
                }
                WindowOutput::Late(input) => match &late {
                    Some(l) => {
                        self.row = l.from_carried(
                            input.row.get(n_args..).unwrap_or_default(),
                            LateReason::Late,
                        );
                        (l.sink, None, false)
                    }
                    None => continue,
                },
            };
            if held.as_ref().is_none_or(|(t, _)| *t != table) {
                // One sink lock at a time: two subtasks never wait on
                // each other's.
                drop(held.take());
                held = self.shared.sink(table).map(|w| (table, w));
                if held.is_some() && !touched.contains(&table) {
                    touched.push(table);
                }
            }
            if let Some((_, w)) = &mut held {
                self.write(w, table, &self.row, now, lag);
                if early {
                    w.tally.early_rows += 1;
                }
            }
        }
        drop(held);
        self.flush(touched);
    }

    /// Writes one row to sink `table` at `now` (`lag`: a window row's
    /// emission lag; `None`: a late row) and flushes it.
    pub fn write_one(&self, table: usize, values: &[Value], now: Timestamp, lag: Option<Millis>) {
        if let Some(mut w) = self.shared.sink(table) {
            self.write(&mut w, table, values, now, lag);
            drop(w);
            self.flush(vec![table]);
        }
    }

    /// Writes one row into `w`, sink `table`'s writer; a failed write
    /// fails the job, naming the sink.
    fn write(
        &self,
        w: &mut SinkWriter,
        table: usize,
        values: &[Value],
        now: Timestamp,
        lag: Option<Millis>,
    ) {
        if let Err(e) = w.write(values, now, lag, (self.subtask, self.writer())) {
            self.shared.fail(RunError::Io(format!(
                "writing sink {}: {e}",
                self.plan.tables[table].name
            )));
        }
    }

    /// Flushes the sinks written to (without waiting on Kafka's
    /// acknowledgements: [`SinkWriter::flush_emitted`]).
    fn flush(&self, touched: Vec<usize>) {
        for t in touched {
            if let Some(mut w) = self.shared.sink(t) {
                if let Err(e) = w.flush_emitted() {
                    self.shared.fail(RunError::Io(format!(
                        "flushing sink {}: {e}",
                        self.plan.tables[t].name
                    )));
                }
            }
        }
    }
}
