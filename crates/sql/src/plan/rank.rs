//! Window Top-N: `ROW_NUMBER()`, `RANK()` or `DENSE_RANK() OVER (PARTITION
//! BY window_start, window_end[, keys] ORDER BY ...)` over a window
//! aggregation's rows, filtered by the rank (`WHERE rownum <= 3`), as
//! Flink's window rank runs it: once per window, when the window fires.
//!
//! The rows of one window and partition fire together: all of a window's
//! keys fire at the same watermark, and the keys of one partition are
//! routed to one window subtask (by the hash of its partition's keys: the
//! distribution of the edge into the window in [`super::graph`]). Ranking
//! is the order of the ORDER BY values (NULL sorts lowest, as Flink's default null
//! collation), ties broken by the order the rows fired in.

use std::cmp::Ordering;

use lowwater_core::window::operator::{WindowOutput, WindowResult};
use lowwater_core::Value;
use sqlparser::ast::{Expr as AstExpr, OrderBySort, WindowType};

use crate::ast::{expr_loc, ident_name};
use crate::compile::compile;
use crate::error::{Loc, Result, SqlError};
use crate::expr::{Expr, Scope};

use super::Pipeline;

/// Which ranking function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankFunc {
    /// `ROW_NUMBER()`: 1, 2, 3, ... whatever the ties.
    RowNumber,
    /// `RANK()`: ties share a number, the next one skips (1, 1, 3).
    Rank,
    /// `DENSE_RANK()`: ties share a number, without gaps (1, 1, 2).
    DenseRank,
}

/// One ORDER BY term: an expression over the result row.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderTerm {
    /// What is compared.
    pub expr: Expr,
    /// `DESC`.
    pub desc: bool,
    /// `NULLS FIRST` (default: NULL is the lowest value).
    pub nulls_first: bool,
}

/// A pipeline's ranking: one or more ranking functions over one window
/// specification (`RANK() OVER w, DENSE_RANK() OVER w`).
#[derive(Debug, Clone, PartialEq)]
pub struct Rank {
    /// The functions, in result-row order.
    pub funcs: Vec<RankFunc>,
    /// The GROUP BY keys (positions) in PARTITION BY, besides the window.
    pub partition: Vec<usize>,
    /// ORDER BY.
    pub order: Vec<OrderTerm>,
}

fn compare(a: &[Value], b: &[Value], order: &[OrderTerm]) -> Ordering {
    for ((x, y), t) in a.iter().zip(b).zip(order) {
        let o = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => {
                if t.nulls_first {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            (false, true) => {
                if t.nulls_first {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            _ if t.desc => y.cmp(x),
            _ => x.cmp(y),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

impl Pipeline {
    /// The ranks of each fired row of `outs` (aligned with it, one per
    /// ranking function; empty for late rows). Empty when the pipeline does
    /// not rank.
    pub fn ranks(
        &self,
        outs: &[WindowOutput],
        emitted: Option<lowwater_core::Timestamp>,
    ) -> std::result::Result<Vec<Vec<i64>>, String> {
        let Some(rank) = &self.rank else {
            return Ok(Vec::new());
        };
        // (index in outs, partition, order values)
        let mut rows: Vec<(usize, Vec<Value>, Vec<Value>)> = Vec::new();
        for (i, o) in outs.iter().enumerate() {
            let WindowOutput::Fired(r) = o else { continue };
            let row = self.result_row(r, &[], emitted);
            // HAVING removes rows before they are ranked.
            if let Some(h) = &self.having {
                if h.eval(&row)? != Value::Bool(true) {
                    continue;
                }
            }
            let mut part = vec![
                Value::Timestamp(r.window.start),
                Value::Timestamp(r.window.end),
            ];
            part.extend(
                rank.partition
                    .iter()
                    .map(|&k| r.key.get(k).cloned().unwrap_or(Value::Null)),
            );
            let order = rank
                .order
                .iter()
                .map(|t| t.expr.eval(&row))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            rows.push((i, part, order));
        }
        // Stable: ties keep the order the rows fired in.
        rows.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| compare(&a.2, &b.2, &rank.order)));
        let mut out = vec![Vec::new(); outs.len()];
        let mut prev: Option<(&Vec<Value>, &Vec<Value>)> = None;
        let (mut n, mut current, mut dense) = (0i64, 0i64, 0i64);
        for (i, part, order) in &rows {
            let same_part = prev.is_some_and(|(p, _)| p == part);
            if !same_part {
                (n, current, dense) = (0, 0, 0);
            }
            n += 1;
            let tie =
                same_part && prev.is_some_and(|(_, o)| compare(o, order, &rank.order).is_eq());
            if !tie {
                current = n;
                dense += 1;
            }
            out[*i] = rank
                .funcs
                .iter()
                .map(|f| match f {
                    RankFunc::RowNumber => n,
                    RankFunc::Rank => current,
                    RankFunc::DenseRank => dense,
                })
                .collect();
            prev = Some((part, order));
        }
        Ok(out)
    }

    /// A window's result row, which `HAVING` and the select list's
    /// expressions read: window_start, window_end, window_time, the group
    /// keys, the ranks (when the pipeline ranks; NULL before they are
    /// known), then the aggregates.
    pub fn result_row(
        &self,
        r: &WindowResult,
        ranks: &[i64],
        emitted: Option<lowwater_core::Timestamp>,
    ) -> Vec<Value> {
        let mut row = Vec::with_capacity(5 + r.key.len() + r.values.len());
        row.push(Value::Timestamp(r.window.start));
        row.push(Value::Timestamp(r.window.end));
        row.push(Value::Timestamp(r.window.max_timestamp()));
        row.extend(r.key.iter().cloned());
        if let Some(rank) = &self.rank {
            for i in 0..rank.funcs.len() {
                row.push(ranks.get(i).map_or(Value::Null, |&n| Value::Int(n)));
            }
        }
        // The time the row is emitted (CURRENT_TIMESTAMP and the like).
        if self.emitted_at {
            row.push(emitted.map_or(Value::Null, Value::Timestamp));
        }
        row.extend(r.values.iter().cloned());
        row
    }
}

/// Plans the ranking `calls` of a query whose GROUP BY keys are named
/// `keys`; `scope` compiles ORDER BY over the window's result row. The
/// calls must share one window specification.
pub(super) fn plan(
    calls: &[AstExpr],
    keys: &[String],
    scope: &dyn Scope,
    loc: Loc,
) -> Result<Rank> {
    let mut funcs = Vec::new();
    let mut shared: Option<(Rank, String)> = None;
    for call in calls {
        let (rank, spec) = plan_one(call, keys, scope, loc)?;
        match &shared {
            Some((_, s)) if *s != spec => {
                return Err(SqlError::new(
                    expr_loc(call, loc),
                    "the ranking functions of a query must share one OVER (PARTITION BY ... ORDER \
                     BY ...)",
                ))
            }
            Some(_) => {}
            None => shared = Some((rank.clone(), spec)),
        }
        funcs.extend(rank.funcs);
    }
    let (mut rank, _) = shared.ok_or_else(|| SqlError::new(loc, "no ranking function"))?;
    rank.funcs = funcs;
    Ok(rank)
}

/// One call, with its window specification's text.
fn plan_one(
    call: &AstExpr,
    keys: &[String],
    scope: &dyn Scope,
    loc: Loc,
) -> Result<(Rank, String)> {
    let at = expr_loc(call, loc);
    let AstExpr::Function(f) = call else {
        return Err(SqlError::new(at, "not a ranking function"));
    };
    let name = f.name.to_string().to_ascii_uppercase();
    let func = match name.as_str() {
        "ROW_NUMBER" => RankFunc::RowNumber,
        "RANK" => RankFunc::Rank,
        "DENSE_RANK" => RankFunc::DenseRank,
        _ => {
            return Err(SqlError::new(
                at,
                format!(
                    "{name}() OVER (...) is not supported; over a window aggregation lowwater runs \
                     Window Top-N: ROW_NUMBER(), RANK() or DENSE_RANK() OVER (PARTITION BY \
                     window_start, window_end ORDER BY ...)"
                ),
            ))
        }
    };
    let spec = over_spec(f, &name, at)?;
    let (mut start, mut end) = (false, false);
    let mut partition = Vec::new();
    for p in &spec.partition_by {
        let text = ident_name(p).unwrap_or_else(|| super::pipeline::normalized(p));
        match text.as_str() {
            "window_start" => start = true,
            "window_end" => end = true,
            t => match keys.iter().position(|k| k == t) {
                Some(k) => partition.push(k),
                None => {
                    return Err(SqlError::new(
                        expr_loc(p, at),
                        format!("PARTITION BY {p}: a Window Top-N partitions by window_start, window_end and GROUP BY keys"),
                    ))
                }
            },
        }
    }
    if !(start && end) {
        return Err(SqlError::new(
            at,
            "a Window Top-N must be PARTITION BY window_start, window_end[, keys] (Flink's rule: \
             it ranks the rows of one window)",
        ));
    }
    if spec.order_by.is_empty() {
        return Err(SqlError::new(at, format!("{name}() needs ORDER BY")));
    }
    let order = spec
        .order_by
        .iter()
        .map(|o| {
            let t = compile(&o.expr, scope, at)?;
            let (desc, nulls_first) = sort_order(o, at)?;
            Ok(OrderTerm {
                expr: t.expr,
                desc,
                nulls_first,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((
        Rank {
            funcs: vec![func],
            partition,
            order,
        },
        format!("{spec}").to_ascii_lowercase(),
    ))
}

/// An ORDER BY term's direction and whether NULL comes first (NULL is the
/// lowest value unless said otherwise, as Flink's default collation).
pub(super) fn sort_order(o: &sqlparser::ast::OrderByExpr, at: Loc) -> Result<(bool, bool)> {
    let desc = match &o.options.sort {
        None | Some(OrderBySort::Asc) => false,
        Some(OrderBySort::Desc) => true,
        Some(OrderBySort::Using(_)) => {
            return Err(SqlError::new(at, "ORDER BY ... USING is not supported"))
        }
    };
    Ok((desc, o.options.nulls_first.unwrap_or(!desc)))
}

/// A ranking call's `OVER (PARTITION BY ... ORDER BY ...)`: inline, with no
/// frame and no window name.
pub(super) fn over_spec<'a>(
    f: &'a sqlparser::ast::Function,
    name: &str,
    at: Loc,
) -> Result<&'a sqlparser::ast::WindowSpec> {
    let Some(WindowType::WindowSpec(spec)) = &f.over else {
        return Err(SqlError::new(
            at,
            format!("{name}() needs OVER (PARTITION BY ... ORDER BY ...)"),
        ));
    };
    if spec.window_frame.is_some() || spec.window_name.is_some() {
        return Err(SqlError::new(
            at,
            format!("{name}() OVER takes no window frame or name"),
        ));
    }
    Ok(spec)
}
