//! The Flink compatibility suite: every case under `compat/cases` is a
//! window job whose rows real Apache Flink 2.3 computed from
//! `compat/data` (stored in `compat/expected` by `scripts/flink_compat.sh`;
//! CI needs no Flink). lowwater replays the same rows, spread over the
//! case's partitions in file order, and must write the same rows: the same
//! JSON text, sorted. A case Flink rejects (`NAME.error`) must be rejected
//! here too. A case marked `-- double-tolerance: 1e-12 (why)` compares
//! its non-integer numbers within that relative tolerance (Flink adds the
//! same doubles in another order). A case marked `-- known-difference: why` is one lowwater does
//! not match yet: the test checks that it still differs (so that the mark
//! is removed when it is fixed) and lists it.
//!
//! `compat/generated` holds random window jobs of `scripts/compat_gen.py`
//! (seed 1, 300 cases) with Flink's rows; `generated_cases_give_flinks_rows`
//! checks them the same way. Two environment variables serve the
//! generator's comparison runs: `LOWWATER_COMPAT_OUT=DIR` writes lowwater's
//! rows of every case run (DIR/NAME.jsonl, or DIR/NAME.error) for
//! `scripts/compat_gen.py report`; `LOWWATER_COMPAT_ROOT=DIR` points the
//! ignored test `other_root` at another suite of the same layout (the long
//! form, e.g. /tmp/compat_long), which lists the differences and does not
//! fail on them:
//! `LOWWATER_COMPAT_ROOT=/tmp/compat_long LOWWATER_COMPAT_OUT=/tmp/lw_long
//! cargo test -p lowwater-replay --test flink_compat other_root -- --ignored`.

use std::path::{Path, PathBuf};

use lowwater_connectors::dump::{format_record, DumpRecord};
use lowwater_replay::{replay, ReplayArgs};
use lowwater_sql::plan::JobPlan;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../compat")
}

fn generated() -> PathBuf {
    root().join("generated")
}

fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("-- "))
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .map(str::trim)
}

/// Which executor runs a case: `lowwater replay`, or `lowwater run` at a
/// parallelism (reading the same dumps as fast as it can).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Executor {
    Replay,
    Run(usize),
}

/// The case's rows as lowwater writes them, sorted; or its error.
fn run_case(root: &Path, name: &str, text: &str, scratch: &Path) -> Result<Vec<String>, String> {
    run_case_with(root, name, text, scratch, Executor::Replay)
}

/// [`run_case`] with `executor`.
fn run_case_with(
    root: &Path,
    name: &str,
    text: &str,
    scratch: &Path,
    executor: Executor,
) -> Result<Vec<String>, String> {
    let data = header(text, "data").unwrap_or_else(|| panic!("{name}: no '-- data:' line"));
    let partitions: i32 = header(text, "partitions").map_or(1, |p| p.parse().expect("partitions"));
    let source = std::fs::read_to_string(root.join(format!("data/{data}.sql"))).expect("source");
    let sql = format!("{source}\n{text}").replace("{{results}}", "results");
    // Every `{{NAME}}` is a file: `events` is DATA.jsonl, any other
    // NAME.jsonl (the joins' orders and rates). Each table the job reads is
    // given a dump of its file, all at the same arrival times.
    let tables: Vec<String> = sql
        .split("{{")
        .skip(1)
        .filter_map(|t| t.split_once("}}").map(|(n, _)| n.to_string()))
        .collect();
    let mut sql = sql;
    for table in &tables {
        sql = sql.replace(&format!("{{{{{table}}}}}"), &format!("{table}.jsonl"));
    }
    let mut plan = JobPlan::from_sql(&sql).map_err(|e| e.to_string())?;
    // Each table the job reads gets the dump of the file its path names
    // (two tables may read one file: a table and its copy with a key).
    let (mut inputs, mut parts) = (Vec::new(), Vec::new());
    for t in plan.source_tables() {
        let table = &plan.tables[t];
        let Some(path) = table.options.get("path") else {
            continue;
        };
        let name = path.trim_end_matches(".jsonl");
        let file = if name == "events" { data } else { name };
        let rows = std::fs::read_to_string(root.join(format!("data/{file}.jsonl"))).expect("data");
        let mut offsets = vec![0i64; partitions as usize];
        let dump: String = rows
            .lines()
            .filter(|l| !l.trim().is_empty())
            .enumerate()
            .map(|(i, l)| {
                let p = (i as i32) % partitions;
                let r = DumpRecord {
                    topic: table.name.clone(),
                    partition: p,
                    offset: Some(offsets[p as usize]),
                    ts: 1_757_851_200_000 + i as i64 * 10,
                    key: None,
                    payload: Some(l.as_bytes().to_vec()),
                };
                offsets[p as usize] += 1;
                format_record(&r) + "\n"
            })
            .collect();
        let input = scratch.join(format!("{name}.{}.jsonl", table.name));
        std::fs::write(&input, dump).expect("write the dump");
        inputs.push((table.name.clone(), input));
        parts.push((table.name.clone(), partitions));
    }
    if let Executor::Run(p) = executor {
        plan.settings.parallelism = p;
        let out = scratch.join(format!("{name}.run{p}.jsonl"));
        let args = lowwater_runtime::RunArgs {
            inputs,
            outputs: vec![("results".to_string(), out.clone())],
            ..lowwater_runtime::RunArgs::default()
        };
        lowwater_runtime::run(&plan, &args).map_err(|e| e.to_string())?;
        let mut lines: Vec<String> = std::fs::read_to_string(&out)
            .unwrap_or_default()
            .lines()
            .map(|l| {
                use sonic_rs::JsonValueTrait;
                let v: sonic_rs::Value = sonic_rs::from_str(l).expect("a dump record");
                v["payload"].as_str().unwrap_or_default().to_string()
            })
            .collect();
        lines.sort();
        return Ok(lines);
    }
    let args = ReplayArgs {
        inputs,
        partitions: parts,
        ..ReplayArgs::default()
    };
    let out = replay(&plan, &args).map_err(|e| e.to_string())?;
    let mut lines: Vec<String> = out
        .outputs
        .get("results")
        .map(|recs| {
            recs.iter()
                .map(|r| {
                    String::from_utf8_lossy(r.payload.as_deref().unwrap_or_default()).into_owned()
                })
                .collect()
        })
        .unwrap_or_default();
    lines.sort();
    Ok(lines)
}

#[test]
fn every_case_gives_flinks_rows() {
    let (names, failures) = check_suite(&root(), 153);
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from Flink:\n{}",
        failures.len(),
        names,
        failures.join("\n")
    );
}

/// The join (and Window Top-N) cases whose rows do not depend on when
/// watermarks are emitted (no late rows), under `lowwater run` at
/// parallelism 1 and 3:
/// read from the same dumps as fast as possible, the live join subtasks
/// (keyed across subtasks at 3) give Flink's rows. `run` drives the same
/// join nodes as replay; this checks the live exchange, routing and sinks.
#[test]
fn join_cases_give_flinks_rows_under_run() {
    let scratch = std::env::temp_dir().join(format!("lowwater-compat-run-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch");
    let root = root();
    let mut failures = Vec::new();
    let mut ran = 0;
    for name in RUN_CASES {
        let text = std::fs::read_to_string(root.join(format!("cases/{name}.sql"))).expect("case");
        let want: Vec<String> =
            std::fs::read_to_string(root.join(format!("expected/{name}.jsonl")))
                .expect("Flink's rows")
                .lines()
                .map(str::to_string)
                .collect();
        for p in [1, 3] {
            ran += 1;
            match run_case_with(&root, name, &text, &scratch, Executor::Run(p)) {
                Ok(rows) if rows == want => {}
                Ok(rows) => failures.push(format!("{name} at {p}: {}", diff(&want, &rows))),
                Err(e) => failures.push(format!("{name} at {p}: {e}")),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        failures.is_empty(),
        "{} of {ran} runs differ from Flink:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The generated cases (`scripts/compat_gen.py --seed 1 --count 300 --out
/// compat/generated`, Flink's rows from `scripts/flink_compat.sh --root
/// compat/generated --batch 50`).
#[test]
fn generated_cases_give_flinks_rows() {
    let (names, failures) = check_suite(&generated(), 300);
    assert!(
        failures.is_empty(),
        "{} of {} generated cases differ from Flink:\n{}",
        failures.len(),
        names,
        failures.join("\n")
    );
}

/// The suite at `$LOWWATER_COMPAT_ROOT` (the generator's long form): lists
/// every difference, fails on none.
#[test]
#[ignore = "needs LOWWATER_COMPAT_ROOT"]
fn other_root() {
    let dir = std::env::var("LOWWATER_COMPAT_ROOT").expect("LOWWATER_COMPAT_ROOT");
    let (names, failures) = check_suite(Path::new(&dir), 0);
    println!("{} of {names} cases differ from Flink:", failures.len());
    for f in &failures {
        println!("  {f}");
    }
}

/// Runs every case of a suite (`root/cases`, `root/data`, `root/expected`)
/// and compares it with Flink's result; returns how many cases ran and the
/// differences not marked known, after listing the known ones. With
/// `LOWWATER_COMPAT_OUT=DIR` it writes each case's rows (or error) there.
fn check_suite(root: &Path, at_least: usize) -> (usize, Vec<String>) {
    let scratch = std::env::temp_dir().join(format!(
        "lowwater-compat-{}-{}",
        std::process::id(),
        root.file_name().and_then(|n| n.to_str()).unwrap_or("root")
    ));
    std::fs::create_dir_all(&scratch).expect("scratch");
    let out_dir = std::env::var_os("LOWWATER_COMPAT_OUT").map(PathBuf::from);
    if let Some(d) = &out_dir {
        std::fs::create_dir_all(d).expect("LOWWATER_COMPAT_OUT");
    }
    let mut names: Vec<String> = std::fs::read_dir(root.join("cases"))
        .expect("the suite's cases")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".sql")
                .map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= at_least,
        "the suite has its cases: {}",
        names.len()
    );
    let (mut failures, mut known) = (Vec::new(), Vec::new());
    for name in &names {
        let text = std::fs::read_to_string(root.join(format!("cases/{name}.sql"))).expect("case");
        let expected = root.join(format!("expected/{name}"));
        let got = run_case(root, name, &text, &scratch);
        if let Some(d) = &out_dir {
            let written = match &got {
                Ok(rows) => std::fs::write(
                    d.join(format!("{name}.jsonl")),
                    rows.iter().map(|r| format!("{r}\n")).collect::<String>(),
                ),
                Err(e) => std::fs::write(d.join(format!("{name}.error")), format!("{e}\n")),
            };
            written.expect("write to LOWWATER_COMPAT_OUT");
        }
        let verdict = if let Ok(err) = std::fs::read_to_string(expected.with_extension("error")) {
            match &got {
                Err(_) => Ok(()),
                Ok(rows) => Err(format!(
                    "Flink rejects it ({}), lowwater wrote {} rows",
                    err.trim(),
                    rows.len()
                )),
            }
        } else {
            let want: Vec<String> = std::fs::read_to_string(expected.with_extension("jsonl"))
                .unwrap_or_else(|_| {
                    panic!("{name}: no expected rows; run scripts/flink_compat.sh {name}")
                })
                .lines()
                .map(str::to_string)
                .collect();
            let tolerance: Option<f64> = header(&text, "double-tolerance")
                .and_then(|t| t.split_whitespace().next()?.parse().ok());
            match got {
                Ok(rows) if rows == want => Ok(()),
                Ok(rows) if tolerance.is_some_and(|t| close(&want, &rows, t)) => Ok(()),
                Ok(rows) => Err(diff(&want, &rows)),
                Err(e) => Err(format!("lowwater rejects it: {e}")),
            }
        };
        match (verdict, header(&text, "known-difference")) {
            (Ok(()), None) => {}
            (Ok(()), Some(why)) => failures.push(format!(
                "{name}: matches Flink now; remove its '-- known-difference: {why}' line"
            )),
            (Err(e), Some(why)) => known.push(format!("{name}: {why} ({e})")),
            (Err(e), None) => failures.push(format!("{name}: {e}")),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!(
        "{}: {} cases, {} known differences:",
        root.display(),
        names.len(),
        known.len()
    );
    for k in &known {
        println!("  {k}");
    }
    (names.len(), failures)
}

/// Whether two sets of JSON rows are equal with their non-integer numbers
/// within `tol` relative: for a case marked `-- double-tolerance: 1e-12
/// (why)`, where Flink adds the same doubles in another order (its two-phase
/// aggregation, or the order its batch mode feeds a group), so that only
/// the last digits differ.
fn close(want: &[String], got: &[String], tol: f64) -> bool {
    use sonic_rs::{JsonContainerTrait, JsonValueTrait};
    fn same(a: &sonic_rs::Value, b: &sonic_rs::Value, tol: f64) -> bool {
        match (a.as_object(), b.as_object()) {
            (Some(x), Some(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| y.get(&k).is_some_and(|w| same(v, w, tol)))
            }
            _ => match (a.as_f64(), b.as_f64()) {
                (Some(x), Some(y)) if a.is_f64() || b.is_f64() => {
                    x == y || (x - y).abs() <= tol * x.abs().max(y.abs())
                }
                _ => a == b,
            },
        }
    }
    want.len() == got.len()
        && want.iter().zip(got).all(|(w, g)| {
            match (
                sonic_rs::from_str::<sonic_rs::Value>(w),
                sonic_rs::from_str::<sonic_rs::Value>(g),
            ) {
                (Ok(a), Ok(b)) => same(&a, &b, tol),
                _ => w == g,
            }
        })
}

fn diff(want: &[String], got: &[String]) -> String {
    let missing: Vec<&String> = want.iter().filter(|w| !got.contains(w)).take(3).collect();
    let extra: Vec<&String> = got.iter().filter(|g| !want.contains(g)).take(3).collect();
    format!(
        "{} rows from Flink, {} from lowwater; Flink's not in lowwater's: {missing:?}; lowwater's not in Flink's: {extra:?}",
        want.len(),
        got.len()
    )
}

/// The functions and constructs lowwater supports: the README's SQL section
/// names each, and the suite runs each against Flink at least once.
const SUPPORTED: &[&str] = &[
    "UPPER(",
    "LOWER(",
    "CHAR_LENGTH(",
    "CONCAT(",
    "CONCAT_WS(",
    "SUBSTRING(",
    "TRIM(",
    "COALESCE(",
    "IF(",
    "NULLIF(",
    "ABS(",
    "MOD(",
    "POWER(",
    "SQRT(",
    "ROUND(",
    "FLOOR(",
    "CEIL(",
    "TRY_CAST(",
    "REGEXP(",
    "REGEXP_EXTRACT(",
    "REGEXP_REPLACE(",
    "JSON_VALUE(",
    "JSON_EXISTS(",
    "JSON_QUERY(",
    "EXTRACT(",
    "YEAR(",
    "QUARTER(",
    "MONTH(",
    "WEEK(",
    "DAYOFYEAR(",
    "DAYOFMONTH(",
    "DAYOFWEEK(",
    "HOUR(",
    "MINUTE(",
    "SECOND(",
    "DATE_FORMAT(",
    "TO_TIMESTAMP(",
    "TO_TIMESTAMP_LTZ(",
    "CAST(",
    "COUNT(",
    "SUM(",
    "MIN(",
    "MAX(",
    "AVG(",
    "STDDEV_POP(",
    "STDDEV_SAMP(",
    "VAR_POP(",
    "VAR_SAMP(",
    "STDDEV(",
    "VARIANCE(",
    "FIRST_VALUE(",
    "LAST_VALUE(",
    "LISTAGG(",
    "APPROX_COUNT_DISTINCT(",
    "ROW_NUMBER(",
    "RANK(",
    "DENSE_RANK(",
    "TUMBLE(",
    "HOP(",
    "CUMULATE(",
    "SESSION(",
    "TUMBLE_START(",
    "TUMBLE_END(",
    "TUMBLE_ROWTIME(",
    "HOP_START(",
    "HOP_END(",
    "SESSION_START(",
    "SESSION_END(",
    "HAVING",
    "FILTER (WHERE",
    "DISTINCT",
    "CASE",
    "LIKE",
    "ESCAPE",
    "BETWEEN",
    "DISTINCT FROM",
    "VIEW",
    "DECIMAL",
    "ROW<",
    "TIMESTAMP '",
    "DATA =>",
    "ORDER BY",
];

#[test]
fn the_readme_lists_what_the_suite_checks() {
    let readme = std::fs::read_to_string(root().join("../docs/sql.md")).expect("docs/sql.md");
    let start = readme
        .find("## The SQL that runs")
        .expect("the SQL section");
    let end = readme[start..]
        .find("\n## ")
        .map_or(readme.len(), |e| start + e);
    let squash = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let section = squash(&readme[start..end].to_ascii_uppercase());
    let mut suite = String::new();
    for dir in ["cases", "data"] {
        for e in std::fs::read_dir(root().join(dir)).expect("compat dir") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "sql") {
                suite.push_str(&std::fs::read_to_string(&p).expect("case"));
                suite.push('\n');
            }
        }
    }
    let suite = squash(&suite.to_ascii_uppercase());
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    // `n` as a whole word (its ends, where they are letters, not inside
    // a longer name), followed by `next` when given.
    let found = |text: &str, n: &str, next: Option<char>| {
        text.match_indices(n).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let rest = text[i + n.len()..].trim_start();
            let after = text[i + n.len()..].chars().next();
            let start_ok = !n.starts_with(|c: char| c.is_ascii_alphanumeric()) || !is_word(before);
            let end_ok =
                !n.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') || !is_word(after);
            start_ok && end_ok && next.is_none_or(|c| rest.starts_with(c))
        })
    };
    let mut missing = Vec::new();
    for name in SUPPORTED {
        let (n, call) = match name.strip_suffix('(') {
            Some(n) => (n, Some('(')),
            None => (*name, None),
        };
        if !found(&section, n, None) {
            missing.push(format!("{n} is not in the README's SQL section"));
        }
        if !found(&suite, n, call) {
            missing.push(format!("{name} is in no compatibility case"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The join cases `join_cases_give_flinks_rows_under_run` runs: every one
/// Flink runs, but those whose rows depend on the order records of several
/// partitions arrive in, which replay fixes (the dump's arrival times) and
/// live threads do not: a probe row late behind the watermark
/// (`temporal_late_probe_after_watermark`, and the `late` cases that are
/// known differences), and versions of one key with the same rowtime, or a
/// view's older version arriving after a newer one from another partition
/// (`temporal_partitions_three_composite_pk`,
/// `temporal_partitions_three_left_view`): the last to arrive wins, in
/// Flink too. A view deduplicated on a coarser key than the join's
/// (`temporal_view_coarser_key`) runs: both sides are routed by the view's
/// key, so its deduplication is exact. The Window Top-N and
/// deduplication cases (`rows_*`) of one partition, keyed across the
/// subtasks at 3, check the same of the ranked windows.
const RUN_CASES: &[&str] = &[
    "interval_bounds_other_side",
    "interval_equal_rowtimes",
    "interval_fraction",
    "interval_full_between",
    "interval_full_not_distinct_key",
    "interval_inner_between",
    "interval_left_between",
    "interval_left_extra_condition",
    "interval_negative_window_full",
    "interval_negative_window_inner",
    "interval_partitions_three_full",
    "interval_right_between",
    "interval_strict_bounds",
    "interval_strict_upper_left",
    "interval_symmetric_item_key",
    "interval_then_tumble_order_ts",
    "interval_then_tumble_ship_ts",
    "interval_where_both_sides",
    "rows_dedup_clicks_hop",
    "rows_dedup_first",
    "rows_dedup_last",
    "rows_dedup_session_clicks",
    "rows_topn_hop",
    "rows_topn_score",
    "rows_topn_two_keys_inner_where",
    "temporal_extra_equality_beyond_key",
    "temporal_inner_versioned_view",
    "temporal_inner_view_versions",
    "temporal_inner_where_and_expressions",
    "temporal_late_probe_version_held",
    "temporal_left_pk_versions",
    "temporal_left_primary_key_table",
    "temporal_left_residual_condition",
    "temporal_left_residual_cross_side",
    "temporal_left_versioned_view",
    "temporal_then_tumble",
    "temporal_upper_key_expression",
    "temporal_view_coarser_key",
    "temporal_view_column_renames",
    "temporal_view_select_star",
    "temporal_view_two_column_key",
    "tvf_rows_session",
    "temporal_where_both_sides_cast",
    "window_anti_not_exists",
    "window_anti_not_in_item",
    "window_anti_not_in_nulls",
    "window_full_hop",
    "window_full_item_key_partitions",
    "window_full_tumble",
    "window_inner_cumulate",
    "window_inner_no_key_window_time",
    "window_inner_tumble",
    "window_left_extra_condition",
    "window_left_tumble",
    "window_right_tumble",
    "window_semi_exists_item",
    "window_semi_in",
    "window_semi_in_hop_item",
    "window_side_where_columns",
    "window_where_over_join",
];
