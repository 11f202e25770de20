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
//! Only the rows that can still be written are held: a ROW_NUMBER keeps
//! `end` rows, a RANK the rows whose rank is at most `end` (ties may make
//! them more), a DENSE_RANK the rows of the first `end` distinct ORDER BY
//! values.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::value::Value;

/// Which number a kept row gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RankKind {
    /// `ROW_NUMBER()`: 1, 2, 3, ... whatever the ties.
    RowNumber,
    /// `RANK()`: ties share a number, the next one skips (1, 1, 3).
    Rank,
    /// `DENSE_RANK()`: ties share a number, without gaps (1, 1, 2).
    DenseRank,
}

/// A Window Top-N over rows (see the module): `Copy`, so that it rides in
/// an [`super::aggregate::AggFunc`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TopRows {
    /// The ranking function.
    pub kind: RankKind,
    /// The highest rank written (`WHERE rn <= end`), at least 1.
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
        if at >= end && self.kind == RankKind::RowNumber {
            return;
        }
        if at >= end && self.kind == RankKind::Rank {
            // Written only if it ties with the last row that is.
            let tied = kept
                .get(end - 1)
                .is_some_and(|k| self.compare(k, args) == Ordering::Equal);
            if !tied {
                return;
            }
        }
        kept.insert(at, args.into());
        self.trim(kept);
    }

    /// Drops the rows past the last rank written.
    fn trim(&self, kept: &mut Vec<Box<[Value]>>) {
        let end = self.end.max(1) as usize;
        let keep = match self.kind {
            RankKind::RowNumber => end,
            RankKind::Rank => {
                // Rows ranked at most `end`: up to the end of the tie
                // group of row `end`.
                let Some(last) = kept.get(end - 1) else {
                    return;
                };
                end + kept[end..]
                    .iter()
                    .take_while(|k| self.compare(k, last) == Ordering::Equal)
                    .count()
            }
            RankKind::DenseRank => {
                let mut groups = 0;
                let mut keep = kept.len();
                for i in 0..kept.len() {
                    if i == 0 || self.compare(&kept[i - 1], &kept[i]) != Ordering::Equal {
                        groups += 1;
                        if groups > end {
                            keep = i;
                            break;
                        }
                    }
                }
                keep
            }
        };
        kept.truncate(keep);
    }

    /// Appends each kept row's rank, then its values, to `out`: `width +
    /// 1` values per row, in rank order.
    pub fn finish(&self, kept: &[Box<[Value]>], out: &mut Vec<Value>) {
        let keys = usize::from(self.keys);
        let (mut rank, mut dense) = (0i64, 0i64);
        for (i, row) in kept.iter().enumerate() {
            let tie = i > 0 && self.compare(&kept[i - 1], row) == Ordering::Equal;
            if !tie {
                rank = i as i64 + 1;
                dense += 1;
            }
            out.push(Value::Int(match self.kind {
                RankKind::RowNumber => i as i64 + 1,
                RankKind::Rank => rank,
                RankKind::DenseRank => dense,
            }));
            out.extend(row[keys..].iter().cloned());
        }
    }

    /// The values of one written row (its rank, then its values).
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
