//! A running job's control from outside: `POST /api/v1/stop` on its
//! `--http` address (from loopback only), which `lowwater stop` sends.
//!
//! A stop is Flink's stop with a savepoint: the job takes its final
//! checkpoint while every subtask still runs (as Ctrl-C and SIGTERM do),
//! and, when asked for a savepoint, copies that checkpoint into the chosen
//! directory, where `run --from-checkpoint DIR` finds it; checkpoint
//! retention never touches it. The request travels as a message to the
//! job's supervising loop, which answers once the checkpoint is written
//! (or says why it was not).

use std::path::{Path, PathBuf};

use lowwater_core::checkpoint::store::CheckpointStore;
use lowwater_core::checkpoint::CheckpointId;

use crate::checkpoint::FileStore;

pub use lowwater_observe::http::{StopReply, StopRequest};

/// Copies checkpoint `id` of `store` into `dir` (created if needed,
/// written atomically): the savepoint's path.
pub(crate) fn save(store: &FileStore, id: CheckpointId, dir: &Path) -> Result<PathBuf, String> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(dir, store.dir()) {
        return Err(format!(
            "{} is the job's own checkpoint directory, whose old files are removed as new ones \
             are taken: choose another",
            dir.display()
        ));
    }
    let bytes = store.read(id)?;
    let mut into = FileStore::open(dir)?;
    into.write(id, &bytes)?;
    Ok(into.path(id))
}

/// The answer to a stop: the final checkpoint `id` if it was written, and
/// the savepoint made of it in `dir` by `save_to` if one was asked for.
pub(crate) fn saved(
    id: Option<CheckpointId>,
    dir: Option<&Path>,
    save_to: impl FnOnce(CheckpointId, &Path) -> Result<PathBuf, String>,
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
    let path = save_to(id, dir).map_err(|e| {
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
