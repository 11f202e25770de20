//! The interval join alone, through the operator harness: pairs as rows
//! arrive, outer rows padded when the watermark passes their range, late
//! rows, NULL keys, the delayed output watermark, a quiet side named, the
//! epoch quirk, restore, and a property against a model.

use std::collections::BTreeSet;

use hashbrown::HashMap;
use proptest::prelude::*;

use super::*;
use crate::dataflow::harness::{Emitted, OperatorHarness};
use crate::time::secs;
use crate::value::Key;

/// A batch of (key, rowtime, value) rows: the key is the join key, the row
/// is `[value]` (a key "-" is NULL).
fn batch(rows: &[(&str, Timestamp, i64)]) -> InputBatch {
    let mut b = InputBatch::default();
    for (k, ts, v) in rows {
        let key = match *k {
            "-" => Value::Null,
            k => Value::from(k),
        };
        b.push(*ts, 0, &mut vec![key], &mut vec![Value::Int(*v)]);
    }
    b
}

/// (left value, right value) of the rows emitted so far (-1: padded).
fn pairs(h: &OperatorHarness<IntervalJoin>) -> Vec<(i64, i64)> {
    let v = |r: &Option<Row>| r.as_ref().and_then(|r| r[0].as_int()).unwrap_or(-1);
    h.records_out()
        .iter()
        .map(|p| (v(&p.left), v(&p.right)))
        .collect()
}

/// `b.ts BETWEEN a.ts - 1 min AND a.ts + 2 min` (a left, b right):
/// `a.ts - b.ts` in [-2 min, 1 min].
fn spec(kind: JoinKind) -> IntervalSpec {
    IntervalSpec {
        kind,
        lower: -secs(120),
        upper: secs(60),
        min_cleanup: 0,
    }
}

fn harness(kind: JoinKind) -> OperatorHarness<IntervalJoin> {
    OperatorHarness::new(IntervalJoin::new(spec(kind)), &[1, 1]).expect("two ports")
}

#[test]
fn rows_pair_as_they_arrive_within_the_bounds_and_the_watermark_trails_by_the_larger_size() {
    let mut h = harness(JoinKind::Inner);
    h.records(LEFT, 0, batch(&[("k", secs(1000), 1)]));
    // 1000 - 1100 = -100 s: in [-120, 60]; 1000 - 1130: -130 s, out.
    h.records(
        RIGHT,
        0,
        batch(&[("k", secs(1100), 10), ("k", secs(1130), 11)]),
    );
    // 950: 1000 - 950 = 50 s, in; 930: 70 s, out.
    h.records(
        RIGHT,
        0,
        batch(&[("k", secs(950), 12), ("k", secs(930), 13)]),
    );
    // Another key never pairs.
    h.records(RIGHT, 0, batch(&[("j", secs(1000), 14)]));
    assert_eq!(
        pairs(&h),
        vec![(1, 10), (1, 12)],
        "at once, no watermark needed"
    );
    h.watermark(LEFT, 0, secs(2000));
    h.watermark(RIGHT, 0, secs(2000));
    // The input's 2000 s minus max(120 s, 60 s).
    assert_eq!(h.emitted().last(), Some(&Emitted::Watermark(secs(1880))));
    assert_eq!(h.gauges().open_states, 0, "every row expired");
}

#[test]
fn outer_rows_are_padded_when_the_watermark_passes_their_range() {
    let mut h = harness(JoinKind::Full);
    h.records(
        LEFT,
        0,
        batch(&[("k", secs(1000), 1), ("k", secs(5000), 2)]),
    );
    h.records(
        RIGHT,
        0,
        batch(&[("k", secs(1050), 10), ("j", secs(3000), 11)]),
    );
    assert_eq!(pairs(&h), vec![(1, 10)]);
    // Left 5000 waits for right rows up to 5120; right 3000 (key j) for
    // left rows up to 3060.
    h.watermark(LEFT, 0, secs(3100));
    h.watermark(RIGHT, 0, secs(3100));
    assert_eq!(
        pairs(&h),
        vec![(1, 10), (-1, 11)],
        "j's right row, never joined"
    );
    h.watermark(LEFT, 0, secs(6000));
    h.watermark(RIGHT, 0, secs(6000));
    assert_eq!(pairs(&h), vec![(1, 10), (-1, 11), (2, -1)]);
}

#[test]
fn a_row_behind_the_watermark_joins_what_is_cached_and_is_not_kept() {
    let mut h = harness(JoinKind::Left);
    h.records(RIGHT, 0, batch(&[("k", secs(1000), 10)]));
    h.watermark(LEFT, 0, secs(1050));
    h.watermark(RIGHT, 0, secs(1050));
    // Left 900 reaches right rows up to 1020: the watermark (1050) passed
    // it, so it is late: it pairs with the cached 1000 and is not cached.
    h.records(LEFT, 0, batch(&[("k", secs(900), 1)]));
    // Left 800 reaches up to 920: nothing cached there; LEFT pads it now.
    h.records(LEFT, 0, batch(&[("k", secs(800), 2)]));
    assert_eq!(pairs(&h), vec![(1, 10), (2, -1)]);
    assert_eq!(h.operator().late(LEFT), 2);
    assert_eq!(h.operator().late(RIGHT), 0);
}

#[test]
fn a_null_key_never_pairs_but_an_outer_row_with_it_is_padded() {
    let mut h = harness(JoinKind::Left);
    h.records(LEFT, 0, batch(&[("-", secs(1000), 1)]));
    h.records(RIGHT, 0, batch(&[("-", secs(1000), 10)]));
    assert!(pairs(&h).is_empty(), "SQL =: NULL is not equal to NULL");
    h.watermark(LEFT, 0, secs(9000));
    h.watermark(RIGHT, 0, secs(9000));
    assert_eq!(pairs(&h), vec![(1, -1)]);
}

#[test]
fn a_quiet_side_holds_the_join_and_its_outer_rows() {
    let mut h = harness(JoinKind::Left);
    h.records(LEFT, 0, batch(&[("k", secs(1000), 1)]));
    h.watermark(LEFT, 0, secs(9000));
    assert!(pairs(&h).is_empty(), "the right side is still at MIN");
    assert_eq!(h.holding(), Some((RIGHT, 0)));
    assert_eq!(h.gauges().open_states, 1);
}

#[test]
fn the_condition_beyond_the_key_decides_and_outer_rows_it_rejects_are_padded() {
    let mut j = IntervalJoin::new(spec(JoinKind::Right));
    let mut out = Vec::new();
    let mut bigger = |l: &Row, r: &Row| Ok::<bool, ()>(l[0].as_int() > r[0].as_int());
    let k = [Value::from("k")];
    j.left(secs(1000), &k, &[Value::Int(5)], &mut bigger, &mut out)
        .expect("no error");
    j.right(secs(1000), &k, &[Value::Int(3)], &mut bigger, &mut out)
        .expect("no error");
    j.right(secs(1000), &k, &[Value::Int(7)], &mut bigger, &mut out)
        .expect("no error");
    j.advance(secs(9000), &mut out);
    let got: Vec<(Option<i64>, Option<i64>)> = out
        .iter()
        .map(|p| {
            let v = |r: &Option<Row>| r.as_ref().and_then(|r| r[0].as_int());
            (v(&p.left), v(&p.right))
        })
        .collect();
    assert_eq!(got, vec![(Some(5), Some(3)), (None, Some(7))]);
    let mut fails = |_: &Row, _: &Row| Err::<bool, &str>("division by zero");
    let e = j.left(
        secs(9500),
        &k,
        &[Value::Int(1)],
        &mut fails,
        &mut Vec::new(),
    );
    assert_eq!(e, Ok(false), "nothing cached to compare with, and not late");
    j.right(
        secs(9500),
        &k,
        &[Value::Int(1)],
        &mut bigger,
        &mut Vec::new(),
    )
    .expect("no error");
    let e = j.left(
        secs(9500),
        &k,
        &[Value::Int(1)],
        &mut fails,
        &mut Vec::new(),
    );
    assert_eq!(e, Err("division by zero"));
}

#[test]
fn before_the_epoch_flinks_quirks_are_kept_and_counted() {
    let mut h = harness(JoinKind::Left);
    // The operator time starts at 0, not MIN: a row whose range ends at or
    // before 0 (-500 s + 120 s) is late at once (padded, not cached).
    h.records(LEFT, 0, batch(&[("k", -secs(500), 1)]));
    assert_eq!(pairs(&h), vec![(1, -1)]);
    assert_eq!(h.operator().late(LEFT), 1);
    // -50 s is cached, its cleanup at 70 s + 1 ms; -10 s is cached too.
    h.records(LEFT, 0, batch(&[("k", -secs(50), 5), ("k", -secs(10), 6)]));
    h.watermark(LEFT, 0, secs(70) + 1);
    h.watermark(RIGHT, 0, secs(70) + 1);
    // The cleanup expires -50 s (padded); what is left is at or before
    // the epoch, so Flink registers no timer and clears it unpadded.
    assert_eq!(pairs(&h), vec![(1, -1), (5, -1)]);
    assert_eq!(h.operator().cleared(), 1);
    assert_eq!(h.gauges().open_states, 0);
}

#[test]
fn a_restore_goes_on_with_the_same_future() {
    let mut h = harness(JoinKind::Full);
    h.records(LEFT, 0, batch(&[("k", secs(1000), 1)]));
    h.records(RIGHT, 0, batch(&[("j", secs(1000), 2)]));
    h.watermark(LEFT, 0, secs(1000));
    h.barrier(LEFT, 0, 1);
    h.barrier(RIGHT, 0, 1);
    let bytes = h
        .snapshots()
        .first()
        .map(|s| s.1.clone())
        .expect("a snapshot");
    let mut r: OperatorHarness<IntervalJoin> = OperatorHarness::restore(&bytes).expect("restores");
    for x in [&mut h, &mut r] {
        x.records(RIGHT, 0, batch(&[("k", secs(1010), 3)]));
        x.watermark(RIGHT, 0, secs(9000));
        x.watermark(LEFT, 0, secs(9000));
    }
    let after = |x: &OperatorHarness<IntervalJoin>| pairs(x)[pairs(x).len() - 2..].to_vec();
    assert_eq!(pairs(&r), after(&h));
}

/// The model: every pair of rows of one non-NULL key whose times are in
/// the bounds, and, for an outer side, its rows with none (every row
/// arrives ahead of the watermark, and the input ends with MAX).
fn model(kind: JoinKind, rows: &[(bool, u8, i64, i64)], lower: i64, upper: i64) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    let side = |left: bool| rows.iter().filter(move |r| r.0 == left);
    for l in side(true) {
        for r in side(false) {
            if l.1 == r.1 && l.1 != 0 && (lower..=upper).contains(&(l.2 - r.2)) {
                out.push((l.3, r.3));
            }
        }
    }
    let joined = |x: &(bool, u8, i64, i64)| {
        side(!x.0).any(|o| {
            let d = if x.0 { x.2 - o.2 } else { o.2 - x.2 };
            o.1 == x.1 && x.1 != 0 && (lower..=upper).contains(&d)
        })
    };
    for x in rows {
        let outer = if x.0 {
            kind.left_outer()
        } else {
            kind.right_outer()
        };
        if outer && !joined(x) {
            out.push(if x.0 { (x.3, -1) } else { (-1, x.3) });
        }
    }
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_join_equals_the_model_when_no_row_is_late(
        kind in prop_oneof![
            Just(JoinKind::Inner), Just(JoinKind::Left), Just(JoinKind::Right), Just(JoinKind::Full)
        ],
        lower in -5_000i64..3_000,
        width in 0i64..6_000,
        steps in prop::collection::vec((any::<bool>(), 0u8..4, 0i64..20_000, 0i64..4), 1..60),
    ) {
        let upper = lower + width;
        let mut j = IntervalJoin::new(IntervalSpec { kind, lower, upper, min_cleanup: 0 });
        let mut out = Vec::new();
        let mut rows = Vec::new();
        // Event times a little ahead of a watermark that follows them
        // `width + |lower| + |upper|` behind: no row is ever late.
        let lag = width + lower.abs() + upper.abs() + 1;
        let mut now = 100_000i64;
        for (i, (left, key, jitter, wm_step)) in steps.into_iter().enumerate() {
            now += 500;
            let ts = now + jitter;
            let v = i as i64;
            let k = if key == 0 { Value::Null } else { Value::Int(i64::from(key)) };
            let mut any = |_: &Row, _: &Row| Ok::<bool, ()>(true);
            let r = if left {
                j.left(ts, &[k], &[Value::Int(v)], &mut any, &mut out)
            } else {
                j.right(ts, &[k], &[Value::Int(v)], &mut any, &mut out)
            };
            prop_assert!(r.is_ok());
            rows.push((left, key, ts, v));
            if wm_step > 1 {
                j.advance(now - lag, &mut out);
            }
        }
        j.advance(Timestamp::MAX, &mut out);
        prop_assert_eq!(j.late(LEFT) + j.late(RIGHT), 0);
        prop_assert_eq!(j.cached(), 0);
        let v = |r: &Option<Row>| r.as_ref().and_then(|r| r[0].as_int()).unwrap_or(-1);
        let mut got: Vec<(i64, i64)> = out.iter().map(|p| (v(&p.left), v(&p.right))).collect();
        got.sort();
        prop_assert_eq!(got, model(kind, &rows, lower, upper));
    }
}

/// The layout checkpoints and snapshots stored before slots (a map of key
/// to state, the set of (time, key) timers), field by field.
#[derive(Serialize, Deserialize)]
struct Before {
    spec: IntervalSpec,
    watermark: Timestamp,
    keys: HashMap<Key, BeforeKey>,
    timers: BTreeSet<(Timestamp, Key)>,
    left_expiration: Timestamp,
    right_expiration: Timestamp,
    cached: u64,
    records_in: u64,
    late: [u64; 2],
    cleared: u64,
}

#[derive(Serialize, Deserialize)]
struct BeforeKey {
    left: Vec<(Timestamp, Row, bool)>,
    right: Vec<(Timestamp, Row, bool)>,
    left_cleanup: Option<Timestamp>,
    right_cleanup: Option<Timestamp>,
}

#[test]
fn a_join_is_stored_in_the_layout_before_slots_and_reads_it_back() {
    let mut h = harness(JoinKind::Full);
    h.records(
        LEFT,
        0,
        batch(&[
            ("k", secs(1000), 1),
            ("j", secs(1001), 4),
            ("k", secs(1002), 6),
        ]),
    );
    h.records(
        RIGHT,
        0,
        batch(&[("j", secs(1000), 2), ("i", secs(990), 5)]),
    );
    h.watermark(LEFT, 0, secs(1000));
    h.watermark(RIGHT, 0, secs(1000));
    let bytes = postcard::to_allocvec(h.operator()).expect("encodes");
    let before: Before = postcard::from_bytes(&bytes).expect("the layout before slots");
    let mut keys: Vec<&Key> = before.keys.keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            &vec![Value::from("i")],
            &vec![Value::from("j")],
            &vec![Value::from("k")]
        ]
    );
    assert_eq!(before.keys[&vec![Value::from("j")]].left.len(), 1);
    assert_eq!(before.keys[&vec![Value::from("j")]].right.len(), 1);
    // Every pending cleanup is a timer of its key.
    let cleanups: BTreeSet<(Timestamp, Key)> = before
        .keys
        .iter()
        .flat_map(|(k, s)| [s.left_cleanup, s.right_cleanup].map(|t| t.map(|t| (t, k.clone()))))
        .flatten()
        .collect();
    assert_eq!(before.timers, cleanups);
    assert_eq!(before.keys[&vec![Value::from("k")]].left.len(), 2);
    assert_eq!((before.cached, before.records_in), (5, 5));
    // A state written in that layout (as a checkpoint of an older build)
    // goes on as the join it was taken from.
    let old = postcard::to_allocvec(&before).expect("encodes");
    let mut read: IntervalJoin = postcard::from_bytes(&old).expect("reads the layout before slots");
    let mut own: IntervalJoin = postcard::from_bytes(&bytes).expect("reads its own");
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut any = |_: &Row, _: &Row| Ok::<bool, ()>(true);
    for (j, out) in [(&mut own, &mut a), (&mut read, &mut b)] {
        j.right(
            secs(1010),
            &[Value::from("k")],
            vec![Value::Int(3)],
            &mut any,
            out,
        )
        .expect("joins");
        j.advance(secs(9000), out);
    }
    // k's two rows join its new one; i's unjoined right row is padded at
    // its cleanup.
    assert_eq!(a.len(), 3, "{a:?}");
    assert_eq!(a, b);
    let counters = |j: &IntervalJoin| (j.cached(), j.late(LEFT), j.late(RIGHT), j.cleared());
    assert_eq!(counters(&own), counters(&read));
    assert_eq!(own.state_bytes(), read.state_bytes());
}
