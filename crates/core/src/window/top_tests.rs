use super::*;

fn top(end: u32) -> TopRows {
    TopRows {
        end,
        keys: 1,
        desc: 0,
        nulls_first: 1,
        width: 1,
        last_on_tie: false,
    }
}

/// Adds (order value, row id) pairs; returns (row id, rank) as written.
fn run(t: TopRows, rows: &[(Option<i64>, &str)]) -> Vec<(String, i64)> {
    let mut kept = Vec::new();
    for (k, id) in rows {
        let key = k.map_or(Value::Null, Value::Int);
        t.add(&mut kept, &[key, Value::str(id)]);
    }
    let mut out = Vec::new();
    t.finish(&kept, &mut out);
    out.chunks(t.row_width())
        .map(|r| match (&r[1], &r[0]) {
            (Value::Str(s), Value::Int(n)) => (s.to_string(), *n),
            other => panic!("{other:?}"),
        })
        .collect()
}

fn ids(v: &[(String, i64)]) -> Vec<(&str, i64)> {
    v.iter().map(|(s, n)| (s.as_str(), *n)).collect()
}

#[test]
fn row_number_keeps_the_first_n_and_ties_in_arrival_order() {
    let rows = [
        (Some(5), "a"),
        (Some(3), "b"),
        (Some(3), "c"),
        (Some(9), "d"),
        (Some(1), "e"),
        (Some(3), "f"),
    ];
    let got = run(top(3), &rows);
    assert_eq!(ids(&got), [("e", 1), ("b", 2), ("c", 3)]);
}

#[test]
fn descending_with_nulls_last() {
    let mut t = top(3);
    t.desc = 1;
    t.nulls_first = 0;
    let rows = [(None, "n"), (Some(2), "a"), (Some(7), "b"), (Some(2), "c")];
    assert_eq!(
        ids(&run(t, &rows)),
        [("b", 1), ("a", 2), ("c", 3)],
        "NULL sorts last, ties keep their arrival order"
    );
}

#[test]
fn nulls_first_rank_first() {
    let rows = [(Some(2), "a"), (None, "n"), (Some(1), "b")];
    assert_eq!(ids(&run(top(2), &rows)), [("n", 1), ("b", 2)]);
}

#[test]
fn keep_last_row_on_ties_replaces_the_kept_row() {
    let mut t = top(1);
    t.desc = 1;
    t.last_on_tie = true;
    let rows = [
        (Some(5), "a"),
        (Some(7), "b"),
        (Some(7), "c"),
        (Some(6), "d"),
    ];
    assert_eq!(ids(&run(t, &rows)), [("c", 1)]);
    // Keeping the first row: the earliest of the ties stays.
    let first = top(1);
    let rows = [
        (Some(5), "a"),
        (Some(3), "b"),
        (Some(3), "c"),
        (Some(4), "d"),
    ];
    assert_eq!(ids(&run(first, &rows)), [("b", 1)]);
}

#[test]
fn holds_at_most_n_rows_for_row_number() {
    let t = top(2);
    let mut kept = Vec::new();
    for i in 0..1000 {
        t.add(&mut kept, &[Value::Int(1000 - i), Value::Int(i)]);
        assert!(kept.len() <= 2);
    }
    assert!(heap_bytes(&kept) > 0);
}

#[test]
fn two_order_values_and_a_short_row_is_ignored() {
    let t = TopRows {
        end: 2,
        keys: 2,
        desc: 0b10,
        nulls_first: 0b01,
        width: 1,
        last_on_tie: false,
    };
    let mut kept = Vec::new();
    t.add(&mut kept, &[Value::Int(1), Value::Int(1), Value::str("a")]);
    t.add(&mut kept, &[Value::Int(1), Value::Int(5), Value::str("b")]);
    t.add(&mut kept, &[Value::Int(0)]);
    let mut out = Vec::new();
    t.finish(&kept, &mut out);
    assert_eq!(
        out,
        [
            Value::Int(1),
            Value::str("b"),
            Value::Int(2),
            Value::str("a")
        ]
    );
}

/// Through the window operator: a Top-N fires per window once the
/// watermark passes its end, one result per kept row with its rank first,
/// a late row is dropped and counted, and a checkpoint restores the kept
/// rows.
#[test]
fn in_the_window_operator_rows_fire_with_their_rank_and_late_rows_count() {
    use crate::window::aggregate::{AggFunc, AggSpec};
    use crate::window::assigner::WindowAssigner;
    use crate::window::operator::{WindowInput, WindowOperator, WindowOutput, WindowSpec};
    let t = TopRows {
        desc: 1,
        nulls_first: 0,
        ..top(2)
    };
    let spec = WindowSpec {
        assigner: WindowAssigner::tumbling(10),
        aggregates: vec![AggSpec::on(AggFunc::TopRows(t), 0)],
        allowed_lateness: 0,
        late_side_output: false,
    };
    let mut op = WindowOperator::new(spec).expect("operator");
    let mut out = Vec::new();
    let input = |ts: i64, score: i64, id: &str| WindowInput {
        ts,
        split: 0,
        key: vec![Value::str("k")],
        row: vec![Value::Int(score), Value::str(id)],
    };
    for (ts, score, id) in [(1, 5, "a"), (2, 9, "b"), (3, 7, "c"), (4, 9, "d")] {
        op.process(input(ts, score, id), &mut out).expect("process");
    }
    // A checkpoint holds the two best rows, and restores them.
    let bytes = postcard::to_allocvec(&op).expect("encode");
    let mut op: WindowOperator = postcard::from_bytes(&bytes).expect("decode");
    assert!(out.is_empty(), "nothing before the watermark");
    op.on_watermark(9, &mut out);
    let rows: Vec<Vec<Value>> = out
        .iter()
        .map(|o| match o {
            WindowOutput::Fired(r) => r.values.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        rows,
        [
            vec![Value::Int(1), Value::str("b")],
            vec![Value::Int(2), Value::str("d")]
        ]
    );
    out.clear();
    op.process(input(5, 100, "late"), &mut out).expect("late");
    assert!(out.is_empty());
    assert_eq!(op.late().total_dropped(), 1);
    assert_eq!(op.pending(), 0, "the fired window's rows are gone");
}
