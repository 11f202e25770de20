//! Scalar functions and predicates beyond arithmetic and comparison, with
//! Flink's result types and NULL rules: `UPPER`, `LOWER`, `CHAR_LENGTH`,
//! `CONCAT` (NULL if any argument is), `CONCAT_WS` (skips NULLs),
//! `SUBSTRING`/`SUBSTR`, `TRIM`, `COALESCE`, `IF`, `NULLIF`, `ABS`, `MOD`,
//! `POWER`, `SQRT`,
//! `CASE`, `LIKE`, `IN`, `BETWEEN`, `IS [NOT] DISTINCT FROM`.

use lowwater_core::Value;
use sqlparser::ast::{CastKind, Expr as AstExpr, InTarget, TrimWhereField, Value as AstValue};

use crate::ast::expr_loc;
use crate::error::{Loc, Result, SqlError};
use crate::expr::{compile, Expr, Scope, Typed};
use crate::types::SqlType;

/// A scalar function or predicate.
#[derive(Debug, Clone, PartialEq)]
pub enum Func {
    /// `UPPER(s)`.
    Upper,
    /// `LOWER(s)`.
    Lower,
    /// `CHAR_LENGTH(s)`.
    CharLength,
    /// `CONCAT(a, b, ...)`.
    Concat,
    /// `CONCAT_WS(sep, a, ...)`.
    ConcatWs,
    /// `SUBSTRING(s FROM a [FOR n])`.
    Substring,
    /// `TRIM([BOTH|LEADING|TRAILING] [chars] FROM s)`: (leading, trailing).
    Trim(bool, bool),
    /// `COALESCE(a, ...)` (the result type's conversion applied).
    Coalesce(SqlType),
    /// `IF(cond, a, b)`.
    If(SqlType),
    /// `NULLIF(a, b)`.
    NullIf,
    /// `ABS(x)`.
    Abs,
    /// `POWER(a, b)` (and `SQRT(x)` as `POWER(x, 0.5)`), a DOUBLE.
    Power,
    /// A FLOAT as text (`CAST(f AS STRING)`), with `Float.toString` digits.
    FloatText,
    /// `MOD(a, b)`.
    Mod(SqlType),
    /// `CASE [operand] WHEN .. THEN .. [ELSE ..] END`: arguments are
    /// `[operand,] (when, then)*, else`.
    Case(bool, SqlType),
    /// `[NOT] LIKE pattern [ESCAPE c]`.
    Like(bool, Option<char>),
    /// `[NOT] IN (list)`.
    In(bool),
    /// `[NOT] BETWEEN low AND high`.
    Between(bool),
    /// `IS [NOT] DISTINCT FROM` (`true`: NOT).
    DistinctFrom(bool),
    /// A time function ([`crate::temporal`]).
    Time(crate::temporal::TimeFn),
    /// `ROUND`, `FLOOR`, `CEIL` over numbers ([`crate::numeric`]).
    Round(crate::numeric::Round),
    /// A regular-expression function ([`crate::regex_fns`]).
    Regex(crate::regex_fns::RegexFn),
    /// `TRY_CAST`: the cast, or NULL where it fails.
    Try,
    /// DECIMAL arithmetic into DECIMAL(p, s) ([`crate::decimal::arith`]).
    DecArith(crate::types::ArithOp, u8, u8),
}

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

fn string_arg(e: &AstExpr, scope: &dyn Scope, loc: Loc, what: &str) -> Result<Expr> {
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
pub fn special(e: &AstExpr, scope: &dyn Scope, loc: Loc) -> Option<Result<Typed>> {
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
            let a = string_arg(expr, scope, loc, "LIKE")?;
            let p = string_arg(pattern, scope, loc, "LIKE")?;
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
            let s = string_arg(expr, scope, loc, "SUBSTRING")?;
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
            let s = string_arg(expr, scope, loc, "TRIM")?;
            let what = match trim_what {
                Some(w) => string_arg(w, scope, loc, "TRIM")?,
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
                    vec![string_arg(s, scope, loc, name)?],
                    Some(SqlType::String),
                ))
            }
            ("CHAR_LENGTH" | "CHARACTER_LENGTH", [s]) => Ok(call(
                Func::CharLength,
                vec![string_arg(s, scope, loc, name)?],
                Some(SqlType::Int),
            )),
            ("CONCAT", xs) if !xs.is_empty() => {
                let v = xs
                    .iter()
                    .map(|x| string_arg(x, scope, loc, name))
                    .collect::<Result<_>>()?;
                Ok(call(Func::Concat, v, Some(SqlType::String)))
            }
            ("CONCAT_WS", xs) if xs.len() >= 2 => {
                let v = xs
                    .iter()
                    .map(|x| string_arg(x, scope, loc, name))
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

/// `v` converted to `ty` where a common type widens it (an integer into a
/// DOUBLE or FLOAT result).
fn widen(v: Value, ty: SqlType) -> Value {
    match (v, ty) {
        (v, SqlType::Decimal(p, s)) if !v.is_null() => lowwater_core::decimal::coerce(&v, p, s),
        (v @ Value::Decimal(..), SqlType::Double) => Value::Double(v.as_f64().unwrap_or(0.0)),
        (Value::Int(i), SqlType::Double) => Value::Double(i as f64),
        (Value::Int(i), SqlType::Float) => Value::Double(f64::from(i as f32)),
        (v, _) => v,
    }
}

fn text(v: &Value) -> Option<&str> {
    match v {
        Value::Str(s) => Some(s),
        _ => None,
    }
}

/// SQL `LIKE`: `%` any run, `_` one character, `esc` escapes them (and
/// only them, or itself: anything else is an error, as in Flink).
fn like(s: &str, p: &str, esc: Option<char>) -> std::result::Result<bool, String> {
    let s: Vec<char> = s.chars().collect();
    let mut pat: Vec<(char, bool)> = Vec::new(); // (char, literal)
    let mut it = p.chars();
    while let Some(c) = it.next() {
        if Some(c) == esc {
            match it.next() {
                Some(n) if n == '%' || n == '_' || Some(n) == esc => pat.push((n, true)),
                _ => return Err(format!("Invalid escape sequence '{p}'")),
            }
        } else {
            pat.push((c, false));
        }
    }
    // Iterative matching with backtracking on the last '%'.
    let (mut i, mut j) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while i < s.len() {
        if j < pat.len() && !pat[j].1 && pat[j].0 == '%' {
            star = Some(j);
            mark = i;
            j += 1;
        } else if j < pat.len() && ((!pat[j].1 && pat[j].0 == '_') || pat[j].0 == s[i]) {
            i += 1;
            j += 1;
        } else if let Some(st) = star {
            j = st + 1;
            mark += 1;
            i = mark;
        } else {
            return Ok(false);
        }
    }
    while j < pat.len() && !pat[j].1 && pat[j].0 == '%' {
        j += 1;
    }
    Ok(j == pat.len())
}

/// Evaluates `f` over its evaluated arguments.
pub fn eval(f: &Func, args: &[Expr], row: &[Value]) -> std::result::Result<Value, String> {
    let arg = |i: usize| -> std::result::Result<Value, String> {
        args.get(i).map_or(Ok(Value::Null), |a| a.eval(row))
    };
    Ok(match f {
        Func::Upper | Func::Lower => match arg(0)? {
            Value::Str(s) => Value::str(&if *f == Func::Upper {
                s.to_uppercase()
            } else {
                s.to_lowercase()
            }),
            _ => Value::Null,
        },
        Func::CharLength => match arg(0)? {
            Value::Str(s) => Value::Int(s.chars().count() as i64),
            _ => Value::Null,
        },
        Func::Concat => {
            let mut out = String::new();
            for i in 0..args.len() {
                match arg(i)? {
                    Value::Str(s) => out.push_str(&s),
                    _ => return Ok(Value::Null),
                }
            }
            Value::str(&out)
        }
        Func::ConcatWs => {
            let Value::Str(sep) = arg(0)? else {
                return Ok(Value::Null);
            };
            let mut parts = Vec::new();
            for i in 1..args.len() {
                if let Value::Str(s) = arg(i)? {
                    parts.push(s.to_string());
                }
            }
            Value::str(&parts.join(&sep))
        }
        Func::Substring => {
            let (s, start) = (arg(0)?, arg(1)?);
            let (Some(s), Value::Int(start)) = (text(&s), start) else {
                return Ok(Value::Null);
            };
            let len = match arg(2)? {
                Value::Null if args.len() > 2 => return Ok(Value::Null),
                Value::Int(n) => Some(n),
                _ => None,
            };
            let chars: Vec<char> = s.chars().collect();
            let n = chars.len() as i64;
            // SQL positions count from 1; Flink reads 0 as 1 and a negative
            // start from the end.
            let begin = if start > 0 {
                start - 1
            } else if start == 0 {
                0
            } else if n + start < 0 {
                // Flink: a negative start before the beginning is ''.
                return Ok(Value::str(""));
            } else {
                n + start
            };
            if len.is_some_and(|l| l < 0) {
                return Ok(Value::Null);
            }
            let end = len.map_or(n, |l| begin.saturating_add(l).min(n));
            if begin >= n || end <= begin {
                return Ok(Value::str(""));
            }
            Value::str(
                &chars[begin as usize..end as usize]
                    .iter()
                    .collect::<String>(),
            )
        }
        Func::Trim(lead, trail) => {
            let (s, what) = (arg(0)?, arg(1)?);
            let (Some(s), Some(w)) = (text(&s), text(&what)) else {
                return Ok(Value::Null);
            };
            let set: Vec<char> = w.chars().collect();
            let mut r: &str = s;
            if *lead {
                r = r.trim_start_matches(|c| set.contains(&c));
            }
            if *trail {
                r = r.trim_end_matches(|c| set.contains(&c));
            }
            Value::str(r)
        }
        Func::Coalesce(ty) => {
            for i in 0..args.len() {
                let v = arg(i)?;
                if !v.is_null() {
                    return Ok(widen(v, *ty));
                }
            }
            Value::Null
        }
        Func::If(ty) => match arg(0)? {
            Value::Bool(true) => widen(arg(1)?, *ty),
            _ => widen(arg(2)?, *ty),
        },
        Func::NullIf => {
            let (a, b) = (arg(0)?, arg(1)?);
            if crate::expr::equal(&a, &b) == Some(true) {
                Value::Null
            } else {
                a
            }
        }
        Func::FloatText => match arg(0)? {
            Value::Double(d) => Value::str(&lowwater_core::text::java_float(d as f32)),
            Value::Int(i) => Value::str(&lowwater_core::text::java_float(i as f32)),
            v => v,
        },
        Func::Time(t) => crate::temporal::eval(t, arg(0)?),
        Func::Round(r) => crate::numeric::eval(*r, arg(0)?, arg(1)?),
        Func::Regex(r) => {
            let vals = (0..args.len())
                .map(arg)
                .collect::<std::result::Result<Vec<_>, _>>()?;
            crate::regex_fns::eval(r, &vals)
        }
        Func::Try => arg(0).unwrap_or(Value::Null),
        Func::DecArith(op, p, s) => crate::decimal::arith(*op, (*p, *s), &arg(0)?, &arg(1)?)?,
        Func::Power => match (arg(0)?.as_f64(), arg(1)?.as_f64()) {
            (Some(a), Some(b)) => Value::Double(a.powf(b)),
            _ => Value::Null,
        },
        Func::Abs => match arg(0)? {
            Value::Int(i) => Value::Int(i.wrapping_abs()),
            Value::Double(d) => Value::Double(d.abs()),
            ref v @ Value::Decimal(..) => match v.as_decimal() {
                Some((u, s)) => Value::decimal(u.abs(), s),
                None => Value::Null,
            },
            v => v,
        },
        Func::Mod(ty) => match (arg(0)?, arg(1)?) {
            (Value::Int(_), Value::Int(0)) => return Err("MOD by zero".into()),
            (Value::Int(a), Value::Int(b)) => Value::Int(ty.wrap(a.wrapping_rem(b))),
            _ => Value::Null,
        },
        Func::Case(simple, ty) => {
            let (op, mut i) = if *simple {
                (Some(arg(0)?), 1)
            } else {
                (None, 0)
            };
            while i + 1 < args.len() {
                let c = arg(i)?;
                let hit = match &op {
                    Some(o) => crate::expr::equal(o, &c) == Some(true),
                    None => c == Value::Bool(true),
                };
                if hit {
                    return Ok(widen(arg(i + 1)?, *ty));
                }
                i += 2;
            }
            widen(arg(args.len() - 1)?, *ty)
        }
        Func::Like(negated, esc) => match (arg(0)?, arg(1)?) {
            (Value::Str(s), Value::Str(p)) => Value::Bool(like(&s, &p, *esc)? != *negated),
            _ => Value::Null,
        },
        Func::In(negated) => {
            let a = arg(0)?;
            if a.is_null() {
                return Ok(Value::Null);
            }
            let mut saw_null = false;
            for i in 1..args.len() {
                match crate::expr::equal(&a, &arg(i)?) {
                    Some(true) => return Ok(Value::Bool(!negated)),
                    None => saw_null = true,
                    Some(false) => {}
                }
            }
            if saw_null {
                Value::Null
            } else {
                Value::Bool(*negated)
            }
        }
        Func::Between(negated) => {
            let (a, lo, hi) = (arg(0)?, arg(1)?, arg(2)?);
            let ge = crate::expr::order(&a, &lo).map(|o| o.is_ge());
            let le = crate::expr::order(&a, &hi).map(|o| o.is_le());
            match (ge, le) {
                (Some(false), _) | (_, Some(false)) => Value::Bool(*negated),
                (Some(true), Some(true)) => Value::Bool(!negated),
                _ => Value::Null,
            }
        }
        Func::DistinctFrom(not) => {
            let (a, b) = (arg(0)?, arg(1)?);
            let same = match (a.is_null(), b.is_null()) {
                (true, true) => true,
                (true, false) | (false, true) => false,
                _ => crate::expr::equal(&a, &b) == Some(true),
            };
            Value::Bool(same == *not)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::like;

    #[test]
    fn like_patterns() {
        let l = |s: &str, p: &str, e: Option<char>| like(s, p, e).expect("a valid pattern");
        assert!(l("/p/12", "/p/%", None));
        assert!(l("abc", "a_c", None));
        assert!(!l("abc", "a_", None));
        assert!(l("a%c", "a!%c", Some('!')));
        assert!(!l("abc", "a!%c", Some('!')));
        assert!(l("ümlaut", "_mlaut", None));
        assert!(l("", "%", None));
        assert!(l("aXbXc", "%b%c", None));
        assert!(like("a", "a!", Some('!')).is_err());
        assert!(like("a", "!a", Some('!')).is_err());
    }
}
