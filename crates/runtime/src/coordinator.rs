//! The checkpoint coordinator, on its own thread: triggers checkpoints on
//! the interval, collects the parts the subtasks hand in, writes the file,
//! retires old ones, and tells the sources which checkpoint is complete so
//! that they commit its offsets. Every decision (when, which id, timeouts)
//! is the core's `CheckpointTrigger`; this module moves bytes.

use std::sync::atomic::Ordering;

use lowwater_core::checkpoint::store::{retire, CheckpointStore};
use lowwater_core::checkpoint::trigger::CheckpointTrigger;
use lowwater_core::checkpoint::{encode, CheckpointId, JobIdentity};
use lowwater_core::time::display_duration;
use lowwater_core::Timestamp;
use lowwater_sql::plan::JobPlan;

use crate::checkpoint::{Failpoint, FileStore, JobSnapshot, SourcePart, SplitKey, WindowPart};
use crate::job::Shared;

/// A complete checkpoint's parts: per source, per INSERT, per join.
type Parts = (
    Vec<Vec<SourcePart>>,
    Vec<Vec<WindowPart>>,
    Vec<Vec<crate::join_task::JoinPart>>,
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
}

impl Coordinator {
    /// The coordinator of a job with checkpoints (`None` without).
    /// Numbering continues after the newest checkpoint on disk, or the
    /// restored one if newer: a job restored from an older checkpoint (or
    /// started with --reset-state) never writes an id that an older file of
    /// another timeline holds, so retention removes old files, not new ones.
    pub fn for_job(
        plan: &JobPlan,
        store: Option<FileStore>,
        restored: Option<CheckpointId>,
        now: Timestamp,
    ) -> Option<Self> {
        let (interval, store) = (plan.settings.checkpoints.interval?, store?);
        let on_disk = store.list().unwrap_or_default().into_iter().max();
        let last = restored.max(on_disk).unwrap_or(0);
        let settings = &plan.settings.checkpoints;
        Some(Coordinator {
            trigger: CheckpointTrigger::new(interval, timeout(plan, interval), now, last),
            store,
            identity: crate::restore::identity(plan),
            retained: settings.retained,
            failpoint: Failpoint::from_env(),
            parallelism: plan.settings.parallelism,
            fired_bounds_output: crate::join_task::joins(plan).is_empty()
                && !plan.pipelines.iter().any(|pl| {
                    matches!(
                        plan.tables[pl.sink].connector,
                        lowwater_sql::options::Connector::Filesystem { .. }
                    )
                }),
        })
    }

    /// One step: completes a checkpoint whose parts are all in, fails one
    /// that ran too long, starts the next one when due.
    pub fn tick(&mut self, now: Timestamp, shared: &Shared) {
        self.collect(now, shared);
        if let Some((id, _)) = self.trigger.in_flight() {
            if shared.checkpoints.aborted.load(Ordering::SeqCst) >= id {
                self.fail(
                    id,
                    now,
                    shared,
                    "a window subtask gave up aligning its barriers",
                );
            }
        }
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
        if shared.stop.load(Ordering::SeqCst) {
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

    /// Takes a checkpoint now and waits for it (a graceful stop): `true`
    /// when it was written.
    pub fn final_checkpoint(&mut self, shared: &Shared, wait_ms: i64) -> bool {
        use lowwater_core::clock::Clock;
        self.settle(shared, wait_ms);
        let start = shared.clock.now();
        let Some(id) = self.trigger.force(start) else {
            return false;
        };
        self.begin(id, start, shared);
        self.wait_for(id, shared, start + wait_ms)
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
    /// deadline passes (then it fails).
    fn wait_for(&mut self, id: CheckpointId, shared: &Shared, deadline: Timestamp) -> bool {
        use lowwater_core::clock::Clock;
        loop {
            let now = shared.clock.now();
            self.collect(now, shared);
            if shared.checkpoints.completed.load(Ordering::SeqCst) >= id {
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
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    fn begin(&mut self, id: CheckpointId, now: Timestamp, shared: &Shared) {
        shared.checkpoints.begin(id, now);
    }

    fn collect(&mut self, now: Timestamp, shared: &Shared) {
        let Some(c) = shared.checkpoints.take_complete() else {
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
                        shared.fail(crate::job::RunError::Io(format!("checkpoint {id}: {e}")));
                        self.fail(id, now, shared, "its Kafka transaction did not commit");
                        return;
                    }
                    Failpoint::hit(&self.failpoint, "after-commit", id);
                }
                for &t in shared.sinks.keys() {
                    let committed = match shared.sink(t) {
                        Some(mut w) => w.parts.as_mut().map_or(Ok(()), |p| p.commit(id)),
                        None => Ok(()),
                    };
                    if let Err(e) = committed {
                        tracing::warn!("checkpoint {id}: finishing part files: {e}");
                    }
                }
                let took = self.trigger.completed(id, now).unwrap_or(0);
                shared.checkpoints.completed.store(id, Ordering::SeqCst);
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
        for &t in shared.sinks.keys() {
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
        shared.checkpoints.abandon();
        shared.checkpoints.aborted.fetch_max(id, Ordering::SeqCst);
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
