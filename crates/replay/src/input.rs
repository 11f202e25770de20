//! Reading the replay's input dumps and ordering their records.
//!
//! Records of all inputs are replayed in `ts` order; ties keep file order
//! (inputs in command-line order, then line order), so the same inputs
//! always replay identically.

use std::path::{Path, PathBuf};

use lowwater_connectors::dump::{parse_line, DumpRecord};

use crate::error::ReplayError;

/// One record with where it came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The table it feeds.
    pub table: usize,
    /// Index of its file in the input list.
    pub file: usize,
    /// 1-based line.
    pub line: usize,
    /// The record.
    pub record: DumpRecord,
}

/// Reads every input (table index, path), parses each non-blank line, and
/// returns the records in replay order.
pub fn load(inputs: &[(usize, PathBuf)]) -> Result<Vec<Loaded>, ReplayError> {
    let mut all = Vec::new();
    for (file, (table, path)) in inputs.iter().enumerate() {
        read_one(*table, file, path, &mut all)?;
    }
    all.sort_by_key(|l| l.record.ts);
    Ok(all)
}

fn read_one(
    table: usize,
    file: usize,
    path: &Path,
    out: &mut Vec<Loaded>,
) -> Result<(), ReplayError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReplayError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record = parse_line(line).map_err(|e| ReplayError::Dump {
            path: path.to_path_buf(),
            line: i + 1,
            column: e.column,
            message: e.message,
        })?;
        out.push(Loaded {
            table,
            file,
            line: i + 1,
            record,
        });
    }
    Ok(())
}
