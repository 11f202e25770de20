//! Rounding numbers as Flink does: `ROUND(x [, d])` (HALF_UP on the
//! decimal digits Java prints for a DOUBLE, so `ROUND(2.675, 2)` is 2.68),
//! `FLOOR(x)` and `CEIL(x)`, each keeping its argument's type.

use lowwater_core::text::java_double;
use lowwater_core::Value;
use sqlparser::ast::{CeilFloorKind, DateTimeField, Expr as AstExpr};

use crate::ast::expr_loc;
use crate::error::{Loc, Result, SqlError};
use crate::expr::{compile, Expr, Scope, Typed};
use crate::functions::Func;
use crate::types::SqlType;

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

fn err<T>(e: &AstExpr, loc: Loc, msg: impl Into<String>) -> Result<T> {
    Err(SqlError::new(expr_loc(e, loc), msg))
}

fn numeric(x: &AstExpr, scope: &dyn Scope, loc: Loc, what: &str) -> Result<Typed> {
    let t = compile(x, scope, loc)?;
    if !t.ty.is_none_or(|t| t.is_numeric()) {
        return err(
            x,
            loc,
            format!(
                "{what} needs a number, found {}",
                t.ty.map_or("NULL", |t| t.name())
            ),
        );
    }
    Ok(t)
}

fn call(r: Round, args: Vec<Expr>, ty: Option<SqlType>) -> Typed {
    let expr = Expr::Call(Func::Round(r), args);
    // The result keeps the argument's type: an INT rounded to tens wraps
    // as Java's int arithmetic does.
    let expr = match ty {
        Some(t @ (SqlType::TinyInt | SqlType::SmallInt | SqlType::Int | SqlType::Float)) => {
            Expr::Narrow(Box::new(expr), t)
        }
        _ => expr,
    };
    Typed { expr, ty }
}

/// `FLOOR(x)` and `CEIL(x)` over numbers (the time forms are in
/// [`crate::temporal`]). `None`: not one.
pub fn special(e: &AstExpr, scope: &dyn Scope, loc: Loc) -> Option<Result<Typed>> {
    let (x, r) = match e {
        AstExpr::Floor {
            expr,
            field: CeilFloorKind::DateTimeField(DateTimeField::NoDateTime),
        } => (expr, Round::Floor),
        AstExpr::Ceil {
            expr,
            field: CeilFloorKind::DateTimeField(DateTimeField::NoDateTime),
        } => (expr, Round::Ceil),
        _ => return None,
    };
    let name = if r == Round::Floor { "FLOOR" } else { "CEIL" };
    Some(numeric(x, scope, loc, name).map(|t| {
        // FLOOR and CEIL of DECIMAL(p, s) are DECIMAL(p, 0).
        let ty = match t.ty {
            Some(SqlType::Decimal(p, _)) => Some(SqlType::Decimal(p, 0)),
            other => other,
        };
        call(r, vec![t.expr], ty)
    }))
}

/// The value of a literal integer expression (`2`, `-1`).
fn literal_int(e: &Expr) -> Option<i64> {
    match e {
        Expr::Literal(Value::Int(r)) => Some(*r),
        Expr::Neg(x) => literal_int(x).map(|r| -r),
        Expr::Narrow(x, _) => literal_int(x),
        _ => None,
    }
}

/// `ROUND(x [, d])`. `None`: not it.
pub fn function(
    name: &str,
    args: &[&AstExpr],
    scope: &dyn Scope,
    loc: Loc,
) -> Option<Result<Typed>> {
    if name != "ROUND" || args.is_empty() || args.len() > 2 {
        return None;
    }
    Some((|| {
        let t = numeric(args[0], scope, loc, "ROUND")?;
        let d = match args.get(1) {
            Some(d) => {
                let dt = compile(d, scope, loc)?;
                if !dt.ty.is_none_or(|t| t.is_integer()) {
                    return err(d, loc, "ROUND's digits must be an integer");
                }
                dt.expr
            }
            None => Expr::Literal(Value::Int(0)),
        };
        // ROUND of a DECIMAL has Flink's narrower type, which needs the
        // digits as a literal.
        // A literal number of digits, negative ones included (`-1` is
        // compiled as a negation, narrowed to INT).
        let ty = match (t.ty, literal_int(&d)) {
            (Some(SqlType::Decimal(p, s)), Some(r)) => {
                let (p, s) = crate::decimal::round_type((p, s), r);
                Some(SqlType::Decimal(p, s))
            }
            (Some(SqlType::Decimal(..)), _) => {
                return err(
                    args[1],
                    loc,
                    "ROUND of a DECIMAL needs its digits as a number",
                )
            }
            (ty, _) => ty,
        };
        Ok(call(Round::Half, vec![t.expr, d], ty))
    })())
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
