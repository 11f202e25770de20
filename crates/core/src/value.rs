//! The values that flow through an aggregation: typed, hashable and totally
//! ordered, so that group keys can be hashed, `MIN`/`MAX` can compare, and
//! output can be sorted deterministically.
//!
//! The set mirrors the SQL types lowwater supports (BOOLEAN, INT/BIGINT,
//! DOUBLE, STRING, TIMESTAMP(3)). Doubles compare and hash by their IEEE total
//! order (`f64::total_cmp`), with `-0.0` folded into `0.0` so that equal numbers
//! form one group.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::time::Timestamp;
use serde::{Deserialize, Serialize};

/// One SQL value.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// BOOLEAN.
    Bool(bool),
    /// INT and BIGINT.
    Int(i64),
    /// DOUBLE.
    Double(f64),
    /// STRING / VARCHAR.
    Str(Arc<str>),
    /// TIMESTAMP(3) / TIMESTAMP_LTZ(3), milliseconds since the epoch.
    Timestamp(Timestamp),
    /// DECIMAL(p, s): the unscaled value's high and low 64 bits, and the
    /// scale (see [`Value::decimal`]; three fields keep `Value` 24 bytes).
    Decimal(i64, u64, u8),
}

impl Value {
    /// Bytes this value holds on the heap (a string's shared allocation,
    /// counted whole even when other values share it).
    pub fn heap_bytes(&self) -> usize {
        match self {
            Value::Str(s) => 16 + s.len(),
            _ => 0,
        }
    }

    /// Makes this value `Int(i)`. When it is an `Int` already only the
    /// number is written: a row rebuilt record after record in place, with
    /// no temporary value copied over the old one (a copy that reads back
    /// the temporary's tag and number as one wide load, which stalls).
    #[inline]
    pub fn set_int(&mut self, i: i64) {
        match self {
            Value::Int(v) => *v = i,
            _ => *self = Value::Int(i),
        }
    }

    /// Makes this value `Timestamp(t)`, in place as [`Value::set_int`].
    #[inline]
    pub fn set_timestamp(&mut self, t: Timestamp) {
        match self {
            Value::Timestamp(v) => *v = t,
            _ => *self = Value::Timestamp(t),
        }
    }

    /// A string value.
    pub fn str(s: &str) -> Value {
        Value::Str(Arc::from(s))
    }

    /// A DECIMAL of `unscaled / 10^scale`.
    pub fn decimal(unscaled: i128, scale: u8) -> Value {
        Value::Decimal((unscaled >> 64) as i64, unscaled as u64, scale)
    }

    /// The (unscaled value, scale) inside, if this is a `Decimal`.
    pub fn as_decimal(&self) -> Option<crate::decimal::Dec> {
        match self {
            Value::Decimal(hi, lo, s) => Some(((i128::from(*hi) << 64) | i128::from(*lo), *s)),
            _ => None,
        }
    }

    /// This value as a `DECIMAL(precision, scale)`, as Flink casts into
    /// one: integers and decimals exactly, doubles by their printed digits,
    /// text parsed, rounded HALF_UP to the scale; NULL when it does not fit
    /// (or is not a number).
    pub fn coerce_decimal(&self, precision: u8, scale: u8) -> Value {
        use crate::decimal::{fits, from_f64, parse, rescale};
        let d = match self {
            Value::Int(i) => rescale(i128::from(*i), 0, scale),
            Value::Decimal(..) => self.as_decimal().and_then(|d| rescale(d.0, d.1, scale)),
            Value::Double(x) => from_f64(*x, scale),
            Value::Str(t) => parse(t).and_then(|d| rescale(d.0, d.1, scale)),
            _ => None,
        };
        match d {
            Some(u) if fits(u, precision) => Value::decimal(u, scale),
            _ => Value::Null,
        }
    }

    /// Whether this is SQL NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The integer inside, if this is an `Int`.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The number inside as a double, if this is numeric.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Double(d) => Some(*d),
            Value::Decimal(..) => self.as_decimal().map(crate::decimal::to_f64),
            _ => None,
        }
    }

    /// The string inside, if this is a `Str`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Int(_) | Value::Double(_) | Value::Decimal(..) => 2,
            Value::Str(_) => 3,
            Value::Timestamp(_) => 4,
        }
    }

    fn canonical_f64(d: f64) -> f64 {
        if d == 0.0 {
            0.0
        } else {
            d
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        // The usual key types directly (as `cmp` compares them); the rest
        // through the total order.
        match (self, other) {
            (Value::Int(a), Value::Int(b)) | (Value::Timestamp(a), Value::Timestamp(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            _ => self.cmp(other) == Ordering::Equal,
        }
    }
}

impl Eq for Value {}

impl Ord for Value {
    /// NULL < BOOLEAN < numbers < strings < timestamps; numbers compare by
    /// value across INT and DOUBLE, an INT sorting before an equal DOUBLE so
    /// that the order stays total and consistent with `Hash`.
    fn cmp(&self, other: &Self) -> Ordering {
        use Value::*;
        match (self, other) {
            (Bool(a), Bool(b)) => a.cmp(b),
            (Int(a), Int(b)) => a.cmp(b),
            (Double(a), Double(b)) => Self::canonical_f64(*a).total_cmp(&Self::canonical_f64(*b)),
            (Int(a), Double(b)) => (*a as f64).total_cmp(b).then(Ordering::Less),
            (Double(a), Int(b)) => a.total_cmp(&(*b as f64)).then(Ordering::Greater),
            (Str(a), Str(b)) => a.cmp(b),
            (Timestamp(a), Timestamp(b)) => a.cmp(b),
            // Decimals by value; an equal INT before, an equal DOUBLE after
            // (consistent with `Hash`, as INT and DOUBLE are).
            (Decimal(..), Decimal(..)) => match (self.as_decimal(), other.as_decimal()) {
                (Some(a), Some(b)) => crate::decimal::cmp(a, b),
                _ => Ordering::Equal,
            },
            (Int(a), Decimal(..)) => match other.as_decimal() {
                Some(b) => crate::decimal::cmp((i128::from(*a), 0), b).then(Ordering::Less),
                None => Ordering::Less,
            },
            (Decimal(..), Int(b)) => match self.as_decimal() {
                Some(a) => crate::decimal::cmp(a, (i128::from(*b), 0)).then(Ordering::Greater),
                None => Ordering::Greater,
            },
            (Decimal(..), Double(b)) => Self::canonical_f64(self.as_f64().unwrap_or(f64::NAN))
                .total_cmp(&Self::canonical_f64(*b))
                .then(Ordering::Less),
            (Double(a), Decimal(..)) => Self::canonical_f64(*a)
                .total_cmp(&Self::canonical_f64(other.as_f64().unwrap_or(f64::NAN)))
                .then(Ordering::Greater),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Value::Null => 0u8.hash(state),
            Value::Bool(b) => (1u8, b).hash(state),
            Value::Int(i) => (2u8, i).hash(state),
            Value::Double(d) => (5u8, Self::canonical_f64(*d).to_bits()).hash(state),
            Value::Str(s) => (3u8, s).hash(state),
            Value::Timestamp(t) => (4u8, t).hash(state),
            // Equal values at different scales (1.50, 1.5) hash alike.
            Value::Decimal(..) => {
                let d = crate::decimal::normalized(self.as_decimal().unwrap_or((0, 0)));
                (6u8, d.0, d.1).hash(state)
            }
        }
    }
}

impl fmt::Display for Value {
    /// Flink's row rendering: `NULL` for null, plain text otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("NULL"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Double(d) => write!(f, "{d:?}"),
            Value::Str(s) => f.write_str(s),
            Value::Timestamp(t) => f.write_str(&crate::time::display_time(*t)),
            Value::Decimal(..) => {
                f.write_str(&crate::decimal::plain(self.as_decimal().unwrap_or((0, 0))))
            }
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::str(s)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}

impl From<f64> for Value {
    fn from(d: f64) -> Value {
        Value::Double(d)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

/// A row: the values of one record, by column position.
pub type Row = Vec<Value>;

/// A group key: the GROUP BY values of a record (empty for a global aggregate).
pub type Key = Vec<Value>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;

    fn h(v: &Value) -> u64 {
        let mut s = DefaultHasher::new();
        v.hash(&mut s);
        s.finish()
    }

    #[test]
    fn ordering_is_total_across_types() {
        let mut vs = [
            Value::str("b"),
            Value::Double(1.5),
            Value::Null,
            Value::Int(2),
            Value::Bool(true),
            Value::Int(1),
            Value::str("a"),
        ];
        vs.sort();
        let shown: Vec<String> = vs.iter().map(|v| v.to_string()).collect();
        assert_eq!(shown, ["NULL", "true", "1", "1.5", "2", "a", "b"]);
    }

    #[test]
    fn decimals_compare_by_value_and_stay_24_bytes() {
        assert_eq!(std::mem::size_of::<Value>(), 24);
        let (a, b) = (Value::decimal(150, 2), Value::decimal(15, 1));
        assert_eq!(a, b);
        assert_eq!(h(&a), h(&b));
        assert_eq!(Value::decimal(-7, 0).as_decimal(), Some((-7, 0)));
        let big = Value::decimal(-(10i128.pow(37)) + 3, 5);
        assert_eq!(big.as_decimal(), Some((-(10i128.pow(37)) + 3, 5)));
        assert!(Value::Int(1) < Value::decimal(150, 2));
        assert!(Value::decimal(150, 2) < Value::Double(1.6));
        assert_ne!(Value::Int(2), Value::decimal(200, 2));
        assert_eq!(Value::decimal(2000, 2).to_string(), "20.00");
    }

    #[test]
    fn zero_signs_are_one_group_and_int_differs_from_double() {
        assert_eq!(Value::Double(0.0), Value::Double(-0.0));
        assert_eq!(h(&Value::Double(0.0)), h(&Value::Double(-0.0)));
        assert_ne!(Value::Int(1), Value::Double(1.0));
        assert!(Value::Int(1) < Value::Double(1.0));
    }
}
