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
        "INSERT INTO converted: 101 probe rows of orders wait",
        "lowwater.state.max-join-rows (100)",
        "has not moved since the job started",
        "it is at MIN (none yet) and partition 3 of rates (versioned side) holds it",
    ] {
        assert!(e.contains(part), "{e}");
    }
    Ok(())
}
