//! What a job is run with, what stops it, and what it produced: the
//! runtime's public types, below every task (each names `RunError`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use lowwater_core::Millis;
use lowwater_report::Report;

/// How to run a job.
#[derive(Debug, Clone)]
pub struct RunArgs {
    /// `TABLE=DUMP`: read a source table from a topic dump (kcat -J lines)
    /// instead of its connector, as fast as possible.
    pub inputs: Vec<(String, PathBuf)>,
    /// `TABLE=FILE`: write a sink table's rows to a dump file instead of its connector.
    pub outputs: Vec<(String, PathBuf)>,
    /// Stop (gracefully) after this long.
    pub duration: Option<Duration>,
    /// Report stalls longer than this; default 3 x max(window, emit interval).
    pub stall_threshold: Option<Millis>,
    /// Set to stop the job gracefully (Ctrl-C, SIGTERM).
    pub stop: Arc<AtomicBool>,
    /// Records per batch between threads.
    pub batch: usize,
    /// Capacity of each channel, in batches.
    pub channel_capacity: usize,
    /// `--http ADDR`: serve `/metrics`, `/api/v1/watermarks` and the web
    /// page on this address while the job runs (port 0: any free port; the
    /// address is logged).
    pub http: Option<String>,
    /// The job's name: its checkpoints live in `<checkpoint dir>/<name>`.
    pub job_name: String,
    /// `--from-checkpoint PATH`: restore this checkpoint file (or the
    /// newest in this directory) instead of the job's own newest.
    pub from_checkpoint: Option<PathBuf>,
    /// `--reset-state`: start without the job's checkpoints (they stay on
    /// disk until newer ones retire them).
    pub reset_state: bool,
    /// `--rebuild-open-windows`: a checkpoint whose window state does not
    /// fit the changed job is not refused; its open windows are rebuilt by
    /// reading their records again (`crate::rebuild`).
    pub rebuild_open_windows: bool,
}

impl Default for RunArgs {
    fn default() -> Self {
        RunArgs {
            inputs: Vec::new(),
            outputs: Vec::new(),
            duration: None,
            stall_threshold: None,
            stop: Arc::new(AtomicBool::new(false)),
            batch: 8192,
            channel_capacity: 8,
            http: None,
            job_name: "job".to_string(),
            from_checkpoint: None,
            reset_state: false,
            rebuild_open_windows: false,
        }
    }
}

/// Why a job could not run or stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The job or the command line asks for something this runtime cannot do.
    #[error("{0}")]
    Usage(String),
    /// A record that cannot be processed, with its place.
    #[error("{0}")]
    Record(String),
    /// A file could not be read or written.
    #[error("{0}")]
    Io(String),
}

/// What a finished run produced.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The report (the replay report's shape, from live values).
    pub report: Report,
    /// Whether the job ended because its bounded inputs ended (else stopped).
    pub completed: bool,
    /// Per INSERT (by sink table name), the most (window, key) states its
    /// window subtasks held at once (each subtask's most, summed), as
    /// counted every second or few thousand records.
    pub peak_open_windows: BTreeMap<String, u64>,
}
