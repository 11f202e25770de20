//! Flink's legacy group windows, still in most production jobs:
//! `SELECT TUMBLE_START(ts, INTERVAL '1' MINUTE), k, COUNT(*) FROM t
//! GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE), k` (and `HOP(ts, slide, size)`,
//! `SESSION(ts, gap)` with their `_START`, `_END` and `_ROWTIME`
//! functions). They have the window TVFs' semantics in Flink (the same
//! assigners, firing and lateness), so they are rewritten into the TVF
//! form: the window call in `GROUP BY` becomes `window_start, window_end`,
//! `X_START(...)` becomes `window_start`, `X_END` `window_end` and
//! `X_ROWTIME` `window_time`.

use std::ops::ControlFlow;

use sqlparser::ast::{
    visit_expressions_mut, Expr as AstExpr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident,
    SelectItem,
};

use crate::ast::{expr_loc, TvfKind, WindowTvf};
use crate::error::{Loc, Result, SqlError};

/// The pieces of a legacy window query, rewritten.
pub struct Rewritten {
    /// The window, as the TVF form has it.
    pub tvf: WindowTvf,
    /// `GROUP BY window_start, window_end, keys...`.
    pub group_by: Vec<AstExpr>,
    /// The select list with the window functions replaced.
    pub items: Vec<SelectItem>,
    /// `HAVING` with the window functions replaced.
    pub having: Option<AstExpr>,
}

fn kind(name: &str) -> Option<TvfKind> {
    match name.to_ascii_uppercase().as_str() {
        "TUMBLE" => Some(TvfKind::Tumble),
        "HOP" => Some(TvfKind::Hop),
        "SESSION" => Some(TvfKind::Session),
        _ => None,
    }
}

fn args(f: &sqlparser::ast::Function) -> Vec<AstExpr> {
    match &f.args {
        FunctionArguments::List(l) => l
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn ident(name: &str) -> AstExpr {
    AstExpr::Identifier(Ident::new(name))
}

/// Rewrites a query over table `source` whose `GROUP BY` holds a legacy
/// window call.
pub fn rewrite(
    source: String,
    source_loc: Loc,
    group_by: Vec<AstExpr>,
    items: Vec<SelectItem>,
    having: Option<AstExpr>,
    loc: Loc,
) -> Result<Rewritten> {
    let mut window = None;
    let mut keys = Vec::new();
    for g in group_by {
        match &g {
            AstExpr::Function(f) if kind(&f.name.to_string()).is_some() => {
                if window.is_some() {
                    return Err(SqlError::new(
                        expr_loc(&g, loc),
                        "GROUP BY holds two window functions; a query has one window",
                    ));
                }
                window = Some((f.clone(), expr_loc(&g, loc)));
            }
            _ => keys.push(g),
        }
    }
    let Some((f, at)) = window else {
        return Err(SqlError::new(
            loc,
            "a query over a plain table needs a window: GROUP BY TUMBLE(ts, INTERVAL ...) (Flink's \
             group window), or a window table function FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), \
             ...)); lowwater runs \
             window aggregations only",
        ));
    };
    let name = f.name.to_string().to_ascii_uppercase();
    let tvf_kind = kind(&name).unwrap_or(TvfKind::Tumble);
    let mut a = args(&f).into_iter();
    let time_column = match a.next() {
        Some(AstExpr::Identifier(id)) => id.value,
        Some(AstExpr::CompoundIdentifier(ids)) if !ids.is_empty() => {
            ids.last().map(|i| i.value.clone()).unwrap_or_default()
        }
        _ => {
            return Err(SqlError::new(
                at,
                format!("{name}'s first argument must be the rowtime column, e.g. {name}(ts, INTERVAL '1' MINUTE)"),
            ))
        }
    };
    let partition_by = if tvf_kind == TvfKind::Session {
        keys.iter()
            .map(|k| match k {
                AstExpr::Identifier(id) => Ok(id.value.clone()),
                other => Err(SqlError::new(
                    expr_loc(other, loc),
                    "a SESSION window's GROUP BY keys must be columns",
                )),
            })
            .collect::<Result<Vec<_>>>()?
    } else {
        Vec::new()
    };
    let rest: Vec<AstExpr> = a.collect();
    let expected = if tvf_kind == TvfKind::Hop { 2 } else { 1 };
    if rest.len() != expected {
        return Err(SqlError::new(
            at,
            format!(
                "{name} takes the rowtime column and {} (Flink's group window has no offset \
                 argument; the window table functions take one)",
                if expected == 2 {
                    "a slide and a size"
                } else {
                    "one interval"
                }
            ),
        ));
    }
    let tvf = WindowTvf {
        kind: tvf_kind,
        loc: at,
        source,
        source_loc,
        partition_by,
        time_column,
        time_loc: at,
        args: rest,
    };
    let mut group_by = vec![ident("window_start"), ident("window_end")];
    group_by.extend(keys);
    let mut items = items;
    for i in &mut items {
        match i {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                replace(e, loc)?
            }
            _ => {}
        }
    }
    let mut having = having;
    if let Some(h) = &mut having {
        replace(h, loc)?;
    }
    Ok(Rewritten {
        tvf,
        group_by,
        items,
        having,
    })
}

/// Replaces `X_START(...)`, `X_END(...)` and `X_ROWTIME(...)` anywhere in
/// `e` by the window's columns.
fn replace(e: &mut AstExpr, loc: Loc) -> Result<()> {
    let flow = visit_expressions_mut(e, |x| {
        let AstExpr::Function(f) = x else {
            return ControlFlow::Continue(());
        };
        let name = f.name.to_string().to_ascii_uppercase();
        let base = ["TUMBLE", "HOP", "SESSION"]
            .iter()
            .find_map(|k| name.strip_prefix(k).and_then(|s| s.strip_prefix('_')));
        match base {
            Some("START") => *x = ident("window_start"),
            Some("END") => *x = ident("window_end"),
            Some("ROWTIME") => *x = ident("window_time"),
            Some(other) => {
                return ControlFlow::Break(SqlError::new(
                    expr_loc(x, loc),
                    format!(
                        "{name} is not supported ({other}); use {}_START, _END or _ROWTIME",
                        name.split('_').next().unwrap_or("TUMBLE")
                    ),
                ))
            }
            None => {}
        }
        ControlFlow::Continue(())
    });
    match flow {
        ControlFlow::Break(err) => Err(err),
        ControlFlow::Continue(()) => Ok(()),
    }
}
