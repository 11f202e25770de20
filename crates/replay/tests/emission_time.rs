//! `CURRENT_TIMESTAMP`, `NOW()`, `LOCALTIMESTAMP` and `PROCTIME()` in a
//! window aggregation's select list are the time its row is emitted, as in
//! a Flink streaming job; replay's emission time is its virtual processing
//! time (the dump's record timestamps), so a replay writes the same times
//! every time, and each row's time is its output record's timestamp.

use std::io::Write;

use lowwater_replay::{replay, ReplayArgs};
use lowwater_sql::plan::JobPlan;

const BASE: i64 = 1_757_808_000_000; // 2025-09-14 00:00:00 UTC

/// The source table of every job here ([`sql`] and the jobs of the
/// tests follow it).
const STOCK: &str = "CREATE TABLE stock (sku STRING, qty INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'stock', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json');";

/// The records `job` (after [`STOCK`]) writes to `alerts` replaying `input`.
fn replay_alerts(job: &str, input: &std::path::Path) -> Vec<lowwater_connectors::dump::DumpRecord> {
    let plan = JobPlan::from_sql(&format!("{STOCK}\n{job}")).expect("plans");
    let args = ReplayArgs {
        inputs: vec![("stock".into(), input.to_path_buf())],
        ..ReplayArgs::default()
    };
    let mut out = replay(&plan, &args).expect("replays");
    out.outputs.remove("alerts").unwrap_or_default()
}

fn sql(select: &str) -> String {
    format!(
        "CREATE TABLE alerts (window_end TIMESTAMP(3), sku STRING, low BIGINT, alerted_at TIMESTAMP_LTZ(3), at_local TIMESTAMP(3))
  WITH ('connector' = 'print');
INSERT INTO alerts SELECT window_end, sku, MIN(qty) AS low, {select}
FROM TABLE(TUMBLE(TABLE stock, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, sku;"
    )
}

/// Records 2 s apart in event time, appended 30 s after their event time
/// (the emission lag a replay should show).
fn dump(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("stock.jsonl");
    let mut f = std::fs::File::create(&path).expect("dump");
    for i in 0..20i64 {
        let ts = BASE + i * 2_000;
        let payload = format!(
            r#"{{"sku":"s{}","qty":{},"ts":"{}"}}"#,
            i % 2,
            100 - i,
            lowwater_core::time::format_timestamp(ts, ' ')
        );
        let line = sonic_rs::json!({
            "topic": "stock", "partition": 0, "offset": i, "tstype": "create",
            "ts": ts + 30_000, "key": null, "payload": payload,
        });
        writeln!(f, "{line}").expect("write");
    }
    path
}

/// (alerted_at, at_local, the record's timestamp) of each row, in millis.
fn times(select: &str, input: &std::path::Path) -> Vec<(String, String, i64)> {
    replay_alerts(&sql(select), input)
        .iter()
        .map(|r| {
            let text = String::from_utf8_lossy(r.payload.as_deref().unwrap_or_default());
            // +I[window_end, sku, low, alerted_at, at_local]
            let fields: Vec<String> = text
                .trim_start_matches("+I[")
                .trim_end_matches(']')
                .split(", ")
                .map(str::to_string)
                .collect();
            (fields[3].clone(), fields[4].clone(), r.ts)
        })
        .collect()
}

#[test]
fn the_emission_time_is_replays_virtual_processing_time() {
    let dir = std::env::temp_dir().join(format!("lowwater-emitted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let input = dump(&dir);
    let rows = times("CURRENT_TIMESTAMP AS alerted_at, LOCALTIMESTAMP", &input);
    assert!(rows.len() >= 6, "{rows:?}");
    for (ltz, local, ts) in &rows {
        let iso = lowwater_core::time::format_timestamp(*ts, 'T');
        // Flink prints a TIMESTAMP_LTZ with its zone, a TIMESTAMP without.
        assert_eq!(
            ltz.trim_end_matches('Z'),
            iso.trim_end_matches(".000"),
            "{rows:?}"
        );
        assert_eq!(local, ltz.trim_end_matches('Z'), "{rows:?}");
        // Emitted after the 30 s the records took to arrive.
        assert!(*ts >= BASE + 30_000, "{rows:?}");
    }
    // Deterministic: the same dump gives the same times; NOW() and
    // PROCTIME() are the same time.
    assert_eq!(
        times("CURRENT_TIMESTAMP AS alerted_at, LOCALTIMESTAMP", &input),
        rows
    );
    assert_eq!(
        times("NOW(), CAST(PROCTIME() AS TIMESTAMP(3))", &input),
        rows
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_emission_time_is_refused_where_it_has_no_meaning() {
    // In a WHERE over source rows: processing time per record.
    let filtered = format!("{STOCK}\n{}", sql("CURRENT_TIMESTAMP, LOCALTIMESTAMP"))
        .replace("GROUP BY", "WHERE ts < LOCALTIMESTAMP GROUP BY");
    let e = JobPlan::from_sql(&filtered)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("processing time"), "{e}");
}

#[test]
fn the_emission_time_reaches_having_and_window_top_n() {
    let dir = std::env::temp_dir().join(format!("lowwater-emitted-rank-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let input = dump(&dir);
    let job = "CREATE TABLE alerts (window_end TIMESTAMP(3), sku STRING, low BIGINT, alerted_at TIMESTAMP_LTZ(3), at_local TIMESTAMP(3))
  WITH ('connector' = 'print');
INSERT INTO alerts SELECT window_end, sku, low, at, at FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY low, sku) AS rn
  FROM (SELECT window_start, window_end, sku, MIN(qty) AS low, CURRENT_TIMESTAMP AS at
        FROM TABLE(TUMBLE(TABLE stock, DESCRIPTOR(ts), INTERVAL '10' SECOND))
        GROUP BY window_start, window_end, sku HAVING NOW() >= window_end)
) WHERE rn <= 1;";
    let rows = replay_alerts(job, &input);
    // One row per window (4 windows of 10 s over 40 s of records), each
    // with the time it was emitted: HAVING and the ranking read it too.
    assert_eq!(rows.len(), 4, "{rows:?}");
    for r in &rows {
        let text = String::from_utf8_lossy(r.payload.as_deref().unwrap_or_default());
        let iso = lowwater_core::time::format_timestamp(r.ts, 'T');
        assert!(
            text.contains(iso.trim_end_matches(".000")),
            "{text} at {iso}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `CURRENT_DATE` is the emission time's day (UTC), in a DATE column.
#[test]
fn current_date_is_the_day_of_the_emission_time() {
    let dir = std::env::temp_dir().join(format!("lowwater-emitted-date-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let input = dump(&dir);
    let job = "CREATE TABLE alerts (sku STRING, day DATE, late BOOLEAN)
  WITH ('connector' = 'print');
INSERT INTO alerts SELECT sku, CURRENT_DATE, CURRENT_DATE > CAST(window_end AS DATE)
FROM TABLE(TUMBLE(TABLE stock, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, sku;";
    let rows: Vec<String> = replay_alerts(job, &input)
        .iter()
        .map(|r| String::from_utf8_lossy(r.payload.as_deref().unwrap_or_default()).into_owned())
        .collect();
    assert!(rows.len() >= 6, "{rows:?}");
    for r in &rows {
        assert!(r.ends_with(", 2025-09-14, false]"), "{rows:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
