//! Replaying interval joins: pairs written as rows arrive, outer rows
//! once the watermark passes their range, a quiet side named in the
//! report, and a restart that changes nothing.

mod common;
use common::{dump, rows};
use lowwater_replay::{replay, ReplayArgs};
use lowwater_sql::plan::JobPlan;

fn row(id: i32, item: &str, s: i32) -> String {
    format!(r#"{{"id":{id},"item":"{item}","ts":"2025-09-14 12:00:{s:02}.000"}}"#)
}

fn job(kind: &str) -> Result<JobPlan, String> {
    JobPlan::from_sql(&format!(
        "CREATE TABLE orders (id INT, item STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
           WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'x:9092', 'format' = 'json');
         CREATE TABLE ships (id INT, item STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
           WITH ('connector' = 'kafka', 'topic' = 'ships', 'properties.bootstrap.servers' = 'x:9092', 'format' = 'json');
         CREATE TABLE out (oid INT, sid INT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'x:9092', 'format' = 'json');
         INSERT INTO out SELECT o.id, s.id FROM orders o {kind} JOIN ships s
           ON o.item = s.item AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '10' SECOND;"
    ))
    .map_err(|e| e.to_string())
}

#[test]
fn pairs_leave_at_once_and_outer_rows_when_the_watermark_passes() -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("lowwater-interval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    // Order 1 (a, 10 s) ships at 15 s; order 2 (b, 12 s) ships at 30 s,
    // past its 10 s; ship 3 (c) has no order.
    let orders = [
        (0, 0, row(1, "a", 10)),
        (100, 0, row(2, "b", 12)),
        (3000, 0, row(4, "d", 40)),
    ];
    let ships = [
        (200, 0, row(1, "a", 15)),
        (300, 0, row(2, "b", 30)),
        (400, 0, row(3, "c", 20)),
        (3000, 0, row(5, "d", 41)),
    ];
    let args = ReplayArgs {
        inputs: vec![
            ("orders".into(), dump(&dir, "orders", &orders)?),
            ("ships".into(), dump(&dir, "ships", &ships)?),
        ],
        drain: false,
        ..ReplayArgs::default()
    };
    let inner = replay(&job("")?, &args).map_err(|e| e.to_string())?;
    assert_eq!(
        rows(&inner),
        vec![r#"{"oid":1,"sid":1}"#, r#"{"oid":4,"sid":5}"#]
    );
    let full = replay(&job("FULL OUTER")?, &args).map_err(|e| e.to_string())?;
    // By the end the watermark is 40 s: order 2's range (12-22 s) and the
    // ships at 20 s and 30 s (reached by orders up to 30 s) have passed.
    let mut got = rows(&full);
    got.sort();
    assert_eq!(
        got,
        vec![
            r#"{"oid":1,"sid":1}"#,
            r#"{"oid":2,"sid":null}"#,
            r#"{"oid":4,"sid":5}"#,
            r#"{"oid":null,"sid":2}"#,
            r#"{"oid":null,"sid":3}"#,
        ]
    );
    // Restarted at every step: the same rows.
    let restarted = ReplayArgs {
        restarts: vec![1_757_851_200_100, 1_757_851_200_350, 1_757_851_201_000],
        ..args.clone()
    };
    let again = replay(&job("FULL OUTER")?, &restarted).map_err(|e| e.to_string())?;
    assert_eq!(rows(&again), rows(&full));
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

#[test]
fn a_quiet_partition_of_one_side_holds_the_outer_rows_and_is_named() -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("lowwater-interval-quiet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let orders: Vec<(i64, i32, String)> = (0..40)
        .map(|k| (k * 1000, 0, row(k as i32, "a", (k % 60) as i32)))
        .collect();
    let ships = [(0, 0, row(100, "z", 0))];
    let args = ReplayArgs {
        inputs: vec![
            ("orders".into(), dump(&dir, "orders", &orders)?),
            ("ships".into(), dump(&dir, "ships", &ships)?),
        ],
        partitions: vec![("ships".into(), 2)],
        drain: false,
        stall_threshold: Some(5_000),
        ..ReplayArgs::default()
    };
    let out = replay(&job("LEFT")?, &args).map_err(|e| e.to_string())?;
    assert!(
        rows(&out).is_empty(),
        "ships/1 is at MIN: no order is padded"
    );
    let stall = out.report.stalls.first().ok_or("a stall")?;
    let held = stall.held_by.as_ref().ok_or("held")?;
    assert_eq!(
        (held.topic.as_deref(), held.partition),
        (Some("ships"), Some(1))
    );
    assert!(
        stall
            .reason
            .contains("the interval join waits for its right side, table ships"),
        "{}",
        stall.reason
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
