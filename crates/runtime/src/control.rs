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

/// What the stop ended with, in words (`Ok`: stopped as asked).
pub type StopReply = Result<String, String>;

/// A request to stop the job, with where to put its savepoint.
#[derive(Debug)]
pub struct StopRequest {
    /// The savepoint's directory (`None`: stop with the final checkpoint
    /// in the job's own directory, as SIGTERM does).
    pub savepoint: Option<PathBuf>,
    /// Where the answer goes.
    pub reply: tokio::sync::oneshot::Sender<StopReply>,
}

impl StopRequest {
    /// Answers the request (a requester that gave up is not an error).
    pub(crate) fn answer(self, reply: StopReply) {
        let _ = self.reply.send(reply);
    }
}

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
