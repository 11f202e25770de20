//! Compiling SQL expressions into row expressions ([`crate::expr::Expr`])
//! with Flink's types: column references, literals, comparison,
//! arithmetic, AND/OR/NOT, IS [NOT] NULL, IS [NOT] TRUE/FALSE, CAST,
//! `TO_TIMESTAMP_LTZ` and `TO_TIMESTAMP`. The other SQL forms and the
//! function calls are compiled by their families (`compile_functions`,
//! `compile_temporal`, `compile_numeric`, `compile_regex`), which are
//! handed [`compile`] for their arguments.

use sqlparser::ast::{
    BinaryOperator, CastKind, Expr as AstExpr, FunctionArg, FunctionArgExpr, FunctionArguments,
    UnaryOperator, Value as AstValue,
};

use lowwater_core::Value;

use crate::ast::expr_loc;
use crate::error::{Loc, Result, SqlError};
use crate::expr::{CmpOp, Expr, Scope, Typed};
use crate::types::{ArithOp, SqlType};

fn err<T>(e: &AstExpr, loc: Loc, msg: impl Into<String>) -> Result<T> {
    Err(SqlError::new(expr_loc(e, loc), msg))
}

/// Compiles `e` against `scope`; `loc` is used when the AST has no span.
pub fn compile(e: &AstExpr, scope: &dyn Scope, loc: Loc) -> Result<Typed> {
    if let Some(r) = scope.substitute(e, loc) {
        return r;
    }
    if let Some(r) = crate::compile_functions::special(e, scope, loc, compile) {
        return r;
    }
    if let Some(r) = crate::compile_temporal::special(e, scope, loc, compile) {
        return r;
    }
    if let Some(r) = crate::compile_numeric::special(e, scope, loc, compile) {
        return r;
    }
    match e {
        AstExpr::Identifier(id) => column(e, &id.value, scope, loc),
        // `payload.user.id` (a ROW column's field) or `t.col`: the longest
        // dotted name the scope has.
        AstExpr::CompoundIdentifier(ids) => {
            let names: Vec<&str> = ids.iter().map(|i| i.value.as_str()).collect();
            let found = (0..names.len())
                .map(|k| names[k..].join("."))
                .find(|n| scope.resolve(n).is_some());
            match found {
                Some(n) => column(e, &n, scope, loc),
                None => column(e, &names.join("."), scope, loc),
            }
        }
        AstExpr::Nested(inner) => compile(inner, scope, loc),
        AstExpr::Value(v) => literal(e, &v.value, loc),
        AstExpr::UnaryOp { op, expr } => {
            let inner = compile(expr, scope, loc)?;
            match op {
                UnaryOperator::Not => {
                    expect_bool(expr, &inner, loc)?;
                    Ok(typed(Expr::Not(Box::new(inner.expr)), SqlType::Boolean))
                }
                UnaryOperator::Minus if inner.ty.is_none_or(|t| t.is_numeric()) => {
                    let neg = Expr::Neg(Box::new(inner.expr));
                    // -INT_MIN wraps to INT_MIN as in Java.
                    let expr = match inner.ty {
                        Some(t @ (SqlType::TinyInt | SqlType::SmallInt | SqlType::Int)) => {
                            Expr::Narrow(Box::new(neg), t)
                        }
                        _ => neg,
                    };
                    Ok(Typed { expr, ty: inner.ty })
                }
                UnaryOperator::Plus => Ok(inner),
                _ => err(e, loc, format!("operator {op} is not supported here")),
            }
        }
        AstExpr::IsNull(inner) => is_null(inner, false, scope, loc),
        AstExpr::IsNotNull(inner) => is_null(inner, true, scope, loc),
        AstExpr::IsTrue(inner) => is_truth(inner, true, false, scope, loc),
        AstExpr::IsNotTrue(inner) => is_truth(inner, true, true, scope, loc),
        AstExpr::IsFalse(inner) => is_truth(inner, false, false, scope, loc),
        AstExpr::IsNotFalse(inner) => is_truth(inner, false, true, scope, loc),
        AstExpr::BinaryOp { left, op, right } => binary(e, left, op, right, scope, loc),
        AstExpr::Cast {
            kind,
            expr,
            data_type,
            ..
        } if *kind == CastKind::Cast => {
            let inner = compile(expr, scope, loc)?;
            let ty = cast_target(e, &data_type.to_string(), loc)?;
            if ty == SqlType::Date || inner.ty == Some(SqlType::Date) {
                return date_cast(e, inner, ty, loc);
            }
            if inner.ty == Some(SqlType::Float) && ty == SqlType::String {
                // A FLOAT prints with Float.toString's digits (0.1, not the
                // double it is held as).
                return Ok(typed(
                    Expr::Call(crate::functions::Func::FloatText, vec![inner.expr]),
                    ty,
                ));
            }
            Ok(typed(Expr::Cast(Box::new(inner.expr), ty), ty))
        }
        AstExpr::Function(f) => function(e, f, scope, loc),
        AstExpr::Interval(_) => err(
            e,
            loc,
            "INTERVAL is only supported in WATERMARK clauses and window function arguments",
        ),
        _ => err(
            e,
            loc,
            format!(
                "expression `{e}` is not supported; supported: columns, literals, comparisons, \
                 + - * / %, AND/OR/NOT, IS [NOT] NULL, CAST, CASE, LIKE, IN, BETWEEN, IS [NOT] \
                 DISTINCT FROM and the functions docs/sql.md lists"
            ),
        ),
    }
}

fn typed(expr: Expr, ty: SqlType) -> Typed {
    Typed { expr, ty: Some(ty) }
}

fn column(e: &AstExpr, name: &str, scope: &dyn Scope, loc: Loc) -> Result<Typed> {
    match scope.resolve(name) {
        Some((i, ty)) => Ok(typed(Expr::Column(i), ty)),
        None => err(
            e,
            loc,
            format!(
                "unknown column '{name}'; available columns: {}",
                scope.names().join(", ")
            ),
        ),
    }
}

fn literal(e: &AstExpr, v: &AstValue, loc: Loc) -> Result<Typed> {
    match v {
        AstValue::Number(n, _) => {
            if let Ok(i) = n.parse::<i64>() {
                // Calcite types an integer literal as INT when it fits.
                let ty = if i32::try_from(i).is_ok() {
                    SqlType::Int
                } else {
                    SqlType::BigInt
                };
                Ok(typed(Expr::Literal(Value::Int(i)), ty))
            } else if let Some(d) =
                lowwater_core::decimal::parse(n).filter(|_| !n.contains(['e', 'E']))
            {
                // `12.50` is DECIMAL(4, 2) in Flink (an exponent makes a DOUBLE).
                let (p, s) = crate::decimal::literal_type(d);
                Ok(typed(
                    Expr::Literal(Value::decimal(d.0, d.1)),
                    SqlType::Decimal(p, s),
                ))
            } else if let Ok(d) = n.parse::<f64>() {
                Ok(typed(Expr::Literal(Value::Double(d)), SqlType::Double))
            } else {
                err(e, loc, format!("number {n} is out of range"))
            }
        }
        AstValue::SingleQuotedString(s) => Ok(typed(Expr::Literal(Value::str(s)), SqlType::String)),
        AstValue::Boolean(b) => Ok(typed(Expr::Literal(Value::Bool(*b)), SqlType::Boolean)),
        AstValue::Null => Ok(Typed {
            expr: Expr::Literal(Value::Null),
            ty: None,
        }),
        other => err(e, loc, format!("literal {other} is not supported")),
    }
}

fn expect_bool(e: &AstExpr, t: &Typed, loc: Loc) -> Result<()> {
    match t.ty {
        None | Some(SqlType::Boolean) => Ok(()),
        Some(other) => err(
            e,
            loc,
            format!("expected a BOOLEAN condition, found {}", other.name()),
        ),
    }
}

fn is_null(inner: &AstExpr, negated: bool, scope: &dyn Scope, loc: Loc) -> Result<Typed> {
    let t = compile(inner, scope, loc)?;
    Ok(typed(
        Expr::IsNull(Box::new(t.expr), negated),
        SqlType::Boolean,
    ))
}

/// `x IS [NOT] TRUE|FALSE`: never NULL (a NULL `x` is neither TRUE nor
/// FALSE), compiled to `CASE WHEN [NOT] x THEN a ELSE b END`.
fn is_truth(
    inner: &AstExpr,
    truth: bool,
    negated: bool,
    scope: &dyn Scope,
    loc: Loc,
) -> Result<Typed> {
    let t = compile(inner, scope, loc)?;
    if !matches!(t.ty, None | Some(SqlType::Boolean)) {
        return Err(SqlError::new(
            expr_loc(inner, loc),
            format!(
                "IS {}{} needs a BOOLEAN, found {}",
                if negated { "NOT " } else { "" },
                if truth { "TRUE" } else { "FALSE" },
                t.ty.map_or("NULL", |ty| ty.name())
            ),
        ));
    }
    let cond = match truth {
        true => t.expr,
        false => Expr::Not(Box::new(t.expr)),
    };
    let bool_lit = |b: bool| Expr::Literal(lowwater_core::Value::Bool(b));
    Ok(typed(
        Expr::Call(
            crate::functions::Func::Case(false, SqlType::Boolean),
            vec![cond, bool_lit(!negated), bool_lit(negated)],
        ),
        SqlType::Boolean,
    ))
}

/// `CAST` to or from DATE: the conversions Flink allows (from and to
/// STRING, TIMESTAMP and TIMESTAMP_LTZ).
fn date_cast(e: &AstExpr, inner: Typed, ty: SqlType, loc: Loc) -> Result<Typed> {
    use crate::dates::DateFn;
    let f = match (inner.ty, ty) {
        (None | Some(SqlType::Date), SqlType::Date) => return Ok(typed(inner.expr, ty)),
        (Some(SqlType::Timestamp | SqlType::TimestampLtz), SqlType::Date) => DateFn::FromTimestamp,
        (Some(SqlType::String), SqlType::Date) => DateFn::FromText,
        (Some(SqlType::Date), SqlType::String) => DateFn::ToText,
        (Some(SqlType::Date), SqlType::Timestamp | SqlType::TimestampLtz) => DateFn::ToTimestamp,
        (from, to) => {
            return err(
                e,
                loc,
                format!(
                    "CAST from {} to {} is not supported (Flink casts a DATE to and from STRING, \
                     TIMESTAMP and TIMESTAMP_LTZ)",
                    name_of(from),
                    to.name()
                ),
            )
        }
    };
    Ok(typed(
        Expr::Call(crate::functions::Func::Date(f), vec![inner.expr]),
        ty,
    ))
}

fn comparable(a: Option<SqlType>, b: Option<SqlType>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            (a.is_numeric() && b.is_numeric()) || (a.is_time() && b.is_time()) || a == b
        }
        _ => true,
    }
}

fn binary(
    e: &AstExpr,
    left: &AstExpr,
    op: &BinaryOperator,
    right: &AstExpr,
    scope: &dyn Scope,
    loc: Loc,
) -> Result<Typed> {
    let mut l = compile(left, scope, loc)?;
    let mut r = compile(right, scope, loc)?;
    // A DATE compared with text reads the text as a date, as Flink's
    // implicit cast does (`d = '2025-09-14'`).
    let as_date = |t: Typed| Typed {
        expr: Expr::Call(
            crate::functions::Func::Date(crate::dates::DateFn::FromText),
            vec![t.expr],
        ),
        ty: Some(SqlType::Date),
    };
    match (l.ty, r.ty) {
        (Some(SqlType::Date), Some(SqlType::String)) => r = as_date(r),
        (Some(SqlType::String), Some(SqlType::Date)) => l = as_date(l),
        _ => {}
    }
    let (lt, rt) = (l.ty, r.ty);
    let (le, re) = (Box::new(l.expr), Box::new(r.expr));
    let cmp = match op {
        BinaryOperator::Eq => Some(CmpOp::Eq),
        BinaryOperator::NotEq => Some(CmpOp::Ne),
        BinaryOperator::Lt => Some(CmpOp::Lt),
        BinaryOperator::LtEq => Some(CmpOp::Le),
        BinaryOperator::Gt => Some(CmpOp::Gt),
        BinaryOperator::GtEq => Some(CmpOp::Ge),
        _ => None,
    };
    if let Some(c) = cmp {
        if !comparable(lt, rt) {
            return err(
                e,
                loc,
                format!("cannot compare {} with {}", name_of(lt), name_of(rt)),
            );
        }
        return Ok(typed(Expr::Compare(c, le, re), SqlType::Boolean));
    }
    let arith = match op {
        BinaryOperator::Plus => Some(ArithOp::Add),
        BinaryOperator::Minus => Some(ArithOp::Sub),
        BinaryOperator::Multiply => Some(ArithOp::Mul),
        BinaryOperator::Divide => Some(ArithOp::Div),
        BinaryOperator::Modulo => Some(ArithOp::Mod),
        _ => None,
    };
    if let Some(a) = arith {
        if !lt.is_none_or(|t| t.is_numeric()) || !rt.is_none_or(|t| t.is_numeric()) {
            return err(
                e,
                loc,
                format!(
                    "arithmetic needs numbers, found {} {op} {}",
                    name_of(lt),
                    name_of(rt)
                ),
            );
        }
        // Flink's result type: DOUBLE if either is, else FLOAT if either
        // is, else the wider integer type (INT op INT is an INT, which wraps
        // at 32 bits as Java's int does).
        let either = |t: SqlType| lt == Some(t) || rt == Some(t);
        // DECIMAL with DECIMAL or an exact integer: exact, in Flink's type.
        let is_dec = |t: Option<SqlType>| matches!(t, Some(SqlType::Decimal(..)));
        if (is_dec(lt) || is_dec(rt)) && !either(SqlType::Double) && !either(SqlType::Float) {
            let as_dec = |t: Option<SqlType>| t.and_then(|t| t.as_decimal()).unwrap_or((10, 0));
            let Some(ps) = crate::decimal::arith_type(a, as_dec(lt), as_dec(rt)) else {
                return err(
                    e,
                    loc,
                    "% is not supported over DECIMAL; use MOD over integers",
                );
            };
            let f = crate::functions::Func::DecArith(a, ps.0, ps.1);
            return Ok(typed(
                Expr::Call(f, vec![*le, *re]),
                SqlType::Decimal(ps.0, ps.1),
            ));
        }
        let bits = |t: Option<SqlType>| t.and_then(|t| t.int_bits()).unwrap_or(0);
        let ty =
            if either(SqlType::Double) || (either(SqlType::Float) && (is_dec(lt) || is_dec(rt))) {
                // FLOAT with DECIMAL is a DOUBLE in Flink.
                SqlType::Double
            } else if either(SqlType::Float) {
                SqlType::Float
            } else {
                match bits(lt).max(bits(rt)) {
                    8 => SqlType::TinyInt,
                    16 => SqlType::SmallInt,
                    0 | 32 => SqlType::Int,
                    _ => SqlType::BigInt,
                }
            };
        let ex = Expr::Arith(a, le, re);
        let ex = match ty {
            SqlType::Double | SqlType::BigInt => ex,
            t => Expr::Narrow(Box::new(ex), t),
        };
        return Ok(typed(ex, ty));
    }
    match op {
        BinaryOperator::And | BinaryOperator::Or => {
            expect_bool(
                left,
                &Typed {
                    expr: Expr::Literal(Value::Null),
                    ty: lt,
                },
                loc,
            )?;
            expect_bool(
                right,
                &Typed {
                    expr: Expr::Literal(Value::Null),
                    ty: rt,
                },
                loc,
            )?;
            let ex = if *op == BinaryOperator::And {
                Expr::And(le, re)
            } else {
                Expr::Or(le, re)
            };
            Ok(typed(ex, SqlType::Boolean))
        }
        _ => err(e, loc, format!("operator {op} is not supported")),
    }
}

fn name_of(t: Option<SqlType>) -> &'static str {
    t.map_or("NULL", |t| t.name())
}

pub(crate) fn cast_target(e: &AstExpr, text: &str, loc: Loc) -> Result<SqlType> {
    let up = text.to_ascii_uppercase();
    let base = up.split('(').next().unwrap_or("").trim();
    Ok(match base {
        "STRING" | "VARCHAR" | "CHAR" | "TEXT" => SqlType::String,
        "TINYINT" => SqlType::TinyInt,
        "SMALLINT" => SqlType::SmallInt,
        "INT" | "INTEGER" => SqlType::Int,
        "BIGINT" => SqlType::BigInt,
        "FLOAT" | "REAL" => SqlType::Float,
        "DOUBLE" | "DOUBLE PRECISION" => SqlType::Double,
        "BOOLEAN" | "BOOL" => SqlType::Boolean,
        "TIMESTAMP" if up.contains("LOCAL TIME ZONE") => SqlType::TimestampLtz,
        "TIMESTAMP" => SqlType::Timestamp,
        "TIMESTAMP_LTZ" => SqlType::TimestampLtz,
        "DATE" => SqlType::Date,
        "DECIMAL" | "NUMERIC" | "DEC" => {
            let parts: Vec<&str> = up
                .split(['(', ')', ','])
                .skip(1)
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .collect();
            let args: Vec<u8> = parts
                .iter()
                .map(|x| x.parse::<u8>().ok().filter(|v| *v <= 38))
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    SqlError::new(
                        expr_loc(e, loc),
                        format!("CAST to {text}: the precision is 1 to 38 and the scale at most the precision"),
                    )
                })?;
            let (p, s) = (
                args.first().copied().unwrap_or(10),
                args.get(1).copied().unwrap_or(0),
            );
            if !(1..=38).contains(&p) || s > p {
                return err(e, loc, format!("CAST to {text}: the precision is 1 to 38 and the scale at most the precision"));
            }
            SqlType::Decimal(p, s)
        }
        _ => return err(e, loc, format!("CAST to {text} is not supported")),
    })
}

fn function(
    e: &AstExpr,
    f: &sqlparser::ast::Function,
    scope: &dyn Scope,
    loc: Loc,
) -> Result<Typed> {
    let name = f.name.to_string().to_ascii_uppercase();
    if let Some(json) = crate::compile_json::function(e, f, &name, scope, loc, compile) {
        return json;
    }
    let args: Vec<&AstExpr> = match &f.args {
        FunctionArguments::List(list) if list.duplicate_treatment.is_none() => list
            .args
            .iter()
            .map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Ok(x),
                _ => err(
                    e,
                    loc,
                    format!("{name}: only plain positional arguments are supported"),
                ),
            })
            .collect::<Result<_>>()?,
        FunctionArguments::None => Vec::new(),
        _ => return err(e, loc, format!("{name}(...) form is not supported")),
    };
    match (name.as_str(), args.as_slice()) {
        ("TO_TIMESTAMP_LTZ", [n, p]) => {
            let v = compile(n, scope, loc)?;
            if !v.ty.is_none_or(|t| t.is_numeric()) {
                return err(n, loc, "TO_TIMESTAMP_LTZ needs a numeric epoch value");
            }
            let precision = match p {
                AstExpr::Value(v) => match &v.value {
                    AstValue::Number(s, _) => s.parse::<i64>().ok(),
                    _ => None,
                },
                _ => None,
            };
            match precision {
                Some(pr @ (0 | 3)) => Ok(typed(
                    Expr::ToTimestampLtz(Box::new(v.expr), pr),
                    SqlType::TimestampLtz,
                )),
                _ => err(
                    p,
                    loc,
                    "TO_TIMESTAMP_LTZ precision must be 0 (seconds) or 3 (milliseconds)",
                ),
            }
        }
        ("TO_TIMESTAMP", [s]) => {
            let v = compile(s, scope, loc)?;
            if !v.ty.is_none_or(|t| t == SqlType::String) {
                return err(
                    s,
                    loc,
                    "TO_TIMESTAMP needs a STRING like '2025-09-14 03:37:58'",
                );
            }
            Ok(typed(
                Expr::ToTimestamp(Box::new(v.expr)),
                SqlType::Timestamp,
            ))
        }
        (
            "PROCTIME" | "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIMESTAMP" | "CURRENT_ROW_TIMESTAMP",
            _,
        ) => err(
            e,
            loc,
            format!(
                "{name}() reads processing time here (per record); lowwater runs on event time: \
                 the time a row is emitted (CURRENT_TIMESTAMP, NOW(), LOCALTIMESTAMP, \
                 PROCTIME()) is read in a window aggregation's select list or HAVING only"
            ),
        ),
        _ => crate::compile_functions::function(e, &name, &args, scope, loc, compile)
            .or_else(|| crate::compile_temporal::function(e, &name, &args, scope, loc, compile))
            .or_else(|| crate::compile_numeric::function(&name, &args, scope, loc, compile))
            .or_else(|| crate::compile_regex::function(&name, &args, scope, loc, compile))
            .unwrap_or_else(|| {
                err(
                    e,
                    loc,
                    format!(
                        "function {name} with {} argument(s) is not supported; supported: \
                     TO_TIMESTAMP_LTZ(n, 0|3), TO_TIMESTAMP(s), CAST, UPPER, LOWER, CHAR_LENGTH, \
                     CONCAT, CONCAT_WS, SUBSTRING, TRIM, COALESCE, IF, NULLIF, ABS, MOD, POWER, \
                     SQRT, ROUND, FLOOR, CEIL, CASE, LIKE, IN, BETWEEN, IS [NOT] DISTINCT FROM, \
                     TRY_CAST, EXTRACT, YEAR .. SECOND, FLOOR/CEIL(ts TO unit), DATE_FORMAT, \
                     REGEXP, REGEXP_EXTRACT, REGEXP_REPLACE, JSON_VALUE, JSON_EXISTS, JSON_QUERY, \
                     TO_DATE",
                        args.len()
                    ),
                )
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::GenericDialect;
    use sqlparser::parser::Parser;

    struct Cols;
    impl Scope for Cols {
        fn resolve(&self, name: &str) -> Option<(usize, SqlType)> {
            match name {
                "a" => Some((0, SqlType::BigInt)),
                "s" => Some((1, SqlType::String)),
                "d" => Some((2, SqlType::Double)),
                _ => None,
            }
        }
        fn names(&self) -> Vec<String> {
            vec!["a".into(), "s".into(), "d".into()]
        }
    }

    fn eval(sql: &str, row: &[Value]) -> std::result::Result<Value, String> {
        let ast = Parser::new(&GenericDialect {})
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_expr())
            .map_err(|e| e.to_string())?;
        let t = compile(&ast, &Cols, Loc::default()).map_err(|e| e.to_string())?;
        t.expr.eval(row)
    }

    /// `IS [NOT] TRUE|FALSE` is never NULL (the generator found them
    /// refused; Flink runs them).
    #[test]
    fn is_true_and_is_false_take_null_as_neither() {
        let row = [Value::Int(7), Value::Null, Value::Double(1.5)];
        for (sql, want) in [
            ("a > 3 IS TRUE", true),
            ("a > 3 IS NOT TRUE", false),
            ("a > 3 IS FALSE", false),
            ("a > 3 IS NOT FALSE", true),
            ("s = 'x' IS TRUE", false),
            ("s = 'x' IS NOT TRUE", true),
            ("s = 'x' IS FALSE", false),
            ("s = 'x' IS NOT FALSE", true),
            ("a > 30 IS FALSE", true),
            ("a > 30 IS NOT FALSE", false),
        ] {
            assert_eq!(eval(sql, &row), Ok(Value::Bool(want)), "{sql}");
        }
        let e = eval("a IS TRUE", &row).expect_err("a BIGINT");
        assert!(e.contains("IS TRUE needs a BOOLEAN, found BIGINT"), "{e}");
    }

    #[test]
    fn three_valued_logic_and_arithmetic() {
        let row = [Value::Int(7), Value::Null, Value::Double(1.5)];
        assert_eq!(eval("a > 3 AND s IS NULL", &row), Ok(Value::Bool(true)));
        assert_eq!(eval("a > 3 AND s = 'x'", &row), Ok(Value::Null));
        assert_eq!(eval("a > 30 AND s = 'x'", &row), Ok(Value::Bool(false)));
        assert_eq!(eval("a < 3 OR s = 'x'", &row), Ok(Value::Null));
        assert_eq!(eval("a / 2", &row), Ok(Value::Int(3)));
        assert_eq!(eval("a * d", &row), Ok(Value::Double(10.5)));
        assert_eq!(eval("-a % 4", &row), Ok(Value::Int(-3)));
        assert!(eval("a / 0", &row).is_err_and(|e| e.contains("division by zero")));
        assert_eq!(eval("CAST(a AS STRING)", &row), Ok(Value::str("7")));
        assert_eq!(
            eval("TO_TIMESTAMP_LTZ(a, 0)", &row),
            Ok(Value::Timestamp(7_000))
        );
    }

    #[test]
    fn type_and_name_errors_are_clear() {
        let row = [Value::Int(1), Value::str("x"), Value::Double(0.0)];
        assert!(eval("s + 1", &row).is_err_and(|e| e.contains("arithmetic needs numbers")));
        assert!(eval("s = 1", &row).is_err_and(|e| e.contains("cannot compare STRING")));
        assert!(eval("nope = 1", &row).is_err_and(|e| e.contains("unknown column 'nope'")));
        assert!(eval("PROCTIME()", &row).is_err_and(|e| e.contains("event time")));
        assert_eq!(eval("UPPER(s)", &row), Ok(Value::str("X")));
        assert!(eval("REVERSE(s)", &row).is_err_and(|e| e.contains("not supported")));
        assert!(eval("UPPER(a)", &row).is_err_and(|e| e.contains("UPPER needs a STRING")));
        assert_eq!(eval("a IN (2, NULL)", &row), Ok(Value::Null));
        assert_eq!(eval("a NOT IN (2, 3)", &row), Ok(Value::Bool(true)));
        assert_eq!(eval("CONCAT(s, NULL)", &row), Ok(Value::Null));
        assert_eq!(
            eval("CONCAT_WS('-', s, NULL, s)", &row),
            Ok(Value::str("x-x"))
        );
        assert!(eval("MOD(a, 0)", &row).is_err_and(|e| e.contains("by zero")));
        // Casts and overflow as Java and Flink do them.
        assert_eq!(
            eval("CAST(3.0000000005E9 AS INT)", &row),
            Ok(Value::Int(2_147_483_647))
        );
        // A decimal literal is DECIMAL: to INT it truncates, then wraps as
        // BigDecimal.intValue() does.
        assert_eq!(
            eval("CAST(3000000000.5 AS INT)", &row),
            Ok(Value::Int(-1_294_967_296))
        );
        assert_eq!(eval("CAST(-1.75 AS BIGINT)", &row), Ok(Value::Int(-1)));
        assert_eq!(eval("2 * 1.5", &row), Ok(Value::decimal(30, 1)));
        assert_eq!(
            eval("1.5 + d", &[Value::Int(1), Value::Null, Value::Double(1.0)]),
            Ok(Value::Double(2.5))
        );
        assert_eq!(eval("CAST(-1e10 AS TINYINT)", &row), Ok(Value::Int(0)));
        assert_eq!(eval("CAST('1.9' AS INT)", &row), Ok(Value::Int(1)));
        assert!(eval("CAST('300' AS TINYINT)", &row).is_err_and(|e| e.contains("out of range")));
        assert_eq!(
            eval("ABS(CAST(-2147483648 AS INT))", &row),
            Ok(Value::Int(-2_147_483_648))
        );
        assert_eq!(
            eval("SUBSTRING('abc' FROM -5 FOR 2)", &row),
            Ok(Value::str(""))
        );
        assert_eq!(eval("SUBSTRING('abc' FROM -2)", &row), Ok(Value::str("bc")));
        assert_eq!(
            eval("CAST(CAST(0.1 AS FLOAT) AS STRING)", &row),
            Ok(Value::str("0.1"))
        );
        assert_eq!(eval("CAST(1e20 AS STRING)", &row), Ok(Value::str("1.0E20")));
        assert!(eval("s LIKE 'x!' ESCAPE '!'", &row).is_err_and(|e| e.contains("escape")));
    }
}
