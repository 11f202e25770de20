//! The deduplication that makes a versioned view of an append-only table
//! (`SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY
//! ts DESC) AS rn FROM t) WHERE rn = 1`), as Flink 2.3's
//! `RowTimeDeduplicateFunction` keeps the last row: a row passes when its
//! key has none yet or its rowtime is at or after the kept row's (an
//! equal rowtime replaces), and is then the kept row; an older row is
//! dropped (counted). Every row that passes is a new version of its key.
//!
//! And the normalization of an `upsert-kafka` changelog before the join
//! ([`Normalize`]), as Flink 2.3's ChangelogNormalize does it there.

use hashbrown::HashMap;

use serde::{Deserialize, Serialize};

use crate::time::Timestamp;
use crate::value::{Key, Row, Value};

/// What comes before a temporal join's build port, as a node's state
/// keeps it. The variants' order is the encoding of the
/// `Option<KeepLast>` it replaced (`None`, `Some`): checkpoints written
/// before upsert tables restore unchanged.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub enum Versioning {
    /// A table with a primary key: every row is a version.
    #[default]
    Table,
    /// A deduplicated view: the last row on rowtime per view key.
    View(KeepLast),
    /// An upsert changelog, normalized per primary key.
    Upsert(Normalize),
}

/// Flink's ChangelogNormalize between an `upsert-kafka` source and an
/// event-time temporal join (Flink 2.3's planner puts it there when the
/// table's rowtime is metadata; it keeps no UPDATE_BEFORE, as the join
/// needs none): per primary key the last record in arrival order
/// (`DeduplicateFunctionHelper.processLastRowOnChangelog`). An upsert equal
/// to its key's last row (every column, the rowtime too) is dropped; any
/// other is a new version. A tombstone becomes a deletion carrying the
/// last row and its time, so the join overwrites that version with "no
/// version" at that time; a tombstone of a key without a row does nothing.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Normalize {
    last: HashMap<Key, Last>,
    unchanged: u64,
    deleted: u64,
    absent: u64,
}

/// A primary key's last row: its time, join key and build row.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Last {
    ts: Timestamp,
    key: Row,
    row: Row,
}

impl Normalize {
    /// No key seen yet.
    pub fn new() -> Self {
        Normalize::default()
    }

    /// An upsert of primary key `pk` at `ts` (join key `key`, build row
    /// `row`): whether it is a new version (else equal to the last one).
    pub fn upsert(&mut self, pk: &[Value], ts: Timestamp, key: &[Value], row: &[Value]) -> bool {
        match self.last.get_mut(pk) {
            Some(l) if l.ts == ts && l.key == key && l.row == row => {
                self.unchanged += 1;
                false
            }
            Some(l) => {
                l.ts = ts;
                l.key.clear();
                l.key.extend_from_slice(key);
                l.row.clear();
                l.row.extend_from_slice(row);
                true
            }
            None => {
                self.last.insert(
                    pk.to_vec(),
                    Last {
                        ts,
                        key: key.to_vec(),
                        row: row.to_vec(),
                    },
                );
                true
            }
        }
    }

    /// A tombstone of primary key `pk`: the version it deletes (the last
    /// row's time and join key), if the key has one.
    pub fn delete(&mut self, pk: &[Value]) -> Option<(Timestamp, Row)> {
        match self.last.remove(pk) {
            Some(l) => {
                self.deleted += 1;
                Some((l.ts, l.key))
            }
            None => {
                self.absent += 1;
                None
            }
        }
    }

    /// Upserts dropped as equal to their key's last row.
    pub fn unchanged(&self) -> u64 {
        self.unchanged
    }

    /// Tombstones that deleted a version.
    pub fn deleted(&self) -> u64 {
        self.deleted
    }

    /// Tombstones of a key without a row (nothing to delete).
    pub fn absent(&self) -> u64 {
        self.absent
    }

    /// Primary keys with a row.
    pub fn keys(&self) -> usize {
        self.last.len()
    }

    /// The normalizations of every subtask regrouped into `n`, each
    /// primary key's last row in the subtask `route` picks for its join key
    /// (where the join routes the key's records); the counts go to the
    /// first.
    pub fn regroup(
        parts: Vec<Normalize>,
        n: usize,
        route: impl Fn(&[Value]) -> usize,
    ) -> Vec<Normalize> {
        let mut out: Vec<Normalize> = (0..n.max(1)).map(|_| Normalize::new()).collect();
        let last = out.len() - 1;
        for part in parts {
            out[0].unchanged += part.unchanged;
            out[0].deleted += part.deleted;
            out[0].absent += part.absent;
            for (pk, l) in part.last {
                out[route(&l.key).min(last)].last.insert(pk, l);
            }
        }
        out
    }
}

impl Versioning {
    /// The versionings of every subtask of one join regrouped into `n`: a
    /// view's keys where `view_route` sends a view key, an upsert table's
    /// last rows where `route` sends their join key.
    pub fn regroup(
        parts: Vec<Versioning>,
        n: usize,
        route: &dyn Fn(&[Value]) -> usize,
        view_route: &dyn Fn(&[Value]) -> usize,
    ) -> Vec<Versioning> {
        let n = n.max(1);
        match parts.first() {
            Some(Versioning::View(_)) => {
                let views = parts
                    .into_iter()
                    .map(|p| match p {
                        Versioning::View(d) => d,
                        _ => KeepLast::new(),
                    })
                    .collect();
                KeepLast::regroup(views, n, view_route)
                    .into_iter()
                    .map(Versioning::View)
                    .collect()
            }
            Some(Versioning::Upsert(_)) => {
                let ups = parts
                    .into_iter()
                    .map(|p| match p {
                        Versioning::Upsert(d) => d,
                        _ => Normalize::new(),
                    })
                    .collect();
                Normalize::regroup(ups, n, route)
                    .into_iter()
                    .map(Versioning::Upsert)
                    .collect()
            }
            _ => (0..n).map(|_| Versioning::Table).collect(),
        }
    }
}

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

    #[test]
    fn an_upsert_equal_to_the_last_is_dropped_and_a_tombstone_deletes_the_last_version() {
        let mut n = Normalize::new();
        let eur = [Value::from("EUR")];
        let row = |r: i64, t: i64| vec![Value::from("EUR"), Value::Int(r), Value::Timestamp(t)];
        assert!(n.upsert(&eur, 10, &eur, &row(114, 10)));
        assert!(
            !n.upsert(&eur, 10, &eur, &row(114, 10)),
            "the same row again"
        );
        assert!(
            n.upsert(&eur, 10, &eur, &row(115, 10)),
            "another rate, same time"
        );
        assert!(
            n.upsert(&eur, 20, &eur, &row(115, 20)),
            "the same rate, later"
        );
        assert_eq!(
            n.delete(&eur),
            Some((20, eur.to_vec())),
            "the last version's time"
        );
        assert_eq!(n.delete(&eur), None, "nothing left to delete");
        assert!(n.upsert(&eur, 30, &eur, &row(116, 30)), "a key comes back");
        assert_eq!(
            (n.unchanged(), n.deleted(), n.absent(), n.keys()),
            (1, 1, 1, 1)
        );
        let back = Normalize::regroup(vec![n.clone(), Normalize::new()], 2, |k| k.len());
        assert_eq!((back[0].keys(), back[1].keys()), (0, 1));
        assert_eq!((back[0].deleted(), back[0].unchanged()), (1, 1));
    }

    #[test]
    fn a_state_written_before_upsert_tables_reads_back() {
        // Nodes kept `Option<KeepLast>` before `Versioning`.
        let mut view = KeepLast::new();
        view.admit(&[Value::from("EUR")], 10);
        view.admit(&[Value::from("EUR")], 5);
        for (old, table) in [(None, true), (Some(view), false)] {
            let bytes = postcard::to_allocvec(&old).expect("encodes");
            let back: Versioning = postcard::from_bytes(&bytes).expect("decodes");
            match back {
                Versioning::Table => assert!(table),
                Versioning::View(d) => {
                    assert!(!table);
                    assert_eq!((d.dropped(), d.keys()), (1, 1));
                }
                Versioning::Upsert(_) => panic!("not written before"),
            }
        }
    }
}
