//! Cascading window aggregations: a window function over the result of a
//! window aggregation (`TUMBLE(TABLE per_minute, DESCRIPTOR(rowtime), ...)`
//! where `per_minute` selects `window_time AS rowtime`), as Flink runs them.
//!
//! The inner aggregation's rows are a table of their own to the outer one:
//! its outputs, in order, with the inner `window_time` as the rowtime. Its
//! results reach the outer aggregation in the same subtask before the
//! watermark that fired them, so they are never late there (a window fires
//! the rows whose window_time the watermark passed, and the outer window
//! has seen only the watermark before).

use std::collections::BTreeMap;

use lowwater_core::dataflow::window::Link;
use lowwater_core::window::operator::WindowResult;
use lowwater_core::Value;

use crate::ast::WindowTvf;
use crate::error::{Result, SqlError};
use crate::expr::truth;

use super::{Column, ColumnSource, OutputKind, Pipeline, TableDef, WatermarkDef};

/// The rows of the inner aggregation `up` as the table the window function
/// `tvf` reads: one column per output, the rowtime the one `DESCRIPTOR`
/// names, which must be the inner `window_time` (Flink's time attribute).
pub(super) fn derived_table(up: &Pipeline, tvf: &WindowTvf, root: &TableDef) -> Result<TableDef> {
    let view = &tvf.source;
    let mut columns: Vec<Column> = Vec::new();
    for o in &up.outputs {
        let lower = o.name.to_ascii_lowercase();
        if matches!(
            lower.as_str(),
            "window_start" | "window_end" | "window_time"
        ) {
            return Err(SqlError::new(
                tvf.source_loc,
                format!(
                    "'{view}' has a column named {lower}, and the window function over it adds \
                     its own {lower}: rename it in '{view}' (for example `window_time AS \
                     rowtime`), as Flink requires (its message: Column '{lower}' is ambiguous)"
                ),
            ));
        }
        if columns.iter().any(|c| c.name.eq_ignore_ascii_case(&o.name)) {
            return Err(SqlError::new(
                tvf.source_loc,
                format!(
                    "'{view}' has two columns named '{}': name them apart",
                    o.name
                ),
            ));
        }
        columns.push(Column {
            name: o.name.clone(),
            ty: o.ty,
            source: ColumnSource::Physical,
            not_null: false,
            path: Vec::new(),
        });
    }
    let time = columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(&tvf.time_column))
        .ok_or_else(|| {
            SqlError::new(
                tvf.time_loc,
                format!(
                    "'{view}' has no column '{}' (it has {})",
                    tvf.time_column,
                    columns
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
    if up.outputs[time].kind != OutputKind::WindowTime {
        return Err(SqlError::new(
            tvf.time_loc,
            format!(
                "DESCRIPTOR({}) must name a time attribute: over the window aggregation '{view}' \
                 that is the column it selects as window_time (`window_time AS rowtime`); '{}' \
                 is a plain {} (Flink: the window function requires the timecol is a time \
                 attribute type)",
                tvf.time_column,
                columns[time].name,
                columns[time].ty.name()
            ),
        ));
    }
    Ok(TableDef {
        name: view.clone(),
        loc: tvf.source_loc,
        columns,
        watermark: Some(WatermarkDef {
            column: time,
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
        options: BTreeMap::new(),
        value_format: root.value_format.clone(),
    })
}

impl Pipeline {
    /// Whether its window reads a join's rows (a view of a temporal or an
    /// interval join), not its source table's records.
    pub fn reads_join(&self) -> bool {
        let first = self.first();
        first.join.is_some() || first.interval.is_some()
    }

    /// Whether its window reads the records of table `t` itself (not
    /// through a join).
    pub fn reads_table(&self, t: usize) -> bool {
        self.source == t && !self.reads_join()
    }

    /// The aggregation that reads the source table's records: the
    /// innermost of cascading windows, else this one.
    pub fn first(&self) -> &Pipeline {
        let mut p = self;
        while let Some(up) = &p.input {
            p = up;
        }
        p
    }

    /// The window aggregations of this INSERT from the one reading the
    /// source to this one (one, without cascading windows).
    pub fn stages(&self) -> Vec<&Pipeline> {
        let mut v = vec![self];
        while let Some(up) = &v[v.len() - 1].input {
            v.push(up);
        }
        v.reverse();
        v
    }

    /// The aggregations chained after the first, in order (empty without
    /// cascading windows).
    pub fn chained(&self) -> Vec<&Pipeline> {
        let mut v = self.stages();
        v.remove(0);
        v
    }
}

impl Link for Pipeline {
    /// A result of aggregation `stage` (0: the first) as the input of the
    /// one after it: the inner result row (`None` when its HAVING drops
    /// it), the outer WHERE over it, then the outer keys and arguments.
    fn input(
        &self,
        stage: usize,
        r: &WindowResult,
        key: &mut Vec<Value>,
        args: &mut Vec<Value>,
    ) -> std::result::Result<bool, String> {
        let stages = self.stages();
        let (Some(up), Some(next)) = (stages.get(stage), stages.get(stage + 1)) else {
            return Err(format!("no window aggregation after stage {stage}"));
        };
        let mut row = Vec::with_capacity(up.outputs.len());
        if !up.sink_values_into(r, &[], up.outputs.len(), &mut row, None)? {
            return Ok(false);
        }
        if let Some(f) = &next.filter {
            let keep = truth(&f.eval(&row).map_err(|m| format!("WHERE: {m}"))?);
            if keep != Some(true) {
                return Ok(false);
            }
        }
        next.window_input(&row, key, args)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::graph::{Distribution, Graph, NodeKind};
    use crate::plan::JobPlan;

    const JOB: &str = "
        CREATE TABLE clicks (user_id STRING, page STRING, ts TIMESTAMP(3),
          WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
          WITH ('connector' = 'kafka', 'topic' = 'clicks',
                'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
        CREATE TABLE hourly (window_start TIMESTAMP(3), page STRING, n BIGINT)
          WITH ('connector' = 'print');
        CREATE VIEW per_minute AS SELECT window_time AS rowtime, page, user_id, COUNT(*) AS c
          FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
          WHERE page <> '' GROUP BY window_start, window_end, window_time, page, user_id;
    ";

    fn plan(settings: &str, insert: &str) -> Result<JobPlan, String> {
        JobPlan::from_sql(&format!("{settings}{JOB}{insert}")).map_err(|e| e.to_string())
    }

    #[test]
    fn the_outer_aggregation_reads_the_inner_rows_and_the_graph_shows_both() {
        let p = plan(
            "SET 'parallelism.default' = '2';",
            "INSERT INTO hourly SELECT window_start, page, SUM(c)
               FROM TABLE(TUMBLE(TABLE per_minute, DESCRIPTOR(rowtime), INTERVAL '1' HOUR))
               WHERE c > 1 GROUP BY window_start, window_end, page;",
        )
        .expect("plans");
        let pl = &p.pipelines[0];
        assert_eq!(pl.stages().len(), 2);
        assert_eq!(pl.first().keys.len(), 2, "page, user_id");
        assert_eq!(pl.keys.len(), 1, "page, of the inner rows");
        assert!(pl.filter.is_some() && pl.first().filter.is_some());
        // The records' columns are the inner aggregation's.
        assert_eq!(p.needed_columns(0), vec![true, true, true]);
        let g = Graph::of(&p);
        let windows: Vec<usize> = (0..g.nodes.len())
            .filter(|&n| matches!(g.nodes[n].kind, NodeKind::Window { .. }))
            .collect();
        assert_eq!(windows.len(), 2);
        let into_second = g.inputs(windows[1]);
        // Grouped by page only: the rows of a page come from every subtask.
        assert_eq!(into_second[0].distribution, Distribution::Hash(vec![0]));
        let text = g.text(&p);
        assert!(
            text.contains("window aggregate TUMBLE 1h 0m over the rows before (WHERE, keys and arguments) of INSERT 1, parallelism 2; port 0 <- [3] hash(page)"),
            "{text}"
        );
        assert!(text.contains("<- [2] hash(page, user_id)"), "{text}");
    }

    #[test]
    fn the_same_keys_chain_forward_and_fire_oldest_is_refused() {
        let insert = "INSERT INTO hourly SELECT window_start, page, SUM(c)
               FROM TABLE(TUMBLE(TABLE per_minute, DESCRIPTOR(rowtime), INTERVAL '1' HOUR))
               GROUP BY window_start, window_end, page, user_id;";
        let p = plan("", insert).expect("plans");
        let g = Graph::of(&p);
        let last = (0..g.nodes.len())
            .rfind(|&n| matches!(g.nodes[n].kind, NodeKind::Window { .. }))
            .expect("a window");
        assert_eq!(g.inputs(last)[0].distribution, Distribution::Forward);
        let err =
            plan("SET 'lowwater.state.on-limit' = 'fire-oldest';", insert).expect_err("refused");
        assert!(err.contains("does not apply to cascading window"), "{err}");
    }
}
