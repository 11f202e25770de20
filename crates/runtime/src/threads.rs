//! The job's threads while they run: every subtask on its own thread,
//! partition discovery, the checkpoint coordinator's thread, and the
//! supervising loop on the calling thread (the stall monitor, the stop,
//! the final checkpoint). The supervisor talks to the coordinator and the
//! sources by messages (`crate::mailbox`): it waits on the stops asked for
//! over HTTP between two looks of the monitor, asks the coordinator for the
//! final checkpoint and waits for its answer, then tells the sources to
//! stop.

use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lowwater_core::clock::Clock;
use lowwater_core::Timestamp;
use lowwater_sql::plan::JobPlan;

use crate::control::StopRequest;
use crate::error::{RunArgs, RunError};
use crate::mailbox::Inbox;
use crate::monitor::Monitor;
use crate::shared::Shared;
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
    /// The tables partition discovery watches, and its link.
    pub watched: (
        Vec<crate::discovery::Watched>,
        Mutex<Option<crate::mailbox::Link>>,
    ),
    /// Stops asked for over HTTP (`crate::control`), and a sender that
    /// keeps the channel open when no server holds one (the supervisor
    /// waits on it between two looks of the monitor).
    pub control: Mutex<std::sync::mpsc::Receiver<StopRequest>>,
    pub _control_open: std::sync::mpsc::Sender<StopRequest>,
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
        // A stop asked for over HTTP, answered after the final checkpoint.
        let mut stopping: Option<StopRequest> = None;
        std::thread::scope(|scope| {
            let discovery = self.watched.1.lock().ok().and_then(|mut l| l.take());
            if let Some(link) = discovery {
                let (plan, watched) = (self.plan, &self.watched.0);
                let spawned = std::thread::Builder::new()
                    .name("discovery".into())
                    .spawn_scoped(scope, move || {
                        crate::discovery::run(plan, shared, watched, link)
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
                std::thread::Builder::new()
                    .name("coordinator".into())
                    .spawn_scoped(scope, move || c.run(shared))
            });
            let coordinating = match coordinating.transpose() {
                Ok(c) => c,
                Err(e) => {
                    shared.fail(RunError::Io(format!(
                        "could not start the checkpoint coordinator's thread: {e}"
                    )));
                    None
                }
            };
            // The interval flushes of jdbc sinks, on their own thread: a
            // server that is away holds that thread, not the monitor.
            let (flushing, flush_stop) = crate::sink_flush::interval_flusher(self.plan, shared);
            let flusher = flushing.map(|f| {
                std::thread::Builder::new()
                    .name("sink-flush".into())
                    .spawn_scoped(scope, f)
            });
            if let Some(Err(e)) = &flusher {
                shared.fail(RunError::Io(format!(
                    "could not start the jdbc sinks' flush thread: {e}"
                )));
            }
            while alive() {
                // The monitor looks every 50 ms; a stop asked for over
                // HTTP is taken as it comes.
                let asked = self
                    .control
                    .lock()
                    .ok()
                    .and_then(|rx| rx.recv_timeout(Duration::from_millis(50)).ok());
                if let Some(req) = asked {
                    self.take_stop(req, checkpointing, &mut stopping);
                }
                self.step(checkpointing, &mut stopping, monitor);
            }
            drop(flush_stop);
            if let Some(Ok(h)) = flusher {
                if h.join().is_err() {
                    shared.fail(RunError::Usage(
                        "the jdbc sinks' flush thread panicked (a bug in lowwater)".into(),
                    ));
                }
            }
            if let Some(post) = shared.post() {
                post.to_coordinator(Inbox::End);
            }
            match coordinating.map(|h| h.join()) {
                Some(Ok(c)) => *coordinator = Some(c),
                Some(Err(_)) => shared.fail(RunError::Usage(
                    "the checkpoint coordinator panicked (a bug in lowwater)".into(),
                )),
                None => {}
            }
            // Every task has ended: partition discovery ends too.
            if let Some(post) = shared.post() {
                post.to_sources(crate::mailbox::Control::Stop);
            }
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

    /// A stop asked for over HTTP: refused when the job is stopping
    /// already, or asks for a savepoint without checkpoints (the job goes
    /// on); else the job stops as on SIGTERM, answered once its final
    /// checkpoint is written (at once without checkpoints).
    fn take_stop(&self, req: StopRequest, checkpointing: bool, slot: &mut Option<StopRequest>) {
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
    fn step(&self, checkpointing: bool, stopping: &mut Option<StopRequest>, monitor: &mut Monitor) {
        let shared = self.shared;
        let now = shared.clock.now();
        let asked =
            self.args.stop.load(Ordering::SeqCst) || self.deadline.is_some_and(|d| now >= d);
        if asked && !shared.stop.load(Ordering::SeqCst) {
            let request = stopping.take();
            if checkpointing {
                // The coordinator takes the final checkpoint while every
                // thread still runs; the monitor goes on meanwhile. Its
                // answer (or its end: a panic included) ends the wait.
                let (done, answer) = std::sync::mpsc::channel();
                let post = shared.post();
                if post.is_some_and(|p| p.to_coordinator(Inbox::Stop { request, done })) {
                    while let Err(RecvTimeoutError::Timeout) =
                        answer.recv_timeout(Duration::from_millis(10))
                    {
                        monitor.tick(shared.clock.now());
                    }
                }
            }
            shared.request_stop();
        }
        monitor.tick(now);
    }
}
