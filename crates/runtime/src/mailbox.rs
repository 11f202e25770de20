//! Control between the job's threads travels as messages, as in Flink's
//! mailbox model: the coordinator asks the sources for a checkpoint, tells
//! every task which checkpoint completed or failed, and the supervisor
//! tells the sources to stop, each through the task's own mailbox; the
//! tasks hand their checkpoint parts, their last state when they end and a
//! checkpoint they give up to the coordinator's inbox. A task takes the
//! control waiting in its mailbox before its next input (mail before data),
//! and a task that waits for a checkpoint to complete (exactly-once) blocks
//! on its mailbox rather than polling shared state.

use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::OnceLock;
use std::time::Duration;

use lowwater_core::checkpoint::CheckpointId;
use lowwater_core::source::SplitId;

use crate::checkpoint::JoinPart;
use crate::checkpoint::{SourcePart, WindowPart};
use crate::control::StopRequest;

/// A message to a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Control {
    /// Take part in checkpoint `id` (to source subtasks: flush, hand in the
    /// state and send the barrier).
    Trigger(CheckpointId),
    /// Checkpoint `id` is written (and committed): the Kafka offsets it
    /// holds may be committed, rows of the next one may be written.
    Completed(CheckpointId),
    /// Checkpoint `id` failed; the next one follows the interval.
    Aborted(CheckpointId),
    /// The job stops (after its final checkpoint, if it takes them): the
    /// sources end without draining.
    Stop,
    /// The job failed: no checkpoint completes any more, nothing more is
    /// committed.
    Failed,
    /// Partition discovery found a partition for this source subtask: it
    /// starts reading it at its next periodic emit.
    Split(NewSplit),
}

/// A partition found while the job runs: its split id, topic and number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NewSplit {
    pub id: SplitId,
    pub topic: String,
    pub partition: i32,
}

/// A task's part of a checkpoint, or its last state when it ended.
#[derive(Clone)]
pub(crate) enum Part {
    Source {
        source: usize,
        subtask: usize,
        part: SourcePart,
    },
    Window {
        pipeline: usize,
        subtask: usize,
        part: WindowPart,
    },
    Join {
        join: usize,
        subtask: usize,
        part: JoinPart,
    },
}

/// What the coordinator's thread is told.
pub(crate) enum Inbox {
    /// A task's part of checkpoint `id`.
    Part(CheckpointId, Part),
    /// A task ended with this last state: it stands for the task in every
    /// later checkpoint (FLIP-147).
    Final(Part),
    /// A task gave checkpoint `id` up (it held too much of its faster
    /// inputs while aligning the barriers).
    Declined(CheckpointId),
    /// The job failed.
    Failed,
    /// Take the final checkpoint and stop checkpointing (a graceful stop):
    /// `request` (a stop asked for over HTTP) is answered, and `done` is told
    /// the final checkpoint's id when it was written.
    Stop {
        request: Option<StopRequest>,
        done: Sender<Option<CheckpointId>>,
    },
    /// Every task has ended.
    End,
}

/// Where the job's control messages go: every task's mailbox and the
/// coordinator's inbox. Installed in `crate::shared::Shared` before the
/// threads start.
#[derive(Default)]
pub(crate) struct Post {
    /// Each source subtask's mailbox, with its (source, subtask).
    sources: Vec<((usize, usize), Sender<Control>)>,
    /// Each window and join subtask's.
    tasks: Vec<Sender<Control>>,
    /// Threads beside the tasks that end with the sources (partition
    /// discovery).
    watchers: Vec<Sender<Control>>,
    coordinator: Option<Sender<Inbox>>,
}

impl Post {
    /// The post of a job; with checkpoints, the coordinator's inbox too.
    pub fn new(checkpointing: bool) -> (Post, Option<Receiver<Inbox>>) {
        let (tx, rx) = channel();
        let post = Post {
            coordinator: checkpointing.then_some(tx),
            ..Post::default()
        };
        (post, checkpointing.then_some(rx))
    }

    /// Subtask `subtask` of source `source`'s link.
    pub fn source_link(&mut self, source: usize, subtask: usize) -> Link {
        let (tx, rx) = channel();
        self.sources.push(((source, subtask), tx));
        Link::new(rx, self.coordinator.clone())
    }

    /// A watcher's link (it reports nothing).
    pub fn watcher_link(&mut self) -> Link {
        let (tx, rx) = channel();
        self.watchers.push(tx);
        Link::new(rx, None)
    }

    /// A new window or join subtask's link.
    pub fn task_link(&mut self) -> Link {
        let (tx, rx) = channel();
        self.tasks.push(tx);
        Link::new(rx, self.coordinator.clone())
    }

    /// To every source subtask and watcher (one that ended is skipped).
    pub fn to_sources(&self, c: Control) {
        let sources = self.sources.iter().map(|(_, tx)| tx);
        for tx in sources.chain(&self.watchers) {
            let _ = tx.send(c.clone());
        }
    }

    /// To subtask `subtask` of source `source` (`false`: no such subtask,
    /// or it ended).
    pub fn to_source(&self, source: usize, subtask: usize, c: Control) -> bool {
        let mut to = self
            .sources
            .iter()
            .filter(|(at, _)| *at == (source, subtask));
        to.next().is_some_and(|(_, tx)| tx.send(c).is_ok())
    }

    /// To every task and watcher.
    pub fn to_all(&self, c: Control) {
        let sources = self.sources.iter().map(|(_, tx)| tx);
        for tx in sources.chain(&self.tasks).chain(&self.watchers) {
            let _ = tx.send(c.clone());
        }
    }

    /// To the coordinator, if the job takes checkpoints (`false`: it does
    /// not, or its thread is gone).
    pub fn to_coordinator(&self, m: Inbox) -> bool {
        self.coordinator
            .as_ref()
            .is_some_and(|tx| tx.send(m).is_ok())
    }
}

/// The post, once the tasks are built (`crate::shared::Shared::post`).
pub(crate) type PostSlot = OnceLock<Post>;

/// A task's end of the post: its mailbox, what it said so far, and the
/// coordinator's inbox.
pub(crate) struct Link {
    mail: Receiver<Control>,
    report: Option<Sender<Inbox>>,
    /// The newest checkpoint asked for and not taken yet.
    trigger: Option<CheckpointId>,
    completed: CheckpointId,
    aborted: CheckpointId,
    stopped: bool,
    failed: bool,
    /// Partitions found for it, not taken yet.
    splits: Vec<NewSplit>,
}

impl Link {
    fn new(mail: Receiver<Control>, report: Option<Sender<Inbox>>) -> Self {
        Link {
            mail,
            report,
            trigger: None,
            completed: 0,
            aborted: 0,
            stopped: false,
            failed: false,
            splits: Vec::new(),
        }
    }

    /// A link to nothing (a task built before the post, or in a test): no
    /// mail ever comes, reports go nowhere.
    pub fn detached() -> Self {
        Link::new(channel().1, None)
    }

    /// Starts from a restored checkpoint: it is complete.
    pub fn restored(mut self, id: Option<CheckpointId>) -> Self {
        self.completed = id.unwrap_or(0);
        self
    }

    fn note(&mut self, c: Control) {
        match c {
            Control::Trigger(id) => self.trigger = self.trigger.max(Some(id)),
            Control::Completed(id) => self.completed = self.completed.max(id),
            Control::Aborted(id) => self.aborted = self.aborted.max(id),
            Control::Stop => self.stopped = true,
            Control::Failed => self.failed = true,
            Control::Split(s) => self.splits.push(s),
        }
    }

    /// The partitions found for it since the last call.
    pub fn take_splits(&mut self) -> Vec<NewSplit> {
        self.take();
        std::mem::take(&mut self.splits)
    }

    /// Takes every message waiting, without blocking.
    pub fn take(&mut self) {
        while let Ok(c) = self.mail.try_recv() {
            self.note(c);
        }
    }

    /// Waits up to `timeout` for a message (an idle source between polls),
    /// then takes every message waiting.
    pub fn wait(&mut self, timeout: Duration) {
        if let Ok(c) = self.mail.recv_timeout(timeout) {
            self.note(c);
        }
        self.take();
    }

    /// The next input from `data`, after the control waiting (mail before
    /// data). Control that comes while it blocks on `data` is taken before
    /// the input after.
    pub fn recv<D>(&mut self, data: &Receiver<D>) -> Option<D> {
        self.take();
        data.recv().ok()
    }

    /// As [`Link::recv`], waiting at most `timeout` for the input.
    pub fn recv_timeout<D>(
        &mut self,
        data: &Receiver<D>,
        timeout: Duration,
    ) -> Result<D, RecvTimeoutError> {
        self.take();
        data.recv_timeout(timeout)
    }

    /// The newest checkpoint asked for since the last call.
    pub fn trigger(&mut self) -> Option<CheckpointId> {
        self.trigger.take()
    }

    /// The newest checkpoint known complete.
    pub fn completed(&self) -> CheckpointId {
        self.completed
    }

    /// Whether the job stops (or failed): a source ends.
    pub fn stopped(&self) -> bool {
        self.stopped || self.failed
    }

    /// Blocks until checkpoint `id` is complete (`true`), or failed, or the
    /// job failed, or the coordinator is gone (`false`). A plain stop does
    /// not end the wait: the checkpoint still completes.
    pub fn settle(&mut self, id: CheckpointId) -> bool {
        self.take();
        loop {
            if self.completed >= id {
                return true;
            }
            if self.aborted >= id || self.failed {
                return false;
            }
            match self.mail.recv() {
                Ok(c) => self.note(c),
                Err(_) => return false,
            }
        }
    }

    /// Hands `m` to the coordinator (nothing without checkpoints).
    pub fn report(&self, m: Inbox) {
        if let Some(tx) = &self.report {
            let _ = tx.send(m);
        }
    }

    /// Whether the mailbox has nothing waiting (tests).
    #[cfg(test)]
    fn empty(&self) -> bool {
        matches!(
            self.mail.try_recv(),
            Err(std::sync::mpsc::TryRecvError::Empty)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_waiting_is_taken_before_the_next_input() {
        let (mut post, _inbox) = Post::new(true);
        let mut link = post.task_link();
        let (data_tx, data_rx) = channel();
        data_tx.send("batch 1").ok();
        post.to_all(Control::Completed(3));
        post.to_all(Control::Aborted(4));
        assert_eq!(link.completed(), 0);
        assert_eq!(link.recv(&data_rx), Some("batch 1"));
        // Both were taken before the batch was handed out.
        assert_eq!(link.completed(), 3);
        assert!(!link.settle(4), "checkpoint 4 failed");
        assert!(link.empty());
        drop(data_tx);
        assert_eq!(link.recv(&data_rx), None);
    }

    #[test]
    fn a_source_takes_the_newest_trigger_and_stops_on_stop_or_failure() {
        let (mut post, _inbox) = Post::new(true);
        let mut source = post.source_link(0, 1);
        let mut task = post.task_link();
        post.to_sources(Control::Trigger(5));
        post.to_sources(Control::Trigger(6));
        let split = NewSplit {
            id: 4,
            topic: "clicks".into(),
            partition: 3,
        };
        assert!(post.to_source(0, 1, Control::Split(split.clone())));
        assert!(!post.to_source(1, 0, Control::Split(split.clone())));
        assert_eq!(source.take_splits(), vec![split]);
        assert!(source.take_splits().is_empty());
        source.take();
        task.take();
        assert_eq!(source.trigger(), Some(6));
        assert_eq!(source.trigger(), None, "taken once");
        assert_eq!(task.trigger(), None, "only sources are asked");
        assert!(!source.stopped());
        post.to_sources(Control::Stop);
        source.wait(Duration::from_secs(5));
        task.take();
        assert!(source.stopped());
        assert!(!task.stopped(), "a stop goes to the sources");
        post.to_all(Control::Failed);
        task.take();
        assert!(task.stopped());
    }

    #[test]
    fn settle_blocks_until_the_checkpoint_completes_and_ignores_a_stop() {
        let (mut post, _inbox) = Post::new(true);
        let mut link = post.task_link().restored(Some(2));
        assert!(link.settle(2), "the restored checkpoint is complete");
        let waiter = std::thread::spawn(move || (link.settle(3), link));
        post.to_all(Control::Stop);
        post.to_all(Control::Completed(3));
        let (settled, mut link) = waiter.join().unwrap_or_else(|_| (false, Link::detached()));
        assert!(settled);
        // The coordinator gone: nothing completes any more.
        drop(post);
        assert!(!link.settle(4));
        link.take();
    }

    #[test]
    fn reports_reach_the_coordinator_only_with_checkpoints() {
        let (mut post, inbox) = Post::new(true);
        let link = post.task_link();
        link.report(Inbox::Declined(7));
        let got = inbox.as_ref().map(|rx| rx.try_recv());
        assert!(matches!(got, Some(Ok(Inbox::Declined(7)))));
        assert!(post.to_coordinator(Inbox::End));
        drop(inbox);
        assert!(!post.to_coordinator(Inbox::End), "the coordinator is gone");
        let (mut post, inbox) = Post::new(false);
        assert!(inbox.is_none());
        post.task_link().report(Inbox::Declined(7));
        assert!(!post.to_coordinator(Inbox::End));
    }
}
