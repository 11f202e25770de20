//! Replay's memory does not follow the dump's size: a 60 MB dump written
//! partition after partition (far out of arrival order, so it is sorted in
//! spilled runs) replays with a 2 MB sort buffer, in its own process, and
//! the peak resident memory grows by a fraction of the dump (reading it
//! whole, as replay used to, took about twice its size).

use std::io::Write;

use lowwater_replay::{replay, ReplayArgs};
use lowwater_sql::plan::JobPlan;

/// The process's peak resident memory in KiB (`VmHWM`).
fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

#[test]
fn a_dump_far_out_of_order_replays_in_bounded_memory() {
    let dir = std::env::temp_dir().join(format!("lowwater-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let dump = dir.join("events.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&dump).expect("dump"));
    let t = 1_757_851_200_000i64;
    let per = 75_000i64;
    let pad = "x".repeat(100);
    for p in 0..4i64 {
        for k in 0..per {
            let i = k * 4 + p;
            let event = lowwater_core::time::format_timestamp(t + i * 10, ' ');
            writeln!(
                f,
                r#"{{"topic":"events","partition":{p},"offset":{k},"ts":{},"payload":"{{\"user_id\":\"u{}\",\"pad\":\"{pad}\",\"ts\":\"{event}\"}}"}}"#,
                t + i * 10,
                i % 50
            )
            .expect("write");
        }
    }
    f.flush().expect("flush");
    drop(f);
    let size_kib = std::fs::metadata(&dump).map_or(0, |m| m.len()) / 1024;
    let plan = JobPlan::from_sql(
        "CREATE TABLE events (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
           WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
         CREATE TABLE sink (window_start TIMESTAMP(3), user_id STRING, n BIGINT) WITH ('connector' = 'blackhole');
         INSERT INTO sink SELECT window_start, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts),
           INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id;",
    )
    .expect("plans");
    let before = peak_kib();
    let out = replay(
        &plan,
        &ReplayArgs {
            inputs: vec![("events".into(), dump)],
            sort_buffer_bytes: 2 << 20,
            spill_dir: dir.clone(),
            ..ReplayArgs::default()
        },
    )
    .expect("replays");
    let grown = peak_kib().saturating_sub(before);
    assert_eq!(out.report.totals.records_in, 4 * per as u64);
    assert!(size_kib > 50 * 1024, "the dump is {size_kib} KiB");
    assert!(
        grown < size_kib / 4,
        "peak memory grew by {grown} KiB replaying a {size_kib} KiB dump"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
