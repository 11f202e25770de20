//! The window join (`FROM (SELECT * FROM TABLE(TUMBLE(TABLE a, ...))) l
//! JOIN (SELECT * FROM TABLE(TUMBLE(TABLE b, ...))) r ON l.window_start =
//! r.window_start AND l.window_end = r.window_end AND l.k = r.k`), as Flink
//! 2.3's `WindowJoinOperator` (its `WindowJoinHelper`) computes it: INNER,
//! LEFT, RIGHT, FULL, and the semi and anti joins of `IN` / `EXISTS` and
//! `NOT IN` / `NOT EXISTS`.
//!
//! A row comes in once per window it is in (the window table function in
//! front of the join expands it; the driver does), with that window's
//! `window_time` (its end less 1 ms). As Flink does:
//! - the row is kept in its window's list of its side and key, in arrival
//!   order (duplicates kept), unless the watermark has reached the
//!   window's time: then it is dropped and counted per side
//!   ([`WindowJoin::late`]; Flink's `leftNumLateRecordsDropped` and
//!   `rightNumLateRecordsDropped`), not padded, whatever the join type;
//! - when the combined watermark of both inputs reaches a window's time,
//!   each key's two lists are joined, in Flink's loops: for each left row
//!   in arrival order, the right rows that match in arrival order, then
//!   the left row padded at once if none did (LEFT, FULL); FULL then pads
//!   the right rows that matched no left row; RIGHT is the mirror of LEFT;
//!   SEMI emits a left row that has a match, ANTI one that has none. Then
//!   the window's state is gone;
//! - a key with a NULL never matches (SQL `=`), but its rows are kept and
//!   an outer side's come out padded (ANTI emits them);
//! - windows fire in the order of their ends, keys within a window in the
//!   order they first came (Flink leaves that order to its timer heap;
//!   lowwater fixes one so a replay is repeatable);
//! - the watermark is forwarded as it came: a window's rows are out
//!   before the watermark that fired them.

use std::collections::BTreeMap;

use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

use crate::time::{Timestamp, MIN_WATERMARK};
use crate::value::{Key, Row, Value};

use super::interval::{JoinKind, Paired, LEFT};

/// One window's rows: per key (in the order keys first came) the left
/// side's rows and the right side's, each in arrival order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct WindowRows {
    index: HashMap<Key, usize>,
    keys: Vec<(Key, [Vec<Row>; 2])>,
}

/// The window join operator.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WindowJoin {
    kind: JoinKind,
    watermark: Timestamp,
    /// Open windows by their time (`window_end - 1`), fired in that order.
    windows: BTreeMap<Timestamp, WindowRows>,
    cached: u64,
    records_in: u64,
    late: [u64; 2],
}

impl WindowJoin {
    /// An empty join of type `kind` (its watermark MIN).
    pub fn new(kind: JoinKind) -> Self {
        WindowJoin {
            kind,
            watermark: MIN_WATERMARK,
            windows: BTreeMap::new(),
            cached: 0,
            records_in: 0,
            late: [0, 0],
        }
    }

    /// The joins of every subtask regrouped into `n`, each key's rows of
    /// each open window in the subtask `route` picks for it (a restore at
    /// another parallelism). The watermark is the lowest of the parts'; the
    /// counters, totals of the job, go to the first.
    pub fn regroup(
        parts: Vec<WindowJoin>,
        n: usize,
        route: impl Fn(&[Value]) -> usize,
    ) -> Vec<WindowJoin> {
        let Some(kind) = parts.first().map(|p| p.kind) else {
            return Vec::new();
        };
        let watermark = parts
            .iter()
            .map(|p| p.watermark)
            .min()
            .unwrap_or(MIN_WATERMARK);
        let mut out: Vec<WindowJoin> = (0..n.max(1))
            .map(|_| WindowJoin {
                watermark,
                ..WindowJoin::new(kind)
            })
            .collect();
        let last = out.len() - 1;
        for part in parts {
            out[0].records_in += part.records_in;
            out[0].late[0] += part.late[0];
            out[0].late[1] += part.late[1];
            for (time, rows) in part.windows {
                for (key, sides) in rows.keys {
                    let to = &mut out[route(&key).min(last)];
                    to.cached += (sides[0].len() + sides[1].len()) as u64;
                    let w = to.windows.entry(time).or_default();
                    w.index.insert(key.clone(), w.keys.len());
                    w.keys.push((key, sides));
                }
            }
        }
        out
    }

    /// A row of side `port` in the window whose time (`window_end - 1`) is
    /// `window_time`, with join key `key`. Returns whether it is late (the
    /// watermark reached its window's time): dropped and counted.
    pub fn row(&mut self, port: usize, window_time: Timestamp, key: &[Value], row: Row) -> bool {
        self.records_in += 1;
        let side = usize::from(port != LEFT);
        if window_time <= self.watermark {
            self.late[side] += 1;
            return true;
        }
        let w = self.windows.entry(window_time).or_default();
        let at = match w.index.get(key) {
            Some(&i) => i,
            None => {
                w.keys.push((key.to_vec(), [Vec::new(), Vec::new()]));
                w.index.insert(key.to_vec(), w.keys.len() - 1);
                w.keys.len() - 1
            }
        };
        w.keys[at].1[side].push(row);
        self.cached += 1;
        false
    }

    /// The combined watermark advances to `wm`: the windows whose time it
    /// reached are joined (`matches`: the ON condition beyond the key and
    /// the window bounds, over a left and a right row) and forgotten.
    /// Returns the watermark to forward, `wm` itself. A failing condition
    /// stops the firing there (the window's rows are gone).
    pub fn advance<E>(
        &mut self,
        wm: Timestamp,
        matches: &mut dyn FnMut(&Row, &Row) -> Result<bool, E>,
        out: &mut Vec<Paired>,
    ) -> Result<Timestamp, E> {
        self.watermark = self.watermark.max(wm);
        while let Some(entry) = self.windows.first_entry() {
            if *entry.key() > self.watermark {
                break;
            }
            let rows = entry.remove();
            for (key, [left, right]) in rows.keys {
                self.cached -= (left.len() + right.len()) as u64;
                let null_key = key.iter().any(Value::is_null);
                join(self.kind, null_key, left, right, matches, out)?;
            }
        }
        Ok(wm)
    }

    /// The combined watermark it last saw.
    pub fn watermark(&self) -> Timestamp {
        self.watermark
    }

    /// Rows kept in open windows, both sides.
    pub fn cached(&self) -> u64 {
        self.cached
    }

    /// Rows that came to it, once per window.
    pub fn records_in(&self) -> u64 {
        self.records_in
    }

    /// Rows of side `port` dropped because the watermark had reached their
    /// window's time.
    pub fn late(&self, port: usize) -> u64 {
        self.late.get(port).copied().unwrap_or(0)
    }

    /// An estimate of the bytes its state takes.
    pub fn state_bytes(&self) -> usize {
        use std::mem::size_of;
        let row =
            |r: &Row| r.len() * size_of::<Value>() + r.iter().map(Value::heap_bytes).sum::<usize>();
        self.windows
            .values()
            .flat_map(|w| w.keys.iter())
            .map(|(k, sides)| {
                2 * row(k)
                    + size_of::<(Key, [Vec<Row>; 2])>()
                    + sides
                        .iter()
                        .map(|s| s.capacity() * size_of::<Row>() + s.iter().map(row).sum::<usize>())
                        .sum::<usize>()
            })
            .sum()
    }
}

/// One key's rows of one window, joined in Flink's loops (see the module).
fn join<E>(
    kind: JoinKind,
    null_key: bool,
    left: Vec<Row>,
    right: Vec<Row>,
    matches: &mut dyn FnMut(&Row, &Row) -> Result<bool, E>,
    out: &mut Vec<Paired>,
) -> Result<(), E> {
    let mut test = |l: &Row, r: &Row| match null_key {
        true => Ok(false),
        false => matches(l, r),
    };
    match kind {
        JoinKind::Inner => {
            for l in &left {
                for r in &right {
                    if test(l, r)? {
                        out.push(both(l, r));
                    }
                }
            }
        }
        JoinKind::Left | JoinKind::Full => {
            let mut right_matched = vec![false; right.len()];
            for l in left {
                let mut any = false;
                for (i, r) in right.iter().enumerate() {
                    if test(&l, r)? {
                        any = true;
                        right_matched[i] = true;
                        out.push(both(&l, r));
                    }
                }
                if !any {
                    out.push(Paired {
                        left: Some(l),
                        right: None,
                    });
                }
            }
            if kind == JoinKind::Full {
                for (r, matched) in right.into_iter().zip(right_matched) {
                    if !matched {
                        out.push(Paired {
                            left: None,
                            right: Some(r),
                        });
                    }
                }
            }
        }
        JoinKind::Right => {
            for r in right {
                let mut any = false;
                for l in &left {
                    if test(l, &r)? {
                        any = true;
                        out.push(both(l, &r));
                    }
                }
                if !any {
                    out.push(Paired {
                        left: None,
                        right: Some(r),
                    });
                }
            }
        }
        JoinKind::Semi | JoinKind::Anti => {
            for l in left {
                let mut any = false;
                for r in &right {
                    if test(&l, r)? {
                        any = true;
                        break;
                    }
                }
                if any == (kind == JoinKind::Semi) {
                    out.push(Paired {
                        left: Some(l),
                        right: None,
                    });
                }
            }
        }
    }
    Ok(())
}

fn both(l: &Row, r: &Row) -> Paired {
    Paired {
        left: Some(l.clone()),
        right: Some(r.clone()),
    }
}

#[cfg(test)]
#[path = "window_join_tests.rs"]
mod tests;
