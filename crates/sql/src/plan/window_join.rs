//! Planning an INSERT over a window join: `FROM (SELECT * FROM
//! TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL ...))) l [INNER | LEFT |
//! RIGHT | FULL] JOIN (SELECT * FROM TABLE(TUMBLE(TABLE b, ...))) r ON
//! l.window_start = r.window_start AND l.window_end = r.window_end AND l.k
//! = r.k`. As Flink's planner (`WindowJoinUtil`): both sides are the same
//! window function over a rowtime of the same type, ON equates both
//! window bounds (Flink otherwise plans a regular join, which lowwater
//! refuses), those two terms go, the other equalities between the sides
//! are the key and the rest a condition on each pair. Each side's row is
//! its table's columns, then `window_start`, `window_end` and
//! `window_time`, filtered by its subquery's WHERE and cut to its select
//! list; the joined row is the left side's row, then the right's. The
//! tables' rowtimes and the `window_time` columns stay time attributes, so
//! a sink takes one of them (as Flink 2.3 does, whose docs say otherwise).

use sqlparser::ast::{BinaryOperator, Expr as AstExpr, SelectItem};

use lowwater_core::join::interval::{IntervalSpec, JoinKind, RIGHT};
use lowwater_core::window::assigner::{Window, WindowAssigner};
use lowwater_core::{Row, Timestamp, Value};

use crate::ast::{expr_loc, ident_name, IntervalInsert, JoinType, WindowSide};
use crate::compile::compile;
use crate::error::{Loc, Result, SqlError};
use crate::expr::{truth, Expr};
use crate::types::SqlType;

use super::interval::{keys_and_residual, sink_of};
use super::join_scope::{conjuncts, find_table, outputs, where_clause, JoinScope, Side};
use super::{IntervalPlan, TableDef};

/// Columns by name and type.
type Columns = Vec<(String, SqlType)>;

/// What a window join's sides do to their tables' rows before the join.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowSides {
    /// The window function of both sides.
    pub assigner: WindowAssigner,
    /// The tables' widths (left, right): a windowed row is the table's
    /// row, then `window_start`, `window_end`, `window_time`.
    pub widths: [usize; 2],
    /// Each side's WHERE, over its windowed row.
    pub filters: [Option<Expr>; 2],
    /// Each side's select list: the windowed row's columns it keeps, in
    /// order.
    pub columns: [Vec<usize>; 2],
}

impl WindowSides {
    /// The rows side `port`'s table row `row` (at rowtime `ts`) gives the
    /// join, one per window it is in that its WHERE keeps, each with its
    /// window's time (`window_end - 1`), appended to `out`. Returns how many
    /// windowed rows the WHERE dropped.
    pub fn side_rows(
        &self,
        port: usize,
        ts: Timestamp,
        row: &[Value],
        out: &mut Vec<(Timestamp, Row)>,
    ) -> std::result::Result<u64, String> {
        let side = usize::from(port == RIGHT);
        let mut windows: Vec<Window> = Vec::new();
        self.assigner
            .assign(ts, &mut windows)
            .map_err(|e| e.to_string())?;
        let mut dropped = 0;
        let mut windowed: Row = Vec::with_capacity(row.len() + 3);
        for w in windows {
            windowed.clear();
            windowed.extend_from_slice(row);
            windowed.extend([
                Value::Timestamp(w.start),
                Value::Timestamp(w.end),
                Value::Timestamp(w.max_timestamp()),
            ]);
            if let Some(f) = &self.filters[side] {
                if truth(&f.eval(&windowed)?) != Some(true) {
                    dropped += 1;
                    continue;
                }
            }
            let kept = self.columns[side]
                .iter()
                .map(|&c| windowed[c].clone())
                .collect();
            out.push((w.max_timestamp(), kept));
        }
        Ok(dropped)
    }

    /// The table columns side `port` reads before the join (its WHERE's)
    /// into `cols`, and `joined` (positions in its row after the join)
    /// mapped to table columns.
    pub(super) fn columns_read(&self, port: usize, joined: &[usize], cols: &mut Vec<usize>) {
        let side = usize::from(port == RIGHT);
        let width = self.widths[side];
        let mut windowed = Vec::new();
        if let Some(f) = &self.filters[side] {
            f.columns(&mut windowed);
        }
        windowed.extend(joined.iter().filter_map(|&c| self.columns[side].get(c)));
        cols.extend(windowed.into_iter().filter(|&c| c < width));
    }
}

/// Side `side`'s windowed columns (its table's, then the window's), and
/// the rowtime's position.
fn windowed_columns(table: &TableDef, side: &WindowSide) -> Result<(Columns, SqlType)> {
    let tvf = &side.tvf;
    let Some(wm) = table.watermark else {
        return Err(SqlError::new(
            tvf.source_loc,
            format!(
                "table '{}' has no WATERMARK clause; a window join needs an event-time column on \
                 each side (add WATERMARK FOR <col> AS <col> - INTERVAL '5' SECOND)",
                table.name
            ),
        ));
    };
    if table.column(&tvf.time_column) != Some(wm.column) {
        return Err(SqlError::new(
            tvf.time_loc,
            format!(
                "DESCRIPTOR({}) must name the rowtime column '{}' (the column of the WATERMARK \
                 clause): Flink's window join joins event-time windows only",
                tvf.time_column, table.columns[wm.column].name
            ),
        ));
    }
    let time_ty = table.columns[wm.column].ty;
    let mut cols: Vec<(String, SqlType)> = table
        .columns
        .iter()
        .map(|c| (c.name.clone(), c.ty))
        .collect();
    cols.extend([
        ("window_start".to_string(), SqlType::Timestamp),
        ("window_end".to_string(), SqlType::Timestamp),
        ("window_time".to_string(), time_ty),
    ]);
    Ok((cols, time_ty))
}

/// Side `side`'s select list over its windowed columns: the positions it
/// keeps and their names and types.
fn side_columns(
    side: &WindowSide,
    windowed: &[(String, SqlType)],
    scope: &JoinScope,
) -> Result<(Vec<usize>, Columns)> {
    let (mut keep, mut named) = (Vec::new(), Vec::new());
    for item in &side.items {
        let (e, alias) = match item {
            SelectItem::Wildcard(_) => {
                keep.extend(0..windowed.len());
                named.extend(windowed.iter().cloned());
                continue;
            }
            SelectItem::UnnamedExpr(e) => (e, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
            other => {
                return Err(SqlError::new(
                    side.loc,
                    format!("select item {other} is not supported in a window join's side"),
                ))
            }
        };
        let at = expr_loc(e, side.loc);
        match compile(e, scope, at)?.expr {
            Expr::Column(c) => {
                let name = alias
                    .or_else(|| ident_name(e))
                    .unwrap_or_else(|| windowed[c].0.clone());
                keep.push(c);
                named.push((name, windowed[c].1));
            }
            _ => {
                return Err(SqlError::new(
                    at,
                    "a window join's side selects columns (as they are, or renamed); compute \
                     expressions in the select list over the join",
                ))
            }
        }
    }
    Ok((keep, named))
}

/// Whether `t` is `x = y` with `x` the left side's column `l` and `y` the
/// right side's `r` (either way round).
fn equates(t: &AstExpr, scope: &JoinScope, (l, r): (usize, usize), at: Loc) -> bool {
    let AstExpr::BinaryOp {
        left: a,
        op: BinaryOperator::Eq,
        right: b,
    } = t
    else {
        return false;
    };
    let col = |e: &AstExpr| match compile(e, scope, at).ok()?.expr {
        Expr::Column(c) => Some(c),
        _ => None,
    };
    matches!((col(a), col(b)), (Some(x), Some(y)) if (x, y) == (l, r) || (y, x) == (l, r))
}

fn regular(loc: Loc, why: &str) -> SqlError {
    SqlError::new(
        loc,
        format!(
            "this join is not a window join ({why}), and Flink plans it as a regular join, which \
             lowwater does not run: its state grows without bound on a stream. Join the windows \
             of the same window function: ON l.window_start = r.window_start AND l.window_end = \
             r.window_end AND l.k = r.k"
        ),
    )
}

/// Plans an INSERT over a window join.
pub(super) fn window_join(
    ins: &IntervalInsert,
    tables: &[TableDef],
    settings: &super::Settings,
    into: Option<(usize, usize)>,
) -> Result<IntervalPlan> {
    let j = &ins.join;
    let Some(sides) = j.windows.as_deref() else {
        return Err(SqlError::new(j.loc, "not a window join"));
    };
    if into.is_some() {
        return Err(SqlError::new(
            j.loc,
            "a window function over a window join is not supported yet: write the joined rows \
             to a table and aggregate them in another job",
        ));
    }
    let sink = find_table(tables, &ins.sink, ins.loc)?;
    let (left, right) = super::interval::sides(j, tables)?;
    let (lt, rt) = (&tables[left], &tables[right]);
    let (lq, rq) = (j.left.qualifier(), j.right.qualifier());
    let mut assigners = Vec::new();
    for s in sides {
        if s.tvf.kind == crate::ast::TvfKind::Session {
            return Err(SqlError::new(
                s.tvf.loc,
                "a window join over SESSION windows is not supported: join TUMBLE, HOP or \
                 CUMULATE windows",
            ));
        }
        assigners.push(super::pipeline::window_assigner(&s.tvf, settings)?);
    }
    if assigners[0] != assigners[1] {
        return Err(regular(
            sides[1].tvf.loc,
            "its sides are different window functions",
        ));
    }
    let (lw, lty) = windowed_columns(lt, &sides[0])?;
    let (rw, rty) = windowed_columns(rt, &sides[1])?;
    if lty != rty {
        return Err(SqlError::new(
            sides[1].tvf.time_loc,
            format!(
                "the sides' rowtimes are of different types ({} and {}): Flink's window join \
                 needs one type on both sides; CAST one in a computed column of its table",
                lty.name(),
                rty.name()
            ),
        ));
    }
    // Each side's WHERE and select list, over its own windowed row.
    let mut filters = [None, None];
    let mut columns = [Vec::new(), Vec::new()];
    let mut named = [Vec::new(), Vec::new()];
    for (i, (side, (table, windowed))) in sides.iter().zip([(lt, &lw), (rt, &rw)]).enumerate() {
        let scope = JoinScope {
            probe_q: &table.name,
            probe: windowed.clone(),
            build_q: "",
            build: &[],
            side: Side::Probe,
        };
        filters[i] = where_clause(side.filter.as_ref(), &scope, side.loc)?;
        (columns[i], named[i]) = side_columns(side, windowed, &scope)?;
    }
    let kind = match j.kind {
        JoinType::Inner => JoinKind::Inner,
        JoinType::Left => JoinKind::Left,
        JoinType::Right => JoinKind::Right,
        JoinType::Full => JoinKind::Full,
        JoinType::Semi => JoinKind::Semi,
        JoinType::Anti => JoinKind::Anti,
    };
    // A semi or anti join's ON is its subquery's WHERE; its select list
    // and WHERE read the left side only.
    let semi = matches!(kind, JoinKind::Semi | JoinKind::Anti);
    let scope = JoinScope {
        probe_q: lq,
        probe: named[0].clone(),
        build_q: rq,
        build: &named[1],
        side: if semi { Side::Inner } else { Side::Both },
    };
    let outer = scope.with(if semi { Side::Probe } else { Side::Both });
    // A column of the joined row: side `s`'s windowed column `c`.
    let at = |s: usize, c: usize| {
        let base = if s == 0 { 0 } else { named[0].len() };
        columns[s].iter().position(|&k| k == c).map(|p| base + p)
    };
    let (lwidth, rwidth) = (lt.columns.len(), rt.columns.len());
    let bound = |name: &str, off: usize| -> Result<(usize, usize)> {
        match (at(0, lwidth + off), at(1, rwidth + off)) {
            (Some(l), Some(r)) => Ok((l, r)),
            _ => Err(regular(
                j.loc,
                &format!("a side does not select {name}, so ON cannot equate it"),
            )),
        }
    };
    let (starts, ends) = (bound("window_start", 0)?, bound("window_end", 1)?);
    let mut terms = Vec::new();
    conjuncts(&j.on, &mut terms);
    let (mut start_eq, mut end_eq) = (false, false);
    let mut others = Vec::new();
    for t in terms {
        let loc = expr_loc(t, j.loc);
        if equates(t, &scope, starts, loc) {
            start_eq = true;
        } else if equates(t, &scope, ends, loc) {
            end_eq = true;
        } else {
            others.push((t, loc));
        }
    }
    if !(start_eq && end_eq) {
        let missing = match (start_eq, end_eq) {
            (false, false) => "ON equates neither window_start nor window_end",
            (false, true) => "ON does not equate the sides' window_start",
            _ => "ON does not equate the sides' window_end",
        };
        return Err(regular(j.loc, missing));
    }
    let (left_key, right_key, residual) = keys_and_residual(&others, &scope)?;
    let filter = where_clause(ins.filter.as_ref(), &outer, ins.loc)?;
    let outputs = outputs(&ins.items, ins.loc, &outer)?;
    let times = (
        at(0, lwidth + 2).unwrap_or(usize::MAX),
        at(1, rwidth + 2).unwrap_or(usize::MAX),
    );
    // The tables' rowtimes stay time attributes after the window function
    // too (Flink refuses `o.ts, s.ts` as it refuses two window_time).
    let (lts, rts) = (
        lt.watermark.map(|w| w.column),
        rt.watermark.map(|w| w.column),
    );
    let rowtimes: Vec<usize> = [
        lts.and_then(|c| at(0, c)),
        rts.and_then(|c| at(1, c)),
        Some(times.0),
        Some(times.1),
    ]
    .into_iter()
    .flatten()
    .collect();
    let (sink_columns, sink_types) = sink_of(ins, tables, (sink, false), &outputs, &rowtimes)?;
    Ok(IntervalPlan {
        loc: ins.loc,
        left,
        right,
        spec: IntervalSpec {
            kind,
            lower: 0,
            upper: 0,
            min_cleanup: 0,
        },
        left_key,
        right_key,
        residual,
        filter,
        outputs,
        sink,
        sink_columns,
        sink_types,
        into: None,
        times,
        window_time: None,
        widths: (named[0].len(), named[1].len()),
        window: Some(WindowSides {
            assigner: assigners[0],
            widths: [lwidth, rwidth],
            filters,
            columns,
        }),
    })
}
