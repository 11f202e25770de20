//! `lowwater tune`'s speed: the default sweep (7 idle timeouts x 3 delays,
//! 21 candidates) over a 1M-record dump of the seed 000 shape in which
//! partition 11 is silent for the middle half (a stall to tune), measured
//! side by side with one replay of the same dump. Prints wall and CPU time
//! (this process's, from /proc) and records per second per candidate.
//!
//! `cargo bench -p lowwater-replay --bench tune` (RECORDS=n for another size;
//! THREADS=n to fix the threads; the dump is generated once into the
//! temporary directory).

use std::path::PathBuf;
use std::time::Instant;

use lowwater_replay::tune::{tune, TuneArgs};
use lowwater_replay::{replay, ReplayArgs};
use lowwater_sql::plan::JobPlan;

mod common;
use common::generate;
#[path = "../../core/benches/proc/mod.rs"]
mod proc_stat;
use proc_stat::{cpu_seconds, env_num};

fn timed<T>(f: impl FnOnce() -> T) -> (f64, f64, T) {
    let (t, c) = (Instant::now(), cpu_seconds());
    let out = f();
    (t.elapsed().as_secs_f64(), cpu_seconds() - c, out)
}

fn main() {
    let n = env_num("RECORDS", 1_000_000);
    let path = std::env::temp_dir().join(format!("lowwater-bench-tune-{n}.jsonl"));
    if !path.exists() {
        generate(&path, n, Some(11));
    }
    let root =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/seed000_heartbeat/job.sql");
    let sql = std::fs::read_to_string(root).expect("seed 000 job");
    let plan = JobPlan::from_sql(&sql).expect("plans");
    let replay_args = ReplayArgs {
        inputs: vec![("clickstream".into(), path.clone())],
        drain: false,
        ..ReplayArgs::default()
    };
    let threads = std::env::var("THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let args = TuneArgs {
        replay: replay_args.clone(),
        max_emission_lag: Some(120_000),
        threads,
        ..TuneArgs::default()
    };
    let (one_wall, one_cpu, one) = timed(|| replay(&plan, &replay_args).expect("replays"));
    let (wall, cpu, tuned) = timed(|| tune(&plan, &args, &mut |_| {}).expect("tunes"));
    let k = tuned.candidates.len();
    let records = one.report.totals.records_in;
    let mb = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    println!("tune bench: {records} records ({mb:.0} MB), seed 000 job (parallelism 8), partition 11 silent for the middle half, {cores} cores");
    println!("  one replay:             {one_wall:>6.2} s wall  {one_cpu:>6.2} s CPU");
    println!(
        "  tune, {k} candidates:   {wall:>6.2} s wall  {cpu:>6.2} s CPU  ({:.0} candidate-records/s of CPU)",
        (k as u64 * records) as f64 / cpu.max(1e-9)
    );
    println!(
        "  tune / {k} replays: {:.2}x the wall time, {:.2}x the CPU time",
        wall / (k as f64 * one_wall),
        cpu / (k as f64 * one_cpu)
    );
    match tuned
        .choice
        .and_then(|c| c.candidate.map(|i| (i, c.summary)))
    {
        Some((_, summary)) => println!("  recommended: {summary}"),
        None => println!("  no candidate meets the 2 min SLO"),
    }
}
