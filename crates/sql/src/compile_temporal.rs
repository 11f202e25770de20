//! Compiling the time functions of [`crate::temporal`] from SQL, with
//! Flink's result types: `TIMESTAMP '...'` literals, `EXTRACT(unit FROM
//! ts)` and `YEAR(ts)`, `MONTH(ts)`, ..., `FLOOR|CEIL(ts TO unit)` and
//! `DATE_FORMAT(ts, 'pattern')`. Their arguments are compiled with the
//! [`Compile`] the expression compiler hands down.

use lowwater_core::time::parse_timestamp;
use lowwater_core::Value;
use sqlparser::ast::{CeilFloorKind, DataType, DateTimeField, Expr as AstExpr};

use crate::ast::expr_loc;
use crate::error::{Loc, Result, SqlError};
use crate::expr::{Compile, Expr, Scope, Typed};
use crate::functions::Func;
use crate::temporal::{pattern_pieces, TimeFn, Unit};
use crate::types::SqlType;

fn err<T>(e: &AstExpr, loc: Loc, msg: impl Into<String>) -> Result<T> {
    Err(SqlError::new(expr_loc(e, loc), msg))
}

fn unit(field: &DateTimeField) -> Option<Unit> {
    Some(match field {
        DateTimeField::Year | DateTimeField::Years => Unit::Year,
        DateTimeField::Quarter => Unit::Quarter,
        DateTimeField::Month | DateTimeField::Months => Unit::Month,
        DateTimeField::Week(None) | DateTimeField::Weeks => Unit::Week,
        DateTimeField::Doy => Unit::DayOfYear,
        DateTimeField::Dow => Unit::DayOfWeek,
        DateTimeField::Day | DateTimeField::Days => Unit::Day,
        DateTimeField::Hour | DateTimeField::Hours => Unit::Hour,
        DateTimeField::Minute | DateTimeField::Minutes => Unit::Minute,
        DateTimeField::Second | DateTimeField::Seconds => Unit::Second,
        DateTimeField::Millisecond | DateTimeField::Milliseconds => Unit::Millisecond,
        _ => return None,
    })
}

/// A timestamp argument of a function by `unit`, compiled once: a
/// TIMESTAMP, or a DATE as its midnight (then also `true`; a unit finer
/// than a day is an error, as Flink refuses `HOUR(d)` and `EXTRACT(HOUR
/// FROM d)`).
fn time_arg(
    x: &AstExpr,
    u: Unit,
    (scope, loc, compile): (&dyn Scope, Loc, Compile),
    what: &str,
) -> Result<(Expr, bool)> {
    let t = compile(x, scope, loc)?;
    match t.ty {
        None | Some(SqlType::Timestamp | SqlType::TimestampLtz) => Ok((t.expr, false)),
        Some(SqlType::Date)
            if matches!(
                u,
                Unit::Hour | Unit::Minute | Unit::Second | Unit::Millisecond
            ) =>
        {
            err(
                x,
                loc,
                format!("a DATE has no {u:?}: CAST it AS TIMESTAMP(3) first"),
            )
        }
        // A DATE is its midnight.
        Some(SqlType::Date) => Ok((
            Expr::Call(Func::Date(crate::dates::DateFn::ToTimestamp), vec![t.expr]),
            true,
        )),
        Some(other) => err(
            x,
            loc,
            format!("{what} needs a TIMESTAMP, found {}", other.name()),
        ),
    }
}

fn call(f: TimeFn, args: Vec<Expr>, ty: SqlType) -> Typed {
    Typed {
        expr: Expr::Call(Func::Time(f), args),
        ty: Some(ty),
    }
}

/// The SQL forms that are not function calls: `TIMESTAMP '...'`,
/// `EXTRACT(unit FROM ts)`, `FLOOR|CEIL(ts TO unit)`. `None`: not one.
pub fn special(
    e: &AstExpr,
    scope: &dyn Scope,
    loc: Loc,
    compile: Compile,
) -> Option<Result<Typed>> {
    Some(match e {
        AstExpr::TypedString(t) => match (&t.data_type, t.value.clone().into_string()) {
            (DataType::Date, Some(s)) => match crate::dates::parse_date(&s) {
                Some(d) if !s.trim().contains(' ') && s.matches('-').count() == 2 => Ok(Typed {
                    expr: Expr::Literal(Value::Int(d)),
                    ty: Some(SqlType::Date),
                }),
                _ => err(
                    e,
                    loc,
                    format!("'{s}' is not a date; write DATE 'yyyy-MM-dd'"),
                ),
            },
            (DataType::Timestamp(_, _), Some(s)) => match parse_timestamp(&s) {
                Some(ts) => Ok(Typed {
                    expr: Expr::Literal(Value::Timestamp(ts)),
                    ty: Some(SqlType::Timestamp),
                }),
                None => err(
                    e,
                    loc,
                    format!(
                        "'{s}' is not a timestamp; write TIMESTAMP 'yyyy-MM-dd HH:mm:ss[.SSS]'"
                    ),
                ),
            },
            _ => err(
                e,
                loc,
                format!("`{e}`: only TIMESTAMP '...' literals are supported"),
            ),
        },
        AstExpr::Extract { field, expr, .. } => match unit(field) {
            Some(u) => time_arg(expr, u, (scope, loc, compile), "EXTRACT")
                .map(|(x, _)| call(TimeFn::Extract(u), vec![x], SqlType::BigInt)),
            None => err(
                e,
                loc,
                format!(
                    "EXTRACT({field}) is not supported; use YEAR, QUARTER, MONTH, WEEK, DOY, DOW, \
                     DAY, HOUR, MINUTE, SECOND or MILLISECOND"
                ),
            ),
        },
        AstExpr::Floor {
            expr,
            field: CeilFloorKind::DateTimeField(f),
        }
        | AstExpr::Ceil {
            expr,
            field: CeilFloorKind::DateTimeField(f),
        } if *f != DateTimeField::NoDateTime => {
            let floor = matches!(e, AstExpr::Floor { .. });
            let name = if floor { "FLOOR" } else { "CEIL" };
            match unit(f) {
                Some(u) if !matches!(u, Unit::DayOfWeek | Unit::DayOfYear) => (|| {
                    let (x, is_date) = time_arg(expr, u, (scope, loc, compile), name)?;
                    let f = if floor {
                        TimeFn::Floor(u)
                    } else {
                        TimeFn::Ceil(u)
                    };
                    let t = call(f, vec![x], SqlType::Timestamp);
                    // Of a DATE, a DATE (Calcite keeps the argument's type).
                    Ok(match is_date {
                        true => Typed {
                            expr: Expr::Call(
                                Func::Date(crate::dates::DateFn::FromTimestamp),
                                vec![t.expr],
                            ),
                            ty: Some(SqlType::Date),
                        },
                        false => t,
                    })
                })(),
                _ => err(
                    e,
                    loc,
                    format!(
                        "{name}(ts TO {f}) is not supported; use YEAR, QUARTER, MONTH, WEEK, \
                         DAY, HOUR, MINUTE, SECOND or MILLISECOND"
                    ),
                ),
            }
        }
        _ => return None,
    })
}

/// `YEAR(ts)`, `MONTH(ts)`, ... and `DATE_FORMAT(ts, 'pattern')`. `None`:
/// not one of them.
pub fn function(
    e: &AstExpr,
    name: &str,
    args: &[&AstExpr],
    scope: &dyn Scope,
    loc: Loc,
    compile: Compile,
) -> Option<Result<Typed>> {
    let part = match name {
        "YEAR" => Some(Unit::Year),
        "QUARTER" => Some(Unit::Quarter),
        "MONTH" => Some(Unit::Month),
        "WEEK" => Some(Unit::Week),
        "DAYOFYEAR" => Some(Unit::DayOfYear),
        "DAYOFMONTH" => Some(Unit::Day),
        "DAYOFWEEK" => Some(Unit::DayOfWeek),
        "HOUR" => Some(Unit::Hour),
        "MINUTE" => Some(Unit::Minute),
        "SECOND" => Some(Unit::Second),
        _ => None,
    };
    Some(match (part, name, args) {
        (Some(u), _, [x]) => time_arg(x, u, (scope, loc, compile), name)
            .map(|(x, _)| call(TimeFn::Extract(u), vec![x], SqlType::BigInt)),
        (None, "DATE_FORMAT", [x, f]) => (|| {
            let t = compile(x, scope, loc)?;
            let x = match t.ty {
                // A STRING is read as a timestamp first, as in Flink.
                Some(SqlType::String) => Expr::Cast(Box::new(t.expr), SqlType::Timestamp),
                None | Some(SqlType::Timestamp | SqlType::TimestampLtz) => t.expr,
                // Flink's words.
                Some(SqlType::Date) => {
                    return err(
                        x,
                        loc,
                        "Cannot apply 'DATE_FORMAT' to arguments of type 'DATE_FORMAT(<DATE>, \
                         <CHAR>)'. Supported form(s): 'DATE_FORMAT(<TIMESTAMP>, <CHARACTER>)' \
                         (CAST the DATE AS TIMESTAMP(3) first)",
                    )
                }
                Some(other) => {
                    return err(
                        x,
                        loc,
                        format!("DATE_FORMAT needs a TIMESTAMP, found {}", other.name()),
                    )
                }
            };
            let pattern = match f {
                AstExpr::Value(v) => v.value.clone().into_string(),
                _ => None,
            }
            .ok_or_else(|| {
                SqlError::new(
                    expr_loc(f, loc),
                    "DATE_FORMAT's pattern must be a string literal such as 'yyyy-MM-dd HH:mm'",
                )
            })?;
            let pieces = pattern_pieces(&pattern)
                .map_err(|m| SqlError::new(expr_loc(f, loc), format!("DATE_FORMAT: {m}")))?;
            Ok(call(
                TimeFn::Format(pieces.into()),
                vec![x],
                SqlType::String,
            ))
        })(),
        (None, "TO_DATE", [x]) | (None, "TO_DATE", [x, _]) => (|| {
            let t = compile(x, scope, loc)?;
            if !t.ty.is_none_or(|t| t == SqlType::String) {
                return err(
                    x,
                    loc,
                    format!(
                        "TO_DATE reads a STRING, found {}",
                        t.ty.map_or("NULL", |t| t.name())
                    ),
                );
            }
            let f = match args {
                [_, f] => {
                    let pattern = match f {
                        AstExpr::Value(v) => v.value.clone().into_string(),
                        _ => None,
                    }
                    .ok_or_else(|| {
                        SqlError::new(
                            expr_loc(f, loc),
                            "TO_DATE's format must be a string literal such as 'yyyyMMdd'",
                        )
                    })?;
                    crate::dates::check_pattern(&pattern)
                        .map_err(|m| SqlError::new(expr_loc(f, loc), m))?;
                    crate::dates::DateFn::FromPattern(pattern.into())
                }
                // Flink's default format; text that is not a date is NULL.
                _ => crate::dates::DateFn::ToDate,
            };
            Ok(Typed {
                expr: Expr::Call(Func::Date(f), vec![t.expr]),
                ty: Some(SqlType::Date),
            })
        })(),
        _ => return None,
    })
    .map(|r| {
        r.map_err(|mut er| {
            if er.loc.line == 0 {
                er.loc = expr_loc(e, loc);
            }
            er
        })
    })
}
