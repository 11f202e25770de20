//! What the joins' planners share: the joined row's scope (both sides'
//! columns, qualified by their aliases), the ON condition's terms, one-side
//! key expressions in one type, and the select list over the joined row.

use sqlparser::ast::{BinaryOperator, Expr as AstExpr, Ident, SelectItem};

use crate::ast::{expr_loc, ident_name};
use crate::compile::compile;
use crate::error::{Loc, Result, SqlError};
use crate::expr::{Expr, Scope, Typed};
use crate::types::SqlType;

use super::{Output, OutputKind, TableDef};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Both,
    Probe,
    Build,
    /// Both, a name both sides have being the build side's: a window semi
    /// or anti join's ON, which is its subquery's WHERE, where SQL looks
    /// for a name in the subquery's own FROM first.
    Inner,
}

/// The joined row's scope: the probe table's columns, then the build
/// row's, each reachable by its side's qualifier (`o.ts`) or, when only
/// one side has it, by its name alone.
pub(super) struct JoinScope<'a> {
    pub(super) probe_q: &'a str,
    pub(super) probe: Vec<(String, SqlType)>,
    pub(super) build_q: &'a str,
    pub(super) build: &'a [(String, SqlType)],
    pub(super) side: Side,
}

impl JoinScope<'_> {
    pub(super) fn with(&self, side: Side) -> JoinScope<'_> {
        JoinScope {
            probe_q: self.probe_q,
            probe: self.probe.clone(),
            build_q: self.build_q,
            build: self.build,
            side,
        }
    }

    fn find(cols: &[(String, SqlType)], name: &str) -> Option<usize> {
        cols.iter().position(|c| c.0.eq_ignore_ascii_case(name))
    }

    /// (probe position, build position) of an unqualified name.
    fn unqualified(&self, name: &str) -> (Option<usize>, Option<usize>) {
        (
            Self::find(&self.probe, name).filter(|_| self.side != Side::Build),
            Self::find(self.build, name).filter(|_| self.side != Side::Probe),
        )
    }

    fn at_probe(&self, i: usize) -> (usize, SqlType) {
        (i, self.probe[i].1)
    }

    fn at_build(&self, j: usize) -> (usize, SqlType) {
        let base = if matches!(self.side, Side::Both | Side::Inner) {
            self.probe.len()
        } else {
            0
        };
        (base + j, self.build[j].1)
    }
}

impl Scope for JoinScope<'_> {
    fn resolve(&self, name: &str) -> Option<(usize, SqlType)> {
        if let Some((q, rest)) = name.split_once('.') {
            if q.eq_ignore_ascii_case(self.probe_q) && self.side != Side::Build {
                if let Some(i) = Self::find(&self.probe, rest) {
                    return Some(self.at_probe(i));
                }
            }
            if q.eq_ignore_ascii_case(self.build_q) && self.side != Side::Probe {
                if let Some(j) = Self::find(self.build, rest) {
                    return Some(self.at_build(j));
                }
            }
        }
        match self.unqualified(name) {
            (Some(i), None) => Some(self.at_probe(i)),
            (_, Some(j)) if self.side == Side::Inner => Some(self.at_build(j)),
            (None, Some(j)) => Some(self.at_build(j)),
            _ => None,
        }
    }

    fn names(&self) -> Vec<String> {
        let mut v = Vec::new();
        if self.side != Side::Build {
            v.extend(
                self.probe
                    .iter()
                    .map(|c| format!("{}.{}", self.probe_q, c.0)),
            );
        }
        if self.side != Side::Probe {
            v.extend(
                self.build
                    .iter()
                    .map(|c| format!("{}.{}", self.build_q, c.0)),
            );
        }
        v
    }

    fn substitute(&self, e: &AstExpr, loc: Loc) -> Option<Result<Typed>> {
        // `q.col` of a side's qualifier names that side's column only.
        if let AstExpr::CompoundIdentifier(ids) = e {
            let q = &ids.first()?.value;
            if !(q.eq_ignore_ascii_case(self.probe_q) || q.eq_ignore_ascii_case(self.build_q)) {
                return None;
            }
            let name: Vec<&str> = ids.iter().map(|i| i.value.as_str()).collect();
            let name = name.join(".");
            return Some(match self.resolve(&name) {
                Some((i, ty)) => Ok(Typed {
                    expr: Expr::Column(i),
                    ty: Some(ty),
                }),
                None => Err(SqlError::new(
                    expr_loc(e, loc),
                    format!(
                        "unknown column '{name}' here; available columns: {}",
                        self.names().join(", ")
                    ),
                )),
            });
        }
        let AstExpr::Identifier(id) = e else {
            return None;
        };
        if let (Some(_), Some(_), false) = (
            self.unqualified(&id.value).0,
            self.unqualified(&id.value).1,
            self.side == Side::Inner,
        ) {
            return Some(Err(SqlError::new(
                expr_loc(e, loc),
                format!(
                    "column '{}' is ambiguous: both {} and {} have it; write {}.{} or {}.{}",
                    id.value,
                    self.probe_q,
                    self.build_q,
                    self.probe_q,
                    id.value,
                    self.build_q,
                    id.value
                ),
            )));
        }
        None
    }
}

pub(super) fn find_table(tables: &[TableDef], name: &str, loc: Loc) -> Result<usize> {
    tables
        .iter()
        .position(|t| t.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| SqlError::new(loc, format!("table '{name}' is not defined in this job")))
}

pub(super) fn readable(t: &TableDef, loc: Loc) -> Result<()> {
    if t.connector.write_only() {
        return Err(SqlError::new(
            loc,
            format!(
                "'{}' is a {} table and cannot be read",
                t.name,
                t.connector.name()
            ),
        ));
    }
    Ok(())
}

/// The conjuncts of an AND tree, in order.
pub(super) fn conjuncts<'e>(e: &'e AstExpr, out: &mut Vec<&'e AstExpr>) {
    match e {
        AstExpr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            conjuncts(left, out);
            conjuncts(right, out);
        }
        // Parentheses change nothing here (Calcite drops them too).
        AstExpr::Nested(inner) => conjuncts(inner, out),
        _ => out.push(e),
    }
}

/// `e` compiled over one side, if it reads only that side and at least one
/// of its columns.
pub(super) fn one_side(e: &AstExpr, scope: &JoinScope, loc: Loc) -> Option<Typed> {
    let t = compile(e, scope, loc).ok()?;
    let mut cols = Vec::new();
    t.expr.columns(&mut cols);
    (!cols.is_empty()).then_some(t)
}

/// Both key expressions in one type, so that equal values are equal keys.
pub(super) fn unify(p: Typed, b: Typed, at: Loc) -> Result<(Expr, Expr)> {
    let (pt, bt) = (
        p.ty.unwrap_or(SqlType::String),
        b.ty.unwrap_or(SqlType::String),
    );
    if pt == bt || (pt.is_integer() && bt.is_integer()) {
        return Ok((p.expr, b.expr));
    }
    if pt.is_numeric() && bt.is_numeric() {
        return Ok((
            Expr::Cast(Box::new(p.expr), SqlType::Double),
            Expr::Cast(Box::new(b.expr), SqlType::Double),
        ));
    }
    Err(SqlError::new(
        at,
        format!(
            "the join compares {} with {}: cast one side",
            pt.name(),
            bt.name()
        ),
    ))
}

/// The select list over the joined row (`*`: every probe column, then
/// every build column; `o.*`: one side's).
pub(super) fn outputs(list: &[SelectItem], loc: Loc, scope: &JoinScope) -> Result<Vec<Output>> {
    let mut items: Vec<(AstExpr, Option<String>)> = Vec::new();
    let side_items =
        |q: &str, cols: &[(String, SqlType)], items: &mut Vec<(AstExpr, Option<String>)>| {
            for (n, _) in cols {
                let e = AstExpr::CompoundIdentifier(vec![Ident::new(q), Ident::new(n)]);
                items.push((e, Some(n.clone())));
            }
        };
    for item in list {
        match item {
            SelectItem::UnnamedExpr(e) => items.push((e.clone(), None)),
            SelectItem::ExprWithAlias { expr, alias } => {
                items.push((expr.clone(), Some(alias.value.clone())))
            }
            SelectItem::Wildcard(_) => {
                if scope.side != Side::Build {
                    side_items(scope.probe_q, &scope.probe, &mut items);
                }
                if scope.side != Side::Probe {
                    side_items(scope.build_q, scope.build, &mut items);
                }
            }
            SelectItem::QualifiedWildcard(kind, _) => {
                let q = kind.to_string();
                if q.eq_ignore_ascii_case(scope.probe_q) {
                    side_items(scope.probe_q, &scope.probe, &mut items);
                } else if q.eq_ignore_ascii_case(scope.build_q) {
                    side_items(scope.build_q, scope.build, &mut items);
                } else {
                    return Err(SqlError::new(
                        loc,
                        format!(
                            "{q}.*: the join's sides are {} and {}",
                            scope.probe_q, scope.build_q
                        ),
                    ));
                }
            }
            other => {
                return Err(SqlError::new(
                    loc,
                    format!("select item {other} is not supported; give one alias per column"),
                ))
            }
        }
    }
    let mut out = Vec::new();
    for (i, (e, alias)) in items.iter().enumerate() {
        if let AstExpr::Function(f) = e {
            if f.over.is_some() {
                return Err(SqlError::new(
                    expr_loc(e, loc),
                    "OVER (...) is not supported over a temporal join: rank in a window over a \
                     view of the join, or rank the versioned view before it",
                ));
            }
        }
        let t = compile(e, scope, loc)?;
        out.push(Output {
            name: alias
                .clone()
                .or_else(|| ident_name(e))
                .unwrap_or_else(|| format!("EXPR${i}")),
            ty: t.ty.unwrap_or(SqlType::String),
            kind: OutputKind::Expr(t.expr),
        });
    }
    Ok(out)
}

/// `WHERE` over the joined row: a BOOLEAN condition.
pub(super) fn where_clause(
    filter: Option<&AstExpr>,
    scope: &JoinScope,
    loc: Loc,
) -> Result<Option<Expr>> {
    let Some(f) = filter else {
        return Ok(None);
    };
    let c = compile(f, scope, loc)?;
    if !matches!(c.ty, None | Some(SqlType::Boolean)) {
        return Err(SqlError::new(
            expr_loc(f, loc),
            "WHERE needs a BOOLEAN condition",
        ));
    }
    Ok(Some(c.expr))
}

/// The sink row of a joined row: `None` when `filter` (WHERE) drops it,
/// else each output in its sink column (`sink`: the columns and their
/// types) of a sink `width` columns wide.
pub(super) fn joined_sink_values(
    filter: Option<&Expr>,
    outputs: &[Output],
    (columns, types): (&[usize], &[SqlType]),
    joined: &[lowwater_core::Value],
    width: usize,
) -> std::result::Result<Option<Vec<lowwater_core::Value>>, String> {
    if let Some(f) = filter {
        if crate::expr::truth(&f.eval(joined)?) != Some(true) {
            return Ok(None);
        }
    }
    let mut values = vec![lowwater_core::Value::Null; width];
    for (o, &col) in outputs.iter().zip(columns) {
        let v = match &o.kind {
            OutputKind::Expr(e) => e.eval(joined)?,
            _ => lowwater_core::Value::Null,
        };
        values[col] = super::sink_value(types.get(col), v);
    }
    Ok(Some(values))
}

/// A late-data sink takes the records a window drops as late: refused on a
/// table that only joins read (they keep late rows, and count them).
pub(super) fn late_sinks(
    tables: &[TableDef],
    pipelines: &[super::Pipeline],
    joins: &[super::JoinPlan],
    intervals: &[super::IntervalPlan],
) -> Result<()> {
    let joined = joins.iter().flat_map(|j| [j.probe, j.build]);
    for t in joined.chain(intervals.iter().flat_map(|j| [j.left, j.right])) {
        let windowed = pipelines
            .iter()
            .any(|p| p.source == t && p.first().join.is_none());
        if tables[t].late_data_sink.is_some() && !windowed {
            return Err(SqlError::new(
                tables[t].loc,
                format!(
                    "table '{}': late-data.sink takes the records a window drops as late; only \
                 joins read this table, and they keep late rows (a temporal join joins them \
                 at its next watermark, an interval join with the rows it has cached; both \
                 are counted): remove the option",
                    tables[t].name
                ),
            ));
        }
    }
    Ok(())
}

/// The joined-row columns a join's condition beyond the key, WHERE and
/// select list read.
pub(super) fn joined_columns(
    residual: Option<&Expr>,
    filter: Option<&Expr>,
    outputs: &[Output],
) -> Vec<usize> {
    let mut cols = Vec::new();
    for e in residual.into_iter().chain(filter) {
        e.columns(&mut cols);
    }
    for o in outputs {
        if let OutputKind::Expr(e) = &o.kind {
            e.columns(&mut cols);
        }
    }
    cols
}
