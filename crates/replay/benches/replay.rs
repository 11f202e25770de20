//! Replay throughput: 1M clickstream records (16 partitions, the seed 000
//! shape) through the seed 000 job (1-minute TUMBLE, COUNT(*)), JSON decoding
//! included. Prints records per second for the whole replay and for the
//! dump-reading phase alone, best of three runs, measured side by side.
//!
//! `cargo bench -p lowwater-replay --bench replay` (RECORDS=n to change the size).

use std::path::PathBuf;
use std::time::Instant;

use lowwater_replay::{input, replay, ReplayArgs};
use lowwater_sql::plan::JobPlan;

mod common;
use common::generate;

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let out = f();
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(out);
    }
    (best, last.expect("at least one run"))
}

fn main() {
    let n: usize = std::env::var("RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let path = std::env::temp_dir().join(format!("lowwater-bench-{n}.jsonl"));
    if !path.exists() {
        generate(&path, n, None);
    }
    let root =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/seed000_heartbeat/job.sql");
    let sql = std::fs::read_to_string(root).expect("seed 000 job");
    let mut plan = JobPlan::from_sql(&sql).expect("plans");
    plan.settings.parallelism = 1;
    let args = ReplayArgs {
        inputs: vec![("clickstream".into(), path.clone())],
        drain: true,
        ..ReplayArgs::default()
    };
    let (load_s, loaded) = best(3, || {
        input::load(&[(0, path.clone())]).expect("loads").records
    });
    let (full_s, outcome) = best(3, || replay(&plan, &args).expect("replays"));
    assert_eq!(loaded.len(), n);
    assert_eq!(outcome.report.totals.records_in as usize, n);
    let mb = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
    println!("replay bench: {n} records ({mb:.0} MB), seed 000 job, parallelism 1, best of 3");
    println!(
        "  read + parse + sort dump:   {:>6.3} s  {:>10.0} records/s",
        load_s,
        n as f64 / load_s
    );
    println!(
        "  full replay (incl. above):  {:>6.3} s  {:>10.0} records/s",
        full_s,
        n as f64 / full_s
    );
    println!(
        "  windows out: {}, ratio full/read: {:.2}",
        outcome.report.totals.records_out,
        full_s / load_s
    );
}
