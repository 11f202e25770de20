//! The deduplication that makes a versioned view of an append-only table
//! (`SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY
//! ts DESC) AS rn FROM t) WHERE rn = 1`), as Flink 2.3's
//! `RowTimeDeduplicateFunction` keeps the last row: a row passes when its
//! key has none yet or its rowtime is at or after the kept row's (an
//! equal rowtime replaces), and is then the kept row; an older row is
//! dropped (counted). Every row that passes is a new version of its key.

use hashbrown::HashMap;

use serde::{Deserialize, Serialize};

use crate::time::Timestamp;
use crate::value::{Key, Value};

/// Last-row deduplication on rowtime, per key.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct KeepLast {
    last: HashMap<Key, Timestamp>,
    dropped: u64,
}

impl KeepLast {
    /// No key seen yet.
    pub fn new() -> Self {
        KeepLast::default()
    }

    /// The deduplications of every subtask regrouped into `n`, each view
    /// key's last rowtime in the subtask `route` picks for it (a restore at
    /// another parallelism); the dropped count goes to the first.
    pub fn regroup(
        parts: Vec<KeepLast>,
        n: usize,
        route: impl Fn(&[Value]) -> usize,
    ) -> Vec<KeepLast> {
        let mut out: Vec<KeepLast> = (0..n.max(1)).map(|_| KeepLast::new()).collect();
        let last = out.len() - 1;
        for part in parts {
            out[0].dropped += part.dropped;
            for (key, ts) in part.last {
                out[route(&key).min(last)].last.insert(key, ts);
            }
        }
        out
    }

    /// Whether a row of `key` at `ts` passes (and becomes the kept one).
    pub fn admit(&mut self, key: &[Value], ts: Timestamp) -> bool {
        match self.last.get_mut(key) {
            Some(t) if *t > ts => {
                self.dropped += 1;
                false
            }
            Some(t) => {
                *t = ts;
                true
            }
            None => {
                self.last.insert(key.to_vec(), ts);
                true
            }
        }
    }

    /// Rows dropped because their key had a later one already.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Keys seen.
    pub fn keys(&self) -> usize {
        self.last.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_row_on_rowtime_passes_and_an_older_one_is_dropped() {
        let mut d = KeepLast::new();
        let k = vec![Value::from("EUR")];
        assert!(d.admit(&k, 10));
        assert!(d.admit(&k, 10), "an equal rowtime replaces");
        assert!(d.admit(&k, 20));
        assert!(!d.admit(&k, 15), "older than the kept row");
        assert!(d.admit(&[Value::from("USD")], 5), "another key");
        assert_eq!((d.dropped(), d.keys()), (1, 2));
    }
}
