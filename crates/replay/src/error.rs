//! Replay errors: each names the file and line (and for a record its topic,
//! partition and offset), says what is wrong and what to do.

use std::path::PathBuf;

/// Why a replay stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A dump line is not a kcat -J record.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Dump {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A record does not fit the table.
    #[error("{0}")]
    Record(Box<RecordFailure>),
    /// The command line does not fit the job.
    #[error("{0}")]
    Usage(String),
}

/// Where and why a record could not be used.
#[derive(Debug)]
pub struct RecordFailure {
    /// The file.
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// The table.
    pub table: String,
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Offset (`?` when the dump has none).
    pub offset: String,
    /// What is wrong.
    pub message: String,
    /// The option that would skip such a record (`json.ignore-parse-errors`,
    /// `csv.ignore-parse-errors`), if any.
    pub hint: Option<&'static str>,
}

impl std::fmt::Display for RecordFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: topic {} partition {} offset {}: {}",
            self.path.display(),
            self.line,
            self.topic,
            self.partition,
            self.offset,
            self.message
        )?;
        if let Some(o) = self.hint {
            write!(
                f,
                " (fix the record, or set '{o}' = 'true' on table {} to skip and count such \
                 records)",
                self.table
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for RecordFailure {}

impl From<lowwater_connectors::input::InputError> for ReplayError {
    fn from(e: lowwater_connectors::input::InputError) -> Self {
        use lowwater_connectors::input::InputError;
        match e {
            InputError::Io { path, source } => ReplayError::Io { path, source },
            InputError::Dump {
                path,
                line,
                column,
                message,
            } => ReplayError::Dump {
                path,
                line,
                column,
                message,
            },
        }
    }
}
