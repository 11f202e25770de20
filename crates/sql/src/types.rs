//! SQL types of the supported subset, the arithmetic operators, and
//! Flink's duration syntax.

use lowwater_core::Millis;

/// A column type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SqlType {
    /// STRING, VARCHAR(n), CHAR(n).
    String,
    /// TINYINT (8 bits; held as 64 bits, wrapped where Flink wraps).
    TinyInt,
    /// SMALLINT (16 bits; held as 64 bits, wrapped where Flink wraps).
    SmallInt,
    /// INT / INTEGER (32 bits in Flink; held as 64 bits here).
    Int,
    /// BIGINT.
    BigInt,
    /// FLOAT (single precision: values are rounded to 32 bits, held as a
    /// double).
    Float,
    /// DOUBLE.
    Double,
    /// BOOLEAN.
    Boolean,
    /// TIMESTAMP(3): a wall-clock date-time without zone (read as UTC).
    Timestamp,
    /// TIMESTAMP_LTZ(3): an instant.
    TimestampLtz,
    /// DECIMAL(precision, scale): exact (values are [`lowwater_core::Value::Decimal`]).
    Decimal(u8, u8),
    /// DATE: a day, held as the days since 1970-01-01 (a
    /// [`lowwater_core::Value::Int`]; see [`crate::dates`]).
    Date,
}

impl SqlType {
    /// The SQL spelling.
    pub fn name(&self) -> &'static str {
        match self {
            SqlType::String => "STRING",
            SqlType::TinyInt => "TINYINT",
            SqlType::SmallInt => "SMALLINT",
            SqlType::Int => "INT",
            SqlType::BigInt => "BIGINT",
            SqlType::Float => "FLOAT",
            SqlType::Double => "DOUBLE",
            SqlType::Boolean => "BOOLEAN",
            SqlType::Timestamp => "TIMESTAMP(3)",
            SqlType::TimestampLtz => "TIMESTAMP_LTZ(3)",
            SqlType::Decimal(..) => "DECIMAL",
            SqlType::Date => "DATE",
        }
    }

    /// The SQL spelling with parameters (`DECIMAL(10, 2)`).
    pub fn full_name(&self) -> String {
        match self {
            SqlType::Decimal(p, s) => format!("DECIMAL({p}, {s})"),
            other => other.name().to_string(),
        }
    }

    /// The DECIMAL an exact number of this type converts to (Flink's:
    /// INT is DECIMAL(10, 0), BIGINT DECIMAL(19, 0), ...).
    pub fn as_decimal(&self) -> Option<(u8, u8)> {
        match self {
            SqlType::TinyInt => Some((3, 0)),
            SqlType::SmallInt => Some((5, 0)),
            SqlType::Int => Some((10, 0)),
            SqlType::BigInt => Some((19, 0)),
            SqlType::Decimal(p, s) => Some((*p, *s)),
            _ => None,
        }
    }

    /// An integer, decimal or floating-point type.
    pub fn is_numeric(&self) -> bool {
        self.is_integer()
            || matches!(
                self,
                SqlType::Float | SqlType::Double | SqlType::Decimal(..)
            )
    }

    /// TINYINT, SMALLINT, INT or BIGINT.
    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            SqlType::TinyInt | SqlType::SmallInt | SqlType::Int | SqlType::BigInt
        )
    }

    /// The bits of an integer type (64 for BIGINT).
    pub fn int_bits(&self) -> Option<u32> {
        match self {
            SqlType::TinyInt => Some(8),
            SqlType::SmallInt => Some(16),
            SqlType::Int => Some(32),
            SqlType::BigInt => Some(64),
            _ => None,
        }
    }

    /// `i` wrapped into this integer type's range, as Java's narrowing
    /// casts do (two's complement); other types leave it as is.
    pub fn wrap(&self, i: i64) -> i64 {
        match self {
            SqlType::TinyInt => i64::from(i as i8),
            SqlType::SmallInt => i64::from(i as i16),
            SqlType::Int => i64::from(i as i32),
            _ => i,
        }
    }

    /// TIMESTAMP or TIMESTAMP_LTZ.
    pub fn is_time(&self) -> bool {
        matches!(self, SqlType::Timestamp | SqlType::TimestampLtz)
    }

    /// Whether a value of type `from` can be written to a column of this
    /// type without an explicit CAST (Flink's implicit widening).
    pub fn accepts(&self, from: SqlType) -> bool {
        match (self.int_bits(), from.int_bits()) {
            (Some(to), Some(f)) => return f <= to,
            (Some(_), None) => return false,
            _ => {}
        }
        match self {
            SqlType::Float => from.is_integer() || from == SqlType::Float,
            SqlType::Double => from.is_numeric(),
            // Flink casts numbers into a DECIMAL sink column implicitly
            // (rounded HALF_UP; a value that does not fit is NULL).
            SqlType::Decimal(..) => from.is_numeric(),
            SqlType::Timestamp | SqlType::TimestampLtz => from.is_time(),
            other => *other == from,
        }
    }
}

/// An arithmetic operator (of compiled expressions, value arithmetic and
/// DECIMAL result types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
}

/// Parses a Flink duration: a number with an optional unit (`500 ms`,
/// `60 s`, `60s`, `1 min`, `2 h`, `1 d`); a bare number is milliseconds.
pub fn parse_duration(text: &str) -> Result<Millis, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: i64 = num
        .parse()
        .map_err(|_| format!("'{text}' is not a duration; write e.g. '500 ms', '60 s', '1 min'"))?;
    let factor = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => 1,
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000,
        "min" | "m" | "minute" | "minutes" => 60_000,
        "h" | "hour" | "hours" => 3_600_000,
        "d" | "day" | "days" => 86_400_000,
        other => {
            return Err(format!(
                "unknown time unit '{other}' in '{text}'; use ms, s, min, h or d"
            ))
        }
    };
    n.checked_mul(factor)
        .ok_or_else(|| format!("duration '{text}' is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flink_duration_forms() {
        assert_eq!(parse_duration("60 s"), Ok(60_000));
        assert_eq!(parse_duration("60s"), Ok(60_000));
        assert_eq!(parse_duration("1 min"), Ok(60_000));
        assert_eq!(parse_duration("500 ms"), Ok(500));
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(parse_duration("2 h"), Ok(7_200_000));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("5 fortnights").is_err());
    }

    #[test]
    fn implicit_widening_only() {
        assert!(SqlType::BigInt.accepts(SqlType::Int));
        assert!(!SqlType::Int.accepts(SqlType::Double));
        assert!(SqlType::Double.accepts(SqlType::BigInt));
        assert!(!SqlType::String.accepts(SqlType::BigInt));
        assert!(SqlType::SmallInt.accepts(SqlType::TinyInt));
        assert!(!SqlType::TinyInt.accepts(SqlType::Int));
        assert!(!SqlType::Float.accepts(SqlType::Double));
        assert_eq!(SqlType::TinyInt.wrap(300), 44);
        assert_eq!(SqlType::SmallInt.wrap(90_000), 24_464);
    }
}
