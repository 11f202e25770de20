//! Property tests over random partitions, event times, arrival orders and
//! clock advances:
//! - no watermark ever goes backwards, at any level (split, subtask, valve, job);
//! - window results equal a brute-force oracle over the records that were
//!   not late when they arrived;
//! - every record is either in a window result or counted as late.

use std::collections::{BTreeMap, HashMap};

use lowwater_core::harness::{Event, Harness};
use lowwater_core::watermark::combiner::SplitCombiner;
use lowwater_core::watermark::valve::ChannelValve;
use lowwater_core::watermark::WatermarkStatus;
use lowwater_core::window::aggregate::{AggFunc, AggSpec};
use lowwater_core::window::assigner::{Window, WindowAssigner};
use lowwater_core::{Value, MIN_WATERMARK};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Record { p: u8, key: u8, ts: i64, v: i64 },
    Advance(i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        // Event times on a coarse grid (with +-1 ms) so that records often
        // land exactly on window boundaries and watermarks.
        4 => (0u8..8, 0u8..3, -20i64..240, -1i64..=1, -100i64..100)
            .prop_map(|(p, key, k, d, v)| Op::Record { p, key, ts: k * 250 + d, v }),
        1 => (0i64..3_000).prop_map(Op::Advance),
    ]
}

#[derive(Debug, Clone)]
struct Setup {
    partitions: usize,
    parallelism: usize,
    idle: Option<i64>,
    interval: i64,
    sql: bool,
    delay: i64,
}

fn setup() -> impl Strategy<Value = Setup> {
    (
        1usize..6,
        1usize..4,
        prop::option::of(100i64..2_000),
        prop_oneof![Just(0i64), Just(50), Just(200)],
        any::<bool>(),
        (0i64..20).prop_map(|k| k * 250),
    )
        .prop_map(
            |(partitions, parallelism, idle, interval, sql, delay)| Setup {
                partitions,
                parallelism,
                idle,
                interval,
                sql,
                delay,
            },
        )
}

fn assigner() -> impl Strategy<Value = WindowAssigner> {
    prop_oneof![
        (1i64..20).prop_map(|s| WindowAssigner::tumbling(s * 500)),
        (1i64..6, 1i64..4)
            .prop_map(|(slide, k)| WindowAssigner::hopping(slide * 1_000 * k, slide * 1_000)),
        (1i64..4, 1i64..5)
            .prop_map(|(step, k)| WindowAssigner::cumulate(step * 1_000, step * 1_000 * k)),
    ]
}

fn harness(s: &Setup, a: WindowAssigner) -> Harness {
    let h = Harness::new(a)
        .partitions(s.partitions)
        .parallelism(s.parallelism)
        .idle_timeout(s.idle)
        .emit_interval(s.interval)
        .aggregate(AggSpec::count_star())
        .aggregate(AggSpec::on(AggFunc::Sum, 0));
    if s.sql {
        h.sql_watermark(s.delay)
    } else {
        h.out_of_orderness(s.delay)
    }
}

/// Every watermark the harness exposes, to check that none goes back.
fn snapshot(h: &Harness, s: &Setup) -> Vec<i64> {
    let mut v = vec![h.watermark()];
    v.extend(
        (0..s.parallelism)
            .filter_map(|i| h.subtask(i))
            .map(|(w, _)| w),
    );
    v.extend(
        (0..s.partitions as i32)
            .filter_map(|p| h.partition(p))
            .map(|(_, p)| p.watermark),
    );
    v
}

type Oracle = BTreeMap<(Window, i64), (i64, i64)>;

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn watermarks_never_go_backwards_and_windows_match_the_oracle(
        s in setup(),
        a in assigner(),
        ops in prop::collection::vec(op(), 1..150),
        drain in any::<bool>(),
    ) {
        let mut h = harness(&s, a);
        let mut last = snapshot(&h, &s);
        let mut oracle: Oracle = BTreeMap::new();
        let mut late = 0u64;
        let mut windows = Vec::new();
        for op in &ops {
            match *op {
                Op::Record { p, key, ts, v } => {
                    let p = i32::from(p) % s.partitions as i32;
                    let wm = h.watermark();
                    windows.clear();
                    a.assign(ts, &mut windows).expect("assignable");
                    let open: Vec<Window> = windows.iter().copied().filter(|w| w.max_timestamp() > wm).collect();
                    if open.is_empty() {
                        late += 1;
                    }
                    for w in open {
                        let e = oracle.entry((w, i64::from(key))).or_insert((0, 0));
                        e.0 += 1;
                        e.1 += v;
                    }
                    h.process(Event::new(i64::from(key), ts).partition(p).value(v));
                }
                Op::Advance(d) => h.advance_processing_time(d),
            }
            let now = snapshot(&h, &s);
            for (before, after) in last.iter().zip(&now) {
                prop_assert!(after >= before, "watermark went back: {last:?} -> {now:?}");
            }
            last = now;
        }
        let timeline = h.watermark_timeline();
        prop_assert!(timeline.windows(2).all(|w| w[0].1 < w[1].1 && w[0].0 <= w[1].0));
        prop_assert_eq!(h.late_dropped(), late);

        if drain {
            h.end_of_input();
        }
        let wm = h.watermark();
        let mut got: Oracle = BTreeMap::new();
        for f in h.output() {
            let key = f.key[0].as_int().expect("int key");
            let sum = f.values[1].as_int().expect("sum of ints");
            // With no allowed lateness every (window, key) fires exactly once.
            prop_assert!(got.insert((f.window, key), (f.count(), sum)).is_none(), "fired twice: {f:?}");
            prop_assert!(f.window.max_timestamp() <= wm, "fired before the watermark: {f:?}");
        }
        let expected: Oracle = oracle.into_iter().filter(|((w, _), _)| w.max_timestamp() <= wm).collect();
        prop_assert_eq!(got, expected);
        if drain && matches!(a, WindowAssigner::Tumbling { .. }) {
            // Nothing vanishes: each record is in exactly one result or late.
            let counted: i64 = h.output().iter().map(|f| f.count()).sum();
            prop_assert_eq!(counted as u64 + h.late_dropped(), ops.iter().filter(|o| matches!(o, Op::Record { .. })).count() as u64);
        }
    }

    #[test]
    fn sessions_match_brute_force_merging(
        gap in 1i64..5_000,
        records in prop::collection::vec((0u8..3, 0i64..50_000), 1..80),
    ) {
        let mut h = Harness::session(gap);
        for (key, ts) in &records {
            h.process(Event::new(i64::from(*key), *ts));
        }
        h.end_of_input();
        let mut by_key: HashMap<i64, Vec<i64>> = HashMap::new();
        for (key, ts) in &records {
            by_key.entry(i64::from(*key)).or_default().push(*ts);
        }
        let mut expected = BTreeMap::new();
        for (key, mut ts) in by_key {
            ts.sort_unstable();
            let mut cur: Option<(i64, i64, i64)> = None;
            for t in ts {
                cur = match cur {
                    Some((s, e, n)) if t <= e => Some((s, e.max(t + gap), n + 1)),
                    Some((s, e, n)) => {
                        expected.insert((Window::new(s, e), key), n);
                        Some((t, t + gap, 1))
                    }
                    None => Some((t, t + gap, 1)),
                };
            }
            if let Some((s, e, n)) = cur {
                expected.insert((Window::new(s, e), key), n);
            }
        }
        let got: BTreeMap<(Window, i64), i64> = h
            .output()
            .iter()
            .map(|f| ((f.window, f.key[0].as_int().unwrap_or(-1)), f.count()))
            .collect();
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn session_records_are_in_one_session_or_counted_late(
        gap in 1i64..3_000,
        ops in prop::collection::vec(op(), 1..150),
    ) {
        let mut h = Harness::session(gap).partitions(2).sql_watermark(0);
        let mut records = 0u64;
        for op in &ops {
            match *op {
                Op::Record { p, key, ts, .. } => {
                    records += 1;
                    h.process(Event::new(i64::from(key), ts).partition(i32::from(p % 2)));
                }
                Op::Advance(d) => h.advance_processing_time(d),
            }
        }
        h.end_of_input();
        let mut seen = std::collections::BTreeSet::new();
        for f in h.output() {
            prop_assert!(seen.insert((f.window, f.key.clone())), "a session fired twice: {f:?}");
        }
        let counted: i64 = h.output().iter().map(|f| f.count()).sum();
        prop_assert_eq!(counted as u64 + h.late_dropped(), records);
    }

    #[test]
    fn valve_output_is_monotone_and_bounded_by_aligned_channels(
        n in 1usize..5,
        ops in prop::collection::vec((0usize..5, 0u8..4, 0i64..1_000), 1..100),
    ) {
        let mut v = ChannelValve::new(n);
        let mut last = MIN_WATERMARK;
        for (ch, kind, w) in ops {
            let ch = ch % n;
            let outs = match kind {
                0 | 1 => v.input(ch, lowwater_core::watermark::Progress { watermark: Some(w), ..Default::default() }),
                2 => vec![v.input_status(ch, WatermarkStatus::Idle)],
                _ => vec![v.input_status(ch, WatermarkStatus::Active)],
            };
            for o in outs {
                if let Some(w) = o.watermark {
                    prop_assert!(w > last, "valve went from {last} to {w}");
                    last = w;
                }
            }
            prop_assert_eq!(v.watermark(), last);
            let aligned_min = (0..n).filter_map(|c| v.channel(c)).filter(|c| c.aligned).map(|c| c.watermark).min();
            if let Some(m) = aligned_min {
                prop_assert!(v.watermark() <= m, "output above an aligned channel");
            }
            let all_active = (0..n).filter_map(|c| v.channel(c)).all(|c| c.status == WatermarkStatus::Active && c.aligned);
            if all_active {
                prop_assert_eq!(Some(v.watermark()), aligned_min.map(|m| m.max(last)));
            }
        }
    }

    #[test]
    fn combiner_output_is_monotone_and_never_above_the_highest_split(
        n in 1usize..5,
        ops in prop::collection::vec((0usize..5, any::<bool>(), 0i64..1_000), 1..100),
    ) {
        let mut c = SplitCombiner::new(None);
        for _ in 0..n {
            c.add_split();
        }
        let mut last = MIN_WATERMARK;
        let mut highest = MIN_WATERMARK;
        for (i, idle, w) in ops {
            let i = i % n;
            if idle {
                c.set_split_idle(i);
            } else {
                c.set_split_watermark(i, w);
                highest = highest.max(w);
            }
            if let Some(w) = c.combine(0).watermark {
                prop_assert!(w > last && w <= highest);
                last = w;
            }
        }
    }
}

#[test]
fn value_keys_render_for_diagnostics() {
    assert_eq!(Value::Int(3).to_string(), "3");
}
