//! DECIMAL's type rules and arithmetic, as Flink derives them
//! (`LogicalTypeMerging`): the result type of `+ - * /` over DECIMALs and
//! exact integers, the common type of two, SUM's and AVG's types, and
//! ROUND's; results round HALF_UP to the result's scale and are NULL when
//! they do not fit its precision.

use lowwater_core::decimal::{self as dec, Dec, MAX_PRECISION};
use lowwater_core::Value;

use crate::types::{ArithOp, SqlType};

/// A DECIMAL's (precision, scale).
pub type PS = (u8, u8);

/// Flink's adjustment of a result type beyond 38 digits: the integer
/// digits are kept, the scale shrinks but keeps at least 6 digits.
fn adjust(p: u32, s: u32) -> PS {
    let max = u32::from(MAX_PRECISION);
    if p <= max {
        return (p as u8, s as u8);
    }
    let int_digits = p - s;
    let min_scale = s.min(6);
    let scale = max.saturating_sub(int_digits).max(min_scale);
    (MAX_PRECISION, scale as u8)
}

/// The result type of `a op b` (`None` for `%`, which lowwater does not
/// compute over DECIMALs).
pub fn arith_type(op: ArithOp, a: PS, b: PS) -> Option<PS> {
    let (p1, s1, p2, s2) = (
        u32::from(a.0),
        u32::from(a.1),
        u32::from(b.0),
        u32::from(b.1),
    );
    Some(match op {
        ArithOp::Add | ArithOp::Sub => {
            let s = s1.max(s2);
            adjust((p1 - s1).max(p2 - s2) + s + 1, s)
        }
        ArithOp::Mul => adjust(p1 + p2 + 1, s1 + s2),
        ArithOp::Div => {
            let s = 6.max(s1 + p2 + 1);
            adjust(p1 - s1 + s2 + s, s)
        }
        ArithOp::Mod => return None,
    })
}

/// The type two DECIMALs (or a DECIMAL and an exact integer) meet in
/// (CASE, COALESCE, IF): the larger integer part and the larger scale.
pub fn common(a: PS, b: PS) -> PS {
    let s = a.1.max(b.1);
    let int = (a.0 - a.1).max(b.0 - b.1);
    adjust(u32::from(int) + u32::from(s), u32::from(s))
}

/// SUM's type: DECIMAL(38, s).
pub fn sum_type(a: PS) -> PS {
    (MAX_PRECISION, a.1)
}

/// AVG's type: DECIMAL(38, max(6, s)).
pub fn avg_type(a: PS) -> PS {
    (MAX_PRECISION, a.1.max(6))
}

/// ROUND(x, r)'s type.
pub fn round_type(a: PS, r: i64) -> PS {
    let (p, s) = (i64::from(a.0), i64::from(a.1));
    if r >= s {
        return a;
    }
    if r < 0 {
        return ((1 + p - s).min(38) as u8, 0);
    }
    ((1 + p - s + r).min(38) as u8, r as u8)
}

/// The type a literal such as `12.50` has: DECIMAL(4, 2).
pub fn literal_type(d: Dec) -> PS {
    let digits = dec::digits(d.0).max(d.1 + 1);
    (digits.min(MAX_PRECISION), d.1)
}

fn operand(v: &Value) -> Option<Dec> {
    match v {
        Value::Int(i) => Some((i128::from(*i), 0)),
        Value::Decimal(..) => v.as_decimal(),
        _ => None,
    }
}

/// `a op b` into DECIMAL(`ps`): exact, rounded HALF_UP to its scale, NULL
/// when it does not fit; a division by zero is an error, as in Flink.
pub fn arith(op: ArithOp, ps: PS, a: &Value, b: &Value) -> Result<Value, String> {
    let (Some(x), Some(y)) = (operand(a), operand(b)) else {
        return Ok(Value::Null);
    };
    let exact = match op {
        ArithOp::Add => dec::add(x, y),
        ArithOp::Sub => dec::add(x, (-y.0, y.1)),
        ArithOp::Mul => dec::mul_at(x, y, ps.1).map(|v| (v, ps.1)),
        ArithOp::Div => {
            if y.0 == 0 {
                return Err("Division by zero".into());
            }
            dec::div(x, y, ps.1).map(|v| (v, ps.1))
        }
        ArithOp::Mod => None,
    };
    Ok(exact
        .and_then(|(v, s)| dec::rescale(v, s, ps.1))
        .filter(|v| dec::fits(*v, ps.0))
        .map_or(Value::Null, |v| Value::decimal(v, ps.1)))
}

/// The DECIMAL type an operand of `ty` takes part in arithmetic as.
pub fn operand_type(ty: Option<SqlType>) -> Option<PS> {
    ty.and_then(|t| t.as_decimal())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_types_are_flinks() {
        // Measured on Flink 2.3 (see the compatibility cases).
        assert_eq!(arith_type(ArithOp::Add, (10, 2), (10, 2)), Some((11, 2)));
        assert_eq!(arith_type(ArithOp::Add, (10, 2), (10, 0)), Some((13, 2)));
        assert_eq!(arith_type(ArithOp::Mul, (10, 2), (10, 2)), Some((21, 4)));
        assert_eq!(arith_type(ArithOp::Mul, (10, 0), (2, 1)), Some((13, 1)));
        assert_eq!(arith_type(ArithOp::Div, (10, 2), (10, 2)), Some((23, 13)));
        assert_eq!(arith_type(ArithOp::Div, (10, 0), (10, 2)), Some((23, 11)));
        assert_eq!(arith_type(ArithOp::Div, (38, 2), (19, 0)), Some((38, 6)));
        assert_eq!(common((10, 2), (10, 0)), (12, 2));
        assert_eq!(common((10, 2), (2, 1)), (10, 2));
        assert_eq!(round_type((10, 2), 1), (10, 1));
        assert_eq!(avg_type((13, 1)), (38, 6));
        assert_eq!(literal_type((15, 1)), (2, 1));
        assert_eq!(literal_type((5, 3)), (4, 3), "0.005 is DECIMAL(4, 3)");
    }

    #[test]
    fn arithmetic_is_exact_and_overflows_to_null() {
        let d = |v, s| Value::decimal(v, s);
        assert_eq!(
            arith(ArithOp::Div, (21, 13), &d(563830, 2), &Value::Int(3)),
            Ok(d(18794333333333333, 13))
        );
        assert_eq!(
            arith(ArithOp::Add, (11, 2), &d(9999999999, 2), &d(9999999999, 2)),
            Ok(d(19999999998, 2))
        );
        assert_eq!(
            arith(ArithOp::Mul, (3, 1), &d(999, 1), &d(999, 1)),
            Ok(Value::Null),
            "9980.01 does not fit DECIMAL(3, 1)"
        );
        assert_eq!(
            arith(ArithOp::Mul, (13, 1), &Value::Int(3), &d(15, 1)),
            Ok(d(45, 1))
        );
        assert!(arith(ArithOp::Div, (21, 13), &d(1, 0), &Value::Int(0)).is_err());
    }
}
