//! An `upsert-kafka` versioned table against real Flink 2.3: the rows
//! Flink wrote from `compat/upsert/{orders,rates}.jsonl` produced to a real
//! broker (`scripts/flink_upsert.py`, which stores them as
//! `compat/upsert/expected_CASE.jsonl`; CI needs no Flink), and the rows
//! lowwater writes from the same dumps, under `replay` and under `run` at
//! parallelism 1 and 2. Case `a_*` has the rates' rowtime from the record
//! timestamp (Flink normalizes the changelog: a tombstone deletes the
//! currency's last version from that version's own time on); case `b_*`
//! reads it from the value and no metadata column (Flink's planner removes
//! the normalization: a tombstone has no time and changes nothing, and
//! lowwater counts it as skipped); case `c_*` is `b_*` reading the
//! partition too, which keeps the normalization: a's rows, though its
//! tombstones have no time.

use std::path::{Path, PathBuf};

use lowwater_replay::{replay, ReplayArgs};
use lowwater_sql::plan::JobPlan;

const CASES: [&str; 6] = [
    "a_inner", "a_left", "b_inner", "b_left", "c_inner", "c_left",
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../compat/upsert")
}

fn plan(case: &str) -> JobPlan {
    let sql = std::fs::read_to_string(dir().join(format!("{case}.sql"))).expect("the case");
    let sql = sql
        .replace("{{orders}}", "orders")
        .replace("{{rates}}", "rates")
        .replace("{{case}}", case)
        .replace("{{results}}", "results");
    JobPlan::from_sql(&sql).unwrap_or_else(|e| panic!("{case}: {e}"))
}

fn inputs() -> Vec<(String, PathBuf)> {
    ["orders", "rates"]
        .iter()
        .map(|t| (t.to_string(), dir().join(format!("{t}.jsonl"))))
        .collect()
}

fn flink(case: &str) -> Vec<String> {
    std::fs::read_to_string(dir().join(format!("expected_{case}.jsonl")))
        .expect("Flink's rows")
        .lines()
        .map(str::to_string)
        .collect()
}

fn payloads(recs: &[lowwater_connectors::dump::DumpRecord]) -> Vec<String> {
    let mut rows: Vec<String> = recs
        .iter()
        .map(|r| String::from_utf8_lossy(r.payload.as_deref().unwrap_or_default()).into_owned())
        .collect();
    rows.sort();
    rows
}

#[test]
fn replay_gives_flinks_rows_with_and_without_the_normalization() {
    for case in CASES {
        let args = ReplayArgs {
            inputs: inputs(),
            partitions: vec![("orders".into(), 2), ("rates".into(), 2)],
            ..ReplayArgs::default()
        };
        let out = replay(&plan(case), &args).unwrap_or_else(|e| panic!("{case}: {e}"));
        let rows = payloads(out.outputs.get("results").map_or(&[], Vec::as_slice));
        assert_eq!(rows, flink(case), "{case}");
        // Case b's four tombstones have no rowtime: skipped and counted.
        let skipped: u64 = out
            .report
            .partitions
            .iter()
            .filter(|p| p.table == "rates")
            .map(|p| p.records_skipped)
            .sum();
        let want = if case.starts_with('b') { 4 } else { 0 };
        assert_eq!(skipped, want, "{case}: tombstones skipped");
    }
}

#[test]
fn run_gives_flinks_rows_at_parallelism_1_and_2() {
    let scratch = std::env::temp_dir().join(format!("lowwater-upsert-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch");
    for case in CASES {
        for p in [1, 2] {
            let mut plan = plan(case);
            plan.settings.parallelism = p;
            let out = scratch.join(format!("{case}.{p}.jsonl"));
            let args = lowwater_runtime::RunArgs {
                inputs: inputs(),
                outputs: vec![("results".to_string(), out.clone())],
                ..lowwater_runtime::RunArgs::default()
            };
            lowwater_runtime::run(&plan, &args).unwrap_or_else(|e| panic!("{case} at {p}: {e}"));
            let text = std::fs::read_to_string(&out).unwrap_or_default();
            let recs: Vec<_> = text
                .lines()
                .map(|l| lowwater_connectors::dump::parse_raw(l).expect("a dump line"))
                .map(|r| lowwater_connectors::dump::DumpRecord {
                    topic: r.topic.into_owned(),
                    partition: r.partition,
                    offset: r.offset,
                    ts: r.ts,
                    key: r.key.map(|k| k.into_owned()),
                    payload: r.payload.map(|v| v.into_owned()),
                })
                .collect();
            assert_eq!(payloads(&recs), flink(case), "{case} at parallelism {p}");
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
