//! lowwater's statement tree: the statements of a job file as parsed
//! ([`Statement`] and its parts), the `SELECT` blocks of queries and views
//! before they are inlined ([`Select`]), and small helpers over
//! sqlparser's expression tree that parsing, rewriting and planning all
//! use: where an expression starts, the name a column reference ends in,
//! how deep an expression nests, which ranking functions a query calls.
//!
//! It imports nothing of this crate but its errors and SQL types, so that
//! the parsers (`parse`, `query`), the rewriters (`inline`, `legacy`,
//! `portability`) and the planner (`plan`) share it without importing each
//! other.

use std::ops::ControlFlow;

use sqlparser::ast::{visit_expressions, Expr as AstExpr, SelectItem, Spanned};

use crate::error::{Loc, SqlError};
use crate::types::SqlType;

/// One statement of a job file.
#[derive(Debug, Clone)]
pub enum Statement {
    /// `SET 'key' = 'value'`.
    Set {
        /// Option key.
        key: String,
        /// Option value.
        value: String,
        /// Where.
        loc: Loc,
    },
    /// `CREATE TABLE`.
    CreateTable(Box<CreateTable>),
    /// `INSERT INTO ... SELECT ...`.
    Insert(Box<Insert>),
    /// `INSERT INTO ... SELECT ... FROM a JOIN b FOR SYSTEM_TIME AS OF ...`.
    JoinInsert(Box<JoinInsert>),
    /// `INSERT INTO ... SELECT ... FROM a JOIN b ON ... AND b.ts BETWEEN ...`.
    IntervalInsert(Box<IntervalInsert>),
    /// What Flink would refuse in the file (see the `portability` module);
    /// one, last, when there is any.
    FlinkNotes(Notes),
    /// The `ON CONFLICT DO ...` clause of the INSERT starting at `insert`
    /// (Flink 2.3), at `loc`.
    OnConflict {
        /// Where its INSERT starts.
        insert: Loc,
        /// What it does.
        strategy: Conflict,
        /// Where the clause is.
        loc: Loc,
    },
}

/// Flink 2.3's `ON CONFLICT` strategies for rows of one primary key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    /// `DO NOTHING`: the key's first row stays.
    Nothing,
    /// `DO ERROR`: a second row for a key fails the job.
    Error,
    /// `DO DEDUPLICATE`: the key's last row wins.
    Deduplicate,
}

/// `CREATE TABLE name (...) WITH (...)`.
#[derive(Debug, Clone)]
pub struct CreateTable {
    /// Table name.
    pub name: String,
    /// Where the statement starts.
    pub loc: Loc,
    /// Column definitions, in order.
    pub columns: Vec<ColumnDef>,
    /// `WATERMARK FOR column AS expr`.
    pub watermark: Option<WatermarkClause>,
    /// `PRIMARY KEY (cols) NOT ENFORCED`, and where.
    pub primary_key: Option<(Vec<String>, Loc)>,
    /// `WITH ('k' = 'v', ...)`, in order.
    pub options: Vec<(String, String, Loc)>,
}

/// One column definition.
#[derive(Debug, Clone)]
pub struct ColumnDef {
    /// Column name.
    pub name: String,
    /// Where.
    pub loc: Loc,
    /// What kind of column.
    pub kind: ColumnKind,
    /// Declared `NOT NULL`.
    pub not_null: bool,
    /// A field of a `ROW` column: its path in the record (`["payload",
    /// "user", "id"]` for the column `payload.user.id`); empty for a
    /// top-level column.
    pub path: Vec<String>,
}

/// Physical, computed or metadata column.
#[derive(Debug, Clone)]
pub enum ColumnKind {
    /// `name TYPE`: read from the payload.
    Physical(SqlType),
    /// `name AS expr`: computed from other columns.
    Computed(Box<AstExpr>),
    /// `name TYPE METADATA [FROM 'key'] [VIRTUAL]`.
    Metadata {
        /// Declared type.
        ty: SqlType,
        /// Metadata key (the column name when FROM is absent).
        key: String,
    },
}

/// `WATERMARK FOR column AS expr`.
#[derive(Debug, Clone)]
pub struct WatermarkClause {
    /// The rowtime column.
    pub column: String,
    /// The watermark expression.
    pub expr: AstExpr,
    /// Where.
    pub loc: Loc,
}

/// The window table-valued functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TvfKind {
    /// `TUMBLE(TABLE t, DESCRIPTOR(ts), size [, offset])`.
    Tumble,
    /// `HOP(TABLE t, DESCRIPTOR(ts), slide, size [, offset])`.
    Hop,
    /// `CUMULATE(TABLE t, DESCRIPTOR(ts), step, max_size [, offset])`.
    Cumulate,
    /// `SESSION(TABLE t [PARTITION BY k], DESCRIPTOR(ts), gap)`.
    Session,
}

/// `TABLE(TVF(TABLE source ..., DESCRIPTOR(col), args...))`.
#[derive(Debug, Clone)]
pub struct WindowTvf {
    /// Which window function.
    pub kind: TvfKind,
    /// Where the function name is.
    pub loc: Loc,
    /// The source table.
    pub source: String,
    /// Where the source name is.
    pub source_loc: Loc,
    /// `PARTITION BY` columns (SESSION only).
    pub partition_by: Vec<String>,
    /// The DESCRIPTOR column.
    pub time_column: String,
    /// Where the DESCRIPTOR column is.
    pub time_loc: Loc,
    /// The remaining arguments (intervals).
    pub args: Vec<AstExpr>,
}

/// `INSERT INTO sink [(cols)] SELECT ... FROM TABLE(...) [WHERE ...] GROUP BY ...`.
#[derive(Debug, Clone)]
pub struct Insert {
    /// Sink table.
    pub sink: String,
    /// Where the statement starts.
    pub loc: Loc,
    /// Explicit target columns, if given.
    pub sink_columns: Option<Vec<String>>,
    /// The select list.
    pub items: Vec<SelectItem>,
    /// The window function.
    pub tvf: WindowTvf,
    /// `WHERE`.
    pub filter: Option<AstExpr>,
    /// `GROUP BY` expressions.
    pub group_by: Vec<AstExpr>,
    /// `HAVING`.
    pub having: Option<AstExpr>,
    /// No GROUP BY: the window function's rows, each tagged with its
    /// windows (`SELECT *, window_start FROM TABLE(TUMBLE(...))`).
    pub project: bool,
    /// A filter applied after Window Top-N's ranking (`WHERE rownum <= 3`).
    pub qualify: Option<AstExpr>,
    /// Cascading windows: the window aggregation whose result rows this
    /// INSERT's window function reads (`tvf.source` names the view; `sink`
    /// of the inner one is empty). Its `window_time` is their rowtime.
    pub input: Option<Box<Insert>>,
    /// A window over a join: the join (a view of it, its `sink` empty)
    /// whose rows the window function reads.
    pub join: Option<Box<ViewJoin>>,
}

/// A view of a join, read by a window function.
// One per view a window reads while a job file is parsed: size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum ViewJoin {
    /// An event-time temporal join.
    Temporal(JoinInsert),
    /// An event-time interval join.
    Interval(IntervalInsert),
}

/// Notes on what Flink would refuse, as the `portability` module writes
/// them: (where, what and what to write).
pub type Notes = Vec<(Loc, String)>;

/// One `SELECT` block.
#[derive(Debug, Clone)]
pub struct Select {
    /// Where `SELECT` is.
    pub loc: Loc,
    /// The select list.
    pub items: Vec<SelectItem>,
    /// What it reads.
    pub from: From,
    /// `WHERE`.
    pub filter: Option<AstExpr>,
    /// `GROUP BY` expressions and where the clause is (None: no GROUP BY).
    pub group_by: Option<(Vec<AstExpr>, Loc)>,
    /// `HAVING`.
    pub having: Option<AstExpr>,
}

/// The FROM clause of a [`Select`].
#[derive(Debug, Clone)]
pub enum From {
    /// `TABLE(TUMBLE(TABLE src, ...))`.
    Window(WindowTvf),
    /// A table or view by name.
    Table {
        /// Its name.
        name: String,
        /// Where.
        loc: Loc,
    },
    /// `(SELECT ...)`.
    Query(Box<Select>),
    /// `probe [LEFT] JOIN build FOR SYSTEM_TIME AS OF probe.ts ON ...`.
    TemporalJoin(Box<TemporalJoin>),
    /// `a [INNER | LEFT | RIGHT | FULL] JOIN b ON ...` (an interval join when
    /// ON bounds one rowtime by the other).
    IntervalJoin(Box<IntervalJoin>),
}

/// Which rows of a join are written with NULLs when unmatched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinType {
    /// None.
    Inner,
    /// The left side's.
    Left,
    /// The right side's.
    Right,
    /// Both sides'.
    Full,
    /// A window semi join (`IN`, `EXISTS`): left rows with a match.
    Semi,
    /// A window anti join (`NOT IN`, `NOT EXISTS`): left rows without one.
    Anti,
}

/// `a [INNER | LEFT | RIGHT | FULL [OUTER]] JOIN b ON condition`, without
/// FOR SYSTEM_TIME AS OF.
#[derive(Debug, Clone)]
pub struct IntervalJoin {
    /// The left side.
    pub left: Named,
    /// The right side.
    pub right: Named,
    /// Which unmatched rows are padded.
    pub kind: JoinType,
    /// Where the join keyword is.
    pub loc: Loc,
    /// The ON condition.
    pub on: AstExpr,
    /// A window join: each side's window table function, select list and
    /// WHERE (`left` and `right` name the tables it reads).
    pub windows: Option<Box<[WindowSide; 2]>>,
}

/// A side of a window join: `(SELECT items FROM TABLE(TUMBLE(TABLE t,
/// DESCRIPTOR(ts), ...)) [WHERE ...]) alias`.
#[derive(Debug, Clone)]
pub struct WindowSide {
    /// The window table function.
    pub tvf: WindowTvf,
    /// The subquery's select list.
    pub items: Vec<SelectItem>,
    /// The subquery's WHERE.
    pub filter: Option<AstExpr>,
    /// Where the subquery starts.
    pub loc: Loc,
}

/// `INSERT INTO sink [(cols)] SELECT ... FROM <interval join> [WHERE ...]`.
#[derive(Debug, Clone)]
pub struct IntervalInsert {
    /// Sink table.
    pub sink: String,
    /// Where the statement starts.
    pub loc: Loc,
    /// Explicit target columns, if given.
    pub sink_columns: Option<Vec<String>>,
    /// The select list.
    pub items: Vec<SelectItem>,
    /// The join.
    pub join: IntervalJoin,
    /// `WHERE`, over the joined row.
    pub filter: Option<AstExpr>,
}

/// A table or view named in a FROM clause, with its alias.
#[derive(Debug, Clone)]
pub struct Named {
    /// Its name.
    pub name: String,
    /// Where the name is.
    pub loc: Loc,
    /// `[AS] alias`, if given.
    pub alias: Option<String>,
}

impl Named {
    /// The name its columns are qualified with (the alias, else the name).
    pub fn qualifier(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.name)
    }
}

/// An event-time temporal join: `probe [AS p] [INNER | LEFT [OUTER]] JOIN
/// build FOR SYSTEM_TIME AS OF p.ts [AS b] ON condition`.
#[derive(Debug, Clone)]
pub struct TemporalJoin {
    /// The probe (left) side.
    pub probe: Named,
    /// The versioned (right) side.
    pub build: Named,
    /// `LEFT JOIN`: a probe row without a matching version is written
    /// with NULLs.
    pub left: bool,
    /// Where the join keyword is.
    pub loc: Loc,
    /// The `AS OF` time.
    pub as_of: AstExpr,
    /// The ON condition.
    pub on: AstExpr,
}

/// A deduplicated view accepted as a versioned table: `SELECT cols FROM
/// (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn
/// FROM t) WHERE rn = 1`: each key's last row on its rowtime.
#[derive(Debug, Clone)]
pub struct VersionedView {
    /// The view's name.
    pub name: String,
    /// Where the view is defined.
    pub loc: Loc,
    /// The table it deduplicates.
    pub table: Named,
    /// `PARTITION BY` columns (table column names).
    pub key: Vec<String>,
    /// The `ORDER BY` column (the table's rowtime).
    pub time: String,
    /// Where the ORDER BY is.
    pub time_loc: Loc,
    /// Its columns: (name in the view, where from).
    pub columns: Vec<(String, ViewSource)>,
    /// `CREATE VIEW v (a, b, ...)`: the names its columns are given.
    pub names: Option<Vec<String>>,
}

/// Where a versioned view's column comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewSource {
    /// The table's column of this name.
    Column(String),
    /// Every column of the table, in order (`*`).
    All,
    /// The row number (always 1 in the view).
    RowNumber,
}

/// `INSERT INTO sink [(cols)] SELECT ... FROM <temporal join> [WHERE ...]`.
#[derive(Debug, Clone)]
pub struct JoinInsert {
    /// Sink table.
    pub sink: String,
    /// Where the statement starts.
    pub loc: Loc,
    /// Explicit target columns, if given.
    pub sink_columns: Option<Vec<String>>,
    /// The select list.
    pub items: Vec<SelectItem>,
    /// The join.
    pub join: TemporalJoin,
    /// The versioned view the build side names, if it is one (else a
    /// table with a primary key).
    pub view: Option<VersionedView>,
    /// `WHERE`, over the joined row.
    pub filter: Option<AstExpr>,
}

/// Where an expression starts (or `fallback` when sqlparser has no span).
pub fn expr_loc(e: &AstExpr, fallback: Loc) -> Loc {
    let s = e.span().start;
    if s.line == 0 {
        fallback
    } else {
        Loc::from_sp(s)
    }
}

/// The (lower-case) name a column reference ends in: `user` for `user` and
/// `t.user`.
pub fn ident_name(e: &AstExpr) -> Option<String> {
    match e {
        AstExpr::Identifier(id) => Some(id.value.to_ascii_lowercase()),
        AstExpr::CompoundIdentifier(ids) => ids.last().map(|i| i.value.to_ascii_lowercase()),
        _ => None,
    }
}

/// The deepest an expression may nest. sqlparser builds `1 + 1 + ...`
/// without recursion, but everything after it (planning, evaluation,
/// dropping the tree) recurses: a 20,000-term chain would overflow the
/// stack. Parentheses are limited by sqlparser's own recursion limit.
pub const MAX_EXPR_DEPTH: usize = 200;

/// How deep `e` nests through operators, counted without recursion (and
/// without going past `MAX_EXPR_DEPTH + 1`).
fn depth(e: &AstExpr) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(e, 1)];
    while let Some((x, d)) = stack.pop() {
        deepest = deepest.max(d);
        if deepest > MAX_EXPR_DEPTH {
            break;
        }
        match x {
            AstExpr::BinaryOp { left, right, .. } => {
                stack.push((left, d + 1));
                stack.push((right, d + 1));
            }
            AstExpr::UnaryOp { expr, .. }
            | AstExpr::Nested(expr)
            | AstExpr::IsNull(expr)
            | AstExpr::IsNotNull(expr)
            | AstExpr::IsTrue(expr)
            | AstExpr::IsNotTrue(expr)
            | AstExpr::IsFalse(expr)
            | AstExpr::IsNotFalse(expr)
            | AstExpr::Cast { expr, .. } => stack.push((expr, d + 1)),
            _ => {}
        }
    }
    deepest
}

/// Drops an expression without recursion (a deep operator chain would
/// overflow the stack in the compiler's recursive drop).
pub(crate) fn dismantle(e: AstExpr) {
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        match x {
            AstExpr::BinaryOp { left, right, .. } => {
                stack.push(*left);
                stack.push(*right);
            }
            AstExpr::UnaryOp { expr, .. } | AstExpr::Nested(expr) => stack.push(*expr),
            _ => {}
        }
    }
}

/// Where a deep expression starts: its leftmost operand's place, found
/// without recursion (sqlparser's span of the whole tree recurses).
pub(crate) fn deep_loc(e: &AstExpr, fallback: Loc) -> Loc {
    let mut x = e;
    loop {
        x = match x {
            AstExpr::BinaryOp { left, .. } => left,
            AstExpr::UnaryOp { expr, .. } | AstExpr::Nested(expr) => expr,
            leaf => return expr_loc(leaf, fallback),
        };
    }
}

/// Whether `e` nests deeper than [`MAX_EXPR_DEPTH`].
pub(crate) fn too_deep(e: &AstExpr) -> bool {
    depth(e) > MAX_EXPR_DEPTH
}

/// The error for an expression at `at` that is [`too_deep`]; `exprs` (the
/// statement's expressions) are dropped without recursion.
pub(crate) fn deep_error(at: Loc, exprs: Vec<AstExpr>) -> SqlError {
    for e in exprs {
        dismantle(e);
    }
    SqlError::new(
        at,
        format!(
            "this expression nests more than {MAX_EXPR_DEPTH} operators deep; write it shorter \
             (lowwater refuses it rather than run out of stack)"
        ),
    )
}

/// The ranking function calls of a query (`ROW_NUMBER() OVER (...)`) in
/// the select list and HAVING, each once, in order.
pub(crate) fn ranking_calls(items: &[SelectItem], having: Option<&AstExpr>) -> Vec<AstExpr> {
    let exprs = items
        .iter()
        .filter_map(|i| match i {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
            _ => None,
        })
        .chain(having);
    let mut found: Vec<AstExpr> = Vec::new();
    for e in exprs {
        let _ = visit_expressions(e, |x: &AstExpr| {
            if matches!(x, AstExpr::Function(f) if f.over.is_some()) && !found.contains(x) {
                found.push(x.clone());
            }
            ControlFlow::<()>::Continue(())
        });
    }
    found
}
