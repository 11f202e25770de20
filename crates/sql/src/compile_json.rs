//! Compiling the JSON functions of [`crate::json_fns`] from SQL:
//! `JSON_VALUE(s, path [RETURNING type])`, `JSON_QUERY(s, path)` and
//! `JSON_EXISTS(s, path)`, the
//! path a string literal read once (an error when the job is planned if it
//! is not one lowwater reads). `RETURNING` takes STRING, INT, DOUBLE or
//! BOOLEAN, as Flink's code generation does.

use sqlparser::ast::{
    Expr as AstExpr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentClause,
    FunctionArguments,
};

use crate::ast::expr_loc;
use crate::error::{Loc, Result, SqlError};
use crate::expr::{Compile, Expr, Scope, Typed};
use crate::functions::Func;
use crate::json_fns::{JsonFn, Path, Returning};
use crate::types::SqlType;

fn err<T>(e: &AstExpr, loc: Loc, msg: impl Into<String>) -> Result<T> {
    Err(SqlError::new(expr_loc(e, loc), msg))
}

/// `JSON_VALUE` or `JSON_EXISTS` call `e` (function `f`), or `None` when
/// `name` is neither.
pub(crate) fn function(
    e: &AstExpr,
    f: &Function,
    name: &str,
    scope: &dyn Scope,
    loc: Loc,
    compile: Compile,
) -> Option<Result<Typed>> {
    if !matches!(name, "JSON_VALUE" | "JSON_EXISTS" | "JSON_QUERY") {
        return None;
    }
    Some((|| {
        let FunctionArguments::List(list) = &f.args else {
            return err(e, loc, format!("{name} needs (json, path)"));
        };
        let args: Vec<&AstExpr> = list
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(x),
                _ => None,
            })
            .collect();
        let [json, path] = args[..] else {
            return err(
                e,
                loc,
                format!(
                    "{name} takes (json, path){}; ON EMPTY and ON ERROR clauses are not read \
                     (Flink's defaults apply: NULL, or FALSE for JSON_EXISTS)",
                    if name == "JSON_VALUE" {
                        " [RETURNING type]"
                    } else {
                        ""
                    }
                ),
            );
        };
        let mut returning = None;
        for clause in &list.clauses {
            match clause {
                FunctionArgumentClause::JsonReturningClause(r) if name != "JSON_EXISTS" => {
                    returning = Some(r.data_type.to_string());
                }
                other => {
                    return err(
                        e,
                        loc,
                        format!("{name}: the clause `{other}` is not supported"),
                    )
                }
            }
        }
        let j = compile(json, scope, loc)?;
        if !j.ty.is_none_or(|t| t == SqlType::String) {
            return err(
                json,
                loc,
                format!(
                    "{name} reads JSON text: a STRING, found {}",
                    j.ty.map_or("NULL", |t| t.name())
                ),
            );
        }
        let text = match path {
            AstExpr::Value(v) => v.value.clone().into_string(),
            _ => None,
        }
        .ok_or_else(|| {
            SqlError::new(
                expr_loc(path, loc),
                format!("{name}'s path must be a string literal such as '$.user.id'"),
            )
        })?;
        let p = Path::parse(&text).map_err(|m| SqlError::new(expr_loc(path, loc), m))?;
        if name == "JSON_EXISTS" {
            return Ok(Typed {
                expr: Expr::Call(Func::Json(JsonFn::Exists(p)), vec![j.expr]),
                ty: Some(SqlType::Boolean),
            });
        }
        if name == "JSON_QUERY" {
            return match returning.as_deref().map(str::to_ascii_uppercase).as_deref() {
                None | Some("STRING" | "VARCHAR") => Ok(Typed {
                    expr: Expr::Call(Func::Json(JsonFn::Query(p)), vec![j.expr]),
                    ty: Some(SqlType::String),
                }),
                Some(other) => err(
                    e,
                    loc,
                    format!(
                        "JSON_QUERY(... RETURNING {other}) is not supported: lowwater returns \
                         the JSON text (RETURNING STRING, Flink's default)"
                    ),
                ),
            };
        }
        // Flink generates code for these RETURNING types only.
        let (returning, ty) = match returning.as_deref().map(str::to_ascii_uppercase).as_deref() {
            None | Some("STRING" | "VARCHAR") => (Returning::Text, SqlType::String),
            Some(t) if t.starts_with("VARCHAR(") => {
                return err(
                    e,
                    loc,
                    format!(
                        "RETURNING {t}: Flink cuts the text to that length, which lowwater does \
                         not do yet; use RETURNING STRING"
                    ),
                )
            }
            Some("INT" | "INTEGER") => (Returning::Int, SqlType::Int),
            Some("DOUBLE") => (Returning::Double, SqlType::Double),
            Some("BOOLEAN") => (Returning::Boolean, SqlType::Boolean),
            Some(other) => {
                return err(
                    e,
                    loc,
                    format!(
                        "Unsupported type '{other}' for RETURNING in JSON_VALUE() (Flink's \
                         words: it returns STRING, INT, DOUBLE or BOOLEAN); CAST the STRING instead"
                    ),
                )
            }
        };
        Ok(Typed {
            expr: Expr::Call(Func::Json(JsonFn::Value(p, returning)), vec![j.expr]),
            ty: Some(ty),
        })
    })())
}
