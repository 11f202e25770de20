//! Planning an INSERT over an event-time interval join: `FROM a [INNER |
//! LEFT | RIGHT | FULL] JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts -
//! INTERVAL ... AND a.ts + INTERVAL ...`. As Flink's planner
//! (`IntervalJoinUtil`), the ON condition's terms that compare one side's
//! rowtime (plus or minus an interval) with the other's are the time
//! bounds: two range comparisons bounding `a.ts - b.ts` from below and
//! above, or one equality; a strict comparison moves its bound by 1 ms.
//! Without them the join is a regular join, which lowwater refuses. The
//! other terms' equalities between the sides are the key, the rest a
//! condition on each pair.

use sqlparser::ast::{BinaryOperator, Expr as AstExpr};

use lowwater_core::join::interval::{IntervalSpec, JoinKind, RIGHT};
use lowwater_core::Millis;

use crate::ast::{expr_loc, IntervalInsert, JoinType};
use crate::compile::compile;
use crate::error::{Loc, Result, SqlError};
use crate::expr::Expr;
use crate::types::SqlType;

use super::join_scope::{
    conjuncts, find_table, joined_columns, joined_sink_values, one_side, outputs, readable, unify,
    where_clause, JoinScope, Side,
};
use super::{Output, TableDef};

/// One INSERT over an event-time interval join.
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalPlan {
    /// Where the INSERT starts.
    pub loc: Loc,
    /// The left table.
    pub left: usize,
    /// The right table.
    pub right: usize,
    /// The join's kind and bounds (of `left.ts - right.ts`).
    pub spec: IntervalSpec,
    /// The key over the left row (the left table's row).
    pub left_key: Vec<Expr>,
    /// The key over the right row, pairwise equal to `left_key`.
    pub right_key: Vec<Expr>,
    /// The ON condition beyond the key and the time bounds, over the
    /// joined row (the left row, then the right row).
    pub residual: Option<Expr>,
    /// `WHERE`, over the joined row.
    pub filter: Option<Expr>,
    /// The select list, over the joined row.
    pub outputs: Vec<Output>,
    /// Sink table index.
    pub sink: usize,
    /// `outputs[i]` is written to sink column `sink_columns[i]`.
    pub sink_columns: Vec<usize>,
    /// The sink's column types.
    pub sink_types: Vec<SqlType>,
    /// A join read by a window function (a view of it): the INSERT
    /// (pipeline index) whose window aggregation its rows feed, instead of
    /// the sink; its "sink row" is then its select list, in order.
    pub into: Option<usize>,
    /// The two rowtimes' positions in the joined row (left, right).
    pub times: (usize, usize),
    /// With `into`: the output the window reads as its time.
    pub window_time: Option<usize>,
    /// The widths of the sides' rows in the joined row (left, right).
    pub widths: (usize, usize),
    /// A window join: what its sides do to their tables' rows.
    pub window: Option<super::WindowSides>,
}

impl IntervalPlan {
    /// The node of one subtask of this join over `left` and `right`
    /// channels, caching at most `limit` rows while its watermark stands
    /// still for longer than `grace`.
    pub fn node(
        &self,
        left: usize,
        right: usize,
        limit: u64,
        grace: Millis,
    ) -> lowwater_core::join::interval_node::IntervalJoinNode {
        use lowwater_core::join::interval_node::IntervalJoinNode;
        match self.window {
            Some(_) => IntervalJoinNode::window(self.spec.kind, left, right, limit, grace),
            None => IntervalJoinNode::new(self.spec, left, right, limit, grace),
        }
    }

    /// What it is, in messages: "interval join" or "window join".
    pub fn what(&self) -> &'static str {
        match self.window {
            Some(_) => "window join",
            None => "interval join",
        }
    }

    /// The sink row of a joined row (`None`s padded); `None` when WHERE
    /// drops it.
    pub fn sink_values(
        &self,
        joined: &[lowwater_core::Value],
        width: usize,
    ) -> std::result::Result<Option<Vec<lowwater_core::Value>>, String> {
        let sink = (&self.sink_columns[..], &self.sink_types[..]);
        joined_sink_values(self.filter.as_ref(), &self.outputs, sink, joined, width)
    }

    /// The time a window over this join reads from a joined row's select
    /// list (`derived`): the rowtime it names, which a padded row may
    /// lack (an error, as in Flink).
    pub fn window_ts(
        &self,
        derived: &[lowwater_core::Value],
    ) -> std::result::Result<lowwater_core::Timestamp, String> {
        match self.window_time.and_then(|t| derived.get(t)) {
            Some(lowwater_core::Value::Timestamp(ts)) => Ok(*ts),
            _ => Err(
                "a row the outer interval join padded has no time for the window (its rowtime \
                 is NULL): window over the rowtime of the side that is always there (Flink \
                 fails on such a row too)"
                    .to_string(),
            ),
        }
    }

    /// A joined row's time: the later of its two rowtimes (a padded side's
    /// is NULL), from which its emission lag runs.
    pub fn pair_time(&self, joined: &[lowwater_core::Value]) -> Option<lowwater_core::Timestamp> {
        [self.times.0, self.times.1]
            .iter()
            .filter_map(|&c| match joined.get(c) {
                Some(lowwater_core::Value::Timestamp(t)) => Some(*t),
                _ => None,
            })
            .max()
    }

    /// The join key of a row of side `port` (left 0, or [`RIGHT`]).
    pub fn side_key(
        &self,
        port: usize,
        row: &[lowwater_core::Value],
    ) -> std::result::Result<lowwater_core::Row, String> {
        let exprs = if port == RIGHT {
            &self.right_key
        } else {
            &self.left_key
        };
        exprs
            .iter()
            .map(|e| e.eval(row))
            .collect::<std::result::Result<_, _>>()
            .map_err(|m| format!("the join key: {m}"))
    }

    /// Whether a pair of rows with equal keys meets the ON condition's
    /// other terms (asked by the join for each pair in the time bounds).
    pub fn matches(
        &self,
        l: &lowwater_core::Row,
        r: &lowwater_core::Row,
    ) -> std::result::Result<bool, String> {
        let Some(c) = &self.residual else {
            return Ok(true);
        };
        let mut row = l.clone();
        row.extend(r.iter().cloned());
        Ok(crate::expr::truth(&c.eval(&row)?) == Some(true))
    }

    /// The columns of table `t` this join reads into `cols`.
    pub fn columns_read(&self, t: usize, cols: &mut Vec<usize>) {
        let joined = joined_columns(self.residual.as_ref(), self.filter.as_ref(), &self.outputs);
        let left_width = self.widths.0;
        if let Some(w) = &self.window {
            // Positions in each side's row (a key reads its side's alone).
            let (mut l, mut r): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
            for &c in &joined {
                match c.checked_sub(left_width) {
                    Some(rc) => r.push(rc),
                    None => l.push(c),
                }
            }
            for e in &self.left_key {
                e.columns(&mut l);
            }
            for e in &self.right_key {
                e.columns(&mut r);
            }
            if t == self.left {
                w.columns_read(0, &l, cols);
            }
            if t == self.right {
                w.columns_read(RIGHT, &r, cols);
            }
            return;
        }
        if t == self.left {
            for e in &self.left_key {
                e.columns(cols);
            }
            cols.extend(joined.iter().filter(|&&c| c < left_width));
        }
        if t == self.right {
            for e in &self.right_key {
                e.columns(cols);
            }
            cols.extend(joined.iter().filter_map(|&c| c.checked_sub(left_width)));
        }
    }
}

/// A comparison of the two rowtimes: `a op b` where `a` is one side's
/// rowtime plus `a_off` and `b` the other's plus `b_off`.
struct TimePredicate {
    op: BinaryOperator,
    /// Whether the left operand reads the left table's rowtime.
    left_on_left: bool,
    a_off: Millis,
    b_off: Millis,
}

/// Which side's rowtime `e` reads (`true`: the left table's) and the
/// interval added to it, when `e` is `rowtime`, `rowtime ± INTERVAL ...`
/// or `INTERVAL ... + rowtime`.
fn time_access(
    e: &AstExpr,
    scope: &JoinScope,
    times: (usize, usize),
    loc: Loc,
) -> Option<(bool, Millis)> {
    match e {
        AstExpr::Nested(inner) => time_access(inner, scope, times, loc),
        AstExpr::BinaryOp { left, op, right } => {
            let (sign, t, iv) = match (op, time_access(left, scope, times, loc)) {
                (BinaryOperator::Plus, Some(t)) => (1, t, right),
                (BinaryOperator::Minus, Some(t)) => (-1, t, right),
                (BinaryOperator::Plus, None) => (1, time_access(right, scope, times, loc)?, left),
                _ => return None,
            };
            let ms = super::table::interval(iv, loc).ok()?;
            Some((t.0, t.1.checked_add(ms.checked_mul(sign)?)?))
        }
        AstExpr::Identifier(_) | AstExpr::CompoundIdentifier(_) => {
            match compile(e, scope, loc).ok()?.expr {
                Expr::Column(c) if c == times.0 => Some((true, 0)),
                Expr::Column(c) if c == times.1 => Some((false, 0)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The time predicate `a op b` is, if it is one (Flink's
/// `identifyTimePredicate`: each operand reads one rowtime, the two sides').
fn time_predicate(
    a: &AstExpr,
    op: &BinaryOperator,
    b: &AstExpr,
    scope: &JoinScope,
    times: (usize, usize),
    loc: Loc,
) -> Option<TimePredicate> {
    if !matches!(
        op,
        BinaryOperator::Gt
            | BinaryOperator::GtEq
            | BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Eq
    ) {
        return None;
    }
    let (x, y) = (
        time_access(a, scope, times, loc)?,
        time_access(b, scope, times, loc)?,
    );
    (x.0 != y.0).then(|| TimePredicate {
        op: op.clone(),
        left_on_left: x.0,
        a_off: x.1,
        b_off: y.1,
    })
}

/// The bound a time predicate puts on `left.ts - right.ts`, and whether it
/// is the lower one (Flink's `computeWindowBoundFromPredicate`).
fn bound(t: &TimePredicate) -> (Millis, bool) {
    let lower = match t.op {
        BinaryOperator::Gt | BinaryOperator::GtEq => t.left_on_left,
        BinaryOperator::Lt | BinaryOperator::LtEq => !t.left_on_left,
        _ => true,
    };
    let offset = if t.left_on_left {
        t.b_off - t.a_off
    } else {
        t.a_off - t.b_off
    };
    let b = match (&t.op, t.left_on_left) {
        (BinaryOperator::Lt, true) | (BinaryOperator::Gt, false) => offset - 1,
        (BinaryOperator::Lt, false) | (BinaryOperator::Gt, true) => offset + 1,
        _ => offset,
    };
    (b, lower)
}

fn regular(loc: Loc, why: &str) -> SqlError {
    SqlError::new(
        loc,
        format!(
            "this join is a regular join ({why}), which lowwater does not run: its state grows \
             without bound on a stream. Bound one rowtime by the other (an interval join: ON a.k \
             = b.k AND b.ts BETWEEN a.ts - INTERVAL '1' MINUTE AND a.ts + INTERVAL '1' MINUTE), \
             or join a table of versions FOR SYSTEM_TIME AS OF a.ts"
        ),
    )
}

/// Plans an INSERT over an interval join.
/// Plans an INSERT over an interval join, or with `into` (sink, pipeline)
/// a view of one that the window aggregation of INSERT `pipeline` reads.
pub(super) fn interval(
    ins: &IntervalInsert,
    tables: &[TableDef],
    min_cleanup: Millis,
    into: Option<(usize, usize)>,
) -> Result<IntervalPlan> {
    let j = &ins.join;
    if j.windows.is_some() {
        return Err(SqlError::new(
            j.loc,
            "a window function over a window join is not supported yet: write the joined rows \
             to a table and aggregate them in another job",
        ));
    }
    let sink = match into {
        Some((sink, _)) => sink,
        None => find_table(tables, &ins.sink, ins.loc)?,
    };
    let (left, right) = sides(j, tables)?;
    let (lt, rt) = (&tables[left], &tables[right]);
    let (lq, rq) = (j.left.qualifier(), j.right.qualifier());
    let right_cols: Vec<(String, SqlType)> =
        rt.columns.iter().map(|c| (c.name.clone(), c.ty)).collect();
    let scope = JoinScope {
        probe_q: lq,
        probe: lt.columns.iter().map(|c| (c.name.clone(), c.ty)).collect(),
        build_q: rq,
        build: &right_cols,
        side: Side::Both,
    };
    let (Some(lw), Some(rw)) = (lt.watermark, rt.watermark) else {
        return Err(regular(
            j.loc,
            "an interval join bounds the sides' rowtimes, and a side without a WATERMARK has none",
        ));
    };
    let times = (lw.column, lt.columns.len() + rw.column);
    // The ON terms: BETWEEN is two comparisons, as Calcite makes it.
    let mut terms = Vec::new();
    conjuncts(&j.on, &mut terms);
    let mut split: Vec<(AstExpr, Loc)> = Vec::new();
    for t in terms {
        let at = expr_loc(t, j.loc);
        match t {
            AstExpr::Between {
                expr,
                negated: false,
                low,
                high,
            } => {
                split.push((
                    AstExpr::BinaryOp {
                        left: expr.clone(),
                        op: BinaryOperator::GtEq,
                        right: low.clone(),
                    },
                    at,
                ));
                split.push((
                    AstExpr::BinaryOp {
                        left: expr.clone(),
                        op: BinaryOperator::LtEq,
                        right: high.clone(),
                    },
                    at,
                ));
            }
            other => split.push((other.clone(), at)),
        }
    }
    let mut time_preds = Vec::new();
    let mut others = Vec::new();
    for (t, at) in &split {
        if let AstExpr::BinaryOp {
            left: a,
            op,
            right: b,
        } = t
        {
            if let Some(tp) = time_predicate(a, op, b, &scope, times, *at) {
                time_preds.push(tp);
                continue;
            }
        }
        others.push((t, *at));
    }
    let (lower, upper) = match time_preds.as_slice() {
        [t] if t.op == BinaryOperator::Eq => (bound(t).0, bound(t).0),
        [x, y] if x.op != BinaryOperator::Eq && y.op != BinaryOperator::Eq => {
            match (bound(x), bound(y)) {
                ((l, true), (u, false)) | ((u, false), (l, true)) => (l, u),
                _ => {
                    return Err(regular(
                        j.loc,
                        "its two time comparisons bound the rowtimes in the same direction",
                    ))
                }
            }
        }
        [] => return Err(regular(j.loc, "ON does not compare the two rowtimes")),
        _ => {
            return Err(regular(
                j.loc,
                "ON needs two comparisons of the rowtimes, one from each side, or one equality",
            ))
        }
    };
    let kind = match j.kind {
        JoinType::Inner => JoinKind::Inner,
        JoinType::Left => JoinKind::Left,
        JoinType::Right => JoinKind::Right,
        JoinType::Full => JoinKind::Full,
        JoinType::Semi | JoinType::Anti => {
            return Err(SqlError::new(j.loc, "IN and EXISTS join windows only"))
        }
    };
    let (left_key, right_key, residual) = keys_and_residual(&others, &scope)?;
    let filter = where_clause(ins.filter.as_ref(), &scope, ins.loc)?;
    let outputs = outputs(&ins.items, ins.loc, &scope)?;
    let (sink_columns, sink_types) = sink_of(
        ins,
        tables,
        (sink, into.is_some()),
        &outputs,
        &[times.0, times.1],
    )?;
    Ok(IntervalPlan {
        loc: ins.loc,
        left,
        right,
        spec: IntervalSpec {
            kind,
            lower,
            upper,
            min_cleanup,
        },
        left_key,
        right_key,
        residual,
        filter,
        outputs,
        sink,
        sink_columns,
        sink_types,
        into: into.map(|(_, pi)| pi),
        times,
        window_time: None,
        widths: (lt.columns.len(), rt.columns.len()),
        window: None,
    })
}

/// The tables of join `j`'s sides (left, right): readable, and named
/// apart.
pub(super) fn sides(j: &crate::ast::IntervalJoin, tables: &[TableDef]) -> Result<(usize, usize)> {
    let left = find_table(tables, &j.left.name, j.left.loc)?;
    let right = find_table(tables, &j.right.name, j.right.loc)?;
    readable(&tables[left], j.left.loc)?;
    readable(&tables[right], j.right.loc)?;
    let (lq, rq) = (j.left.qualifier(), j.right.qualifier());
    if lq.eq_ignore_ascii_case(rq) {
        return Err(SqlError::new(
            j.right.loc,
            format!("both sides of the join are named '{lq}': give them different aliases"),
        ));
    }
    Ok((left, right))
}

/// The ON terms beyond the time bounds (or the window bounds): the
/// equalities between the sides are the key (left, right), the rest the
/// residual condition over the joined row.
pub(super) fn keys_and_residual(
    others: &[(&AstExpr, Loc)],
    scope: &JoinScope,
) -> Result<(Vec<Expr>, Vec<Expr>, Option<Expr>)> {
    let (mut left_key, mut right_key) = (Vec::new(), Vec::new());
    let mut residual: Option<Expr> = None;
    for &(t, at) in others {
        if let AstExpr::BinaryOp {
            left: a,
            op: BinaryOperator::Eq,
            right: b,
        } = t
        {
            compile(a, scope, at)?;
            compile(b, scope, at)?;
            let pair = |x: &AstExpr, y: &AstExpr| {
                Some((
                    one_side(x, &scope.with(Side::Probe), at)?,
                    one_side(y, &scope.with(Side::Build), at)?,
                ))
            };
            // Each operand must read its side in the joined row's own
            // scope too (a window semi join's subquery reads its bare
            // names from its own side first: `a = b` there is a filter).
            let reads = |e: &AstExpr, left: bool| {
                let Ok(t) = compile(e, scope, at) else {
                    return false;
                };
                let mut cols = Vec::new();
                t.expr.columns(&mut cols);
                let width = scope.probe.len();
                cols.iter().all(|&c| (c < width) == left)
            };
            let pair =
                |x: &AstExpr, y: &AstExpr| pair(x, y).filter(|_| reads(x, true) && reads(y, false));
            if let Some((l, r)) = pair(a, b).or_else(|| pair(b, a)) {
                let (l, r) = unify(l, r, at)?;
                left_key.push(l);
                right_key.push(r);
                continue;
            }
        }
        let c = compile(t, scope, at)?;
        if !matches!(c.ty, None | Some(SqlType::Boolean)) {
            return Err(SqlError::new(at, "ON needs a BOOLEAN condition: join on equalities between the sides (a.k = b.k) and the time bounds, with other conditions ANDed"));
        }
        residual = Some(match residual {
            None => c.expr,
            Some(r) => Expr::And(Box::new(r), Box::new(c.expr)),
        });
    }
    Ok((left_key, right_key, residual))
}

/// The sink columns and types of a join's select list `outputs` (into
/// table `sink`, or with `into` a window's input, its select list), after
/// checking that it writes at most one of the rowtimes at `times`.
pub(super) fn sink_of(
    ins: &IntervalInsert,
    tables: &[TableDef],
    (sink, into): (usize, bool),
    outputs: &[Output],
    times: &[usize],
) -> Result<(Vec<usize>, Vec<SqlType>)> {
    // Both rowtimes stay time attributes after the join, and a sink takes
    // one (Flink refuses two).
    let rowtimes: Vec<&str> = outputs
        .iter()
        .filter(
            |o| matches!(&o.kind, super::OutputKind::Expr(Expr::Column(c)) if times.contains(c)),
        )
        .map(|o| o.name.as_str())
        .collect();
    if rowtimes.len() > 1 && !into {
        let which = match ins.join.windows {
            Some(_) => {
                "the sides' rowtimes and window_time stay time attributes after a window join"
            }
            None => "both sides' rowtimes stay time attributes after an interval join",
        };
        return Err(SqlError::new(
            ins.loc,
            format!(
                "the query writes more than one rowtime attribute ({}) into '{}': {which}, and \
                 Flink refuses this (\"The query contains more than one rowtime attribute \
                 column\"); write one of them as CAST(... AS TIMESTAMP(3))",
                rowtimes.join(", "),
                tables[sink].name
            ),
        ));
    }
    Ok(match into {
        true => (
            (0..outputs.len()).collect(),
            outputs.iter().map(|o| o.ty).collect(),
        ),
        false => (
            super::sink::sink_mapping(ins.loc, ins.sink_columns.as_ref(), &tables[sink], outputs)?,
            tables[sink].columns.iter().map(|c| c.ty).collect(),
        ),
    })
}
