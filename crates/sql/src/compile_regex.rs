//! Compiling the regular-expression functions of [`crate::regex_fns`]
//! from SQL: `REGEXP`, `REGEXP_EXTRACT` and `REGEXP_REPLACE`, the pattern a
//! string literal compiled once (an error when the job is planned if the
//! `regex` crate does not accept it). The other arguments are compiled
//! with the [`Compile`] the expression compiler hands down.

use lowwater_core::Value;
use sqlparser::ast::Expr as AstExpr;

use crate::ast::expr_loc;
use crate::error::{Loc, Result, SqlError};
use crate::expr::{Compile, Expr, Scope, Typed};
use crate::functions::Func;
use crate::regex_fns::{Pattern, RegexFn};
use crate::types::SqlType;

fn err<T>(e: &AstExpr, loc: Loc, msg: impl Into<String>) -> Result<T> {
    Err(SqlError::new(expr_loc(e, loc), msg))
}

fn typed_arg(
    x: &AstExpr,
    scope: &dyn Scope,
    loc: Loc,
    compile: Compile,
    name: &str,
    ty: SqlType,
) -> Result<Expr> {
    let t = compile(x, scope, loc)?;
    let fits = match ty {
        SqlType::String => t.ty.is_none_or(|t| t == SqlType::String),
        _ => t.ty.is_none_or(|t| t.is_integer()),
    };
    if !fits {
        return err(
            x,
            loc,
            format!(
                "{name} needs {} here, found {}",
                if ty == SqlType::String {
                    "a STRING"
                } else {
                    "an integer"
                },
                t.ty.map_or("NULL", |t| t.name())
            ),
        );
    }
    Ok(t.expr)
}

fn pattern(p: &AstExpr, loc: Loc, name: &str) -> Result<Pattern> {
    let text = match p {
        AstExpr::Value(v) => v.value.clone().into_string(),
        _ => None,
    }
    .ok_or_else(|| {
        SqlError::new(
            expr_loc(p, loc),
            format!("{name}'s pattern must be a string literal"),
        )
    })?;
    Pattern::new(&text).map_err(|e| {
        SqlError::new(
            expr_loc(p, loc),
            format!("{name}: pattern '{text}' is not supported: {e}"),
        )
    })
}

/// Compiles a call of `name`; `None`: not one of these functions.
pub fn function(
    name: &str,
    args: &[&AstExpr],
    scope: &dyn Scope,
    loc: Loc,
    compile: Compile,
) -> Option<Result<Typed>> {
    let call = |f: RegexFn, args: Vec<Expr>, ty: SqlType| Typed {
        expr: Expr::Call(Func::Regex(f), args),
        ty: Some(ty),
    };
    let s = SqlType::String;
    Some(match (name, args) {
        ("REGEXP", [x, p]) => (|| {
            let x = typed_arg(x, scope, loc, compile, name, s)?;
            Ok(call(
                RegexFn::Matches(pattern(p, loc, name)?),
                vec![x],
                SqlType::Boolean,
            ))
        })(),
        ("REGEXP_EXTRACT", [x, p, rest @ ..]) if rest.len() <= 1 => (|| {
            let x = typed_arg(x, scope, loc, compile, name, s)?;
            let group = match rest.first() {
                Some(g) => typed_arg(g, scope, loc, compile, name, SqlType::Int)?,
                None => Expr::Literal(Value::Int(0)),
            };
            Ok(call(
                RegexFn::Extract(pattern(p, loc, name)?),
                vec![x, group],
                s,
            ))
        })(),
        ("REGEXP_REPLACE", [x, p, r]) => (|| {
            let x = typed_arg(x, scope, loc, compile, name, s)?;
            let r = typed_arg(r, scope, loc, compile, name, s)?;
            Ok(call(
                RegexFn::Replace(pattern(p, loc, name)?),
                vec![x, r],
                s,
            ))
        })(),
        _ => return None,
    })
}
