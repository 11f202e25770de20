//! Replaying a temporal join's incident (`examples/rates_join`): a rates
//! partition that never gets a record holds every order; the report names
//! it; the waiting orders are bounded by `lowwater.state.max-join-rows`.

use std::path::PathBuf;

use lowwater_replay::{replay, ReplayArgs};
use lowwater_sql::plan::JobPlan;

fn example(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/rates_join")
        .join(file)
}

fn args() -> ReplayArgs {
    ReplayArgs {
        inputs: vec![
            ("orders".into(), example("orders.jsonl")),
            ("rates".into(), example("rates.jsonl")),
        ],
        partitions: vec![("rates".into(), 4)],
        ..ReplayArgs::default()
    }
}

fn job(file: &str, extra: &str) -> Result<JobPlan, String> {
    let sql = std::fs::read_to_string(example(file)).map_err(|e| e.to_string())?;
    JobPlan::from_sql(&format!("{extra}\n{sql}")).map_err(|e| e.to_string())
}

#[test]
fn the_quiet_rates_partition_holds_every_order_and_is_named() -> Result<(), String> {
    let plan = job("job.sql", "")?;
    let out = replay(
        &plan,
        &ReplayArgs {
            drain: false,
            ..args()
        },
    )
    .map_err(|e| e.to_string())?;
    let rows = out.outputs.get("converted").map_or(0, Vec::len);
    assert_eq!(rows, 0, "no order is joined while rates/3 is at MIN");
    let [stall] = out.report.stalls.as_slice() else {
        panic!("one stall: {:?}", out.report.stalls);
    };
    assert_eq!(stall.source, "rates");
    let held = stall.held_by.as_ref().ok_or("held by a partition")?;
    assert_eq!(
        (held.topic.as_deref(), held.partition),
        (Some("rates"), Some(3))
    );
    assert!(held.never_had_record);
    for part in [
        "the temporal join waits for its versioned side, table rates",
        "'scan.watermark.idle-timeout' on table rates",
        "1440 probe row(s) of orders waited",
    ] {
        assert!(stall.reason.contains(part), "{}", stall.reason);
    }
    Ok(())
}

#[test]
fn with_the_rates_idle_timeout_every_order_joins_its_rate() -> Result<(), String> {
    let plan = job("job_idle_timeout.sql", "")?;
    let out = replay(
        &plan,
        &ReplayArgs {
            drain: false,
            ..args()
        },
    )
    .map_err(|e| e.to_string())?;
    let rows = out.outputs.get("converted").ok_or("rows")?;
    // All but the last minute's orders (the watermark has not passed them
    // when the dump ends, and the replay does not drain).
    assert!(rows.len() >= 1430, "{}", rows.len());
    assert!(out.report.stalls.is_empty(), "{:?}", out.report.stalls);
    // Each order joins the rate of its hour: hour h's EUR rate is 114 + h % 5.
    for r in rows {
        let text = String::from_utf8_lossy(r.payload.as_deref().unwrap_or_default()).into_owned();
        let v: sonic_rs::Value = sonic_rs::from_str(&text).map_err(|e| e.to_string())?;
        use sonic_rs::JsonValueTrait;
        if v["currency"].as_str() == Some("EUR") {
            let hour: i64 = v["order_time"]
                .as_str()
                .map_or(0, |t| t[11..13].parse().unwrap_or(0));
            assert_eq!(v["rate"].as_i64(), Some(114 + hour % 5), "{text}");
        }
    }
    Ok(())
}

#[test]
fn the_waiting_orders_are_bounded_and_the_error_names_the_stall() -> Result<(), String> {
    let plan = job("job.sql", "SET 'lowwater.state.max-join-rows' = '100';")?;
    let e = match replay(&plan, &args()) {
        Ok(_) => return Err("the replay stops at the limit".into()),
        Err(e) => e.to_string(),
    };
    for part in [
        "INSERT INTO converted: 97 probe rows of orders wait for the temporal join's watermark \
         and 4 versions of rates are held",
        "lowwater.state.max-join-rows (100)",
        "has not moved since the job started",
        "it is at MIN (none yet) and partition 3 of rates (versioned side) holds it",
    ] {
        assert!(e.contains(part), "{e}");
    }
    Ok(())
}

/// A dump of `(arrival ms, payload)` records of one partition.
fn dump(dir: &std::path::Path, topic: &str, recs: &[(i64, &str)]) -> Result<PathBuf, String> {
    use lowwater_connectors::dump::{format_record, DumpRecord};
    let text: String = recs
        .iter()
        .enumerate()
        .map(|(i, (at, payload))| {
            let r = DumpRecord {
                topic: topic.to_string(),
                partition: 0,
                offset: Some(i as i64),
                ts: 1_757_851_200_000 + at,
                key: None,
                payload: Some(payload.as_bytes().to_vec()),
            };
            format_record(&r) + "\n"
        })
        .collect();
    let path = dir.join(format!("{topic}.jsonl"));
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    Ok(path)
}

#[test]
fn a_late_order_is_counted_and_joined_with_the_versions_still_held() -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("lowwater-late-join-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let order = |id: i32, s: i32| {
        format!(r#"{{"id":{id},"cur":"EUR","ts":"2025-09-14 12:00:{s:02}.000"}}"#)
    };
    let rate = |r: i32, s: i32| {
        format!(r#"{{"cur":"EUR","rate":{r},"ts":"2025-09-14 12:00:{s:02}.000"}}"#)
    };
    let orders = [
        (100, order(1, 10)),
        (1100, order(2, 30)),
        (2000, order(3, 5)),
    ];
    let rates = [
        (0, rate(100, 1)),
        (1000, rate(120, 20)),
        (2100, rate(140, 40)),
    ];
    let o: Vec<(i64, &str)> = orders.iter().map(|(a, p)| (*a, p.as_str())).collect();
    let r: Vec<(i64, &str)> = rates.iter().map(|(a, p)| (*a, p.as_str())).collect();
    let args = ReplayArgs {
        inputs: vec![
            ("orders".into(), dump(&dir, "orders", &o)?),
            ("rates".into(), dump(&dir, "rates", &r)?),
        ],
        ..ReplayArgs::default()
    };
    let plan = JobPlan::from_sql(
        "CREATE TABLE orders (id INT, cur STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
           WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'x:9092', 'format' = 'json');
         CREATE TABLE rates (cur STRING, rate INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
           WITH ('connector' = 'kafka', 'topic' = 'rates', 'properties.bootstrap.servers' = 'x:9092', 'format' = 'json');
         CREATE VIEW v AS SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY cur ORDER BY ts DESC) AS rn FROM rates) WHERE rn = 1;
         CREATE TABLE out (id INT, rate INT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'x:9092', 'format' = 'json');
         INSERT INTO out SELECT o.id, r.rate FROM orders o JOIN v FOR SYSTEM_TIME AS OF o.ts r ON o.cur = r.cur;",
    )
    .map_err(|e| e.to_string())?;
    let out = replay(&plan, &args).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    let rows: Vec<String> = out.outputs["out"]
        .iter()
        .map(|r| String::from_utf8_lossy(r.payload.as_deref().unwrap_or_default()).into_owned())
        .collect();
    // Order 1 joins the 1 s rate when both watermarks pass 10 s; order 3
    // (5 s) arrives behind the join's 20 s watermark: kept, and joined at
    // the next advance (to 30 s) with the 1 s rate, still held, after
    // order 2 (the key's rows leave in arrival order).
    assert_eq!(
        rows,
        vec![
            r#"{"id":1,"rate":100}"#,
            r#"{"id":2,"rate":120}"#,
            r#"{"id":3,"rate":100}"#
        ]
    );
    let late: Vec<(String, u64)> = out
        .report
        .partitions
        .iter()
        .map(|p| (p.table.clone(), p.late_join_rows))
        .collect();
    assert_eq!(late, vec![("orders".into(), 1), ("rates".into(), 0)]);
    Ok(())
}

/// An hourly total per currency over the converted orders: a window after
/// the join.
const HOURLY: &str = "
CREATE TABLE hourly (window_start TIMESTAMP(3), currency STRING, total BIGINT, orders BIGINT)
  WITH ('connector' = 'kafka', 'topic' = 'hourly', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json');
CREATE VIEW joined AS SELECT o.order_time, o.currency, CAST(o.amount AS BIGINT) * r.rate AS total
  FROM orders AS o JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;
INSERT INTO hourly SELECT window_start, currency, SUM(total), COUNT(*)
  FROM TABLE(TUMBLE(TABLE joined, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
  GROUP BY window_start, window_end, currency;
";

/// The example job with its INSERT replaced by [`HOURLY`].
fn hourly(file: &str) -> Result<JobPlan, String> {
    let sql = std::fs::read_to_string(example(file)).map_err(|e| e.to_string())?;
    let tables = sql.split("INSERT INTO").next().unwrap_or_default();
    JobPlan::from_sql(&format!("{tables}{HOURLY}")).map_err(|e| e.to_string())
}

#[test]
fn a_window_after_the_join_waits_for_the_quiet_rates_too() -> Result<(), String> {
    // The default threshold is 3 x the hour window: the dump is shorter.
    let no_drain = || ReplayArgs {
        drain: false,
        stall_threshold: Some(10 * 60_000),
        ..args()
    };
    // Without the idle-timeout: no window leaves; the join's stall names rates/3.
    let plan = hourly("job.sql")?;
    let out = replay(&plan, &no_drain()).map_err(|e| e.to_string())?;
    assert_eq!(out.outputs.get("hourly").map_or(0, Vec::len), 0);
    let held: Vec<_> = out
        .report
        .stalls
        .iter()
        .filter_map(|s| Some((s.source.as_str(), s.held_by.as_ref()?.partition)))
        .collect();
    assert_eq!(held, vec![("rates", Some(3))]);
    // With it: the first two hours' windows, 4 currencies each, whose
    // totals are the orders' amounts times their hour's rate.
    let plan = hourly("job_idle_timeout.sql")?;
    let out = replay(&plan, &no_drain()).map_err(|e| e.to_string())?;
    let rows = out.outputs.get("hourly").ok_or("hourly rows")?;
    assert_eq!(rows.len(), 8, "hours 0 and 1; hour 2 is still open");
    // Drained, the same windows and the last hour's.
    let out = replay(&plan, &args()).map_err(|e| e.to_string())?;
    let rows = out.outputs.get("hourly").ok_or("hourly rows")?;
    assert_eq!(rows.len(), 12);
    let orders: i64 = rows
        .iter()
        .map(|r| {
            let text =
                String::from_utf8_lossy(r.payload.as_deref().unwrap_or_default()).into_owned();
            let v: sonic_rs::Value = sonic_rs::from_str(&text).unwrap_or_default();
            use sonic_rs::JsonValueTrait;
            v["orders"].as_i64().unwrap_or(0)
        })
        .sum();
    assert_eq!(orders, 1440, "every order in one window");
    Ok(())
}

/// `tune` sweeps the idle timeout of the versioned table only (the quiet
/// side the stall names), and recommends that table's own option: the
/// orders keep theirs, so a quiet orders partition still holds the joined
/// rows it should hold.
#[test]
fn tune_sweeps_the_versioned_tables_own_idle_timeout() -> Result<(), String> {
    use lowwater_replay::tune::{tune, TuneArgs};
    let plan = job("job.sql", "")?;
    let args = TuneArgs {
        replay: args(),
        max_emission_lag: Some(300_000),
        delays: vec![lowwater_replay::tune::Delay::AsWritten],
        ..TuneArgs::default()
    };
    let tuned = tune(&plan, &args, &mut |_| {}).map_err(|e| e.to_string())?;
    for c in &tuned.candidates {
        assert_eq!(c.candidate.idle_tables, vec!["rates".to_string()]);
    }
    let choice = tuned.choice.ok_or("a choice")?;
    let chosen = choice.candidate.ok_or("a candidate meets the SLO")?;
    assert!(tuned.candidates[chosen].candidate.idle_timeout_ms.is_some());
    let [change] = choice.change.as_slice() else {
        panic!("one change: {:?}", choice.change);
    };
    assert_eq!(change.place, "table rates");
    assert!(
        change.line.starts_with("'scan.watermark.idle-timeout' = '"),
        "{}",
        change.line
    );
    Ok(())
}
