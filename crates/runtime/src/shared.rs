//! The state every thread of a job shares: its counters and views
//! (written by the task that owns each, read by the monitor, the report
//! and the API), the sinks' writers, and the post that carries control.
//! Below every task; built by `crate::job`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use lowwater_core::source::{SplitId, SplitView};
use lowwater_core::window::operator::LateCounters;
use lowwater_core::{Timestamp, MIN_WATERMARK};
use lowwater_sql::plan::JobPlan;

use crate::clock::SystemClock;
use crate::error::RunError;
use crate::sink::{SinkCounters, SinkWriter};

pub(crate) use lowwater_core::source::SplitMeta;

/// What a source subtask publishes for the monitor and the report.
#[derive(Debug, Clone, Default)]
pub(crate) struct SubtaskView {
    pub watermark: Timestamp,
    pub idle: bool,
    pub splits: Vec<SplitView>,
    pub skipped: BTreeMap<SplitId, u64>,
    pub nulled: BTreeMap<SplitId, u64>,
    /// Records kept out by `lowwater.watermark.max-future` (not in
    /// checkpoints: counted again from a restore).
    pub future: BTreeMap<SplitId, u64>,
    /// How far each Kafka partition's reader is from the partition's end.
    pub backlog: BTreeMap<SplitId, lowwater_kafka::Backlog>,
    /// Watermark alignment: per partition whether it is paused now and the
    /// time it spent paused.
    pub paused: BTreeMap<SplitId, (bool, lowwater_core::Millis)>,
}

/// One source table's shared counters.
pub(crate) struct SourceShared {
    pub table: usize,
    pub records: AtomicU64,
    pub filtered: AtomicU64,
    /// Subtasks with splits still reading: subtasks without splits of a
    /// dump-fed (Kafka) table wait for them before ending, so that they hold
    /// the watermark as they do in replay.
    pub reading: std::sync::atomic::AtomicUsize,
    pub subtasks: Vec<Mutex<SubtaskView>>,
}

/// State shared by every thread of a job.
pub(crate) struct Shared {
    pub stop: Arc<AtomicBool>,
    pub error: Mutex<Option<RunError>>,
    pub clock: SystemClock,
    pub start: Timestamp,
    pub sources: Vec<SourceShared>,
    pub windows: Vec<Vec<AtomicI64>>,
    pub sinks: BTreeMap<usize, Mutex<SinkWriter>>,
    /// Each sink's counters (the same as its writer's), by sink table.
    pub sink_counters: BTreeMap<usize, Arc<Mutex<SinkCounters>>>,
    /// Every split by id; grows when partition discovery finds partitions.
    pub splits: std::sync::RwLock<Vec<SplitMeta>>,
    /// Without checkpoints: per pipeline, window subtask and channel, the
    /// last in-band mark processed (published after the rows before it).
    pub marks: Vec<Vec<Vec<AtomicU64>>>,
    /// Late counters per pipeline and window subtask, published live.
    pub late: Vec<Vec<Mutex<LateCounters>>>,
    /// Open (window, key) states, their estimated bytes and the most
    /// states open at once, per pipeline and window subtask, published
    /// every second or few thousand records and after windows fire.
    pub open: Vec<Vec<[AtomicU64; 3]>>,
    /// Watermark alignment groups.
    pub alignment: crate::align_groups::Groups,
    /// What the monitor knows (stalls, history), for the HTTP endpoints.
    pub live: Mutex<crate::live_state::LiveState>,
    /// A Kafka outage already logged (its distinct errors, the first
    /// first, and its start), so that the job's source subtasks log it
    /// once, and once that it is over.
    pub kafka_outage: Mutex<Option<(Vec<String>, lowwater_core::Timestamp)>>,
    /// The emission lag histograms of the sinks, by sink table name.
    pub lag_histograms: lowwater_observe::live::LagFamily,
    /// Checkpoints' statistics (the protocol travels by `post`).
    pub checkpoints: crate::checkpoint::Checkpoints,
    /// Every task's mailbox and the coordinator's inbox, once the tasks
    /// are built.
    pub post: crate::mailbox::PostSlot,
    /// Table names by index (for checkpoint files).
    pub table_names: Vec<String>,
    /// The transactional producer of exactly-once Kafka sinks.
    pub exactly_once: Option<crate::txn::ExactlyOnce>,
    /// Per pipeline, the batches its window subtasks have emptied, for its
    /// source subtasks to fill again.
    pub batch_pools: Vec<crate::envelope::BatchPool>,
    /// Per join (`crate::joins::joins`), what its subtasks publish.
    pub joins: Vec<crate::joins::JoinShared>,
    /// Window rows computed again after a restore from a checkpoint older
    /// than the committed one, and not written (the committed output holds
    /// them: `crate::restore`).
    pub recomputed: AtomicU64,
    /// Exactly-once, restored from a checkpoint older than the committed
    /// one: per INSERT, the watermark up to which the committed output
    /// holds its windows (`crate::restore`). Its window subtasks write none
    /// at or below it, and every commit marker says at least it (the
    /// output holds those windows whatever the restored operators fired).
    pub written_to: Option<Vec<Timestamp>>,
}

impl Shared {
    /// The state of a job about to start.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        plan: &JobPlan,
        source_tables: &[usize],
        clock: SystemClock,
        start: Timestamp,
        sinks: BTreeMap<usize, Mutex<SinkWriter>>,
        splits: Vec<SplitMeta>,
        lag_histograms: lowwater_observe::live::LagFamily,
        (restored, written_to): (
            Option<lowwater_core::checkpoint::CheckpointId>,
            Option<Vec<Timestamp>>,
        ),
        exactly_once: Option<crate::txn::ExactlyOnce>,
    ) -> Self {
        let p = plan.settings.parallelism;
        Shared {
            // The user's stop (Ctrl-C, SIGTERM, --duration) is `RunArgs::stop`:
            // the main loop takes a final checkpoint before it stops the threads.
            stop: Arc::new(AtomicBool::new(false)),
            error: Mutex::new(None),
            clock,
            start,
            sources: source_tables
                .iter()
                .map(|&t| SourceShared {
                    table: t,
                    records: AtomicU64::new(0),
                    filtered: AtomicU64::new(0),
                    reading: std::sync::atomic::AtomicUsize::new(0),
                    subtasks: (0..p).map(|_| Mutex::new(SubtaskView::default())).collect(),
                })
                .collect(),
            windows: plan
                .pipelines
                .iter()
                .map(|_| (0..p).map(|_| AtomicI64::new(MIN_WATERMARK)).collect())
                .collect(),
            marks: plan
                .pipelines
                .iter()
                .map(|_| {
                    (0..p)
                        .map(|_| (0..p).map(|_| AtomicU64::new(0)).collect())
                        .collect()
                })
                .collect(),
            late: plan
                .pipelines
                .iter()
                .map(|_| {
                    (0..p)
                        .map(|_| Mutex::new(LateCounters::default()))
                        .collect()
                })
                .collect(),
            open: plan
                .pipelines
                .iter()
                .map(|_| {
                    (0..p)
                        .map(|_| [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)])
                        .collect()
                })
                .collect(),
            alignment: crate::align_groups::Groups::new(plan),
            live: Mutex::new(crate::live_state::LiveState::new(plan.pipelines.len())),
            kafka_outage: Mutex::new(None),
            lag_histograms,
            sink_counters: sinks
                .iter()
                .filter_map(|(t, w)| Some((*t, w.lock().ok()?.counters.clone())))
                .collect(),
            sinks,
            splits: std::sync::RwLock::new(splits),
            checkpoints: crate::checkpoint::Checkpoints::new(
                plan.settings.checkpoints.interval.is_some(),
                restored,
            ),
            post: crate::mailbox::PostSlot::new(),
            table_names: plan.tables.iter().map(|t| t.name.clone()).collect(),
            exactly_once,
            batch_pools: plan.pipelines.iter().map(|_| Default::default()).collect(),
            joins: crate::joins::joins(plan)
                .iter()
                .map(|_| crate::joins::JoinShared::new(p))
                .collect(),
            recomputed: AtomicU64::new(0),
            written_to,
        }
    }

    /// Every split as it is now (partition discovery adds to them).
    pub fn splits_now(&self) -> Vec<SplitMeta> {
        self.splits.read().map(|s| s.clone()).unwrap_or_default()
    }

    /// The name of table `t`.
    pub fn table_name(&self, t: usize) -> String {
        self.table_names.get(t).cloned().unwrap_or_default()
    }

    /// Sink `t`'s writer, locked; `None` when the job has no such sink,
    /// or when a thread panicked while it held the writer: then the job
    /// fails naming the sink, rather than the rows to it being skipped.
    pub fn sink(&self, t: usize) -> Option<std::sync::MutexGuard<'_, SinkWriter>> {
        match self.sinks.get(&t)?.lock() {
            Ok(w) => Some(w),
            Err(_) => {
                self.fail(RunError::Io(format!(
                    "sink {}: a thread panicked while writing to it (a bug in lowwater); \
                     its rows from then on are not written, so the job stops",
                    self.table_name(t)
                )));
                None
            }
        }
    }

    /// Whether the job has failed.
    pub fn failed(&self) -> bool {
        self.error.lock().map_or(true, |e| e.is_some())
    }

    /// The job's post, once its tasks are built.
    pub fn post(&self) -> Option<&crate::mailbox::Post> {
        self.post.get()
    }

    /// Installs the post of the tasks built (before their threads start).
    pub fn install_post(&self, post: crate::mailbox::Post) {
        let _ = self.post.set(post);
        if self.failed() {
            self.tell_failed();
        }
    }

    /// The job stops: the sources are told (and `stop` says it to those
    /// who look: the API, partition discovery).
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(post) = self.post() {
            post.to_sources(crate::mailbox::Control::Stop);
        }
    }

    /// Records the first error and stops the job: every task and the
    /// coordinator are told.
    pub fn fail(&self, e: RunError) {
        let first = match self.error.lock() {
            Ok(mut slot) => slot.is_none() && slot.replace(e).is_none(),
            Err(_) => false,
        };
        self.stop.store(true, Ordering::SeqCst);
        if first {
            self.tell_failed();
        }
    }

    fn tell_failed(&self) {
        if let Some(post) = self.post() {
            post.to_all(crate::mailbox::Control::Failed);
            post.to_coordinator(crate::mailbox::Inbox::Failed);
        }
    }
}

/// The shared state of `plan` about to start, with its sinks and no
/// splits (unit tests of the runtime's pieces).
#[cfg(test)]
pub(crate) fn test_shared(plan: &JobPlan) -> Shared {
    use lowwater_core::clock::Clock;
    let lags = lowwater_observe::live::lag_family();
    let sinks = crate::sink::sink_writers(plan, &[], &lags, (None, None), 0).expect("sinks");
    let clock = SystemClock::new();
    let start = clock.now();
    Shared::new(
        plan,
        &plan.source_tables(),
        clock,
        start,
        sinks,
        Vec::new(),
        lags,
        (None, None),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink whose writer a panicking thread held fails the job by name
    /// instead of having its later rows skipped.
    #[test]
    fn a_poisoned_sink_fails_the_job_naming_it() {
        let plan = JobPlan::from_sql(
            "CREATE TABLE src (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
               WITH ('connector' = 'datagen', 'number-of-rows' = '10');
             CREATE TABLE out_counts (n BIGINT) WITH ('connector' = 'blackhole');
             INSERT INTO out_counts SELECT COUNT(*)
               FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
               GROUP BY window_start, window_end;",
        )
        .expect("plans");
        let shared = test_shared(&plan);
        let t = plan.table("out_counts").expect("sink table");
        assert!(shared.sink(t).is_some() && !shared.failed());
        std::thread::scope(|s| {
            let held = s.spawn(|| {
                let _w = shared.sinks[&t].lock();
                panic!("a bug while writing");
            });
            assert!(held.join().is_err());
        });
        assert!(shared.sink(t).is_none());
        assert!(shared.failed());
        let e = shared
            .error
            .lock()
            .expect("error slot")
            .take()
            .expect("an error");
        assert!(
            e.to_string().contains("sink out_counts: a thread panicked"),
            "{e}"
        );
    }
}
