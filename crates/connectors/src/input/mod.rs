//! Reading topic dumps as inputs (of `lowwater replay`, and of `lowwater run
//! --input`) and ordering their records.
//!
//! Records of all inputs are replayed in `ts` order; ties keep file order
//! (inputs in command-line order, then line order), so the same inputs
//! always replay identically. Topics are interned: a record keeps a small
//! topic number, not a copy of the name. [`load`] holds every record in
//! memory; [`sorted::sort`] gives the same order from a bounded buffer,
//! spilling sorted runs to temporary files and merging them.

mod disorder;
mod lines;
mod runs;
mod scan;
mod sliding;
pub mod sorted;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use lines::Lines;

use crate::dump::{parse_unshaped, shape};
use crate::payload::Payload;

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
    /// The value (`None`: a tombstone); a JSON payload kept as its dump
    /// line writes it when that is quoted text (see [`Payload`]).
    pub payload: Option<Payload>,
    /// The key (`None`: none).
    pub key: Option<Vec<u8>>,
}

/// A record's place in replay order: arrival time, then file, then line.
pub type Order = (i64, usize, usize);

impl Loaded {
    /// Its place in replay order.
    pub fn order(&self) -> Order {
        (self.ts, self.file, self.line)
    }
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
    let mut topics = Topics::default();
    let mut records = Vec::new();
    for (file, (table, path)) in inputs.iter().enumerate() {
        let mut r = DumpReader::open(*table, file, path)?;
        while let Some(rec) = r.next(&mut topics)? {
            records.push(rec);
        }
    }
    records.sort_by_key(|l| l.ts);
    Ok(Inputs {
        records,
        topics: topics.names,
    })
}

/// Topic names interned to numbers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Topics {
    pub(crate) names: Vec<String>,
    ids: hashbrown::HashMap<String, u32>,
    /// The number last given: a dump's lines are mostly of one topic, so
    /// the name is compared with it before it is hashed.
    last: u32,
}

impl Topics {
    pub(crate) fn id(&mut self, name: &str) -> u32 {
        if self
            .names
            .get(self.last as usize)
            .is_some_and(|n| n == name)
        {
            return self.last;
        }
        let id = match self.ids.get(name) {
            Some(&id) => id,
            None => {
                let id = self.names.len() as u32;
                self.names.push(name.to_string());
                self.ids.insert(name.to_string(), id);
                id
            }
        };
        self.last = id;
        id
    }
}

/// One dump's records, read a line at a time.
pub(crate) struct DumpReader {
    table: usize,
    file: usize,
    lines: Lines,
}

impl DumpReader {
    pub(crate) fn open(table: usize, file: usize, path: &Path) -> Result<Self, InputError> {
        DumpReader::open_as(table, file, path, path)
    }

    /// Reads `read`, naming `shown` in errors.
    pub(crate) fn open_as(
        table: usize,
        file: usize,
        read: &Path,
        shown: &Path,
    ) -> Result<Self, InputError> {
        Ok(DumpReader {
            table,
            file,
            lines: Lines::open_as(read, shown)?,
        })
    }

    /// Bytes read so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.lines.bytes
    }

    /// The error for a record the first pass did not see this way.
    pub(crate) fn changed(&self) -> InputError {
        self.lines.error(1, sorted::CHANGED.to_string())
    }

    /// The next record (blank lines skipped), or `None` at the end.
    pub(crate) fn next(&mut self, topics: &mut Topics) -> Result<Option<Loaded>, InputError> {
        if !self.lines.advance()? {
            return Ok(None);
        }
        let line = self.lines.current();
        // A line in the shape `lowwater dump` writes keeps a JSON payload
        // as written; any other line is read with its payload unescaped.
        let (topic, partition, offset, ts, key, payload) = match shape::parse_owned(line) {
            Some((h, key, payload)) => (
                Cow::Borrowed(h.topic),
                h.partition,
                h.offset,
                h.ts,
                key,
                payload,
            ),
            None => {
                let r = parse_unshaped(line).map_err(|e| self.lines.error(e.column, e.message))?;
                let payload = r.payload.map(|p| Payload::from(p.into_owned()));
                (
                    r.topic,
                    r.partition,
                    r.offset,
                    r.ts,
                    r.key.map(Cow::into_owned),
                    payload,
                )
            }
        };
        scan::check_partition(&self.lines, line, partition)?;
        Ok(Some(Loaded {
            table: self.table,
            file: self.file,
            line: self.lines.line,
            ts,
            topic: topics.id(&topic),
            partition,
            offset,
            payload,
            key,
        }))
    }
}
