//! A watermark that fires many windows at once writes their rows a few
//! thousand at a time (never splitting a window): the end of a file job's
//! input fires three 1-minute windows of 5,000 keys each, and the sink
//! holds every row once, in window then key order, with its count, and the
//! report counts every row written.

use lowwater_runtime::{run, RunArgs};
use lowwater_sql::plan::JobPlan;

const KEYS: i64 = 5_000;

#[test]
fn a_watermark_firing_many_windows_writes_every_row_in_order() {
    let dir = std::env::temp_dir().join(format!("lowwater-emit-{}", std::process::id()));
    let (input, output) = (dir.join("in"), dir.join("out"));
    std::fs::create_dir_all(&input).expect("input dir");
    let mut lines = String::new();
    for w in 0..3i64 {
        // Keys out of order; key k has (k % 3) + 1 records in each window.
        for i in 0..KEYS {
            let k = i * 7_919 % KEYS;
            for r in 0..=(k % 3) {
                let ts = lowwater_core::time::format_timestamp(w * 60_000 + r * 1_000 + i, ' ');
                lines.push_str(&format!("{{\"k\":{k},\"ts\":\"{ts}\"}}\n"));
            }
        }
    }
    std::fs::write(input.join("part-0.json"), lines).expect("input");
    let sql = format!(
        "CREATE TABLE src (k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' MINUTE)
         WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'json');
         CREATE TABLE counts (window_start TIMESTAMP(3), k BIGINT, n BIGINT)
         WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'json');
         INSERT INTO counts SELECT window_start, k, COUNT(*)
         FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
         GROUP BY window_start, window_end, k;",
        input.display(),
        output.display()
    );
    let plan = JobPlan::from_sql(&sql).expect("plans");
    let out = run(&plan, &RunArgs::default()).expect("runs");
    assert!(out.completed);
    let text = std::fs::read_to_string(output.join("part-0.json")).expect("sink file");
    let rows: Vec<(String, i64, i64)> = text
        .lines()
        .map(|l| {
            use sonic_rs::JsonValueTrait;
            let v: sonic_rs::Value = sonic_rs::from_str(l).expect("a JSON row");
            (
                v["window_start"]
                    .as_str()
                    .expect("window_start")
                    .to_string(),
                v["k"].as_i64().expect("k"),
                v["n"].as_i64().expect("n"),
            )
        })
        .collect();
    assert_eq!(rows.len() as i64, 3 * KEYS);
    // The watermark only passed the windows at the end of the input: all
    // 15,000 rows fired at once.
    for (i, (start, k, n)) in rows.iter().enumerate() {
        let w = i as i64 / KEYS;
        assert_eq!(start, &format!("1970-01-01 00:0{w}:00"), "row {i}");
        assert_eq!(*k, i as i64 % KEYS, "row {i}: window then key order");
        assert_eq!(*n, k % 3 + 1, "row {i}");
    }
    assert_eq!(out.report.totals.records_out, 3 * KEYS as u64);
    let _ = std::fs::remove_dir_all(&dir);
}
