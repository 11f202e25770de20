//! A window aggregation after a join (a view of the join read by a window
//! function): each join subtask is a sender to the window subtasks of that
//! INSERT, as a source subtask is to a window reading a table. Its joined
//! rows go keyed to their window subtask in batches (under the split
//! [`JOINED`]: late rows there are counted under it), its watermark (the
//! join's output watermark) after them, then its barriers and its end.

use std::hash::BuildHasher;
use std::sync::mpsc::SyncSender;

use lowwater_core::source::SplitId;
use lowwater_core::watermark::Progress;
use lowwater_core::window::batch::InputBatch;
use lowwater_core::{Timestamp, Value};
use lowwater_sql::plan::JobPlan;

use crate::job::Shared;
use crate::source::{Envelope, Msg};

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
            (shared.route.hash_one(&self.key[..]) % n as u64) as usize
        };
        self.batches[w].push(ts, JOINED, &mut self.key, &mut self.args);
        if self.batches[w].len() >= BATCH {
            self.send_batch(w);
        }
        Ok(true)
    }

    fn send_batch(&mut self, w: usize) {
        let batch = std::mem::take(&mut self.batches[w]);
        let _ = self.senders[w].send(Envelope {
            from: self.from,
            msg: Msg::Records(Box::new(batch)),
        });
    }

    /// Sends the batched rows.
    pub fn flush(&mut self) {
        for w in 0..self.batches.len() {
            if !self.batches[w].is_empty() {
                self.send_batch(w);
            }
        }
    }

    /// Sends `msg()` to every window subtask, after the rows before it.
    pub fn send_all(&mut self, msg: impl Fn() -> Msg) {
        self.flush();
        for tx in &self.senders {
            let _ = tx.send(Envelope {
                from: self.from,
                msg: msg(),
            });
        }
    }

    /// The join's output watermark moved to `wm`.
    pub fn watermark(&mut self, wm: Timestamp) {
        let p = Progress {
            watermark: Some(wm),
            ..Progress::NONE
        };
        self.send_all(|| Msg::Progress(p));
    }
}
