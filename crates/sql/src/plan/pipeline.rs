//! Planning one `INSERT INTO sink SELECT ... FROM TABLE(window(...))`: the
//! window, the filter, group keys, aggregates and the mapping of outputs to
//! sink columns.

use sqlparser::ast::{
    Expr as AstExpr, FunctionArg, FunctionArgExpr, FunctionArguments, SelectItem, Value as AstValue,
};

use lowwater_core::window::aggregate::{AggFunc, AggSpec, Narrow};
use lowwater_core::window::assigner::WindowAssigner;
use lowwater_core::window::operator::WindowSpec;

use crate::ast::{expr_loc, ident_name, ranking_calls, Insert, TvfKind};
use crate::compile::compile;
use crate::error::{Loc, Result, SqlError};
use crate::expr::{Expr, Scope, Typed};
use crate::types::SqlType;

use super::sink::sink_mapping;
use super::table::{interval, TableScope};
use super::{Output, OutputKind, Pipeline, TableDef};

pub(super) fn window_assigner(
    tvf: &crate::ast::WindowTvf,
    settings: &super::Settings,
) -> Result<WindowAssigner> {
    let mut ms = Vec::new();
    for a in &tvf.args {
        ms.push(interval(a, tvf.loc)?);
    }
    let arity = |n: &[usize], usage: &str| -> Result<()> {
        if n.contains(&ms.len()) {
            Ok(())
        } else {
            Err(SqlError::new(
                tvf.loc,
                format!("wrong number of arguments; usage: {usage}"),
            ))
        }
    };
    let off = |i: usize| ms.get(i).copied().unwrap_or(0);
    let a = match tvf.kind {
        TvfKind::Tumble => {
            arity(&[1, 2], "TUMBLE(TABLE t, DESCRIPTOR(ts), size [, offset])")?;
            WindowAssigner::Tumbling {
                size: ms[0],
                offset: off(1),
            }
        }
        TvfKind::Hop => {
            arity(
                &[2, 3],
                "HOP(TABLE t, DESCRIPTOR(ts), slide, size [, offset])",
            )?;
            WindowAssigner::Hopping {
                slide: ms[0],
                size: ms[1],
                offset: off(2),
            }
        }
        TvfKind::Cumulate => {
            arity(
                &[2, 3],
                "CUMULATE(TABLE t, DESCRIPTOR(ts), step, max_size [, offset])",
            )?;
            WindowAssigner::Cumulate {
                step: ms[0],
                max_size: ms[1],
                offset: off(2),
            }
        }
        TvfKind::Session => {
            arity(
                &[1],
                "SESSION(TABLE t [PARTITION BY k], DESCRIPTOR(ts), gap)",
            )?;
            WindowAssigner::Session { gap: ms[0] }
        }
    };
    a.validate()
        .map_err(|e| SqlError::new(tvf.loc, e.to_string()))?;
    // How many windows one record lands in: bounded, or one record could
    // make millions of windows.
    let (per_record, what) = match a {
        WindowAssigner::Hopping { size, slide, .. } => {
            ((size as u64).div_ceil(slide.max(1) as u64), "size / slide")
        }
        WindowAssigner::Cumulate { step, max_size, .. } => (
            (max_size as u64).div_ceil(step.max(1) as u64),
            "max size / step",
        ),
        _ => (1, ""),
    };
    if per_record > settings.max_windows_per_record {
        return Err(SqlError::new(
            tvf.loc,
            format!(
                "this window puts every record in {per_record} windows ({what}); lowwater allows \
                 at most {} per record, since each is state to keep and a row to write: use a \
                 larger slide or step, or SET 'lowwater.window.max-windows-per-record' = '{per_record}'",
                settings.max_windows_per_record
            ),
        ));
    }
    Ok(a)
}

/// A WHERE or HAVING condition compiled over `scope`: it must be BOOLEAN.
fn condition(
    e: Option<&AstExpr>,
    scope: &dyn Scope,
    loc: Loc,
    clause: &str,
) -> Result<Option<Expr>> {
    let Some(e) = e else {
        return Ok(None);
    };
    let t = compile(e, scope, loc)?;
    if !matches!(t.ty, None | Some(SqlType::Boolean)) {
        return Err(SqlError::new(
            expr_loc(e, loc),
            format!("{clause} needs a BOOLEAN condition"),
        ));
    }
    Ok(Some(t.expr))
}

/// A SESSION's PARTITION BY columns (lower case, sorted) when they are
/// not the column names `keys` (any order): a session is one key's.
pub(super) fn session_partition_differs(
    tvf: &crate::ast::WindowTvf,
    mut keys: Vec<String>,
) -> Option<Vec<String>> {
    let mut part: Vec<String> = tvf
        .partition_by
        .iter()
        .map(|p| p.to_ascii_lowercase())
        .collect();
    part.sort();
    keys.sort();
    (part != keys).then_some(part)
}

/// An expression's text for matching a select item or HAVING term to a
/// GROUP BY key or an aggregate already met: lowercased outside quoted
/// literals (`'OK'` and `'ok'` stay apart), without enclosing parentheses
/// (a view's `(a + 1)` is the key `a + 1`).
pub(super) fn normalized(e: &AstExpr) -> String {
    let mut e = e;
    while let AstExpr::Nested(inner) = e {
        e = inner;
    }
    let mut quoted = false;
    e.to_string()
        .chars()
        .map(|c| {
            if c == '\'' {
                quoted = !quoted;
            }
            if quoted {
                c
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

fn find(tables: &[TableDef], name: &str, loc: Loc) -> Result<usize> {
    tables
        .iter()
        .position(|t| t.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| SqlError::new(loc, format!("table '{name}' is not defined in this job")))
}

/// The joins a window over a join adds its join to.
pub(super) type Joins<'a> = (
    &'a mut Vec<super::JoinPlan>,
    &'a mut Vec<super::IntervalPlan>,
);

/// Plans INSERT number `pi` (a window over a join adds the join to
/// `joins`).
pub(super) fn pipeline(
    ins: &Insert,
    tables: &[TableDef],
    settings: &super::Settings,
    joins: Joins<'_>,
    pi: usize,
) -> Result<Pipeline> {
    let sink = find(tables, &ins.sink, ins.loc)?;
    stage(ins, tables, settings, sink, false, (joins, pi))
}

/// One window aggregation: an INSERT's into `sink`, or with `inner` the
/// aggregation a window function of that INSERT reads (cascading windows),
/// whose outputs are its result row, in order.
fn stage(
    ins: &Insert,
    tables: &[TableDef],
    settings: &super::Settings,
    sink: usize,
    inner: bool,
    (joins, pi): (Joins<'_>, usize),
) -> Result<Pipeline> {
    let (mut join, mut interval) = (None, None);
    let (source, derived, input) = match &ins.input {
        None if ins.join.is_some() => {
            let view = ins.join.as_deref();
            match view {
                Some(crate::ast::ViewJoin::Temporal(j)) => {
                    let jp = super::join::join(j, tables, Some((sink, pi)))?;
                    let d = super::join_view::derived_table(&jp, &ins.tvf, tables)?;
                    let probe = jp.probe;
                    joins.0.push(jp);
                    join = Some(joins.0.len() - 1);
                    (probe, Some(d), None)
                }
                Some(crate::ast::ViewJoin::Interval(j)) => {
                    let mut jp = super::interval::interval(j, tables, 0, Some((sink, pi)))?;
                    let d = super::join_view::interval_table(&jp, &ins.tvf, tables)?;
                    jp.window_time = d.watermark.map(|w| w.column);
                    let left = jp.left;
                    joins.1.push(jp);
                    interval = Some(joins.1.len() - 1);
                    (left, Some(d), None)
                }
                None => return Err(SqlError::new(ins.loc, "no join")),
            }
        }
        None => (
            find(tables, &ins.tvf.source, ins.tvf.source_loc)?,
            None,
            None,
        ),
        Some(up) => {
            let up = stage(
                up,
                tables,
                settings,
                sink,
                true,
                ((&mut *joins.0, &mut *joins.1), pi),
            )?;
            let d = super::cascade::derived_table(&up, &ins.tvf, &tables[up.source])?;
            (up.source, Some(d), Some(Box::new(up)))
        }
    };
    let src = derived.as_ref().unwrap_or(&tables[source]);
    if let Some((pt, _)) = src.proctime {
        if src.column(&ins.tvf.time_column) == Some(pt) {
            return Err(SqlError::new(
                ins.tvf.time_loc,
                format!(
                    "DESCRIPTOR({}) is a processing-time column (PROCTIME()): processing-time \
                     windows are not supported; lowwater runs event-time windows, whose results \
                     do not depend on when records arrive. Declare a WATERMARK on an event-time \
                     column of '{}' and window over it",
                    ins.tvf.time_column, src.name
                ),
            ));
        }
    }
    let wm = src.watermark.ok_or_else(|| {
        SqlError::new(
            ins.tvf.source_loc,
            format!(
                "table '{}' has no WATERMARK clause; window functions need an event-time column \
                 (add WATERMARK FOR <col> AS <col> - INTERVAL '5' SECOND)",
                src.name
            ),
        )
    })?;
    if derived.is_none() && src.column(&ins.tvf.time_column) != Some(wm.column) {
        return Err(SqlError::new(
            ins.tvf.time_loc,
            format!(
                "DESCRIPTOR({}) must name the rowtime column '{}' (the column of the WATERMARK clause)",
                ins.tvf.time_column, src.columns[wm.column].name
            ),
        ));
    }
    if src.connector.write_only() {
        return Err(SqlError::new(
            ins.tvf.source_loc,
            format!(
                "'{}' is a {} table and cannot be read",
                src.name,
                src.connector.name()
            ),
        ));
    }
    let assigner = window_assigner(&ins.tvf, settings)?;
    let scope = TableScope {
        columns: &src.columns,
        visible: src.columns.len(),
    };
    let filter = condition(ins.filter.as_ref(), &scope, ins.loc, "WHERE")?;
    if ins.project {
        // A window function's rows: written at once, or ranked (Window
        // Top-N, window deduplication), or a session's rows (written when
        // it ends), which the window operator holds.
        let time_ty = src.columns[wm.column].ty;
        let ranked = !ranking_calls(&ins.items, ins.qualify.as_ref()).is_empty();
        let (mut rows, project) = if ranked {
            let top = super::top_rows::plan(ins, &scope, wm.column, time_ty, assigner)?;
            (top, false)
        } else if ins.tvf.kind == TvfKind::Session {
            let time = (wm.column, time_ty);
            (
                super::top_rows::plan_session_rows(ins, &scope, time, assigner)?,
                false,
            )
        } else {
            let (keys, outputs) = super::project::outputs(ins, &scope, time_ty)?;
            let window = WindowSpec {
                assigner,
                aggregates: Vec::new(),
                allowed_lateness: 0,
                late_side_output: false,
            };
            let rows = super::top_rows::Planned {
                keys,
                agg_args: Vec::new(),
                window,
                outputs,
                qualify: None,
            };
            (rows, true)
        };
        let sink_columns = sink_mapping(
            ins.loc,
            ins.sink_columns.as_ref(),
            &tables[sink],
            &rows.outputs,
        )?;
        let sink_types = tables[sink].columns.iter().map(|c| c.ty).collect();
        // Held rows (ranked, a session's) are late as a window's are, and
        // fire early under the state limit as a window's do.
        let incomplete = (!project)
            .then(|| incomplete_column(&tables[sink], &sink_columns))
            .flatten();
        rows.window.late_side_output = !project && src.late_data_sink.is_some();
        return Ok(Pipeline {
            words: words(ins),
            input,
            join,
            interval,
            loc: ins.loc,
            source,
            sink,
            filter,
            window: rows.window,
            keys: rows.keys,
            agg_args: rows.agg_args,
            outputs: rows.outputs,
            sink_columns,
            sink_types,
            having: None,
            rank: None,
            qualify: rows.qualify,
            project,
            incomplete,
            emitted_at: false,
        });
    }
    // GROUP BY: window_start and window_end, then keys.
    let mut keys: Vec<(String, Expr, SqlType)> = Vec::new();
    let (mut has_start, mut has_end) = (false, false);
    for g in &ins.group_by {
        match ident_name(g).as_deref() {
            Some("window_start") => has_start = true,
            Some("window_end") => has_end = true,
            Some("window_time") => {}
            _ => {
                let t = compile(g, &scope, ins.loc)?;
                let ty = t.ty.unwrap_or(SqlType::String);
                // A column key by its name (`user` and user alike), another
                // expression by its text.
                let name = ident_name(g).unwrap_or_else(|| normalized(g));
                keys.push((name, t.expr, ty));
            }
        }
    }
    if !(has_start && has_end) {
        return Err(SqlError::new(
            ins.loc,
            "GROUP BY must contain window_start and window_end (lowwater runs window aggregations)",
        ));
    }
    if ins.tvf.kind == TvfKind::Session {
        let mut ks: Vec<String> = keys.iter().map(|k| k.0.clone()).collect();
        ks.sort();
        if session_partition_differs(&ins.tvf, ks.clone()).is_some() {
            return Err(SqlError::new(
                ins.tvf.loc,
                format!(
                    "SESSION must be partitioned by exactly the GROUP BY keys: write \
                     SESSION(TABLE {} PARTITION BY {}, ...)",
                    src.name,
                    if ks.is_empty() {
                        "<nothing: remove PARTITION BY>".to_string()
                    } else {
                        ks.join(", ")
                    }
                ),
            ));
        }
    }
    let time_ty = src.columns[wm.column].ty;
    let mut outputs = Vec::new();
    let mut ranking = ranking_calls(&ins.items, ins.having.as_ref());
    for call in ranking_calls(&[], ins.qualify.as_ref()) {
        if !ranking.contains(&call) {
            ranking.push(call);
        }
    }
    let result = ResultScope {
        time_ty,
        keys: &keys,
        source: &scope,
        aggs: Default::default(),
        agg_args: Default::default(),
        rank: ranking.iter().map(normalized).collect(),
        emitted_slot: super::emitted::reads_emission_time(ins),
        emitted: Default::default(),
    };
    for (i, item) in ins.items.iter().enumerate() {
        let (e, alias) = match item {
            SelectItem::UnnamedExpr(e) => (e, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
            _ => {
                return Err(SqlError::new(
                    ins.loc,
                    "SELECT * is not supported in a window aggregation; list the columns",
                ))
            }
        };
        // Over the result row; a plain window bound, key or aggregate is
        // read from the window's result directly.
        let t = compile(e, &result, ins.loc).map_err(|err| {
            if err.message.starts_with("unknown column") {
                SqlError::new(
                    expr_loc(e, ins.loc),
                    format!(
                        "`{e}` must be window_start, window_end, window_time, a GROUP BY key or an \
                         aggregate (COUNT, SUM, MIN, MAX, AVG), or an expression over them ({})",
                        err.message
                    ),
                )
            } else {
                err
            }
        })?;
        let ty = t.ty.unwrap_or(SqlType::String);
        let base = result.agg_base();
        let kind = match t.expr {
            Expr::Column(0) => OutputKind::WindowStart,
            Expr::Column(1) => OutputKind::WindowEnd,
            Expr::Column(2) => OutputKind::WindowTime,
            Expr::Column(c) if c < 3 + keys.len() => OutputKind::Key(c - 3),
            // The rank, read from the result row.
            Expr::Column(c) if c < base => OutputKind::Expr(Expr::Column(c)),
            Expr::Column(c) => OutputKind::Agg(c - base),
            other => OutputKind::Expr(other),
        };
        let name = alias
            .or_else(|| ident_name(e))
            .unwrap_or_else(|| format!("EXPR${i}"));
        outputs.push(Output { name, ty, kind });
    }
    let having = condition(ins.having.as_ref(), &result, ins.loc, "HAVING")?;
    let qualify = condition(ins.qualify.as_ref(), &result, ins.loc, "WHERE")?;
    let result_emitted = result.emitted_slot;
    if let (Some(at), true) = (result.emitted.get(), ins.sink.is_empty()) {
        return Err(SqlError::new(
            at,
            "the emission time (CURRENT_TIMESTAMP, NOW(), LOCALTIMESTAMP, PROCTIME()) is read in \
             the outer window aggregation only, not in an inner one",
        ));
    }
    let rank = if ranking.is_empty() {
        None
    } else {
        let names: Vec<String> = keys.iter().map(|k| k.0.clone()).collect();
        Some(super::rank::plan(&ranking, &names, &result, ins.loc)?)
    };
    let (aggs, agg_args): (Vec<AggSpec>, Vec<Expr>) = (
        result.aggs.into_inner().into_iter().map(|a| a.0).collect(),
        result.agg_args.into_inner(),
    );
    // AVG(DISTINCT) of a GROUP BY key is the key: Flink's planner drops
    // the aggregate (it accepts it where it refuses others below).
    let of_key = |a: &AggSpec| {
        a.column
            .and_then(|c| agg_args.get(c))
            .is_some_and(|arg| keys.iter().any(|k| &k.1 == arg))
    };
    let aggs_checked: Vec<AggSpec> = aggs
        .iter()
        .filter(|a| !(a.func == AggFunc::AvgDistinct && of_key(a)))
        .copied()
        .collect();
    super::unmergeable::refuse(ins.tvf.kind, &aggs_checked, ins.tvf.loc)?;
    // An inner aggregation's row is its outputs, in order.
    let (sink_columns, sink_types, incomplete) = if inner {
        (
            (0..outputs.len()).collect(),
            outputs.iter().map(|o| o.ty).collect(),
            None,
        )
    } else {
        let sink_columns =
            sink_mapping(ins.loc, ins.sink_columns.as_ref(), &tables[sink], &outputs)?;
        let incomplete = incomplete_column(&tables[sink], &sink_columns);
        let sink_types = tables[sink].columns.iter().map(|c| c.ty).collect();
        (sink_columns, sink_types, incomplete)
    };
    if rank.is_some() && inner {
        return Err(SqlError::new(
            ins.loc,
            "a window function over a Window Top-N is not supported (aggregate first, then rank)",
        ));
    }
    Ok(Pipeline {
        words: words(ins),
        join,
        interval,
        input,
        loc: ins.loc,
        source,
        sink,
        filter,
        window: WindowSpec {
            assigner,
            aggregates: aggs,
            allowed_lateness: 0,
            late_side_output: src.late_data_sink.is_some(),
        },
        keys: keys.into_iter().map(|k| k.1).collect(),
        agg_args,
        outputs,
        sink_columns,
        sink_types,
        having,
        rank,
        qualify,
        project: false,
        incomplete,
        emitted_at: result_emitted,
    })
}

/// A sink's BOOLEAN column of this name, not written by its INSERT, says
/// which rows fired early (`lowwater.state.on-limit` = 'fire-oldest').
pub const INCOMPLETE_COLUMN: &str = "lowwater_incomplete";

/// The sink's `lowwater_incomplete` BOOLEAN column when the INSERT does
/// not write it itself (`sink_columns`).
fn incomplete_column(sink: &TableDef, sink_columns: &[usize]) -> Option<usize> {
    sink.columns
        .iter()
        .position(|c| c.name == INCOMPLETE_COLUMN && c.ty == SqlType::Boolean)
        .filter(|c| !sink_columns.contains(c))
}

/// The scope of `HAVING` and of select-list expressions: a window's result
/// row (window_start, window_end, window_time, the GROUP BY keys, then the
/// aggregates, which are registered as they are met).
struct ResultScope<'a> {
    time_ty: SqlType,
    keys: &'a [(String, Expr, SqlType)],
    source: &'a TableScope<'a>,
    aggs: std::cell::RefCell<Vec<(AggSpec, SqlType, String)>>,
    agg_args: std::cell::RefCell<Vec<Expr>>,
    /// The query's ranking calls (their text), each a result row column.
    rank: Vec<String>,
    /// Whether the result row has a column for the time the row is emitted
    /// (the query reads `CURRENT_TIMESTAMP` or the like); rows of other
    /// queries keep the layout they had before it existed.
    emitted_slot: bool,
    /// Where an emission-time function (`CURRENT_TIMESTAMP`, ...) is read.
    emitted: std::cell::Cell<Option<Loc>>,
}

impl ResultScope<'_> {
    /// The result row's column of the time the row is emitted (see
    /// [`Pipeline::result_row`]).
    fn emitted_at(&self) -> usize {
        3 + self.keys.len() + self.rank.len()
    }

    fn agg_base(&self) -> usize {
        self.emitted_at() + usize::from(self.emitted_slot)
    }

    /// Aggregate `f` (at `e`): an existing one with the same text, or a new one.
    fn aggregate(
        &self,
        e: &AstExpr,
        f: &sqlparser::ast::Function,
        loc: Loc,
    ) -> Result<(usize, SqlType)> {
        let text = normalized(e);
        if let Some(i) = self.aggs.borrow().iter().position(|a| a.2 == text) {
            return Ok((self.agg_base() + i, self.aggs.borrow()[i].1));
        }
        let (spec, ty) = aggregate(e, f, self.source, loc, &mut self.agg_args.borrow_mut())?;
        let mut aggs = self.aggs.borrow_mut();
        aggs.push((spec, ty, text));
        Ok((self.agg_base() + aggs.len() - 1, ty))
    }
}

impl Scope for ResultScope<'_> {
    fn resolve(&self, name: &str) -> Option<(usize, SqlType)> {
        match name.to_ascii_lowercase().as_str() {
            "window_start" => Some((0, SqlType::Timestamp)),
            "window_end" => Some((1, SqlType::Timestamp)),
            "window_time" => Some((2, self.time_ty)),
            n => self
                .keys
                .iter()
                .position(|k| k.0 == n)
                .map(|k| (3 + k, self.keys[k].2)),
        }
    }

    fn names(&self) -> Vec<String> {
        let mut v = vec![
            "window_start".into(),
            "window_end".into(),
            "window_time".into(),
        ];
        v.extend(self.keys.iter().map(|k| k.0.clone()));
        v
    }

    fn substitute(&self, e: &AstExpr, loc: Loc) -> Option<Result<Typed>> {
        let column = |(i, ty): (usize, SqlType)| Typed {
            expr: Expr::Column(i),
            ty: Some(ty),
        };
        match e {
            AstExpr::Function(f) if aggregate_name(&f.name.to_string()).is_some() => {
                Some(self.aggregate(e, f, loc).map(column))
            }
            // The time the row is emitted, as Flink evaluates these in a
            // streaming job's projection (replay: its virtual processing
            // time). LOCALTIMESTAMP is the session's wall clock, UTC.
            AstExpr::Function(f)
                if self.emitted_slot && super::emitted::emission_time(f).is_some() =>
            {
                self.emitted.set(Some(expr_loc(e, loc)));
                super::emitted::emission_time(f).map(|ty| {
                    let at = column((self.emitted_at(), ty));
                    Ok(match ty {
                        // The slot holds the time; CURRENT_DATE is its day.
                        SqlType::Date => Typed {
                            expr: Expr::Call(
                                crate::functions::Func::Date(crate::dates::DateFn::FromTimestamp),
                                vec![at.expr],
                            ),
                            ty: Some(SqlType::Date),
                        },
                        _ => at,
                    })
                })
            }
            AstExpr::Function(f) if f.over.is_some() => {
                let text = normalized(e);
                let i = self.rank.iter().position(|r| *r == text)?;
                Some(Ok(Typed {
                    expr: Expr::Column(3 + self.keys.len() + i),
                    ty: Some(SqlType::BigInt),
                }))
            }
            AstExpr::Identifier(_) | AstExpr::CompoundIdentifier(_) => None,
            _ => {
                let text = normalized(e);
                self.keys
                    .iter()
                    .position(|k| k.0 == text)
                    .map(|k| Ok(column((3 + k, self.keys[k].2))))
            }
        }
    }
}

fn aggregate_name(name: &str) -> Option<AggFunc> {
    match name.to_ascii_uppercase().as_str() {
        "COUNT" => Some(AggFunc::Count),
        "SUM" => Some(AggFunc::Sum),
        "MIN" => Some(AggFunc::Min),
        "MAX" => Some(AggFunc::Max),
        "AVG" => Some(AggFunc::Avg),
        "FIRST_VALUE" => Some(AggFunc::FirstValue),
        "LAST_VALUE" => Some(AggFunc::LastValue),
        "LISTAGG" => Some(AggFunc::ListAgg),
        // Exact: the true count is within any approximation's bound (Flink
        // estimates it in batch jobs and has no streaming form).
        "APPROX_COUNT_DISTINCT" => Some(AggFunc::CountDistinct),
        // STDDEV and VARIANCE are the sample forms, as in Flink.
        "VAR_POP" => Some(AggFunc::VarPop),
        "VAR_SAMP" | "VARIANCE" => Some(AggFunc::VarSamp),
        "STDDEV_POP" => Some(AggFunc::StddevPop),
        "STDDEV_SAMP" | "STDDEV" => Some(AggFunc::StddevSamp),
        _ => None,
    }
}

fn aggregate(
    e: &AstExpr,
    f: &sqlparser::ast::Function,
    scope: &dyn Scope,
    loc: Loc,
    agg_args: &mut Vec<Expr>,
) -> Result<(AggSpec, SqlType)> {
    let at = expr_loc(e, loc);
    let name = f.name.to_string().to_ascii_uppercase();
    let mut func = aggregate_name(&name).ok_or_else(|| SqlError::new(at, "not an aggregate"))?;
    let FunctionArguments::List(list) = &f.args else {
        return Err(SqlError::new(at, format!("{name} needs an argument")));
    };
    if f.over.is_some() || !list.clauses.is_empty() {
        return Err(SqlError::new(
            at,
            format!("{name} with OVER or ORDER BY is not supported"),
        ));
    }
    // `AGG(x) FILTER (WHERE c)` is `AGG(CASE WHEN c THEN x END)`: every
    // aggregate skips NULLs (COUNT(*) counts `CASE WHEN c THEN 1 END`).
    let filter = match &f.filter {
        Some(c) => {
            let t = compile(c, scope, loc)?;
            if !matches!(t.ty, None | Some(SqlType::Boolean)) {
                return Err(SqlError::new(
                    expr_loc(c, loc),
                    "FILTER needs a BOOLEAN condition",
                ));
            }
            Some(t.expr)
        }
        None => None,
    };
    let only_when = |arg: Expr, ty: SqlType| match &filter {
        Some(c) => Expr::Call(
            crate::functions::Func::Case(false, ty),
            vec![c.clone(), arg, Expr::Literal(lowwater_core::Value::Null)],
        ),
        None => arg,
    };
    let distinct = matches!(
        list.duplicate_treatment,
        Some(sqlparser::ast::DuplicateTreatment::Distinct)
    );
    let arg = match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)]
            if func == AggFunc::Count && !distinct =>
        {
            None
        }
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(AstExpr::Value(v)))]
            if func == AggFunc::Count && !distinct && matches!(v.value, AstValue::Number(_, _)) =>
        {
            None
        }
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))] => Some(x),
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(x)), FunctionArg::Unnamed(FunctionArgExpr::Expr(_))]
            if func == AggFunc::ListAgg =>
        {
            Some(x)
        }
        _ => {
            return Err(SqlError::new(
                at,
                format!("{name} takes exactly one argument"),
            ))
        }
    };
    let Some(arg) = arg else {
        if filter.is_some() {
            agg_args.push(only_when(
                Expr::Literal(lowwater_core::Value::Int(1)),
                SqlType::Int,
            ));
            return Ok((
                AggSpec::on(AggFunc::Count, agg_args.len() - 1),
                SqlType::BigInt,
            ));
        }
        return Ok((AggSpec::count_star(), SqlType::BigInt));
    };
    let variance = matches!(
        func,
        AggFunc::VarPop | AggFunc::VarSamp | AggFunc::StddevPop | AggFunc::StddevSamp
    );
    if distinct {
        // Only a value's first occurrence reaches the aggregate (Flink's
        // distinct aggregation): MIN, MAX and FIRST_VALUE of the distinct
        // values are the MIN, MAX and FIRST_VALUE.
        func = match func {
            AggFunc::Count => AggFunc::CountDistinct,
            AggFunc::Sum => AggFunc::SumDistinct,
            AggFunc::Avg => AggFunc::AvgDistinct,
            AggFunc::ListAgg => AggFunc::ListAggDistinct,
            AggFunc::LastValue => AggFunc::LastValueDistinct,
            AggFunc::VarPop => AggFunc::VarPopDistinct,
            AggFunc::VarSamp => AggFunc::VarSampDistinct,
            AggFunc::StddevPop => AggFunc::StddevPopDistinct,
            AggFunc::StddevSamp => AggFunc::StddevSampDistinct,
            other => other,
        };
    }
    let t = compile(arg, scope, loc)?;
    let arg_ty = t.ty.unwrap_or(SqlType::BigInt);
    let ty = match func {
        AggFunc::Count | AggFunc::CountDistinct | AggFunc::CountStar => SqlType::BigInt,
        AggFunc::Sum | AggFunc::Avg | AggFunc::SumDistinct | AggFunc::AvgDistinct
            if !arg_ty.is_numeric() =>
        {
            return Err(SqlError::new(
                at,
                format!("{name} needs a numeric argument, found {}", arg_ty.name()),
            ))
        }
        // Flink's SUM of DECIMAL(p, s) is DECIMAL(38, s), AVG DECIMAL(38, max(6, s)).
        AggFunc::Sum | AggFunc::SumDistinct if matches!(arg_ty, SqlType::Decimal(..)) => {
            let (p, s) = crate::decimal::sum_type(arg_ty.as_decimal().unwrap_or((38, 0)));
            SqlType::Decimal(p, s)
        }
        AggFunc::Avg | AggFunc::AvgDistinct if matches!(arg_ty, SqlType::Decimal(..)) => {
            let (p, s) = crate::decimal::avg_type(arg_ty.as_decimal().unwrap_or((38, 0)));
            SqlType::Decimal(p, s)
        }
        _ if variance && !arg_ty.is_numeric() => {
            return Err(SqlError::new(
                at,
                format!("{name} needs a numeric argument, found {}", arg_ty.name()),
            ))
        }
        // Flink computes VAR and STDDEV of a DECIMAL in doubles, and its
        // result is DECIMAL(38, max(6, s)).
        _ if variance && matches!(arg_ty, SqlType::Decimal(..)) => {
            let (_, s) = arg_ty.as_decimal().unwrap_or((38, 0));
            SqlType::Decimal(38, s.max(6))
        }
        AggFunc::ListAgg | AggFunc::ListAggDistinct if arg_ty != SqlType::String => {
            return Err(SqlError::new(
                at,
                format!("LISTAGG needs a STRING argument, found {}", arg_ty.name()),
            ))
        }
        _ => arg_ty,
    };
    agg_args.push(only_when(t.expr, arg_ty));
    let spec = AggSpec::on(func, agg_args.len() - 1);
    if matches!(func, AggFunc::ListAgg | AggFunc::ListAggDistinct) {
        // The separator goes in the row position after the argument's.
        let sep = match list.args.get(1) {
            Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(x))) => {
                let t = compile(x, scope, loc)?;
                if !t.ty.is_none_or(|t| t == SqlType::String) {
                    return Err(SqlError::new(
                        expr_loc(x, loc),
                        "LISTAGG's separator must be a STRING",
                    ));
                }
                t.expr
            }
            _ => Expr::Literal(lowwater_core::Value::str(",")),
        };
        agg_args.push(sep);
    }
    // Flink's SUM keeps its argument's type: SUM(INT) is an INT that wraps
    // at 32 bits, SUM(TINYINT) wraps at 8, SUM(FLOAT) adds floats.
    let spec = match (func, arg_ty) {
        (AggFunc::Sum | AggFunc::SumDistinct, SqlType::Int) => spec.narrowed(Narrow::I32),
        (AggFunc::Sum | AggFunc::SumDistinct, SqlType::SmallInt) => spec.narrowed(Narrow::I16),
        (AggFunc::Sum | AggFunc::SumDistinct, SqlType::TinyInt) => spec.narrowed(Narrow::I8),
        // FLOAT sums add in single precision; a FLOAT average is cast back
        // to FLOAT (Flink's FloatAvgAggFunction).
        (
            AggFunc::Sum | AggFunc::SumDistinct | AggFunc::Avg | AggFunc::AvgDistinct,
            SqlType::Float,
        ) => spec.narrowed(Narrow::F32),
        // VAR and STDDEV keep their argument's type (computed in doubles).
        (_, SqlType::Decimal(_, s)) if variance => spec.narrowed(Narrow::Dec(s.max(6))),
        (_, t) if variance => match t {
            SqlType::TinyInt => spec.narrowed(Narrow::I8),
            SqlType::SmallInt => spec.narrowed(Narrow::I16),
            SqlType::Int => spec.narrowed(Narrow::I32),
            SqlType::BigInt => spec.narrowed(Narrow::I64),
            SqlType::Float => spec.narrowed(Narrow::F32),
            _ => spec,
        },
        _ => spec,
    };
    Ok((spec, ty))
}

/// An INSERT's clauses in SQL, one per line (see [`Pipeline::words`]).
fn words(ins: &Insert) -> String {
    let list = |v: Vec<String>| v.join(", ");
    let kind = match ins.tvf.kind {
        crate::ast::TvfKind::Tumble => "TUMBLE",
        crate::ast::TvfKind::Hop => "HOP",
        crate::ast::TvfKind::Cumulate => "CUMULATE",
        crate::ast::TvfKind::Session => "SESSION",
    };
    let partition = match ins.tvf.partition_by.is_empty() {
        true => String::new(),
        false => format!(" PARTITION BY {}", ins.tvf.partition_by.join(", ")),
    };
    let args: Vec<String> = ins.tvf.args.iter().map(ToString::to_string).collect();
    let mut out = vec![
        format!(
            "window {kind}(TABLE {}{partition}, DESCRIPTOR({}), {})",
            ins.tvf.source,
            ins.tvf.time_column,
            list(args)
        ),
        format!(
            "select {}",
            list(ins.items.iter().map(ToString::to_string).collect())
        ),
    ];
    if let Some(f) = &ins.filter {
        out.push(format!("WHERE {f}"));
    }
    if !ins.group_by.is_empty() {
        out.push(format!(
            "GROUP BY {}",
            list(ins.group_by.iter().map(ToString::to_string).collect())
        ));
    }
    if let Some(h) = &ins.having {
        out.push(format!("HAVING {h}"));
    }
    if let Some(q) = &ins.qualify {
        out.push(format!("WHERE (after ranking) {q}"));
    }
    out.join("\n")
}
