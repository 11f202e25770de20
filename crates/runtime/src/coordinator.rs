//! The checkpoint coordinator, on its own thread: triggers checkpoints on
//! the interval, collects the parts the subtasks report to its inbox
//! (`crate::mailbox`), writes the file, retires old ones, and tells every
//! task which checkpoint completed (sources commit its offsets, exactly-once
//! writers go on) or failed. It sleeps on its inbox until a report comes or
//! the next checkpoint is due. Every decision (when, which id, timeouts) is
//! the core's `CheckpointTrigger`; this module moves bytes.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use lowwater_core::checkpoint::store::{retire, CheckpointStore};
use lowwater_core::checkpoint::trigger::CheckpointTrigger;
use lowwater_core::checkpoint::{encode, CheckpointId, JobIdentity};
use lowwater_core::time::display_duration;
use lowwater_core::Timestamp;
use lowwater_sql::plan::JobPlan;

use crate::checkpoint::{Failpoint, FileStore, JobSnapshot, SourcePart, SplitKey, WindowPart};
use crate::collect::Collector;
use crate::mailbox::{Control, Inbox};
use crate::shared::Shared;

/// A complete checkpoint's parts: per source, per INSERT, per join.
type Parts = (
    Vec<Vec<SourcePart>>,
    Vec<Vec<WindowPart>>,
    Vec<Vec<crate::checkpoint::JoinPart>>,
);

/// Triggers and completes the checkpoints of one job.
pub(crate) struct Coordinator {
    trigger: CheckpointTrigger,
    store: FileStore,
    identity: JobIdentity,
    retained: usize,
    failpoint: Option<Failpoint>,
    parallelism: usize,
    /// Whether the commit marker may say, per INSERT, the watermark up to
    /// which the committed output holds its windows (`crate::restore`'s
    /// fallback to an older checkpoint): not with a join (its rows are not
    /// bounded by a watermark), nor with part files (those of the newest
    /// checkpoint are finished after its commit, so an older restore could
    /// drop what the marker says is written).
    fired_bounds_output: bool,
    /// The tasks' reports.
    inbox: Receiver<Inbox>,
    /// How long a stop waits for its final checkpoint.
    final_wait: i64,
    /// The parts of the checkpoint in flight, and of the tasks that ended.
    collector: Collector,
    /// The newest checkpoint written whole.
    completed: CheckpointId,
    /// The job stops (after its final checkpoint) or failed: no new
    /// checkpoint starts on the interval.
    stopping: bool,
    /// Every task has ended.
    ended: bool,
    /// The sink tables that may hold part files (filesystem sinks): only
    /// their writers are locked at a checkpoint's end, so that a jdbc sink
    /// retrying through a server's outage holds no checkpoint up.
    parted: Vec<usize>,
}

impl Coordinator {
    /// The coordinator of a job with checkpoints (`None` without).
    /// Numbering continues after the newest checkpoint on disk, or the
    /// restored one if newer: a job restored from an older checkpoint (or
    /// started with --reset-state) never writes an id that an older file of
    /// another timeline holds, so retention removes old files, not new ones.
    pub fn for_job(
        plan: &JobPlan,
        (store, inbox): (Option<FileStore>, Option<Receiver<Inbox>>),
        restored: Option<CheckpointId>,
        now: Timestamp,
    ) -> Option<Self> {
        let interval = plan.settings.checkpoints.interval?;
        let (store, inbox) = (store?, inbox?);
        let p = plan.settings.parallelism;
        let collector = Collector::new(
            &vec![p; plan.source_tables().len()],
            &vec![p; plan.pipelines.len()],
            &vec![p; crate::joins::joins(plan).len()],
        );
        let on_disk = store.list().unwrap_or_default().into_iter().max();
        let last = restored.max(on_disk).unwrap_or(0);
        let settings = &plan.settings.checkpoints;
        Some(Coordinator {
            trigger: CheckpointTrigger::new(interval, timeout(plan, interval), now, last),
            store,
            identity: crate::identity::identity(plan),
            retained: settings.retained,
            failpoint: Failpoint::from_env(),
            parallelism: plan.settings.parallelism,
            fired_bounds_output: crate::joins::joins(plan).is_empty()
                && !plan.pipelines.iter().any(|pl| {
                    matches!(
                        plan.tables[pl.sink].connector,
                        lowwater_sql::options::Connector::Filesystem { .. }
                    )
                }),
            inbox,
            final_wait: settings.timeout.min(60_000),
            collector,
            completed: restored.unwrap_or(0),
            stopping: false,
            ended: false,
            parted: (0..plan.tables.len())
                .filter(|&t| {
                    matches!(
                        plan.tables[t].connector,
                        lowwater_sql::options::Connector::Filesystem { .. }
                    )
                })
                .collect(),
        })
    }

    /// The coordinator's thread: checkpoints on the interval and the final
    /// one when a stop is asked for, until every task has ended. Gives the
    /// coordinator back for the end-of-input checkpoint.
    pub fn run(mut self, shared: &Shared) -> Self {
        use lowwater_core::clock::Clock;
        while !self.ended {
            let wait = self.wait(shared.clock.now());
            match self.inbox.recv_timeout(wait) {
                Ok(Inbox::Stop { request, done }) => {
                    let written = self.final_checkpoint(shared, self.final_wait);
                    if let Some(id) = written {
                        tracing::info!(
                            "stopping: final checkpoint {id} written; the same command continues \
                             from it"
                        );
                    }
                    self.stopping = true;
                    if let Some(req) = request {
                        let reply =
                            crate::control::saved(written, req.savepoint.as_deref(), |id, dir| {
                                self.save_to(id, dir)
                            });
                        req.answer(reply);
                    }
                    let _ = done.send(written);
                }
                Ok(m) => self.take(m, shared.clock.now(), shared),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => self.ended = true,
            }
            self.tick(shared.clock.now(), shared);
        }
        self
    }

    /// How long the thread may sleep on its inbox: until the next
    /// checkpoint is due or the one in flight times out (at most a second,
    /// at least a millisecond).
    fn wait(&self, now: Timestamp) -> Duration {
        let due = self.trigger.next_event().saturating_sub(now);
        Duration::from_millis(due.clamp(1, 1_000) as u64)
    }

    /// One report from a task.
    fn take(&mut self, m: Inbox, now: Timestamp, shared: &Shared) {
        match m {
            Inbox::Part(id, part) => self.collector.part(id, part),
            Inbox::Final(part) => self.collector.last(part),
            Inbox::Declined(id) => {
                if self
                    .trigger
                    .in_flight()
                    .is_some_and(|(running, _)| running == id)
                {
                    self.fail(
                        id,
                        now,
                        shared,
                        "a window subtask gave up aligning its barriers",
                    );
                }
            }
            Inbox::Failed => {
                self.stopping = true;
                if let Some((id, _)) = self.trigger.in_flight() {
                    self.fail(id, now, shared, "the job failed while it was taken");
                }
            }
            Inbox::End => self.ended = true,
            Inbox::Stop { request, done } => {
                if let Some(req) = request {
                    req.answer(Err("the job is stopping already".into()));
                }
                let _ = done.send(None);
            }
        }
        self.collect(now, shared);
    }

    /// The newest checkpoint written whole (or restored).
    #[cfg(test)]
    pub fn completed(&self) -> CheckpointId {
        self.completed
    }

    /// One step: completes a checkpoint whose parts are all in, fails one
    /// that ran too long, starts the next one when due.
    fn tick(&mut self, now: Timestamp, shared: &Shared) {
        self.collect(now, shared);
        if let Some(id) = self.trigger.timed_out(now) {
            self.fail(
                id,
                now,
                shared,
                "it did not complete within execution.checkpointing.timeout",
            );
        }
        // A job that stops (after its final checkpoint) or failed starts
        // no new checkpoint.
        if self.stopping || self.ended {
            return;
        }
        if let Some(id) = self.trigger.poll(now) {
            self.begin(id, now, shared);
        }
    }

    /// Copies checkpoint `id` into `dir`: a savepoint (`crate::control`).
    pub fn save_to(
        &self,
        id: CheckpointId,
        dir: &std::path::Path,
    ) -> Result<std::path::PathBuf, String> {
        crate::control::save(&self.store, id, dir)
    }

    /// Takes a checkpoint now and waits for it (a graceful stop, the end
    /// of the input): its id when it was written.
    pub fn final_checkpoint(&mut self, shared: &Shared, wait_ms: i64) -> Option<CheckpointId> {
        use lowwater_core::clock::Clock;
        self.settle(shared, wait_ms);
        let start = shared.clock.now();
        let id = self.trigger.force(start)?;
        self.begin(id, start, shared);
        self.wait_for(id, shared, start + wait_ms).then_some(id)
    }

    /// Lets the checkpoint in flight, if any, complete or fail (within
    /// `wait_ms`).
    fn settle(&mut self, shared: &Shared, wait_ms: i64) {
        use lowwater_core::clock::Clock;
        if let Some((id, _)) = self.trigger.in_flight() {
            self.wait_for(id, shared, shared.clock.now() + wait_ms);
        }
    }

    /// Waits until checkpoint `id` completes (`true`), fails, or the
    /// deadline passes (then it fails), taking the tasks' reports.
    fn wait_for(&mut self, id: CheckpointId, shared: &Shared, deadline: Timestamp) -> bool {
        use lowwater_core::clock::Clock;
        loop {
            let now = shared.clock.now();
            self.collect(now, shared);
            if self.completed >= id {
                return true;
            }
            if self
                .trigger
                .in_flight()
                .is_none_or(|(running, _)| running != id)
            {
                return false;
            }
            if now > deadline || shared.failed() {
                self.fail(
                    id,
                    now,
                    shared,
                    "the job stopped before every subtask took part",
                );
                return false;
            }
            let left = Duration::from_millis(deadline.saturating_sub(now).clamp(1, 1_000) as u64);
            match self.inbox.recv_timeout(left) {
                Ok(m) => self.take(m, shared.clock.now(), shared),
                Err(RecvTimeoutError::Timeout) => {}
                // Every task ended and nothing more can come: whatever
                // the collector holds is all there is.
                Err(RecvTimeoutError::Disconnected) => {
                    self.collect(shared.clock.now(), shared);
                    return self.completed >= id;
                }
            }
        }
    }

    /// Starts checkpoint `id`: the sources are asked for it.
    fn begin(&mut self, id: CheckpointId, now: Timestamp, shared: &Shared) {
        self.collector.begin(id, now);
        if let Some(post) = shared.post() {
            post.to_sources(Control::Trigger(id));
        }
    }

    fn collect(&mut self, now: Timestamp, shared: &Shared) {
        let Some(c) = self.collector.take_complete() else {
            return;
        };
        let (id, started) = (c.id, c.started);
        if shared.failed() {
            // A failed job commits nothing more (rows written since its
            // failure may be in the transaction): the restart goes back to
            // the last checkpoint.
            self.fail(id, now, shared, "the job failed while it was taken");
            return;
        }
        if let Err(e) = self.roll_ended(shared, &c.ended, id) {
            self.fail(id, now, shared, &e);
            return;
        }
        // What this checkpoint's output holds, for its commit marker: per
        // INSERT, the watermark up to which its windows were written (not
        // with a join, whose rows no watermark bounds).
        // After a restore from an older checkpoint the output holds what
        // the committed one had written, whatever the operators fired since.
        let fired = self.fired_bounds_output.then(|| {
            let mut f = crate::checkpoint::fired_to(&c.windows);
            for (f, w) in f.iter_mut().zip(shared.written_to.iter().flatten()) {
                *f = (*f).max(*w);
            }
            f
        });
        match self.write(id, started, (c.sources, c.windows, c.joins), shared) {
            Ok((size, crc)) => {
                Failpoint::hit(&self.failpoint, "after-checkpoint-write", id);
                if let Some(eo) = &shared.exactly_once {
                    // The commit point: rows and marker become visible together.
                    if let Err(e) = eo.commit(id, crc, fired) {
                        shared.fail(crate::error::RunError::Io(format!("checkpoint {id}: {e}")));
                        self.fail(id, now, shared, "its Kafka transaction did not commit");
                        return;
                    }
                    Failpoint::hit(&self.failpoint, "after-commit", id);
                }
                for &t in shared.sinks.keys().filter(|t| self.parted.contains(t)) {
                    let committed = match shared.sink(t) {
                        Some(mut w) => w.parts.as_mut().map_or(Ok(()), |p| p.commit(id)),
                        None => Ok(()),
                    };
                    if let Err(e) = committed {
                        tracing::warn!("checkpoint {id}: finishing part files: {e}");
                    }
                }
                let took = self.trigger.completed(id, now).unwrap_or(0);
                self.completed = id;
                if let Some(post) = shared.post() {
                    post.to_all(Control::Completed(id));
                }
                if let Ok(mut s) = shared.checkpoints.stats.lock() {
                    s.completed += 1;
                    s.last_id = Some(id);
                    s.last_at = Some(started);
                    s.last_duration_ms = Some(took);
                    s.last_size_bytes = Some(size as u64);
                }
                tracing::debug!("checkpoint {id} complete: {size} bytes in {took} ms");
                if let Err(e) = retire(&mut self.store, self.retained) {
                    tracing::warn!("checkpoint {id}: removing old checkpoints failed: {e}");
                }
            }
            Err(e) => self.fail(id, now, shared, &e),
        }
    }

    /// Window and join subtasks that ended stand in this checkpoint with their last
    /// state: the part files they left open (all their rows, every window
    /// fired) become pending for it.
    fn roll_ended(
        &self,
        shared: &Shared,
        ended: &[(usize, usize)],
        id: CheckpointId,
    ) -> Result<(), String> {
        for &t in shared.sinks.keys().filter(|t| self.parted.contains(t)) {
            let Some(mut w) = shared.sink(t) else {
                continue;
            };
            if let Some(parts) = w.parts.as_mut() {
                for &(pipeline, subtask) in ended {
                    // As `crate::sink::writer` numbers them.
                    parts.roll(pipeline * self.parallelism + subtask, id)?;
                }
            }
        }
        Ok(())
    }

    fn write(
        &mut self,
        id: CheckpointId,
        started: Timestamp,
        (sources, windows, joins): Parts,
        shared: &Shared,
    ) -> Result<(usize, u32), String> {
        let splits = shared
            .splits
            .read()
            .map_err(|_| "the split table is poisoned".to_string())?
            .iter()
            .map(|m| SplitKey {
                table: shared.table_name(m.table),
                topic: m.topic.clone(),
                partition: m.partition,
            })
            .collect();
        let snapshot = JobSnapshot {
            identity: self.identity.clone(),
            taken_at: started,
            splits,
            sources,
            windows,
            joins,
        };
        let bytes = encode(id, &snapshot).map_err(|e| e.to_string())?;
        Failpoint::hit(&self.failpoint, "before-checkpoint-write", id);
        self.store.write(id, &bytes)?;
        let crc = lowwater_core::checkpoint::format::file_crc(&bytes).unwrap_or(0);
        Ok((bytes.len(), crc))
    }

    fn fail(&mut self, id: CheckpointId, now: Timestamp, shared: &Shared, why: &str) {
        if self.trigger.failed(id, now).is_none() {
            return;
        }
        self.collector.abandon();
        if let Some(post) = shared.post() {
            post.to_all(Control::Aborted(id));
        }
        if let Ok(mut s) = shared.checkpoints.stats.lock() {
            s.failed += 1;
            s.last_failure = Some(format!("checkpoint {id}: {why}"));
        }
        // Under exactly-once, output waits for a commit: say for how long
        // it has waited, and when the brokers give up on it.
        let invisible = shared
            .exactly_once
            .as_ref()
            .and_then(|eo| eo.open_transaction())
            .map_or(String::new(), |(open, limit)| {
                format!(
                    ". Exactly-once output written since the last committed checkpoint stays \
                     invisible to read_committed consumers until a checkpoint commits: its \
                     Kafka transaction has been open for {}, and past transaction.timeout.ms \
                     ({}) the brokers abort it and the job stops",
                    display_duration(open),
                    display_duration(limit)
                )
            });
        tracing::warn!(
            "checkpoint {id} failed: {why}; the job goes on and the next checkpoint follows the \
             interval (a restart now would restore the previous one, in {}){invisible}",
            self.store.dir().display()
        );
    }
}

/// `execution.checkpointing.timeout`, shortened for exactly-once sinks so
/// that a slow checkpoint fails as a checkpoint before the brokers abort
/// its transaction (`transaction.timeout.ms`, librdkafka's default 60 s,
/// counted from the transaction's first row, up to an interval earlier).
fn timeout(plan: &JobPlan, interval: i64) -> i64 {
    let configured = plan.settings.checkpoints.timeout;
    let txn = plan
        .tables
        .iter()
        .filter(|t| t.exactly_once())
        .filter_map(|t| match &t.connector {
            lowwater_sql::options::Connector::Kafka { properties, .. } => Some(
                properties
                    .get("transaction.timeout.ms")
                    .and_then(|v| v.trim().parse::<i64>().ok())
                    .unwrap_or(60_000),
            ),
            _ => None,
        })
        .min();
    match txn {
        Some(t) => configured.min((t - interval).max(1)),
        None => configured,
    }
}

#[cfg(test)]
mod tests {

    use std::sync::mpsc::channel;

    use lowwater_core::clock::Clock;
    use lowwater_core::source::SourceSubtask;
    use lowwater_core::watermark::generator::WatermarkStrategy;
    use lowwater_core::watermark::valve::ChannelValve;
    use lowwater_core::window::assigner::WindowAssigner;
    use lowwater_core::window::operator::{WindowOperator, WindowSpec};

    use super::*;
    use crate::mailbox::{Link, Part, Post};

    fn source_part() -> Part {
        Part::Source {
            source: 0,
            subtask: 0,
            part: SourcePart::fresh(
                SourceSubtask::new(WatermarkStrategy::sql(0)).expect("a strategy"),
                None,
            ),
        }
    }

    fn window_part() -> Part {
        let spec = WindowSpec::count(WindowAssigner::tumbling(60_000));
        Part::Window {
            pipeline: 0,
            subtask: 0,
            part: WindowPart {
                valve: ChannelValve::new(1),
                op: WindowOperator::new(spec).expect("a window"),
                chain: Vec::new(),
            },
        }
    }

    /// The next checkpoint the coordinator asks `source` for.
    fn asked(source: &mut Link) -> Option<CheckpointId> {
        for _ in 0..100 {
            source.wait(Duration::from_millis(100));
            if let Some(id) = source.trigger() {
                return Some(id);
            }
        }
        None
    }

    /// The coordinator works from the tasks' reports alone: it asks the
    /// sources, writes a checkpoint once every part is in and says so to
    /// every task, fails one a task gave up, and takes the final
    /// checkpoint of a stop from the last states of tasks that ended.
    #[test]
    fn the_coordinator_completes_checkpoints_from_the_tasks_reports() {
        let dir = std::env::temp_dir().join(format!("lowwater-coordinator-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let plan = JobPlan::from_sql(&format!(
            "SET 'execution.checkpointing.interval' = '20 ms';
             SET 'execution.checkpointing.dir' = '{}';
             CREATE TABLE src (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
               WITH ('connector' = 'datagen', 'number-of-rows' = '10');
             CREATE TABLE out_counts (n BIGINT) WITH ('connector' = 'blackhole');
             INSERT INTO out_counts SELECT COUNT(*)
               FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
               GROUP BY window_start, window_end;",
            dir.display()
        ))
        .expect("plans");
        let shared = crate::shared::test_shared(&plan);
        let (mut post, inbox) = Post::new(true);
        let (mut source, mut window) = (post.source_link(0, 0), post.task_link());
        shared.install_post(post);
        let store = FileStore::open(&dir).expect("a checkpoint directory");
        let now = shared.clock.now();
        let c = Coordinator::for_job(&plan, (Some(store), inbox), None, now).expect("checkpoints");
        let file = |id: CheckpointId| dir.join(format!("chk-{id:08}.lwck"));
        std::thread::scope(|s| {
            let running = s.spawn(|| c.run(&shared));
            assert_eq!(asked(&mut source), Some(1));
            source.report(Inbox::Part(1, source_part()));
            // A part of another checkpoint does not count.
            window.report(Inbox::Part(7, window_part()));
            window.report(Inbox::Part(1, window_part()));
            assert!(window.settle(1), "checkpoint 1 completes");
            assert!(file(1).exists());
            assert_eq!(asked(&mut source), Some(2));
            window.report(Inbox::Declined(2));
            assert!(!window.settle(2), "checkpoint 2 fails");
            assert!(!file(2).exists());
            // Both tasks end; a stop's final checkpoint is made of their
            // last states.
            source.report(Inbox::Final(source_part()));
            window.report(Inbox::Final(window_part()));
            let (done, answer) = channel();
            let post = shared.post().expect("installed");
            assert!(post.to_coordinator(Inbox::Stop {
                request: None,
                done
            }));
            let last = answer.recv_timeout(Duration::from_secs(30));
            let last = last.ok().flatten().expect("a final checkpoint");
            assert!(last >= 3 && file(last).exists(), "{last}");
            assert!(post.to_coordinator(Inbox::End));
            let c = running.join().expect("the coordinator ends");
            assert_eq!(c.completed(), last);
        });
        let _ = std::fs::remove_dir_all(&dir);
    }
}
