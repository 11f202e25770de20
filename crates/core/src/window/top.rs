//! Window Top-N over rows and window deduplication: per (window, key), the
//! best `end` rows by an ORDER BY, kept as they arrive and written with
//! their rank when the window fires, as Flink's `WindowRankOperator` and
//! `WindowDeduplicateOperator` run them after a window table function.
//!
//! The aggregate's arguments are the ORDER BY values, then the row's
//! values to write. Rows that compare equal keep the order they arrived
//! in (Flink's `TopNBuffer` appends a tie to its sort key's list), except
//! in a deduplication that keeps the last row (`ORDER BY rowtime DESC`),
//! where a row as late as the kept one replaces it (Flink's
//! `RowTimeDeduplicateFunctionHelper`: `rowtime >= prev`).
//!
//! Only the rows that can still be written are held: `end` rows per
//! (window, key), numbered 1, 2, 3, ... when written (`ROW_NUMBER()`, the
//! one ranking function Flink runs over a window function's rows).

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::value::Value;

/// A Window Top-N over rows (see the module): `Copy`, so that it rides in
/// an [`super::aggregate::AggFunc`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TopRows {
    /// The highest row number written (`WHERE rn <= end`), at least 1.
    pub end: u32,
    /// How many ORDER BY values lead the arguments.
    pub keys: u8,
    /// Bit `i`: ORDER BY value `i` is descending.
    pub desc: u16,
    /// Bit `i`: ORDER BY value `i` puts NULL first.
    pub nulls_first: u16,
    /// How many values of the row follow the ORDER BY values.
    pub width: u16,
    /// A deduplication keeping the last row: a row equal to the kept one
    /// replaces it.
    pub last_on_tie: bool,
}

impl TopRows {
    /// The most ORDER BY values (the bit masks' width).
    pub const MAX_KEYS: usize = 16;

    /// How `a`'s ORDER BY values compare with `b`'s: `Less` ranks first.
    pub fn compare(&self, a: &[Value], b: &[Value]) -> Ordering {
        for i in 0..usize::from(self.keys) {
            let (x, y) = (&a[i], &b[i]);
            let nulls_first = self.nulls_first >> i & 1 == 1;
            let o = match (x.is_null(), y.is_null()) {
                (true, true) => Ordering::Equal,
                (true, false) if nulls_first => Ordering::Less,
                (true, false) => Ordering::Greater,
                (false, true) if nulls_first => Ordering::Greater,
                (false, true) => Ordering::Less,
                _ if self.desc >> i & 1 == 1 => y.cmp(x),
                _ => x.cmp(y),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    /// Adds the arguments `args` (ORDER BY values, then the row) to the
    /// rows `kept` (in rank order), dropping what can no longer be
    /// written.
    pub fn add(&self, kept: &mut Vec<Box<[Value]>>, args: &[Value]) {
        let n = usize::from(self.keys) + usize::from(self.width);
        let Some(args) = args.get(..n) else { return };
        let end = self.end.max(1) as usize;
        // After the rows it ties with (they arrived first), or before them
        // when the last of equal rows wins.
        let at = if self.last_on_tie {
            kept.partition_point(|k| self.compare(k, args) == Ordering::Less)
        } else {
            kept.partition_point(|k| self.compare(k, args) != Ordering::Greater)
        };
        if at >= end {
            return;
        }
        kept.insert(at, args.into());
        kept.truncate(end);
    }

    /// Appends each kept row's number, then its values, to `out`: `width +
    /// 1` values per row, in rank order.
    pub fn finish(&self, kept: &[Box<[Value]>], out: &mut Vec<Value>) {
        let keys = usize::from(self.keys);
        for (i, row) in kept.iter().enumerate() {
            out.push(Value::Int(i as i64 + 1));
            out.extend(row[keys..].iter().cloned());
        }
    }

    /// The values of one written row (its number, then its values).
    pub fn row_width(&self) -> usize {
        usize::from(self.width) + 1
    }
}

/// Bytes the kept rows hold on the heap.
pub fn heap_bytes(kept: &[Box<[Value]>]) -> usize {
    kept.iter()
        .map(|r| {
            r.len() * std::mem::size_of::<Value>() + r.iter().map(Value::heap_bytes).sum::<usize>()
        })
        .sum::<usize>()
        + std::mem::size_of_val(kept)
}

#[cfg(test)]
#[path = "top_tests.rs"]
mod tests;
