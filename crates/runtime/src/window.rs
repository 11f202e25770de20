//! A window subtask thread: merges its inputs' watermarks with the valve,
//! runs the window operator, and writes fired windows (and late rows) to
//! the sinks, stamping emission lag against the system clock.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;
use std::sync::Arc;

use lowwater_core::checkpoint::barrier::Alignment;
use lowwater_core::checkpoint::CheckpointId;
use lowwater_core::clock::Clock;
use lowwater_core::dataflow::window::{OpenCheck, WindowNode};
use lowwater_core::time::display_duration;
use lowwater_core::window::operator::WindowOutput;
use lowwater_core::Timestamp;
use lowwater_sql::plan::{JobPlan, OnOpenLimit};

use crate::checkpoint::WindowPart;
use crate::emit::Rows;
use crate::envelope::{Envelope, Msg};
use crate::error::RunError;
use crate::mailbox::{Inbox, Part};
use crate::shared::Shared;

/// Fired results held before they are written, while a watermark fires
/// many windows (a window's results are written together).
const EMIT_CHUNK: usize = 4_096;

/// Messages of channels held by a barrier alignment that a window subtask
/// keeps before it gives the checkpoint up (batches of up to 8192 records:
/// about 2M records).
const MAX_HELD: usize = 256;

/// A window subtask.
pub(crate) struct WindowTask {
    plan: Arc<JobPlan>,
    pipeline: usize,
    subtask: usize,
    senders: usize,
    rx: Receiver<Envelope>,
    /// The gate, the operator and the open-state guard (replay drives
    /// the same node).
    node: WindowNode,
    shared: Arc<Shared>,
    /// Input of channels held by a barrier alignment, in arrival order.
    held: VecDeque<Envelope>,
    /// Writes the rows.
    rows: Rows,
    /// The watermark and the marks (per source subtask) reached but not
    /// published yet: without checkpoints, Kafka offsets are committed by
    /// what is published, so a Kafka sink's rows must be acknowledged first.
    unpublished: (Option<Timestamp>, Vec<Option<u64>>),
    /// Since when something waits to be published (`None`: nothing).
    waiting_since: Option<Timestamp>,
    /// Its mailbox and the coordinator's inbox.
    pub link: crate::mailbox::Link,
}

impl WindowTask {
    pub fn new(
        plan: Arc<JobPlan>,
        pipeline: usize,
        subtask: usize,
        senders: usize,
        rx: Receiver<Envelope>,
        shared: Arc<Shared>,
    ) -> Result<Self, String> {
        let pl = &plan.pipelines[pipeline];
        // Cascading windows: the aggregations after the first are chained
        // in this subtask (the plan is refused when they need an exchange).
        let chained = pl.chained().iter().map(|s| s.window.clone()).collect();
        let node = WindowNode::new(
            pl.first().window.clone(),
            senders,
            plan.settings.max_open_windows,
            plan.open_limit_grace(),
        )
        .and_then(|n| n.chained(chained))
        .map_err(|e| e.to_string())?;
        Ok(WindowTask {
            node,
            unpublished: (None, vec![None; senders]),
            waiting_since: None,
            link: crate::mailbox::Link::detached(),
            pipeline,
            subtask,
            senders,
            rx,
            held: VecDeque::new(),
            rows: Rows::new(plan.clone(), shared.clone(), pipeline, subtask),
            plan,
            shared,
        })
    }

    /// This subtask's number among the window subtasks of every INSERT:
    /// its own part files in a filesystem sink several INSERTs write to.
    fn writer(&self) -> usize {
        self.rows.writer()
    }

    /// Starts at watermark `wm` (see `crate::written`): the windows at or
    /// below it were written by the last run.
    pub fn start_at(&mut self, wm: Timestamp) {
        self.node.op_mut().start_at(wm);
    }

    /// Continues from a checkpoint's state of this subtask.
    pub fn restore(&mut self, part: WindowPart) {
        // A restore counts as a move of the watermark: the restored windows
        // get the grace period to fire before the state limit acts.
        self.node.restore(part.valve, part.op);
        self.node.restore_chain(part.chain);
        if let Ok(mut l) = self.shared.late[self.pipeline][self.subtask].lock() {
            l.clone_from(self.node.op().late());
        }
        // What was restored shows at once (`status`, the API, the page):
        // the watermark and the open windows, not MIN and none until the
        // first watermark moves (issue 34).
        self.shared.windows[self.pipeline][self.subtask]
            .store(self.node.op().watermark(), Ordering::SeqCst);
        self.publish_open();
    }

    /// The next input to handle: held input of a channel no longer held
    /// first (in its order), else the next message from the channels. The
    /// held input is looked at again after every message held: a given-up
    /// alignment releases its channels, whose held messages come before
    /// anything newer from them.
    fn next(&mut self) -> Option<Envelope> {
        loop {
            let gate = self.node.gate();
            if let Some(i) = self.held.iter().position(|e| !gate.is_held(0, e.from)) {
                return self.held.remove(i);
            }
            let env = if self.waiting_since.is_none() {
                self.link.recv(&self.rx)?
            } else {
                // Rows waiting for Kafka's acknowledgements: publish as
                // soon as they are in, also while no input comes.
                let wait = std::time::Duration::from_millis(10);
                match self.link.recv_timeout(&self.rx, wait) {
                    Ok(env) => env,
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                        self.publish_progress();
                        continue;
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return None,
                }
            };
            if !self.node.gate().is_held(0, env.from) {
                return Some(env);
            }
            self.held.push_back(env);
            if self.held.len() > MAX_HELD {
                self.give_up_alignment();
            }
        }
    }

    /// One input is far slower to reach the barrier than the others: the
    /// checkpoint fails (the coordinator is told at once) instead of
    /// holding an unbounded amount of the faster inputs in memory.
    fn give_up_alignment(&mut self) {
        if let Some(id) = self.node.gate_mut().cancel_alignment() {
            tracing::warn!(
                "checkpoint {id}: INSERT INTO {} window subtask {} held {MAX_HELD} batches while \
                 waiting for the barrier of a slower input; the checkpoint fails, the next one \
                 follows the interval",
                self.plan.tables[self.plan.pipelines[self.pipeline].sink].name,
                self.subtask
            );
            self.link.report(Inbox::Declined(id));
        }
    }

    /// Every channel delivered barrier `id`: the sinks get every row of the
    /// windows fired before it, then the state goes to the coordinator.
    fn snapshot(&mut self, id: CheckpointId) {
        let pl = &self.plan.pipelines[self.pipeline];
        let tables = std::iter::once(pl.sink).chain(self.plan.tables[pl.source].late_data_sink);
        for t in tables {
            if let Some(mut w) = self.shared.sink(t) {
                let rolled = match &mut w.parts {
                    Some(p) => p.roll(self.writer(), id).map_err(std::io::Error::other),
                    None => w.flush(),
                };
                if let Err(e) = rolled {
                    self.shared.fail(RunError::Io(format!(
                        "checkpoint {id}: flushing sink {}: {e}",
                        self.plan.tables[t].name
                    )));
                    return;
                }
            }
        }
        let part = Inbox::Part(id, self.part());
        self.link.report(part);
        if self.shared.exactly_once.is_some() {
            // No row of the next checkpoint may enter this one's
            // transaction: wait for the coordinator's word. Not ended by a
            // plain stop: the checkpoint still completes, and rows written
            // before it did would enter its transaction. A failed job
            // commits nothing.
            self.link.settle(id);
        }
    }

    /// This subtask's state, as a checkpoint holds it.
    fn part(&self) -> Part {
        let (valve, op) = self.node.parts();
        let chain = self.node.chain().to_vec();
        Part::Window {
            pipeline: self.pipeline,
            subtask: self.subtask,
            part: WindowPart { valve, op, chain },
        }
    }

    pub fn pipeline(&self) -> usize {
        self.pipeline
    }

    pub fn subtask(&self) -> usize {
        self.subtask
    }

    /// Runs until every sender has ended; its late counters are published
    /// to `Shared::late` as they change.
    pub fn run(mut self) {
        let mut ended = 0;
        let mut out = Vec::new();
        let mut late_seen = 0;
        let mut advanced = None;
        let mut marked = None;
        let mut warned = false;
        let mut next_publish: Timestamp = 0;
        let mut fired_warned: Option<Timestamp> = None;
        while ended < self.senders {
            let Some(env) = self.next() else {
                break;
            };
            match env.msg {
                Msg::Records(batch) => {
                    let pl = &self.plan.pipelines[self.pipeline];
                    let due = self.node.due(batch.len() as u32);
                    let sink = &self.plan.tables[pl.sink].name;
                    let fail = |e: String| {
                        self.shared
                            .fail(RunError::Record(format!("INSERT INTO {sink}: {e}")))
                    };
                    if pl.project {
                        for input in batch.iter() {
                            if let Err(e) = pl.project(input, &mut out) {
                                fail(e);
                            }
                        }
                    } else {
                        self.node
                            .op_mut()
                            .process_batch(&batch, &mut out, |_, e| fail(e.to_string()));
                    }
                    self.shared.batch_pools[self.pipeline].give(*batch);
                    // Every few thousand records (and at least every
                    // second for /metrics): the open (window, key) states
                    // stay within lowwater.state.max-open-windows (a WARN
                    // at 80%), or the job stops.
                    let now = self.shared.clock.now();
                    if due || now >= next_publish {
                        next_publish = now.saturating_add(1_000);
                        if !self.check_open(now, &mut out, &mut warned, &mut fired_warned) {
                            return;
                        }
                    }
                }
                Msg::Progress(p) => {
                    let mut wrote = false;
                    // Rows are written a few thousand at a time while the
                    // windows fire; a ranking pipeline's rows all at once
                    // (a failed ranking writes none of the watermark's).
                    let chunk = if self.plan.pipelines[self.pipeline].rank.is_some() {
                        usize::MAX
                    } else {
                        EMIT_CHUNK
                    };
                    let now = self.shared.clock.now();
                    let rows = &mut self.rows;
                    let pl = &self.plan.pipelines[self.pipeline];
                    let moved = self.node.progress(
                        env.from,
                        p,
                        now,
                        &mut out,
                        chunk,
                        &mut |o| {
                            wrote = true;
                            rows.emit(o)
                        },
                        pl,
                    );
                    let moved = match moved {
                        Ok(m) => m,
                        Err(e) => {
                            // A cascading window's row that cannot be
                            // computed stops the job, as a record's error.
                            self.shared.fail(RunError::Record(format!(
                                "INSERT INTO {}: a window aggregation's row into the next: {e}",
                                self.plan.tables[pl.sink].name
                            )));
                            return;
                        }
                    };
                    advanced = moved.or(advanced);
                    if (wrote || !out.is_empty()) && now >= next_publish {
                        next_publish = now.saturating_add(1_000);
                        self.publish_open();
                    }
                }
                Msg::Late(values) => {
                    if let Some(ls) =
                        self.plan.tables[self.plan.pipelines[self.pipeline].source].late_data_sink
                    {
                        let now = self.shared.clock.now();
                        self.rows.write_one(ls, &values, now, None);
                    }
                }
                Msg::Mark(m) => marked = Some((env.from, m)),
                // Join rows go to join subtasks only.
                Msg::Rows(_) => {
                    self.shared.fail(RunError::Usage(
                        "a window subtask received a join's rows (a bug in lowwater)".into(),
                    ));
                    return;
                }
                Msg::Barrier(id) => {
                    if let Alignment::Aligned(id) = self.node.gate_mut().barrier(0, env.from, id) {
                        self.snapshot(id);
                    }
                }
                Msg::End => {
                    ended += 1;
                    if let Alignment::Aligned(id) = self.node.gate_mut().end(0, env.from) {
                        self.snapshot(id);
                    }
                }
            }
            if !out.is_empty() {
                self.rows.emit(&mut out);
            }
            // Published only once the rows it fired are written and
            // flushed: sources commit Kafka offsets by it (no checkpoints).
            // Not after a failed write: offsets are committed by it.
            if let Some(wm) = advanced.take() {
                self.unpublished.0 = Some(wm);
                self.waiting_since.get_or_insert(self.shared.clock.now());
            }
            if let Some((from, m)) = marked.take() {
                if let Some(slot) = self.unpublished.1.get_mut(from) {
                    *slot = Some(m);
                    self.waiting_since.get_or_insert(self.shared.clock.now());
                }
            }
            self.publish_progress();
            let late = self.node.op().late();
            let total = late.total_dropped() + late.routed.values().sum::<u64>();
            if total != late_seen {
                late_seen = total;
                self.publish_late();
            }
        }
        self.publish_late();
        if self.shared.checkpoints.enabled() {
            self.link.report(Inbox::Final(self.part()));
        }
    }

    /// Publishes the watermark reached and the last mark seen, once the rows
    /// written before them are in the sinks for good: sources commit Kafka
    /// offsets by them when the job takes no checkpoints, so a Kafka sink's
    /// rows must be acknowledged by the broker first (a kill -9 would lose
    /// rows still queued, and the restart would not read their records
    /// again). With checkpoints, offsets follow the checkpoints instead.
    /// Not after a failed write: nothing is published again.
    fn publish_progress(&mut self) {
        let Some(since) = self.waiting_since else {
            return;
        };
        if self.shared.failed() {
            return;
        }
        if !self.shared.checkpoints.enabled() {
            // Rows that keep coming may never leave the producer's queue
            // empty: after a second of waiting, wait for them (one broker
            // round trip; the sink is held, so no row joins the queue).
            let patient = self.shared.clock.now().saturating_sub(since) < 1_000;
            if !self.sinks_acknowledged(!patient) {
                return;
            }
        }
        self.waiting_since = None;
        if let Some(wm) = self.unpublished.0.take() {
            self.shared.windows[self.pipeline][self.subtask].store(wm, Ordering::SeqCst);
        }
        let marks = &self.shared.marks[self.pipeline][self.subtask];
        for (from, m) in self.unpublished.1.iter_mut().enumerate() {
            if let (Some(m), Some(slot)) = (m.take(), marks.get(from)) {
                slot.store(m, Ordering::SeqCst);
            }
        }
    }

    /// Whether the rows written to this INSERT's sinks (its own and its
    /// source's late-data sink) are acknowledged (with `wait`, once they
    /// are: a flush); a refused row fails the job, naming the sink.
    fn sinks_acknowledged(&self, wait: bool) -> bool {
        let pl = &self.plan.pipelines[self.pipeline];
        let tables = std::iter::once(pl.sink).chain(self.plan.tables[pl.source].late_data_sink);
        for t in tables {
            let Some(mut w) = self.shared.sink(t) else {
                continue;
            };
            let acknowledged = match wait {
                true => w.flush().map(|()| true),
                false => w.acknowledged(),
            };
            match acknowledged {
                Ok(true) => {}
                Ok(false) => return false,
                Err(e) => {
                    self.shared.fail(RunError::Io(format!(
                        "writing sink {}: {e}",
                        self.plan.tables[t].name
                    )));
                    return false;
                }
            }
        }
        true
    }

    /// The open (window, key) states of the whole INSERT (every window
    /// subtask's, as last published) against
    /// `lowwater.state.max-open-windows`: a WARN at 80%; over it while the
    /// watermark stands still, the oldest windows fire early
    /// (`fire-oldest`) or the job stops. `false` when it stopped.
    fn check_open(
        &mut self,
        now: Timestamp,
        out: &mut Vec<WindowOutput>,
        warned: &mut bool,
        fired_warned: &mut Option<Timestamp>,
    ) -> bool {
        let own = self.publish_open();
        let open: u64 = self.shared.open[self.pipeline]
            .iter()
            .enumerate()
            .map(|(w, [states, ..])| match w == self.subtask {
                true => own,
                false => states.load(Ordering::Relaxed),
            })
            .sum();
        let limit = self.node.limit();
        let sink = &self.plan.tables[self.plan.pipelines[self.pipeline].sink].name;
        let fire = self.plan.settings.on_open_limit == OnOpenLimit::FireOldest;
        let subtasks = self.shared.open[self.pipeline].len();
        match self
            .node
            .check_open(open, now, fire.then_some(subtasks), out)
        {
            OpenCheck::Within => {}
            OpenCheck::Near if !*warned => {
                *warned = true;
                tracing::warn!(
                    "INSERT INTO {sink}: {open} (window, key) states are open, 80% of \
                     lowwater.state.max-open-windows ({limit}); past it, unless the watermark \
                     moved within the last {}, {}",
                    display_duration(self.node.grace()),
                    if fire {
                        "the oldest windows fire early"
                    } else {
                        "the job stops"
                    }
                );
            }
            OpenCheck::Near => {}
            OpenCheck::FiredEarly(fired) => {
                // This subtask's oldest windows fired early until its share
                // of 80% of the limit is left; their later records are late.
                if fired_warned.is_none_or(|t| now - t >= 60_000) {
                    *fired_warned = Some(now);
                    tracing::warn!(
                        "INSERT INTO {sink}: {open} (window, key) states are open, more than \
                         lowwater.state.max-open-windows ({limit}), and the watermark stands \
                         still: the oldest windows fired early ({fired} rows in window subtask \
                         {}, incomplete: lowwater_incomplete is true); their later records are \
                         late. The stall WARN names the partition holding the watermark",
                        self.subtask
                    );
                }
            }
            OpenCheck::Over { still_for } => {
                self.shared.fail(RunError::Usage(format!(
                    "{} (the stall WARN names the partition holding it); release the stall or \
                     raise the limit with SET 'lowwater.state.max-open-windows'. A restart \
                     restores these windows and goes on if the watermark moves within {} of it",
                    lowwater_core::window::limit::over_message(sink, open, limit, still_for),
                    display_duration(self.node.grace())
                )));
                return false;
            }
        }
        true
    }

    /// Publishes the open (window, key) states and their estimated bytes
    /// (for `/metrics`); returns the states.
    fn publish_open(&self) -> u64 {
        let open = self.node.pending() as u64;
        let [states, bytes, peak] = &self.shared.open[self.pipeline][self.subtask];
        states.store(open, Ordering::Relaxed);
        peak.fetch_max(open, Ordering::Relaxed);
        bytes.store(self.node.state_bytes() as u64, Ordering::Relaxed);
        open
    }

    fn publish_late(&self) {
        if let Ok(mut l) = self.shared.late[self.pipeline][self.subtask].lock() {
            l.clone_from(self.node.op().late());
        }
    }
}
