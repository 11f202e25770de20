//! The record path's figures, one job shape at a time, each in a process of
//! its own so that its CPU time and peak RSS are its own:
//! - `datagen`: generated rows (16 keys) -> 1-minute TUMBLE `COUNT(*)` per
//!   key -> blackhole (no decoding: the engine alone);
//! - `json-global` / `json-keyed`: a JSON-lines file -> 1-minute TUMBLE
//!   `COUNT(*)`, `SUM`, `MIN`, `MAX` of `amount`, globally and per
//!   `user_id` (1,000 users) -> blackhole;
//! - `first-row`: the wall time from starting the `lowwater` binary on a
//!   1,000-row file job to its first output row on stdout (best of 5).
//!
//! Each throughput case prints rows, wall and CPU seconds (user + system of
//! its process, from /proc/self/stat), rows per CPU-second and the peak RSS
//! (VmHWM). All run at parallelism 1 unless `PARALLELISM` says otherwise.
//!
//! `cargo bench -p lowwater --bench paths` (DATAGEN_ROWS, JSON_ROWS and
//! CASES=datagen,json-global,... to change the sizes and the cases).

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use lowwater_runtime::{run, RunArgs};
use lowwater_sql::plan::JobPlan;

#[path = "../../core/benches/proc/mod.rs"]
mod proc_stat;
use proc_stat::{cpu_seconds, env_num, peak_rss_mb};

const CASE_VAR: &str = "LOWWATER_PATHS_CASE";

/// `rows` JSON lines of 1,000 users, event times 10 ms apart with a little
/// disorder (every 7th row 2 s back), in one file.
fn json_file(rows: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lowwater-paths-bench-{rows}"));
    let path = dir.join("part-0.json");
    if path.exists() {
        return dir;
    }
    std::fs::create_dir_all(&dir).expect("bench dir");
    let tmp = dir.join("part-0.json.tmp");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp).expect("create"));
    let day = 1_757_808_000_000i64;
    for i in 0..rows {
        let back = if i % 7 == 0 { 2_000 } else { 0 };
        let ts = day + i as i64 * 10 - back;
        writeln!(
            f,
            r#"{{"user_id":"u{}","amount":{},"ts":"{}"}}"#,
            (i * 7919) % 1000,
            (i * 31) % 500,
            lowwater_core::time::format_timestamp(ts, ' ')
        )
        .expect("write");
    }
    f.flush().expect("flush");
    drop(f);
    std::fs::rename(&tmp, &path).expect("rename");
    dir
}

fn json_job(dir: &Path, keyed: bool, sink: &str) -> String {
    let (key_col, key_sel, key_group) = if keyed {
        ("user_id STRING, ", "user_id, ", ", user_id")
    } else {
        ("", "", "")
    };
    format!(
        "CREATE TABLE src (user_id STRING, amount INT, ts TIMESTAMP(3),
           WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
           WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'json');
         CREATE TABLE totals (window_start TIMESTAMP(3), {key_col}n BIGINT, total INT, lo INT, hi INT)
           WITH ({sink});
         INSERT INTO totals SELECT window_start, {key_sel}COUNT(*), SUM(amount), MIN(amount), MAX(amount)
           FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
           GROUP BY window_start, window_end{key_group};",
        dir.display()
    )
}

fn datagen_job(rows: usize) -> String {
    format!(
        "CREATE TABLE src (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
           WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000',
                 'number-of-rows' = '{rows}', 'fields.k.min' = '0', 'fields.k.max' = '15');
         CREATE TABLE counts (window_start TIMESTAMP(3), k INT, n BIGINT) WITH ('connector' = 'blackhole');
         INSERT INTO counts SELECT window_start, k, COUNT(*)
           FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
           GROUP BY window_start, window_end, k;"
    )
}

/// The job of a throughput case and its rows.
fn case_job(case: &str) -> (String, usize) {
    let json_rows = env_num("JSON_ROWS", 2_000_000);
    match case {
        "datagen" => {
            let rows = env_num("DATAGEN_ROWS", 20_000_000);
            (datagen_job(rows), rows)
        }
        "json-global" | "json-keyed" => {
            let dir = json_file(json_rows);
            let sink = "'connector' = 'blackhole'";
            (json_job(&dir, case == "json-keyed", sink), json_rows)
        }
        other => panic!("unknown case {other}"),
    }
}

/// In the child: runs one case and prints `rows wall cpu rss` on stdout.
fn run_case(case: &str) {
    let (sql, rows) = case_job(case);
    let mut plan = JobPlan::from_sql(&sql).expect("plans");
    plan.settings.parallelism = env_num("PARALLELISM", 1);
    let (cpu0, t0) = (cpu_seconds(), Instant::now());
    let out = run(&plan, &RunArgs::default()).expect("runs");
    let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - cpu0);
    assert_eq!(
        out.report.totals.records_in as usize, rows,
        "every row read"
    );
    println!("{rows} {wall} {cpu} {}", peak_rss_mb());
}

/// In the parent: runs `case` in a child process and prints its line.
fn measure(case: &str) {
    // Make the input first, so that its writing is not the case's time.
    let _ = case_job(case);
    let exe = std::env::current_exe().expect("the bench binary");
    let out = Command::new(exe)
        .env(CASE_VAR, case)
        .stderr(Stdio::inherit())
        .output()
        .expect("the case runs");
    assert!(out.status.success(), "case {case} failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let f: Vec<f64> = text
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    let [rows, wall, cpu, rss] = f[..] else {
        panic!("case {case} printed {text:?}");
    };
    println!(
        "  {case:<12} {rows:>10.0} rows {wall:>6.2} s wall {cpu:>6.2} CPU-s {:>12.0} rows/CPU-s {:>12.0} rows/s  peak RSS {rss:>5.1} MB",
        rows / cpu.max(0.01),
        rows / wall,
    );
}

/// Wall time from starting the binary to its first row on stdout, best of
/// 5, for a 1,000-row file job.
fn first_row() {
    let dir = json_file(1_000);
    let job = dir.with_extension("sql");
    std::fs::write(&job, json_job(&dir, true, "'connector' = 'print'")).expect("job file");
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t0 = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(["run", "-q"])
            .arg(&job)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("lowwater starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("a row");
        let first = t0.elapsed().as_secs_f64();
        assert!(line.starts_with("+I["), "a row, got {line:?}");
        let _ = child.wait();
        best = best.min(first);
    }
    println!("  first-row    {:>6.1} ms wall from start to the first output row (1,000-row file job, best of 5)", best * 1e3);
}

fn main() {
    if let Ok(case) = std::env::var(CASE_VAR) {
        run_case(&case);
        return;
    }
    let all = "datagen,json-global,json-keyed,first-row";
    let cases = std::env::var("CASES").unwrap_or_else(|_| all.into());
    println!(
        "paths bench: parallelism {}, each case in its own process",
        env_num("PARALLELISM", 1)
    );
    for case in cases.split(',').filter(|c| !c.is_empty()) {
        match case {
            "first-row" => first_row(),
            c => measure(c),
        }
    }
}
