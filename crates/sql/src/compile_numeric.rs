//! Compiling the rounding functions of [`crate::numeric`] from SQL:
//! `ROUND(x [, d])`, `FLOOR(x)` and `CEIL(x)` over numbers, each of its
//! argument's type (a DECIMAL's narrowed as Flink's). The argument is
//! compiled with the [`Compile`] the expression compiler hands down.

use lowwater_core::Value;
use sqlparser::ast::{CeilFloorKind, DateTimeField, Expr as AstExpr};

use crate::ast::expr_loc;
use crate::error::{Loc, Result, SqlError};
use crate::expr::{Compile, Expr, Scope, Typed};
use crate::functions::Func;
use crate::numeric::Round;
use crate::types::SqlType;

fn err<T>(e: &AstExpr, loc: Loc, msg: impl Into<String>) -> Result<T> {
    Err(SqlError::new(expr_loc(e, loc), msg))
}

fn numeric(
    x: &AstExpr,
    scope: &dyn Scope,
    loc: Loc,
    compile: Compile,
    what: &str,
) -> Result<Typed> {
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
/// `compile_temporal`). `None`: not one.
pub fn special(
    e: &AstExpr,
    scope: &dyn Scope,
    loc: Loc,
    compile: Compile,
) -> Option<Result<Typed>> {
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
    Some(numeric(x, scope, loc, compile, name).map(|t| {
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
    compile: Compile,
) -> Option<Result<Typed>> {
    if name != "ROUND" || args.is_empty() || args.len() > 2 {
        return None;
    }
    Some((|| {
        let t = numeric(args[0], scope, loc, compile, "ROUND")?;
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
