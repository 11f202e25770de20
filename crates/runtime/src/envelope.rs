//! What travels between a job's tasks: the messages on their channels
//! (records, rows for joins, watermarks, barriers, marks, ends) with their
//! sender, and the pool that returns emptied batches to their senders.

use lowwater_core::checkpoint::CheckpointId;
use lowwater_core::watermark::Progress;
use lowwater_core::window::batch::InputBatch;
use lowwater_core::Value;

/// Kafka offsets to commit: topic, partition, next offset.
pub(crate) type Offsets = Vec<(String, i32, i64)>;

/// What travels from a source subtask to a window subtask.
pub(crate) enum Msg {
    /// A batch of records for this window subtask (boxed: a message is
    /// small whatever it carries).
    Records(Box<InputBatch>),
    /// Rows for a join subtask, each with its join key.
    Rows(Vec<crate::joins::SideRow>),
    /// A watermark and/or status change of the sending source subtask.
    Progress(Progress),
    /// Checkpoint barrier: everything the sender sent before it belongs
    /// to that checkpoint, everything after to the next.
    Barrier(CheckpointId),
    /// Without checkpoints: everything the sender sent before mark `n` has
    /// been processed once the window subtask publishes `n` (Kafka offsets
    /// are committed by it).
    Mark(u64),
    /// A row for the late-data sink, in its columns: a record the source
    /// kept out of the windows (the future-timestamp guard).
    Late(Vec<Value>),
    /// The sender is done (after its MAX watermark, when it drained).
    End,
}

/// A message with its sender (the source subtask index).
pub(crate) struct Envelope {
    pub from: usize,
    pub msg: Msg,
}

/// Emptied batches of one pipeline, going back from its window subtasks
/// to its source subtasks: a batch's vectors are allocated once and
/// reused, instead of being allocated by one thread and freed by another
/// for every batch (which, with large batches, unmaps and maps memory
/// over and over, and leaves the allocator's arenas fragmented).
#[derive(Default)]
pub(crate) struct BatchPool(std::sync::Mutex<Vec<InputBatch>>);

impl BatchPool {
    /// Batches kept at most (more are in flight only briefly). A kept
    /// batch holds its values until it is taken again: no more than the
    /// same batches held in flight.
    const KEEP: usize = 32;

    /// An empty batch from the pool, or a new one with room for `records`
    /// records of `widths` (key, argument) values. A pooled batch that
    /// holds strings is cleared here, by the source thread: its string
    /// values were cloned from the source's interner on this thread, so
    /// dropping them here leaves their reference counts in this core's
    /// cache instead of moving them to the window thread's and back for
    /// every record.
    pub(crate) fn take(&self, records: usize, widths: (usize, usize)) -> InputBatch {
        let reused = self.0.lock().ok().and_then(|mut v| v.pop());
        match reused {
            Some(mut batch) => {
                batch.clear();
                batch
            }
            None => InputBatch::with_capacity(records, widths.0, widths.1),
        }
    }

    /// Returns a processed batch to the pool. A batch without strings is
    /// cleared here, by the window thread that just read it (its memory
    /// is in this core's cache; cleared by the source thread, every value
    /// would be read back across cores first: 8% of a datagen job's CPU);
    /// one with strings when it is taken.
    pub(crate) fn give(&self, mut batch: InputBatch) {
        batch.clear_if_plain();
        if let Ok(mut v) = self.0.lock() {
            if v.len() < Self::KEEP {
                v.push(batch);
            }
        }
    }
}

/// The way into one input (port) of a task that reads two in turn (a join
/// subtask): each port has its own bounded channel, so a side that runs
/// ahead waits on its own channel instead of filling the task's, and a
/// bell rung after every message wakes the task without it polling.
#[derive(Clone)]
pub(crate) struct PortSender {
    pub data: std::sync::mpsc::SyncSender<Envelope>,
    pub bell: std::sync::mpsc::Sender<()>,
}

impl PortSender {
    /// Sends `env` on its port, then rings (the message is there before
    /// its ring: a ring always finds a message on one of the ports).
    pub fn send(&self, env: Envelope) -> Result<(), std::sync::mpsc::SendError<Envelope>> {
        self.data.send(env)?;
        let _ = self.bell.send(());
        Ok(())
    }
}
