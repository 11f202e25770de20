//! The `datagen` connector: rows generated at a rate, stamped with the
//! processing time, on any number of partitions, with lowwater's
//! per-partition behaviours that reproduce the seed incidents live: a
//! partition that never produces (a retired producer), one that produces a
//! single record every N (a heartbeat), one that goes quiet for a while (the
//! overnight partition).
//!
//! Generation is a pure function of the options, the partition and the
//! current time passed in: the runtime asks each partition how many rows are
//! due now and has them generated. Values are pseudo-random from a per-
//! partition seed, so the same schedule yields the same values.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use lowwater_core::{Row, Timestamp, Value};
use lowwater_sql::options::{Datagen, PartitionBehaviour};
use lowwater_sql::plan::{ColumnSource, TableDef};
use lowwater_sql::SqlType;

/// SplitMix64: small, fast and good enough for test data.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[derive(Debug, Clone)]
enum Gen {
    Skip,
    Int { min: i64, max: i64 },
    Seq { start: i64, end: i64 },
    Double { min: f64, max: f64 },
    Bool,
    Str { length: usize },
    SeqStr { start: i64, end: i64 },
    Time { max_past: i64 },
}

fn opt<T: std::str::FromStr>(d: &Datagen, col: &str, key: &str) -> Option<T> {
    d.fields
        .iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(col))
        .and_then(|(_, o)| o.get(key))
        .and_then(|v| v.trim().parse().ok())
}

fn generator(d: &Datagen, name: &str, ty: SqlType) -> Gen {
    let sequence = opt::<String>(d, name, "kind").is_some_and(|k| k == "sequence");
    let start = opt(d, name, "start").unwrap_or(0);
    let end = opt(d, name, "end").unwrap_or(i64::MAX);
    match ty {
        SqlType::Int | SqlType::BigInt if sequence => Gen::Seq { start, end },
        SqlType::String if sequence => Gen::SeqStr { start, end },
        SqlType::Int => Gen::Int {
            min: opt(d, name, "min").unwrap_or(i64::from(i32::MIN)),
            max: opt(d, name, "max").unwrap_or(i64::from(i32::MAX)),
        },
        SqlType::BigInt => Gen::Int {
            min: opt(d, name, "min").unwrap_or(i64::MIN),
            max: opt(d, name, "max").unwrap_or(i64::MAX),
        },
        SqlType::Double => Gen::Double {
            min: opt(d, name, "min").unwrap_or(0.0),
            max: opt(d, name, "max").unwrap_or(1.0),
        },
        SqlType::Boolean => Gen::Bool,
        SqlType::String => Gen::Str {
            length: opt(d, name, "length").unwrap_or(100),
        },
        SqlType::Timestamp | SqlType::TimestampLtz => Gen::Time {
            max_past: opt::<String>(d, name, "max-past")
                .and_then(|v| lowwater_sql::types::parse_duration(&v).ok())
                .unwrap_or(0)
                .max(d.max_out_of_orderness),
        },
    }
}

/// The generator of one table: the shared row budget and the column plans.
#[derive(Debug, Clone)]
pub struct DatagenTable {
    spec: Datagen,
    gens: Vec<(Gen, f64)>,
    remaining: Option<Arc<AtomicU64>>,
    producing: u64,
}

impl DatagenTable {
    /// A generator for `table`, whose connector must be datagen.
    pub fn new(table: &TableDef, spec: &Datagen) -> Self {
        let gens = table
            .columns
            .iter()
            .map(|c| match c.source {
                ColumnSource::Physical => (
                    generator(spec, &c.name, c.ty),
                    opt(spec, &c.name, "null-rate").unwrap_or(0.0),
                ),
                _ => (Gen::Skip, 0.0),
            })
            .collect();
        let producing = (0..spec.partitions)
            .filter(|p| {
                !matches!(
                    spec.behaviours.get(p),
                    Some(PartitionBehaviour::Never | PartitionBehaviour::Every(_))
                )
            })
            .count()
            .max(1) as u64;
        DatagenTable {
            spec: spec.clone(),
            gens,
            remaining: spec.number_of_rows.map(|n| Arc::new(AtomicU64::new(n))),
            producing,
        }
    }

    /// Number of partitions.
    pub fn partitions(&self) -> i32 {
        self.spec.partitions
    }

    /// The generator of partition `p`, starting at `start`.
    pub fn partition(&self, p: i32, start: Timestamp) -> DatagenPartition {
        DatagenPartition {
            table: self.clone(),
            partition: p,
            behaviour: self.spec.behaviours.get(&p).copied(),
            rate: self.spec.rows_per_second / self.producing as f64,
            start,
            produced: 0,
            rng: Rng(0x5EED_0000 + p as u64),
        }
    }

    /// Whether a bounded table has produced all its rows.
    pub fn exhausted(&self) -> bool {
        self.remaining
            .as_ref()
            .is_some_and(|r| r.load(Ordering::Relaxed) == 0)
    }
}

/// The generator of one partition.
#[derive(Debug, Clone)]
pub struct DatagenPartition {
    table: DatagenTable,
    partition: i32,
    behaviour: Option<PartitionBehaviour>,
    rate: f64,
    start: Timestamp,
    produced: u64,
    rng: Rng,
}

impl DatagenPartition {
    /// The partition number.
    pub fn partition(&self) -> i32 {
        self.partition
    }

    /// How many rows on the schedule are due by `now` (at most `max`), taking
    /// them from a bounded table's budget. Rows scheduled during a quiet
    /// period are never produced.
    pub fn due(&mut self, now: Timestamp, max: u64) -> u64 {
        if self.table.exhausted() && !matches!(self.behaviour, Some(PartitionBehaviour::Every(_))) {
            return 0;
        }
        let elapsed = now.saturating_sub(self.start).max(0);
        let sched = |ms: i64| (ms.max(0) as f64 * self.rate / 1_000.0) as u64;
        let scheduled = match self.behaviour {
            Some(PartitionBehaviour::Never) => return 0,
            Some(PartitionBehaviour::Every(every)) => (elapsed / every) as u64 + 1,
            // Rows scheduled in [from, to) are never produced.
            Some(PartitionBehaviour::Quiet { from, to }) if elapsed >= to => {
                sched(elapsed) - (sched(to) - sched(from).min(sched(to)))
            }
            Some(PartitionBehaviour::Quiet { from, .. }) if elapsed >= from => sched(from),
            _ => sched(elapsed),
        };
        let mut n = scheduled.saturating_sub(self.produced).min(max);
        if !matches!(self.behaviour, Some(PartitionBehaviour::Every(_))) {
            if let Some(r) = &self.table.remaining {
                let mut left = r.load(Ordering::Relaxed);
                loop {
                    let take = n.min(left);
                    match r.compare_exchange(
                        left,
                        left - take,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    ) {
                        Ok(_) => {
                            n = take;
                            break;
                        }
                        Err(now_left) => left = now_left,
                    }
                }
            }
        }
        self.produced += n;
        n
    }

    /// Whether a bounded table has produced all its rows: then every
    /// partition, heartbeats included, is done.
    pub fn finished(&self) -> bool {
        self.table.exhausted()
    }

    /// When the next row is due (for sleeping until then); `None` if never.
    pub fn next_due(&self) -> Option<Timestamp> {
        match self.behaviour {
            Some(PartitionBehaviour::Never) => None,
            Some(PartitionBehaviour::Every(every)) => {
                Some(self.start + self.produced as i64 * every)
            }
            _ if self.rate <= 0.0 => None,
            _ => {
                Some(self.start + ((self.produced + 1) as f64 * 1_000.0 / self.rate).ceil() as i64)
            }
        }
    }

    /// Fills the physical columns of `row` for a row produced at `now`.
    pub fn generate(&mut self, now: Timestamp, row: &mut Row) {
        row.clear();
        row.resize(self.table.gens.len(), Value::Null);
        let seq = self.produced as i64 * i64::from(self.table.spec.partitions)
            + i64::from(self.partition);
        for (i, (g, null_rate)) in self.table.gens.iter().enumerate() {
            if *null_rate > 0.0 && self.rng.unit() < *null_rate {
                continue;
            }
            row[i] = match g {
                Gen::Skip => Value::Null,
                Gen::Int { min, max } => {
                    let span = (*max as i128 - *min as i128 + 1) as u128;
                    let off = (self.rng.next() as u128 % span.max(1)) as i128;
                    Value::Int((*min as i128 + off) as i64)
                }
                Gen::Seq { start, end } => {
                    Value::Int(start + seq.rem_euclid((end - start).saturating_add(1).max(1)))
                }
                Gen::SeqStr { start, end } => Value::str(
                    &(start + seq.rem_euclid((end - start).saturating_add(1).max(1))).to_string(),
                ),
                Gen::Double { min, max } => Value::Double(min + (max - min) * self.rng.unit()),
                Gen::Bool => Value::Bool(self.rng.next() & 1 == 1),
                Gen::Str { length } => {
                    const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
                    let s: String = (0..*length)
                        .map(|_| ALNUM[self.rng.below(ALNUM.len() as u64) as usize] as char)
                        .collect();
                    Value::str(&s)
                }
                Gen::Time { max_past } => {
                    Value::Timestamp(now - self.rng.below(*max_past as u64 + 1) as i64)
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lowwater_sql::options::Connector;
    use lowwater_sql::plan::JobPlan;

    fn table(opts: &str) -> (TableDef, Datagen) {
        let sql = format!(
            "CREATE TABLE g (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector'='datagen'{opts});
             CREATE TABLE s (n BIGINT) WITH ('connector'='blackhole');
             INSERT INTO s SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end"
        );
        let t = JobPlan::from_sql(&sql).expect("plans").tables.remove(0);
        let Connector::Datagen(d) = t.connector.clone() else {
            panic!("datagen")
        };
        (t, d)
    }

    #[test]
    fn schedules_follow_the_rate_and_the_behaviours() {
        let (t, d) = table(
            ",'rows-per-second'='100','lowwater.partitions'='4','lowwater.partition.1.never'='true',
             'lowwater.partition.2.every'='10 s','lowwater.partition.3.quiet'='1 s..3 s'",
        );
        let g = DatagenTable::new(&t, &d);
        let mut ps: Vec<DatagenPartition> = (0..4).map(|p| g.partition(p, 0)).collect();
        let at = |ps: &mut Vec<DatagenPartition>, now| {
            ps.iter_mut()
                .map(|p| p.due(now, u64::MAX))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            at(&mut ps, 0),
            [0, 0, 1, 0],
            "the heartbeat fires at the start"
        );
        assert_eq!(
            at(&mut ps, 1_000),
            [50, 0, 0, 50],
            "two producing partitions share 100/s"
        );
        assert_eq!(
            at(&mut ps, 3_000),
            [100, 0, 0, 0],
            "p3 is quiet from 1 s to 3 s"
        );
        assert_eq!(at(&mut ps, 10_000), [350, 0, 1, 350]);
        assert_eq!(ps[1].next_due(), None);
    }

    #[test]
    fn bounded_tables_share_one_budget_and_values_respect_options() {
        let (t, d) = table(",'number-of-rows'='10','lowwater.partitions'='2','fields.k.min'='3','fields.k.max'='4','lowwater.max-out-of-orderness'='2 s'");
        let g = DatagenTable::new(&t, &d);
        let (mut a, mut b) = (g.partition(0, 0), g.partition(1, 0));
        assert_eq!(a.due(60_000, u64::MAX) + b.due(60_000, u64::MAX), 10);
        assert!(g.exhausted());
        let mut row = Vec::new();
        for _ in 0..50 {
            a.generate(100_000, &mut row);
            let k = row[0].as_int().expect("int");
            assert!((3..=4).contains(&k));
            let Value::Timestamp(ts) = row[1] else {
                panic!("time")
            };
            assert!(
                (98_000..=100_000).contains(&ts),
                "lags the clock by at most 2 s"
            );
        }
    }
}
