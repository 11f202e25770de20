//! Incremental aggregates of a window: one small accumulator per aggregate,
//! per key, per window, updated as records arrive and read when the window
//! fires. Results follow Flink SQL:
//! - `COUNT(*)` counts rows, `COUNT(col)` non-NULL values; both are BIGINT.
//! - `SUM` is NULL until a non-NULL value arrives; integers sum in 64 bits and
//!   wrap on overflow as Java's `long` does; doubles sum as doubles.
//! - `AVG` of integers is an integer (the sum divided by the count, truncated
//!   toward zero, as Flink's `AVG(INT)`/`AVG(BIGINT)` return the input type);
//!   `AVG` of doubles is a double; NULL when no value arrived.
//! - `MIN`/`MAX` compare values with [`Value`]'s order; NULL when empty.
//! - `COUNT(DISTINCT col)` counts distinct non-NULL values.
//! - `FIRST_VALUE`/`LAST_VALUE` keep the first/last non-NULL value in arrival
//!   order; `LISTAGG` joins the non-NULL values in arrival order.
//! - `DISTINCT` passes each value's first occurrence only, as Flink's
//!   distinct aggregation does (a map of the values seen; only a value new to
//!   it reaches the aggregate): `LISTAGG(DISTINCT)` joins the distinct values
//!   in the order they first arrived, `LAST_VALUE(DISTINCT)` is the last
//!   value to arrive for the first time, and MIN, MAX and `FIRST_VALUE` are
//!   the same with or without it.
//!
//! Accumulators merge (for session windows) with the same results as if every
//! record had gone into one accumulator, up to the rounding of floating-point
//! numbers, which follows Flink's merges.
//!
//! HOP and CUMULATE windows share slices in Flink (a slice is `gcd(size,
//! slide)` of a HOP, a `step` of a CUMULATE): each slice accumulates its
//! records in arrival order, and a window is its slices merged, a HOP's from
//! the last slice back to the first into a fresh accumulator, a CUMULATE's
//! forward from the first. Where the result depends on it (floating-point
//! SUM and AVG, VAR and STDDEV, LISTAGG's order), a HOP or CUMULATE window
//! keeps an accumulator per slice ([`Accumulator::Sliced`]) and merges them
//! as Flink does when it fires. (Flink may also split a slice's records into
//! bundles, partial sums merged into the slice, when its watermark passes a
//! slice's end while later records wait: that depends on processing time,
//! and is not followed here; see docs/sql.md, known differences.)

use std::collections::HashSet;
use std::sync::Arc;

use indexmap::IndexSet;

use crate::value::Value;
use crate::window::top::TopRows;
use serde::{Deserialize, Serialize};

/// An aggregate function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AggFunc {
    /// `COUNT(*)`.
    CountStar,
    /// `COUNT(col)`.
    Count,
    /// `COUNT(DISTINCT col)`.
    CountDistinct,
    /// `SUM(col)`.
    Sum,
    /// `MIN(col)`.
    Min,
    /// `MAX(col)`.
    Max,
    /// `AVG(col)`.
    Avg,
    /// `SUM(DISTINCT col)`.
    SumDistinct,
    /// `AVG(DISTINCT col)`.
    AvgDistinct,
    /// `FIRST_VALUE(col)`: the first non-NULL value.
    FirstValue,
    /// `LAST_VALUE(col)`: the last non-NULL value.
    LastValue,
    /// `LISTAGG(col [, sep])`: the non-NULL values joined, in arrival
    /// order; the separator (',' by default) is read from the row position
    /// after the argument's.
    ListAgg,
    /// `VAR_POP(col)`.
    VarPop,
    /// `VAR_SAMP(col)` (and `VARIANCE`).
    VarSamp,
    /// `STDDEV_POP(col)`.
    StddevPop,
    /// `STDDEV_SAMP(col)` (and `STDDEV`).
    StddevSamp,
    /// `LISTAGG(DISTINCT col [, sep])`: each distinct non-NULL value once,
    /// in the order of its first arrival.
    ListAggDistinct,
    /// `LAST_VALUE(DISTINCT col)`: the last value that arrived for the first
    /// time (a repeat of an earlier value does not reach the aggregate).
    LastValueDistinct,
    /// `VAR_POP(DISTINCT col)`.
    VarPopDistinct,
    /// `VAR_SAMP(DISTINCT col)`.
    VarSampDistinct,
    /// `STDDEV_POP(DISTINCT col)`.
    StddevPopDistinct,
    /// `STDDEV_SAMP(DISTINCT col)`.
    StddevSampDistinct,
    /// Window Top-N over rows and window deduplication: the best rows by
    /// an ORDER BY, each written with its rank ([`crate::window::top`]).
    /// Its arguments start at the aggregate's column: the ORDER BY values,
    /// then the row's.
    TopRows(TopRows),
}

impl AggFunc {
    /// The function a DISTINCT one feeds each distinct value to, in the
    /// order the values first arrived (`None` for others).
    pub fn undistinct(self) -> Option<AggFunc> {
        Some(match self {
            AggFunc::SumDistinct => AggFunc::Sum,
            AggFunc::AvgDistinct => AggFunc::Avg,
            AggFunc::VarPopDistinct => AggFunc::VarPop,
            AggFunc::VarSampDistinct => AggFunc::VarSamp,
            AggFunc::StddevPopDistinct => AggFunc::StddevPop,
            AggFunc::StddevSampDistinct => AggFunc::StddevSamp,
            _ => return None,
        })
    }
}

/// An aggregate call: a function and the row position of its argument
/// (`None` for `COUNT(*)`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AggSpec {
    /// The function.
    pub func: AggFunc,
    /// Row position of the argument; ignored by `COUNT(*)`.
    pub column: Option<usize>,
    /// The result's narrow type, when the aggregate keeps its argument's
    /// (Flink's `SUM` of TINYINT, SMALLINT, INT or FLOAT).
    pub narrow: Narrow,
}

/// Written as before `narrow` replaced the `int32` flag, so that a job's
/// identity (which includes its aggregates' debug text) is unchanged for the
/// aggregates that existed then, and an upgrade restores their state.
impl std::fmt::Debug for AggSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("AggSpec");
        d.field("func", &self.func).field("column", &self.column);
        match self.narrow {
            Narrow::None => d.field("int32", &false),
            Narrow::I32 => d.field("int32", &true),
            other => d.field("narrow", &other),
        };
        d.finish()
    }
}

/// A narrow result type: integers wrap, FLOAT sums in single precision.
/// (Serialized as its variant number, so `None`/`I32` read the bytes of
/// the former `false`/`true`.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Narrow {
    /// 64-bit integers or doubles.
    #[default]
    None,
    /// INT: wraps at 32 bits.
    I32,
    /// SMALLINT: wraps at 16 bits.
    I16,
    /// TINYINT: wraps at 8 bits.
    I8,
    /// FLOAT: added in single precision.
    F32,
    /// BIGINT: a double result truncated to a whole number.
    I64,
    /// DECIMAL(38, scale): a double result (a VAR or STDDEV of a DECIMAL)
    /// made a decimal as Flink casts a DOUBLE (`BigDecimal.valueOf`, HALF_UP
    /// at the scale; NULL past 38 digits).
    Dec(u8),
}

impl AggSpec {
    /// Whether this aggregate's result in a HOP or CUMULATE window depends
    /// on the order Flink merges the window's slices in (see the module).
    pub fn merges_by_slice(&self) -> bool {
        matches!(
            self.func,
            AggFunc::Sum
                | AggFunc::Avg
                | AggFunc::VarPop
                | AggFunc::VarSamp
                | AggFunc::StddevPop
                | AggFunc::StddevSamp
                | AggFunc::ListAgg
        )
    }

    /// Adds `row` to a HOP (`from_last`) or CUMULATE window's accumulator,
    /// in the slice that ends at `slice`.
    pub fn add_sliced(
        &self,
        acc: &mut Accumulator,
        row: &[Value],
        slice: crate::time::Timestamp,
        from_last: bool,
    ) {
        if !self.merges_by_slice() {
            return self.add(acc, row);
        }
        if !matches!(acc, Accumulator::Sliced { .. }) {
            // An integer or DECIMAL SUM or AVG merges exactly (integers wrap
            // as their running sum does): no slices, no cost.
            let exact = matches!(self.func, AggFunc::Sum | AggFunc::Avg)
                && self.narrow != Narrow::F32
                && self
                    .column
                    .and_then(|c| row.get(c))
                    .is_none_or(|v| !matches!(v, Value::Double(_)));
            if exact {
                return self.add(acc, row);
            }
            let before = std::mem::replace(
                acc,
                Accumulator::Sliced {
                    from_last,
                    slices: Vec::new(),
                },
            );
            // State of a lowwater that did not slice (a restored
            // checkpoint): kept, as the earliest slice.
            if before != self.create() {
                if let Accumulator::Sliced { slices, .. } = acc {
                    slices.push((crate::time::MIN_WATERMARK, before));
                }
            }
        }
        let Accumulator::Sliced { slices, .. } = acc else {
            return;
        };
        let i = match slices.binary_search_by_key(&slice, |(end, _)| *end) {
            Ok(i) => i,
            Err(i) => {
                slices.insert(i, (slice, self.create()));
                i
            }
        };
        self.add(&mut slices[i].1, row);
    }

    /// A sliced accumulator's slices merged as Flink merges them (see the
    /// module); a FLOAT sum is rounded to single precision at each merge.
    fn merged(
        &self,
        from_last: bool,
        slices: &[(crate::time::Timestamp, Accumulator)],
    ) -> Accumulator {
        let mut order: Vec<&Accumulator> = slices.iter().map(|(_, a)| a).collect();
        let mut acc = if from_last {
            order.reverse();
            self.create()
        } else if order.is_empty() {
            self.create()
        } else {
            order.remove(0).clone()
        };
        for next in order {
            acc.merge(next.clone());
            if let (Narrow::F32, Accumulator::Sum(Value::Double(d))) = (self.narrow, &mut acc) {
                *d = f64::from(*d as f32);
            }
        }
        acc
    }

    /// `COUNT(*)`.
    pub const fn count_star() -> Self {
        AggSpec {
            func: AggFunc::CountStar,
            column: None,
            narrow: Narrow::None,
        }
    }

    /// `func(column)`.
    pub const fn on(func: AggFunc, column: usize) -> Self {
        AggSpec {
            func,
            column: Some(column),
            narrow: Narrow::None,
        }
    }

    /// The same aggregate with result type `narrow` (Flink's
    /// `IntSumAggFunction`, `ByteSumAggFunction`, `FloatSumAggFunction`...).
    /// Integer sums wrap: two's complement makes wrapping the final 64-bit
    /// sum identical to wrapping every addition.
    pub const fn narrowed(mut self, narrow: Narrow) -> Self {
        self.narrow = narrow;
        self
    }

    /// The aggregate's result from `acc`, in the aggregate's result type.
    pub fn finish(&self, acc: &Accumulator) -> Value {
        if let Accumulator::Sliced { from_last, slices } = acc {
            return self.finish(&self.merged(*from_last, slices));
        }
        let result = match (self.func, acc) {
            // SUM / AVG over the distinct values in the order they first
            // arrived, as Flink's SUM and AVG see them (a double sum
            // depends on the order).
            (f, Accumulator::Ordered { values, .. }) if f.undistinct().is_some() => {
                return self.fold_distinct(values.iter());
            }
            // A set restored from a checkpoint of an earlier lowwater, which
            // kept no order: added in sorted order, as that version did.
            (AggFunc::SumDistinct | AggFunc::AvgDistinct, Accumulator::Distinct(set)) => {
                let mut values: Vec<&Value> = set.iter().collect();
                values.sort();
                return self.fold_distinct(values.into_iter());
            }
            (AggFunc::LastValueDistinct, Accumulator::Ordered { values, .. }) => {
                values.last().cloned().unwrap_or(Value::Null)
            }
            (
                f @ (AggFunc::VarPop | AggFunc::VarSamp | AggFunc::StddevPop | AggFunc::StddevSamp),
                Accumulator::Moments { count, m2, .. },
            ) => {
                let sample = matches!(f, AggFunc::VarSamp | AggFunc::StddevSamp);
                let n = *count - i64::from(sample);
                if n <= 0 {
                    Value::Null
                } else {
                    let var = m2 / n as f64;
                    Value::Double(if matches!(f, AggFunc::StddevPop | AggFunc::StddevSamp) {
                        var.sqrt()
                    } else {
                        var
                    })
                }
            }
            _ => acc.result(),
        };
        match (result, self.narrow) {
            (Value::Int(i), Narrow::I32) => Value::Int(i64::from(i as i32)),
            (Value::Int(i), Narrow::I16) => Value::Int(i64::from(i as i16)),
            (Value::Int(i), Narrow::I8) => Value::Int(i64::from(i as i8)),
            (Value::Double(d), Narrow::F32) => Value::Double(f64::from(d as f32)),
            // A variance of integers is an integer: the double cast as
            // Java's (int) and (long) casts do (truncated, saturating).
            (Value::Double(d), Narrow::I64) => Value::Int(d as i64),
            (Value::Double(d), Narrow::I32) => Value::Int(i64::from(d as i32)),
            (Value::Double(d), Narrow::I16) => Value::Int(i64::from(d as i32 as i16)),
            (Value::Double(d), Narrow::I8) => Value::Int(i64::from(d as i32 as i8)),
            (Value::Double(d), Narrow::Dec(scale)) => crate::decimal::from_f64(d, scale)
                .filter(|v| crate::decimal::fits(*v, crate::decimal::MAX_PRECISION))
                .map_or(Value::Null, |v| Value::decimal(v, scale)),
            (v, _) => v,
        }
    }

    /// SUM or AVG (DISTINCT) of `values`: the plain aggregate fed each
    /// value once, in the given order.
    fn fold_distinct<'a>(&self, values: impl Iterator<Item = &'a Value>) -> Value {
        let func = self.func.undistinct().unwrap_or(AggFunc::Avg);
        let plain = AggSpec::on(func, 0).narrowed(self.narrow);
        let mut acc = plain.create();
        for v in values {
            plain.add(&mut acc, std::slice::from_ref(v));
        }
        plain.finish(&acc)
    }

    /// Folds `other` into `acc` (sessions merging): a Top-N's rows are
    /// added in their rank order, the others merge as
    /// [`Accumulator::merge`] does.
    pub fn merge(&self, acc: &mut Accumulator, other: Accumulator) {
        match (self.func, acc, other) {
            (AggFunc::TopRows(top), Accumulator::Top(kept), Accumulator::Top(more)) => {
                for row in more {
                    top.add(kept, &row);
                }
            }
            (_, acc, other) => acc.merge(other),
        }
    }

    /// A fresh accumulator.
    pub fn create(&self) -> Accumulator {
        match self.func {
            AggFunc::CountStar | AggFunc::Count => Accumulator::Count(0),
            AggFunc::CountDistinct => Accumulator::Distinct(HashSet::new()),
            AggFunc::Sum => Accumulator::Sum(Value::Null),
            AggFunc::Min => Accumulator::Min(Value::Null),
            AggFunc::Max => Accumulator::Max(Value::Null),
            AggFunc::Avg => Accumulator::Avg {
                sum: Value::Null,
                count: 0,
            },
            AggFunc::FirstValue => Accumulator::First(Value::Null),
            AggFunc::LastValue => Accumulator::Last(Value::Null),
            AggFunc::ListAgg => Accumulator::List {
                text: None,
                sep: None,
            },
            AggFunc::ListAggDistinct
            | AggFunc::LastValueDistinct
            | AggFunc::SumDistinct
            | AggFunc::AvgDistinct
            | AggFunc::VarPopDistinct
            | AggFunc::VarSampDistinct
            | AggFunc::StddevPopDistinct
            | AggFunc::StddevSampDistinct => Accumulator::Ordered {
                values: IndexSet::new(),
                sep: None,
            },
            AggFunc::VarPop | AggFunc::VarSamp | AggFunc::StddevPop | AggFunc::StddevSamp => {
                Accumulator::Moments {
                    count: 0,
                    mean: 0.0,
                    m2: 0.0,
                }
            }
            AggFunc::TopRows(_) => Accumulator::Top(Vec::new()),
        }
    }

    /// Adds one row to `acc`. (`COUNT(*)` inline, where it is a count;
    /// every other function out of line.)
    #[inline]
    pub fn add(&self, acc: &mut Accumulator, row: &[Value]) {
        if self.func == AggFunc::CountStar {
            if let Accumulator::Count(n) = acc {
                *n += 1;
            }
            return;
        }
        self.add_arg(acc, row);
    }

    /// [`AggSpec::add`] of a function with an argument.
    fn add_arg(&self, acc: &mut Accumulator, row: &[Value]) {
        if let (AggFunc::TopRows(top), Accumulator::Top(kept)) = (self.func, &mut *acc) {
            let from = self.column.unwrap_or(0).min(row.len());
            return top.add(kept, &row[from..]);
        }
        let v = match self.column.and_then(|c| row.get(c)) {
            Some(v) if !v.is_null() => v,
            _ => return,
        };
        if let Accumulator::List { sep, .. } | Accumulator::Ordered { sep, .. } = acc {
            if sep.is_none() {
                *sep = match self.column.and_then(|c| row.get(c + 1)) {
                    Some(Value::Str(s)) => Some(s.clone()),
                    _ => Some(Arc::from(",")),
                };
            }
        }
        // A FLOAT sum adds in single precision, each step rounded (Flink's
        // FloatSumAggFunction), so it overflows to Infinity as Flink's does.
        if let (Narrow::F32, AggFunc::Sum, Accumulator::Sum(s)) =
            (self.narrow, self.func, &mut *acc)
        {
            if let Some(x) = v.as_f64() {
                let sum = s.as_f64().map_or(x as f32, |s| s as f32 + x as f32);
                *s = Value::Double(f64::from(sum));
                return;
            }
        }
        acc.add_value(v);
    }
}

impl Accumulator {
    /// Bytes this accumulator holds on the heap (a set's table and values,
    /// a list's text, a value's string).
    pub fn heap_bytes(&self) -> usize {
        match self {
            Accumulator::Distinct(set) => {
                set.capacity() * (std::mem::size_of::<Value>() + 1)
                    + set.iter().map(Value::heap_bytes).sum::<usize>()
            }
            Accumulator::Sum(v)
            | Accumulator::Min(v)
            | Accumulator::Max(v)
            | Accumulator::First(v)
            | Accumulator::Last(v)
            | Accumulator::Avg { sum: v, .. } => v.heap_bytes(),
            Accumulator::List { text, .. } => text.as_ref().map_or(0, String::capacity),
            Accumulator::Ordered { values, .. } => {
                values.capacity() * (std::mem::size_of::<Value>() + 8)
                    + values.iter().map(Value::heap_bytes).sum::<usize>()
            }
            Accumulator::Sliced { slices, .. } => {
                slices.capacity() * std::mem::size_of::<(i64, Accumulator)>()
                    + slices.iter().map(|(_, a)| a.heap_bytes()).sum::<usize>()
            }
            Accumulator::Top(kept) => crate::window::top::heap_bytes(kept),
            Accumulator::Count(_) | Accumulator::Moments { .. } => 0,
        }
    }
}

/// The running state of one aggregate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Accumulator {
    /// `COUNT(*)` / `COUNT(col)`.
    Count(i64),
    /// `COUNT(DISTINCT col)`.
    Distinct(HashSet<Value>),
    /// `SUM`: NULL until the first value.
    Sum(Value),
    /// `MIN`: NULL until the first value.
    Min(Value),
    /// `MAX`: NULL until the first value.
    Max(Value),
    /// `AVG`: running sum and count.
    Avg {
        /// Sum of the values (NULL until the first).
        sum: Value,
        /// Number of values.
        count: i64,
    },
    /// `FIRST_VALUE`: NULL until the first value.
    First(Value),
    /// `LAST_VALUE`: NULL until the first value.
    Last(Value),
    /// `LISTAGG`.
    List {
        /// The values so far, joined (None before the first).
        text: Option<String>,
        /// The separator (read from the first row).
        sep: Option<Arc<str>>,
    },
    /// VAR and STDDEV: Welford's running mean and sum of squared
    /// deviations, in doubles (Flink 2.3's results match this update, not
    /// Calcite's reduction into SUM(x * x)).
    Moments {
        /// Values seen.
        count: i64,
        /// Their mean.
        mean: f64,
        /// The sum of squared deviations from the mean.
        m2: f64,
    },
    /// `LISTAGG(DISTINCT)` and `LAST_VALUE(DISTINCT)`: the distinct values
    /// in the order of their first arrival.
    Ordered {
        /// The values, each once.
        values: IndexSet<Value>,
        /// The separator (read from the first row).
        sep: Option<Arc<str>>,
    },
    /// A HOP or CUMULATE window's accumulator per slice, merged when the
    /// window fires as Flink merges a window's slices (see the module).
    Sliced {
        /// A HOP's: merged from the last slice back to the first into a
        /// fresh accumulator; a CUMULATE's: forward from the first.
        from_last: bool,
        /// Each slice's end and accumulator, by end.
        slices: Vec<(crate::time::Timestamp, Accumulator)>,
    },
    /// A Window Top-N's rows: each one's ORDER BY values, then its values,
    /// in rank order.
    Top(Vec<Box<[Value]>>),
}

/// A value as `LISTAGG` writes it.
fn list_item(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        other => other.to_string(),
    }
}

fn add_numbers(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Null, v) | (v, Value::Null) => v.clone(),
        (Value::Int(x), Value::Int(y)) => Value::Int(x.wrapping_add(*y)),
        // DECIMAL sums are exact (Flink's SUM is DECIMAL(38, s)); beyond 38
        // digits they are NULL, as Flink's.
        (Value::Decimal(..), Value::Decimal(..)) => match (a.as_decimal(), b.as_decimal()) {
            (Some(x), Some(y)) => crate::decimal::add(x, y)
                .filter(|d| crate::decimal::fits(d.0, crate::decimal::MAX_PRECISION))
                .map_or(Value::Null, |d| Value::decimal(d.0, d.1)),
            _ => Value::Null,
        },
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => Value::Double(x + y),
            // Non-numeric input cannot be summed; the planner rejects it, so
            // keep the first operand rather than invent a number.
            _ => a.clone(),
        },
    }
}

impl Accumulator {
    fn add_value(&mut self, v: &Value) {
        match self {
            Accumulator::Count(n) => *n += 1,
            Accumulator::Distinct(set) => {
                if !set.contains(v) {
                    set.insert(v.clone());
                }
            }
            Accumulator::Sum(s) => {
                if let (Value::Int(a), Value::Int(b)) = (&mut *s, v) {
                    *a = a.wrapping_add(*b);
                } else {
                    *s = add_numbers(s, v);
                }
            }
            // Integers compared and kept in place, without a clone.
            Accumulator::Min(m) => {
                if let (Value::Int(a), Value::Int(b)) = (&mut *m, v) {
                    *a = (*a).min(*b);
                } else if m.is_null() || v < m {
                    *m = v.clone();
                }
            }
            Accumulator::Max(m) => {
                if let (Value::Int(a), Value::Int(b)) = (&mut *m, v) {
                    *a = (*a).max(*b);
                } else if m.is_null() || v > m {
                    *m = v.clone();
                }
            }
            Accumulator::Avg { sum, count } => {
                *sum = add_numbers(sum, v);
                *count += 1;
            }
            Accumulator::First(f) => {
                if f.is_null() {
                    *f = v.clone();
                }
            }
            Accumulator::Last(l) => *l = v.clone(),
            Accumulator::Moments { count, mean, m2 } => {
                if let Some(x) = v.as_f64() {
                    *count += 1;
                    let d = x - *mean;
                    *mean += d / *count as f64;
                    *m2 += d * (x - *mean);
                }
            }
            Accumulator::Ordered { values, .. } => {
                if !values.contains(v) {
                    values.insert(v.clone());
                }
            }
            // A Top-N's rows arrive whole, through `AggSpec::add_arg`.
            Accumulator::Top(_) => {}
            // Records reach a slice through `AggSpec::add_sliced`; a value
            // added without one goes to the latest slice.
            Accumulator::Sliced { slices, .. } => {
                if let Some((_, last)) = slices.last_mut() {
                    last.add_value(v);
                }
            }
            Accumulator::List { text, sep } => {
                let item = list_item(v);
                match text {
                    Some(t) => {
                        t.push_str(sep.as_deref().unwrap_or(","));
                        t.push_str(&item);
                    }
                    None => *text = Some(item),
                }
            }
        }
    }

    /// Folds `other` (an accumulator of the same aggregate) into `self`.
    pub fn merge(&mut self, other: Accumulator) {
        match (self, other) {
            (Accumulator::Count(a), Accumulator::Count(b)) => *a += b,
            (Accumulator::Distinct(a), Accumulator::Distinct(b)) => a.extend(b),
            (Accumulator::Sum(a), Accumulator::Sum(b)) => *a = add_numbers(a, &b),
            (m @ Accumulator::Min(_), Accumulator::Min(b)) if !b.is_null() => m.add_value(&b),
            (m @ Accumulator::Max(_), Accumulator::Max(b)) if !b.is_null() => m.add_value(&b),
            (Accumulator::Avg { sum, count }, Accumulator::Avg { sum: s2, count: c2 }) => {
                *sum = add_numbers(sum, &s2);
                *count += c2;
            }
            // Chan's combination of two Welford states, with the operations
            // in the order of Flink's WelfordM2AggFunction.merge (their
            // rounding decides an INT STDDEV's truncation).
            (
                Accumulator::Moments { count, mean, m2 },
                Accumulator::Moments {
                    count: n2,
                    mean: mean2,
                    m2: m2b,
                },
            ) if n2 > 0 => {
                if *count == 0 {
                    (*count, *mean, *m2) = (n2, mean2, m2b);
                } else {
                    let n = (*count + n2) as f64;
                    let dm = mean2 - *mean;
                    *mean += n2 as f64 / n * dm;
                    *m2 = (*m2 + m2b) + (*count as f64 * n2 as f64 / n) * dm * dm;
                    *count += n2;
                }
            }
            // `other` holds the later rows.
            (Accumulator::First(a), Accumulator::First(b)) if a.is_null() => *a = b,
            (Accumulator::Last(a), Accumulator::Last(b)) if !b.is_null() => *a = b,
            (Accumulator::List { text, sep }, Accumulator::List { text: t2, sep: s2 }) => {
                if sep.is_none() {
                    *sep = s2;
                }
                match (text.as_mut(), t2) {
                    (Some(t), Some(more)) => {
                        t.push_str(sep.as_deref().unwrap_or(","));
                        t.push_str(&more);
                    }
                    (None, more) => *text = more,
                    (Some(_), None) => {}
                }
            }
            // `other`'s values new to `self` follow, in their order.
            (
                Accumulator::Ordered { values, sep },
                Accumulator::Ordered {
                    values: more,
                    sep: s2,
                },
            ) => {
                if sep.is_none() {
                    *sep = s2;
                }
                values.extend(more);
            }
            // Slices of the same window, each merged into its own.
            (Accumulator::Sliced { slices, .. }, Accumulator::Sliced { slices: more, .. }) => {
                for (end, acc) in more {
                    match slices.binary_search_by_key(&end, |(e, _)| *e) {
                        Ok(i) => slices[i].1.merge(acc),
                        Err(i) => slices.insert(i, (end, acc)),
                    }
                }
            }
            // A SUM or AVG (DISTINCT) set restored from an earlier lowwater
            // meeting one of this version's (sessions merging).
            (Accumulator::Distinct(set), Accumulator::Ordered { values, .. }) => set.extend(values),
            (Accumulator::Ordered { values, .. }, Accumulator::Distinct(set)) => {
                let mut more: Vec<Value> = set.into_iter().collect();
                more.sort();
                values.extend(more);
            }
            _ => {}
        }
    }

    /// The aggregate's current result.
    pub fn result(&self) -> Value {
        match self {
            // Its slices are merged by the aggregate (`AggSpec::finish`);
            // a Top-N's rows are written by the operator, one result each.
            Accumulator::Sliced { .. } | Accumulator::Top(_) => Value::Null,
            Accumulator::Count(n) => Value::Int(*n),
            Accumulator::Distinct(set) => Value::Int(set.len() as i64),
            Accumulator::Sum(v)
            | Accumulator::Min(v)
            | Accumulator::Max(v)
            | Accumulator::First(v)
            | Accumulator::Last(v) => v.clone(),
            Accumulator::List { text, .. } => text.as_deref().map_or(Value::Null, Value::str),
            // `LISTAGG(DISTINCT)`'s (`LAST_VALUE(DISTINCT)` is read in
            // `AggSpec::finish`).
            Accumulator::Ordered { values, .. } if values.is_empty() => Value::Null,
            Accumulator::Ordered { values, sep } => {
                let sep = sep.as_deref().unwrap_or(",");
                let items: Vec<String> = values.iter().map(list_item).collect();
                Value::str(&items.join(sep))
            }
            // Which of the four is decided in `AggSpec::finish`; alone, the
            // population variance.
            Accumulator::Moments { count, m2, .. } if *count > 0 => {
                Value::Double(m2 / *count as f64)
            }
            Accumulator::Moments { .. } => Value::Null,
            Accumulator::Avg { sum, count } => match sum {
                _ if *count == 0 => Value::Null,
                Value::Int(s) => Value::Int(s.wrapping_div(*count)),
                Value::Double(s) => Value::Double(s / *count as f64),
                // Flink's AVG of DECIMAL(p, s) is DECIMAL(38, max(6, s)).
                Value::Decimal(..) => match sum.as_decimal() {
                    Some(d) => {
                        let scale = d.1.max(6);
                        crate::decimal::div(d, (i128::from(*count), 0), scale)
                            .map_or(Value::Null, |v| Value::decimal(v, scale))
                    }
                    None => Value::Null,
                },
                _ => Value::Null,
            },
        }
    }
}

#[cfg(test)]
#[path = "aggregate_tests.rs"]
mod tests;
