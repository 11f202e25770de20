//! A window table function without GROUP BY: `INSERT INTO s SELECT *,
//! window_start FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), ...))`. Every
//! row is written at once with each window it belongs to (HOP and CUMULATE
//! give a row per window), as Flink's `AlignedWindowTableFunctionOperator`
//! does: nothing waits for the watermark, and a late row is written too
//! (Flink's test: "late records would not be dropped").
//!
//! The pipeline reuses the aggregation's plumbing: its "keys" are the
//! source columns the select list reads, and each row fires a result per
//! window at once instead of entering the window operator.

use std::cell::RefCell;

use lowwater_core::window::batch::InputRef;
use lowwater_core::window::operator::{WindowOutput, WindowResult};
use lowwater_core::Value;
use sqlparser::ast::SelectItem;

use crate::ast::{ident_name, Insert};
use crate::compile::compile;
use crate::error::Result;
use crate::expr::{Expr, Scope};
use crate::types::SqlType;

use super::table::TableScope;
use super::{Output, OutputKind, Pipeline};

/// The select list's scope: window_start, window_end, window_time, then
/// from position `base` the source columns it reads (registered as they
/// are met). A ranked rows query ([`super::top_rows`]) also reads its
/// ranking call, whose text is `rank.1`, at position `rank.0`.
pub(super) struct RowScope<'a> {
    pub table: &'a TableScope<'a>,
    pub time_ty: SqlType,
    pub base: usize,
    pub rank: Option<(usize, String)>,
    pub used: RefCell<Vec<usize>>,
}

impl Scope for RowScope<'_> {
    fn resolve(&self, name: &str) -> Option<(usize, SqlType)> {
        match name.to_ascii_lowercase().as_str() {
            "window_start" => Some((0, SqlType::Timestamp)),
            "window_end" => Some((1, SqlType::Timestamp)),
            "window_time" => Some((2, self.time_ty)),
            _ => {
                let (c, ty) = self.table.resolve(name)?;
                let mut used = self.used.borrow_mut();
                let slot = match used.iter().position(|u| *u == c) {
                    Some(s) => s,
                    None => {
                        used.push(c);
                        used.len() - 1
                    }
                };
                Some((self.base + slot, ty))
            }
        }
    }

    fn substitute(
        &self,
        e: &sqlparser::ast::Expr,
        _loc: crate::error::Loc,
    ) -> Option<Result<crate::expr::Typed>> {
        match (e, &self.rank) {
            (sqlparser::ast::Expr::Function(f), Some((at, call)))
                if f.over.is_some() && super::pipeline::normalized(e) == *call =>
            {
                Some(Ok(crate::expr::Typed {
                    expr: Expr::Column(*at),
                    ty: Some(SqlType::BigInt),
                }))
            }
            _ => None,
        }
    }

    fn names(&self) -> Vec<String> {
        let mut v = self.table.names();
        v.extend([
            "window_start".into(),
            "window_end".into(),
            "window_time".into(),
        ]);
        v
    }
}

/// The select list `items` compiled over `scope`: the window columns as
/// such, with `keyed` the source columns as the keys the rows carry (a
/// window function's rows written at once), else as expressions over the
/// result row.
pub(super) fn row_outputs(
    ins: &Insert,
    items: &[(sqlparser::ast::Expr, Option<String>)],
    scope: &RowScope,
    keyed: bool,
) -> Result<Vec<Output>> {
    let mut outputs = Vec::new();
    for (i, (e, alias)) in items.iter().enumerate() {
        let t = compile(e, scope, ins.loc)?;
        let kind = match t.expr {
            Expr::Column(0) => OutputKind::WindowStart,
            Expr::Column(1) => OutputKind::WindowEnd,
            Expr::Column(2) => OutputKind::WindowTime,
            Expr::Column(c) if keyed => OutputKind::Key(c - 3),
            other => OutputKind::Expr(other),
        };
        outputs.push(Output {
            name: alias
                .clone()
                .or_else(|| ident_name(e))
                .unwrap_or_else(|| format!("EXPR${i}")),
            ty: t.ty.unwrap_or(SqlType::String),
            kind,
        });
    }
    Ok(outputs)
}

/// The outputs and keys (source expressions) of a window function's rows.
pub(super) fn outputs(
    ins: &Insert,
    table: &TableScope,
    time_ty: SqlType,
) -> Result<(Vec<Expr>, Vec<Output>)> {
    let scope = RowScope {
        table,
        time_ty,
        base: 3,
        rank: None,
        used: RefCell::new(Vec::new()),
    };
    let items = select_items(ins, table);
    let outputs = row_outputs(ins, &items, &scope, true)?;
    let keys = scope
        .used
        .into_inner()
        .into_iter()
        .map(Expr::Column)
        .collect();
    Ok((keys, outputs))
}

/// The select list of a window function's rows, `*` expanded into the
/// table's columns, then the window's: each item and its alias.
pub(super) fn select_items(
    ins: &Insert,
    table: &TableScope,
) -> Vec<(sqlparser::ast::Expr, Option<String>)> {
    // `*` is the table's columns, then the window's.
    let mut items: Vec<(sqlparser::ast::Expr, Option<String>)> = Vec::new();
    for item in &ins.items {
        match item {
            SelectItem::UnnamedExpr(e) => items.push((e.clone(), None)),
            SelectItem::ExprWithAlias { expr, alias } => {
                items.push((expr.clone(), Some(alias.value.clone())))
            }
            _ => {
                let names = table.names().into_iter().chain([
                    "window_start".into(),
                    "window_end".into(),
                    "window_time".into(),
                ]);
                for n in names {
                    let parts: Vec<sqlparser::ast::Ident> =
                        n.split('.').map(sqlparser::ast::Ident::new).collect();
                    let e = if parts.len() == 1 {
                        sqlparser::ast::Expr::Identifier(parts[0].clone())
                    } else {
                        sqlparser::ast::Expr::CompoundIdentifier(parts)
                    };
                    items.push((e, Some(n)));
                }
            }
        }
    }
    items
}

impl Pipeline {
    /// A joined row's window input (a window over a join: `derived` is the
    /// join's select list, `ts` the time the window reads): its key and
    /// arguments as [`Pipeline::window_input`]; `Ok(false)` when WHERE
    /// drops it. Replay and `run` both feed a window after a join so.
    pub fn joined_input(
        &self,
        ts: lowwater_core::Timestamp,
        derived: &[Value],
        key: &mut Vec<Value>,
        args: &mut Vec<Value>,
    ) -> std::result::Result<bool, String> {
        self.window
            .assigner
            .check(ts)
            .map_err(|e| format!("a joined row: {e}"))?;
        if let Some(f) = &self.filter {
            let keep = f.eval(derived).map_err(|e| format!("WHERE: {e}"))?;
            if crate::expr::truth(&keep) != Some(true) {
                return Ok(false);
            }
        }
        self.window_input(derived, key, args)?;
        Ok(true)
    }

    /// The record's window input from its source `row`: its GROUP BY key
    /// into `key` and its aggregate arguments into `args` (both emptied
    /// first, their capacity kept). The error says which part failed.
    /// Both executors call it, so a record is keyed alike in each.
    pub fn window_input(
        &self,
        row: &[Value],
        key: &mut Vec<Value>,
        args: &mut Vec<Value>,
    ) -> std::result::Result<(), String> {
        key.clear();
        args.clear();
        self.append_window_input(row, key, args)
    }

    /// [`Pipeline::window_input`] appended to `key` and `args` (a
    /// batch's own vectors: the values are written where they stay). On
    /// an error some values may have been appended.
    ///
    /// Inlined: `lowwater run` calls it per record on the source's hot
    /// path, where a call and its frame cost ~5% of datagen's throughput.
    #[inline]
    pub fn append_window_input(
        &self,
        row: &[Value],
        key: &mut Vec<Value>,
        args: &mut Vec<Value>,
    ) -> std::result::Result<(), String> {
        for e in &self.keys {
            e.eval_into(row, key)
                .map_err(|m| format!("GROUP BY: {m}"))?;
        }
        self.append_args(row, args)
    }

    /// The record's aggregate arguments appended to `args`.
    fn append_args(&self, row: &[Value], args: &mut Vec<Value>) -> std::result::Result<(), String> {
        for e in &self.agg_args {
            e.eval_into(row, args)
                .map_err(|m| format!("aggregate argument: {m}"))?;
        }
        Ok(())
    }

    /// Per GROUP BY key, whether [`Pipeline::append_window_input_taking`]
    /// may move it out of the row of `source` (the pipeline's source table)
    /// instead of copying it: a plain STRING column that no aggregate
    /// argument, no other key and none of `also` (columns read after the
    /// keys, a late row's) reads. (A number costs nothing to copy.)
    pub fn movable_keys(&self, source: &super::TableDef, also: &[usize]) -> Vec<bool> {
        let string = |c: usize| {
            source
                .columns
                .get(c)
                .is_some_and(|col| col.ty == SqlType::String)
        };
        let mut read = also.to_vec();
        for e in &self.agg_args {
            e.columns(&mut read);
        }
        let mut keyed = Vec::new();
        for e in &self.keys {
            e.columns(&mut keyed);
        }
        self.keys
            .iter()
            .map(|e| match e {
                Expr::Column(c) => {
                    string(*c) && !read.contains(c) && keyed.iter().filter(|k| *k == c).count() == 1
                }
                _ => false,
            })
            .collect()
    }

    /// [`Pipeline::append_window_input`] by the last reader of a row that
    /// is built anew for the next record: the string keys `moves` marks
    /// (see [`Pipeline::movable_keys`]) are moved out of `row`, left NULL.
    /// Such a key is then handed on, not shared once more and let go (two
    /// changes of its count on a line another core reads).
    pub fn append_window_input_taking(
        &self,
        row: &mut [Value],
        moves: &[bool],
        key: &mut Vec<Value>,
        args: &mut Vec<Value>,
    ) -> std::result::Result<(), String> {
        for (e, &moved) in self
            .keys
            .iter()
            .zip(moves.iter().chain(std::iter::repeat(&false)))
        {
            // Only a string is moved (a NULL is copied).
            if let (Expr::Column(c), true) = (e, moved) {
                if let Some(v @ Value::Str(_)) = row.get_mut(*c) {
                    key.push(std::mem::replace(v, Value::Null));
                    continue;
                }
            }
            e.eval_into(row, key)
                .map_err(|m| format!("GROUP BY: {m}"))?;
        }
        self.append_args(row, args)
    }

    /// A window function's row without aggregation: a result per window it
    /// belongs to, at once (`WindowOutput::Fired` with the row's values as
    /// the key and no aggregates).
    pub fn project(
        &self,
        input: InputRef<'_>,
        out: &mut Vec<WindowOutput>,
    ) -> std::result::Result<(), String> {
        let mut windows = Vec::new();
        self.window
            .assigner
            .assign(input.ts, &mut windows)
            .map_err(|e| e.to_string())?;
        for w in windows {
            out.push(WindowOutput::Fired(WindowResult {
                key: input.key.to_vec(),
                window: w,
                values: Vec::new(),
                refired: false,
                early: false,
            }));
        }
        Ok(())
    }
}
