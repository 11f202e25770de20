//! Rounding numbers as Flink does: `ROUND(x [, d])` (HALF_UP on the
//! decimal digits Java prints for a DOUBLE, so `ROUND(2.675, 2)` is 2.68),
//! `FLOOR(x)` and `CEIL(x)`, each keeping its argument's type: the
//! functions and their evaluation (compiling them from SQL is
//! `compile_numeric`'s).

use lowwater_core::text::java_double;
use lowwater_core::Value;

/// A rounding function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    /// `FLOOR(x)`.
    Floor,
    /// `CEIL(x)`.
    Ceil,
    /// `ROUND(x, d)` (the digits are the second argument).
    Half,
}

/// `x` rounded HALF_UP to `d` digits after the point (negative: before
/// it), on the digits of `x`'s Java text, as `BigDecimal.valueOf(x)` has
/// them.
fn round_double(x: f64, d: i64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let text = java_double(x);
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.as_str()),
    };
    let (mantissa, exp) = match body.split_once('E') {
        Some((m, e)) => (m, e.parse::<i64>().unwrap_or(0)),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
    // The decimal point sits after `point` digits.
    let point = int.len() as i64 + exp;
    let keep = point.saturating_add(d);
    if keep >= digits.len() as i64 {
        return x;
    }
    if keep < 0 {
        return if neg { -0.0 } else { 0.0 };
    }
    let up = digits[keep as usize] >= 5;
    digits.truncate(keep as usize);
    let mut scale = point;
    if up {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, 1);
                scale += 1;
                break;
            }
            i -= 1;
            if digits[i] == 9 {
                digits[i] = 0;
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    if digits.is_empty() {
        return if neg { -0.0 } else { 0.0 };
    }
    let s: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
    let v: f64 = format!("0.{s}e{scale}").parse().unwrap_or(x);
    if neg {
        -v
    } else {
        v
    }
}

/// A DECIMAL rounded to `to` digits after the point: HALF_UP, or down
/// (FLOOR) or up (CEIL); at scale `max(to, 0)`.
fn round_decimal(r: Round, u: i128, s: u8, to: i64) -> Value {
    use lowwater_core::decimal::{pow10, rescale};
    if to >= i64::from(s) {
        return Value::decimal(u, s);
    }
    let drop = (i64::from(s) - to).min(38) as u8;
    let Some(unit) = pow10(drop) else {
        return Value::decimal(0, 0);
    };
    let q = match r {
        Round::Half => rescale(u, drop, 0).unwrap_or(0),
        Round::Floor => u.div_euclid(unit),
        Round::Ceil => -(-u).div_euclid(unit),
    };
    let scale = to.max(0) as u8;
    // q counts units of 10^-to; a negative `to` leaves zeros before the point.
    match to {
        t if t >= 0 => Value::decimal(q, scale),
        t => Value::decimal(q * pow10((-t).min(38) as u8).unwrap_or(0), 0),
    }
}

/// An integer rounded HALF_UP to `d` digits (only negative `d` changes it).
fn round_int(x: i64, d: i64) -> i64 {
    if d >= 0 {
        return x;
    }
    if d < -18 {
        return 0;
    }
    let p = 10i128.pow((-d) as u32);
    let v = i128::from(x);
    let r = (v.abs() + p / 2) / p * p;
    (if v < 0 { -r } else { r }) as i64
}

/// Evaluates `r` over its arguments.
pub fn eval(r: Round, x: Value, d: Value) -> Value {
    match (r, x) {
        (_, Value::Null) => Value::Null,
        (Round::Floor, Value::Double(f)) => Value::Double(f.floor()),
        (Round::Ceil, Value::Double(f)) => Value::Double(f.ceil()),
        (r, x @ Value::Decimal(..)) => {
            let Some((u, s)) = x.as_decimal() else {
                return Value::Null;
            };
            let to = match (r, d) {
                (Round::Half, Value::Int(d)) => d,
                (Round::Half, _) => return Value::Null,
                _ => 0,
            };
            round_decimal(r, u, s, to)
        }
        (Round::Floor | Round::Ceil, v) => v,
        (Round::Half, x) => match (x, d) {
            (_, Value::Null) => Value::Null,
            (Value::Double(f), Value::Int(d)) => Value::Double(round_double(f, d)),
            (Value::Int(i), Value::Int(d)) => Value::Int(round_int(i, d)),
            (v, _) => v,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_is_half_up_on_the_printed_digits() {
        assert_eq!(round_double(2.675, 2), 2.68);
        assert_eq!(round_double(-2.5, 0), -3.0);
        assert_eq!(round_double(0.125, 2), 0.13);
        assert_eq!(round_double(9.995, 2), 10.0);
        assert_eq!(round_double(1234.5, -2), 1200.0);
        assert_eq!(round_double(1.0641974401757812e8, -3), 1.06420e8);
        assert_eq!(round_double(1.5e-7, 6), 0.0);
        assert_eq!(round_double(3.0, 5), 3.0);
        assert_eq!(round_int(-15, -1), -20);
        assert_eq!(round_int(149, -2), 100);
        assert_eq!(round_int(7, 2), 7);
        assert_eq!(
            round_decimal(Round::Half, -125, 2, 1),
            Value::decimal(-13, 1)
        );
        assert_eq!(
            round_decimal(Round::Half, 563830, 2, 1),
            Value::decimal(56383, 1)
        );
        assert_eq!(
            round_decimal(Round::Floor, -125, 2, 0),
            Value::decimal(-2, 0)
        );
        assert_eq!(
            round_decimal(Round::Ceil, 563830, 2, 0),
            Value::decimal(5639, 0)
        );
        assert_eq!(
            round_decimal(Round::Half, 563830, 2, -2),
            Value::decimal(5600, 0)
        );
    }
}
