//! Building a job's threads from a plan, running them, and collecting the
//! outcome (the same report shape as replay).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;

use lowwater_core::clock::Clock;
use lowwater_sql::plan::JobPlan;

use crate::clock::SystemClock;
use crate::error::{RunArgs, RunError, RunOutcome};
use crate::inputs::{number_splits, restore_counters, warn_offsets_without_checkpoints};
use crate::monitor::Monitor;
use crate::report::report;
use crate::shared::Shared;
use crate::window::WindowTask;

/// Runs `plan` until its bounded inputs end (then drains: every window
/// fires) or `args.stop` is set or `args.duration` passes (then stops:
/// emitted rows are flushed, pending windows are not fired, as a Flink job
/// stopped without drain; with checkpoints a final one keeps them).
pub fn run(plan: &JobPlan, args: &RunArgs) -> Result<RunOutcome, RunError> {
    let (dumps, outputs) = io_args(plan, args)?;
    let dumped = dumps.keys().copied().collect();
    crate::source::exchange::refuse_unsupported(plan, &dumped).map_err(RunError::Usage)?;
    crate::join_watch::warn_empty_versioned(plan, &dumped);
    let plan = Arc::new(plan.clone());
    let clock = SystemClock::new();
    let start = clock.now();
    let sources = plan.source_tables();
    let state = crate::restore::open_state(&plan, args, start)?;
    let snapshot = state.restored.as_ref().map(|r| &r.snapshot);
    let restored_id = state.restored.as_ref().map(|r| r.id);
    let (splits, inputs) = number_splits(&plan, &sources, &dumps, start, snapshot)?;
    // Without checkpoints: how far the last run wrote each source's windows.
    // --rebuild-open-windows: what the old job wrote.
    let written = match (&state.rebuilt, snapshot) {
        (Some(w), _) => w.clone(),
        (None, Some(_)) => BTreeMap::new(),
        (None, None) => crate::written::floors(&plan, &splits, &dumps),
    };
    let lag_histograms = crate::observe::lag_family();
    let eo = state.exactly_once.as_ref();
    let sinks =
        crate::sink::sink_writers(&plan, &outputs, &lag_histograms, (eo, restored_id), start)?;
    let listener = listen(args)?;
    let shared = Arc::new(Shared::new(
        &plan,
        &sources,
        clock,
        start,
        sinks,
        splits,
        lag_histograms,
        (restored_id, state.written_to.clone()),
        state.exactly_once,
    ));
    if let Some(snap) = snapshot {
        restore_counters(&shared, snap);
    }
    let (mut window_tasks, senders) = window_tasks(&plan, &shared, snapshot, args, &written)?;
    let (mut join_tasks, join_senders) =
        crate::join_task::join_tasks(&plan, &shared, snapshot, args, &senders);
    let build = crate::inputs::SourceBuild {
        plan: &plan,
        shared: &shared,
        dumps: &dumps,
        senders: &senders,
        join_senders: &join_senders,
        snapshot,
        restored_id,
        args,
        written: &written,
    };
    let mut source_tasks = build.tasks(&sources, inputs)?;
    drop(senders);
    drop(join_senders);
    // Control travels by messages: every task gets a mailbox, and with
    // checkpoints the coordinator an inbox for the tasks' reports.
    let (mut post, inbox) = crate::mailbox::Post::new(plan.settings.checkpoints.interval.is_some());
    for t in &mut source_tasks {
        t.link = post.source_link(t.source, t.subtask).restored(restored_id);
    }
    let watched = crate::discovery::watched(&plan, &sources, &dumps);
    let discovery = (!watched.is_empty()).then(|| post.watcher_link());
    for t in &mut window_tasks {
        t.link = post.task_link().restored(restored_id);
    }
    for t in &mut join_tasks {
        t.link = post.task_link().restored(restored_id);
    }
    shared.install_post(post);
    let threshold = args
        .stall_threshold
        .unwrap_or_else(|| plan.default_stall_threshold());
    let mut monitor = Monitor::new(plan.clone(), shared.clone(), threshold);
    // The flight recorder keeps its events beside the checkpoints, so that
    // a restart keeps them (`crate::flight`).
    let history = state.store.as_ref().map(|s| s.dir().join("history.jsonl"));
    if let Ok(mut live) = shared.live.lock() {
        live.flight = crate::flight::FlightRecorder::open(history, plan.pipelines.len(), start);
    }
    let coordinator =
        crate::coordinator::Coordinator::for_job(&plan, (state.store, inbox), restored_id, start);
    if coordinator.is_none() {
        warn_offsets_without_checkpoints(&plan, &dumps);
    }
    // Partitions are visible (metrics, API) before the first record.
    for t in &source_tasks {
        t.publish();
    }
    let (control, control_rx) = std::sync::mpsc::channel();
    let control_open = control.clone();
    let server = match listener {
        Some(l) => Some(
            crate::http::Server::start(
                l,
                Arc::new(crate::observe::JobView {
                    plan: plan.clone(),
                    shared: shared.clone(),
                    threshold,
                    control,
                }),
            )
            .map_err(RunError::Io)?,
        ),
        None => None,
    };
    let threads = crate::threads::Threads {
        plan: &plan,
        shared: &shared,
        args,
        deadline: args.duration.map(|d| start + d.as_millis() as i64),
        watched: (watched, std::sync::Mutex::new(discovery)),
        control: std::sync::Mutex::new(control_rx),
        _control_open: control_open,
    };
    let mut coordinator = coordinator;
    let tasks = (window_tasks, join_tasks, source_tasks);
    let completed = threads.run(tasks, &mut coordinator, &mut monitor);
    monitor.finish(shared.clock.now());
    let recomputed = shared.recomputed.load(Ordering::Relaxed);
    if recomputed > 0 {
        tracing::info!(
            "{recomputed} window rows the committed output already held were computed again \
             from the older checkpoint and not written"
        );
    }
    if let Some(s) = server {
        s.stop();
    }
    finish_outputs(&shared, completed, coordinator.as_mut())?;
    if let Some(e) = shared.error.lock().ok().and_then(|mut e| e.take()) {
        return Err(e);
    }
    let mut report = report(&plan, &shared, monitor.stalls(), threshold, completed);
    report.recurring_holds = monitor.recurring();
    let peak_open_windows = plan
        .pipelines
        .iter()
        .enumerate()
        .map(|(pi, pl)| {
            let peak = shared.open[pi]
                .iter()
                .map(|[.., p]| p.load(Ordering::Relaxed))
                .sum();
            (plan.tables[pl.sink].name.clone(), peak)
        })
        .collect();
    Ok(RunOutcome {
        report,
        completed,
        peak_open_windows,
    })
}

/// `--input` dumps by source table.
type Dumps = BTreeMap<usize, PathBuf>;

/// The `--input` dumps and `--output` files by table, checked against the job.
fn io_args(plan: &JobPlan, args: &RunArgs) -> Result<(Dumps, Vec<(usize, PathBuf)>), RunError> {
    let named = |name: &str, what: &str| {
        plan.table(name).ok_or_else(|| {
            RunError::Usage(format!(
                "{what} names table '{name}', which the job does not define"
            ))
        })
    };
    let mut dumps = BTreeMap::new();
    for (name, path) in &args.inputs {
        let t = named(name, "--input")?;
        if !plan.source_tables().contains(&t) {
            return Err(RunError::Usage(format!(
                "--input {name}: table '{name}' is not read by any INSERT of the job"
            )));
        }
        dumps.insert(t, path.clone());
    }
    let mut outputs = Vec::new();
    for (name, path) in &args.outputs {
        let t = named(name, "--output")?;
        let joined = crate::joins::joins(plan)
            .iter()
            .any(|j| j.sides(plan).sink == t);
        if !joined
            && !plan
                .pipelines
                .iter()
                .any(|p| p.sink == t || plan.tables[p.source].late_data_sink == Some(t))
        {
            return Err(RunError::Usage(format!(
                "--output {name}: table '{name}' receives no rows in this job"
            )));
        }
        outputs.push((t, path.clone()));
    }
    Ok((dumps, outputs))
}

/// After the threads ended: every sink flushed; when the bounded inputs
/// ran to their end, a last checkpoint holds the end state (positions at
/// the end, every window fired), so that running the same command again
/// writes nothing twice; it finishes the part files and commits the
/// exactly-once transaction with the rows written since the one before.
fn finish_outputs(
    shared: &Shared,
    completed: bool,
    coordinator: Option<&mut crate::coordinator::Coordinator>,
) -> Result<(), RunError> {
    for &t in shared.sinks.keys() {
        if let Some(mut w) = shared.sink(t) {
            w.flush().map_err(|e| {
                let name = shared.table_names.get(t).map_or("?", String::as_str);
                RunError::Io(format!("writing the rows of sink {name}: {e}"))
            })?;
        }
    }
    let Some(c) = coordinator.filter(|_| completed && !shared.failed()) else {
        return Ok(());
    };
    // Every window subtask has ended, so the checkpoint rolls all their
    // open part files (see `Coordinator::roll_ended`).
    if let Some(id) = c.final_checkpoint(shared, 60_000) {
        tracing::info!("inputs ended: end-of-input checkpoint {id} written");
        Ok(())
    } else {
        Err(RunError::Io(
            "the end-of-input checkpoint could not be written; the same command continues \
             from the one before (rows since then are written again)"
                .into(),
        ))
    }
}

/// Whether a listener on `addr` can be reached from other machines.
fn exposed(addr: &std::net::SocketAddr) -> bool {
    !addr.ip().is_loopback()
}

/// The `--http` listener, bound before the job starts.
fn listen(args: &RunArgs) -> Result<Option<std::net::TcpListener>, RunError> {
    match &args.http {
        Some(addr) => {
            let l = std::net::TcpListener::bind(addr).map_err(|e| {
                RunError::Usage(format!(
                    "--http {addr}: cannot listen there ({e}); pick a free port, or port 0 for any"
                ))
            })?;
            if l.local_addr().is_ok_and(|a| exposed(&a)) {
                tracing::warn!(
                    "--http {addr} listens beyond this machine: anyone who can reach it reads \
                     the job's internals (watermarks, partitions, metrics) without \
                     authentication; use 127.0.0.1 unless a proxy or firewall guards it"
                );
            }
            Ok(Some(l))
        }
        None => Ok(None),
    }
}

/// The window subtasks (restored from `snapshot`) and the channels that
/// feed them: one per window subtask, fed by every source subtask.
type Senders = Vec<Vec<SyncSender<crate::envelope::Envelope>>>;

fn window_tasks(
    plan: &Arc<JobPlan>,
    shared: &Arc<Shared>,
    snapshot: Option<&crate::checkpoint::JobSnapshot>,
    args: &RunArgs,
    written: &BTreeMap<usize, crate::written::Written>,
) -> Result<(Vec<WindowTask>, Senders), RunError> {
    let p = plan.settings.parallelism;
    let mut tasks = Vec::new();
    let mut senders = Vec::new();
    for pi in 0..plan.pipelines.len() {
        let mut per_window = Vec::new();
        for w in 0..p {
            let (tx, rx) = sync_channel(args.channel_capacity.max(1));
            per_window.push(tx);
            let mut task = WindowTask::new(plan.clone(), pi, w, p, rx, shared.clone())
                .map_err(RunError::Usage)?;
            if let Some(part) = snapshot.and_then(|s| s.windows.get(pi)?.get(w)) {
                task.restore(part.clone());
            }
            // (A window after a join reads the join, not its source.)
            let floor = written.get(&plan.pipelines[pi].source);
            if let Some(w) = floor.filter(|_| !plan.pipelines[pi].reads_join()) {
                task.start_at(w.floor);
            }
            tasks.push(task);
        }
        senders.push(per_window);
    }
    Ok((tasks, senders))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_addresses_are_private() {
        for (addr, out) in [
            ("127.0.0.1:9249", false),
            ("[::1]:9249", false),
            ("0.0.0.0:9249", true),
            ("[::]:9249", true),
            ("192.168.1.5:9249", true),
        ] {
            assert_eq!(exposed(&addr.parse().expect("address")), out, "{addr}");
        }
    }
}
