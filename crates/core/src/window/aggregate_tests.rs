//! Tests of the aggregates: results as Flink gives them, merges, slices.

use super::*;

fn run(spec: AggSpec, rows: &[Value]) -> Value {
    let mut acc = spec.create();
    for v in rows {
        spec.add(&mut acc, std::slice::from_ref(v));
    }
    acc.result()
}

#[test]
fn debug_text_is_the_one_before_narrow_types() {
    // Part of a job's identity: unchanged for SUM(INT) and COUNT.
    assert_eq!(
        format!("{:?}", AggSpec::on(AggFunc::Sum, 0).narrowed(Narrow::I32)),
        "AggSpec { func: Sum, column: Some(0), int32: true }"
    );
    assert_eq!(
        format!("{:?}", AggSpec::count_star()),
        "AggSpec { func: CountStar, column: None, int32: false }"
    );
}

#[test]
fn null_handling_follows_sql() {
    let rows = [Value::Int(3), Value::Null, Value::Int(4)];
    assert_eq!(run(AggSpec::count_star(), &rows), Value::Int(3));
    assert_eq!(run(AggSpec::on(AggFunc::Count, 0), &rows), Value::Int(2));
    assert_eq!(run(AggSpec::on(AggFunc::Sum, 0), &rows), Value::Int(7));
    assert_eq!(
        run(AggSpec::on(AggFunc::Sum, 0), &[Value::Null]),
        Value::Null
    );
    assert_eq!(run(AggSpec::on(AggFunc::Avg, 0), &[]), Value::Null);
    assert_eq!(
        run(AggSpec::on(AggFunc::Min, 0), &[Value::Null]),
        Value::Null
    );
}

#[test]
fn integer_avg_truncates_like_flink_and_double_avg_does_not() {
    let ints = [Value::Int(1), Value::Int(2)];
    assert_eq!(run(AggSpec::on(AggFunc::Avg, 0), &ints), Value::Int(1));
    let neg = [Value::Int(-1), Value::Int(-2)];
    assert_eq!(run(AggSpec::on(AggFunc::Avg, 0), &neg), Value::Int(-1));
    let dbl = [Value::Double(1.0), Value::Double(2.0)];
    assert_eq!(run(AggSpec::on(AggFunc::Avg, 0), &dbl), Value::Double(1.5));
}

#[test]
fn decimal_sums_are_exact_and_averages_have_six_digits() {
    let rows = [
        Value::decimal(563830, 2),
        Value::Null,
        Value::decimal(-125, 2),
    ];
    assert_eq!(
        run(AggSpec::on(AggFunc::Sum, 0), &rows),
        Value::decimal(563705, 2)
    );
    assert_eq!(
        run(AggSpec::on(AggFunc::Avg, 0), &rows),
        Value::decimal(2_818_525_000, 6)
    );
    assert_eq!(
        run(AggSpec::on(AggFunc::Max, 0), &rows),
        Value::decimal(563830, 2)
    );
}

#[test]
fn variances_are_welfords_and_keep_integer_types() {
    let rows: Vec<Value> = [2, 4, 4, 4, 5, 5, 7, 9]
        .iter()
        .map(|&i| Value::Int(i))
        .collect();
    let var = |f| {
        let spec = AggSpec::on(f, 0);
        let mut acc = spec.create();
        for r in &rows {
            spec.add(&mut acc, std::slice::from_ref(r));
        }
        spec.finish(&acc)
    };
    assert_eq!(var(AggFunc::VarPop), Value::Double(4.0));
    assert_eq!(var(AggFunc::StddevPop), Value::Double(2.0));
    assert_eq!(var(AggFunc::VarSamp), Value::Double(32.0 / 7.0));
    let int = AggSpec::on(AggFunc::VarSamp, 0).narrowed(Narrow::I32);
    let (mut left, mut right) = (int.create(), int.create());
    for (i, r) in rows.iter().enumerate() {
        int.add(
            if i < 3 { &mut left } else { &mut right },
            std::slice::from_ref(r),
        );
    }
    left.merge(right);
    assert_eq!(
        int.finish(&left),
        Value::Int(4),
        "32/7 truncated, after a merge"
    );
    let one = AggSpec::on(AggFunc::StddevSamp, 0);
    let mut acc = one.create();
    one.add(&mut acc, &[Value::Int(3)]);
    assert_eq!(
        one.finish(&acc),
        Value::Null,
        "one value has no sample variance"
    );
}

#[test]
fn integer_sum_wraps_like_java_long() {
    let rows = [Value::Int(i64::MAX), Value::Int(1)];
    assert_eq!(
        run(AggSpec::on(AggFunc::Sum, 0), &rows),
        Value::Int(i64::MIN)
    );
}

#[test]
fn int_sum_wraps_at_32_bits_like_flink_int_sum() {
    let spec = AggSpec::on(AggFunc::Sum, 0).narrowed(Narrow::I32);
    let mut acc = spec.create();
    spec.add(&mut acc, &[Value::Int(i64::from(i32::MAX))]);
    spec.add(&mut acc, &[Value::Int(1)]);
    assert_eq!(spec.finish(&acc), Value::Int(i64::from(i32::MIN)));
}

#[test]
fn first_last_and_listagg_skip_nulls_and_merge_in_order() {
    let rows = [Value::Null, Value::str("a"), Value::Null, Value::str("b")];
    assert_eq!(
        run(AggSpec::on(AggFunc::FirstValue, 0), &rows),
        Value::str("a")
    );
    assert_eq!(
        run(AggSpec::on(AggFunc::LastValue, 0), &rows),
        Value::str("b")
    );
    assert_eq!(
        run(AggSpec::on(AggFunc::ListAgg, 0), &rows),
        Value::str("a,b")
    );
    assert_eq!(
        run(AggSpec::on(AggFunc::FirstValue, 0), &[Value::Null]),
        Value::Null
    );
    let spec = AggSpec::on(AggFunc::ListAgg, 0);
    let (mut left, mut right) = (spec.create(), spec.create());
    spec.add(&mut left, &[Value::str("x"), Value::str("; ")]);
    spec.add(&mut right, &[Value::str("y"), Value::str("; ")]);
    spec.add(&mut right, &[Value::str("z"), Value::str("; ")]);
    left.merge(right);
    assert_eq!(left.result(), Value::str("x; y; z"));
    for (func, want) in [(AggFunc::FirstValue, "x"), (AggFunc::LastValue, "z")] {
        let spec = AggSpec::on(func, 0);
        let (mut left, mut right) = (spec.create(), spec.create());
        spec.add(&mut left, &[Value::str("x")]);
        spec.add(&mut right, &[Value::str("y")]);
        spec.add(&mut right, &[Value::str("z")]);
        left.merge(right);
        assert_eq!(left.result(), Value::str(want), "{func:?}");
    }
}

/// Issue 33: `LISTAGG(DISTINCT page)` over a, a, b, a, b gave
/// `a,a,b,a,b`; Flink gives `a,b`.
#[test]
fn listagg_and_last_value_distinct_see_each_value_once() {
    let rows: Vec<Value> = ["a", "a", "b", "a", "b"]
        .into_iter()
        .map(Value::str)
        .chain([Value::Null])
        .collect();
    let finish = |func, rows: &[Value]| {
        let spec = AggSpec::on(func, 0);
        let mut acc = spec.create();
        for v in rows {
            spec.add(&mut acc, &[v.clone(), Value::str(";")]);
        }
        spec.finish(&acc)
    };
    assert_eq!(finish(AggFunc::ListAggDistinct, &rows), Value::str("a;b"));
    assert_eq!(finish(AggFunc::ListAgg, &rows), Value::str("a;a;b;a;b"));
    // a, b, a: the second a is not new, so the last new value is b.
    let aba = [Value::str("a"), Value::str("b"), Value::str("a")];
    assert_eq!(finish(AggFunc::LastValueDistinct, &aba), Value::str("b"));
    assert_eq!(finish(AggFunc::LastValue, &aba), Value::str("a"));
    assert_eq!(
        finish(AggFunc::ListAggDistinct, &[Value::Null]),
        Value::Null
    );
    assert_eq!(finish(AggFunc::LastValueDistinct, &[]), Value::Null);
    // A merge appends the other's values new to this one, in their order.
    let spec = AggSpec::on(AggFunc::ListAggDistinct, 0);
    let (mut left, mut right) = (spec.create(), spec.create());
    for v in ["x", "y"] {
        spec.add(&mut left, &[Value::str(v), Value::str(",")]);
    }
    for v in ["z", "x", "w"] {
        spec.add(&mut right, &[Value::str(v), Value::str(",")]);
    }
    left.merge(right);
    assert_eq!(spec.finish(&left), Value::str("x,y,z,w"));
}

/// Issue 33 item 2, checked on a real Flink 2.3 (streaming, one bundle
/// per slice): a 30-minute HOP sliding every 10 minutes over slices
/// {12}, {9, 12, 5}, {11, 5}. Flink merges the slices from the last
/// back to the first; the exact variance is 9, and the INT results
/// truncate Flink's 8.999999999999998.
#[test]
fn a_hop_window_merges_its_slices_as_flink_does() {
    let slices: [&[i64]; 3] = [&[12], &[9, 12, 5], &[11, 5]];
    let run = |func, narrow| {
        let spec = AggSpec::on(func, 0).narrowed(narrow);
        let mut acc = spec.create();
        for (i, values) in slices.iter().enumerate() {
            for v in *values {
                let end = (i as i64 + 1) * 600_000;
                spec.add_sliced(&mut acc, &[Value::Double(*v as f64)], end, true);
            }
        }
        spec.finish(&acc)
    };
    assert_eq!(
        run(AggFunc::VarPop, Narrow::None),
        Value::Double(8.999999999999998)
    );
    assert_eq!(
        run(AggFunc::VarSamp, Narrow::None),
        Value::Double(10.799999999999999)
    );
    assert_eq!(
        run(AggFunc::StddevPop, Narrow::None),
        Value::Double(2.9999999999999996)
    );
    assert_eq!(
        run(AggFunc::StddevSamp, Narrow::None),
        Value::Double(3.2863353450309964)
    );
    assert_eq!(run(AggFunc::VarPop, Narrow::I32), Value::Int(8));
    assert_eq!(run(AggFunc::StddevPop, Narrow::I32), Value::Int(2));
    // LISTAGG: the last slice's values first (Flink: 'c,a,a,b').
    let spec = AggSpec::on(AggFunc::ListAgg, 0);
    let mut acc = spec.create();
    for (v, end) in [("a", 1), ("b", 1), ("c", 2), ("a", 2)] {
        spec.add_sliced(&mut acc, &[Value::str(v), Value::str(",")], end, true);
    }
    assert_eq!(spec.finish(&acc), Value::str("c,a,a,b"));
    // CUMULATE merges forward; a FLOAT sum rounds at each merge.
    let spec = AggSpec::on(AggFunc::Sum, 0).narrowed(Narrow::F32);
    let mut acc = spec.create();
    for (v, end) in [(0.1, 1), (3.3, 2), (12345.6, 2)] {
        spec.add_sliced(&mut acc, &[Value::Double(f64::from(v as f32))], end, false);
    }
    let want = 0.1f32 + (3.3f32 + 12345.6f32);
    assert_eq!(spec.finish(&acc), Value::Double(f64::from(want)));
    // Aggregates whose result does not depend on it are not sliced.
    let spec = AggSpec::on(AggFunc::Max, 0);
    let mut acc = spec.create();
    spec.add_sliced(&mut acc, &[Value::Int(3)], 1, true);
    assert_eq!(acc, Accumulator::Max(Value::Int(3)));
}

#[test]
fn min_max_distinct_and_merge() {
    let rows = [Value::str("b"), Value::str("a"), Value::str("b")];
    assert_eq!(run(AggSpec::on(AggFunc::Min, 0), &rows), Value::str("a"));
    assert_eq!(run(AggSpec::on(AggFunc::Max, 0), &rows), Value::str("b"));
    assert_eq!(
        run(AggSpec::on(AggFunc::CountDistinct, 0), &rows),
        Value::Int(2)
    );
    for func in [
        AggFunc::Min,
        AggFunc::Max,
        AggFunc::Avg,
        AggFunc::CountDistinct,
        AggFunc::Sum,
    ] {
        let spec = AggSpec::on(func, 0);
        let (mut left, mut right) = (spec.create(), spec.create());
        spec.add(&mut left, &[Value::Int(5)]);
        spec.add(&mut right, &[Value::Int(1)]);
        spec.add(&mut right, &[Value::Int(5)]);
        left.merge(right);
        let all = run(spec, &[Value::Int(5), Value::Int(1), Value::Int(5)]);
        assert_eq!(left.result(), all, "{func:?}");
    }
}
