//! Replaying window joins: a window's rows written when the watermark of
//! both sides passes its end, a row for a window already fired dropped and
//! counted on its partition, a quiet side named in the report, and
//! restarts that change nothing.

mod common;
use common::{dump, rows};
use lowwater_replay::{replay, ReplayArgs};
use lowwater_sql::plan::JobPlan;

fn row(id: i32, item: &str, s: i32) -> String {
    format!(r#"{{"id":{id},"item":"{item}","ts":"2025-09-14 12:00:{s:02}.000"}}"#)
}

fn job(kind: &str) -> Result<JobPlan, String> {
    let side = |t: &str, a: &str| {
        format!(
            "(SELECT * FROM TABLE(TUMBLE(TABLE {t}, DESCRIPTOR(ts), INTERVAL '10' SECOND))) {a}"
        )
    };
    JobPlan::from_sql(&format!(
        "CREATE TABLE orders (id INT, item STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
           WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'x:9092', 'format' = 'json');
         CREATE TABLE ships (id INT, item STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
           WITH ('connector' = 'kafka', 'topic' = 'ships', 'properties.bootstrap.servers' = 'x:9092', 'format' = 'json');
         CREATE TABLE out (oid INT, sid INT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'x:9092', 'format' = 'json');
         INSERT INTO out SELECT o.id, s.id FROM {} {kind} JOIN {}
           ON o.window_start = s.window_start AND o.window_end = s.window_end AND o.item = s.item;",
        side("orders", "o"),
        side("ships", "s")
    ))
    .map_err(|e| e.to_string())
}

#[test]
fn a_window_is_joined_at_its_end_and_a_row_for_a_fired_window_is_dropped() -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("lowwater-window-join-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    // Window [0 s, 10 s): orders 1 (a) and 2 (b), ship 10 (a). At 1 s of
    // arrival both sides are past 10 s, so it fires; order 3 (a, 5 s)
    // comes after that, for a window already joined: dropped, counted.
    let orders = [
        (0, 0, row(1, "a", 1)),
        (100, 0, row(2, "b", 2)),
        (1_000, 0, row(4, "c", 15)),
        (2_000, 0, row(3, "a", 5)),
    ];
    let ships = [(200, 0, row(10, "a", 3)), (1_000, 0, row(11, "d", 16))];
    let args = ReplayArgs {
        inputs: vec![
            ("orders".into(), dump(&dir, "orders", &orders)?),
            ("ships".into(), dump(&dir, "ships", &ships)?),
        ],
        drain: false,
        ..ReplayArgs::default()
    };
    let inner = replay(&job("")?, &args).map_err(|e| e.to_string())?;
    // Window [10 s, 20 s) never fires (no watermark past 20 s).
    assert_eq!(rows(&inner), vec![r#"{"oid":1,"sid":10}"#]);
    let full = replay(&job("FULL")?, &args).map_err(|e| e.to_string())?;
    assert_eq!(
        rows(&full),
        vec![r#"{"oid":1,"sid":10}"#, r#"{"oid":2,"sid":null}"#],
        "order 3 is not padded: late rows are dropped, as Flink drops them"
    );
    let orders_p0 = full
        .report
        .partitions
        .iter()
        .find(|p| p.topic == "orders")
        .ok_or("orders' partition")?;
    assert_eq!(orders_p0.late_join_rows, 1);
    // With the input drained, the second window fires too.
    let drained = ReplayArgs {
        drain: true,
        ..args.clone()
    };
    let all = replay(&job("FULL")?, &drained).map_err(|e| e.to_string())?;
    assert_eq!(
        rows(&all),
        vec![
            r#"{"oid":1,"sid":10}"#,
            r#"{"oid":2,"sid":null}"#,
            r#"{"oid":4,"sid":null}"#,
            r#"{"oid":null,"sid":11}"#,
        ]
    );
    // Restarted at every step: the same rows.
    let restarted = ReplayArgs {
        restarts: vec![1_757_851_200_100, 1_757_851_200_500, 1_757_851_201_500],
        ..drained.clone()
    };
    let again = replay(&job("FULL")?, &restarted).map_err(|e| e.to_string())?;
    assert_eq!(rows(&again), rows(&all));
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

#[test]
fn a_quiet_partition_of_one_side_holds_every_window_and_is_named() -> Result<(), String> {
    let dir =
        std::env::temp_dir().join(format!("lowwater-window-join-quiet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let orders: Vec<(i64, i32, String)> = (0..40)
        .map(|k| (k * 1000, 0, row(k as i32, "a", (k % 60) as i32)))
        .collect();
    let ships = [(0, 0, row(100, "a", 0))];
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
    assert!(rows(&out).is_empty(), "ships/1 is at MIN: no window fires");
    let stall = out.report.stalls.first().ok_or("a stall")?;
    let held = stall.held_by.as_ref().ok_or("held")?;
    assert_eq!(
        (held.topic.as_deref(), held.partition),
        (Some("ships"), Some(1))
    );
    assert!(
        stall
            .reason
            .contains("the window join waits for its right side, table ships"),
        "{}",
        stall.reason
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
