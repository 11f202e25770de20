//! `WindowOperator::process_batch` (the window subtask's way in) against
//! `process_ref` one record at a time (replay's): the same results, late
//! records, counters and errors, over random batches of disordered
//! records, watermarks between them, allowed lateness and side outputs.
//! The batch side takes its watermarks' results in chunks (the window
//! subtask's way), which must change neither the results nor their order.

use lowwater_core::window::aggregate::{AggFunc, AggSpec};
use lowwater_core::window::assigner::WindowAssigner;
use lowwater_core::window::batch::InputBatch;
use lowwater_core::window::operator::{WindowOperator, WindowOutput, WindowSpec};
use lowwater_core::{Value, MIN_WATERMARK};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Step {
    /// Records: (event time, key, value, split).
    Batch(Vec<(i64, u8, i64, u32)>),
    Watermark(i64),
}

fn record() -> impl Strategy<Value = (i64, u8, i64, u32)> {
    (
        prop_oneof![
            // On a coarse grid (window boundaries are hit often), now and
            // then the one time no window can take.
            40 => (-4i64..60, -1i64..=1).prop_map(|(k, d)| k * 250 + d),
            1 => Just(MIN_WATERMARK),
        ],
        0u8..4,
        -50i64..50,
        0u32..3,
    )
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => prop::collection::vec(record(), 0..40).prop_map(Step::Batch),
        1 => (-1_000i64..16_000).prop_map(Step::Watermark),
    ]
}

fn spec() -> impl Strategy<Value = WindowSpec> {
    (
        prop_oneof![
            3 => (1i64..5).prop_map(|k| WindowAssigner::tumbling(k * 500)),
            1 => (1i64..3).prop_map(|k| WindowAssigner::hopping(k * 1_000, 500)),
            1 => (1i64..4).prop_map(|k| WindowAssigner::session(k * 300)),
        ],
        prop_oneof![Just(0i64), Just(700i64)],
        any::<bool>(),
    )
        .prop_map(|(assigner, allowed_lateness, late_side_output)| {
            let mut spec = WindowSpec::count(assigner);
            spec.aggregates.push(AggSpec::on(AggFunc::Sum, 0));
            spec.aggregates.push(AggSpec::on(AggFunc::LastValue, 1));
            spec.allowed_lateness = allowed_lateness;
            spec.late_side_output = late_side_output;
            spec
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_batch_at_a_time_is_a_record_at_a_time(spec in spec(), steps in prop::collection::vec(step(), 1..30), chunk in 1usize..6) {
        let mut one = WindowOperator::new(spec.clone()).expect("valid");
        let mut many = WindowOperator::new(spec).expect("valid");
        let (mut out_one, mut out_many) = (Vec::new(), Vec::new());
        for step in &steps {
            match step {
                Step::Batch(records) => {
                    let mut batch = InputBatch::default();
                    for (n, &(ts, key, v, split)) in records.iter().enumerate() {
                        let mut k = vec![Value::Int(i64::from(key))];
                        let mut row = vec![Value::Int(v), Value::Int(n as i64)];
                        batch.push(ts, split, &mut k, &mut row);
                    }
                    let mut errors_one = Vec::new();
                    for (i, input) in batch.iter().enumerate() {
                        if let Err(e) = one.process_ref(input, &mut out_one) {
                            errors_one.push((i, e.to_string()));
                        }
                    }
                    let mut errors_many = Vec::new();
                    many.process_batch(&batch, &mut out_many, |i, e| errors_many.push((i, e.to_string())));
                    prop_assert_eq!(errors_many, errors_one);
                }
                Step::Watermark(wm) => {
                    one.on_watermark(*wm, &mut out_one);
                    let mut taken = Vec::new();
                    let mut splits = Vec::new();
                    many.on_watermark_in_chunks(*wm, &mut out_many, chunk, &mut |o| {
                        assert!(o.len() >= chunk, "taken early: {} results", o.len());
                        taken.append(o);
                        splits.push(taken.len());
                    });
                    // A chunk ends where a window does.
                    let window = |o: &WindowOutput| match o {
                        WindowOutput::Fired(r) => Some(r.window),
                        WindowOutput::Late(_) => None,
                    };
                    taken.append(&mut out_many);
                    for &at in &splits {
                        if at < taken.len() {
                            prop_assert_ne!(window(&taken[at - 1]), window(&taken[at]));
                        }
                    }
                    out_many = taken;
                }
            }
            prop_assert_eq!(&out_many, &out_one);
            prop_assert_eq!(many.late(), one.late());
            prop_assert_eq!(many.records_in(), one.records_in());
            prop_assert_eq!(many.pending(), one.pending());
        }
        one.on_watermark(i64::MAX, &mut out_one);
        many.on_watermark(i64::MAX, &mut out_many);
        prop_assert_eq!(out_many, out_one);
    }
}
