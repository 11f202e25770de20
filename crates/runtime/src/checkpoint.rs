//! Checkpoints of a live job: what the threads hand in, how the parts become
//! one file, and where the files live.
//!
//! The protocol is Flink's aligned checkpoint. The coordinator (on its own
//! thread) asks for checkpoint `n` with a message to every source subtask's
//! mailbox (`crate::mailbox`). Each source subtask, between two records, flushes its batches, hands in
//! its part (its splits' generators and idleness, the position of each split:
//! the next Kafka offset, file line or dump record) and sends barrier `n` on
//! every channel, after everything that came before. Each window subtask
//! aligns the barriers of its channels (the core's `BarrierAligner`), flushes
//! the sinks it wrote to (so that every row of the windows fired before the
//! barrier is durable), and hands in its valve and window operator. When
//! every part is in, the coordinator writes one file atomically; only then
//! are the Kafka offsets of that checkpoint committed to the consumer group.
//! A restart restores the newest complete file: positions, watermarks,
//! idleness, open windows and late counters, so nothing is read twice into a
//! window and nothing that fired fires again.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use lowwater_core::checkpoint::store::CheckpointStore;
use lowwater_core::checkpoint::{format, CheckpointError, CheckpointId, JobIdentity};
use lowwater_core::source::{SourceSubtask, SplitId};
use lowwater_core::watermark::valve::ChannelValve;
use lowwater_core::window::operator::WindowOperator;
use lowwater_core::Timestamp;
use serde::{Deserialize, Serialize};

use lowwater_core::join::interval_node::IntervalJoinState;
use lowwater_core::join::node::TemporalJoinState;
pub use lowwater_observe::live::CheckpointStats;

#[path = "checkpoint_compat.rs"]
mod compat;

/// A source subtask's part of a checkpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SourcePart {
    /// Generators, idleness and the combiner.
    pub sub: SourceSubtask,
    /// Per split: where reading continues (Kafka: the next offset; files:
    /// lines read; dumps: records read; `None`: datagen, or a Kafka partition
    /// with nothing read and no resolved start).
    pub positions: Vec<(SplitId, Option<i64>)>,
    /// Records read and filtered by this subtask (report totals).
    pub records: u64,
    pub filtered: u64,
    /// Skipped records and nulled fields per split.
    pub skipped: BTreeMap<SplitId, u64>,
    pub nulled: BTreeMap<SplitId, u64>,
    /// Per Kafka split whose records are tracked (no session window reads
    /// the table): the first offset a window still open at the checkpoint
    /// needs, from which `--rebuild-open-windows` reads again
    /// (`crate::rebuild`).
    pub rebuild_from: Vec<(SplitId, i64)>,
    /// Every record of those splits with an event time at or above it is
    /// at or after its split's `rebuild_from` (`None`: not tracked).
    pub covers: Option<Timestamp>,
}

impl SourcePart {
    /// A part of `sub` that has read nothing yet, its records after
    /// `covers` tracked.
    pub fn fresh(sub: SourceSubtask, covers: Option<Timestamp>) -> Self {
        SourcePart {
            sub,
            positions: Vec::new(),
            records: 0,
            filtered: 0,
            skipped: BTreeMap::new(),
            nulled: BTreeMap::new(),
            rebuild_from: Vec::new(),
            covers,
        }
    }
}

/// A window subtask's part of a checkpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct WindowPart {
    pub valve: ChannelValve,
    pub op: WindowOperator,
    /// Cascading windows: the aggregations chained after the first, in
    /// order (empty for any other INSERT).
    pub chain: Vec<WindowOperator>,
}

/// A join subtask's part of a checkpoint: its node's state and counters.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct JoinPart {
    pub state: JoinState,
    pub late: BTreeMap<SplitId, u64>,
    pub filtered: u64,
    pub unmatched: u64,
}

/// A join node's state.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum JoinState {
    Temporal(TemporalJoinState),
    Interval(IntervalJoinState),
}

/// Per INSERT, the watermark up to which its output windows fired in
/// these window parts (of its last aggregation, with cascading windows):
/// the lowest over its subtasks (with aligned barriers they are equal).
pub(crate) fn fired_to(windows: &[Vec<WindowPart>]) -> Vec<Timestamp> {
    windows
        .iter()
        .map(|parts| {
            parts
                .iter()
                .map(|w| w.chain.last().unwrap_or(&w.op).watermark())
                .min()
                .unwrap_or(lowwater_core::MIN_WATERMARK)
        })
        .collect()
}

/// A split as a checkpoint names it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct SplitKey {
    pub table: String,
    pub topic: String,
    pub partition: i32,
}

/// Everything a restart needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct JobSnapshot {
    pub identity: JobIdentity,
    /// Processing time when the checkpoint was triggered.
    pub taken_at: Timestamp,
    /// Split ids, in id order.
    pub splits: Vec<SplitKey>,
    /// Per source table (in the job's order), per subtask.
    pub sources: Vec<Vec<SourcePart>>,
    /// Per INSERT, per window subtask.
    pub windows: Vec<Vec<WindowPart>>,
    /// Per join (temporal joins, then interval joins), per join subtask.
    pub joins: Vec<Vec<JoinPart>>,
}

impl JobSnapshot {
    /// Decodes a checkpoint file of this build's layout (format 4) or of
    /// an older one (3, 2, 1: `checkpoint_compat.rs`): its id and snapshot.
    pub fn decode(bytes: &[u8]) -> Result<(CheckpointId, JobSnapshot), CheckpointError> {
        let (id, version, payload) = format::open(bytes)?;
        let snapshot = match version {
            1 => format::decode_payload::<compat::v1::JobSnapshot>(payload)?.into(),
            2 => format::decode_payload::<compat::v2::JobSnapshot>(payload)?.into(),
            3 => format::decode_payload::<compat::v3::JobSnapshot>(payload)?.into(),
            _ => format::decode(bytes)?.1,
        };
        Ok((id, snapshot))
    }

    /// Open (window, key) states over all window subtasks.
    pub fn open_windows(&self) -> usize {
        self.windows
            .iter()
            .flatten()
            .map(|w| w.op.pending() + w.chain.iter().map(WindowOperator::pending).sum::<usize>())
            .sum()
    }

    /// Every saved position (the next offset, line or record), by split.
    pub fn positions(&self) -> BTreeMap<&SplitKey, i64> {
        let by_id: BTreeMap<SplitId, i64> = self
            .sources
            .iter()
            .flatten()
            .flat_map(|p| &p.positions)
            .filter_map(|(id, pos)| Some((*id, (*pos)?)))
            .collect();
        self.splits
            .iter()
            .enumerate()
            .filter_map(|(id, key)| Some((key, *by_id.get(&(id as SplitId))?)))
            .collect()
    }
}

/// What the job's threads share about checkpoints: its statistics, read
/// by `/metrics`, the API and the end report. The protocol itself travels
/// as messages (`crate::mailbox`) and is collected by the coordinator
/// (`crate::collect`).
pub(crate) struct Checkpoints {
    pub stats: Mutex<CheckpointStats>,
}

impl Checkpoints {
    pub fn new(enabled: bool, restored: Option<CheckpointId>) -> Self {
        Checkpoints {
            stats: Mutex::new(CheckpointStats {
                enabled,
                restored_id: restored,
                ..CheckpointStats::default()
            }),
        }
    }

    /// Whether the job takes checkpoints.
    pub fn enabled(&self) -> bool {
        self.stats.lock().is_ok_and(|s| s.enabled)
    }
}

/// Checkpoint files in a directory: `chk-<id>.lwck`, each written to a
/// temporary name, synced and renamed, so that a crash leaves either the
/// whole file or none (a leftover `.tmp` is ignored and cleaned).
pub(crate) struct FileStore {
    dir: PathBuf,
}

impl FileStore {
    /// The store in `dir`, created if missing.
    pub fn open(dir: &Path) -> Result<Self, String> {
        std::fs::create_dir_all(dir).map_err(|e| {
            format!(
                "cannot create the checkpoint directory {}: {e}",
                dir.display()
            )
        })?;
        Ok(FileStore {
            dir: dir.to_path_buf(),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of checkpoint `id`.
    pub fn path(&self, id: CheckpointId) -> PathBuf {
        self.dir.join(format!("chk-{id:08}.lwck"))
    }
}

fn parse_name(name: &str) -> Option<CheckpointId> {
    name.strip_prefix("chk-")?
        .strip_suffix(".lwck")?
        .parse()
        .ok()
}

impl CheckpointStore for FileStore {
    fn list(&self) -> Result<Vec<CheckpointId>, String> {
        let entries = std::fs::read_dir(&self.dir)
            .map_err(|e| format!("cannot list {}: {e}", self.dir.display()))?;
        Ok(entries
            .filter_map(|e| e.ok())
            .filter_map(|e| parse_name(&e.file_name().to_string_lossy()))
            .collect())
    }

    fn read(&self, id: CheckpointId) -> Result<Vec<u8>, String> {
        let path = self.path(id);
        std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    }

    fn write(&mut self, id: CheckpointId, bytes: &[u8]) -> Result<(), String> {
        let path = self.path(id);
        let tmp = path.with_extension("lwck.tmp");
        let io = |e: std::io::Error| format!("cannot write {}: {e}", tmp.display());
        let mut f = std::fs::File::create(&tmp).map_err(io)?;
        f.write_all(bytes).map_err(io)?;
        f.sync_all().map_err(io)?;
        drop(f);
        std::fs::rename(&tmp, &path)
            .map_err(|e| format!("cannot rename {} to {}: {e}", tmp.display(), path.display()))?;
        // The rename itself must survive a power loss.
        if let Ok(d) = std::fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    fn remove(&mut self, id: CheckpointId) -> Result<(), String> {
        let path = self.path(id);
        std::fs::remove_file(&path).map_err(|e| format!("cannot remove {}: {e}", path.display()))
    }
}

/// A point in the commit protocol where a test can make the process die
/// (`LOWWATER_FAILPOINT=<point>:<checkpoint id>`, read once at start, used
/// only by lowwater's own crash tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failpoint {
    point: String,
    id: CheckpointId,
}

impl Failpoint {
    pub fn from_env() -> Option<Self> {
        let v = std::env::var("LOWWATER_FAILPOINT").ok()?;
        let (point, id) = v.split_once(':')?;
        Some(Failpoint {
            point: point.to_string(),
            id: id.parse().ok()?,
        })
    }

    /// Dies at once (as kill -9 would: no flush, no cleanup) if this is
    /// the place.
    pub fn hit(this: &Option<Self>, point: &str, id: CheckpointId) {
        if this
            .as_ref()
            .is_some_and(|f| f.point == point && f.id == id)
        {
            eprintln!("failpoint {point}:{id}: aborting");
            std::process::abort();
        }
    }
}
