//! Views and subqueries, inlined into one window aggregation.
//!
//! Two shapes occur in window jobs, and both reduce to the aggregation the
//! planner runs, by substituting names with the expressions they stand for:
//! - rows: a view or subquery that selects and filters a table's rows
//!   (`CREATE VIEW v AS SELECT u, amount * 2 AS a2, ts FROM events WHERE
//!   ...`) and a window over it (`TUMBLE(TABLE v, DESCRIPTOR(ts), ...)` or
//!   `FROM v GROUP BY TUMBLE(ts, ...)`): the window reads the table, its
//!   WHERE is the view's AND its own, and `a2` is `amount * 2`;
//! - an aggregation's result: `SELECT ... FROM (SELECT window_start, u,
//!   COUNT(*) AS c FROM TABLE(...) GROUP BY ...) WHERE c > 5` is the
//!   aggregation with the outer select list over its result and the outer
//!   WHERE added to its HAVING, which is what Flink computes too (a filter
//!   and projection after the window aggregate).

use std::ops::ControlFlow;

use sqlparser::ast::{visit_expressions_mut, BinaryOperator, Expr as AstExpr, Ident, SelectItem};

use crate::ast::{expr_loc, ident_name, ranking_calls, From, Select, WindowTvf};
use crate::error::{Loc, Result, SqlError};

pub use crate::views::{View, Views};

/// A window aggregation over one source table: the parts of an INSERT.
pub struct Aggregation {
    /// The select list, over the window's result.
    pub items: Vec<SelectItem>,
    /// The window, over a table.
    pub tvf: WindowTvf,
    /// `WHERE`, over the table's columns.
    pub filter: Option<AstExpr>,
    /// `GROUP BY window_start, window_end, keys...`.
    pub group_by: Vec<AstExpr>,
    /// `HAVING`, over the window's result.
    pub having: Option<AstExpr>,
    /// A window table function without GROUP BY: every row tagged with its
    /// windows (the select list is over the rows and the window columns).
    pub rows: bool,
    /// A filter over the ranked result (Window Top-N's `WHERE rownum <= 3`):
    /// applied after the ranking, while `having` is applied before it.
    pub qualify: Option<AstExpr>,
    /// Cascading windows: the window aggregation this one's window function
    /// reads (`tvf.source` names it; the names in this one's clauses are
    /// its result's columns).
    pub input: Option<Box<Aggregation>>,
    /// A window over a temporal join: the join (a view of it) whose rows
    /// this window function reads (`tvf.source` names the view; the names
    /// in this one's clauses are the join's select list).
    pub join: Option<Box<crate::ast::ViewJoin>>,
}

/// A table's rows, selected and filtered.
struct Rows {
    source: String,
    source_loc: Loc,
    names: Names,
    filter: Option<AstExpr>,
}

// One per query while a job file is parsed: size does not matter.
#[allow(clippy::large_enum_variant)]
enum Resolved {
    Aggregation(Box<Aggregation>),
    Rows(Rows),
    /// A view of a join.
    Join(Box<crate::ast::ViewJoin>),
}

/// What a query's names stand for.
struct Names {
    /// (lower-case name, expression).
    columns: Vec<(String, AstExpr)>,
    /// `SELECT *` over a table: names not listed are the table's own.
    passthrough: bool,
    /// "view 'v'" or "the subquery", for messages.
    what: String,
}

/// `a AND b`, either of them absent.
pub(crate) fn and(a: Option<AstExpr>, b: Option<AstExpr>) -> Option<AstExpr> {
    match (a, b) {
        (Some(a), Some(b)) => Some(AstExpr::BinaryOp {
            left: Box::new(AstExpr::Nested(Box::new(a))),
            op: BinaryOperator::And,
            right: Box::new(AstExpr::Nested(Box::new(b))),
        }),
        (a, b) => a.or(b),
    }
}

impl Names {
    fn of(
        items: &[SelectItem],
        renamed: Option<&[String]>,
        inner: Option<&Names>,
        what: String,
        loc: Loc,
    ) -> Result<Names> {
        let mut columns = Vec::new();
        let mut passthrough = false;
        for (i, item) in items.iter().enumerate() {
            match item {
                SelectItem::UnnamedExpr(e) => columns.push((
                    ident_name(e).unwrap_or_else(|| format!("expr${i}")),
                    e.clone(),
                )),
                SelectItem::ExprWithAlias { expr, alias } => {
                    columns.push((alias.value.to_ascii_lowercase(), expr.clone()))
                }
                _ => match inner {
                    // `SELECT *` over rows: theirs.
                    Some(n) => {
                        columns.extend(n.columns.iter().cloned());
                        passthrough |= n.passthrough;
                    }
                    None => passthrough = true,
                },
            }
        }
        if let Some(names) = renamed {
            if names.len() != columns.len() || passthrough {
                return Err(SqlError::new(
                    loc,
                    format!(
                        "{what} names {} columns but its query has {}",
                        names.len(),
                        if passthrough {
                            "a * whose columns are the table's".to_string()
                        } else {
                            columns.len().to_string()
                        }
                    ),
                ));
            }
            for (c, n) in columns.iter_mut().zip(names) {
                c.0 = n.to_ascii_lowercase();
            }
        }
        Ok(Names {
            columns,
            passthrough,
            what,
        })
    }

    fn lookup(&self, name: &str) -> Option<&AstExpr> {
        self.columns.iter().find(|c| c.0 == name).map(|c| &c.1)
    }

    /// Replaces the names in `e` by what they stand for.
    fn substitute(&self, e: &mut AstExpr, loc: Loc) -> Result<()> {
        let flow = visit_expressions_mut(e, |x| {
            // `payload.user.id` may name a ROW field, `t.c` a column: the
            // longest dotted name this query has.
            let candidates: Vec<String> = match x {
                AstExpr::Identifier(id) => vec![id.value.to_ascii_lowercase()],
                AstExpr::CompoundIdentifier(ids) => (0..ids.len())
                    .map(|k| {
                        ids[k..]
                            .iter()
                            .map(|i| i.value.to_ascii_lowercase())
                            .collect::<Vec<_>>()
                            .join(".")
                    })
                    .collect(),
                _ => return ControlFlow::Continue(()),
            };
            let name = candidates
                .iter()
                .find(|c| self.lookup(c).is_some())
                .unwrap_or(&candidates[candidates.len() - 1])
                .clone();
            match self.lookup(&name) {
                Some(to) => {
                    *x = match to {
                        AstExpr::Identifier(_)
                        | AstExpr::CompoundIdentifier(_)
                        | AstExpr::Value(_)
                        | AstExpr::Function(_)
                        | AstExpr::Nested(_)
                        | AstExpr::Cast { .. } => to.clone(),
                        other => AstExpr::Nested(Box::new(other.clone())),
                    };
                    ControlFlow::Continue(())
                }
                None if self.passthrough => ControlFlow::Continue(()),
                None => ControlFlow::Break(SqlError::new(
                    expr_loc(x, loc),
                    format!(
                        "unknown column '{name}' in {}; it has {}",
                        self.what,
                        self.columns
                            .iter()
                            .map(|c| c.0.as_str())
                            .filter(|c| !c.starts_with("expr$"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )),
            }
        });
        match flow {
            ControlFlow::Break(err) => Err(err),
            ControlFlow::Continue(()) => Ok(()),
        }
    }

    fn items(&self, items: &mut Vec<SelectItem>, loc: Loc) -> Result<()> {
        let mut out = Vec::new();
        for item in items.drain(..) {
            match item {
                SelectItem::UnnamedExpr(mut e) => {
                    let name = ident_name(&e);
                    self.substitute(&mut e, loc)?;
                    // A name keeps naming its column.
                    match name {
                        Some(n) if ident_name(&e).as_deref() != Some(n.as_str()) => {
                            out.push(SelectItem::ExprWithAlias {
                                expr: e,
                                alias: Ident::new(n),
                            })
                        }
                        _ => out.push(SelectItem::UnnamedExpr(e)),
                    }
                }
                SelectItem::ExprWithAlias { mut expr, alias } => {
                    self.substitute(&mut expr, loc)?;
                    out.push(SelectItem::ExprWithAlias { expr, alias });
                }
                other if self.passthrough => out.push(other),
                _ => out.extend(self.columns.iter().map(|(n, e)| SelectItem::ExprWithAlias {
                    expr: e.clone(),
                    alias: Ident::new(n.clone()),
                })),
            }
        }
        *items = out;
        Ok(())
    }

    /// A column of a window function (DESCRIPTOR, PARTITION BY): it must
    /// stand for a column of the table.
    fn column(&self, name: &str, role: &str, loc: Loc) -> Result<String> {
        match self.lookup(&name.to_ascii_lowercase()) {
            None if self.passthrough => Ok(name.to_string()),
            Some(e) => ident_name(e).ok_or_else(|| {
                SqlError::new(
                    loc,
                    format!(
                        "{role} '{name}' is computed in {} ({e}); a window's {role} must be a \
                         column of the source table",
                        self.what
                    ),
                )
            }),
            None => Err(SqlError::new(
                loc,
                format!("unknown column '{name}' in {}", self.what),
            )),
        }
    }
}

/// `CREATE VIEW v (a, b, ...)`: its query's select items named `cols`.
fn rename(v: &View, cols: &[String], items: &mut [SelectItem]) -> Result<()> {
    if cols.len() != items.len() {
        return Err(SqlError::new(
            v.loc,
            format!(
                "view '{}' names {} columns but its query has {}",
                v.name,
                cols.len(),
                items.len()
            ),
        ));
    }
    for (item, c) in items.iter_mut().zip(cols) {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            *item = SelectItem::ExprWithAlias {
                expr: e.clone(),
                alias: Ident::new(c.clone()),
            };
        }
    }
    Ok(())
}

/// The rows a table name stands for: a view's, or the table's own.
fn table(name: &str, loc: Loc, views: &Views, depth: usize) -> Result<Resolved> {
    match views.get(&name.to_ascii_lowercase()) {
        Some(v) if depth > 64 => Err(SqlError::new(
            v.loc,
            format!("view '{}' is nested more than 64 deep", v.name),
        )),
        Some(v) if matches!(v.select.from, From::TemporalJoin(_)) => {
            let mut j =
                crate::join::join_insert(v.select.clone(), views, String::new(), v.loc, None)?;
            if let Some(cols) = &v.columns {
                rename(v, cols, &mut j.items)?;
            }
            Ok(Resolved::Join(Box::new(crate::ast::ViewJoin::Temporal(j))))
        }
        Some(v) if matches!(v.select.from, From::IntervalJoin(_)) => {
            let mut j =
                crate::join::interval_insert(v.select.clone(), views, String::new(), v.loc, None)?;
            if let Some(cols) = &v.columns {
                rename(v, cols, &mut j.items)?;
            }
            Ok(Resolved::Join(Box::new(crate::ast::ViewJoin::Interval(j))))
        }
        Some(v) => {
            let mut r = resolve(v.select.clone(), views, depth + 1)?;
            if let Resolved::Rows(rows) = &mut r {
                rows.names.what = format!("view '{}'", v.name);
            }
            match (r, &v.columns) {
                (r, None) => Ok(r),
                (r @ Resolved::Join(_), _) => Ok(r),
                (Resolved::Rows(mut rows), Some(cols)) => {
                    rows.names = Names::of(
                        &rows
                            .names
                            .columns
                            .iter()
                            .map(|(n, e)| SelectItem::ExprWithAlias {
                                expr: e.clone(),
                                alias: Ident::new(n.clone()),
                            })
                            .collect::<Vec<_>>(),
                        Some(cols),
                        None,
                        format!("view '{}'", v.name),
                        v.loc,
                    )?;
                    Ok(Resolved::Rows(rows))
                }
                (Resolved::Aggregation(mut a), Some(cols)) => {
                    rename(v, cols, &mut a.items)?;
                    Ok(Resolved::Aggregation(a))
                }
            }
        }
        None => Ok(Resolved::Rows(Rows {
            source: name.to_string(),
            source_loc: loc,
            names: Names {
                columns: Vec::new(),
                passthrough: true,
                what: format!("table '{name}'"),
            },
            filter: None,
        })),
    }
}

fn resolve(s: Select, views: &Views, depth: usize) -> Result<Resolved> {
    let Select {
        loc,
        mut items,
        from,
        mut filter,
        group_by,
        mut having,
    } = s;
    let (inner, what) =
        match from {
            From::Window(mut tvf) => {
                let rows = match table(&tvf.source, tvf.source_loc, views, depth)? {
                    Resolved::Rows(r) => r,
                    Resolved::Aggregation(inner) => {
                        return cascade(*inner, tvf, items, filter, group_by, having, loc)
                    }
                    Resolved::Join(j) => {
                        return window_over_join(*j, tvf, items, filter, group_by, having, loc)
                    }
                };
                let (mut group_by, rows_only) = match group_by {
                    Some((g, _)) => (g, false),
                    None if having.is_some() => {
                        return Err(SqlError::new(loc, "HAVING needs a GROUP BY"))
                    }
                    None => (Vec::new(), true),
                };
                // The window function adds its columns to the view's.
                let mut names = rows.names;
                for w in ["window_start", "window_end", "window_time"] {
                    names
                        .columns
                        .push((w.to_string(), AstExpr::Identifier(Ident::new(w))));
                }
                let n = &names;
                tvf.time_column = n.column(&tvf.time_column, "time column", tvf.time_loc)?;
                for c in &mut tvf.partition_by {
                    *c = n.column(c, "PARTITION BY column", tvf.source_loc)?;
                }
                tvf.source = rows.source;
                tvf.source_loc = rows.source_loc;
                n.items(&mut items, loc)?;
                for e in [&mut filter, &mut having].into_iter().flatten() {
                    n.substitute(e, loc)?;
                }
                for g in &mut group_by {
                    n.substitute(g, loc)?;
                }
                return Ok(Resolved::Aggregation(Box::new(Aggregation {
                    items,
                    tvf,
                    filter: and(rows.filter, filter),
                    group_by,
                    having,
                    rows: rows_only,
                    qualify: None,
                    input: None,
                    join: None,
                })));
            }
            From::Table { name, loc } => (table(&name, loc, views, depth)?, format!("'{name}'")),
            From::Query(q) => (resolve(*q, views, depth + 1)?, "the subquery".to_string()),
            From::IntervalJoin(j) if j.windows.is_some() => {
                return Err(SqlError::new(
                    j.loc,
                    "a window join is read directly by an INSERT (INSERT INTO ... SELECT ... FROM \
                 (SELECT * FROM TABLE(TUMBLE(...))) l JOIN (...) r ON ...); not as a subquery",
                ))
            }
            From::IntervalJoin(j) => return Err(SqlError::new(
                j.loc,
                "an interval join is read directly by an INSERT (INSERT INTO ... SELECT ... FROM \
                 a JOIN b ON ... AND b.ts BETWEEN ...) or, as a view, by a window function; not \
                 as a subquery",
            )),
            From::TemporalJoin(j) => return Err(SqlError::new(
                j.loc,
                "a temporal join is read directly by an INSERT (INSERT INTO ... SELECT ... FROM a \
                 JOIN b FOR SYSTEM_TIME AS OF ...) or, as a view, by a window function \
                 (TUMBLE(TABLE joined_view, DESCRIPTOR(rowtime), ...)); not as a subquery",
            )),
        };
    match inner {
        Resolved::Rows(rows) => {
            let n = &rows.names;
            n.items(&mut items, loc)?;
            for e in [&mut filter, &mut having].into_iter().flatten() {
                n.substitute(e, loc)?;
            }
            let filter = and(rows.filter, filter);
            match group_by {
                // Flink's legacy group window over the rows.
                Some((mut group_by, group_loc)) => {
                    for g in &mut group_by {
                        n.substitute(g, loc)?;
                    }
                    let r = crate::legacy::rewrite(
                        rows.source,
                        rows.source_loc,
                        group_by,
                        items,
                        having,
                        group_loc,
                    )?;
                    Ok(Resolved::Aggregation(Box::new(Aggregation {
                        items: r.items,
                        tvf: r.tvf,
                        filter,
                        group_by: r.group_by,
                        having: r.having,
                        rows: false,
                        qualify: None,
                        input: None,
                        join: None,
                    })))
                }
                None => {
                    if having.is_some() {
                        return Err(SqlError::new(loc, "HAVING needs a GROUP BY"));
                    }
                    let names = Names::of(&items, None, Some(n), "the subquery".into(), loc)?;
                    Ok(Resolved::Rows(Rows {
                        source: rows.source,
                        source_loc: rows.source_loc,
                        names,
                        filter,
                    }))
                }
            }
        }
        Resolved::Join(_) => Err(join_view_read(loc)),
        // A Window Top-N (or deduplication) over a window function's rows:
        // the outer select list and WHERE over the ranked rows.
        Resolved::Aggregation(mut a)
            if a.rows && !ranking_calls(&a.items, a.qualify.as_ref()).is_empty() =>
        {
            if let Some((g, _)) = group_by {
                return Err(SqlError::new(
                    expr_loc(&g[0], loc),
                    format!("GROUP BY over {what}, a Window Top-N, is not supported"),
                ));
            }
            if having.is_some() {
                return Err(SqlError::new(loc, "HAVING needs a GROUP BY"));
            }
            let n = Names::of(&a.items, None, None, what, loc)?;
            let mut outer = Vec::new();
            for item in items {
                match item {
                    // `*` is the subquery's select list, ranks included.
                    SelectItem::Wildcard(_) => outer.extend(a.items.iter().cloned()),
                    other => {
                        let mut one = vec![other];
                        n.items(&mut one, loc)?;
                        outer.extend(one);
                    }
                }
            }
            if let Some(f) = &mut filter {
                n.substitute(f, loc)?;
            }
            a.items = outer;
            // Both filter the ranked rows (a view's, then this query's).
            a.qualify = and(a.qualify, filter);
            Ok(Resolved::Aggregation(a))
        }
        Resolved::Aggregation(a) if a.rows => Err(SqlError::new(
            loc,
            format!(
                "a query over {what}, a window table function without GROUP BY, is not \
                 supported; select from the window function directly"
            ),
        )),
        Resolved::Aggregation(mut a) => {
            if let Some((g, _)) = group_by {
                return Err(SqlError::new(
                    expr_loc(&g[0], loc),
                    format!(
                        "GROUP BY over {what}, a window aggregation, is not supported (an \
                         aggregation of aggregated windows); select from it without GROUP BY"
                    ),
                ));
            }
            if having.is_some() {
                return Err(SqlError::new(loc, "HAVING needs a GROUP BY"));
            }
            let n = Names::of(&a.items, None, None, what, loc)?;
            n.items(&mut items, loc)?;
            if let Some(f) = &mut filter {
                n.substitute(f, loc)?;
            }
            // Over a ranked result the WHERE filters ranked rows (Flink's
            // Top-N `WHERE rownum <= 3`); below the ranking it filters the
            // rows that are ranked, as HAVING does.
            let ranked = !ranking_calls(&a.items, None).is_empty();
            a.items = items;
            if ranked {
                a.qualify = and(a.qualify, filter);
            } else {
                a.having = and(a.having, filter);
            }
            Ok(Resolved::Aggregation(a))
        }
    }
}

/// A window function over a window aggregation's result (Flink's
/// cascading window aggregation): the outer aggregation reads the inner's
/// rows, whose columns its clauses name as they are.
fn cascade(
    inner: Aggregation,
    tvf: WindowTvf,
    items: Vec<SelectItem>,
    filter: Option<AstExpr>,
    group_by: Option<(Vec<AstExpr>, Loc)>,
    having: Option<AstExpr>,
    loc: Loc,
) -> Result<Resolved> {
    let what = format!("'{}'", tvf.source);
    if inner.rows {
        return Err(SqlError::new(
            tvf.source_loc,
            format!(
                "{what} is a window table function without GROUP BY; a window function reads a \
                 table, a view of its rows or a window aggregation"
            ),
        ));
    }
    if !ranking_calls(&inner.items, None).is_empty() || inner.qualify.is_some() {
        return Err(SqlError::new(
            tvf.source_loc,
            format!(
                "{what} is a Window Top-N; a window function over its rows is not supported \
                 (aggregate first, then rank)"
            ),
        ));
    }
    let Some((group_by, _)) = group_by else {
        return Err(SqlError::new(
            loc,
            "a window function over a window aggregation needs GROUP BY window_start, \
             window_end[, keys] (cascading window aggregation)",
        ));
    };
    Ok(Resolved::Aggregation(Box::new(Aggregation {
        items,
        tvf,
        filter,
        group_by,
        having,
        rows: false,
        qualify: None,
        input: Some(Box::new(inner)),
        join: None,
    })))
}

fn join_view_read(at: Loc) -> SqlError {
    SqlError::new(
        at,
        "a view of a temporal join is read by a window function for now \
         (TUMBLE(TABLE joined_view, DESCRIPTOR(rowtime), ...) ... GROUP BY window_start, \
         window_end, ...); to write the joined rows, INSERT the join itself",
    )
}

/// A window aggregation over the rows of a temporal join (a view of it):
/// its clauses name the join's select list, which the planner resolves.
fn window_over_join(
    join: crate::ast::ViewJoin,
    tvf: WindowTvf,
    items: Vec<SelectItem>,
    filter: Option<AstExpr>,
    group_by: Option<(Vec<AstExpr>, Loc)>,
    having: Option<AstExpr>,
    loc: Loc,
) -> Result<Resolved> {
    let Some((group_by, _)) = group_by else {
        return Err(SqlError::new(
            loc,
            "a window function over a temporal join needs GROUP BY window_start, window_end[, \
             keys] (a window aggregation of the joined rows)",
        ));
    };
    if !ranking_calls(&items, having.as_ref()).is_empty() {
        return Err(SqlError::new(
            loc,
            "a Window Top-N over a temporal join is not supported yet",
        ));
    }
    Ok(Resolved::Aggregation(Box::new(Aggregation {
        items,
        tvf,
        filter,
        group_by,
        having,
        rows: false,
        qualify: None,
        input: None,
        join: Some(Box::new(join)),
    })))
}

/// The window aggregation an INSERT's query stands for, views and
/// subqueries inlined.
pub(crate) fn aggregation(s: Select, views: &Views, loc: Loc) -> Result<Aggregation> {
    let group_loc = if s.loc.line == 0 { loc } else { s.loc };
    match resolve(s, views, 0)? {
        Resolved::Aggregation(a) => Ok(*a),
        Resolved::Join(_) => Err(join_view_read(group_loc)),
        Resolved::Rows(_) => Err(SqlError::new(
            group_loc,
            "expected GROUP BY window_start, window_end[, keys] (or a legacy GROUP BY TUMBLE(ts, \
             ...)); lowwater runs window aggregations only",
        )),
    }
}
