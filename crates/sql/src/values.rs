//! Operations on values, with Flink's rules: arithmetic (integers wrap as
//! Java's, DECIMAL is exact), narrowing to a type, CAST, and SQL truth,
//! order and equality (NULL is unknown).

use lowwater_core::time::parse_timestamp;
use lowwater_core::Value;

use crate::types::{ArithOp, SqlType};

/// `a op b` over values of the operation's operand types (DECIMAL
/// arithmetic is [`crate::decimal`]'s, not this).
pub fn arith(op: ArithOp, a: &Value, b: &Value) -> std::result::Result<Value, String> {
    Ok(match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Value::Null,
        (Value::Int(x), Value::Int(y)) => Value::Int(match op {
            ArithOp::Add => x.wrapping_add(*y),
            ArithOp::Sub => x.wrapping_sub(*y),
            ArithOp::Mul => x.wrapping_mul(*y),
            ArithOp::Div | ArithOp::Mod if *y == 0 => {
                return Err(format!(
                    "division by zero ({x} {} 0)",
                    if op == ArithOp::Div { "/" } else { "%" }
                ))
            }
            ArithOp::Div => x.wrapping_div(*y),
            ArithOp::Mod => x.wrapping_rem(*y),
        }),
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => Value::Double(match op {
                ArithOp::Add => x + y,
                ArithOp::Sub => x - y,
                ArithOp::Mul => x * y,
                ArithOp::Div => x / y,
                ArithOp::Mod => x % y,
            }),
            _ => Value::Null,
        },
    })
}

/// `v` narrowed to `ty` (integers wrapped, FLOAT rounded to 32 bits).
pub fn narrow(v: Value, ty: SqlType) -> Value {
    match v {
        Value::Int(i) => Value::Int(ty.wrap(i)),
        Value::Double(d) if ty == SqlType::Float => Value::Double(f64::from(d as f32)),
        v => v,
    }
}

/// `CAST(v AS ty)` as Flink computes it (narrowing integer casts wrap,
/// floating point saturates, text is parsed; DECIMAL rounds HALF_UP and is
/// NULL when the value does not fit).
pub fn cast(v: Value, ty: SqlType) -> std::result::Result<Value, String> {
    let bad = |v: &Value| format!("cannot CAST '{v}' to {}", ty.name());
    Ok(match (ty, &v) {
        (_, Value::Null) => Value::Null,
        (SqlType::Decimal(p, s), Value::Str(t)) => {
            if lowwater_core::decimal::parse(t).is_none() {
                return Err(bad(&v));
            }
            v.coerce_decimal(p, s)
        }
        (SqlType::Decimal(p, s), _) => v.coerce_decimal(p, s),
        // DECIMAL to an integer truncates toward zero, then narrows.
        (t, Value::Decimal(..)) if t.is_integer() => match v.as_decimal() {
            Some((u, s)) => {
                let whole = u / lowwater_core::decimal::pow10(s).unwrap_or(1);
                Value::Int(t.wrap(whole as i64))
            }
            None => Value::Null,
        },
        (SqlType::Double | SqlType::Float, Value::Decimal(..)) => {
            let d = v.as_f64().unwrap_or(0.0);
            Value::Double(if ty == SqlType::Float {
                f64::from(d as f32)
            } else {
                d
            })
        }
        (SqlType::String, Value::Timestamp(t)) => {
            Value::str(&lowwater_core::time::format_timestamp(*t, ' '))
        }
        (SqlType::String, Value::Double(d)) => Value::str(&lowwater_core::text::java_double(*d)),
        (SqlType::String, other) => Value::str(&other.to_string()),
        // Narrowing casts wrap as Java's do (CAST(300 AS TINYINT) = 44).
        (t, Value::Int(i)) if t.is_integer() => Value::Int(t.wrap(*i)),
        // From floating point as Java's (int) / (long) casts: saturating,
        // then narrowed (TINYINT is (byte)(int)d).
        (t, Value::Double(d)) if t.is_integer() => Value::Int(match t {
            SqlType::BigInt => *d as i64,
            t => t.wrap(i64::from(*d as i32)),
        }),
        // From text as Flink's toInt/toLong: a fraction is truncated, a
        // value out of the type's range fails.
        (t, Value::Str(s)) if t.is_integer() => {
            let s = s.trim();
            let i = match s.parse::<i64>() {
                Ok(i) => i,
                Err(_) => match s.parse::<f64>() {
                    Ok(d) if d.is_finite() && s.contains('.') => d.trunc() as i64,
                    _ => return Err(bad(&v)),
                },
            };
            if t.wrap(i) != i {
                return Err(format!("cannot CAST '{s}' to {}: out of range", t.name()));
            }
            Value::Int(i)
        }
        (SqlType::Float, _) => match cast(v.clone(), SqlType::Double)? {
            Value::Double(d) => Value::Double(f64::from(d as f32)),
            other => other,
        },
        (SqlType::Double, Value::Int(i)) => Value::Double(*i as f64),
        (SqlType::Double, Value::Double(_)) => v,
        (SqlType::Double, Value::Str(s)) => Value::Double(s.trim().parse().map_err(|_| bad(&v))?),
        (SqlType::Boolean, Value::Bool(_)) => v,
        (SqlType::Boolean, Value::Str(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(bad(&v)),
        },
        (SqlType::Timestamp | SqlType::TimestampLtz, Value::Timestamp(_)) => v,
        (SqlType::Timestamp | SqlType::TimestampLtz, Value::Str(s)) => {
            Value::Timestamp(parse_timestamp(s).ok_or_else(|| bad(&v))?)
        }
        _ => return Err(bad(&v)),
    })
}

/// SQL truth of a value: `None` for NULL (and non-booleans).
pub fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

/// How `a` orders against `b` (numbers by value across INT and DOUBLE);
/// `None` if either is NULL.
pub fn order(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    let exact = |v: &Value| match v {
        Value::Int(i) => Some((i128::from(*i), 0)),
        Value::Decimal(..) => v.as_decimal(),
        _ => None,
    };
    Some(match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if matches!(a, Value::Double(_)) || matches!(b, Value::Double(_)) => {
            x.total_cmp(&y)
        }
        // DECIMAL against DECIMAL or an integer: by value (100.00 = 100).
        _ => match (exact(a), exact(b)) {
            (Some(x), Some(y)) => lowwater_core::decimal::cmp(x, y),
            _ => a.cmp(b),
        },
    })
}

/// SQL `=`: `None` if either is NULL.
pub fn equal(a: &Value, b: &Value) -> Option<bool> {
    order(a, b).map(|o| o == std::cmp::Ordering::Equal)
}
