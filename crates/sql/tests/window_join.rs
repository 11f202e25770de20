//! Planning INSERTs over window joins: each side a window table
//! function's rows (filtered and cut to its select list), ON equating both
//! window bounds as Flink's planner requires, the other equalities the
//! key; what Flink would plan as a regular join refused with the fix.

use lowwater_core::join::interval::{JoinKind, LEFT, RIGHT};
use lowwater_core::Value;
use lowwater_sql::plan::JobPlan;

const TABLES: &str = "
CREATE TABLE orders (id INT, item STRING, amount INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'o.jsonl', 'format' = 'json');
CREATE TABLE ships (id INT, item STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 's.jsonl', 'format' = 'json');
CREATE TABLE plain (id INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'p.jsonl', 'format' = 'json');
CREATE TABLE out (oid INT, sid INT) WITH ('connector' = 'print');
";

const O: &str =
    "(SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND))) o";
const S: &str = "(SELECT * FROM TABLE(TUMBLE(TABLE ships, DESCRIPTOR(ts), INTERVAL '5' SECOND))) s";
const BOUNDS: &str = "o.window_start = s.window_start AND o.window_end = s.window_end";

fn plan(from: &str) -> Result<JobPlan, String> {
    JobPlan::from_sql(&format!(
        "{TABLES}INSERT INTO out SELECT o.id, s.id FROM {from};"
    ))
    .map_err(|e| e.to_string())
}

#[test]
fn the_window_bounds_go_and_the_other_equalities_are_the_key() -> Result<(), String> {
    for (kind, want) in [
        ("", JoinKind::Inner),
        ("LEFT", JoinKind::Left),
        ("RIGHT OUTER", JoinKind::Right),
        ("FULL", JoinKind::Full),
    ] {
        let p = plan(&format!(
            "{O} {kind} JOIN {S} ON {BOUNDS} AND o.item = s.item AND o.amount > s.id"
        ))?;
        let j = &p.intervals[0];
        assert_eq!(j.spec.kind, want);
        assert_eq!((j.left_key.len(), j.right_key.len()), (1, 1));
        assert!(
            j.residual.is_some(),
            "o.amount > s.id is a condition on pairs"
        );
        assert_eq!(j.what(), "window join");
        // Each side's row is its table's columns, then the window's.
        assert_eq!(j.widths, (7, 6));
    }
    // Written either way round, in any order; no key at all is one key.
    let p = plan(&format!(
        "{O} JOIN {S} ON s.window_end = o.window_end AND s.window_start = o.window_start"
    ))?;
    assert!(p.intervals[0].left_key.is_empty() && p.intervals[0].residual.is_none());
    Ok(())
}

#[test]
fn a_side_row_is_one_row_per_window_filtered_and_cut_to_its_select_list() -> Result<(), String> {
    let p = plan(
        "(SELECT id, window_start, window_end FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), \
         INTERVAL '5' SECOND, INTERVAL '10' SECOND)) WHERE amount > 1 AND window_start >= \
         TIMESTAMP '1970-01-01 00:00:00') o JOIN (SELECT id, window_start AS ws, window_end AS \
         we FROM TABLE(HOP(TABLE ships, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' \
         SECOND))) s ON o.window_start = s.ws AND o.window_end = s.we AND o.id = s.id",
    )?;
    let j = &p.intervals[0];
    let w = j.window.as_ref().ok_or("a window join")?;
    let row = [
        Value::Int(7),
        Value::Str("apple".into()),
        Value::Int(3),
        Value::Timestamp(12_000),
    ];
    let mut out = Vec::new();
    // 12 s is in [5 s, 15 s) and [10 s, 20 s).
    assert_eq!(w.side_rows(LEFT, 12_000, &row, &mut out), Ok(0));
    assert_eq!(
        out,
        [
            (
                14_999,
                vec![
                    Value::Int(7),
                    Value::Timestamp(5_000),
                    Value::Timestamp(15_000)
                ]
            ),
            (
                19_999,
                vec![
                    Value::Int(7),
                    Value::Timestamp(10_000),
                    Value::Timestamp(20_000)
                ]
            ),
        ]
    );
    // The left WHERE drops a row per window it drops.
    let cheap = [
        Value::Int(7),
        Value::Null,
        Value::Int(1),
        Value::Timestamp(12_000),
    ];
    out.clear();
    assert_eq!(w.side_rows(LEFT, 12_000, &cheap, &mut out), Ok(2));
    assert!(out.is_empty());
    let ship = [
        Value::Int(7),
        Value::Str("apple".into()),
        Value::Timestamp(3_000),
    ];
    assert_eq!(w.side_rows(RIGHT, 3_000, &ship, &mut out), Ok(0));
    assert_eq!(out.len(), 2, "[-5 s, 5 s) and [0 s, 10 s)");
    assert_eq!(j.side_key(RIGHT, &out[0].1)?, vec![Value::Int(7)]);
    // The decoder reads what the sides read: id and amount of orders (and
    // its rowtime), id of ships (and its rowtime), no item.
    assert_eq!(p.needed_columns(0), [true, false, true, true]);
    assert_eq!(p.needed_columns(1), [true, false, true]);
    Ok(())
}

#[test]
fn what_flink_plans_as_a_regular_join_is_refused_with_the_fix() {
    let cases = [
        (
            format!("{O} JOIN {S} ON o.window_start = s.window_start AND o.id = s.id"),
            "does not equate the sides' window_end",
        ),
        (
            format!("{O} JOIN {S} ON o.id = s.id"),
            "equates neither window_start nor window_end",
        ),
        (
            format!(
                "{O} JOIN (SELECT * FROM TABLE(TUMBLE(TABLE ships, DESCRIPTOR(ts), INTERVAL '10' \
                 SECOND))) s ON {BOUNDS}"
            ),
            "different window functions",
        ),
        (
            format!("{O} JOIN (SELECT id, window_end FROM TABLE(TUMBLE(TABLE ships, DESCRIPTOR(ts), INTERVAL '5' SECOND))) s ON {BOUNDS}"),
            "does not select window_start",
        ),
    ];
    for (from, want) in cases {
        let e = plan(&from).err().unwrap_or_default();
        assert!(
            e.contains(want) && e.contains("regular join") && e.contains("l.window_start"),
            "{from}: {e}"
        );
    }
}

#[test]
fn sides_that_are_not_event_time_windows_are_refused() {
    let cases = [
        (
            format!("{O} JOIN (SELECT * FROM TABLE(TUMBLE(TABLE plain, DESCRIPTOR(ts), INTERVAL '5' SECOND))) s ON {BOUNDS}"),
            "has no WATERMARK",
        ),
        (
            format!("{O} JOIN (SELECT * FROM TABLE(SESSION(TABLE ships, DESCRIPTOR(ts), INTERVAL '5' SECOND))) s ON {BOUNDS}"),
            "SESSION",
        ),
        (
            format!("{O} JOIN (SELECT * FROM ships) s ON {BOUNDS}"),
            "window table function's rows",
        ),
        (
            format!("{O} JOIN ships s ON {BOUNDS}"),
            "right side is a window table function's rows too",
        ),
        (
            format!("{O} JOIN (SELECT * FROM TABLE(TUMBLE(TABLE ships, DESCRIPTOR(ts), INTERVAL '5' SECOND))) ON {BOUNDS}"),
            "name each side",
        ),
        (
            format!("{O} JOIN (SELECT id + 1 AS id, window_start, window_end FROM TABLE(TUMBLE(TABLE ships, DESCRIPTOR(ts), INTERVAL '5' SECOND))) s ON {BOUNDS}"),
            "selects columns",
        ),
    ];
    for (from, want) in cases {
        let e = plan(&from).err().unwrap_or_default();
        assert!(e.contains(want), "{from}: {e}");
    }
}

#[test]
fn both_window_times_into_one_sink_are_refused_as_flink_refuses_them() {
    let e = JobPlan::from_sql(&format!(
        "{TABLES}CREATE TABLE times (a TIMESTAMP(3), b TIMESTAMP(3)) WITH ('connector' = 'print');
         INSERT INTO times SELECT o.window_time, s.window_time FROM {O} JOIN {S} ON {BOUNDS};"
    ))
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(
        e.contains("more than one rowtime attribute") && e.contains("window join"),
        "{e}"
    );
}

#[test]
fn in_and_exists_over_windows_are_semi_and_anti_joins() -> Result<(), String> {
    let job = |pred: &str| {
        JobPlan::from_sql(&format!(
            "{TABLES}INSERT INTO out SELECT id, amount FROM {O} WHERE {pred};"
        ))
        .map_err(|e| e.to_string())
    };
    let sub = format!("FROM {S} WHERE {BOUNDS}");
    for (pred, kind, keys) in [
        (format!("o.id IN (SELECT id {sub})"), JoinKind::Semi, 1),
        // Null-aware: no key, a condition on each pair.
        (format!("o.id NOT IN (SELECT s.id {sub})"), JoinKind::Anti, 0),
        (
            format!("EXISTS (SELECT * {sub} AND item = o.item) AND amount > 1"),
            JoinKind::Semi,
            1,
        ),
        (
            format!("NOT EXISTS (SELECT 1 FROM TABLE(TUMBLE(TABLE ships, DESCRIPTOR(ts), INTERVAL '5' SECOND)) s WHERE {BOUNDS})"),
            JoinKind::Anti,
            0,
        ),
    ] {
        let p = job(&pred)?;
        let j = &p.intervals[0];
        assert_eq!((j.spec.kind, j.left_key.len()), (kind, keys), "{pred}");
        // The select list reads the left side only: `id` is o.id.
        assert_eq!(j.outputs.len(), 2);
    }
    let p = job(&format!("o.id NOT IN (SELECT s.id {sub})"))?;
    assert!(p.intervals[0].residual.is_some());
    let p = job(&format!(
        "EXISTS (SELECT * {sub} AND item = o.item) AND amount > 1"
    ))?;
    assert!(
        p.intervals[0].filter.is_some(),
        "amount > 1 filters the left rows"
    );
    // The outer query cannot read the subquery's side.
    let e = JobPlan::from_sql(&format!(
        "{TABLES}INSERT INTO out SELECT o.id, s.id FROM {O} WHERE o.id IN (SELECT id {sub});"
    ))
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("unknown column 's.id'"), "{e}");
    for (pred, want) in [
        (
            format!("amount > 1 AND o.id IN (SELECT id {sub})"),
            "first in WHERE",
        ),
        (
            format!("o.id IN (SELECT id FROM {S})"),
            "the subquery needs WHERE",
        ),
        (
            format!("o.id IN (SELECT id, item {sub})"),
            "selects one column",
        ),
        (
            format!("o.id IN (SELECT id FROM ships s WHERE {BOUNDS})"),
            "reads a window table function's rows",
        ),
    ] {
        let e = job(&pred).err().unwrap_or_default();
        assert!(e.contains(want), "{pred}: {e}");
    }
    Ok(())
}

#[test]
fn the_operand_of_not_in_is_the_outer_querys_and_an_or_after_it_is_refused() -> Result<(), String> {
    let sub = format!("FROM {S} WHERE {BOUNDS}");
    // Both sides have `item`: the bare operand is o.item, not s.item.
    let p = JobPlan::from_sql(&format!(
        "{TABLES}INSERT INTO out SELECT id, amount FROM {O} WHERE item NOT IN (SELECT item {sub});"
    ))
    .map_err(|e| e.to_string())?;
    let j = &p.intervals[0];
    let (lw, rw) = j.widths;
    let mut l = vec![Value::Null; lw];
    let mut r = vec![Value::Null; rw];
    l[1] = Value::Str("apple".into());
    r[1] = Value::Str("pear".into());
    assert_eq!(j.matches(&l, &r), Ok(false), "apple is not pear");
    r[1] = Value::Str("apple".into());
    assert_eq!(j.matches(&l, &r), Ok(true));
    r[1] = Value::Null;
    assert_eq!(j.matches(&l, &r), Ok(true), "a NULL keeps the left row out");
    let e = JobPlan::from_sql(&format!(
        "{TABLES}INSERT INTO out SELECT id, amount FROM {O} WHERE id IN (SELECT id {sub}) AND amount > 1 OR amount < 0;"
    ))
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("put the OR in parentheses"), "{e}");
    // In parentheses it is a condition on the left rows.
    let p = JobPlan::from_sql(&format!(
        "{TABLES}INSERT INTO out SELECT id, amount FROM {O} WHERE id IN (SELECT id {sub}) AND (amount > 1 OR amount < 0);"
    ))
    .map_err(|e| e.to_string())?;
    assert!(p.intervals[0].filter.is_some());
    Ok(())
}
