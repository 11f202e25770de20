//! Input dumps in replay order from bounded memory.
//!
//! Two passes. The first reads each dump's record headers only (the JSON
//! parser skips keys and payloads): which partitions exist (all of them
//! from the start, as in Kafka), the earliest arrival, the record count,
//! and how far out of arrival order the dump is ([`super::disorder`]). The
//! second parses every record in full, and orders them one of two ways:
//!
//! - a dump close to arrival order (in order, or partitions interleaved a
//!   fetched batch at a time, as `lowwater dump` and kcat write them) is
//!   parsed as the merge goes, through a min-heap of the few records the
//!   first pass found it needs;
//! - a dump further out of order (a partition after another, producer
//!   timestamps all over the place) is read at once into a buffer of at
//!   most [`SortOptions::buffer_bytes`]; each full buffer is sorted and
//!   written as a run to an unnamed temporary file (32 runs of one level
//!   are merged into one of the next), the last stays in memory.
//!
//! All of them are merged with a heap on (arrival time, file, line), a
//! total order, so the replay reads the same sequence either way. Memory
//! is the buffer, the sliding windows (which share the buffer's budget)
//! and 64 KiB per open run or dump, whatever the dumps' size.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use super::disorder::Disorder;
use super::lines::Lines;
use super::runs::{write_run, Merge, Run, FAN};
use super::scan::header;
use super::sliding::Sliding;
use super::{DumpReader, InputError, Loaded, Topics};
use crate::payload::Payload;

/// How much memory ordering may use, and where runs go.
#[derive(Debug, Clone)]
pub struct SortOptions {
    /// The buffer's size in bytes (records and payloads, estimated).
    pub buffer_bytes: usize,
    /// Where runs are written (unnamed files, gone when closed).
    pub spill_dir: PathBuf,
}

impl Default for SortOptions {
    fn default() -> Self {
        SortOptions {
            buffer_bytes: 32 << 20,
            spill_dir: std::env::temp_dir(),
        }
    }
}

/// The first record of a partition in replay order: where to point when
/// the partition does not fit the job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct First {
    /// Arrival time.
    pub ts: i64,
    /// Index of its file.
    pub file: usize,
    /// 1-based line.
    pub line: usize,
    /// Offset, when the dump has it.
    pub offset: Option<i64>,
}

/// The inputs, read and ordered: what they hold, and their records in
/// replay order as an iterator.
pub struct Sorted {
    /// Topic names by number.
    pub topics: Vec<String>,
    /// Per (table, topic number, partition) its first record.
    pub partitions: BTreeMap<(usize, u32, i32), First>,
    /// How many records there are.
    pub records: u64,
    /// The earliest arrival time.
    pub first_ts: Option<i64>,
    /// How many runs went to disk (0: sorted in memory).
    pub runs_spilled: usize,
    merge: Merge,
    /// The keys of `partitions`, looked up once per record.
    seen: hashbrown::HashSet<(usize, u32, i32)>,
    /// The inputs' paths, for errors.
    paths: Vec<PathBuf>,
    /// Copies of inputs that can be read once (pipes), removed when dropped.
    _copies: Vec<tempfile::NamedTempFile>,
}

/// Reads every input (table index, path) and orders its records, calling
/// `progress(bytes read, total bytes)` now and then while reading.
///
/// Two passes. The first reads each dump's record headers (skipping keys
/// and payloads): the partitions, the earliest arrival, the count, and
/// whether the dump is in arrival order. The second parses records in
/// full: a dump in order is read as the merge goes, once; the dumps out
/// of order are read now into the buffer, spilled in sorted runs, and
/// merged with the others.
pub fn sort(
    inputs: &[(usize, PathBuf)],
    opts: &SortOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Sorted, InputError> {
    // A pipe or a device (`--input t=<(zcat dump.gz)`, /dev/stdin) can be
    // read once: it is copied to an unnamed file first, and errors still
    // name it.
    let mut copies = Vec::new();
    let mut read: Vec<(usize, PathBuf)> = Vec::with_capacity(inputs.len());
    for (table, path) in inputs {
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            let copy = copy_of(path, &opts.spill_dir)?;
            read.push((*table, copy.path().to_path_buf()));
            copies.push(copy);
        } else {
            read.push((*table, path.clone()));
        }
    }
    let shown = |file: usize| inputs[file].1.as_path();
    let size = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
    let total: u64 = read.iter().map(|(_, p)| size(p)).sum();
    let mut topics = Topics::default();
    // Looked up on every line: a hash map, ordered once at the end.
    let mut partitions: hashbrown::HashMap<(usize, u32, i32), First> = hashbrown::HashMap::new();
    let (mut records, mut first_ts, mut done) = (0u64, None::<i64>, 0u64);
    // Per dump: the sliding window that orders it (in records, None: too
    // far out of order), and its records.
    let mut windows: Vec<(Option<usize>, u64)> = Vec::with_capacity(inputs.len());
    for (file, (table, path)) in read.iter().enumerate() {
        let mut lines = Lines::open_as(path, shown(file))?;
        let mut disorder = Disorder::new(opts.buffer_bytes / 64);
        let mut n = 0u64;
        while lines.advance()? {
            let h = header(&lines, lines.current(), &mut topics)?;
            records += 1;
            n += 1;
            first_ts = Some(first_ts.map_or(h.ts, |t: i64| t.min(h.ts)));
            disorder.push(h.ts);
            // The first in replay order: lines come in order, so the first
            // seen unless a later line arrived earlier.
            let here = First {
                ts: h.ts,
                file,
                line: lines.line,
                offset: h.offset,
            };
            partitions
                .entry((*table, h.topic, h.partition))
                .and_modify(|f| {
                    if here.ts < f.ts {
                        *f = here;
                    }
                })
                .or_insert(here);
            if records % 8192 == 0 {
                progress(done + lines.bytes, total);
            }
        }
        done += lines.bytes;
        windows.push((disorder.window(), n));
    }
    progress(done, total);
    // Dumps are sorted in a sliding window while the windows fit the
    // buffer together (in command-line order); the others in spilled runs.
    let mut budget = opts.buffer_bytes;
    let mut slide: Vec<Option<usize>> = vec![None; inputs.len()];
    for (file, &(window, n)) in windows.iter().enumerate() {
        let Some(w) = window else { continue };
        let per_record =
            size(&inputs[file].1) / n.max(1) + std::mem::size_of::<Loaded>() as u64 + 32;
        // The records held beyond the one being read (none for a dump in order).
        let cost = usize::try_from((w as u64).saturating_mul(per_record)).unwrap_or(usize::MAX);
        if cost <= budget {
            budget -= cost;
            slide[file] = Some(w);
        }
    }
    let known = topics.names.len();
    let mut runs: Vec<Run> = Vec::new();
    let unordered: Vec<usize> = (0..inputs.len()).filter(|f| slide[*f].is_none()).collect();
    if !unordered.is_empty() {
        let sub: u64 = unordered.iter().map(|f| size(&inputs[*f].1)).sum();
        runs = spill_sort(inputs, &read, &unordered, opts, &mut topics, &mut |b| {
            progress(b, sub)
        })?;
    }
    let runs_spilled = runs
        .iter()
        .filter(|r| matches!(r, Run::Disk { .. }))
        .count();
    for (file, (table, path)) in read.iter().enumerate() {
        if let Some(window) = slide[file] {
            runs.push(Run::Dump(Box::new(Sliding::new(
                DumpReader::open_as(*table, file, path, shown(file))?,
                topics.clone(),
                known,
                window,
            ))));
        }
    }
    Ok(Sorted {
        topics: topics.names,
        seen: partitions.keys().copied().collect(),
        partitions: partitions.into_iter().collect(),
        records,
        first_ts,
        runs_spilled,
        merge: Merge::new(runs)?,
        paths: inputs.iter().map(|(_, p)| p.clone()).collect(),
        _copies: copies,
    })
}

/// `path` (a pipe) copied to a file in `dir`.
fn copy_of(path: &Path, dir: &Path) -> Result<tempfile::NamedTempFile, InputError> {
    let io = |source| InputError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut copy = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    let mut from = File::open(path).map_err(io)?;
    std::io::copy(&mut from, copy.as_file_mut()).map_err(io)?;
    Ok(copy)
}

pub(crate) const CHANGED: &str =
    "the record reads differently than in the first pass over the dump \
     (the dump changed while it was read); replay a copy that is not being written";

/// Reads the dumps `files` of `inputs` in full into the buffer, spilling
/// each full buffer as a sorted run; the last buffer is a run in memory.
fn spill_sort(
    inputs: &[(usize, PathBuf)],
    read: &[(usize, PathBuf)],
    files: &[usize],
    opts: &SortOptions,
    topics: &mut Topics,
    progress: &mut dyn FnMut(u64),
) -> Result<Vec<Run>, InputError> {
    let known = topics.names.len();
    let mut buffer: Vec<Loaded> = Vec::new();
    let mut held = 0usize;
    // Runs on disk with their level: a level-0 run is one buffer; FAN runs
    // of one level are merged into one of the next, so every record is
    // written once per level (log_FAN of the runs), and at most FAN - 1
    // runs per level stay open.
    let mut runs: Vec<(u32, Run)> = Vec::new();
    let (mut n, mut done) = (0u64, 0u64);
    for &file in files {
        let (table, path) = &read[file];
        let mut reader = DumpReader::open_as(*table, file, path, &inputs[file].1)?;
        while let Some(rec) = reader.next(topics)? {
            if rec.topic as usize >= known {
                return Err(reader.changed());
            }
            held += weight(&rec);
            buffer.push(rec);
            // The records' bytes and the buffer's slots (a fresh buffer per
            // run: a spilled one's capacity is not kept).
            if held + buffer.capacity() * std::mem::size_of::<Loaded>() >= opts.buffer_bytes {
                let mut full = std::mem::take(&mut buffer);
                full.sort_unstable_by_key(Loaded::order);
                runs.push((0, write_run(full.into_iter().map(Ok), &opts.spill_dir)?));
                held = 0;
                loop {
                    let level = runs.last().map_or(0, |r| r.0);
                    let same = runs.iter().rev().take_while(|r| r.0 == level).count();
                    if same < FAN {
                        break;
                    }
                    let merged: Vec<Run> = runs
                        .split_off(runs.len() - same)
                        .into_iter()
                        .map(|r| r.1)
                        .collect();
                    runs.push((level + 1, write_run(Merge::new(merged)?, &opts.spill_dir)?));
                }
            }
            n += 1;
            if n % 8192 == 0 {
                progress(done + reader.bytes());
            }
        }
        done += reader.bytes();
    }
    progress(done);
    buffer.sort_unstable_by_key(Loaded::order);
    let mut out: Vec<Run> = runs.into_iter().map(|r| r.1).collect();
    out.push(Run::Memory(buffer.into_iter()));
    Ok(out)
}

/// What a buffered record costs: the struct, its payload and key, and the
/// allocator's overhead for each.
fn weight(r: &Loaded) -> usize {
    let bytes = |b: Option<usize>| b.map_or(0, |n| n + 16);
    bytes(r.payload.as_ref().map(Payload::capacity)) + bytes(r.key.as_ref().map(Vec::capacity))
}

impl Iterator for Sorted {
    type Item = Result<Loaded, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(self.merge.next()?.and_then(|r| {
            // What the first pass saw of it: its partition, and no earlier
            // arrival than the first.
            let seen = self.seen.contains(&(r.table, r.topic, r.partition));
            if !seen || self.first_ts.is_some_and(|t| r.ts < t) {
                return Err(InputError::Dump {
                    path: self.paths[r.file].clone(),
                    line: r.line,
                    column: 1,
                    message: CHANGED.to_string(),
                });
            }
            Ok(r)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dump(dir: &Path, name: &str, lines: &[(i64, i32, &str)]) -> PathBuf {
        let p = dir.join(name);
        let text: String = lines
            .iter()
            .enumerate()
            .map(|(i, (ts, part, v))| {
                format!(
                    "{{\"topic\":\"t\",\"partition\":{part},\"offset\":{i},\"ts\":{ts},\"payload\":\"{v}\"}}\n"
                )
            })
            .collect();
        std::fs::write(&p, text).expect("write");
        p
    }

    #[test]
    fn spilled_runs_merge_to_the_order_of_an_in_memory_sort() {
        let dir = tempfile::tempdir().expect("dir");
        // Out of order, with ties across and within files, a tombstone-free
        // mix of partitions.
        let a: Vec<(i64, i32, &str)> = (0..500)
            .map(|i| ((i * 7919) % 97, i as i32 % 3, "a"))
            .collect();
        let b: Vec<(i64, i32, &str)> = (0..300).map(|i| ((i * 31) % 89, 1, "b")).collect();
        // In arrival order, with ties among its lines and with the others:
        // read as the merge goes, not spilled.
        let c: Vec<(i64, i32, &str)> = (0..200).map(|i| (i / 2, 5, "c")).collect();
        let inputs = vec![
            (0, dump(dir.path(), "a.json", &a)),
            (0, dump(dir.path(), "c.json", &c)),
            (1, dump(dir.path(), "b.json", &b)),
        ];
        let all = super::super::load(&inputs).expect("load");
        let mut calls = 0;
        let small = SortOptions {
            buffer_bytes: 4096,
            spill_dir: dir.path().to_path_buf(),
        };
        let sorted = sort(&inputs, &small, &mut |done, total| {
            calls += 1;
            assert!(done <= total);
        })
        .expect("sort");
        assert!(sorted.runs_spilled > 10, "{} runs", sorted.runs_spilled);
        assert!(calls >= 1);
        assert_eq!(sorted.records, 1000);
        assert_eq!(sorted.first_ts, Some(0));
        let first = sorted.partitions[&(1, 0, 1)];
        assert_eq!((first.ts, first.file, first.line), (0, 2, 1));
        let first = sorted.partitions[&(0, 0, 5)];
        assert_eq!((first.ts, first.file, first.line), (0, 1, 1));
        let merged: Vec<Loaded> = sorted.map(|r| r.expect("record")).collect();
        let key = |l: &Loaded| (l.order(), l.partition, l.offset, l.payload.clone());
        assert_eq!(
            merged.iter().map(key).collect::<Vec<_>>(),
            all.records.iter().map(key).collect::<Vec<_>>()
        );
        // A run per record: 32 runs of a level merge into one of the next.
        let tiny = SortOptions {
            buffer_bytes: 1,
            spill_dir: dir.path().to_path_buf(),
        };
        let each = sort(&inputs, &tiny, &mut |_, _| {}).expect("sort");
        assert!(each.runs_spilled < 2 * FAN, "{} runs", each.runs_spilled);
        let merged: Vec<Loaded> = each.map(|r| r.expect("record")).collect();
        assert_eq!(
            merged.iter().map(key).collect::<Vec<_>>(),
            all.records.iter().map(key).collect::<Vec<_>>()
        );
        let fits = sort(&inputs, &SortOptions::default(), &mut |_, _| {}).expect("sort");
        assert_eq!(fits.runs_spilled, 0);
        assert_eq!(fits.count(), 1000);
        // Every dump in order: nothing buffered, read once.
        let ordered = vec![inputs[1].clone(), (1, dump(dir.path(), "d.json", &c))];
        let all = super::super::load(&ordered).expect("load");
        let streamed = sort(&ordered, &tiny, &mut |_, _| {}).expect("sort");
        assert_eq!(streamed.runs_spilled, 0);
        let merged: Vec<Loaded> = streamed.map(|r| r.expect("record")).collect();
        assert_eq!(
            merged.iter().map(key).collect::<Vec<_>>(),
            all.records.iter().map(key).collect::<Vec<_>>()
        );
        // Four partitions written a batch of five at a time, as `lowwater
        // dump` interleaves fetched batches: out of order, but by a few
        // batches only; sorted in a sliding window, nothing spilled.
        let batches: Vec<(i64, i32, &str)> = (0..400)
            .map(|i| {
                let (p, batch, k) = ((i / 5) % 4, i / 20, i % 5);
                (batch * 5 + k, p as i32, "e")
            })
            .collect();
        let interleaved = vec![(0, dump(dir.path(), "e.json", &batches))];
        let all = super::super::load(&interleaved).expect("load");
        let small = SortOptions {
            buffer_bytes: 64 << 10,
            spill_dir: dir.path().to_path_buf(),
        };
        let slid = sort(&interleaved, &small, &mut |_, _| {}).expect("sort");
        assert_eq!(slid.runs_spilled, 0);
        let merged: Vec<Loaded> = slid.map(|r| r.expect("record")).collect();
        assert_eq!(
            merged.iter().map(key).collect::<Vec<_>>(),
            all.records.iter().map(key).collect::<Vec<_>>()
        );
    }

    #[test]
    fn small_records_far_out_of_order_spill_in_levels() {
        let dir = tempfile::tempdir().expect("dir");
        // 20,000 one-byte payloads in no order: a buffer of 64 KiB holds a
        // few hundred, so about a hundred runs, merged 32 at a time.
        let mut x = 1u64;
        let lines: Vec<(i64, i32, &str)> = (0..20_000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 40) as i64 % 100_000, 0, "1")
            })
            .collect();
        let inputs = vec![(0, dump(dir.path(), "r.json", &lines))];
        let all = super::super::load(&inputs).expect("load");
        let opts = SortOptions {
            buffer_bytes: 64 << 10,
            spill_dir: dir.path().to_path_buf(),
        };
        let sorted = sort(&inputs, &opts, &mut |_, _| {}).expect("sort");
        assert!(
            (3..2 * FAN).contains(&sorted.runs_spilled),
            "{} runs",
            sorted.runs_spilled
        );
        let merged: Vec<(i64, usize)> = sorted
            .map(|r| r.expect("record"))
            .map(|l| (l.ts, l.line))
            .collect();
        let want: Vec<(i64, usize)> = all.records.iter().map(|l| (l.ts, l.line)).collect();
        assert_eq!(merged, want);
    }
}
