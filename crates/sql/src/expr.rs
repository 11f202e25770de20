//! Row expressions: compiled once from SQL (by `compile`), evaluated per
//! record.
//!
//! Supported: column references, literals, comparison, arithmetic,
//! AND/OR/NOT (SQL three-valued logic), IS [NOT] NULL, CAST, and the time
//! functions used in computed columns (`TO_TIMESTAMP_LTZ(n, 0|3)`,
//! `TO_TIMESTAMP(string)`). Integer arithmetic wraps and integer division
//! truncates, as Java's does in Flink; a division by zero is an error that
//! names the record (Flink fails the job there too).
//!
//! This module is the tree ([`Expr`]), its evaluation, and what compiling
//! it needs ([`Scope`], [`Typed`], [`Compile`]). It sits above the
//! functions' evaluation ([`crate::functions`]) and the operations on
//! values ([`crate::values`]), and below the compilers.

use sqlparser::ast::Expr as AstExpr;

use lowwater_core::time::parse_timestamp;
use lowwater_core::Value;

use crate::error::{Loc, Result};
use crate::types::{ArithOp, SqlType};

pub use crate::values::{equal, order, truth};

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `<>` / `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// A compiled expression over a row (columns by position).
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// The value of column `i`.
    Column(usize),
    /// A constant.
    Literal(Value),
    /// A comparison.
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    /// Arithmetic.
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    /// A scalar function or predicate ([`crate::functions`]).
    Call(crate::functions::Func, Vec<Expr>),
    /// A result narrowed to its SQL type: TINYINT/SMALLINT/INT wrap (two's
    /// complement, as Java's arithmetic does), FLOAT rounds to 32 bits.
    Narrow(Box<Expr>, SqlType),
    /// Logical AND.
    And(Box<Expr>, Box<Expr>),
    /// Logical OR.
    Or(Box<Expr>, Box<Expr>),
    /// Logical NOT.
    Not(Box<Expr>),
    /// Unary minus.
    Neg(Box<Expr>),
    /// `IS NULL` (`false`) / `IS NOT NULL` (`true`).
    IsNull(Box<Expr>, bool),
    /// `CAST(e AS type)`.
    Cast(Box<Expr>, SqlType),
    /// `TO_TIMESTAMP_LTZ(n, precision)`: epoch seconds (0) or milliseconds (3).
    ToTimestampLtz(Box<Expr>, i64),
    /// `TO_TIMESTAMP(string)`.
    ToTimestamp(Box<Expr>),
}

/// Resolves column names while compiling.
pub trait Scope {
    /// The position and type of column `name`.
    fn resolve(&self, name: &str) -> Option<(usize, SqlType)>;
    /// The column names, for error messages.
    fn names(&self) -> Vec<String>;
    /// A whole expression this scope holds as a column (a window
    /// aggregate's result row holds its aggregates and GROUP BY
    /// expressions), if `e` is one.
    fn substitute(&self, _e: &AstExpr, _loc: Loc) -> Option<Result<Typed>> {
        None
    }
}

/// The compiler of a whole expression (`compile::compile`), as
/// the compilers of the function families get it to compile their
/// arguments: handed down by the compiler that calls them, so that they
/// sit below it.
pub type Compile = fn(&AstExpr, &dyn Scope, Loc) -> Result<Typed>;

/// An expression with its type (`None` for a bare NULL literal).
#[derive(Debug, Clone, PartialEq)]
pub struct Typed {
    /// The expression.
    pub expr: Expr,
    /// Its SQL type.
    pub ty: Option<SqlType>,
}

impl Expr {
    /// Evaluates over `row`. Errors only on data that cannot be computed
    /// (division by zero, an unparsable cast), with a message for the user.
    ///
    /// A column (most GROUP BY keys and aggregate arguments are one) is
    /// read here, inlined into the caller's loop; the rest is
    /// [`Expr::eval_tree`]'s.
    #[inline]
    pub fn eval(&self, row: &[Value]) -> std::result::Result<Value, String> {
        match self {
            Expr::Column(i) => Ok(row.get(*i).cloned().unwrap_or(Value::Null)),
            _ => self.eval_tree(row),
        }
    }

    /// [`Expr::eval`], the result appended to `out`. A column's value is
    /// written straight into `out`, not through a returned `Result`
    /// (whose copy, on the record path, stalls on reading back what was
    /// just written).
    #[inline]
    pub fn eval_into(
        &self,
        row: &[Value],
        out: &mut Vec<Value>,
    ) -> std::result::Result<(), String> {
        match self {
            // A push per kind: the value's parts are written where it
            // goes (a derived clone copies all 24 bytes through a
            // temporary in overlapping pieces, which stall).
            Expr::Column(i) => match row.get(*i) {
                Some(Value::Int(v)) => out.push(Value::Int(*v)),
                Some(Value::Timestamp(t)) => out.push(Value::Timestamp(*t)),
                Some(Value::Str(s)) => out.push(Value::Str(s.clone())),
                Some(v) => out.push(v.clone()),
                None => out.push(Value::Null),
            },
            _ => out.push(self.eval_tree(row)?),
        }
        Ok(())
    }

    fn eval_tree(&self, row: &[Value]) -> std::result::Result<Value, String> {
        Ok(match self {
            Expr::Column(i) => row.get(*i).cloned().unwrap_or(Value::Null),
            Expr::Literal(v) => v.clone(),
            Expr::Compare(op, a, b) => compare(*op, &a.eval(row)?, &b.eval(row)?),
            Expr::Arith(op, a, b) => crate::values::arith(*op, &a.eval(row)?, &b.eval(row)?)?,
            Expr::Narrow(a, ty) => crate::values::narrow(a.eval(row)?, *ty),
            Expr::Call(f, args) => crate::functions::eval(f, args.len(), |i| {
                args.get(i).map_or(Ok(Value::Null), |a| a.eval(row))
            })?,
            Expr::And(a, b) => match (truth(&a.eval(row)?), truth(&b.eval(row)?)) {
                (Some(false), _) | (_, Some(false)) => Value::Bool(false),
                (Some(true), Some(true)) => Value::Bool(true),
                _ => Value::Null,
            },
            Expr::Or(a, b) => match (truth(&a.eval(row)?), truth(&b.eval(row)?)) {
                (Some(true), _) | (_, Some(true)) => Value::Bool(true),
                (Some(false), Some(false)) => Value::Bool(false),
                _ => Value::Null,
            },
            Expr::Not(a) => match truth(&a.eval(row)?) {
                Some(b) => Value::Bool(!b),
                None => Value::Null,
            },
            Expr::Neg(a) => match a.eval(row)? {
                Value::Int(i) => Value::Int(i.wrapping_neg()),
                Value::Double(d) => Value::Double(-d),
                v @ Value::Decimal(..) => match v.as_decimal() {
                    Some((u, s)) => Value::decimal(-u, s),
                    None => Value::Null,
                },
                _ => Value::Null,
            },
            Expr::IsNull(a, negated) => Value::Bool(a.eval(row)?.is_null() != *negated),
            Expr::Cast(a, ty) => crate::values::cast(a.eval(row)?, *ty)?,
            Expr::ToTimestampLtz(a, precision) => match a.eval(row)? {
                Value::Int(n) if *precision == 0 => Value::Timestamp(n.saturating_mul(1_000)),
                Value::Int(n) => Value::Timestamp(n),
                Value::Double(d) if *precision == 0 => Value::Timestamp((d * 1_000.0) as i64),
                Value::Double(d) => Value::Timestamp(d as i64),
                _ => Value::Null,
            },
            Expr::ToTimestamp(a) => match a.eval(row)? {
                Value::Str(s) => Value::Timestamp(parse_timestamp(&s).ok_or_else(|| {
                    format!("TO_TIMESTAMP: '{s}' is not a timestamp like '2025-09-14 03:37:58'")
                })?),
                _ => Value::Null,
            },
        })
    }

    /// Adds the positions of every column this expression reads to `out`.
    pub fn columns(&self, out: &mut Vec<usize>) {
        match self {
            Expr::Column(i) => out.push(*i),
            Expr::Literal(_) => {}
            Expr::Call(_, args) => {
                for a in args {
                    a.columns(out);
                }
            }
            Expr::Compare(_, a, b) | Expr::Arith(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
                a.columns(out);
                b.columns(out);
            }
            Expr::Not(a)
            | Expr::Neg(a)
            | Expr::Narrow(a, _)
            | Expr::IsNull(a, _)
            | Expr::Cast(a, _)
            | Expr::ToTimestampLtz(a, _)
            | Expr::ToTimestamp(a) => a.columns(out),
        }
    }

    /// Whether this is a plain column reference, and which.
    pub fn as_column(&self) -> Option<usize> {
        match self {
            Expr::Column(i) => Some(*i),
            _ => None,
        }
    }
}

fn compare(op: CmpOp, a: &Value, b: &Value) -> Value {
    let Some(ord) = order(a, b) else {
        return Value::Null;
    };
    use std::cmp::Ordering::*;
    Value::Bool(match op {
        CmpOp::Eq => ord == Equal,
        CmpOp::Ne => ord != Equal,
        CmpOp::Lt => ord == Less,
        CmpOp::Le => ord != Greater,
        CmpOp::Gt => ord == Greater,
        CmpOp::Ge => ord != Less,
    })
}
