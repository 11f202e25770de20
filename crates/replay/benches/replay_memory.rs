//! Replay memory and speed over large dumps: the seed 000 job over a
//! generated clickstream dump (1 GB by default) in three layouts, each
//! replayed in a child process with the default 32 MiB sort buffer: in
//! arrival order and with partitions interleaved a batch at a time (both
//! sorted in a sliding window as they are read), and partition after
//! partition (sorted in runs spilled to the temporary directory). Prints
//! wall time, records per second and each child's peak resident memory
//! (VmHWM).
//!
//! `cargo bench -p lowwater-replay --bench replay_memory` (DUMP_MB=n for
//! another size; the dumps are generated once into the temporary
//! directory).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use lowwater_replay::{replay, ReplayArgs};
use lowwater_sql::plan::JobPlan;

const DAY: i64 = 1_757_808_000_000;

/// How a dump's lines are laid out.
#[derive(Clone, Copy)]
enum Layout {
    /// In arrival order.
    Arrival,
    /// Partitions interleaved 2,000 records at a time, as `lowwater dump`
    /// writes fetched batches.
    Batches,
    /// One partition after another.
    Partitions,
}

/// The line of the `k`-th record of partition `p` (of 16): the seed 000
/// shape, about 200 bytes.
fn line(p: i64, k: i64) -> String {
    let i = k * 16 + p;
    let at = DAY + i * 3;
    let event = at - (i * 389) % 2_000;
    format!(
        r#"{{"topic":"clickstream","partition":{p},"offset":{k},"tstype":"create","ts":{at},"key":null,"payload":"{{\"user_id\":\"u{}\",\"url\":\"/p/{}\",\"event_time\":\"{}\"}}"}}"#,
        i % 5_000,
        i % 97,
        lowwater_core::time::format_timestamp(event, ' ')
    )
}

/// Writes `per` records of each of 16 partitions in `layout`.
fn generate(path: &Path, per: i64, layout: Layout) {
    let tmp = path.with_extension("part");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp).expect("create dump"));
    let mut put = |p: i64, k: i64| writeln!(f, "{}", line(p, k)).expect("write dump");
    match layout {
        Layout::Arrival => (0..per).for_each(|k| (0..16).for_each(|p| put(p, k))),
        Layout::Batches => {
            for b in 0..(per + 1_999) / 2_000 {
                for p in 0..16 {
                    (b * 2_000..((b + 1) * 2_000).min(per)).for_each(|k| put(p, k));
                }
            }
        }
        Layout::Partitions => (0..16).for_each(|p| (0..per).for_each(|k| put(p, k))),
    }
    f.flush().expect("flush");
    drop(f);
    std::fs::rename(&tmp, path).expect("rename");
}

#[path = "../../core/benches/proc/mod.rs"]
mod proc_stat;
use proc_stat::peak_rss_mb;

/// In the child: replays with `buffer` bytes and prints one line.
fn child(path: PathBuf, buffer: usize) {
    let root =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/seed000_heartbeat/job.sql");
    let sql = std::fs::read_to_string(root).expect("seed 000 job");
    let mut plan = JobPlan::from_sql(&sql).expect("plans");
    plan.settings.parallelism = 1;
    let args = ReplayArgs {
        inputs: vec![("clickstream".into(), path)],
        sort_buffer_bytes: buffer,
        ..ReplayArgs::default()
    };
    let t = Instant::now();
    let outcome = replay(&plan, &args).expect("replays");
    let s = t.elapsed().as_secs_f64();
    println!(
        "{s} {} {} {}",
        outcome.report.totals.records_in,
        outcome.report.totals.records_out,
        peak_rss_mb()
    );
}

fn main() {
    if let (Ok(path), Ok(buffer)) = (
        std::env::var("LOWWATER_BENCH_CHILD_DUMP"),
        std::env::var("LOWWATER_BENCH_CHILD_BUFFER"),
    ) {
        child(PathBuf::from(path), buffer.parse().expect("buffer"));
        return;
    }
    let mb: i64 = std::env::var("DUMP_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    // About 200 bytes a line.
    let per = mb * 1_000_000 / 200 / 16;
    let layouts = [
        ("in arrival order", Layout::Arrival, "arrival"),
        ("batches interleaved", Layout::Batches, "batches"),
        ("partition by partition", Layout::Partitions, "partitions"),
    ];
    let me = std::env::current_exe().expect("this bench");
    let run = |path: &Path, buffer: usize| -> (f64, u64, u64, f64) {
        let o = Command::new(&me)
            .env("LOWWATER_BENCH_CHILD_DUMP", path)
            .env("LOWWATER_BENCH_CHILD_BUFFER", buffer.to_string())
            .output()
            .expect("child");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        let f: Vec<&str> = text.split_whitespace().collect();
        (
            f[0].parse().unwrap_or(0.0),
            f[1].parse().unwrap_or(0),
            f[2].parse().unwrap_or(0),
            f[3].parse().unwrap_or(0.0),
        )
    };
    let default = ReplayArgs::default().sort_buffer_bytes;
    println!(
        "replay memory bench: {} records, 16 partitions, seed 000 job, parallelism 1, 32 MiB sort buffer, side by side",
        per * 16
    );
    let mut outs = Vec::new();
    for (name, layout, file) in layouts {
        let path = std::env::temp_dir().join(format!("lowwater-bench-{mb}mb-{file}.jsonl"));
        if !path.exists() {
            generate(&path, per, layout);
        }
        let size = std::fs::metadata(&path).map_or(0, |m| m.len()) as f64 / 1e6;
        let (s, n, windows, rss) = run(&path, default);
        println!(
            "  {name:<24} {size:>6.0} MB {s:>7.2} s  {:>9.0} records/s  peak RSS {rss:>6.1} MB  ({windows} rows)",
            n as f64 / s
        );
        outs.push((s, n, windows));
    }
    assert!(
        outs.iter().all(|o| o.1 == outs[0].1),
        "every replay reads every record"
    );
    assert!(
        outs.iter().all(|o| o.2 == outs[0].2),
        "every replay writes the same rows"
    );
}
