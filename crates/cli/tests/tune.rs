//! `lowwater tune`, run for real on the seed examples: every row of its
//! table is what `lowwater replay` gives for the job file with that row's
//! change written in, the recommendation is the one the numbers give, and
//! bad lists are refused with the fix.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sonic_rs::{JsonContainerTrait, JsonValueTrait, Value};

fn lowwater(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(args)
        .output()
        .expect("the lowwater binary runs")
}

fn ok(o: Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf-8 output")
}

fn example(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(rel)
        .to_str()
        .expect("utf-8 path")
        .to_string()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lowwater-tune-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn json(text: &str) -> Value {
    sonic_rs::from_str(text).expect("JSON")
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v:?}"))
}

fn ms(v: &Value) -> Option<i64> {
    v.as_i64()
}

const STRAGGLERS: &str = "seed003_overnight/stock_changes_stragglers.jsonl";

fn tune_json(job: &str, input: &str, extra: &[&str]) -> Value {
    let mut args = vec!["tune", job, "--input", input, "--format", "json"];
    args.extend_from_slice(extra);
    json(&ok(lowwater(&args)))
}

/// The job file with a candidate's `change` written in, as a person would:
/// the SET line replaces the job's own (or goes before the first table),
/// the WATERMARK line replaces the table's.
fn apply(job: &str, change: &Value) -> String {
    let mut text = job.to_string();
    for c in change.as_array().expect("change list").iter() {
        let place = c["place"].as_str().expect("place");
        let line = c["line"].as_str().expect("line");
        if place == "job" {
            let at = text.find("SET 'table.exec.source.idle-timeout'");
            match at {
                Some(i) => {
                    let end = i + text[i..].find('\n').expect("line end");
                    text.replace_range(i..end, line);
                }
                None => {
                    let i = text.find("CREATE TABLE").expect("a table");
                    text.insert_str(i, &format!("{line}\n\n"));
                }
            }
        } else {
            assert!(line.starts_with("WATERMARK FOR"), "{place}: {line}");
            let i = text.find("WATERMARK FOR").expect("a watermark");
            let end = i + text[i..].find('\n').expect("line end");
            let comma = if text[i..end].trim_end().ends_with(',') {
                ","
            } else {
                ""
            };
            text.replace_range(i..end, &format!("{line}{comma}"));
        }
    }
    text
}

/// `lowwater replay` of `job` (text) over `input`: its report and the
/// sink's rows, drained at the end or not.
fn replay(job: &str, input: &str, name: &str, drain: bool) -> (Value, Vec<Value>) {
    let file = tmp(&format!("{name}.sql"));
    std::fs::write(&file, job).expect("write job");
    let (report, out) = (tmp(&format!("{name}.json")), tmp(&format!("{name}.jsonl")));
    let out_arg = format!("stock_out_alerts={}", s(&out));
    let mut args = vec![
        "replay",
        s(&file),
        "--input",
        input,
        "--report",
        s(&report),
        "--output",
        &out_arg,
        "-q",
    ];
    if !drain {
        args.push("--no-drain");
    }
    ok(lowwater(&args));
    let report = json(&std::fs::read_to_string(&report).expect("report"));
    let rows = std::fs::read_to_string(&out)
        .expect("rows")
        .lines()
        .map(json)
        .collect();
    (report, rows)
}

/// A row's emission lag: its dump time minus its window end.
fn lag_of(row: &Value) -> i64 {
    let payload = json(row["payload"].as_str().expect("payload"));
    let end = payload["window_end"].as_str().expect("window_end");
    let end = lowwater_core::time::parse_timestamp(end).expect("a timestamp");
    row["ts"].as_i64().expect("ts") - end
}

/// The nearest-rank 99th percentile.
fn p99(mut lags: Vec<i64>) -> Option<i64> {
    lags.sort_unstable();
    let rank = (lags.len() as f64 * 0.99).ceil() as usize;
    lags.get(rank.max(1) - 1).copied()
}

#[test]
fn every_row_is_a_replay_of_the_job_with_its_change_written_in() {
    let job_path = example("seed003_overnight/job.sql");
    let job = std::fs::read_to_string(&job_path).expect("job");
    let input = format!("stock_changes={}", example(STRAGGLERS));
    let t = tune_json(&job_path, &input, &["--max-emission-lag", "2 min"]);
    let cands = t["candidates"].as_array().expect("candidates");
    assert_eq!(cands.len(), 21, "7 idle timeouts x 3 delays");
    let mut seen_drops = std::collections::BTreeSet::new();
    for (i, c) in cands.iter().enumerate() {
        let text = apply(&job, &c["change"]);
        let (report, rows) = replay(&text, &input, &format!("c{i}"), false);
        let (_, drained) = replay(&text, &input, &format!("c{i}d"), true);
        let what = format!("candidate {i}: {}", c["candidate"]);
        let sink = &c["sinks"][0];
        let rs = &report["sinks"][0];
        assert_eq!(u(&sink["windows_emitted"]), u(&rs["window_rows"]), "{what}");
        assert_eq!(u(&sink["windows_emitted"]), rows.len() as u64, "{what}");
        assert_eq!(
            ms(&sink["max_emission_lag_ms"]),
            ms(&rs["max_emission_lag_ms"]),
            "{what}"
        );
        assert_eq!(
            ms(&sink["p99_emission_lag_ms"]),
            p99(rows.iter().map(lag_of).collect()),
            "{what}"
        );
        // Draining fires what was still open: the rows after the prefix.
        assert_eq!(&drained[..rows.len()], &rows[..], "{what}");
        let opened = &drained[rows.len()..];
        assert_eq!(u(&sink["open_at_end"]), opened.len() as u64, "{what}");
        let wait = opened.iter().map(lag_of).filter(|l| *l >= 0).max();
        assert_eq!(ms(&sink["open_wait_ms"]), wait, "{what}");
        let totals = &report["totals"];
        assert_eq!(
            u(&c["late_dropped"]),
            u(&totals["late_records_dropped"]),
            "{what}"
        );
        for p in report["partitions"].as_array().expect("partitions").iter() {
            let dropped = u(&p["late_records_dropped"]);
            let listed = c["late"]
                .as_array()
                .expect("late")
                .iter()
                .find(|l| l["partition"].as_i64() == p["partition"].as_i64())
                .map_or(0, |l| u(&l["dropped"]));
            assert_eq!(listed, dropped, "{what}: partition {}", p["partition"]);
        }
        let stalls = report["stalls"].as_array().expect("stalls");
        assert_eq!(u(&c["stalls"]["count"]), stalls.len() as u64, "{what}");
        let longest = stalls
            .iter()
            .filter_map(|s| s["duration_ms"].as_i64())
            .max();
        assert_eq!(ms(&c["stalls"]["longest_ms"]), longest, "{what}");
        seen_drops.insert(u(&c["late_dropped"]));
    }
    // The stragglers make the trade visible: 0, 1 and 3 drops occur.
    assert_eq!(seen_drops.into_iter().collect::<Vec<_>>(), vec![0, 1, 3]);
}

#[test]
fn seed003_recommends_one_minute_and_states_the_trade() {
    let job = example("seed003_overnight/job.sql");
    let input = format!("stock_changes={}", example(STRAGGLERS));
    let t = tune_json(&job, &input, &["--max-emission-lag", "2 min"]);
    let choice = &t["choice"];
    let i = choice["candidate"].as_u64().expect("a choice") as usize;
    let chosen = &t["candidates"][i];
    assert_eq!(
        chosen["candidate"]["idle_timeout_ms"].as_i64(),
        Some(60_000)
    );
    assert_eq!(
        chosen["candidate"]["delays_ms"]["stock_changes"].as_i64(),
        Some(30_000)
    );
    assert_eq!(u(&chosen["late_dropped"]), 1);
    assert_eq!(
        choice["summary"].as_str(),
        Some(
            "idle-timeout 1 min: windows leave within 1m 40s; 1 record of partition 7 \
             would have been dropped over these 3h 59m"
        )
    );
    // The text form: the table marks the choice, then the change to make.
    let text = ok(lowwater(&[
        "tune",
        &job,
        "--input",
        &input,
        "--max-emission-lag",
        "2 min",
    ]));
    assert!(
        text.contains("change (job): SET 'table.exec.source.idle-timeout' = '1 min';"),
        "{text}"
    );
    let marked: Vec<&str> = text.lines().filter(|l| l.starts_with('*')).collect();
    assert_eq!(marked.len(), 1, "{text}");
    assert!(
        marked[0].contains("1 min") && marked[0].contains("1 (p7: 1)"),
        "{text}"
    );

    // The dump without stragglers: nothing is dropped at any timeout, so
    // the soonest within the SLO wins, and the job as written is refused.
    let plain = format!(
        "stock_changes={}",
        example("seed003_overnight/stock_changes.jsonl")
    );
    let t = tune_json(
        &job,
        &plain,
        &["--max-emission-lag", "1 min", "--max-late", "0"],
    );
    let i = t["choice"]["candidate"].as_u64().expect("a choice") as usize;
    assert_eq!(
        t["candidates"][i]["candidate"]["idle_timeout_ms"].as_i64(),
        Some(10_000)
    );
    assert_eq!(u(&t["candidates"][0]["late_dropped"]), 0);
}

#[test]
fn seed000_retired_producer_never_emits_with_idleness_disabled() {
    let job = example("seed000_heartbeat/job.sql");
    let input = format!(
        "clickstream={}",
        example("seed000_heartbeat/clickstream_retired.jsonl")
    );
    let t = tune_json(
        &job,
        &input,
        &[
            "--partitions",
            "clickstream=16",
            "--max-emission-lag",
            "2 min",
        ],
    );
    let mut disabled = 0;
    for c in t["candidates"].as_array().expect("candidates").iter() {
        let sink = &c["sinks"][0];
        if c["candidate"]["idle_timeout_ms"].is_null() {
            disabled += 1;
            assert_eq!(u(&sink["windows_emitted"]), 0, "{c:?}");
            assert!(u(&sink["open_at_end"]) > 0, "{c:?}");
            assert_eq!(c["stalls"]["held_by"].as_str(), Some("clickstream/11"));
        } else {
            assert!(u(&sink["windows_emitted"]) > 0, "{c:?}");
        }
    }
    assert_eq!(disabled, 3, "one per delay");
    let i = t["choice"]["candidate"].as_u64().expect("a choice") as usize;
    assert!(!t["candidates"][i]["candidate"]["idle_timeout_ms"].is_null());
    // The table shows how long the held windows had waited, as a floor.
    let text = ok(lowwater(&[
        "tune",
        &job,
        "--input",
        &input,
        "--partitions",
        "clickstream=16",
        "--idle-timeout",
        "disabled",
        "--delay",
        "as written",
    ]));
    let row = text
        .lines()
        .find(|l| l.contains("disabled"))
        .expect("the disabled row");
    assert!(
        row.contains(">= 28m 55s") && row.contains("clickstream/11"),
        "{text}"
    );
    assert!(
        text.contains("give --max-emission-lag (the SLO) and/or --max-late N"),
        "{text}"
    );
}

#[test]
fn when_nothing_meets_both_it_says_which_constraint_binds() {
    let job = example("seed003_overnight/job.sql");
    let input = format!("stock_changes={}", example(STRAGGLERS));
    let t = tune_json(
        &job,
        &input,
        &[
            "--max-emission-lag",
            "1 min",
            "--max-late",
            "0",
            "--delay",
            "as written",
        ],
    );
    let choice = &t["choice"];
    assert!(choice["candidate"].is_null(), "{choice:?}");
    let why = choice["binding"].as_str().expect("binding");
    assert!(
        why.starts_with("the SLO and the bound on dropped records cannot both be met"),
        "{why}"
    );
    assert!(
        why.contains("with at most 0 records dropped, windows leave within"),
        "{why}"
    );
    assert!(
        why.contains("within the 1m 0s SLO, the fewest dropped is 3 records"),
        "{why}"
    );

    // The SLO can come from the job: a sink's lowwater.sink.max-emission-lag.
    let text = std::fs::read_to_string(&job).expect("job").replace(
        "'topic' = 'stock_out_alerts',",
        "'topic' = 'stock_out_alerts', 'lowwater.sink.max-emission-lag' = '2 min',",
    );
    let file = tmp("slo.sql");
    std::fs::write(&file, text).expect("write job");
    let t = tune_json(s(&file), &input, &["--idle-timeout", "disabled,1 min"]);
    assert_eq!(t["max_emission_lag_ms"].as_i64(), Some(120_000));
    assert!(t["slo_from"]
        .as_str()
        .is_some_and(|f| f.contains("of stock_out_alerts")));
    let i = t["choice"]["candidate"].as_u64().expect("a choice") as usize;
    assert_eq!(
        t["candidates"][i]["candidate"]["idle_timeout_ms"].as_i64(),
        Some(60_000)
    );
}

/// Late records a late-data sink takes are late too: tune shows them in
/// their own column, counts them against --max-late and says so in the
/// trade; and when another candidate is chosen while the job as written
/// meets the limits too, it says that.
#[test]
fn routed_late_records_count_against_the_bound_and_the_job_as_written_is_named() {
    let job = example("seed003_overnight/job.sql");
    let text = std::fs::read_to_string(&job).expect("job").replace(
        "  'format' = 'json'\n);\n\nCREATE TABLE stock_out_alerts",
        "  'format' = 'json',\n  'late-data.sink' = 'late_changes'\n);\n\nCREATE TABLE \
         late_changes (sku STRING, available_qty INT, changed_at TIMESTAMP(3)) WITH \
         ('connector' = 'blackhole');\n\nCREATE TABLE stock_out_alerts",
    );
    assert!(text.contains("late_changes"), "the job changed");
    let file = tmp("routed.sql");
    std::fs::write(&file, text).expect("write");
    let input = format!("stock_changes={}", example(STRAGGLERS));
    let args = ["--max-late", "0"];
    let t = tune_json(s(&file), &input, &args);
    let candidates = t["candidates"].as_array().expect("candidates");
    // An idle timeout of 1 minute makes partition 7's stragglers late: the
    // late-data sink takes them (none dropped).
    let one_minute = candidates
        .iter()
        .find(|c| {
            c["candidate"]["idle_timeout_ms"].as_u64() == Some(60_000)
                && c["candidate"]["delay"].as_str() == Some("as_written")
        })
        .expect("the 1 min candidate");
    assert!(u(&one_minute["late_routed"]) > 0, "{one_minute:?}");
    assert_eq!(u(&one_minute["late_dropped"]), 0, "{one_minute:?}");
    // Routed records count against --max-late 0: the choice has none.
    let i = t["choice"]["candidate"].as_u64().expect("a choice") as usize;
    let chosen = &candidates[i];
    assert_eq!(
        u(&chosen["late_routed"]) + u(&chosen["late_dropped"]),
        0,
        "{chosen:?}"
    );
    // The job as written (no idle timeout) has no late record: when another
    // is recommended, the note says the job as written meets the bound.
    if chosen["candidate"]["as_written"].as_bool() != Some(true) {
        let note = t["choice"]["as_written"].as_str().unwrap_or_default();
        assert!(
            note.starts_with("the job as written already meets at most 0 records late ("),
            "{t:?}"
        );
    }
    let mut cmd = vec!["tune", s(&file), "--input", &input];
    cmd.extend(args);
    let out = ok(lowwater(&cmd));
    assert!(out.contains("late routed"), "{out}");
    assert!(
        out.contains("bound: at most 0 late records (dropped, or routed to a late-data sink)"),
        "{out}"
    );
    // The trade names routed records.
    let t = tune_json(
        s(&file),
        &input,
        &[
            "--idle-timeout",
            "1 min",
            "--delay",
            "as written",
            "--max-late",
            "10",
        ],
    );
    let summary = t["choice"]["summary"].as_str().unwrap_or_default();
    assert!(
        summary.contains("late would have gone to the late-data sink instead of their windows"),
        "{summary}"
    );
}

#[test]
fn bad_lists_and_jobs_are_refused_with_the_fix() {
    let job = example("seed003_overnight/job.sql");
    let input = format!("stock_changes={}", example(STRAGGLERS));
    for (flag, value, says) in [
        ("--idle-timeout", "30", "did you mean '30 s'"),
        ("--delay", "x0", "x2, x4"),
        ("--max-emission-lag", "soon", "is not a duration"),
    ] {
        let o = lowwater(&["tune", &job, "--input", &input, flag, value]);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{flag} {value}: {err}");
    }
    let file = tmp("no_watermark.sql");
    std::fs::write(
        &file,
        "CREATE TABLE e (k STRING, ts TIMESTAMP(3)) WITH ('connector' = 'datagen');
         CREATE TABLE o (k STRING, n BIGINT) WITH ('connector' = 'blackhole');
         INSERT INTO o SELECT k, COUNT(*) FROM e GROUP BY k;",
    )
    .expect("write job");
    let o = lowwater(&["tune", s(&file), "--input", "e=x.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("line 3") && err.contains("needs a window"),
        "{err}"
    );
    let o = lowwater(&["tune", &job, "--input", "stock_changes=/nonexistent.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.matches("No such file").count(),
        1,
        "the file and the cause, once: {err}"
    );
}

#[test]
fn a_progress_bar_on_a_terminal_and_none_when_piped() {
    let job = example("seed003_overnight/job.sql");
    let input = format!("stock_changes={}", example(STRAGGLERS));
    // A pseudo-terminal from util-linux's `script`.
    let cmd = format!(
        "{} tune {job} --input {input} --idle-timeout '1 min' --delay 'as written'",
        env!("CARGO_BIN_EXE_lowwater")
    );
    let o = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .expect("util-linux's script runs");
    let tty = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{tty}");
    assert!(
        tty.contains("reading  ") || tty.contains("replaying "),
        "no progress bar on a terminal: {tty}"
    );
    let piped = lowwater(&["tune", &job, "--input", &input, "--delay", "x2"]);
    assert!(piped.status.success());
    assert!(
        piped.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
}
