//! The job's threads while they run: every subtask on its own thread,
//! partition discovery, the checkpoint coordinator's thread, and the
//! supervising loop on the calling thread (the stall monitor, the stop,
//! the final checkpoint).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lowwater_core::clock::Clock;
use lowwater_core::Timestamp;
use lowwater_sql::plan::JobPlan;

use crate::control::{StopReply, StopRequest};
use crate::job::{RunArgs, RunError, Shared};
use crate::monitor::Monitor;
use crate::source::SourceTask;
use crate::window::WindowTask;

/// The subtasks of a job: window, join and source subtasks.
pub(crate) type Tasks = (
    Vec<WindowTask>,
    Vec<crate::join_task::JoinTask>,
    Vec<SourceTask>,
);

/// The job's threads while they run, watched from the calling thread.
pub(crate) struct Threads<'a> {
    pub plan: &'a Arc<JobPlan>,
    pub shared: &'a Arc<Shared>,
    pub args: &'a RunArgs,
    pub deadline: Option<Timestamp>,
    pub watched: Vec<crate::discovery::Watched>,
    /// Stops asked for over HTTP (`crate::control`).
    pub control: Mutex<std::sync::mpsc::Receiver<StopRequest>>,
}

impl Threads<'_> {
    /// Runs every subtask on its own thread (and partition discovery) and
    /// supervises them until they end: stall monitor, checkpoints, the stop.
    /// Returns whether every source drained.
    pub(crate) fn run(
        &self,
        (window_tasks, join_tasks, source_tasks): Tasks,
        coordinator: &mut Option<crate::coordinator::Coordinator>,
        monitor: &mut Monitor,
    ) -> bool {
        let shared = self.shared;
        let discovery_done = AtomicBool::new(false);
        let (final_asked, coordinator_done) = (AtomicBool::new(false), AtomicBool::new(false));
        let coordinator_gone = AtomicBool::new(false);
        // A stop asked for over HTTP, answered after the final checkpoint.
        let stopping: Mutex<Option<StopRequest>> = Mutex::new(None);
        std::thread::scope(|scope| {
            if !self.watched.is_empty() {
                let (plan, watched, done) = (self.plan, &self.watched, &discovery_done);
                let spawned = std::thread::Builder::new()
                    .name("discovery".into())
                    .spawn_scoped(scope, move || {
                        crate::discovery::run(plan, shared, watched, done)
                    });
                if let Err(e) = spawned {
                    shared.fail(RunError::Io(format!(
                        "could not start the partition discovery thread: {e}"
                    )));
                }
            }
            let windows: Vec<_> = window_tasks
                .into_iter()
                .map(|w| {
                    std::thread::Builder::new()
                        .name(format!("window-{}-{}", w.pipeline(), w.subtask()))
                        .spawn_scoped(scope, move || w.run())
                })
                .collect();
            let joins: Vec<_> = join_tasks
                .into_iter()
                .map(|j| {
                    std::thread::Builder::new()
                        .name(j.name())
                        .spawn_scoped(scope, move || j.run())
                })
                .collect();
            let sources: Vec<_> = source_tasks
                .into_iter()
                .map(|s| {
                    std::thread::Builder::new()
                        .name(format!("source-{}-{}", s.source, s.subtask))
                        .spawn_scoped(scope, move || s.run())
                })
                .collect();
            let alive = || {
                windows
                    .iter()
                    .chain(&joins)
                    .any(|h| h.as_ref().is_ok_and(|h| !h.is_finished()))
                    || sources
                        .iter()
                        .any(|h| h.as_ref().is_ok_and(|h| !h.is_finished()))
            };
            // The coordinator has its own thread: writing a checkpoint and
            // committing its Kafka transaction never pause the monitor.
            let checkpointing = coordinator.is_some();
            let coordinating = coordinator.take().map(|c| {
                let (asked, done, gone) = (&final_asked, &coordinator_done, &coordinator_gone);
                let stopping = &stopping;
                scope.spawn(move || {
                    // Set however the thread ends (a panic included), so
                    // that a stop never waits for it forever.
                    let _gone = Gone(gone);
                    self.coordinate(c, asked, done, stopping)
                })
            });
            while alive() {
                let next = || self.control.lock().ok()?.try_recv().ok();
                while let Some(req) = next() {
                    self.take_stop(req, checkpointing, &stopping);
                }
                self.step(checkpointing, &final_asked, &coordinator_gone, monitor);
            }
            coordinator_done.store(true, Ordering::SeqCst);
            match coordinating.map(|h| h.join()) {
                Some(Ok(c)) => *coordinator = Some(c),
                Some(Err(_)) => shared.fail(RunError::Usage(
                    "the checkpoint coordinator panicked (a bug in lowwater)".into(),
                )),
                None => {}
            }
            discovery_done.store(true, Ordering::SeqCst);
            let mut completed = true;
            for h in sources {
                match h.map(|h| h.join()) {
                    Ok(Ok(drained)) => completed &= drained,
                    Ok(Err(_)) => {
                        completed = false;
                        shared.fail(RunError::Usage(
                            "a source subtask panicked (a bug in lowwater)".into(),
                        ));
                    }
                    Err(e) => {
                        completed = false;
                        shared.fail(RunError::Io(format!(
                            "could not start a source thread: {e}"
                        )));
                    }
                }
            }
            for h in windows.into_iter().chain(joins) {
                match h.map(|h| h.join()) {
                    Ok(Ok(())) => {}
                    Ok(Err(_)) => shared.fail(RunError::Usage(
                        "a window or join subtask panicked (a bug in lowwater)".into(),
                    )),
                    Err(e) => shared.fail(RunError::Io(format!(
                        "could not start a window or join thread: {e}"
                    ))),
                }
            }
            completed
        })
    }

    /// The checkpoint coordinator's thread: checkpoints on the interval,
    /// the final one when a stop is asked for (then `asked` goes back to
    /// false), until the job's threads have ended. Gives the coordinator
    /// back for the end-of-input checkpoint.
    fn coordinate(
        &self,
        mut c: crate::coordinator::Coordinator,
        asked: &AtomicBool,
        done: &AtomicBool,
        stopping: &Mutex<Option<StopRequest>>,
    ) -> crate::coordinator::Coordinator {
        let shared = self.shared;
        while !done.load(Ordering::SeqCst) {
            if asked.load(Ordering::SeqCst) {
                let wait = self.plan.settings.checkpoints.timeout.min(60_000);
                let written = c.final_checkpoint(shared, wait);
                let id = shared.checkpoints.completed.load(Ordering::SeqCst);
                if written {
                    tracing::info!(
                        "stopping: final checkpoint {id} written; the same command continues from it"
                    );
                }
                if let Some(req) = stopping.lock().ok().and_then(|mut r| r.take()) {
                    let reply = saved(&c, written.then_some(id), req.savepoint.as_deref());
                    req.answer(reply);
                }
                asked.store(false, Ordering::SeqCst);
            }
            c.tick(shared.clock.now(), shared);
            std::thread::sleep(Duration::from_millis(10));
        }
        c
    }

    /// A stop asked for over HTTP: refused when the job is stopping
    /// already, or asks for a savepoint without checkpoints (the job goes
    /// on); else the job stops as on SIGTERM, answered once its final
    /// checkpoint is written (at once without checkpoints).
    fn take_stop(
        &self,
        req: StopRequest,
        checkpointing: bool,
        stopping: &Mutex<Option<StopRequest>>,
    ) {
        let Ok(mut slot) = stopping.lock() else {
            return req.answer(Err(
                "the job's stop state is poisoned (a bug in lowwater)".into()
            ));
        };
        if slot.is_some() || self.shared.stop.load(Ordering::SeqCst) {
            return req.answer(Err("the job is stopping already".into()));
        }
        match (checkpointing, &req.savepoint) {
            (false, Some(_)) => req.answer(Err(
                "a savepoint is the job's final checkpoint, and this job takes none: SET \
                 'execution.checkpointing.interval' and 'execution.checkpointing.dir' (the job \
                 goes on running)"
                    .into(),
            )),
            (false, None) => {
                req.answer(Ok(
                    "stopping; without checkpoints the open windows are not kept".into(),
                ));
                self.args.stop.store(true, Ordering::SeqCst);
            }
            (true, _) => {
                *slot = Some(req);
                self.args.stop.store(true, Ordering::SeqCst);
            }
        }
    }

    /// One turn of the supervising loop: a stop asked for (after the
    /// coordinator's final checkpoint), the stall monitor.
    fn step(
        &self,
        checkpointing: bool,
        final_asked: &AtomicBool,
        coordinator_gone: &AtomicBool,
        monitor: &mut Monitor,
    ) {
        let shared = self.shared;
        let now = shared.clock.now();
        let asked =
            self.args.stop.load(Ordering::SeqCst) || self.deadline.is_some_and(|d| now >= d);
        if asked && !shared.stop.load(Ordering::SeqCst) {
            if checkpointing {
                final_asked.store(true, Ordering::SeqCst);
                // The coordinator takes the final checkpoint while every
                // thread still runs; the monitor goes on meanwhile.
                while final_asked.load(Ordering::SeqCst)
                    && !shared.failed()
                    && !coordinator_gone.load(Ordering::SeqCst)
                {
                    monitor.tick(shared.clock.now());
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            shared.stop.store(true, Ordering::SeqCst);
        }
        monitor.tick(now);
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The answer to a stop: the final checkpoint `id` if it was written, and
/// the savepoint made of it in `dir` if one was asked for.
fn saved(
    c: &crate::coordinator::Coordinator,
    id: Option<lowwater_core::checkpoint::CheckpointId>,
    dir: Option<&std::path::Path>,
) -> StopReply {
    let Some(id) = id else {
        return Err(
            "the final checkpoint was not written (the job's log says why): the job stops \
             without a savepoint; its newest checkpoint is still restored by the same command"
                .into(),
        );
    };
    let Some(dir) = dir else {
        return Ok(format!(
            "stopped; final checkpoint {id} written: the same command continues from it"
        ));
    };
    let path = c.save_to(id, dir).map_err(|e| {
        format!("stopped with final checkpoint {id}, but the savepoint was not written: {e}")
    })?;
    tracing::info!("savepoint {} written (checkpoint {id})", path.display());
    Ok(format!(
        "stopped; savepoint {} (checkpoint {id}); continue with: lowwater run JOB.sql \
         --from-checkpoint {}",
        path.display(),
        path.display()
    ))
}

/// Sets its flag when dropped: a thread's end, however it ends.
struct Gone<'a>(&'a AtomicBool);

impl Drop for Gone<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}
