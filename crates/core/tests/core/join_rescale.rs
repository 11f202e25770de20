//! Joins restored at another parallelism: the temporal and window joins of
//! `p` keyed subtasks, regrouped into `q` (`regroup`), give exactly the
//! rows one join that saw every row gives, with the same late counts and
//! state sizes, over random rows, keys, watermarks and cuts. An interval
//! join's result depends on its parallelism in Flink itself once the
//! watermark moves (its expiration times, which decide whether an arriving
//! row looks at the other side's cache at all, are per operator instance,
//! not per key, and are not even kept across a restore), so there the
//! rows come before one final watermark, which makes one join and keyed
//! joins agree, and the regroup is checked for every row it moves.

use lowwater_core::join::interval::{IntervalJoin, IntervalSpec, JoinKind, Paired};
use lowwater_core::join::temporal::{Joined, TemporalJoin};
use lowwater_core::join::window_join::WindowJoin;
use lowwater_core::route::key_subtask;
use lowwater_core::Value;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Step {
    /// (side: 0 left / probe, 1 right / build, event time, key, value)
    Row(usize, i64, u8, i64),
    Watermark(i64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0usize..2, 0i64..60, 0u8..10, -50i64..50)
            .prop_map(|(side, k, key, v)| Step::Row(side, k * 250, key, v)),
        1 => (-1_000i64..16_000).prop_map(Step::Watermark),
    ]
}

fn key(k: u8) -> Vec<Value> {
    vec![Value::Int(i64::from(k))]
}

fn sorted<T: std::fmt::Debug>(v: &[T]) -> Vec<String> {
    let mut s: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
    s.sort();
    s
}

fn always(_: &Vec<Value>, _: &Vec<Value>) -> Result<bool, ()> {
    Ok(true)
}

/// Keyed subtasks of one join, fed as the join routing feeds them.
struct Keyed<J> {
    ops: Vec<J>,
}

impl<J> Keyed<J> {
    fn at(&mut self, k: u8) -> &mut J {
        let n = self.ops.len();
        &mut self.ops[key_subtask(&key(k), n)]
    }
}

fn interval_step(j: &mut Keyed<IntervalJoin>, s: &Step, out: &mut Vec<Paired>) {
    match *s {
        Step::Row(side, ts, k, v) => {
            let row = vec![Value::Int(v), Value::Int(ts)];
            let op = j.at(k);
            let late = match side {
                0 => op.left(ts, &key(k), row, &mut always, out),
                _ => op.right(ts, &key(k), row, &mut always, out),
            };
            assert!(late.is_ok());
        }
        Step::Watermark(wm) => {
            for op in &mut j.ops {
                op.advance(wm, out);
            }
        }
    }
}

fn temporal_step(j: &mut Keyed<TemporalJoin>, s: &Step, out: &mut Vec<Joined>) {
    match *s {
        Step::Row(0, ts, k, v) => {
            j.at(k).probe(ts, &key(k), vec![Value::Int(v)]);
        }
        Step::Row(_, ts, k, v) => {
            // Now and then a deletion.
            let row = [Value::Int(v)];
            let version = (v % 7 != 0).then_some(&row[..]);
            j.at(k).version(ts, &key(k), version);
        }
        Step::Watermark(wm) => {
            for op in &mut j.ops {
                op.advance(wm, out);
            }
        }
    }
}

fn window_step(j: &mut Keyed<WindowJoin>, s: &Step, out: &mut Vec<Paired>) {
    match *s {
        Step::Row(side, ts, k, v) => {
            // TUMBLE(1 s): the row's window time is its window's end - 1.
            let time = ts - ts.rem_euclid(1_000) + 999;
            j.at(k).row(side, time, &key(k), vec![Value::Int(v)]);
        }
        Step::Watermark(wm) => {
            for op in &mut j.ops {
                assert!(op.advance(wm, &mut always, out).is_ok());
            }
        }
    }
}

fn kind() -> impl Strategy<Value = JoinKind> {
    prop_oneof![
        Just(JoinKind::Inner),
        Just(JoinKind::Left),
        Just(JoinKind::Right),
        Just(JoinKind::Full),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn regrouped_interval_joins_give_what_one_join_gives(
        kind in kind(),
        lower in -2_000i64..0,
        width in 0i64..3_000,
        steps in prop::collection::vec(step(), 1..120),
        cut in any::<prop::sample::Index>(),
        p in 1usize..5,
        q in 1usize..7,
    ) {
        let spec = IntervalSpec { kind, lower, upper: lower + width, min_cleanup: 0 };
        let steps: Vec<Step> = steps.into_iter().filter(|s| matches!(s, Step::Row(..))).collect();
        let cut = cut.index(steps.len() + 1);
        let mut one = Keyed { ops: vec![IntervalJoin::new(spec)] };
        let mut keyed = Keyed { ops: (0..p).map(|_| IntervalJoin::new(spec)).collect() };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for s in &steps[..cut] {
            interval_step(&mut one, s, &mut a);
            interval_step(&mut keyed, s, &mut b);
        }
        let cached: u64 = keyed.ops.iter().map(IntervalJoin::cached).sum();
        keyed.ops = IntervalJoin::regroup(std::mem::take(&mut keyed.ops), q, |k| key_subtask(k, q));
        prop_assert_eq!(keyed.ops.len(), q);
        prop_assert_eq!(keyed.ops.iter().map(IntervalJoin::cached).sum::<u64>(), cached);
        for s in &steps[cut..] {
            interval_step(&mut one, s, &mut a);
            interval_step(&mut keyed, s, &mut b);
        }
        let end = Step::Watermark(i64::MAX - 10_000);
        interval_step(&mut one, &end, &mut a);
        interval_step(&mut keyed, &end, &mut b);
        prop_assert_eq!(sorted(&b), sorted(&a));
        for port in 0..2 {
            prop_assert_eq!(
                keyed.ops.iter().map(|o| o.late(port)).sum::<u64>(),
                one.ops.iter().map(|o| o.late(port)).sum::<u64>()
            );
        }
    }

    #[test]
    fn regrouped_temporal_joins_give_what_one_join_gives(
        steps in prop::collection::vec(step(), 1..120),
        cut in any::<prop::sample::Index>(),
        p in 1usize..5,
        q in 1usize..7,
    ) {
        let cut = cut.index(steps.len() + 1);
        let mut one = Keyed { ops: vec![TemporalJoin::new()] };
        let mut keyed = Keyed { ops: (0..p).map(|_| TemporalJoin::new()).collect() };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for s in &steps[..cut] {
            temporal_step(&mut one, s, &mut a);
            temporal_step(&mut keyed, s, &mut b);
        }
        let waiting: u64 = keyed.ops.iter().map(TemporalJoin::waiting).sum();
        let versions: u64 = keyed.ops.iter().map(TemporalJoin::versions).sum();
        keyed.ops = TemporalJoin::regroup(std::mem::take(&mut keyed.ops), q, |k| key_subtask(k, q));
        prop_assert_eq!(keyed.ops.iter().map(TemporalJoin::waiting).sum::<u64>(), waiting);
        prop_assert_eq!(keyed.ops.iter().map(TemporalJoin::versions).sum::<u64>(), versions);
        for s in &steps[cut..] {
            temporal_step(&mut one, s, &mut a);
            temporal_step(&mut keyed, s, &mut b);
        }
        let end = Step::Watermark(i64::MAX - 10_000);
        temporal_step(&mut one, &end, &mut a);
        temporal_step(&mut keyed, &end, &mut b);
        prop_assert_eq!(sorted(&b), sorted(&a));
        prop_assert_eq!(
            keyed.ops.iter().map(TemporalJoin::late_probes).sum::<u64>(),
            one.ops[0].late_probes()
        );
    }

    #[test]
    fn regrouped_window_joins_give_what_one_join_gives(
        kind in kind(),
        steps in prop::collection::vec(step(), 1..120),
        cut in any::<prop::sample::Index>(),
        p in 1usize..5,
        q in 1usize..7,
    ) {
        let cut = cut.index(steps.len() + 1);
        let mut one = Keyed { ops: vec![WindowJoin::new(kind)] };
        let mut keyed = Keyed { ops: (0..p).map(|_| WindowJoin::new(kind)).collect() };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for s in &steps[..cut] {
            window_step(&mut one, s, &mut a);
            window_step(&mut keyed, s, &mut b);
        }
        let cached: u64 = keyed.ops.iter().map(WindowJoin::cached).sum();
        keyed.ops = WindowJoin::regroup(std::mem::take(&mut keyed.ops), q, |k| key_subtask(k, q));
        prop_assert_eq!(keyed.ops.iter().map(WindowJoin::cached).sum::<u64>(), cached);
        for s in &steps[cut..] {
            window_step(&mut one, s, &mut a);
            window_step(&mut keyed, s, &mut b);
        }
        let end = Step::Watermark(i64::MAX - 10_000);
        window_step(&mut one, &end, &mut a);
        window_step(&mut keyed, &end, &mut b);
        prop_assert_eq!(sorted(&b), sorted(&a));
    }
}
