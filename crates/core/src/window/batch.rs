//! Window inputs in batches, column by column: event times, splits, and
//! every record's key and aggregate arguments laid end to end in two value
//! vectors. A batch is filled and drained without an allocation per record
//! (a [`WindowInput`] holds two vectors of its own: two allocations and two
//! frees, on two threads, for every record), and cleared for reuse.
//!
//! Records may differ in their key's and row's lengths (the offsets say
//! where each ends), so a batch cannot be misread by a caller that got a
//! width wrong.

use crate::time::Timestamp;
use crate::value::Value;

use super::operator::{SplitId, WindowInput};

/// One record of a batch, borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputRef<'a> {
    /// Event time.
    pub ts: Timestamp,
    /// The split it was read from.
    pub split: SplitId,
    /// Group key (empty for a global aggregate).
    pub key: &'a [Value],
    /// The row the aggregates read their arguments from.
    pub row: &'a [Value],
}

impl InputRef<'_> {
    /// An owned copy (for the late side output, which keeps the record).
    pub fn to_input(&self) -> WindowInput {
        WindowInput {
            ts: self.ts,
            split: self.split,
            key: self.key.to_vec(),
            row: self.row.to_vec(),
        }
    }
}

impl<'a> From<&'a WindowInput> for InputRef<'a> {
    fn from(input: &'a WindowInput) -> Self {
        InputRef {
            ts: input.ts,
            split: input.split,
            key: &input.key,
            row: &input.row,
        }
    }
}

/// A batch of window inputs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InputBatch {
    ts: Vec<Timestamp>,
    split: Vec<SplitId>,
    /// Where each record's key ends in `keys`, and its row in `rows`.
    ends: Vec<(usize, usize)>,
    keys: Vec<Value>,
    rows: Vec<Value>,
}

impl InputBatch {
    /// An empty batch with room for `records` records of `key` key values
    /// and `row` row values each.
    pub fn with_capacity(records: usize, key: usize, row: usize) -> Self {
        InputBatch {
            ts: Vec::with_capacity(records),
            split: Vec::with_capacity(records),
            ends: Vec::with_capacity(records),
            keys: Vec::with_capacity(records * key),
            rows: Vec::with_capacity(records * row),
        }
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.ts.len()
    }

    /// Whether the batch holds no record.
    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }

    /// Adds a record whose key and row values are moved out of `key` and
    /// `row` (left empty, their capacity kept for the next record).
    pub fn push(
        &mut self,
        ts: Timestamp,
        split: SplitId,
        key: &mut Vec<Value>,
        row: &mut Vec<Value>,
    ) {
        self.keys.append(key);
        self.rows.append(row);
        self.ts.push(ts);
        self.split.push(split);
        self.ends.push((self.keys.len(), self.rows.len()));
    }

    /// Adds a record whose key and row values `fill` appends to the
    /// batch's own vectors (key, row), so that they are written where
    /// they stay rather than moved in after. If `fill` fails the batch is
    /// left as it was.
    pub fn push_with<E>(
        &mut self,
        ts: Timestamp,
        split: SplitId,
        fill: impl FnOnce(&mut Vec<Value>, &mut Vec<Value>) -> Result<(), E>,
    ) -> Result<(), E> {
        let (keys, rows) = (self.keys.len(), self.rows.len());
        if let Err(e) = fill(&mut self.keys, &mut self.rows) {
            self.keys.truncate(keys);
            self.rows.truncate(rows);
            return Err(e);
        }
        self.ts.push(ts);
        self.split.push(split);
        self.ends.push((self.keys.len(), self.rows.len()));
        Ok(())
    }

    /// Record `i`.
    pub fn get(&self, i: usize) -> Option<InputRef<'_>> {
        let (key_end, row_end) = *self.ends.get(i)?;
        let (key_start, row_start) = match i.checked_sub(1) {
            Some(p) => self.ends[p],
            None => (0, 0),
        };
        Some(InputRef {
            ts: self.ts[i],
            split: self.split[i],
            key: &self.keys[key_start..key_end],
            row: &self.rows[row_start..row_end],
        })
    }

    /// The records in order.
    pub fn iter(&self) -> impl Iterator<Item = InputRef<'_>> + '_ {
        self.range(0, self.len())
    }

    /// Records `from..to` in order (each found from where the one before
    /// it ended, not from the offsets of the one before).
    pub fn range(&self, from: usize, to: usize) -> impl Iterator<Item = InputRef<'_>> + '_ {
        let to = to.min(self.len());
        let mut start = match from.checked_sub(1) {
            Some(p) if p < to => self.ends[p],
            _ => (0, 0),
        };
        let from = from.min(to);
        self.ends[from..to]
            .iter()
            .zip(&self.ts[from..to])
            .zip(&self.split[from..to])
            .map(move |((&(key_end, row_end), &ts), &split)| {
                let (key_start, row_start) = std::mem::replace(&mut start, (key_end, row_end));
                InputRef {
                    ts,
                    split,
                    key: &self.keys[key_start..key_end],
                    row: &self.rows[row_start..row_end],
                }
            })
    }

    /// The records' event times, in order.
    pub fn timestamps(&self) -> &[Timestamp] {
        &self.ts
    }

    /// Empties the batch if none of its values is a string, and says
    /// whether it did. (A string is a shared allocation: the runtime
    /// leaves such a batch to be emptied by the thread that made its
    /// strings, so that their reference counts stay in that core's cache.
    /// A batch of numbers is emptied by the thread that just read it,
    /// whose cache holds it: on another core, emptying it reads every
    /// value's memory back first.)
    pub fn clear_if_plain(&mut self) -> bool {
        let plain = |v: &Value| !matches!(v, Value::Str(_));
        if !(self.keys.iter().all(plain) && self.rows.iter().all(plain)) {
            return false;
        }
        self.clear();
        true
    }

    /// Empties the batch, keeping its capacity.
    pub fn clear(&mut self) {
        self.ts.clear();
        self.split.clear();
        self.ends.clear();
        self.keys.clear();
        self.rows.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back_as_pushed_with_their_own_lengths() {
        let mut b = InputBatch::with_capacity(4, 1, 2);
        let (mut key, mut row) = (vec![Value::str("a")], vec![Value::Int(1), Value::Int(2)]);
        b.push(10, 0, &mut key, &mut row);
        assert!(key.is_empty() && row.is_empty());
        b.push(11, 3, &mut Vec::new(), &mut vec![Value::Null]);
        assert_eq!(b.len(), 2);
        let all: Vec<InputRef<'_>> = b.iter().collect();
        assert_eq!(all[0].ts, 10);
        assert_eq!(all[0].key, &[Value::str("a")]);
        assert_eq!(all[0].row, &[Value::Int(1), Value::Int(2)]);
        assert_eq!((all[1].ts, all[1].split), (11, 3));
        assert!(all[1].key.is_empty());
        assert_eq!(all[1].row, &[Value::Null]);
        assert!(b.get(2).is_none());
        assert_eq!(all[0].to_input().row, vec![Value::Int(1), Value::Int(2)]);
        let tail: Vec<InputRef<'_>> = b.range(1, 9).collect();
        assert_eq!(tail, all[1..]);
        assert_eq!(b.range(0, 1).collect::<Vec<_>>(), all[..1]);
        assert_eq!(b.range(2, 5).count(), 0);
        assert_eq!(b.timestamps(), &[10, 11]);
        assert!(!b.clear_if_plain(), "a string key: left to its maker");
        assert_eq!(b.len(), 2);
        b.clear();
        assert!(b.is_empty() && b.iter().next().is_none());
        b.push(1, 0, &mut vec![Value::Int(3)], &mut vec![Value::Null]);
        assert!(b.clear_if_plain() && b.is_empty());
    }

    #[test]
    fn a_failed_fill_leaves_the_batch_as_it_was() {
        let mut b = InputBatch::default();
        let ok: Result<(), ()> = b.push_with(5, 1, |k, r| {
            k.push(Value::Int(7));
            r.extend([Value::Int(1), Value::Null]);
            Ok(())
        });
        assert!(ok.is_ok());
        let failed = b.push_with(6, 2, |k, r| {
            k.push(Value::Int(8));
            r.push(Value::Int(2));
            Err("no")
        });
        assert_eq!(failed, Err("no"));
        assert_eq!(b.len(), 1);
        b.push(9, 3, &mut vec![Value::Int(9)], &mut Vec::new());
        let all: Vec<InputRef<'_>> = b.iter().collect();
        assert_eq!(
            (all[0].ts, all[0].key, all[0].row.len()),
            (5, &[Value::Int(7)][..], 2)
        );
        assert_eq!(
            (all[1].ts, all[1].key, all[1].row),
            (9, &[Value::Int(9)][..], &[][..])
        );
    }
}
