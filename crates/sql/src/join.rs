//! Parsing an INSERT over an event-time temporal join: its select list,
//! WHERE and join as written, and the versioned view its build side may
//! name, recognized in the one shape Flink accepts as a versioned table
//! (a deduplication that keeps each key's last row on its rowtime).

use sqlparser::ast::{
    BinaryOperator, Expr as AstExpr, OrderBySort, SelectItem, Value as AstValue, WindowType,
};

use crate::ast::{
    expr_loc, ident_name, From, JoinInsert, Named, Select, VersionedView, ViewSource,
};
use crate::error::{Loc, Result, SqlError};
use crate::views::{View, Views};

/// The INSERT of `query`, whose FROM is a temporal join.
pub(crate) fn join_insert(
    query: Select,
    views: &Views,
    sink: String,
    loc: Loc,
    sink_columns: Option<Vec<String>>,
) -> Result<JoinInsert> {
    let Select {
        loc: select_loc,
        items,
        from,
        filter,
        group_by,
        having,
    } = query;
    let From::TemporalJoin(join) = from else {
        return Err(SqlError::new(select_loc, "not a temporal join"));
    };
    if let Some((_, at)) = group_by {
        return Err(SqlError::new(
            at,
            "GROUP BY over a temporal join directly is not supported: make the join a view \
             (CREATE VIEW joined AS SELECT ... FROM a JOIN b FOR SYSTEM_TIME AS OF ...) and \
             aggregate it in a window: FROM TABLE(TUMBLE(TABLE joined, DESCRIPTOR(<probe \
             rowtime>), INTERVAL ...)) GROUP BY window_start, window_end, ...",
        ));
    }
    if having.is_some() {
        return Err(SqlError::new(select_loc, "HAVING needs a GROUP BY"));
    }
    if views.contains_key(&join.probe.name.to_ascii_lowercase()) {
        return Err(SqlError::new(
            join.probe.loc,
            format!(
                "'{}' is a view: the probe side of a temporal join must be a table for now (put \
                 the view's WHERE and expressions into this query)",
                join.probe.name
            ),
        ));
    }
    let view = match views.get(&join.build.name.to_ascii_lowercase()) {
        Some(v) => Some(versioned_view(v)?),
        None => None,
    };
    Ok(JoinInsert {
        sink,
        loc,
        sink_columns,
        items,
        join: *join,
        view,
        filter,
    })
}

/// The INSERT of `query`, whose FROM is an interval join (or a regular
/// join, which the planner refuses).
pub(crate) fn interval_insert(
    query: Select,
    views: &Views,
    sink: String,
    loc: Loc,
    sink_columns: Option<Vec<String>>,
) -> Result<crate::ast::IntervalInsert> {
    let Select {
        loc: select_loc,
        items,
        from,
        filter,
        group_by,
        having,
    } = query;
    let From::IntervalJoin(join) = from else {
        return Err(SqlError::new(select_loc, "not a join"));
    };
    if let Some((_, at)) = group_by {
        let what = match join.windows {
            Some(_) => "a window join",
            None => "an interval join",
        };
        return Err(SqlError::new(
            at,
            format!(
                "GROUP BY over {what} is not supported yet: write the joined rows to a table \
                 and aggregate them in a window there"
            ),
        ));
    }
    if having.is_some() {
        return Err(SqlError::new(select_loc, "HAVING needs a GROUP BY"));
    }
    for side in [&join.left, &join.right] {
        if views.contains_key(&side.name.to_ascii_lowercase()) {
            return Err(SqlError::new(
                side.loc,
                format!(
                    "'{}' is a view, and a join without FOR SYSTEM_TIME AS OF (an interval join, \
                     or a regular one) reads tables only for now: put the view's WHERE and \
                     expressions into this query, or, to join a versioned view's versions, \
                     JOIN {} FOR SYSTEM_TIME AS OF {}.<rowtime> AS r ON ...",
                    side.name,
                    side.name,
                    join.left.qualifier()
                ),
            ));
        }
    }
    Ok(crate::ast::IntervalInsert {
        sink,
        loc,
        sink_columns,
        items,
        join: *join,
        filter,
    })
}

fn not_versioned(v: &View, at: Loc, why: &str) -> SqlError {
    SqlError::new(
        at,
        format!(
            "view '{}' is not a versioned table: {why}. A temporal join's view must keep each \
             key's last row: SELECT ... FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY key \
             ORDER BY rowtime DESC) AS rownum FROM t) WHERE rownum = 1 (or use a table with a \
             PRIMARY KEY)",
            v.name
        ),
    )
}

/// `rownum = 1`, `rownum <= 1` or `rownum < 2` over the row number `rn`
/// (or the same the other way round: `1 = rownum`), in parentheses or not.
fn keeps_first(e: &AstExpr, rn: &str) -> bool {
    let e = unnest(e);
    let AstExpr::BinaryOp { left, op, right } = e else {
        return false;
    };
    let number = |x: &AstExpr| match unnest(x) {
        AstExpr::Value(v) => match &v.value {
            AstValue::Number(n, _) => Some(n.clone()),
            _ => None,
        },
        _ => None,
    };
    let is_rn = |x: &AstExpr| ident_name(unnest(x)).as_deref() == Some(rn);
    let (op, n) = match (is_rn(left), is_rn(right)) {
        (true, _) => (op.clone(), number(right)),
        (_, true) => match op {
            BinaryOperator::Eq => (BinaryOperator::Eq, number(left)),
            BinaryOperator::GtEq => (BinaryOperator::LtEq, number(left)),
            BinaryOperator::Gt => (BinaryOperator::Lt, number(left)),
            _ => return false,
        },
        _ => return false,
    };
    matches!(
        (op, n.as_deref()),
        (BinaryOperator::Eq, Some("1"))
            | (BinaryOperator::LtEq, Some("1"))
            | (BinaryOperator::Lt, Some("2"))
    )
}

/// `e` without enclosing parentheses.
pub(crate) fn unnest(mut e: &AstExpr) -> &AstExpr {
    while let AstExpr::Nested(inner) = e {
        e = inner;
    }
    e
}

/// The view `v` as a versioned table, if it is a deduplication keeping
/// each key's last row on its rowtime.
fn versioned_view(v: &View) -> Result<VersionedView> {
    let outer = &v.select;
    let From::Query(inner) = &outer.from else {
        return Err(not_versioned(
            v,
            outer.loc,
            "it does not select from a ROW_NUMBER() subquery",
        ));
    };
    let From::Table { name, loc } = &inner.from else {
        return Err(not_versioned(
            v,
            inner.loc,
            "its ROW_NUMBER() subquery must read a table",
        ));
    };
    if inner.filter.is_some() || inner.group_by.is_some() || outer.group_by.is_some() {
        return Err(not_versioned(
            v,
            inner.loc,
            "it filters or groups besides keeping the last row",
        ));
    }
    // The subquery's columns: the table's, and its row number.
    let mut cols: Vec<(String, ViewSource)> = Vec::new();
    let mut spec = None;
    for item in &inner.items {
        match item {
            SelectItem::Wildcard(_) => cols.push(("*".into(), ViewSource::All)),
            SelectItem::UnnamedExpr(e) if ident_name(e).is_some() => {
                let n = ident_name(e).unwrap_or_default();
                cols.push((n.clone(), ViewSource::Column(n)));
            }
            SelectItem::ExprWithAlias { expr, alias } => {
                match expr {
                    AstExpr::Function(f) if f.over.is_some() => {
                        if spec.is_some() {
                            return Err(not_versioned(v, inner.loc, "it ranks twice"));
                        }
                        if !f.name.to_string().eq_ignore_ascii_case("ROW_NUMBER") {
                            return Err(not_versioned(
                                v,
                                expr_loc(expr, inner.loc),
                                "it ranks with another function than ROW_NUMBER()",
                            ));
                        }
                        spec = Some((f.over.clone(), expr_loc(expr, inner.loc)));
                        let n = alias.value.to_ascii_lowercase();
                        cols.push((n, ViewSource::RowNumber));
                    }
                    e if ident_name(e).is_some() => cols.push((
                        alias.value.to_ascii_lowercase(),
                        ViewSource::Column(ident_name(e).unwrap_or_default()),
                    )),
                    e => return Err(not_versioned(
                        v,
                        expr_loc(e, inner.loc),
                        "its subquery computes a column (select the table's columns as they are)",
                    )),
                }
            }
            _ => {
                return Err(not_versioned(
                    v,
                    inner.loc,
                    "its subquery computes a column (select the table's columns as they are)",
                ))
            }
        }
    }
    let Some((Some(WindowType::WindowSpec(over)), at)) = spec else {
        return Err(not_versioned(
            v,
            inner.loc,
            "its subquery has no ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...)",
        ));
    };
    let key = over
        .partition_by
        .iter()
        .map(|p| {
            ident_name(p)
                .ok_or_else(|| not_versioned(v, expr_loc(p, at), "it partitions by an expression"))
        })
        .collect::<Result<Vec<_>>>()?;
    if key.is_empty() {
        return Err(not_versioned(
            v,
            at,
            "its ROW_NUMBER() has no PARTITION BY key",
        ));
    }
    let [order] = over.order_by.as_slice() else {
        return Err(not_versioned(
            v,
            at,
            "its ROW_NUMBER() must ORDER BY the rowtime alone",
        ));
    };
    let time = ident_name(&order.expr)
        .ok_or_else(|| not_versioned(v, at, "it orders by an expression"))?;
    if !matches!(order.options.sort, Some(OrderBySort::Desc)) {
        return Err(not_versioned(
            v,
            at,
            "its ROW_NUMBER() orders ascending, which keeps each key's first row (ORDER BY \
             rowtime DESC keeps the last, the version)",
        ));
    }
    let rn = cols
        .iter()
        .find(|c| c.1 == ViewSource::RowNumber)
        .map(|c| c.0.clone())
        .unwrap_or_default();
    if !outer.filter.as_ref().is_some_and(|f| keeps_first(f, &rn)) {
        return Err(not_versioned(
            v,
            outer.loc,
            &format!("it must keep {rn} = 1 and nothing else"),
        ));
    }
    // The view's columns, by the outer select list.
    let mut columns: Vec<(String, ViewSource)> = Vec::new();
    for item in &outer.items {
        match item {
            SelectItem::Wildcard(_) => columns.extend(cols.iter().cloned()),
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                let Some(n) = ident_name(e) else {
                    return Err(not_versioned(
                        v,
                        expr_loc(e, outer.loc),
                        "it computes a column (select the subquery's columns as they are)",
                    ));
                };
                let src = match cols.iter().find(|c| c.0 == n) {
                    Some(c) => c.1.clone(),
                    None if cols.iter().any(|c| c.1 == ViewSource::All) => {
                        ViewSource::Column(n.clone())
                    }
                    None => {
                        return Err(SqlError::new(
                            expr_loc(e, outer.loc),
                            format!("view '{}': its subquery has no column '{n}'", v.name),
                        ))
                    }
                };
                let out = match item {
                    SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                    _ => n,
                };
                columns.push((out, src));
            }
            _ => {
                return Err(not_versioned(
                    v,
                    outer.loc,
                    "it selects something other than columns",
                ))
            }
        }
    }
    if let Some(names) = &v.columns {
        if names.len() != columns.len() && !columns.iter().any(|c| c.1 == ViewSource::All) {
            return Err(SqlError::new(
                v.loc,
                format!(
                    "view '{}' names {} columns but selects {}",
                    v.name,
                    names.len(),
                    columns.len()
                ),
            ));
        }
    }
    Ok(VersionedView {
        name: v.name.clone(),
        loc: v.loc,
        table: Named {
            name: name.clone(),
            loc: *loc,
            alias: None,
        },
        key,
        time,
        time_loc: at,
        columns,
        names: v.columns.clone(),
    })
}
