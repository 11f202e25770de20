//! `lowwater replay` and `lowwater explain` for Python: the same engine,
//! the same checks and the same messages as the CLI, the report as JSON
//! (the replay report contract) for the Python half to wrap.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::prelude::*;

use lowwater_core::time::Millis;
use lowwater_replay::{replay_observed, ReplayArgs};
use lowwater_sql::explain::MAX_PARTITIONS;
use lowwater_sql::plan::JobPlan;

use crate::err;

/// A sink's records: (partition, timestamp, key, value), bytes as text.
type SinkRecord = (i32, i64, Option<String>, Option<String>);

fn plan(sql: &str, origin: &str) -> PyResult<JobPlan> {
    JobPlan::from_sql(sql).map_err(|e| err(format!("{origin}: {e}")))
}

fn counts(plan: &JobPlan, partitions: &BTreeMap<String, i64>) -> PyResult<Vec<(String, i32)>> {
    partitions
        .iter()
        .map(|(t, n)| {
            if plan.table(t).is_none() {
                return Err(err(format!(
                    "partitions names table '{t}', which the job does not define"
                )));
            }
            match i32::try_from(*n) {
                Ok(n) if n > 0 && n <= MAX_PARTITIONS => Ok((t.to_ascii_lowercase(), n)),
                _ => Err(err(format!(
                    "partitions {t}={n}: N must be between 1 and {MAX_PARTITIONS}"
                ))),
            }
        })
        .collect()
}

/// Replays `sql` (named `origin` in messages) over the dumps in `inputs`.
/// Returns the report as JSON, the rows written per sink, and the notes
/// the CLI prints (settings without effect, what Flink would refuse).
#[pyfunction]
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
#[pyo3(signature = (sql, origin, inputs, partitions, drain, stall_threshold, sort_buffer_bytes))]
pub fn replay(
    py: Python<'_>,
    sql: &str,
    origin: &str,
    inputs: Vec<(String, PathBuf)>,
    partitions: BTreeMap<String, i64>,
    drain: bool,
    stall_threshold: Option<Millis>,
    sort_buffer_bytes: usize,
) -> PyResult<(String, BTreeMap<String, Vec<SinkRecord>>, Vec<String>)> {
    let plan = plan(sql, origin)?;
    let args = ReplayArgs {
        inputs,
        partitions: counts(&plan, &partitions)?,
        drain,
        stall_threshold,
        restarts: Vec::new(),
        sort_buffer_bytes,
        spill_dir: std::env::temp_dir(),
    };
    let mut notes: Vec<String> = plan.settings.ignored_note().into_iter().collect();
    notes.extend(
        plan.flink_notes
            .iter()
            .map(|n| format!("Flink would refuse this job: {n}")),
    );
    // The replay runs without the interpreter lock: other Python threads go on.
    let outcome = py
        .detach(|| replay_observed(&plan, &args, &mut |_| {}))
        .map_err(err)?;
    let report = sonic_rs::to_string(&outcome.report).map_err(err)?;
    let text = |b: &Option<Vec<u8>>| b.as_ref().map(|b| String::from_utf8_lossy(b).into_owned());
    let rows = outcome
        .outputs
        .iter()
        .map(|(t, records)| {
            let rows = records
                .iter()
                .map(|r| (r.partition, r.ts, text(&r.key), text(&r.payload)))
                .collect();
            (t.clone(), rows)
        })
        .collect();
    Ok((report, rows, notes))
}

/// `lowwater explain`'s text for `sql` (named `origin` in messages).
#[pyfunction]
#[pyo3(signature = (sql, origin, partitions))]
pub fn explain(sql: &str, origin: &str, partitions: BTreeMap<String, i64>) -> PyResult<String> {
    let plan = plan(sql, origin)?;
    let counts: BTreeMap<String, i32> = counts(&plan, &partitions)?.into_iter().collect();
    Ok(lowwater_sql::explain::explain(&plan, &counts))
}
