//! A window over a temporal join (`TUMBLE(TABLE joined, DESCRIPTOR(ts),
//! ...)` where `joined` is a view of the join): the join's rows are the
//! window's table, its time attribute the probe side's rowtime, as Flink
//! carries it through the join.

use crate::error::{Result, SqlError};
use crate::expr::Expr;

use super::{JoinPlan, OutputKind, TableDef};

/// The rows of join `jp` as the table the window function `tvf` reads:
/// one column per output, the rowtime the one `DESCRIPTOR` names, which
/// must be the probe side's rowtime (the join's time attribute).
pub(super) fn derived_table(
    jp: &JoinPlan,
    tvf: &crate::ast::WindowTvf,
    tables: &[TableDef],
) -> Result<TableDef> {
    let probe = &tables[jp.probe];
    let mut columns: Vec<super::Column> = Vec::new();
    for o in &jp.outputs {
        if columns.iter().any(|c| c.name.eq_ignore_ascii_case(&o.name)) {
            return Err(SqlError::new(
                tvf.source_loc,
                format!(
                    "'{}' has two columns named '{}': name them apart",
                    tvf.source, o.name
                ),
            ));
        }
        columns.push(super::Column {
            name: o.name.clone(),
            ty: o.ty,
            source: super::ColumnSource::Physical,
            not_null: false,
            path: Vec::new(),
        });
    }
    let time = columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(&tvf.time_column))
        .ok_or_else(|| {
            let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
            SqlError::new(
                tvf.time_loc,
                format!(
                    "'{}' has no column '{}' (it has {})",
                    tvf.source,
                    tvf.time_column,
                    names.join(", ")
                ),
            )
        })?;
    let rowtime = probe.watermark.map(|w| w.column);
    let is_rowtime = matches!(&jp.outputs[time].kind,
        OutputKind::Expr(Expr::Column(c)) if Some(*c) == rowtime);
    if !is_rowtime {
        return Err(SqlError::new(
            tvf.time_loc,
            format!(
                "DESCRIPTOR({}) must name the temporal join's time attribute, the probe side's \
                 rowtime {}.{}, as '{}' selects it",
                tvf.time_column,
                probe.name,
                rowtime.map_or("?", |c| probe.columns[c].name.as_str()),
                tvf.source
            ),
        ));
    }
    Ok(TableDef {
        name: tvf.source.clone(),
        loc: tvf.source_loc,
        columns,
        watermark: Some(super::WatermarkDef {
            column: time,
            delay: 0,
        }),
        connector: probe.connector.clone(),
        format: None,
        idle_timeout: None,
        emit: probe.emit,
        alignment: None,
        max_future: None,
        proctime: None,
        caught_up: false,
        discovery_interval: None,
        max_emission_lag: None,
        max_staleness: None,
        late_data_sink: None,
        key: None,
        primary_key: None,
        options: std::collections::BTreeMap::new(),
        value_format: probe.value_format.clone(),
    })
}
