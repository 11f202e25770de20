//! A window aggregation after a join (a view of the join read by a window
//! function): each join subtask is a sender to the window subtasks of that
//! INSERT, as a source subtask is to a window reading a table. Its joined
//! rows go keyed to their window subtask in batches (under the split
//! [`JOINED`]: late rows there are counted under it), its watermark (the
//! join's output watermark) after them, then its barriers and its end.

use std::sync::mpsc::SyncSender;

use lowwater_core::source::SplitId;
use lowwater_core::watermark::Progress;
use lowwater_core::window::batch::InputBatch;
use lowwater_core::{Timestamp, Value};
use lowwater_sql::plan::JobPlan;

use crate::envelope::{Envelope, Msg};
use crate::shared::Shared;

/// The split the rows of a join carry into a window after it.
pub(crate) const JOINED: SplitId = SplitId::MAX;

/// Records per batch to a window subtask.
const BATCH: usize = 1024;

/// A join subtask's output into the window aggregation of one INSERT.
pub(crate) struct WindowOut {
    /// The INSERT (pipeline index).
    pub pipeline: usize,
    /// This join subtask: the window subtasks' channel it sends on.
    from: usize,
    senders: Vec<SyncSender<Envelope>>,
    batches: Vec<InputBatch>,
    key: Vec<Value>,
    args: Vec<Value>,
}

impl WindowOut {
    pub fn new(pipeline: usize, from: usize, senders: Vec<SyncSender<Envelope>>) -> Self {
        WindowOut {
            pipeline,
            from,
            batches: senders.iter().map(|_| InputBatch::default()).collect(),
            senders,
            key: Vec::new(),
            args: Vec::new(),
        }
    }

    /// A joined row (the join's select list `derived`) at the time `ts`
    /// the window reads; `Ok(false)` when the window's WHERE drops it.
    pub fn push(
        &mut self,
        plan: &JobPlan,
        shared: &Shared,
        ts: Timestamp,
        derived: &[Value],
    ) -> Result<bool, String> {
        let pl = plan.pipelines[self.pipeline].first();
        if !pl.joined_input(ts, derived, &mut self.key, &mut self.args)? {
            return Ok(false);
        }
        let n = self.senders.len();
        // A key's windows are in one subtask; a global aggregate's in the first.
        let w = if n == 1 || self.key.is_empty() {
            0
        } else {
            lowwater_core::route::key_subtask(&self.key, n)
        };
        self.batches[w].push(ts, JOINED, &mut self.key, &mut self.args);
        if self.batches[w].len() >= BATCH {
            self.send_batch(w, shared);
        }
        Ok(true)
    }

    fn send_batch(&mut self, w: usize, shared: &Shared) {
        let batch = std::mem::take(&mut self.batches[w]);
        let sent = self.senders[w].send(Envelope {
            from: self.from,
            msg: Msg::Records(Box::new(batch)),
        });
        report_gone(sent, shared);
    }

    /// Sends the batched rows.
    pub fn flush(&mut self, shared: &Shared) {
        for w in 0..self.batches.len() {
            if !self.batches[w].is_empty() {
                self.send_batch(w, shared);
            }
        }
    }

    /// Sends `msg()` to every window subtask, after the rows before it.
    pub fn send_all(&mut self, msg: impl Fn() -> Msg, shared: &Shared) {
        self.flush(shared);
        for tx in &self.senders {
            let sent = tx.send(Envelope {
                from: self.from,
                msg: msg(),
            });
            if report_gone(sent, shared) {
                break;
            }
        }
    }

    /// The join's output watermark moved to `wm`.
    pub fn watermark(&mut self, wm: Timestamp, shared: &Shared) {
        let p = Progress {
            watermark: Some(wm),
            ..Progress::NONE
        };
        self.send_all(|| Msg::Progress(p), shared);
    }
}

/// Fails the job when a window subtask after a join went away (it only
/// ends early after the job failed: its rows cannot be delivered); returns
/// whether it did.
fn report_gone(sent: Result<(), std::sync::mpsc::SendError<Envelope>>, shared: &Shared) -> bool {
    if sent.is_err() {
        shared.fail(crate::error::RunError::Usage(
            "a window subtask after a join ended unexpectedly".into(),
        ));
    }
    sent.is_err()
}
