//! Where an INSERT's outputs go: the sink column each is written to, as
//! Flink maps them (by position, or by the INSERT's column list), with the
//! checks that a sink can take them.

use crate::error::{Loc, Result, SqlError};
use crate::options::Connector;

use lowwater_core::Value;

use crate::types::SqlType;

use super::{ColumnSource, Output, TableDef};

/// The sink column of each output (`listed`: the INSERT's column list).
pub(super) fn sink_mapping(
    loc: Loc,
    listed: Option<&Vec<String>>,
    sink: &TableDef,
    outputs: &[Output],
) -> Result<Vec<usize>> {
    if let Some(c) = sink.columns.iter().find(|c| !c.path.is_empty()) {
        return Err(SqlError::new(
            loc,
            format!(
                "sink '{}' has a ROW column ({}): lowwater writes flat rows only; give the sink \
                 one column per field",
                sink.name, c.path[0]
            ),
        ));
    }
    if matches!(
        sink.connector,
        Connector::Kafka { .. }
            | Connector::Filesystem { .. }
            | Connector::Print
            | Connector::Blackhole
            | Connector::Jdbc(_)
    ) && sink
        .columns
        .iter()
        .any(|c| c.source != ColumnSource::Physical)
    {
        return Err(SqlError::new(
            sink.loc,
            format!(
                "sink '{}' has computed or metadata columns; sinks take physical columns only",
                sink.name
            ),
        ));
    }
    let targets: Vec<usize> = match listed {
        Some(cols) => cols
            .iter()
            .map(|c| {
                sink.column(c).ok_or_else(|| {
                    SqlError::new(loc, format!("sink '{}' has no column '{c}'", sink.name))
                })
            })
            .collect::<Result<_>>()?,
        None => (0..sink.columns.len()).collect(),
    };
    if targets.len() != outputs.len() {
        return Err(SqlError::new(
            loc,
            format!(
                "INSERT INTO {} writes {} column(s) but the target has {}",
                sink.name,
                outputs.len(),
                targets.len()
            ),
        ));
    }
    // Columns the INSERT leaves out are written NULL, as in Flink; a NOT
    // NULL one cannot be left out.
    if let Some(c) =
        (0..sink.columns.len()).find(|c| !targets.contains(c) && sink.columns[*c].not_null)
    {
        return Err(SqlError::new(
            loc,
            format!(
                "INSERT INTO {} leaves out column '{}', which is NOT NULL: list it",
                sink.name, sink.columns[c].name
            ),
        ));
    }
    for (o, &t) in outputs.iter().zip(&targets) {
        let col = &sink.columns[t];
        if !col.ty.accepts(o.ty) {
            return Err(SqlError::new(
                loc,
                format!(
                    "sink column '{}' of '{}' is {}, but `{}` is {}; add a CAST",
                    col.name,
                    sink.name,
                    col.ty.name(),
                    o.name,
                    o.ty.name()
                ),
            ));
        }
    }
    Ok(targets)
}

/// A value as its sink column of type `ty` holds it: a number into a
/// DECIMAL column rounded to its scale (or NULL), a DECIMAL into a DOUBLE
/// or FLOAT column a double.
pub fn sink_value(ty: Option<&SqlType>, v: Value) -> Value {
    match (ty, v) {
        (Some(SqlType::Decimal(p, s)), v) if !v.is_null() => v.coerce_decimal(*p, *s),
        (Some(SqlType::Double), v @ Value::Decimal(..)) => Value::Double(v.as_f64().unwrap_or(0.0)),
        (Some(SqlType::Float), v @ Value::Decimal(..)) => {
            Value::Double(f64::from(v.as_f64().unwrap_or(0.0) as f32))
        }
        (_, v) => v,
    }
}
