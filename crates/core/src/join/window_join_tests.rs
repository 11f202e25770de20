use super::*;
use crate::join::interval::RIGHT;

fn r(tag: &str) -> Row {
    vec![Value::Str(tag.into())]
}

fn k(v: i64) -> Vec<Value> {
    vec![Value::Int(v)]
}

/// The pairs as `l+r`, `l+-`, `-+r`.
fn shown(out: &[Paired]) -> Vec<String> {
    let side = |s: &Option<Row>| match s.as_ref().and_then(|r| r.first()) {
        Some(Value::Str(t)) => t.to_string(),
        _ => "-".to_string(),
    };
    out.iter()
        .map(|p| format!("{}+{}", side(&p.left), side(&p.right)))
        .collect()
}

fn always(_: &Row, _: &Row) -> Result<bool, String> {
    Ok(true)
}

/// Two left rows and two right rows of key 1 in window 999, a left row of
/// key 2 and a right row of key 3 there too, a left row of key 1 in
/// window 1999; the watermark at 999 fires the first window only.
fn fired(kind: JoinKind) -> (Vec<String>, WindowJoin) {
    let mut j = WindowJoin::new(kind);
    j.row(LEFT, 999, &k(1), r("a"));
    j.row(RIGHT, 999, &k(1), r("x"));
    j.row(LEFT, 999, &k(2), r("b"));
    j.row(LEFT, 999, &k(1), r("c"));
    j.row(RIGHT, 999, &k(3), r("z"));
    j.row(RIGHT, 999, &k(1), r("y"));
    j.row(LEFT, 1_999, &k(1), r("d"));
    let mut out = Vec::new();
    let mut m = always;
    assert_eq!(j.advance(998, &mut m, &mut out), Ok(998));
    assert!(out.is_empty(), "{:?}", shown(&out));
    assert_eq!(j.advance(999, &mut m, &mut out), Ok(999));
    (shown(&out), j)
}

#[test]
fn inner_pairs_each_left_row_with_the_right_rows_in_arrival_order() {
    let (out, j) = fired(JoinKind::Inner);
    assert_eq!(out, ["a+x", "a+y", "c+x", "c+y"]);
    assert_eq!(j.cached(), 1, "window 1999 still holds d");
}

#[test]
fn left_pads_an_unmatched_left_row_right_after_its_own_turn() {
    let (out, _) = fired(JoinKind::Left);
    // Keys in the order they first came: 1, 2, 3.
    assert_eq!(out, ["a+x", "a+y", "c+x", "c+y", "b+-"]);
}

#[test]
fn right_is_the_mirror_of_left() {
    let (out, _) = fired(JoinKind::Right);
    assert_eq!(out, ["a+x", "c+x", "a+y", "c+y", "-+z"]);
}

#[test]
fn full_pads_the_left_rows_in_turn_then_the_unmatched_right_rows() {
    let mut j = WindowJoin::new(JoinKind::Full);
    for (port, tag) in [(LEFT, "a"), (RIGHT, "x"), (LEFT, "b"), (RIGHT, "y")] {
        j.row(port, 999, &k(1), r(tag));
    }
    let mut out = Vec::new();
    // Only a with x, and b with nothing.
    let (a, x) = (r("a"), r("x"));
    let mut m = |lr: &Row, rr: &Row| -> Result<bool, String> { Ok(lr[0] == a[0] && rr[0] == x[0]) };
    j.advance(999, &mut m, &mut out).expect("fires");
    assert_eq!(shown(&out), ["a+x", "b+-", "-+y"]);
    let (out, _) = fired(JoinKind::Full);
    assert_eq!(out, ["a+x", "a+y", "c+x", "c+y", "b+-", "-+z"]);
}

#[test]
fn semi_and_anti_write_left_rows_only_once_each() {
    let (out, _) = fired(JoinKind::Semi);
    assert_eq!(out, ["a+-", "c+-"]);
    let (out, _) = fired(JoinKind::Anti);
    assert_eq!(out, ["b+-"]);
}

#[test]
fn a_null_key_never_matches_but_its_outer_rows_come_out() {
    let null = vec![Value::Null];
    for (kind, want) in [
        (JoinKind::Inner, vec![]),
        (JoinKind::Full, vec!["a+-", "-+x"]),
        (JoinKind::Semi, vec![]),
        (JoinKind::Anti, vec!["a+-"]),
    ] {
        let mut j = WindowJoin::new(kind);
        j.row(LEFT, 999, &null, r("a"));
        j.row(RIGHT, 999, &null, r("x"));
        let mut out = Vec::new();
        j.advance(1_000, &mut always, &mut out).expect("fires");
        assert_eq!(shown(&out), want, "{kind:?}");
        assert_eq!(j.cached(), 0);
    }
}

#[test]
fn a_row_whose_window_the_watermark_reached_is_dropped_and_counted_per_side() {
    let mut j = WindowJoin::new(JoinKind::Full);
    let mut out = Vec::new();
    j.advance(999, &mut always, &mut out).expect("nothing open");
    assert!(
        j.row(LEFT, 999, &k(1), r("a")),
        "window time = watermark: late"
    );
    assert!(j.row(RIGHT, 500, &k(1), r("x")));
    assert!(!j.row(RIGHT, 1_000, &k(1), r("y")));
    assert_eq!((j.late(LEFT), j.late(RIGHT)), (1, 1));
    assert_eq!(j.cached(), 1);
    j.advance(1_000, &mut always, &mut out).expect("fires");
    // The late rows were not padded, the window's own row was.
    assert_eq!(shown(&out), ["-+y"]);
}

#[test]
fn windows_fire_in_the_order_of_their_ends_and_state_goes_with_them() {
    let mut j = WindowJoin::new(JoinKind::Inner);
    j.row(LEFT, 2_999, &k(1), r("late-window"));
    j.row(RIGHT, 2_999, &k(1), r("x2"));
    j.row(LEFT, 999, &k(1), r("a"));
    j.row(RIGHT, 999, &k(1), r("x"));
    j.row(LEFT, 999, &k(1), r("a"));
    let mut out = Vec::new();
    j.advance(5_000, &mut always, &mut out).expect("fires");
    // Duplicates are kept, as Flink's list state keeps them.
    assert_eq!(shown(&out), ["a+x", "a+x", "late-window+x2"]);
    assert_eq!(j.cached(), 0);
    assert!(j.state_bytes() == 0);
    assert_eq!(j.records_in(), 5);
}

#[test]
fn a_failing_condition_is_returned() {
    let mut j = WindowJoin::new(JoinKind::Inner);
    j.row(LEFT, 999, &k(1), r("a"));
    j.row(RIGHT, 999, &k(1), r("x"));
    let mut out = Vec::new();
    let mut bad = |_: &Row, _: &Row| -> Result<bool, String> { Err("division by zero".into()) };
    assert_eq!(
        j.advance(999, &mut bad, &mut out),
        Err("division by zero".to_string())
    );
}

#[test]
fn state_survives_a_round_trip() {
    let (_, j) = fired(JoinKind::Inner);
    let bytes = postcard::to_allocvec(&j).expect("encode");
    let mut back: WindowJoin = postcard::from_bytes(&bytes).expect("decode");
    back.row(RIGHT, 1_999, &k(1), r("w"));
    let mut out = Vec::new();
    back.advance(1_999, &mut always, &mut out).expect("fires");
    assert_eq!(shown(&out), ["d+w"]);
}
