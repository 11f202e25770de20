//! Compiling the scalar functions and predicates of [`crate::functions`]
//! from SQL, with Flink's result types (the least restrictive type of
//! their arguments for COALESCE, IF, NULLIF and CASE): the calls, and the
//! SQL forms that are not calls (`CASE`, `LIKE`, `IN`, `BETWEEN`,
//! `SUBSTRING(.. FROM ..)`, `TRIM`, `IS DISTINCT FROM`). Their arguments
//! are compiled with the [`Compile`] the expression compiler hands down.

use lowwater_core::Value;
use sqlparser::ast::{CastKind, Expr as AstExpr, InTarget, TrimWhereField, Value as AstValue};

use crate::ast::expr_loc;
use crate::error::{Loc, Result, SqlError};
use crate::expr::{Compile, Expr, Scope, Typed};
use crate::functions::Func;
use crate::types::SqlType;

fn err<T>(e: &AstExpr, loc: Loc, msg: impl Into<String>) -> Result<T> {
    Err(SqlError::new(expr_loc(e, loc), msg))
}

/// The type both `a` and `b` convert to (Flink's least restrictive type).
fn common(a: Option<SqlType>, b: Option<SqlType>) -> std::result::Result<Option<SqlType>, String> {
    Ok(match (a, b) {
        (None, t) | (t, None) => t,
        (Some(x), Some(y)) if x == y => Some(x),
        (Some(x), Some(y)) if x.is_numeric() && y.is_numeric() => {
            let dec = matches!(x, SqlType::Decimal(..)) || matches!(y, SqlType::Decimal(..));
            if dec && x.as_decimal().is_some() && y.as_decimal().is_some() {
                let (p, s) = crate::decimal::common(
                    x.as_decimal().unwrap_or((10, 0)),
                    y.as_decimal().unwrap_or((10, 0)),
                );
                Some(SqlType::Decimal(p, s))
            } else if x == SqlType::Double || y == SqlType::Double || dec {
                Some(SqlType::Double)
            } else if x == SqlType::Float || y == SqlType::Float {
                Some(SqlType::Float)
            } else if x.int_bits() >= y.int_bits() {
                Some(x)
            } else {
                Some(y)
            }
        }
        (Some(x), Some(y)) => {
            return Err(format!("{} and {} have no common type", x.name(), y.name()))
        }
    })
}

fn typed(expr: Expr, ty: Option<SqlType>) -> Typed {
    Typed { expr, ty }
}

fn call(f: Func, args: Vec<Expr>, ty: Option<SqlType>) -> Typed {
    typed(Expr::Call(f, args), ty)
}

fn string_arg(
    e: &AstExpr,
    scope: &dyn Scope,
    loc: Loc,
    compile: Compile,
    what: &str,
) -> Result<Expr> {
    let t = compile(e, scope, loc)?;
    if !t.ty.is_none_or(|t| t == SqlType::String) {
        return err(
            e,
            loc,
            format!(
                "{what} needs a STRING, found {}",
                t.ty.map_or("NULL", |t| t.name())
            ),
        );
    }
    Ok(t.expr)
}

/// Compiles the SQL forms that are not function calls (`CASE`, `LIKE`,
/// `IN`, `BETWEEN`, `SUBSTRING(.. FROM ..)`, `TRIM`, `IS DISTINCT FROM`);
/// `None` if `e` is none of them.
pub fn special(
    e: &AstExpr,
    scope: &dyn Scope,
    loc: Loc,
    compile: Compile,
) -> Option<Result<Typed>> {
    Some(match e {
        AstExpr::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char,
        } => (|| {
            let esc = match escape_char.as_deref() {
                None => None,
                Some(AstExpr::Value(v)) => match &v.value {
                    AstValue::SingleQuotedString(s) if s.chars().count() == 1 => s.chars().next(),
                    _ => return err(e, loc, "ESCAPE needs one character in quotes"),
                },
                Some(_) => return err(e, loc, "ESCAPE needs one character in quotes"),
            };
            let a = string_arg(expr, scope, loc, compile, "LIKE")?;
            let p = string_arg(pattern, scope, loc, compile, "LIKE")?;
            Ok(call(
                Func::Like(*negated, esc),
                vec![a, p],
                Some(SqlType::Boolean),
            ))
        })(),
        AstExpr::In {
            expr,
            target: InTarget::List(list),
            negated,
            ..
        } => (|| {
            let a = compile(expr, scope, loc)?;
            let mut args = vec![a.expr];
            for x in list {
                let t = compile(x, scope, loc)?;
                common(a.ty, t.ty)
                    .map_err(|m| SqlError::new(expr_loc(x, loc), format!("IN: {m}")))?;
                args.push(t.expr);
            }
            Ok(call(Func::In(*negated), args, Some(SqlType::Boolean)))
        })(),
        AstExpr::Between {
            expr,
            negated,
            low,
            high,
        } => (|| {
            let mut args = Vec::new();
            let mut ty = None;
            for x in [expr, low, high] {
                let t = compile(x, scope, loc)?;
                ty = common(ty, t.ty)
                    .map_err(|m| SqlError::new(expr_loc(x, loc), format!("BETWEEN: {m}")))?;
                args.push(t.expr);
            }
            Ok(call(Func::Between(*negated), args, Some(SqlType::Boolean)))
        })(),
        AstExpr::Cast {
            kind: CastKind::TryCast,
            expr,
            data_type,
            format,
        } => (|| {
            let cast = AstExpr::Cast {
                kind: CastKind::Cast,
                expr: expr.clone(),
                data_type: data_type.clone(),
                format: format.clone(),
            };
            let t = compile(&cast, scope, loc)?;
            Ok(call(Func::Try, vec![t.expr], t.ty))
        })(),
        AstExpr::IsDistinctFrom(a, b) | AstExpr::IsNotDistinctFrom(a, b) => (|| {
            let not = matches!(e, AstExpr::IsNotDistinctFrom(..));
            let (x, y) = (compile(a, scope, loc)?, compile(b, scope, loc)?);
            common(x.ty, y.ty).map_err(|m| SqlError::new(expr_loc(e, loc), m))?;
            Ok(call(
                Func::DistinctFrom(not),
                vec![x.expr, y.expr],
                Some(SqlType::Boolean),
            ))
        })(),
        AstExpr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => (|| {
            if substring_from.is_none() {
                return err(
                    e,
                    loc,
                    "SUBSTRING needs a start position: SUBSTRING(s FROM a [FOR n])",
                );
            }
            let s = string_arg(expr, scope, loc, compile, "SUBSTRING")?;
            let mut args = vec![s];
            for x in [substring_from, substring_for].into_iter().flatten() {
                let t = compile(x, scope, loc)?;
                if !t.ty.is_none_or(|t| t.is_integer()) {
                    return err(x, loc, "SUBSTRING's position and length are integers");
                }
                args.push(t.expr);
            }
            if args.len() < 2 {
                return err(e, loc, "SUBSTRING needs a start position");
            }
            Ok(call(Func::Substring, args, Some(SqlType::String)))
        })(),
        AstExpr::Trim {
            expr,
            trim_where,
            trim_what,
            trim_characters,
        } => (|| {
            if trim_characters.is_some() {
                return err(
                    e,
                    loc,
                    "TRIM with a character list is not supported; use TRIM(BOTH 'x' FROM s)",
                );
            }
            let (lead, trail) = match trim_where {
                None | Some(TrimWhereField::Both) => (true, true),
                Some(TrimWhereField::Leading) => (true, false),
                Some(TrimWhereField::Trailing) => (false, true),
            };
            let s = string_arg(expr, scope, loc, compile, "TRIM")?;
            let what = match trim_what {
                Some(w) => string_arg(w, scope, loc, compile, "TRIM")?,
                None => Expr::Literal(Value::str(" ")),
            };
            Ok(call(
                Func::Trim(lead, trail),
                vec![s, what],
                Some(SqlType::String),
            ))
        })(),
        AstExpr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => (|| {
            let mut args = Vec::new();
            let op = match operand {
                Some(o) => {
                    let t = compile(o, scope, loc)?;
                    args.push(t.expr);
                    Some(t.ty)
                }
                None => None,
            };
            let mut ty = None;
            for w in conditions {
                let c = compile(&w.condition, scope, loc)?;
                match op {
                    Some(ot) => {
                        common(ot, c.ty).map_err(|m| {
                            SqlError::new(expr_loc(&w.condition, loc), format!("CASE: {m}"))
                        })?;
                    }
                    None if !c.ty.is_none_or(|t| t == SqlType::Boolean) => {
                        return err(&w.condition, loc, "CASE WHEN needs a BOOLEAN condition")
                    }
                    None => {}
                }
                let r = compile(&w.result, scope, loc)?;
                ty = common(ty, r.ty)
                    .map_err(|m| SqlError::new(expr_loc(&w.result, loc), format!("CASE: {m}")))?;
                args.push(c.expr);
                args.push(r.expr);
            }
            let other = match else_result {
                Some(x) => {
                    let r = compile(x, scope, loc)?;
                    ty = common(ty, r.ty)
                        .map_err(|m| SqlError::new(expr_loc(x, loc), format!("CASE: {m}")))?;
                    r.expr
                }
                None => Expr::Literal(Value::Null),
            };
            args.push(other);
            let rt = ty.unwrap_or(SqlType::String);
            Ok(call(Func::Case(operand.is_some(), rt), args, ty))
        })(),
        _ => return None,
    })
}

/// Compiles a call of scalar function `name`; `None` if it is not one.
pub fn function(
    e: &AstExpr,
    name: &str,
    args: &[&AstExpr],
    scope: &dyn Scope,
    loc: Loc,
    compile: Compile,
) -> Option<Result<Typed>> {
    let compiled = |xs: &[&AstExpr]| -> Result<Vec<Typed>> {
        xs.iter().map(|x| compile(x, scope, loc)).collect()
    };
    let known = || -> Result<Option<Typed>> {
        let r = match (name, args) {
            ("UPPER" | "LOWER", [s]) => {
                let f = if name == "UPPER" {
                    Func::Upper
                } else {
                    Func::Lower
                };
                Ok(call(
                    f,
                    vec![string_arg(s, scope, loc, compile, name)?],
                    Some(SqlType::String),
                ))
            }
            ("CHAR_LENGTH" | "CHARACTER_LENGTH", [s]) => Ok(call(
                Func::CharLength,
                vec![string_arg(s, scope, loc, compile, name)?],
                Some(SqlType::Int),
            )),
            ("CONCAT", xs) if !xs.is_empty() => {
                let v = xs
                    .iter()
                    .map(|x| string_arg(x, scope, loc, compile, name))
                    .collect::<Result<_>>()?;
                Ok(call(Func::Concat, v, Some(SqlType::String)))
            }
            ("CONCAT_WS", xs) if xs.len() >= 2 => {
                let v = xs
                    .iter()
                    .map(|x| string_arg(x, scope, loc, compile, name))
                    .collect::<Result<_>>()?;
                Ok(call(Func::ConcatWs, v, Some(SqlType::String)))
            }
            ("COALESCE", xs) if !xs.is_empty() => {
                let ts = compiled(xs)?;
                let mut ty = None;
                for (t, x) in ts.iter().zip(xs) {
                    ty = common(ty, t.ty)
                        .map_err(|m| SqlError::new(expr_loc(x, loc), format!("COALESCE: {m}")))?;
                }
                let rt = ty.unwrap_or(SqlType::String);
                Ok(call(
                    Func::Coalesce(rt),
                    ts.into_iter().map(|t| t.expr).collect(),
                    ty,
                ))
            }
            ("IF", [c, a, b]) => {
                let ts = compiled(&[c, a, b])?;
                if !ts[0].ty.is_none_or(|t| t == SqlType::Boolean) {
                    return err(c, loc, "IF needs a BOOLEAN condition");
                }
                let ty = common(ts[1].ty, ts[2].ty)
                    .map_err(|m| SqlError::new(expr_loc(e, loc), format!("IF: {m}")))?;
                let rt = ty.unwrap_or(SqlType::String);
                Ok(call(
                    Func::If(rt),
                    ts.into_iter().map(|t| t.expr).collect(),
                    ty,
                ))
            }
            ("NULLIF", [a, b]) => {
                let ts = compiled(&[a, b])?;
                common(ts[0].ty, ts[1].ty)
                    .map_err(|m| SqlError::new(expr_loc(e, loc), format!("NULLIF: {m}")))?;
                let ty = ts[0].ty;
                Ok(call(
                    Func::NullIf,
                    ts.into_iter().map(|t| t.expr).collect(),
                    ty,
                ))
            }
            ("POWER", [a, b]) => {
                let ts = compiled(&[a, b])?;
                if !ts.iter().all(|t| t.ty.is_none_or(|t| t.is_numeric())) {
                    return err(e, loc, "POWER needs numbers");
                }
                Ok(call(
                    Func::Power,
                    ts.into_iter().map(|t| t.expr).collect(),
                    Some(SqlType::Double),
                ))
            }
            ("SQRT", [x]) => {
                let t = compile(x, scope, loc)?;
                if !t.ty.is_none_or(|t| t.is_numeric()) {
                    return err(x, loc, "SQRT needs a number");
                }
                Ok(call(
                    Func::Power,
                    vec![t.expr, Expr::Literal(Value::Double(0.5))],
                    Some(SqlType::Double),
                ))
            }
            ("ABS", [x]) => {
                let t = compile(x, scope, loc)?;
                if !t.ty.is_none_or(|t| t.is_numeric()) {
                    return err(x, loc, "ABS needs a number");
                }
                let abs = Expr::Call(Func::Abs, vec![t.expr]);
                let abs = match t.ty {
                    Some(n @ (SqlType::TinyInt | SqlType::SmallInt | SqlType::Int)) => {
                        Expr::Narrow(Box::new(abs), n)
                    }
                    _ => abs,
                };
                Ok(typed(abs, t.ty))
            }
            ("MOD", [a, b]) => {
                let ts = compiled(&[a, b])?;
                if !ts.iter().all(|t| t.ty.is_none_or(|t| t.is_integer())) {
                    return err(e, loc, "MOD needs integers");
                }
                // Calcite types MOD as its second argument.
                let ty = ts[1].ty;
                let rt = ty.unwrap_or(SqlType::Int);
                Ok(call(
                    Func::Mod(rt),
                    ts.into_iter().map(|t| t.expr).collect(),
                    ty,
                ))
            }
            // Not one of these functions (or not with this many arguments).
            _ => return Ok(None),
        };
        r.map(Some)
    };
    known().transpose()
}
