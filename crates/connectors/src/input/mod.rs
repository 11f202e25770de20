//! Reading topic dumps as inputs (of `lowwater replay`, and of `lowwater run
//! --input`) and ordering their records.
//!
//! Records of all inputs are replayed in `ts` order; ties keep file order
//! (inputs in command-line order, then line order), so the same inputs
//! always replay identically. Topics are interned: a record keeps a small
//! topic number, not a copy of the name.

use std::path::{Path, PathBuf};

use crate::dump::parse_raw;

/// Why an input dump could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The reason.
        source: std::io::Error,
    },
    /// A line is not a dump record.
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
}

/// One record with where it came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The table it feeds.
    pub table: usize,
    /// Index of its file in the input list.
    pub file: usize,
    /// 1-based line.
    pub line: usize,
    /// Arrival time (the record's `ts`).
    pub ts: i64,
    /// Topic number in [`Inputs::topics`].
    pub topic: u32,
    /// Partition.
    pub partition: i32,
    /// Offset, when the dump has it.
    pub offset: Option<i64>,
    /// The value (`None`: a tombstone).
    pub payload: Option<Vec<u8>>,
    /// The key (`None`: none).
    pub key: Option<Vec<u8>>,
}

/// All input records in replay order, with the interned topic names.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// Records in replay order.
    pub records: Vec<Loaded>,
    /// Topic names by number.
    pub topics: Vec<String>,
}

/// Reads every input (table index, path), parses each non-blank line, and
/// returns the records in replay order.
pub fn load(inputs: &[(usize, PathBuf)]) -> Result<Inputs, InputError> {
    let mut all = Inputs::default();
    let mut ids: hashbrown::HashMap<String, u32> = hashbrown::HashMap::new();
    for (file, (table, path)) in inputs.iter().enumerate() {
        read_one(*table, file, path, &mut all, &mut ids)?;
    }
    all.records.sort_by_key(|l| l.ts);
    Ok(all)
}

fn read_one(
    table: usize,
    file: usize,
    path: &Path,
    out: &mut Inputs,
    ids: &mut hashbrown::HashMap<String, u32>,
) -> Result<(), InputError> {
    let text = std::fs::read_to_string(path).map_err(|source| InputError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let raw = parse_raw(line).map_err(|e| InputError::Dump {
            path: path.to_path_buf(),
            line: i + 1,
            column: e.column,
            message: e.message,
        })?;
        if raw.partition < 0 {
            return Err(InputError::Dump {
                path: path.to_path_buf(),
                line: i + 1,
                column: line.find("\"partition\"").map_or(1, |c| c + 1),
                message: format!(
                    "partition {} is negative; Kafka partitions start at 0",
                    raw.partition
                ),
            });
        }
        let topic = match ids.get(raw.topic.as_ref()) {
            Some(&id) => id,
            None => {
                let id = out.topics.len() as u32;
                out.topics.push(raw.topic.to_string());
                ids.insert(raw.topic.to_string(), id);
                id
            }
        };
        out.records.push(Loaded {
            table,
            file,
            line: i + 1,
            ts: raw.ts,
            topic,
            partition: raw.partition,
            offset: raw.offset,
            payload: raw.payload.map(|p| p.into_owned()),
            key: raw.key.map(|k| k.into_owned()),
        });
    }
    Ok(())
}
