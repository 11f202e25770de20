//! Cascading window aggregations in `lowwater run`: the Flink
//! compatibility suite's cascade cases (`compat/cases/cascade_*.sql`),
//! run live on their data file, write the rows real Flink 2.3 wrote
//! (`compat/expected`), at parallelism 1 and, where the second aggregation
//! groups by the first one's keys, at parallelism 2. A cascade that needs
//! its rows to move between subtasks is refused at parallelism 2, naming
//! the way out.

use std::path::{Path, PathBuf};

use lowwater_runtime::{run, RunArgs};
use lowwater_sql::plan::JobPlan;

fn compat() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../compat")
}

fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("-- "))
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .map(str::trim)
}

/// Runs case `name` at `parallelism`: its rows, sorted, or the error.
fn run_case(name: &str, parallelism: usize) -> Result<Vec<String>, String> {
    let root = compat();
    let text = std::fs::read_to_string(root.join(format!("cases/{name}.sql"))).expect("case");
    let data = header(&text, "data").expect("a '-- data:' line");
    let scratch = std::env::temp_dir().join(format!(
        "lowwater-cascade-{}-{name}-{parallelism}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).expect("scratch");
    let events = root.join(format!("data/{data}.jsonl"));
    let results = scratch.join("results");
    let source = std::fs::read_to_string(root.join(format!("data/{data}.sql"))).expect("source");
    let sql = format!("SET 'parallelism.default' = '{parallelism}';\n{source}\n{text}")
        .replace("{{events}}", &events.display().to_string())
        .replace("{{results}}", &results.display().to_string());
    let plan = JobPlan::from_sql(&sql).map_err(|e| e.to_string())?;
    let out = run(&plan, &RunArgs::default()).map_err(|e| e.to_string())?;
    assert!(out.completed, "{name}: the bounded run completes");
    let mut rows = Vec::new();
    for f in std::fs::read_dir(&results).expect("results") {
        let path = f.expect("entry").path();
        if path
            .file_name()
            .is_some_and(|n| !n.to_string_lossy().starts_with('.'))
        {
            let text = std::fs::read_to_string(&path).expect("part file");
            rows.extend(text.lines().filter(|l| !l.is_empty()).map(String::from));
        }
    }
    rows.sort();
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(rows)
}

fn expected(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(compat().join(format!("expected/{name}.jsonl")))
        .expect("Flink's rows");
    text.lines().map(String::from).collect()
}

#[test]
fn run_writes_flinks_rows_for_every_cascade_case() {
    let mut cases: Vec<String> = std::fs::read_dir(compat().join("cases"))
        .expect("cases")
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            let name = name
                .strip_prefix("cascade_")?
                .strip_suffix(".sql")?
                .to_string();
            Some(format!("cascade_{name}"))
        })
        .filter(|n| compat().join(format!("expected/{n}.jsonl")).exists())
        .collect();
    cases.sort();
    assert!(cases.len() >= 6, "the cascade cases: {cases:?}");
    for name in &cases {
        let rows = run_case(name, 1).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(rows, expected(name), "{name} at parallelism 1");
    }
}

#[test]
fn at_parallelism_2_a_chain_of_the_same_keys_runs_and_other_keys_are_refused() {
    for name in ["cascade_tumble_rollup", "cascade_session_over_tumble"] {
        let rows = run_case(name, 2).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(rows, expected(name), "{name} at parallelism 2");
    }
    let err = run_case("cascade_other_keys", 2).expect_err("refused");
    assert!(
        err.contains("groups by other keys than the aggregation it reads")
            && err.contains("SET 'parallelism.default' = '1'"),
        "{err}"
    );
}
