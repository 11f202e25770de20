//! Window Top-N over a window function's rows, and window deduplication:
//!
//! ```sql
//! SELECT window_start, user_id, page FROM (
//!   SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id
//!                                ORDER BY ts) AS rn
//!   FROM TABLE(TUMBLE(TABLE visits, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
//! ) WHERE rn = 1
//! ```
//!
//! It runs as a window aggregation keyed by the PARTITION BY columns whose
//! one aggregate keeps the best rows ([`lowwater_core::window::top`]): it
//! waits for the watermark as a window does, fires each window once, drops
//! (and counts) a late row as a window does, is checkpointed as a window's
//! state is, and a stall of it is explained as one. Each fired row is one
//! result: `window_start, window_end, window_time`, the PARTITION BY
//! values, then its rank and the columns the query reads.
//!
//! The rank's range comes from the outer WHERE (`rn <= 3`, `rn < 4`,
//! `rn = 1`, `rn BETWEEN 2 AND 5`): it must have a constant upper bound
//! (what Flink requires of a Window Top-N); the whole WHERE is applied to
//! the ranked rows. `ROW_NUMBER() ... ORDER BY` a time attribute (the
//! rowtime or `window_time`) with `rn = 1` is Flink's window
//! deduplication: with `DESC`, of two rows at the same time the later one
//! is kept.

use std::cell::RefCell;

use lowwater_core::window::aggregate::{AggFunc, AggSpec};
use lowwater_core::window::assigner::WindowAssigner;
use lowwater_core::window::operator::WindowSpec;
use lowwater_core::window::top::TopRows;
use sqlparser::ast::{BinaryOperator, Expr as AstExpr, SelectItem, Value as AstValue};

use crate::ast::{expr_loc, ident_name, ranking_calls, Insert, TvfKind};
use crate::compile::compile;
use crate::error::{Result, SqlError};
use crate::expr::{Expr, Scope};
use crate::types::SqlType;

use super::pipeline::normalized;
use super::project::RowScope;
use super::table::TableScope;
use super::{Output, OutputKind};

/// What a ranked rows query plans into (the rest of its pipeline is a
/// window aggregation's).
pub(super) struct Planned {
    /// The PARTITION BY keys, over the source row.
    pub keys: Vec<Expr>,
    /// The aggregate's arguments: the ORDER BY values, then the columns
    /// the query reads.
    pub agg_args: Vec<Expr>,
    /// The window, with the one Top-N aggregate.
    pub window: WindowSpec,
    /// The select list, over the result row.
    pub outputs: Vec<Output>,
    /// The outer WHERE, over the result row.
    pub qualify: Option<Expr>,
}

/// Plans a window function's rows ranked by a ranking function (see the
/// module). `time` is the source's rowtime column.
pub(super) fn plan(
    ins: &Insert,
    table: &TableScope,
    time: usize,
    time_ty: SqlType,
    assigner: WindowAssigner,
) -> Result<Planned> {
    let calls = ranking_calls(&ins.items, ins.qualify.as_ref());
    let Some(call) = calls.first() else {
        return Err(SqlError::new(ins.loc, "no ranking function"));
    };
    let at = expr_loc(call, ins.loc);
    if let Some(other) = calls.iter().find(|c| normalized(c) != normalized(call)) {
        return Err(SqlError::new(
            expr_loc(other, ins.loc),
            "a Window Top-N over a window function's rows ranks by one function: use one \
             ROW_NUMBER() OVER (...)",
        ));
    }
    let AstExpr::Function(f) = call else {
        return Err(SqlError::new(at, "not a ranking function"));
    };
    let name = f.name.to_string().to_ascii_uppercase();
    match name.as_str() {
        "ROW_NUMBER" => {}
        // Flink 2.3 plans them, then refuses them (its words).
        "RANK" | "DENSE_RANK" => {
            return Err(SqlError::new(
                at,
                format!(
                    "{name}() function is not supported on Window TopN currently, only \
                     ROW_NUMBER() is supported (Flink 2.3's rule, which lowwater follows over \
                     a window function's rows; over a window aggregation RANK() and \
                     DENSE_RANK() are supported)"
                ),
            ))
        }
        _ => {
            return Err(SqlError::new(
                at,
                format!(
                    "{name}() OVER (...) over a window function's rows is not supported; lowwater \
                     runs Window Top-N there: ROW_NUMBER() OVER (PARTITION BY window_start, \
                     window_end ORDER BY ...) with WHERE rn <= N"
                ),
            ))
        }
    }
    let spec = super::rank::over_spec(f, &name, at)?;
    let (mut start, mut end) = (false, false);
    let mut keys = Vec::new();
    let mut names = Vec::new();
    for p in &spec.partition_by {
        match ident_name(p).as_deref() {
            Some("window_start") => start = true,
            Some("window_end") => end = true,
            name => {
                names.push(name.map_or_else(|| normalized(p), str::to_string));
                keys.push(compile(p, table, at)?.expr);
            }
        }
    }
    // A session is one key's: the rows of one session are those of one
    // PARTITION BY value of SESSION, which the ranking's must then be.
    if ins.tvf.kind == TvfKind::Session {
        if let Some(part) = super::pipeline::session_partition_differs(&ins.tvf, names) {
            return Err(SqlError::new(
                at,
                format!(
                    "over SESSION windows, a Window Top-N must be PARTITION BY window_start, \
                     window_end and exactly the SESSION's PARTITION BY columns ({})",
                    if part.is_empty() {
                        "none".to_string()
                    } else {
                        part.join(", ")
                    }
                ),
            ));
        }
    }
    if !(start && end) {
        return Err(SqlError::new(
            at,
            "a Window Top-N must be PARTITION BY window_start, window_end[, columns] (Flink's \
             rule: it ranks the rows of one window)",
        ));
    }
    if spec.order_by.is_empty() {
        return Err(SqlError::new(at, format!("{name}() needs ORDER BY")));
    }
    if spec.order_by.len() > TopRows::MAX_KEYS {
        return Err(SqlError::new(
            at,
            format!("at most {} ORDER BY terms", TopRows::MAX_KEYS),
        ));
    }
    let (mut desc, mut nulls_first) = (0u16, 0u16);
    let mut agg_args = Vec::new();
    let mut on_time = spec.order_by.len() == 1;
    for o in &spec.order_by {
        let (is_desc, first) = super::rank::sort_order(o, at)?;
        let name = ident_name(&o.expr);
        if matches!(
            name.as_deref(),
            Some("window_start" | "window_end" | "window_time")
        ) {
            // The same for every row of a window: it orders nothing, and
            // the rows keep the order they arrived in (ORDER BY
            // window_time is Flink's way to keep a window's first or last
            // row by arrival; it is a time attribute, the bounds are not).
            on_time &= name.as_deref() == Some("window_time");
            continue;
        }
        let t = compile(&o.expr, table, at)?;
        on_time &= t.expr == Expr::Column(time);
        let i = agg_args.len();
        desc |= u16::from(is_desc) << i;
        nulls_first |= u16::from(first) << i;
        agg_args.push(t.expr);
    }
    let (lo, hi) = rank_range(ins.qualify.as_ref(), &normalized(call));
    let Some(hi) = hi else {
        return Err(SqlError::new(
            at,
            format!(
                "a Window Top-N needs a constant upper bound on its rank, and none was found in \
                 the WHERE's conjuncts (write WHERE {} <= N, with N a whole number): Flink keeps \
                 the best N rows of each window, and without N every row would be held until \
                 its window ends",
                alias(ins, call).unwrap_or_else(|| "rn".into())
            ),
        ));
    };
    if hi < lo.max(1) {
        return Err(SqlError::new(
            at,
            format!("the rank's range is empty (from {} to {hi})", lo.max(1)),
        ));
    }
    let end = u32::try_from(hi).map_err(|_| {
        SqlError::new(
            at,
            format!("a Window Top-N keeps at most {} rows", u32::MAX),
        )
    })?;
    // Flink's window deduplication: ROW_NUMBER, the first row only, by a
    // time attribute (the rowtime or window_time).
    let dedup = end == 1 && lo <= 1 && on_time;
    let descending = match spec.order_by.first() {
        Some(o) => super::rank::sort_order(o, at)?.0,
        None => false,
    };
    let top = TopRows {
        end,
        keys: agg_args.len() as u8,
        desc,
        nulls_first,
        width: 0,
        last_on_tie: dedup && descending,
    };
    let order = (keys, agg_args);
    build(
        ins,
        table,
        (time, time_ty),
        assigner,
        order,
        top,
        Some(normalized(call)),
    )
}

/// A SESSION window function's rows without GROUP BY (`SELECT *,
/// window_start, window_end FROM TABLE(SESSION(...))`): each row is
/// written, with its session, when the session ends, as Flink's session
/// window function does; a row later than its session is dropped and
/// counted. It is a Top-N that keeps every row of a session in arrival
/// order (keyed by the SESSION's PARTITION BY columns).
pub(super) fn plan_session_rows(
    ins: &Insert,
    table: &TableScope,
    time: (usize, SqlType),
    assigner: WindowAssigner,
) -> Result<Planned> {
    let keys = ins
        .tvf
        .partition_by
        .iter()
        .map(|p| {
            let (c, _) = table.resolve(p).ok_or_else(|| {
                SqlError::new(ins.tvf.loc, format!("unknown column '{p}' in PARTITION BY"))
            })?;
            Ok(Expr::Column(c))
        })
        .collect::<Result<Vec<_>>>()?;
    let top = TopRows {
        end: u32::MAX,
        keys: 0,
        desc: 0,
        nulls_first: 0,
        width: 0,
        last_on_tie: false,
    };
    build(ins, table, time, assigner, (keys, Vec::new()), top, None)
}

/// The rest of a ranked rows pipeline: the select list and WHERE over the
/// result row, the columns they read appended to the aggregate's
/// arguments (after `order`'s ORDER BY values), and `top` given its width.
fn build(
    ins: &Insert,
    table: &TableScope,
    (time, time_ty): (usize, SqlType),
    assigner: WindowAssigner,
    (keys, mut agg_args): (Vec<Expr>, Vec<Expr>),
    mut top: TopRows,
    call: Option<String>,
) -> Result<Planned> {
    // The result row: window_start, window_end, window_time, the
    // PARTITION BY keys, the rank, then the source columns read.
    let scope = RowScope {
        table,
        time_ty,
        base: 3 + keys.len() + 1,
        rank: call.map(|c| (3 + keys.len(), c)),
        used: RefCell::new(Vec::new()),
    };
    let items = super::project::select_items(ins, table);
    let outputs = super::project::row_outputs(ins, &items, &scope, false)?;
    let qualify = match &ins.qualify {
        Some(q) => {
            let t = compile(q, &scope, ins.loc)?;
            if t.ty.is_some_and(|ty| ty != SqlType::Boolean) {
                return Err(SqlError::new(ins.loc, "WHERE must be a condition"));
            }
            Some(t.expr)
        }
        None => None,
    };
    let used = scope.used.into_inner();
    // The rows keep their time attributes (the rowtime and window_time),
    // and Flink writes at most one into a table.
    let time_slot = used
        .iter()
        .position(|&c| c == time)
        .map(|s| 3 + keys.len() + 1 + s);
    let rowtimes: Vec<&str> = outputs
        .iter()
        .filter(|o| match &o.kind {
            OutputKind::WindowTime => true,
            OutputKind::Expr(Expr::Column(c)) => Some(*c) == time_slot,
            _ => false,
        })
        .map(|o| o.name.as_str())
        .collect();
    if rowtimes.len() > 1 {
        return Err(SqlError::new(
            ins.loc,
            format!(
                "The query contains more than one rowtime attribute column [{}] for writing into \
                 a table (Flink's rule: a Window Top-N's rows keep their rowtime and \
                 window_time); CAST all but one of them AS TIMESTAMP(3)",
                rowtimes.join(", ")
            ),
        ));
    }
    top.width = u16::try_from(used.len())
        .map_err(|_| SqlError::new(ins.loc, "too many columns for a Window Top-N"))?;
    agg_args.extend(used.into_iter().map(Expr::Column));
    Ok(Planned {
        keys,
        agg_args,
        window: WindowSpec {
            assigner,
            aggregates: vec![AggSpec::on(AggFunc::TopRows(top), 0)],
            allowed_lateness: 0,
            late_side_output: false,
        },
        outputs,
        qualify,
    })
}

/// The alias of the ranking call in the select list, for messages.
fn alias(ins: &Insert, call: &AstExpr) -> Option<String> {
    ins.items.iter().find_map(|i| match i {
        SelectItem::ExprWithAlias { expr, alias } if expr == call => Some(alias.value.clone()),
        _ => None,
    })
}

/// The range `[lo, hi]` the conjuncts of `filter` put on the ranking call
/// whose text is `call` (`hi` is `None` without an upper bound).
fn rank_range(filter: Option<&AstExpr>, call: &str) -> (i64, Option<i64>) {
    let (mut lo, mut hi) = (1i64, None::<i64>);
    let mut conjuncts = Vec::new();
    if let Some(f) = filter {
        split_and(f, &mut conjuncts);
    }
    let is_call = |e: &AstExpr| normalized(strip(e)) == call;
    let mut upper = |n: i64| hi = Some(hi.map_or(n, |h: i64| h.min(n)));
    for c in conjuncts {
        match strip(c) {
            AstExpr::BinaryOp { left, op, right } => {
                let (op, n) = match (is_call(left), is_call(right)) {
                    (true, false) => (op.clone(), number(right)),
                    (false, true) => (flip(op), number(left)),
                    _ => continue,
                };
                let Some(n) = n else { continue };
                match op {
                    BinaryOperator::LtEq => upper(n),
                    BinaryOperator::Lt => upper(n.saturating_sub(1)),
                    BinaryOperator::Eq => {
                        upper(n);
                        lo = lo.max(n);
                    }
                    BinaryOperator::GtEq => lo = lo.max(n),
                    BinaryOperator::Gt => lo = lo.max(n.saturating_add(1)),
                    _ => {}
                }
            }
            AstExpr::Between {
                expr,
                negated: false,
                low,
                high,
            } if is_call(expr) => {
                if let (Some(l), Some(h)) = (number(low), number(high)) {
                    lo = lo.max(l);
                    upper(h);
                }
            }
            _ => {}
        }
    }
    (lo, hi)
}

fn split_and<'a>(e: &'a AstExpr, out: &mut Vec<&'a AstExpr>) {
    match strip(e) {
        AstExpr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            split_and(left, out);
            split_and(right, out);
        }
        other => out.push(other),
    }
}

fn strip(e: &AstExpr) -> &AstExpr {
    match e {
        AstExpr::Nested(inner) => strip(inner),
        other => other,
    }
}

fn flip(op: &BinaryOperator) -> BinaryOperator {
    match op {
        BinaryOperator::Lt => BinaryOperator::Gt,
        BinaryOperator::LtEq => BinaryOperator::GtEq,
        BinaryOperator::Gt => BinaryOperator::Lt,
        BinaryOperator::GtEq => BinaryOperator::LtEq,
        other => other.clone(),
    }
}

fn number(e: &AstExpr) -> Option<i64> {
    match strip(e) {
        AstExpr::Value(v) => match &v.value {
            AstValue::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        AstExpr::UnaryOp {
            op: sqlparser::ast::UnaryOperator::Minus,
            expr,
        } => number(expr).map(|n: i64| n.saturating_neg()),
        _ => None,
    }
}
