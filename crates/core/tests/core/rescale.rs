//! A restore at another parallelism: the window operators of `p` keyed
//! subtasks regrouped into `q` (`WindowOperator::regroup`) fire exactly
//! what one operator that saw every record fires, and the sources' splits
//! regrouped into `q` subtasks (`SourceSubtask::regroup`, driven through
//! the harness) give the job the same future as the job that never
//! stopped: every window, late count and watermark.

use lowwater_core::harness::{Event, Harness};
use lowwater_core::route::key_subtask;
use lowwater_core::window::aggregate::{AggFunc, AggSpec};
use lowwater_core::window::assigner::WindowAssigner;
use lowwater_core::window::operator::{
    WindowInput, WindowOperator, WindowOutput, WindowResult, WindowSpec,
};
use lowwater_core::Value;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Step {
    /// (event time, key, value, split)
    Record(i64, u8, i64, u32),
    Watermark(i64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (-4i64..60, 0u8..12, -50i64..50, 0u32..4)
            .prop_map(|(k, key, v, split)| Step::Record(k * 250, key, v, split)),
        1 => (-1_000i64..16_000).prop_map(Step::Watermark),
    ]
}

fn spec() -> impl Strategy<Value = WindowSpec> {
    (
        prop_oneof![
            2 => (1i64..5).prop_map(|k| WindowAssigner::tumbling(k * 500)),
            1 => (1i64..3).prop_map(|k| WindowAssigner::hopping(k * 1_000, 500)),
            1 => (1i64..4).prop_map(|k| WindowAssigner::cumulate(500, k * 1_000)),
            2 => (1i64..4).prop_map(|k| WindowAssigner::session(k * 300)),
        ],
        prop_oneof![Just(0i64), Just(700i64)],
    )
        .prop_map(|(assigner, allowed_lateness)| {
            let mut spec = WindowSpec::count(assigner);
            spec.aggregates.push(AggSpec::on(AggFunc::Sum, 0));
            spec.aggregates.push(AggSpec::on(AggFunc::CountDistinct, 0));
            spec.allowed_lateness = allowed_lateness;
            spec
        })
}

/// Keyed subtasks as the key exchange feeds them: each record to its key's
/// subtask, each watermark to all.
struct Keyed {
    ops: Vec<WindowOperator>,
    fired: Vec<WindowResult>,
}

impl Keyed {
    fn step(&mut self, s: &Step) {
        let mut out = Vec::new();
        match *s {
            Step::Record(ts, key, v, split) => {
                let key = vec![Value::Int(i64::from(key))];
                let n = self.ops.len();
                let input = WindowInput {
                    ts,
                    split,
                    key: key.clone(),
                    row: vec![Value::Int(v)],
                };
                self.ops[key_subtask(&key, n)]
                    .process(input, &mut out)
                    .expect("record");
            }
            Step::Watermark(wm) => {
                for op in &mut self.ops {
                    op.on_watermark(wm, &mut out);
                }
            }
        }
        self.fired.extend(out.into_iter().filter_map(|o| match o {
            WindowOutput::Fired(r) => Some(r),
            WindowOutput::Late(_) => None,
        }));
    }

    /// The results in one order, whichever subtask fired them.
    fn sorted(&self) -> Vec<String> {
        let mut v: Vec<String> = self.fired.iter().map(|r| format!("{r:?}")).collect();
        v.sort();
        v
    }

    fn dropped(&self) -> u64 {
        self.ops.iter().map(|o| o.late().total_dropped()).sum()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn regrouped_keyed_operators_fire_what_one_operator_fires(
        spec in spec(),
        steps in prop::collection::vec(step(), 1..120),
        cut in any::<prop::sample::Index>(),
        p in 1usize..5,
        q in 1usize..7,
    ) {
        let cut = cut.index(steps.len() + 1);
        let one_op = || WindowOperator::new(spec.clone()).expect("spec");
        let mut single = Keyed { ops: vec![one_op()], fired: Vec::new() };
        let mut keyed = Keyed { ops: (0..p).map(|_| one_op()).collect(), fired: Vec::new() };
        for s in &steps[..cut] {
            single.step(s);
            keyed.step(s);
        }
        let open: usize = keyed.ops.iter().map(WindowOperator::pending).sum();
        let records: u64 = keyed.ops.iter().map(WindowOperator::records_in).sum();
        let dropped = keyed.dropped();
        let parts = std::mem::take(&mut keyed.ops);
        keyed.ops = WindowOperator::regroup(parts, q, |k| key_subtask(k, q)).expect("regroup");
        prop_assert_eq!(keyed.ops.len(), q);
        prop_assert_eq!(keyed.ops.iter().map(WindowOperator::pending).sum::<usize>(), open);
        prop_assert_eq!(keyed.ops.iter().map(WindowOperator::records_in).sum::<u64>(), records);
        prop_assert_eq!(keyed.dropped(), dropped);
        for s in &steps[cut..] {
            single.step(s);
            keyed.step(s);
        }
        let end = Step::Watermark(i64::MAX);
        single.step(&end);
        keyed.step(&end);
        prop_assert_eq!(keyed.sorted(), single.sorted());
        prop_assert_eq!(keyed.dropped(), single.dropped());
    }
}

#[derive(Debug, Clone)]
enum Op {
    Record { p: u8, key: u8, ts: i64, v: i64 },
    Advance(i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..8, 0u8..4, -20i64..240, -100i64..100)
            .prop_map(|(p, key, k, v)| Op::Record { p, key, ts: k * 250, v }),
        1 => (0i64..3_000).prop_map(Op::Advance),
    ]
}

fn harness(partitions: usize, parallelism: usize, idle: Option<i64>) -> Harness {
    Harness::tumbling(2_000)
        .partitions(partitions)
        .parallelism(parallelism)
        .idle_timeout(idle)
        .sql_watermark(500)
        .aggregate(AggSpec::count_star())
        .aggregate(AggSpec::on(AggFunc::Sum, 0))
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
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Without idleness the job's watermark is the minimum over every
    /// split whatever subtask reads it, so the restored job's future is
    /// the same to the watermark at every step. Every subtask owns a
    /// partition at both parallelisms (a subtask without one holds the
    /// watermark at MIN, FLINK-25818, at any parallelism).
    #[test]
    fn a_job_restored_at_another_parallelism_has_the_same_future(
        partitions in 4usize..8,
        p in 1usize..5,
        q in 1usize..5,
        ops in prop::collection::vec(op(), 1..160),
        cut in any::<prop::sample::Index>(),
    ) {
        let cut = cut.index(ops.len() + 1);
        let mut straight = harness(partitions, p, None);
        for o in &ops[..cut] {
            apply(&mut straight, o, partitions);
        }
        let bytes = straight.checkpoint();
        let mut rescaled = harness(partitions, q, None);
        rescaled.restore(&bytes).expect("restores at another parallelism");
        prop_assert_eq!(rescaled.watermark(), straight.watermark());
        straight.take_output();
        for o in &ops[cut..] {
            apply(&mut straight, o, partitions);
            apply(&mut rescaled, o, partitions);
            prop_assert_eq!(rescaled.watermark(), straight.watermark());
        }
        straight.end_of_input();
        rescaled.end_of_input();
        prop_assert_eq!(rescaled.output(), straight.output());
        prop_assert_eq!(rescaled.late(), straight.late());
        for part in 0..partitions as i32 {
            let split = |h: &Harness| h.partition(part).map(|(_, v)| (v.watermark, v.idle, v.records));
            prop_assert_eq!(split(&rescaled), split(&straight));
        }
    }

    /// With idleness, which splits share a subtask decides when a quiet
    /// one stops counting (a subtask reports IDLE one emission after its
    /// last split), so the watermark may move a tick apart; what must
    /// hold is that every record is in exactly one fired window or counted
    /// late, each split keeps its watermark, and the restore goes on at
    /// the checkpoint's watermark.
    #[test]
    fn a_job_restored_at_another_parallelism_with_idleness_loses_and_repeats_nothing(
        partitions in 4usize..8,
        p in 1usize..5,
        q in 1usize..5,
        idle in 100i64..2_000,
        ops in prop::collection::vec(op(), 1..160),
        cut in any::<prop::sample::Index>(),
    ) {
        let cut = cut.index(ops.len() + 1);
        let mut straight = harness(partitions, p, Some(idle));
        for o in &ops[..cut] {
            apply(&mut straight, o, partitions);
        }
        let bytes = straight.checkpoint();
        let before: i64 = straight.take_output().iter().map(|f| f.count()).sum();
        let mut rescaled = harness(partitions, q, Some(idle));
        rescaled.restore(&bytes).expect("restores at another parallelism");
        prop_assert_eq!(rescaled.watermark(), straight.watermark());
        for part in 0..partitions as i32 {
            let split = |h: &Harness| h.partition(part).map(|(_, v)| (v.watermark, v.idle, v.records));
            prop_assert_eq!(split(&rescaled), split(&straight));
        }
        for o in &ops[cut..] {
            apply(&mut rescaled, o, partitions);
        }
        rescaled.end_of_input();
        let after: i64 = rescaled.output().iter().map(|f| f.count()).sum();
        let records = ops.iter().filter(|o| matches!(o, Op::Record { .. })).count() as i64;
        prop_assert_eq!(before + after + rescaled.late_dropped() as i64, records);
    }
}

/// A partition added shortly before the checkpoint (still at MIN, its
/// backlog not read yet) holds the job's watermark before a rescale; it
/// must after it too, or the records of its backlog that were on time
/// would be dropped as late once the other partitions moved it on.
#[test]
fn a_partition_behind_holds_the_watermark_across_a_rescale() {
    let mut before = harness(4, 2, None);
    for p in 0..4 {
        before.process(Event::new(1i64, 10_000).partition(p));
    }
    before.advance_processing_time(1_000);
    let held = before.watermark();
    assert!(
        held > lowwater_core::MIN_WATERMARK,
        "the watermark moved: {held}"
    );
    let added = before.add_partition();
    for p in 0..4 {
        before.process(Event::new(1i64, 20_000).partition(p));
    }
    before.advance_processing_time(1_000);
    assert_eq!(before.watermark(), held, "the added partition holds it");
    let bytes = before.checkpoint();
    let mut after = harness(5, 3, None);
    after
        .restore(&bytes)
        .expect("restores at another parallelism");
    for p in 0..4 {
        after.process(Event::new(1i64, 30_000).partition(p));
    }
    after.advance_processing_time(1_000);
    assert_eq!(after.watermark(), held, "still held by the added partition");
    // Its backlog, older than what the others read since: on time.
    after.process(Event::new(2i64, 12_000).partition(added));
    after.advance_processing_time(1_000);
    assert_eq!(after.late_dropped(), 0);
    assert!(
        after.watermark() > held,
        "it moves once the partition caught up"
    );
}
