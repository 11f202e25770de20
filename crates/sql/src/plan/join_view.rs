//! A window over a temporal join (`TUMBLE(TABLE joined, DESCRIPTOR(ts),
//! ...)` where `joined` is a view of the join): the join's rows are the
//! window's table, its time attribute the probe side's rowtime, as Flink
//! carries it through the join.

use crate::error::{Result, SqlError};
use crate::expr::Expr;

use super::{IntervalPlan, JoinPlan, Output, OutputKind, TableDef};

/// The rows of temporal join `jp` as the table the window function `tvf`
/// reads: one column per output, the rowtime the one `DESCRIPTOR` names,
/// which must be the probe side's rowtime (the join's time attribute).
pub(super) fn derived_table(
    jp: &JoinPlan,
    tvf: &crate::ast::WindowTvf,
    tables: &[TableDef],
) -> Result<TableDef> {
    let probe = &tables[jp.probe];
    let rowtime = probe.watermark.map(|w| w.column);
    view_table(&jp.outputs, tvf, probe, &|e| Some(e) == rowtime, &|| {
        format!(
            "the temporal join's time attribute, the probe side's rowtime {}.{}",
            probe.name,
            rowtime.map_or("?", |c| probe.columns[c].name.as_str())
        )
    })
}

/// The rows of interval join `jp` as the table the window function `tvf`
/// reads: its time attribute either side's rowtime (both stay time
/// attributes after an interval join, as in Flink).
pub(super) fn interval_table(
    jp: &IntervalPlan,
    tvf: &crate::ast::WindowTvf,
    tables: &[TableDef],
) -> Result<TableDef> {
    let (l, r) = (&tables[jp.left], &tables[jp.right]);
    view_table(
        &jp.outputs,
        tvf,
        l,
        &|e| e == jp.times.0 || e == jp.times.1,
        &|| {
            format!(
                "one side's rowtime, as the interval join of {} and {} selects it",
                l.name, r.name
            )
        },
    )
}

/// The table of a join's select list `outputs` that `tvf` reads; `root`
/// gives the connector and formats; `time` says which joined-row column a
/// time attribute is, `what` names them for the error.
fn view_table(
    outputs: &[Output],
    tvf: &crate::ast::WindowTvf,
    root: &TableDef,
    time: &dyn Fn(usize) -> bool,
    what: &dyn Fn() -> String,
) -> Result<TableDef> {
    let mut columns: Vec<super::Column> = Vec::new();
    for o in outputs {
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
    let at = columns
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
    let is_time = matches!(&outputs[at].kind, OutputKind::Expr(Expr::Column(c)) if time(*c));
    if !is_time {
        return Err(SqlError::new(
            tvf.time_loc,
            format!(
                "DESCRIPTOR({}) must name a time attribute of '{}': {}",
                tvf.time_column,
                tvf.source,
                what()
            ),
        ));
    }
    Ok(TableDef {
        name: tvf.source.clone(),
        loc: tvf.source_loc,
        columns,
        watermark: Some(super::WatermarkDef {
            column: at,
            delay: 0,
        }),
        connector: root.connector.clone(),
        format: None,
        idle_timeout: None,
        emit: root.emit,
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
        value_format: root.value_format.clone(),
    })
}
