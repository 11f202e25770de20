//! Planning INSERTs over event-time interval joins: the time bounds from
//! the ON condition as Flink's planner reads them (BETWEEN, the four
//! comparisons either way round, strict bounds moved by 1 ms, an
//! equality), the key and the rest, and regular joins refused.

use lowwater_core::join::interval::JoinKind;
use lowwater_sql::plan::JobPlan;

const TABLES: &str = "
CREATE TABLE orders (id INT, item STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'o.jsonl', 'format' = 'json');
CREATE TABLE ships (id INT, item STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 's.jsonl', 'format' = 'json');
CREATE TABLE out (oid INT, sid INT) WITH ('connector' = 'print');
";

fn bounds(kind: &str, on: &str) -> Result<(JoinKind, i64, i64, usize, bool), String> {
    let p = JobPlan::from_sql(&format!(
        "{TABLES}INSERT INTO out SELECT o.id, s.id FROM orders o {kind} JOIN ships s ON {on};"
    ))
    .map_err(|e| e.to_string())?;
    let j = &p.intervals[0];
    Ok((
        j.spec.kind,
        j.spec.lower,
        j.spec.upper,
        j.left_key.len(),
        j.residual.is_some(),
    ))
}

#[test]
fn the_time_bounds_are_read_as_flinks_planner_reads_them() -> Result<(), String> {
    // s.ts in [o.ts - 10 s, o.ts + 20 s]: o.ts - s.ts in [-20 s, 10 s].
    assert_eq!(
        bounds(
            "",
            "o.item = s.item AND s.ts BETWEEN o.ts - INTERVAL '10' SECOND AND o.ts + INTERVAL '20' SECOND"
        )?,
        (JoinKind::Inner, -20_000, 10_000, 1, false)
    );
    // Strict comparisons move a bound by 1 ms; either side on the left.
    assert_eq!(
        bounds(
            "LEFT OUTER",
            "o.item = s.item AND o.ts > s.ts - INTERVAL '1' MINUTE AND s.ts > o.ts"
        )?,
        (JoinKind::Left, -59_999, -1, 1, false)
    );
    assert_eq!(
        bounds("FULL", "(s.item = o.item) AND s.ts <= o.ts AND o.ts < s.ts + INTERVAL '5' SECOND AND o.id > s.id")?,
        (JoinKind::Full, 0, 4_999, 1, true)
    );
    // One equality is a window of one instant; no key is a global join.
    assert_eq!(
        bounds("RIGHT", "o.ts = s.ts + INTERVAL '2' SECOND")?,
        (JoinKind::Right, 2_000, 2_000, 0, false)
    );
    Ok(())
}

#[test]
fn a_join_without_both_time_bounds_is_a_regular_join_and_refused() {
    for on in [
        "o.item = s.item",
        "o.item = s.item AND s.ts >= o.ts",
        "o.item = s.item AND s.ts >= o.ts AND s.ts >= o.ts - INTERVAL '1' SECOND",
    ] {
        let e = bounds("", on).err().unwrap_or_default();
        assert!(
            e.contains("regular join") && e.contains("BETWEEN"),
            "{on}: {e}"
        );
    }
}

#[test]
fn a_window_over_an_interval_join_reads_either_rowtime_and_nothing_else() -> Result<(), String> {
    let job = |time: &str| {
        JobPlan::from_sql(&format!(
            "{TABLES}CREATE TABLE hourly (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
             CREATE VIEW j AS SELECT o.id AS oid, o.ts AS ots, s.ts AS sts, CAST(s.ts AS TIMESTAMP(3)) AS plain
               FROM orders o JOIN ships s ON o.item = s.item AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '1' MINUTE;
             INSERT INTO hourly SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR({time}),
               INTERVAL '1' HOUR)) GROUP BY window_start, window_end;"
        ))
        .map_err(|e| e.to_string())
    };
    for t in ["ots", "sts"] {
        let p = job(t)?;
        assert_eq!(p.intervals[0].into, Some(0));
        assert_eq!(p.pipelines[0].first().interval, Some(0));
    }
    let e = job("plain").err().unwrap_or_default();
    assert!(e.contains("must name a time attribute"), "{e}");
    Ok(())
}
