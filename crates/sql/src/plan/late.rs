//! A source's late-data sink (`'late-data.sink' = 'table'`): which of the
//! source's columns its rows take, and the optional column saying why a row
//! is there.

use lowwater_core::Value;

use crate::error::{Loc, Result, SqlError};
use crate::types::SqlType;

use super::{JobPlan, TableDef};

/// A late-data sink's STRING column of this name says why each row is
/// there (see [`LateReason`]); a source column of the same name wins.
pub const REASON_COLUMN: &str = "lowwater_late_reason";

/// Why a record went to the late-data sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LateReason {
    /// Its windows had all fired: its event time was behind the watermark.
    Late,
    /// The future-timestamp guard kept it out: it was dated more than
    /// `lowwater.watermark.max-future` ahead of its arrival.
    Future,
}

impl LateReason {
    /// The text in the reason column.
    pub fn as_str(self) -> &'static str {
        match self {
            LateReason::Late => "late",
            LateReason::Future => "future-timestamp",
        }
    }
}

/// How a source row becomes a row of the source's late-data sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LateRow {
    /// The late-data sink's table index.
    pub sink: usize,
    /// Per sink column, the source column it takes (`None`: the reason).
    cols: Vec<Option<usize>>,
}

impl LateRow {
    /// The sink row for source row `row`, late for `reason`.
    pub fn values(&self, row: &[Value], reason: LateReason) -> Vec<Value> {
        let carried: Vec<Value> = self.carried(row).collect();
        self.from_carried(&carried, reason)
    }

    /// The source values the sink takes, in the sink's column order without
    /// the reason: what a record carries until it is known to be late.
    pub fn carried<'a>(&'a self, row: &'a [Value]) -> impl Iterator<Item = Value> + 'a {
        self.cols
            .iter()
            .flatten()
            .map(|&c| row.get(c).cloned().unwrap_or(Value::Null))
    }

    /// The source columns [`LateRow::carried`] reads.
    pub fn columns(&self) -> Vec<usize> {
        self.cols.iter().flatten().copied().collect()
    }

    /// The sink row from [`LateRow::carried`] values, late for `reason`.
    pub fn from_carried(&self, carried: &[Value], reason: LateReason) -> Vec<Value> {
        let mut it = carried.iter();
        self.cols
            .iter()
            .map(|c| match c {
                Some(_) => it.next().cloned().unwrap_or(Value::Null),
                None => Value::Str(reason.as_str().into()),
            })
            .collect()
    }
}

impl JobPlan {
    /// The late-data sink of source table `source`, if it has one.
    pub fn late_row(&self, source: usize) -> Option<LateRow> {
        let src = &self.tables[source];
        let sink = src.late_data_sink?;
        let cols = self.tables[sink]
            .columns
            .iter()
            .map(|c| src.column(&c.name))
            .collect();
        Some(LateRow { sink, cols })
    }
}

/// A late-data sink takes the source's columns by name; a STRING column
/// named [`REASON_COLUMN`] that the source lacks gets the reason.
pub(super) fn check_late_sink(source: &TableDef, sink: &TableDef, loc: Loc) -> Result<()> {
    for c in &sink.columns {
        let Some(i) = source.column(&c.name) else {
            if c.name == REASON_COLUMN {
                if c.ty != SqlType::String {
                    return Err(SqlError::new(
                        loc,
                        format!(
                            "late-data.sink '{}': column '{REASON_COLUMN}' holds why a row is \
                             late ('late' or 'future-timestamp') and must be STRING, not {}",
                            sink.name,
                            c.ty.name()
                        ),
                    ));
                }
                continue;
            }
            return Err(SqlError::new(
                loc,
                format!(
                    "late-data.sink '{}' has column '{}' that source '{}' does not have; \
                     a late-data sink takes the source's columns by name (and a STRING column \
                     '{REASON_COLUMN}' says why each row is there)",
                    sink.name, c.name, source.name
                ),
            ));
        };
        if !c.ty.accepts(source.columns[i].ty) {
            return Err(SqlError::new(
                loc,
                format!(
                    "late-data.sink '{}': column '{}' is {}, the source's is {}",
                    sink.name,
                    c.name,
                    c.ty.name(),
                    source.columns[i].ty.name()
                ),
            ));
        }
    }
    Ok(())
}
