//! Sorted runs and their merge: a run is a dump put in order as it is read
//! (a sliding window), the last buffer in memory, or a buffer written to an
//! unnamed temporary file in a compact binary form; the merge takes the
//! smallest head of all runs, one record at a time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::sliding::Sliding;
use super::{InputError, Loaded, Order};
use crate::payload::Payload;

/// A sorted run: a dump sorted in a sliding window as it is read, the
/// last buffer in memory, or a temporary file.
pub(crate) enum Run {
    Dump(Box<Sliding>),
    Memory(std::vec::IntoIter<Loaded>),
    Disk {
        reader: BufReader<File>,
        dir: PathBuf,
    },
}

impl Run {
    pub(crate) fn next(&mut self) -> Result<Option<Loaded>, InputError> {
        match self {
            Run::Dump(s) => s.next(),
            Run::Memory(it) => Ok(it.next()),
            Run::Disk { reader, dir } => read_record(reader).map_err(|source| InputError::Io {
                path: dir.clone(),
                source,
            }),
        }
    }
}

/// Runs of one level merged at once (each holds an open file and a 64 KiB
/// read buffer while it is merged).
pub(crate) const FAN: usize = 32;

/// Writes records already in order to an unnamed file in `dir`.
pub(crate) fn write_run(
    records: impl Iterator<Item = Result<Loaded, InputError>>,
    dir: &Path,
) -> Result<Run, InputError> {
    let io = |source| InputError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut w = BufWriter::with_capacity(1 << 16, tempfile::tempfile_in(dir).map_err(io)?);
    for r in records {
        write_record(&mut w, &r?).map_err(io)?;
    }
    let mut f = w.into_inner().map_err(|e| io(e.into_error()))?;
    f.rewind().map_err(io)?;
    Ok(Run::Disk {
        reader: BufReader::with_capacity(1 << 16, f),
        dir: dir.to_path_buf(),
    })
}

fn write_bytes<W: Write>(w: &mut W, b: &Option<Vec<u8>>) -> std::io::Result<()> {
    match b {
        None => w.write_all(&u64::MAX.to_le_bytes()),
        Some(v) => {
            w.write_all(&(v.len() as u64).to_le_bytes())?;
            w.write_all(v)
        }
    }
}

/// A payload: absent as `u64::MAX` bytes, else its bytes as written and,
/// after them, whether they are quoted text (see [`Payload`]).
fn write_payload<W: Write>(w: &mut W, p: &Option<Payload>) -> std::io::Result<()> {
    let Some((bytes, quoted)) = p.as_ref().map(Payload::as_written) else {
        return w.write_all(&u64::MAX.to_le_bytes());
    };
    w.write_all(&(bytes.len() as u64).to_le_bytes())?;
    w.write_all(bytes)?;
    w.write_all(&[u8::from(quoted)])
}

fn read_payload<R: Read>(r: &mut R) -> std::io::Result<Option<Payload>> {
    let Some(bytes) = read_bytes(r)? else {
        return Ok(None);
    };
    if read_array::<1, R>(r)?[0] == 0 {
        return Ok(Some(Payload::from(bytes)));
    }
    let quoted = std::str::from_utf8(&bytes).ok().and_then(Payload::quoted);
    quoted.map(Some).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "a spilled run's quoted payload is not quoted text",
        )
    })
}

/// A run's record: fixed-width little-endian fields, then the payload and
/// key with their lengths (`u64::MAX`: absent), the payload followed by its
/// form ([`write_payload`]).
fn write_record<W: Write>(w: &mut W, r: &Loaded) -> std::io::Result<()> {
    w.write_all(&r.ts.to_le_bytes())?;
    w.write_all(&(r.table as u64).to_le_bytes())?;
    w.write_all(&(r.file as u64).to_le_bytes())?;
    w.write_all(&(r.line as u64).to_le_bytes())?;
    w.write_all(&r.topic.to_le_bytes())?;
    w.write_all(&r.partition.to_le_bytes())?;
    match r.offset {
        None => w.write_all(&[0])?,
        Some(o) => {
            w.write_all(&[1])?;
            w.write_all(&o.to_le_bytes())?;
        }
    }
    write_payload(w, &r.payload)?;
    write_bytes(w, &r.key)
}

fn read_array<const N: usize, R: Read>(r: &mut R) -> std::io::Result<[u8; N]> {
    let mut b = [0u8; N];
    r.read_exact(&mut b)?;
    Ok(b)
}

fn read_u64<R: Read>(r: &mut R) -> std::io::Result<u64> {
    read_array::<8, R>(r).map(u64::from_le_bytes)
}

fn read_bytes<R: Read>(r: &mut R) -> std::io::Result<Option<Vec<u8>>> {
    let n = read_u64(r)?;
    if n == u64::MAX {
        return Ok(None);
    }
    let mut v = vec![0u8; n as usize];
    r.read_exact(&mut v)?;
    Ok(Some(v))
}

/// The run's next record, `None` at its end.
fn read_record<R: Read>(r: &mut R) -> std::io::Result<Option<Loaded>> {
    let mut ts = [0u8; 8];
    match r.read_exact(&mut ts) {
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        other => other?,
    }
    let table = read_u64(r)? as usize;
    let file = read_u64(r)? as usize;
    let line = read_u64(r)? as usize;
    let topic = u32::from_le_bytes(read_array(r)?);
    let partition = i32::from_le_bytes(read_array(r)?);
    let offset = match read_array::<1, R>(r)?[0] {
        0 => None,
        _ => Some(i64::from_le_bytes(read_array(r)?)),
    };
    Ok(Some(Loaded {
        table,
        file,
        line,
        ts: i64::from_le_bytes(ts),
        topic,
        partition,
        offset,
        payload: read_payload(r)?,
        key: read_bytes(r)?,
    }))
}

/// The runs merged: the smallest head first.
pub(crate) struct Merge {
    runs: Vec<Run>,
    heads: Vec<Option<Loaded>>,
    heap: BinaryHeap<Reverse<(Order, usize)>>,
}

impl Merge {
    pub(crate) fn new(mut runs: Vec<Run>) -> Result<Self, InputError> {
        let mut heads = Vec::with_capacity(runs.len());
        let mut heap = BinaryHeap::with_capacity(runs.len());
        for (i, run) in runs.iter_mut().enumerate() {
            let head = run.next()?;
            if let Some(h) = &head {
                heap.push(Reverse((h.order(), i)));
            }
            heads.push(head);
        }
        Ok(Merge { runs, heads, heap })
    }
}

impl Iterator for Merge {
    type Item = Result<Loaded, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let [run] = &mut self.runs[..] {
            // One run: its records as they come.
            let out = self.heads[0].take()?;
            return Some(match run.next() {
                Ok(h) => {
                    self.heads[0] = h;
                    Ok(out)
                }
                Err(e) => Err(e),
            });
        }
        let Reverse((_, i)) = self.heap.pop()?;
        let out = self.heads[i].take()?;
        match self.runs[i].next() {
            Ok(Some(h)) => {
                self.heap.push(Reverse((h.order(), i)));
                self.heads[i] = Some(h);
            }
            Ok(None) => {}
            Err(e) => return Some(Err(e)),
        }
        Some(Ok(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_round_trips_absent_and_empty_payloads_and_keys() {
        let r = Loaded {
            table: 3,
            file: 2,
            line: 77,
            ts: -5,
            topic: 9,
            partition: 2_147_483_647,
            offset: None,
            payload: None,
            key: Some(Vec::new()),
        };
        let mut bytes = Vec::new();
        write_record(&mut bytes, &r).expect("write");
        let mut reader = bytes.as_slice();
        let back = read_record(&mut reader).expect("read").expect("a record");
        assert_eq!(format!("{back:?}"), format!("{r:?}"));
        assert!(read_record(&mut reader).expect("end").is_none());
        // A payload kept as its line writes it stays so, and bytes stay bytes.
        for payload in [
            Payload::quoted(r#"{\"a\":\"é\"}"#).expect("quoted text"),
            Payload::from(vec![0xff, b'"']),
            Payload::quoted("").expect("quoted text"),
        ] {
            let r = Loaded {
                payload: Some(payload),
                ..r.clone()
            };
            let mut bytes = Vec::new();
            write_record(&mut bytes, &r).expect("write");
            let back = read_record(&mut bytes.as_slice())
                .expect("read")
                .expect("a record");
            assert_eq!(back.payload, r.payload);
        }
    }
}
