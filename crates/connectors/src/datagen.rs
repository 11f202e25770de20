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

use strength_reduce::StrengthReducedU64;

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
    /// `min` plus a random number below the span (`None`: 2^64, every
    /// number), whose remainder is taken by multiplications (the same
    /// value as `%`, without a division per row).
    Int {
        min: i64,
        span: Option<StrengthReducedU64>,
    },
    Seq {
        start: i64,
        end: i64,
    },
    Double {
        min: f64,
        max: f64,
    },
    Bool,
    Str {
        length: usize,
    },
    SeqStr {
        start: i64,
        end: i64,
    },
    /// The clock less a random number below `past` (`None`: 0, no number
    /// drawn).
    Time {
        past: Option<StrengthReducedU64>,
    },
    /// The clock's day, as Flink's datagen gives a DATE (`LocalDate.now()`).
    Today,
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
        t if t.is_integer() && sequence => Gen::Seq { start, end },
        SqlType::String if sequence => Gen::SeqStr { start, end },
        SqlType::TinyInt | SqlType::SmallInt | SqlType::Int => {
            let bits = ty.int_bits().unwrap_or(32);
            int_gen(
                opt(d, name, "min").unwrap_or(-(1i64 << (bits - 1))),
                opt(d, name, "max").unwrap_or((1i64 << (bits - 1)) - 1),
            )
        }
        SqlType::BigInt => int_gen(
            opt(d, name, "min").unwrap_or(i64::MIN),
            opt(d, name, "max").unwrap_or(i64::MAX),
        ),
        SqlType::Float | SqlType::Double | SqlType::Decimal(..) => Gen::Double {
            min: opt(d, name, "min").unwrap_or(0.0),
            max: opt(d, name, "max").unwrap_or(1.0),
        },
        SqlType::Boolean => Gen::Bool,
        SqlType::Date => Gen::Today,
        SqlType::String => Gen::Str {
            length: opt(d, name, "length").unwrap_or(100),
        },
        SqlType::Timestamp | SqlType::TimestampLtz => {
            let max_past = opt::<String>(d, name, "max-past")
                .and_then(|v| lowwater_sql::types::parse_duration(&v).ok())
                .unwrap_or(0)
                .max(d.max_out_of_orderness);
            Gen::Time {
                past: Some((max_past as u64).wrapping_add(1))
                    .filter(|n| *n > 0)
                    .map(StrengthReducedU64::new),
            }
        }
    }
}

/// Integers in `min..=max` (just `min` if the range is empty).
fn int_gen(min: i64, max: i64) -> Gen {
    let span = (max as i128 - min as i128 + 1).max(1) as u128;
    Gen::Int {
        min,
        span: u64::try_from(span).ok().map(StrengthReducedU64::new),
    }
}

/// The generator of one table: the shared row budget and the column plans.
#[derive(Debug, Clone)]
pub struct DatagenTable {
    spec: Datagen,
    gens: Vec<(Gen, f64)>,
    /// The columns' types (a DECIMAL's random number is rounded to it).
    types: Vec<SqlType>,
    remaining: Option<Arc<AtomicU64>>,
    producing: u64,
    /// Rows a partition can produce before a `sequence` field passes its end
    /// (Flink ends the source there).
    sequence_rows: Option<i128>,
}

impl DatagenTable {
    /// A generator for `table`, whose connector must be datagen.
    pub fn new(table: &TableDef, spec: &Datagen) -> Self {
        let gens: Vec<(Gen, f64)> = table
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
        let sequence_rows = gens
            .iter()
            .filter_map(|(g, _)| match g {
                Gen::Seq { start, end } | Gen::SeqStr { start, end } => {
                    Some(i128::from(*end) - i128::from(*start) + 1)
                }
                _ => None,
            })
            .min();
        DatagenTable {
            spec: spec.clone(),
            gens,
            types: table.columns.iter().map(|c| c.ty).collect(),
            remaining: spec.number_of_rows.map(|n| Arc::new(AtomicU64::new(n))),
            producing,
            sequence_rows,
        }
    }

    /// Number of partitions.
    pub fn partitions(&self) -> i32 {
        self.spec.partitions
    }

    /// Whether the table ends by itself (`number-of-rows` or a `sequence` field).
    pub fn bounded(&self) -> bool {
        self.remaining.is_some() || self.sequence_rows.is_some()
    }

    /// The generator of partition `p`, starting at `start`.
    pub fn partition(&self, p: i32, start: Timestamp) -> DatagenPartition {
        let parts = i128::from(self.spec.partitions.max(1));
        // Sequence values start + k * partitions + p, for k = 0, 1, ...
        let seq_limit = self.sequence_rows.map(|n| {
            let n = n - i128::from(p);
            if n <= 0 {
                0
            } else {
                ((n + parts - 1) / parts) as u64
            }
        });
        DatagenPartition {
            table: self.clone(),
            partition: p,
            behaviour: self.spec.behaviours.get(&p).copied(),
            rate: self.spec.rows_per_second / self.producing as f64,
            // Partitions are offset within one period so that rows do not
            // come in bursts of one per partition.
            phase: f64::from(p) / f64::from(self.spec.partitions.max(1)),
            start,
            produced: 0,
            credit: 0,
            seq_limit,
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
    phase: f64,
    start: Timestamp,
    produced: u64,
    /// Rows taken from the schedule (and a bounded table's budget) by
    /// [`DatagenPartition::reserve`] but not generated yet: a few at a time,
    /// so that the shared budget is not touched on every row.
    credit: u64,
    seq_limit: Option<u64>,
    rng: Rng,
}

/// How many due rows [`DatagenPartition::reserve`] takes from the schedule at once.
const AHEAD: u64 = 64;

impl DatagenPartition {
    /// The partition number.
    pub fn partition(&self) -> i32 {
        self.partition
    }

    /// Rows the rate schedules in the first `ms` milliseconds.
    fn sched(&self, ms: i64) -> u64 {
        (ms.max(0) as f64 * self.rate / 1_000.0 + self.phase) as u64
    }

    /// Rows scheduled but never produced because they fell in a quiet period.
    fn skipped(&self, elapsed: i64) -> u64 {
        match self.behaviour {
            Some(PartitionBehaviour::Quiet { from, to }) if elapsed >= to => {
                self.sched(to) - self.sched(from).min(self.sched(to))
            }
            _ => 0,
        }
    }

    /// How many rows are due by `now` (at most `max`), taking them from a
    /// bounded table's budget. Rows scheduled during a quiet period are never
    /// produced. (Private: callers take rows through
    /// [`DatagenPartition::reserve`], whose rows taken ahead it would not see.)
    fn due(&mut self, now: Timestamp, max: u64) -> u64 {
        if self.finished() {
            return 0;
        }
        let elapsed = now.saturating_sub(self.start).max(0);
        let allowed = match self.behaviour {
            Some(PartitionBehaviour::Never) => return 0,
            Some(PartitionBehaviour::Every(every)) => (elapsed / every) as u64 + 1,
            Some(PartitionBehaviour::Quiet { from, to }) if (from..to).contains(&elapsed) => {
                self.sched(from)
            }
            _ => self.sched(elapsed) - self.skipped(elapsed),
        };
        let mut n = allowed.saturating_sub(self.produced).min(max);
        if let Some(limit) = self.seq_limit {
            n = n.min(limit.saturating_sub(self.produced));
        }
        if let Some(r) = &self.table.remaining {
            let mut left = r.load(Ordering::Relaxed);
            loop {
                let take = n.min(left);
                match r.compare_exchange(left, left - take, Ordering::Relaxed, Ordering::Relaxed) {
                    Ok(_) => {
                        n = take;
                        break;
                    }
                    Err(now_left) => left = now_left,
                }
            }
        }
        self.produced += n;
        n
    }

    /// Whether this partition will produce nothing more: a bounded table's
    /// budget is spent (heartbeats included), or its sequence is exhausted.
    pub fn finished(&self) -> bool {
        self.credit == 0
            && (self.table.exhausted() || self.seq_limit.is_some_and(|l| self.produced >= l))
    }

    /// How many rows due by `now` may be made next, one after another, by
    /// [`DatagenPartition::generate_next`] (at most `max`; 0: none is due):
    /// the schedule and the partition's end are asked once per run of
    /// rows, not per row. Due rows are taken from the schedule up to 64
    /// (`AHEAD`) at a time; the ones taken but not yet generated are never
    /// lost: the partition is not [`finished`](DatagenPartition::finished)
    /// while it holds any.
    pub fn reserve(&mut self, now: Timestamp, max: u64) -> u64 {
        if self.credit == 0 {
            self.credit = self.due(now, AHEAD);
        }
        self.credit.min(max)
    }

    /// Counts and generates one of the rows [`DatagenPartition::reserve`]
    /// said may be made.
    #[inline]
    pub fn generate_next(&mut self, now: Timestamp, row: &mut Row) {
        debug_assert!(self.credit > 0, "generate_next without a reserved row");
        self.credit = self.credit.saturating_sub(1);
        self.generate(now, row);
    }

    /// When the next row is due (for sleeping until then); `None` if never.
    pub fn next_due(&self) -> Option<Timestamp> {
        if self.credit > 0 {
            return Some(self.start);
        }
        if self.finished() {
            return None;
        }
        let at = |rows: u64| -> i64 {
            // The first elapsed time at which sched() reaches `rows`.
            ((rows as f64 - self.phase).max(0.0) * 1_000.0 / self.rate).ceil() as i64
        };
        let next = match self.behaviour {
            Some(PartitionBehaviour::Never) => return None,
            Some(PartitionBehaviour::Every(every)) => self.produced as i64 * every,
            _ if self.rate <= 0.0 => return None,
            Some(PartitionBehaviour::Quiet { from, to }) => {
                let plain = at(self.produced + 1);
                if plain < from {
                    plain
                } else {
                    at(self.produced + 1 + (self.sched(to) - self.sched(from).min(self.sched(to))))
                        .max(to)
                }
            }
            _ => at(self.produced + 1),
        };
        Some(self.start.saturating_add(next))
    }

    /// Fills the physical columns of `row` for the row just counted by
    /// [`DatagenPartition::generate_next`], produced at `now`. (A row of the right
    /// length is overwritten in place.)
    fn generate(&mut self, now: Timestamp, row: &mut Row) {
        let n = self.table.gens.len();
        // Checked first: `resize` is not inlined, and a call per row costs
        // more than the comparison (measured: 5% of a datagen job's CPU).
        if row.len() != n {
            row.resize(n, Value::Null);
        }
        // The row's number in a `sequence` field's values (only such a
        // field reads it: a 128-bit product per row otherwise costs a
        // fifth of generating the row).
        let (k, parts, p) = (
            self.produced - self.credit,
            self.table.spec.partitions,
            self.partition,
        );
        let seq = || i128::from(k.saturating_sub(1) as i64) * i128::from(parts) + i128::from(p);
        for (i, (g, null_rate)) in self.table.gens.iter().enumerate() {
            if *null_rate > 0.0 && self.rng.unit() < *null_rate {
                row[i] = Value::Null;
                continue;
            }
            row[i] = match g {
                Gen::Skip => Value::Null,
                Gen::Int { min, span } => {
                    let r = self.rng.next();
                    let off = span.map_or(i128::from(r), |s| i128::from(r % s));
                    row[i].set_int((*min as i128 + off) as i64);
                    continue;
                }
                Gen::Seq { start, .. } => {
                    row[i].set_int((i128::from(*start) + seq()) as i64);
                    continue;
                }
                Gen::SeqStr { start, .. } => Value::str(&(i128::from(*start) + seq()).to_string()),
                Gen::Double { min, max } => Value::Double(min + (max - min) * self.rng.unit()),
                Gen::Bool => Value::Bool(self.rng.next() & 1 == 1),
                Gen::Str { length } => {
                    const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
                    let s: String = (0..*length)
                        .map(|_| ALNUM[self.rng.below(ALNUM.len() as u64) as usize] as char)
                        .collect();
                    Value::str(&s)
                }
                Gen::Time { past } => {
                    let back = past.map_or(0, |p| self.rng.next() % p);
                    row[i].set_timestamp(now - back as i64);
                    continue;
                }
                Gen::Today => Value::Int(now.div_euclid(86_400_000)),
            };
            // A DECIMAL column gets its random number in its type.
            if let Some(SqlType::Decimal(p, s)) = self.table.types.get(i) {
                row[i] = row[i].coerce_decimal(*p, *s);
            }
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
    fn decimal_columns_get_decimals_of_their_scale() {
        let sql = "CREATE TABLE g (price DECIMAL(6, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
               WITH ('connector'='datagen', 'fields.price.min'='-5', 'fields.price.max'='5');
             CREATE TABLE s (n DECIMAL(38, 2)) WITH ('connector'='blackhole');
             INSERT INTO s SELECT SUM(price) FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end";
        let t = JobPlan::from_sql(sql).expect("plans").tables.remove(0);
        let Connector::Datagen(d) = t.connector.clone() else {
            panic!("datagen")
        };
        let g = DatagenTable::new(&t, &d);
        let mut part = g.partition(0, 0);
        let mut row = Vec::new();
        for _ in 0..20 {
            part.generate(1_000, &mut row);
            let (u, s) = row[0].as_decimal().expect("a decimal");
            assert!(s == 2 && (-500..=500).contains(&u), "{:?}", row[0]);
        }
    }

    #[test]
    fn sequences_start_at_start_and_end_the_partition() {
        let (t, d) = table(",'fields.k.kind'='sequence','fields.k.start'='1','fields.k.end'='5','lowwater.partitions'='2','rows-per-second'='1000'");
        let g = DatagenTable::new(&t, &d);
        assert!(g.bounded());
        let mut row = Vec::new();
        let mut seen = Vec::new();
        for p in 0..2 {
            let mut part = g.partition(p, 0);
            while part.due(1_000_000, 1) == 1 {
                part.generate(1_000_000, &mut row);
                seen.push(row[0].as_int().expect("int"));
            }
            assert!(part.finished() && part.next_due().is_none());
        }
        seen.sort_unstable();
        assert_eq!(
            seen,
            [1, 2, 3, 4, 5],
            "each value once, like Flink's sequence"
        );
    }

    #[test]
    fn rows_taken_ahead_are_all_generated_once() {
        // 200 sequence values on 3 partitions, and a shared budget of 150
        // rows: taken 64 at a time, interleaved. Every row taken is made,
        // none twice, and a partition holding taken rows is not finished.
        let (t, d) = table(",'fields.k.kind'='sequence','fields.k.start'='0','fields.k.end'='199','lowwater.partitions'='3','number-of-rows'='150'");
        let g = DatagenTable::new(&t, &d);
        let mut parts: Vec<_> = (0..3).map(|p| g.partition(p, 0)).collect();
        let mut row = Vec::new();
        let mut seen = Vec::new();
        let mut turn = 0;
        while parts.iter().any(|p| !p.finished()) {
            let p = &mut parts[turn % 3];
            turn += 1;
            // A few rows per turn, so that partitions hold rows taken ahead
            // while the budget runs out under them.
            for _ in 0..5 {
                if p.reserve(1_000_000, 1) > 0 {
                    p.generate_next(1_000_000, &mut row);
                    seen.push(row[0].as_int().expect("int"));
                }
            }
            assert!(turn < 1_000, "ends");
        }
        assert_eq!(seen.len(), 150, "the budget, exactly");
        assert!(parts.iter().all(|p| p.next_due().is_none()));
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 150, "no value twice");
        for p in 0..3 {
            // Each partition's values are its own sequence, without gaps.
            let mine: Vec<i64> = seen.iter().copied().filter(|v| v % 3 == p).collect();
            assert!(mine.iter().enumerate().all(|(k, v)| *v == k as i64 * 3 + p));
        }
    }

    #[test]
    fn values_are_the_plain_remainders_of_the_random_numbers() {
        // The remainders are taken without a division: the values must be
        // those of `%`, as before, for a given seed.
        let (t, d) = table(
            ",'fields.k.min'='-7','fields.k.max'='1000003','lowwater.max-out-of-orderness'='3 s'",
        );
        let g = DatagenTable::new(&t, &d);
        let mut part = g.partition(2, 0);
        let mut rng = Rng(0x5EED_0000 + 2);
        let mut row = Vec::new();
        for i in 0..10_000 {
            part.generate(50_000 + i, &mut row);
            let k = -7 + (rng.next() % 1_000_011) as i64;
            let ts = 50_000 + i - (rng.next() % 3_001) as i64;
            assert_eq!(row, [Value::Int(k), Value::Timestamp(ts)]);
        }
    }

    #[test]
    fn partitions_are_phased_not_bursty() {
        let (t, d) = table(",'rows-per-second'='4','lowwater.partitions'='4'");
        let g = DatagenTable::new(&t, &d);
        let firsts: Vec<i64> = (0..4)
            .map(|p| g.partition(p, 0).next_due().unwrap_or(-1))
            .collect();
        assert_eq!(firsts, [1_000, 750, 500, 250]);
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
