//! Checkpoint and restore: a job restored from a checkpoint has the same
//! future as the job that never stopped. Every window result after the
//! checkpoint, every late count and every watermark match, for random
//! partitions, arrival orders, clock advances, idleness, window kinds
//! (sessions and COUNT DISTINCT included) and checkpoint moments.

use lowwater_core::harness::{Event, Fired, Harness};
use lowwater_core::time::secs;
use lowwater_core::window::aggregate::{AggFunc, AggSpec};
use lowwater_core::window::assigner::WindowAssigner;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Record { p: u8, key: u8, ts: i64, v: i64 },
    Advance(i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..6, 0u8..4, -20i64..240, -100i64..100)
            .prop_map(|(p, key, k, v)| Op::Record { p, key, ts: k * 250, v }),
        1 => (0i64..3_000).prop_map(Op::Advance),
    ]
}

fn assigner() -> impl Strategy<Value = WindowAssigner> {
    prop_oneof![
        (1i64..20).prop_map(|s| WindowAssigner::tumbling(s * 500)),
        (1i64..6, 1i64..4)
            .prop_map(|(slide, k)| WindowAssigner::hopping(slide * 1_000 * k, slide * 1_000)),
        (1i64..4, 1i64..5)
            .prop_map(|(step, k)| WindowAssigner::cumulate(step * 1_000, step * 1_000 * k)),
        (1i64..8).prop_map(|g| WindowAssigner::session(g * 700)),
    ]
}

#[allow(clippy::too_many_arguments)]
fn harness(
    a: WindowAssigner,
    partitions: usize,
    parallelism: usize,
    idle: Option<i64>,
    delay: i64,
    lateness: i64,
) -> Harness {
    Harness::new(a)
        .partitions(partitions)
        .parallelism(parallelism)
        .idle_timeout(idle)
        .sql_watermark(delay)
        .allowed_lateness(lateness)
        .aggregate(AggSpec::count_star())
        .aggregate(AggSpec::on(AggFunc::Sum, 0))
        .aggregate(AggSpec::on(AggFunc::CountDistinct, 0))
        .aggregate(AggSpec::on(AggFunc::Avg, 0))
        .aggregate(AggSpec::on(AggFunc::Min, 0))
}

fn apply(h: &mut Harness, op: &Op, partitions: usize) {
    match *op {
        Op::Record { p, key, ts, v } => {
            let p = i32::from(p) % partitions as i32;
            h.process(Event::new(i64::from(key), ts).partition(p).value(v));
        }
        Op::Advance(d) => h.advance_processing_time(d),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn a_restored_job_has_the_same_future_as_one_that_never_stopped(
        a in assigner(),
        partitions in 1usize..6,
        parallelism in 1usize..4,
        idle in prop::option::of(100i64..2_000),
        delay in (0i64..8).prop_map(|k| k * 250),
        lateness in prop_oneof![Just(0i64), Just(1_000)],
        ops in prop::collection::vec(op(), 1..160),
        cut in any::<prop::sample::Index>(),
        drain in any::<bool>(),
    ) {
        let build = || harness(a, partitions, parallelism, idle, delay, lateness);
        let cut = cut.index(ops.len() + 1);
        let mut straight = build();
        for o in &ops[..cut] {
            apply(&mut straight, o, partitions);
        }
        let before: Vec<Fired> = straight.take_output();
        let bytes = straight.checkpoint();
        let mut restored = build();
        restored.restore(&bytes).expect("restores");
        prop_assert_eq!(restored.watermark(), straight.watermark());
        prop_assert_eq!(restored.now(), straight.now());
        for o in &ops[cut..] {
            apply(&mut straight, o, partitions);
            apply(&mut restored, o, partitions);
            prop_assert_eq!(restored.watermark(), straight.watermark());
        }
        if drain {
            straight.end_of_input();
            restored.end_of_input();
        }
        prop_assert_eq!(restored.output(), straight.output());
        prop_assert_eq!(restored.late(), straight.late());
        // The longest gap between a partition's records is learned again
        // after a restore (it only shapes the advice in a stall's reason).
        let view = |v: Option<(usize, lowwater_core::source::SplitView)>| {
            v.map(|(s, v)| (s, lowwater_core::source::SplitView { max_gap: None, ..v }))
        };
        for p in 0..partitions as i32 {
            prop_assert_eq!(view(restored.partition(p)), view(straight.partition(p)));
        }
        drop(before);
    }
}

#[test]
fn a_window_that_fired_before_the_checkpoint_never_fires_again_and_late_stays_late() {
    let build = || Harness::tumbling(secs(10)).sql_watermark(0).partitions(1);
    let mut h = build();
    h.process(Event::new("k", secs(1)));
    h.process(Event::new("k", secs(12)));
    h.advance_processing_time(200);
    assert_eq!(h.output().len(), 1, "[0, 10 s) fired before the checkpoint");
    let bytes = h.checkpoint();
    let mut r = build();
    r.restore(&bytes).expect("in test");
    r.process(Event::new("k", secs(2)));
    r.advance_processing_time(200);
    assert!(r.output().is_empty(), "nothing fires again");
    assert_eq!(r.late_dropped(), 1, "a record late before stays late");
    r.end_of_input();
    assert_eq!(r.output().len(), 1);
    assert_eq!(r.output()[0].count(), 1, "[10 s, 20 s) kept its record");
}

#[test]
fn a_checkpoint_of_another_configuration_or_damaged_bytes_is_refused() {
    let mut h = Harness::tumbling(secs(10)).partitions(2);
    h.process(Event::new("k", secs(1)));
    let bytes = h.checkpoint();
    let err = Harness::tumbling(secs(20)).partitions(2).restore(&bytes);
    assert!(err
        .expect_err("must fail")
        .to_string()
        .contains("configured differently"));
    let mut bad = bytes.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0xff;
    let err = Harness::tumbling(secs(10)).partitions(2).restore(&bad);
    assert!(err.expect_err("must fail").to_string().contains("corrupt"));
}
