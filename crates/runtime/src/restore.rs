//! Restoring a live job from a checkpoint: which checkpoint, whether it fits
//! the job, and the order of splits it implies.
//!
//! Flink's rules: a job with checkpoints restarts from its newest complete
//! checkpoint, and then the read positions come from the checkpoint, not from
//! `scan.startup.mode`; partitions new since then are read from their
//! earliest offset. A job whose state does not fit (other windows, keys,
//! aggregates, watermark or parallelism) refuses to restore and says what
//! changed, unless the user asks to start without state.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lowwater_core::checkpoint::store::{latest_with, CheckpointStore, Restored};
use lowwater_core::checkpoint::CheckpointId;
use lowwater_core::Timestamp;
use lowwater_sql::plan::JobPlan;

use crate::checkpoint::{FileStore, JobSnapshot, SplitKey};
use crate::error::{RunArgs, RunError};

/// What a job starts from: its checkpoint store, the transactional
/// producer of its exactly-once sinks, and the checkpoint it restores.
pub(crate) struct JobState {
    pub store: Option<FileStore>,
    pub exactly_once: Option<crate::txn::ExactlyOnce>,
    pub restored: Option<Restored<JobSnapshot>>,
    /// Exactly-once, restored from a checkpoint older than the committed
    /// one (which cannot be read): per INSERT, the watermark up to which
    /// the committed output holds its windows; those are computed again
    /// and not written.
    pub written_to: Option<Vec<Timestamp>>,
    /// `--rebuild-open-windows` on a checkpoint that does not fit: per
    /// source table, what the old job wrote (`crate::rebuild`); the
    /// restored snapshot then starts the sources at the rebuild offsets.
    pub rebuilt: Option<BTreeMap<usize, crate::written::Written>>,
}

/// Opens the store, the transactional producer (first: it fences an older
/// instance and settles its open transaction, so the marker read next is
/// final) and loads the checkpoint to restore.
pub(crate) fn open_state(
    plan: &JobPlan,
    args: &RunArgs,
    now: Timestamp,
) -> Result<JobState, RunError> {
    let store = match &plan.settings.checkpoints.dir {
        Some(dir) => Some(
            FileStore::open(&PathBuf::from(dir).join(&args.job_name)).map_err(RunError::Usage)?,
        ),
        None => None,
    };
    let exactly_once = crate::txn::ExactlyOnce::open(plan, &args.job_name)?;
    // --reset-state with exactly-once output: its open windows are rebuilt
    // from the checkpoint whose output was committed (a newer one's windows
    // were never committed), named here before the marker is reset.
    let mut reset_from = None;
    let committed = match &exactly_once {
        // --reset-state: a marker of no checkpoint first, so that a crash
        // before the next commit cannot bring the old state back.
        Some(eo) if args.reset_state => {
            reset_from = Some(eo.committed()?.map(|m| m.id).filter(|id| *id > 0));
            eo.commit(0, 0, None).map_err(RunError::Io)?;
            Some(None)
        }
        Some(eo) => Some(eo.committed()?),
        None => None,
    };
    let (restored, written_to, rebuilt) =
        load(plan, store.as_ref(), (args, reset_from), now, committed)?;
    Ok(JobState {
        store,
        exactly_once,
        restored,
        written_to,
        rebuilt,
    })
}

/// The checkpoint restored, (exactly-once, an older one than the
/// committed) what the committed output holds (`JobState::written_to`),
/// and (`--rebuild-open-windows`) what the old job wrote per source table
/// (`JobState::rebuilt`).
type Loaded = (
    Option<Restored<JobSnapshot>>,
    Option<Vec<Timestamp>>,
    Option<BTreeMap<usize, crate::written::Written>>,
);

/// The checkpoint to restore, if any, checked against the job.
fn load(
    plan: &JobPlan,
    store: Option<&FileStore>,
    (args, reset_from): (&RunArgs, Option<Option<CheckpointId>>),
    now: Timestamp,
    marker: Option<Option<crate::txn::Marker>>,
) -> Result<Loaded, RunError> {
    let committed = marker.as_ref().map(|m| m.as_ref().map(|m| m.id));
    let marker = marker.flatten();
    let crc = marker.as_ref().and_then(|m| m.crc);
    // What the committed output holds, per INSERT, if the marker says.
    let fired = marker.and_then(|m| m.fired).filter(|f| {
        f.len() == plan.pipelines.len() && plan.joins.is_empty() && plan.intervals.is_empty()
    });
    let (from, reset) = (args.from_checkpoint.as_deref(), args.reset_state);
    let mut written_to = None;
    let has_own = match store {
        Some(st) => !st.list().map_err(RunError::Io)?.is_empty(),
        None => false,
    };
    // execution.state-recovery.path seeds a job's first start (Flink's
    // rule); once the job has checkpoints of its own, a restart uses them.
    let from = from.map(Path::to_path_buf).or_else(|| {
        let seed = plan.settings.checkpoints.recovery_path.as_ref();
        seed.filter(|_| !has_own).map(PathBuf::from)
    });
    if let (Some(st), false) = (store, has_own) {
        note_other_jobs(st);
    }
    let restored = match (from, store) {
        (Some(path), _) => Some(from_path(&path)?),
        (None, Some(st)) if reset => match reset_rebuild(plan, st, now, reset_from) {
            // Rebuilt: no window state, the sources at the rebuild offsets.
            Some((r, written)) => return Ok((Some(r), written_to, Some(written))),
            None => None,
        },
        (None, _) if reset => None,
        // Exactly-once: only a checkpoint whose output was committed.
        (None, Some(_)) if committed == Some(None) => {
            if has_own {
                tracing::warn!(
                    "checkpoints are on disk, but none committed its output to Kafka: the job \
                     starts without state"
                );
            }
            None
        }
        (None, Some(st)) => {
            let upto = committed.flatten();
            let r = latest_with(st, upto, JobSnapshot::decode).map_err(RunError::Io)?;
            check_usable(st, upto, r.as_ref(), committed.is_some(), fired.is_some())?;
            match (&r, crc, upto) {
                (Some(r), Some(want), Some(u)) if r.id == u => {
                    check_committed_file(st, r.id, want)?
                }
                // An older checkpoint than the committed one (which cannot
                // be read): its output after it is committed already.
                (Some(r), _, Some(u)) if r.id < u => {
                    written_to = fired.clone();
                    warn_older(plan, r.id, u, fired.as_deref().unwrap_or_default());
                }
                _ => {}
            }
            r
        }
        (None, None) => None,
    };
    let Some(mut r) = restored else {
        return Ok((None, None, None));
    };
    for (id, why) in &r.skipped {
        tracing::warn!("checkpoint {id} cannot be used ({why}); an older one is restored");
    }
    let changes = crate::evolve::compare(&crate::identity::identity(plan), &r.snapshot.identity);
    if !changes.refused.is_empty() && args.rebuild_open_windows {
        let written = rebuild(plan, &mut r, &changes.refused)?;
        // The committed watermarks are the old INSERTs': a rebuild's own
        // floor (the checkpoint's watermark) decides what it writes.
        return Ok((Some(r), None, Some(written)));
    }
    if !changes.refused.is_empty() {
        return Err(RunError::Usage(format!(
            "checkpoint {} does not fit this job, which changed since it was taken:\n  - {}\n\
             Restore it with the job it was taken of; or rebuild its {} open windows with the \
             changed job with --rebuild-open-windows (their records are read again from the \
             checkpoint's offsets, and no window written before is written again); or start \
             without state with --reset-state (reading then starts where scan.startup.mode \
             says, and the open windows are not restored)",
            r.id,
            changes.refused.join("\n  - "),
            r.snapshot.open_windows()
        )));
    }
    for change in &changes.free {
        tracing::info!(
            "checkpoint {}: {change} (holds no state: restored across)",
            r.id
        );
    }
    if let Some((was, now)) = &changes.rescale {
        let open = r.snapshot.open_windows();
        crate::rescale::rescale(&mut r.snapshot, plan)
            .map_err(|e| RunError::Usage(format!("checkpoint {}: {e}", r.id)))?;
        tracing::info!(
            "checkpoint {}: parallelism.default was {was}, now {now}: its {open} open windows \
             go to the subtasks their keys are sent to now, and its {} partitions to the \
             subtasks Kafka's assignment gives them, each with its watermark and offset",
            r.id,
            r.snapshot.splits.len()
        );
    }
    tracing::info!(
        "restoring checkpoint {} (taken {} ago, {} bytes): {} open windows; sources continue at \
         the checkpoint's positions, not scan.startup.mode",
        r.id,
        lowwater_core::time::display_duration(now.saturating_sub(r.snapshot.taken_at)),
        r.bytes,
        r.snapshot.open_windows()
    );
    Ok((Some(r), written_to, None))
}

/// `--rebuild-open-windows`: turns the restored checkpoint `r`, which does
/// not fit the changed job (`refused`, in words), into the start of a
/// rebuild (`crate::rebuild`); what the old job wrote, per source table.
fn rebuild(
    plan: &JobPlan,
    r: &mut Restored<JobSnapshot>,
    refused: &[String],
) -> Result<BTreeMap<usize, crate::written::Written>, RunError> {
    if let Some(change) = refused.iter().find(|c| c.starts_with("source ")) {
        return Err(RunError::Usage(format!(
            "checkpoint {}: --rebuild-open-windows reads the same partitions again, but a source \
             changed: {change}",
            r.id
        )));
    }
    let open = r.snapshot.open_windows();
    let rb = crate::rebuild::rebuild(plan, &r.snapshot, r.id).map_err(RunError::Usage)?;
    crate::rebuild::check_retention(plan, &rb.snapshot).map_err(RunError::Usage)?;
    let floors: Vec<String> = rb
        .written
        .iter()
        .map(|(t, w)| {
            format!(
                "table {}: windows ending at or below {} were written by the old job",
                plan.tables[*t].name,
                lowwater_core::time::format_timestamp(w.floor, ' ')
            )
        })
        .collect();
    tracing::info!(
        "checkpoint {} does not fit the changed job ({}); --rebuild-open-windows: its {open} open \
         windows are rebuilt with the changed job, each partition read again from the first \
         record they need: {} records ({} per open window; {}); those windows are not written \
         again",
        r.id,
        refused.join("; "),
        rb.reread,
        rb.reread.checked_div(open as i64).unwrap_or(0),
        floors.join("; ")
    );
    r.snapshot = rb.snapshot;
    Ok(rb.written)
}

/// Exactly-once, the committed checkpoint `committed` unreadable: says
/// that the older `restored` is, and which windows its restart computes
/// again without writing them (`fired`, per INSERT).
fn warn_older(
    plan: &JobPlan,
    restored: CheckpointId,
    committed: CheckpointId,
    fired: &[Timestamp],
) {
    let upto: Vec<String> = plan
        .pipelines
        .iter()
        .zip(fired)
        .map(|(pl, wm)| {
            format!(
                "INSERT INTO {} up to {}",
                plan.tables[pl.sink].name,
                lowwater_core::time::format_timestamp(*wm, ' ')
            )
        })
        .collect();
    tracing::warn!(
        "checkpoint {committed}, whose output was committed to Kafka, cannot be read: checkpoint \
         {restored} is restored instead and its records read again; the windows the committed \
         output holds ({}) are computed again and not written, so the output stays exactly once \
         (rows of a late-data sink from those records may be written again)",
        upto.join(", ")
    );
}

/// `--reset-state` with checkpoints on disk: the job starts without their
/// state, but the windows open at the newest are rebuilt from their
/// records when they can be (`crate::rebuild`), so that none is lost or
/// written twice; else it says what is not restored.
/// With exactly-once output (`committed`: `Some`), only the checkpoint
/// whose output was committed is rebuilt from.
fn reset_rebuild(
    plan: &JobPlan,
    store: &FileStore,
    now: Timestamp,
    committed: Option<Option<CheckpointId>>,
) -> Option<(
    Restored<JobSnapshot>,
    BTreeMap<usize, crate::written::Written>,
)> {
    let upto = match committed {
        // Exactly-once without a committed checkpoint: nothing was written.
        Some(None) => return None,
        Some(Some(id)) => Some(id),
        None => None,
    };
    let mut r = match latest_with(store, upto, JobSnapshot::decode) {
        Ok(Some(r)) if upto.is_none_or(|u| r.id == u) => r,
        Ok(Some(r)) => {
            tracing::warn!(
                "--reset-state: checkpoint {}, whose output was committed, cannot be read: the \
                 windows open at it are not rebuilt (checkpoint {} is older), and the sources \
                 start where scan.startup.mode says",
                upto.unwrap_or(0),
                r.id
            );
            return None;
        }
        Ok(None) => return None,
        Err(e) => {
            tracing::warn!(
                "--reset-state: the checkpoints in {} ({e}) are not restored",
                store.dir().display()
            );
            return None;
        }
    };
    let ago = lowwater_core::time::display_duration(now.saturating_sub(r.snapshot.taken_at));
    let open = r.snapshot.open_windows();
    let changes = crate::evolve::compare(&crate::identity::identity(plan), &r.snapshot.identity);
    let source = changes.refused.iter().find(|c| c.starts_with("source "));
    let rebuilt = match source {
        Some(change) => Err(format!("a source changed: {change}")),
        None => crate::rebuild::rebuild(plan, &r.snapshot, r.id),
    }
    .and_then(|rb| {
        crate::rebuild::check_retention(plan, &rb.snapshot)?;
        Ok(rb)
    });
    match rebuilt {
        Ok(rb) => {
            tracing::info!(
                "--reset-state: checkpoint {} (taken {ago} ago) is not restored, but its {open} \
                 open windows are rebuilt: each partition is read again from the first record \
                 they need ({} records), and no window written before is written again (to start \
                 where scan.startup.mode says instead, move {} away)",
                r.id,
                rb.reread,
                store.dir().display()
            );
            r.snapshot = rb.snapshot;
            Some((r, rb.written))
        }
        Err(why) => {
            tracing::warn!(
                "--reset-state: checkpoint {} (taken {ago} ago) is not restored: its {open} open \
                 windows are dropped, and the sources start where scan.startup.mode says, not at \
                 its positions (records before them that those windows held are not read \
                 again; they cannot be rebuilt: {})",
                r.id,
                why.trim_start_matches("--rebuild-open-windows: ")
            );
            None
        }
    }
}

/// A job without checkpoints of its own: if other jobs keep checkpoints
/// beside its directory, it may have been renamed (`pipeline.name`, or the
/// job file's name when that is not set), and it starts without its state.
fn note_other_jobs(store: &FileStore) {
    let Some(parent) = store.dir().parent() else {
        return;
    };
    let own = store.dir().file_name();
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let others: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir() && Some(e.file_name().as_os_str()) != own)
        .filter(|e| {
            std::fs::read_dir(e.path()).is_ok_and(|mut d| {
                d.any(|f| f.is_ok_and(|f| f.file_name().to_string_lossy().ends_with(".lwck")))
            })
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if !others.is_empty() {
        tracing::warn!(
            "no checkpoint of this job in {}, but {} beside it hold checkpoints of other jobs \
             ({}): if this job was renamed (pipeline.name, or the job file's name when \
             pipeline.name is not set), SET 'pipeline.name' to its old name to continue from \
             its state; this run starts without state",
            store.dir().display(),
            parent.display(),
            others.join(", ")
        );
    }
}

/// Refuses to go on when the job has checkpoints but the one it must
/// restore cannot be read: starting without state would read from
/// `scan.startup.mode` and lose or repeat data silently; with exactly-once
/// sinks an older checkpoint would commit again the output committed after
/// it.
fn check_usable(
    store: &FileStore,
    upto: Option<CheckpointId>,
    restored: Option<&Restored<JobSnapshot>>,
    exactly_once: bool,
    fired: bool,
) -> Result<(), RunError> {
    let ids: Vec<CheckpointId> = store
        .list()
        .map_err(RunError::Io)?
        .into_iter()
        .filter(|id| upto.is_none_or(|u| *id <= u))
        .collect();
    let fine = match (restored, ids.iter().copied().max()) {
        // Exactly-once: the marker names a checkpoint this store lacks
        // (another disk, a wiped directory): its output is committed.
        (None, None) => !(exactly_once && upto.is_some_and(|u| u > 0)),
        (Some(_), None) => true,
        (None, Some(_)) => false,
        // Exactly-once, an older checkpoint: fine when the marker says
        // what the committed output holds (its windows are not written
        // again).
        (Some(r), Some(_)) => !exactly_once || fired || upto.is_none_or(|u| r.id == u),
    };
    if fine {
        return Ok(());
    }
    let mut why = Vec::new();
    for id in ids.iter().rev() {
        let reason = match store.read(*id) {
            Ok(bytes) => match lowwater_core::checkpoint::format::verify(&bytes) {
                Ok(_) if restored.is_some_and(|r| r.id == *id) => continue,
                Ok(_) if restored.is_some() => format!(
                    "intact, but older than checkpoint {}, whose output was committed (the \
                     marker does not say which windows that output holds: a job with a join, or \
                     written by an older lowwater)",
                    upto.unwrap_or(0)
                ),
                Ok(_) => "it decodes to no snapshot of this lowwater".to_string(),
                Err(e) => e.to_string(),
            },
            Err(e) => e,
        };
        why.push(format!("checkpoint {id}: {reason}"));
    }
    if why.is_empty() {
        why.push(format!(
            "no checkpoint file at or below {} is in the directory, though its output was committed",
            upto.unwrap_or(0)
        ));
    }
    let what = if exactly_once {
        "the checkpoint whose output was committed to Kafka cannot be read, and an older one \
         would write that output again"
    } else {
        "no checkpoint of this job can be read, and starting without state would lose or repeat data"
    };
    Err(RunError::Usage(format!(
        "{what} ({}):\n  - {}\nRestore a copy with --from-checkpoint PATH, or start without state \
         with --reset-state",
        store.dir().display(),
        why.join("\n  - ")
    )))
}

/// Exactly-once: the restored file must be the one whose output was
/// committed (its CRC is the marker's), not one an older instance of the
/// job, fenced too late, wrote over it.
fn check_committed_file(store: &FileStore, id: CheckpointId, want: u32) -> Result<(), RunError> {
    let got = store
        .read(id)
        .ok()
        .and_then(|b| lowwater_core::checkpoint::format::file_crc(&b));
    if got == Some(want) {
        return Ok(());
    }
    Err(RunError::Usage(format!(
        "checkpoint {id} in {} is not the file whose output was committed to Kafka (its checksum \
         differs from the commit marker's): another instance of this job may have written over \
         it. Restore a copy with --from-checkpoint PATH, or start without state with --reset-state",
        store.dir().display()
    )))
}

/// A checkpoint named by the user: a file, or the newest in a directory.
fn from_path(path: &Path) -> Result<Restored<JobSnapshot>, RunError> {
    if path.is_dir() {
        let store = FileStore::open(path).map_err(RunError::Io)?;
        return latest_with(&store, None, JobSnapshot::decode)
            .map_err(RunError::Io)?
            .ok_or_else(|| {
                RunError::Usage(format!(
                    "--from-checkpoint {}: no checkpoint in that directory",
                    path.display()
                ))
            });
    }
    let bytes = std::fs::read(path)
        .map_err(|e| RunError::Usage(format!("--from-checkpoint {}: {e}", path.display())))?;
    let (id, snapshot) = JobSnapshot::decode(&bytes).map_err(|e| {
        RunError::Usage(format!(
            "--from-checkpoint {}: {e}; pick another checkpoint file",
            path.display()
        ))
    })?;
    Ok(Restored {
        id,
        snapshot,
        bytes: bytes.len(),
        skipped: Vec::new(),
    })
}

/// The order of a job's splits: those of the checkpoint keep their ids,
/// new ones follow. A partition of the checkpoint that is gone is an error.
pub(crate) fn split_order(
    snapshot: &JobSnapshot,
    current: &[SplitKey],
) -> Result<Vec<usize>, RunError> {
    let now: std::collections::BTreeSet<&SplitKey> = current.iter().collect();
    for s in &snapshot.splits {
        if !now.contains(s) {
            return Err(RunError::Usage(format!(
                "partition {} of topic {} (table {}) is in the checkpoint but not in the job any \
                 more; a Kafka topic cannot lose partitions, so it was probably recreated: start \
                 without state with --reset-state",
                s.partition, s.topic, s.table
            )));
        }
    }
    let ids: std::collections::BTreeMap<&SplitKey, usize> = snapshot
        .splits
        .iter()
        .enumerate()
        .map(|(id, s)| (s, id))
        .collect();
    let mut order: Vec<usize> = (0..current.len()).collect();
    order.sort_by_key(|&i| {
        ids.get(&current[i])
            .copied()
            .unwrap_or(snapshot.splits.len() + i)
    });
    Ok(order)
}
