//! The emission time in a window aggregation's result row: the functions
//! that read it (`CURRENT_TIMESTAMP`, `NOW()`, `PROCTIME()`,
//! `CURRENT_ROW_TIMESTAMP()`, `LOCALTIMESTAMP`, `CURRENT_DATE`), and
//! whether a query does.

use sqlparser::ast::{Expr as AstExpr, FunctionArguments};

use crate::ast::Insert;
use crate::types::SqlType;

/// The type of an emission-time function without arguments, if `f` is
/// one: `CURRENT_TIMESTAMP`, `NOW()`, `PROCTIME()`,
/// `CURRENT_ROW_TIMESTAMP()` (TIMESTAMP_LTZ(3)), `LOCALTIMESTAMP`
/// (TIMESTAMP(3)) and `CURRENT_DATE` (DATE).
pub(super) fn emission_time(f: &sqlparser::ast::Function) -> Option<SqlType> {
    let no_args = match &f.args {
        FunctionArguments::None => true,
        FunctionArguments::List(l) => l.args.is_empty(),
        FunctionArguments::Subquery(_) => false,
    };
    if !no_args || f.over.is_some() {
        return None;
    }
    match f.name.to_string().to_ascii_uppercase().as_str() {
        "CURRENT_TIMESTAMP" | "NOW" | "PROCTIME" | "CURRENT_ROW_TIMESTAMP" => {
            Some(SqlType::TimestampLtz)
        }
        "LOCALTIMESTAMP" => Some(SqlType::Timestamp),
        // The emission time's day (UTC, the session's time zone).
        "CURRENT_DATE" => Some(SqlType::Date),
        _ => None,
    }
}

/// Whether the select list, HAVING or QUALIFY of `ins` reads the emission
/// time.
pub(super) fn reads_emission_time(ins: &Insert) -> bool {
    fn found(e: &AstExpr) -> std::ops::ControlFlow<()> {
        match e {
            AstExpr::Function(f) if emission_time(f).is_some() => std::ops::ControlFlow::Break(()),
            _ => std::ops::ControlFlow::Continue(()),
        }
    }
    sqlparser::ast::visit_expressions(&ins.items, found).is_break()
        || ins
            .having
            .iter()
            .chain(&ins.qualify)
            .any(|e| sqlparser::ast::visit_expressions(e, found).is_break())
}
