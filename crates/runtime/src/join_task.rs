//! A join subtask thread: the live driver of the core's join nodes
//! ([`TemporalJoinNode`], [`IntervalJoinNode`]), the nodes replay drives.
//!
//! Every source subtask of both sides sends to every join subtask: rows
//! keyed to their subtask by a hash of the join key, watermarks, statuses
//! and barriers to all. A join subtask's channels are numbered port-major:
//! channel `port × parallelism + source subtask`. The node's gate combines
//! both sides' watermarks; the rows it releases (a temporal join's probe
//! rows, an interval join's padded rows) and the pairs it makes are written
//! to the INSERT's sink here. Checkpoints align on both sides' barriers.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;
use std::sync::Arc;

use lowwater_core::checkpoint::barrier::Alignment;
use lowwater_core::checkpoint::CheckpointId;
use lowwater_core::clock::Clock;
use lowwater_core::join::interval::Paired;
use lowwater_core::join::interval_node::IntervalJoinNode;
use lowwater_core::join::node::TemporalJoinNode;
use lowwater_core::join::temporal::{Joined, PROBE};
use lowwater_core::source::SplitId;
use lowwater_core::time::display_duration;
use lowwater_core::watermark::Progress;
use lowwater_core::window::limit::Verdict;
use lowwater_core::{Row, Timestamp, Value, MIN_WATERMARK};
use lowwater_sql::plan::JobPlan;

use crate::checkpoint::{JoinPart, JoinState};
use crate::envelope::{Envelope, Msg};
use crate::error::RunError;
use crate::joins::{JoinRef, SideRow};
use crate::shared::Shared;

/// Messages of channels held by a barrier alignment kept before the
/// checkpoint is given up (as a window subtask does).
const MAX_HELD: usize = 256;

/// The node of either join.
#[allow(clippy::large_enum_variant)] // one per join subtask
enum Node {
    Temporal(TemporalJoinNode),
    Interval(IntervalJoinNode),
}

/// A join subtask.
pub(crate) struct JoinTask {
    plan: Arc<JobPlan>,
    /// The join's number in `run`'s order, and which it is.
    index: usize,
    which: JoinRef,
    subtask: usize,
    /// Source subtasks per side (channels per port).
    p: usize,
    /// Each port's channel, read in turn while both have input (as
    /// Flink's two-input operator does), and the bell its senders ring.
    rx: [Receiver<Envelope>; 2],
    bell: Receiver<()>,
    /// The port read last.
    last: usize,
    node: Node,
    shared: Arc<Shared>,
    /// Input of channels held by a barrier alignment, in arrival order.
    held: VecDeque<Envelope>,
    joined: Vec<Joined>,
    paired: Vec<Paired>,
    late: BTreeMap<SplitId, u64>,
    filtered: u64,
    unmatched: u64,
    /// This subtask's number among the writers of file sinks.
    writer: usize,
    /// A row could not be written or computed: the job stops.
    stopped: bool,
    /// A window after the join: its INSERT's window subtasks.
    window: Option<crate::join_window::WindowOut>,
    /// The output watermark to send on to the window, once the rows the
    /// join released are in it.
    forward: Option<Timestamp>,
    /// Its mailbox and the coordinator's inbox.
    pub link: crate::mailbox::Link,
}

impl JoinTask {
    pub fn new(
        plan: Arc<JobPlan>,
        index: usize,
        which: JoinRef,
        subtask: usize,
        (rx, bell): ([Receiver<Envelope>; 2], Receiver<()>),
        shared: Arc<Shared>,
        window: Option<crate::join_window::WindowOut>,
    ) -> Self {
        let p = plan.settings.parallelism;
        let limit = plan.settings.max_join_rows;
        let grace = plan.open_limit_grace();
        let node = match which {
            JoinRef::Temporal(j) => Node::Temporal(plan.joins[j].node(p, p, limit, grace)),
            JoinRef::Interval(j) => Node::Interval(plan.intervals[j].node(p, p, limit, grace)),
        };
        JoinTask {
            writer: crate::sink::writer(&plan, plan.pipelines.len() + index, subtask),
            plan,
            index,
            which,
            subtask,
            p,
            rx,
            bell,
            last: 1,
            node,
            shared,
            held: VecDeque::new(),
            link: crate::mailbox::Link::detached(),
            joined: Vec::new(),
            paired: Vec::new(),
            late: BTreeMap::new(),
            filtered: 0,
            unmatched: 0,
            stopped: false,
            window,
            forward: None,
        }
    }

    /// Continues from a checkpoint's part of this subtask.
    pub fn restore(&mut self, part: JoinPart) {
        self.node = match part.state {
            JoinState::Temporal(s) => Node::Temporal(TemporalJoinNode::restore(s)),
            JoinState::Interval(s) => Node::Interval(IntervalJoinNode::restore(s)),
        };
        self.late = part.late;
        self.filtered = part.filtered;
        self.unmatched = part.unmatched;
        self.publish();
    }

    /// Its part of a checkpoint.
    fn part(&self) -> JoinPart {
        JoinPart {
            state: match &self.node {
                Node::Temporal(n) => JoinState::Temporal(n.state()),
                Node::Interval(n) => JoinState::Interval(n.state()),
            },
            late: self.late.clone(),
            filtered: self.filtered,
            unmatched: self.unmatched,
        }
    }

    pub fn name(&self) -> String {
        format!("join-{}-{}", self.index, self.subtask)
    }

    fn gate(&self) -> &lowwater_core::dataflow::gate::InputGate {
        match &self.node {
            Node::Temporal(n) => n.gate(),
            Node::Interval(n) => n.gate(),
        }
    }

    fn gate_mut(&mut self) -> &mut lowwater_core::dataflow::gate::InputGate {
        match &mut self.node {
            Node::Temporal(n) => n.gate_mut(),
            Node::Interval(n) => n.gate_mut(),
        }
    }

    /// The port and channel of a sender.
    fn channel(&self, from: usize) -> (usize, usize) {
        (from / self.p, from % self.p)
    }

    fn sink(&self) -> usize {
        self.which.sides(&self.plan).sink
    }

    /// The next input: held input of a channel no longer held first, looked
    /// at again after every message held (a given-up alignment releases its
    /// channels, whose held messages come before anything newer).
    fn next(&mut self) -> Option<Envelope> {
        let p = self.p;
        loop {
            let gate = self.gate();
            if let Some(i) = self
                .held
                .iter()
                .position(|e| !gate.is_held(e.from / p, e.from % p))
            {
                return self.held.remove(i);
            }
            let env = self.take_next()?;
            let (port, ch) = self.channel(env.from);
            if !self.gate().is_held(port, ch) {
                return Some(env);
            }
            self.held.push_back(env);
            if self.held.len() > MAX_HELD {
                if let Some(id) = self.gate_mut().cancel_alignment() {
                    tracing::warn!(
                        "checkpoint {id}: INSERT INTO {} join subtask {} held {MAX_HELD} batches \
                         while waiting for the barrier of a slower input; the checkpoint fails, \
                         the next one follows the interval",
                        self.plan.tables[self.sink()].name,
                        self.subtask
                    );
                    self.link.report(crate::mailbox::Inbox::Declined(id));
                }
            }
        }
    }

    /// The next message of either port, the other port's first when both
    /// have one: while the join is busy and both sides have input, a side
    /// that reads faster waits on its full channel instead of running
    /// ahead in event time (its rows would wait in the join's cache until
    /// the other side's watermark caught up). A side with nothing queued is
    /// not waited for: the other is read. Each ring follows a message, so a
    /// ring always finds one. `None`: every sender is gone.
    fn take_next(&mut self) -> Option<Envelope> {
        loop {
            self.link.recv(&self.bell)?;
            let other = 1 - self.last;
            for port in [other, self.last] {
                if let Ok(env) = self.rx[port].try_recv() {
                    self.last = port;
                    return Some(env);
                }
            }
        }
    }

    /// Runs until every sender has ended.
    pub fn run(mut self) {
        let senders = 2 * self.p;
        let mut ended = 0;
        while ended < senders && !self.stopped {
            let Some(env) = self.next() else {
                break;
            };
            let (port, ch) = self.channel(env.from);
            match env.msg {
                Msg::Rows(rows) => {
                    for r in rows {
                        if let Err(e) = self.row(port, r) {
                            self.fail(e);
                            break;
                        }
                    }
                    self.check_limit();
                }
                Msg::Progress(p) => self.progress(port, ch, p),
                Msg::Barrier(id) => {
                    if let Alignment::Aligned(id) = self.gate_mut().barrier(port, ch, id) {
                        self.snapshot(id);
                    }
                }
                Msg::End => {
                    ended += 1;
                    if let Alignment::Aligned(id) = self.gate_mut().end(port, ch) {
                        self.snapshot(id);
                    }
                }
                // Joins over Kafka run with checkpoints only: no marks.
                Msg::Mark(_) => {}
                // A join table has no late-data sink (the planner refuses
                // one), and window records go to window subtasks.
                Msg::Late(_) | Msg::Records(_) => {
                    self.fail(
                        "a join subtask received a window's input (a bug in lowwater)".into(),
                    );
                }
            }
            self.write();
            if let (Some(wm), Some(w)) = (self.forward.take(), &mut self.window) {
                w.watermark(wm, &self.shared);
            }
            self.publish();
        }
        if self.shared.checkpoints.enabled() && !self.stopped {
            let part = self.reported();
            self.link.report(crate::mailbox::Inbox::Final(part));
        }
        if let Some(w) = &mut self.window {
            w.send_all(|| Msg::End, &self.shared);
        }
    }

    /// A row of side `port` into the node.
    fn row(&mut self, port: usize, r: SideRow) -> Result<(), String> {
        let late = match (&mut self.node, self.which) {
            (Node::Temporal(n), JoinRef::Temporal(j)) => {
                if port == PROBE {
                    n.probe(r.ts, &r.key, r.row)
                } else {
                    self.plan.joins[j].build_into(n, r.ts, &r.key, &r.row, r.delete)
                }
            }
            (Node::Interval(n), JoinRef::Interval(j)) => {
                let jp = &self.plan.intervals[j];
                let mut matches = |l: &Row, rr: &Row| jp.matches(l, rr);
                n.row(port, r.ts, &r.key, r.row, &mut matches, &mut self.paired)
                    .map_err(|m| format!("the join condition: {m}"))?
            }
            _ => return Err("a join subtask of the wrong kind (a bug in lowwater)".into()),
        };
        if late {
            *self.late.entry(r.split).or_insert(0) += 1;
        }
        Ok(())
    }

    /// Channel `ch` of `port` sent `p`.
    fn progress(&mut self, port: usize, ch: usize, p: Progress) {
        let now = self.shared.clock.now();
        let forward = match (&mut self.node, self.which) {
            (Node::Temporal(n), _) => n.progress(port, ch, p, now, &mut self.joined),
            (Node::Interval(n), JoinRef::Interval(j)) => {
                let jp = &self.plan.intervals[j];
                let mut matches = |l: &Row, r: &Row| jp.matches(l, r);
                match n.progress(port, ch, p, now, &mut matches, &mut self.paired) {
                    Ok(moved) => moved.map(|(_, f)| f),
                    Err(e) => {
                        let sink = &self.plan.tables[jp.sink].name;
                        self.fail(format!(
                            "INSERT INTO {sink}: the {}'s condition: {e}",
                            jp.what()
                        ));
                        None
                    }
                }
            }
            (Node::Interval(_), _) => {
                self.fail("a join subtask of the wrong kind (a bug in lowwater)".into());
                None
            }
        };
        self.forward = forward.or(self.forward);
    }

    /// The rows the join holds against `lowwater.state.max-join-rows`:
    /// over it while the watermark stands still, the job stops, naming the
    /// stall.
    fn check_limit(&mut self) {
        let now = self.shared.clock.now();
        // The join's rows over every subtask (the others' as last
        // published), as the window subtasks count open windows.
        let own = match &self.node {
            Node::Temporal(n) => n.held(),
            Node::Interval(n) => n.op().cached(),
        };
        let js = &self.shared.joins[self.index];
        js.held[self.subtask].store(own, Ordering::Relaxed);
        let total: u64 = js.held.iter().map(|h| h.load(Ordering::Relaxed)).sum();
        let (verdict, limit) = match &mut self.node {
            Node::Temporal(n) => (n.check_held(total, now), n.limit()),
            Node::Interval(n) => (n.check_held(total, now), n.limit()),
        };
        let Verdict::Over { still_for } = verdict else {
            return;
        };
        let sides = self.which.sides(&self.plan);
        let tables = &self.plan.tables;
        let held = match &self.node {
            Node::Temporal(n) => format!(
                "{} probe rows of {} wait for the temporal join's watermark and {} versions of \
                 {} are held",
                n.op().waiting(),
                tables[sides.first.0].name,
                n.op().versions(),
                tables[sides.second.0].name
            ),
            Node::Interval(n) => format!(
                "the {} caches {} rows",
                self.which.what(&self.plan),
                n.op().cached()
            ),
        };
        let held = match self.p {
            1 => held,
            _ => format!(
                "{held} in join subtask {} ({total} in all its subtasks)",
                self.subtask
            ),
        };
        let moved = match still_for {
            Some(t) => format!("has not moved for {}", display_duration(t)),
            None => "has not moved since the job started".to_string(),
        };
        self.fail(format!(
            "INSERT INTO {}: {held}, more than lowwater.state.max-join-rows ({limit}) allows, \
             and the watermark {moved} (the stall WARN names the partition holding it): release \
             the stall (the idle-timeout of the quiet table) or raise the limit with SET \
             'lowwater.state.max-join-rows'",
            tables[sides.sink].name
        ));
    }

    fn fail(&mut self, e: String) {
        self.stopped = true;
        self.shared.fail(RunError::Usage(e));
    }

    /// Writes what the node put out (joined rows, pairs, padded rows) to
    /// the sink, under one lock of it, and flushes it; or, with a window
    /// after the join, sends them to its subtasks.
    fn write(&mut self) {
        if self.joined.is_empty() && self.paired.is_empty() {
            return;
        }
        let plan = self.plan.clone();
        let sink = self.sink();
        let rows = match self.rows(&plan) {
            Ok(rows) => rows,
            Err(e) => {
                let name = &plan.tables[sink].name;
                self.fail(format!("a joined row of INSERT INTO {name}: {e}"));
                return;
            }
        };
        if rows.is_empty() {
            return;
        }
        let shared = self.shared.clone();
        if let Some(out) = &mut self.window {
            for (values, ts) in &rows {
                match out.push(&plan, &shared, *ts, values) {
                    Ok(true) => {}
                    Ok(false) => self.filtered += 1,
                    Err(e) => {
                        let name = &plan.tables[sink].name;
                        self.fail(format!("INSERT INTO {name}: {e}"));
                        return;
                    }
                }
            }
            return;
        }
        let Some(mut w) = shared.sink(sink) else {
            return;
        };
        let now = self.shared.clock.now();
        for (values, ts) in &rows {
            // A joined row's emission lag runs from its time.
            let lag = now.saturating_sub(*ts);
            if let Err(e) = w.write(values, now, Some(lag), (self.subtask, self.writer)) {
                drop(w);
                self.fail(format!("writing sink {}: {e}", plan.tables[sink].name));
                return;
            }
        }
        if let Err(e) = w.flush_emitted() {
            drop(w);
            self.fail(format!("flushing sink {}: {e}", plan.tables[sink].name));
        }
    }

    /// The rows the node put out, as the sink takes them (or, with a
    /// window after the join, as the join's select list), each with its
    /// time: a temporal join's probe row's; an interval join's later
    /// rowtime, or the one the window after it reads. Rows WHERE drops and
    /// an inner join's unmatched probe rows are counted.
    fn rows(&mut self, plan: &JobPlan) -> Result<Vec<(Vec<Value>, Timestamp)>, String> {
        let width = match self.which {
            JoinRef::Temporal(j) if self.window.is_some() => plan.joins[j].outputs.len(),
            JoinRef::Interval(j) if self.window.is_some() => plan.intervals[j].outputs.len(),
            _ => plan.tables[self.sink()].columns.len(),
        };
        let mut rows = Vec::new();
        match self.which {
            JoinRef::Temporal(j) => {
                let jp = &plan.joins[j];
                for joined in self.joined.drain(..) {
                    let ts = joined.ts;
                    let Some(row) = jp
                        .joined_row(joined)
                        .map_err(|e| format!("the join condition: {e}"))?
                    else {
                        self.unmatched += 1;
                        continue;
                    };
                    match jp.sink_values(&row, width)? {
                        Some(values) => rows.push((values, ts)),
                        None => self.filtered += 1,
                    }
                }
            }
            JoinRef::Interval(j) => {
                let jp = &plan.intervals[j];
                let widths = jp.widths;
                for pair in self.paired.drain(..) {
                    let row = pair.into_row(widths.0, widths.1);
                    let Some(values) = jp.sink_values(&row, width)? else {
                        self.filtered += 1;
                        continue;
                    };
                    let ts = match &self.window {
                        Some(_) => jp.window_ts(&values)?,
                        None => jp.pair_time(&row).unwrap_or(MIN_WATERMARK),
                    };
                    rows.push((values, ts));
                }
            }
        }
        Ok(rows)
    }

    /// Every channel delivered barrier `id`: the sink gets every row the
    /// join wrote before it, then the state goes to the coordinator.
    fn snapshot(&mut self, id: CheckpointId) {
        self.write();
        if self.window.is_some() {
            // The window after the join writes the sink; it takes part in
            // the checkpoint once this barrier, after every row before it,
            // reaches it.
            let part = self.reported();
            self.link.report(crate::mailbox::Inbox::Part(id, part));
            let Some(w) = &mut self.window else {
                return;
            };
            if let Some(wm) = self.forward.take() {
                w.watermark(wm, &self.shared);
            }
            w.send_all(|| Msg::Barrier(id), &self.shared);
            return;
        }
        let sink = self.sink();
        let shared = self.shared.clone();
        let rolled = match shared.sink(sink) {
            Some(mut w) => match &mut w.parts {
                Some(p) => p.roll(self.writer, id).map_err(std::io::Error::other),
                None => w.flush(),
            },
            None => Ok(()),
        };
        if let Err(e) = rolled {
            self.fail(format!(
                "checkpoint {id}: flushing sink {}: {e}",
                self.plan.tables[sink].name
            ));
            return;
        }
        let part = self.reported();
        self.link.report(crate::mailbox::Inbox::Part(id, part));
        if self.shared.exactly_once.is_some() {
            // No row of the next checkpoint may enter this one's
            // transaction: wait for the coordinator's word.
            self.link.settle(id);
        }
    }

    /// This subtask's state, as its report to the coordinator.
    fn reported(&self) -> crate::mailbox::Part {
        crate::mailbox::Part::Join {
            join: self.index,
            subtask: self.subtask,
            part: self.part(),
        }
    }

    /// Publishes the watermark, the rows waiting, what holds it and the
    /// counters.
    fn publish(&self) {
        let js = &self.shared.joins[self.index];
        let s = self.subtask;
        let (wm, waiting, hold) = match &self.node {
            Node::Temporal(n) => (n.gate().current(), n.op().waiting(), n.hold()),
            Node::Interval(n) => (n.gate().current(), n.op().cached(), n.hold()),
        };
        js.watermarks[s].store(wm, Ordering::Relaxed);
        for (port, w) in js.inputs[s].iter().enumerate() {
            let input = self.gate().port(port).map(|v| v.watermark());
            w.store(input.unwrap_or(MIN_WATERMARK), Ordering::Relaxed);
        }
        js.waiting[s].store(waiting, Ordering::Relaxed);
        js.filtered[s].store(self.filtered, Ordering::Relaxed);
        js.unmatched[s].store(self.unmatched, Ordering::Relaxed);
        if let Node::Temporal(n) = &self.node {
            let deleted = n.normalize().map_or(0, |d| d.deleted());
            js.deleted[s].store(deleted, Ordering::Relaxed);
        }
        if let Ok(mut h) = js.holds[s].lock() {
            *h = hold;
        }
        if let Ok(mut l) = js.late[s].lock() {
            if *l != self.late {
                l.clone_from(&self.late);
            }
        }
    }
}

/// The join subtasks (restored from `snapshot`) and the channels that feed
/// them: one per join subtask, fed by every source subtask of both sides.
pub(crate) fn join_tasks(
    plan: &std::sync::Arc<JobPlan>,
    shared: &std::sync::Arc<crate::shared::Shared>,
    snapshot: Option<&crate::checkpoint::JobSnapshot>,
    args: &crate::error::RunArgs,
    windows: &[Vec<std::sync::mpsc::SyncSender<Envelope>>],
) -> (Vec<JoinTask>, Vec<[Vec<crate::envelope::PortSender>; 2]>) {
    let p = plan.settings.parallelism;
    let mut tasks = Vec::new();
    let mut senders = Vec::new();
    for (j, which) in crate::joins::joins(plan).into_iter().enumerate() {
        let mut per_port: [Vec<crate::envelope::PortSender>; 2] = [Vec::new(), Vec::new()];
        for s in 0..p {
            let (bell, rung) = std::sync::mpsc::channel();
            let cap = args.channel_capacity.max(1);
            let (left, right) = (
                std::sync::mpsc::sync_channel(cap),
                std::sync::mpsc::sync_channel(cap),
            );
            per_port[0].push(crate::envelope::PortSender {
                data: left.0,
                bell: bell.clone(),
            });
            per_port[1].push(crate::envelope::PortSender {
                data: right.0,
                bell,
            });
            let rx = [left.1, right.1];
            // A window after the join: this subtask is one of its senders.
            let window = which
                .into(plan)
                .map(|pi| crate::join_window::WindowOut::new(pi, s, windows[pi].clone()));
            let mut task = JoinTask::new(
                plan.clone(),
                j,
                which,
                s,
                (rx, rung),
                shared.clone(),
                window,
            );
            if let Some(part) = snapshot.and_then(|snap| snap.joins.get(j)?.get(s)) {
                task.restore(part.clone());
            }
            tasks.push(task);
        }
        senders.push(per_port);
    }
    (tasks, senders)
}
