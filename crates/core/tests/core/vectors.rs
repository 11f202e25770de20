//! The 29 test vectors of SEMANTICS.md, one test each, named after the vector,
//! plus the seed 002 generator exercise. Each drives the smallest component
//! that shows the rule (generator, subtask, valve, operator) or the harness
//! when the rule is about the whole chain.

use lowwater_core::assignment::split_owner;
use lowwater_core::harness::{Event, Harness};
use lowwater_core::source::SourceSubtask;
use lowwater_core::watermark::alignment::AlignmentGroup;
use lowwater_core::watermark::combiner::SplitCombiner;
use lowwater_core::watermark::generator::{Emit, WatermarkStrategy};
use lowwater_core::watermark::valve::ChannelValve;
use lowwater_core::watermark::{Progress, WatermarkStatus};
use lowwater_core::window::aggregate::AggSpec;
use lowwater_core::window::assigner::{Window, WindowAssigner};
use lowwater_core::window::operator::{
    WindowInput, WindowOperator, WindowOutput, WindowResult, WindowSpec,
};
use lowwater_core::{hours, mins, secs, Error, Value, MAX_WATERMARK, MIN_WATERMARK};

const ACTIVE: WatermarkStatus = WatermarkStatus::Active;
const IDLE: WatermarkStatus = WatermarkStatus::Idle;

fn wm(w: i64) -> Progress {
    Progress {
        watermark: Some(w),
        ..Progress::NONE
    }
}

fn idle() -> Progress {
    Progress {
        became_idle: true,
        ..Progress::NONE
    }
}

fn active() -> Progress {
    Progress {
        became_active: true,
        ..Progress::NONE
    }
}

fn subtask(strategy: WatermarkStrategy, splits: u32) -> SourceSubtask {
    let mut s = SourceSubtask::new(strategy).expect("valid strategy");
    for id in 0..splits {
        s.add_split(id).expect("new split");
    }
    s
}

/// Runs the periodic emits at every multiple of `interval` in `(from, to]`
/// and returns the non-empty progress with its time.
fn ticks(s: &mut SourceSubtask, interval: i64, from: i64, to: i64) -> Vec<(i64, Progress)> {
    let mut out = Vec::new();
    let mut t = (from / interval + 1) * interval;
    while t <= to {
        let p = s.on_periodic_emit(t);
        if !p.is_empty() {
            out.push((t, p));
        }
        t += interval;
    }
    out
}

fn operator(assigner: WindowAssigner, lateness: i64, side_output: bool) -> WindowOperator {
    let mut spec = WindowSpec::count(assigner);
    spec.allowed_lateness = lateness;
    spec.late_side_output = side_output;
    WindowOperator::new(spec).expect("valid windows")
}

fn input(ts: i64) -> WindowInput {
    WindowInput {
        ts,
        split: 0,
        key: vec![Value::str("k")],
        row: vec![],
    }
}

fn fired(out: &[WindowOutput]) -> Vec<(i64, i64, i64)> {
    out.iter()
        .filter_map(|o| match o {
            WindowOutput::Fired(WindowResult { window, values, .. }) => {
                Some((window.start, window.end, values[0].as_int().unwrap_or(-1)))
            }
            WindowOutput::Late(_) => None,
        })
        .collect()
}

fn windows_of(a: WindowAssigner, ts: i64) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    a.assign(ts, &mut out).expect("assignable");
    out.iter().map(|w| (w.start, w.end)).collect()
}

#[test]
fn v01_first_periodic_emit_then_duplicate_suppressed() {
    let mut s = subtask(WatermarkStrategy::bounded_out_of_orderness(secs(5)), 1);
    s.on_record(0, 10_000, 50).expect("split 0");
    assert_eq!(s.on_periodic_emit(200), wm(4_999));
    assert_eq!(s.on_periodic_emit(400), Progress::NONE);
    // The generator itself repeats the value; suppression is downstream.
    let mut g = WatermarkStrategy::bounded_out_of_orderness(secs(5)).create_generator();
    g.on_event(10_000);
    assert_eq!(g.on_periodic_emit(200), Emit::Watermark(4_999));
    assert_eq!(g.on_periodic_emit(400), Emit::Watermark(4_999));
}

#[test]
fn v02_no_events_nothing_downstream_split_stays_active_at_min() {
    let mut s = subtask(WatermarkStrategy::bounded_out_of_orderness(secs(5)), 1);
    assert!(ticks(&mut s, 200, 0, hours(1)).is_empty());
    let split = s.split(0).expect("split 0");
    assert_eq!((split.watermark, split.idle), (MIN_WATERMARK, false));
    assert!(!s.is_idle());
}

#[test]
fn v03_out_of_order_events_then_late_row_dropped_and_boundary_accepted() {
    let mut h = Harness::tumbling(secs(1)).out_of_orderness(secs(5));
    for ts in [10_000, 12_000, 11_000] {
        h.process(Event::new("k", ts));
    }
    h.advance_processing_time(200);
    assert_eq!(h.watermark(), 6_999);
    h.process(Event::new("k", 6_999));
    assert_eq!(h.late_dropped(), 1, "[6000,7000) has fired");
    h.process(Event::new("k", 7_000));
    assert_eq!(h.late_dropped(), 1, "[7000,8000) has not");
    h.end_of_input();
    let w7 = h.output().iter().find(|f| f.window.start == 7_000);
    assert_eq!(w7.map(|f| f.count()), Some(1));
}

fn idle_at(interval: i64, timeout: i64, event_at: Option<i64>) -> i64 {
    let strategy = WatermarkStrategy::sql(0)
        .with_idleness(timeout)
        .with_emit_interval(interval);
    let mut g = strategy.create_generator();
    if let Some(t) = event_at {
        g.on_event(1);
        assert!(t < interval, "the event comes before the first emit");
    }
    let mut t = interval;
    loop {
        if g.on_periodic_emit(t) == Emit::Idle {
            return t;
        }
        t += interval;
    }
}

#[test]
fn v04_idle_between_timeout_and_three_intervals_after_last_event() {
    assert_eq!(idle_at(200, 1_000, Some(50)), 1_600);
    // And the same through a subtask: the subtask reports IDLE in the next combine.
    let strategy = WatermarkStrategy::sql(0).with_idleness(1_000);
    let mut s = subtask(strategy, 1);
    s.on_record(0, 1, 50).expect("split 0");
    let changes = ticks(&mut s, 200, 0, 2_000);
    assert_eq!(changes, [(200, wm(1)), (1_600, idle())]);
}

#[test]
fn v05_idle_with_interval_500() {
    assert_eq!(idle_at(500, 1_000, Some(1)), 2_500);
}

#[test]
fn v06_split_without_records_goes_idle() {
    assert_eq!(idle_at(200, 1_000, None), 1_400);
}

#[test]
fn v07_silent_split_holds_subtask_at_min() {
    let mut h = Harness::tumbling(secs(1))
        .out_of_orderness(secs(5))
        .partitions(2);
    for ts in (0..=60_000).step_by(1_000) {
        h.process(Event::new("k", ts).partition(0));
    }
    h.advance_processing_time(secs(10));
    assert_eq!(h.subtask(0), Some((MIN_WATERMARK, false)));
    assert_eq!(h.watermark(), MIN_WATERMARK);
    assert!(h.output().is_empty());
    let holder = h.held_by().expect("someone holds it");
    assert_eq!((holder.partition, holder.never_had_record), (Some(1), true));
}

#[test]
fn v08_idle_split_releases_combined_watermark() {
    let mut h = Harness::tumbling(secs(1))
        .out_of_orderness(secs(5))
        .partitions(2)
        .idle_timeout(Some(secs(1)));
    for ts in (0..=60_000).step_by(1_000) {
        h.process(Event::new("k", ts).partition(0));
    }
    h.advance_processing_time(1_200);
    assert_eq!(h.watermark(), MIN_WATERMARK);
    h.advance_processing_time(200);
    assert_eq!(h.partition(1).map(|(_, p)| p.idle), Some(true));
    assert_eq!(h.watermark_timeline(), &[(1_400, 54_999)]);
    let last = h.output().last().expect("windows fired");
    assert_eq!((last.window.end, last.emitted_at), (55_000, 1_400));
}

#[test]
fn v09_all_splits_idle_flush_max_then_idle() {
    for first_idle in [0, 1] {
        let mut c = SplitCombiner::new(Some(1_000));
        c.add_split();
        c.add_split();
        c.set_split_watermark(0, 5);
        c.set_split_watermark(1, 4);
        assert_eq!(c.combine(200), wm(4));
        c.set_split_idle(first_idle);
        let after_first = c.combine(400);
        c.set_split_idle(1 - first_idle);
        let after_both = c.combine(600);
        // Whatever the order, the subtask ends at 5 and then reports IDLE.
        let flushed: Vec<_> = [after_first, after_both]
            .iter()
            .filter_map(|p| p.watermark)
            .collect();
        assert_eq!(flushed, [5]);
        let then = if after_both.watermark.is_some() {
            c.combine(800)
        } else {
            after_both
        };
        assert_eq!(then, idle(), "order {first_idle}");
        assert_eq!((c.watermark(), c.is_idle()), (5, true));
    }
}

#[test]
fn v10_resumed_split_behind_combined_reactivates_subtask_and_counts_late() {
    let mut h = Harness::tumbling(1)
        .sql_watermark(0)
        .partitions(2)
        .idle_timeout(Some(1_000));
    h.process(Event::new("k", 5).partition(0));
    h.process(Event::new("k", 4).partition(1));
    h.advance_processing_time(2_000);
    assert_eq!(h.subtask(0), Some((5, true)), "combined 5, then IDLE");
    assert!(h.is_idle());
    h.process(Event::new("k", 3).partition(1));
    assert_eq!(
        h.subtask(0),
        Some((5, false)),
        "ACTIVE again (Flink stays IDLE)"
    );
    assert!(!h.is_idle());
    assert_eq!(h.watermark(), 5, "combined stays 5");
    assert_eq!(
        h.late().dropped.get(&1),
        Some(&1),
        "ts 3 <= 5 is late, counted on p1"
    );
    h.process(Event::new("k", 6).partition(1));
    assert_eq!(h.late_dropped(), 1, "ts 6 > 5 is not late");
    h.advance_processing_time(200);
    assert_eq!(h.watermark(), 6);
    let last = h.output().last().expect("fired");
    assert_eq!((last.window, last.count()), (Window::new(6, 7), 1));

    // The same at the subtask: the record itself re-activates it.
    let mut s = subtask(WatermarkStrategy::sql(0).with_idleness(1_000), 2);
    s.on_record(0, 5, 0).expect("split 0");
    s.on_record(1, 4, 0).expect("split 1");
    ticks(&mut s, 200, 0, 2_000);
    assert!(s.is_idle());
    assert_eq!(s.on_record(1, 3, 2_100), Ok(active()));
    assert_eq!(
        s.on_periodic_emit(2_200),
        Progress::NONE,
        "4 is behind 5: nothing"
    );
    assert!(!s.is_idle());
}

#[test]
fn v11_valve_idle_channel_leaves_then_rejoins_once_aligned() {
    let mut v = ChannelValve::new(2);
    assert_eq!(v.input_watermark(0, 10), Progress::NONE);
    assert_eq!(v.input_watermark(1, 5), wm(5));
    assert_eq!(v.input_status(1, IDLE), wm(10));
    assert_eq!(v.input_status(1, ACTIVE), Progress::NONE);
    assert_eq!(v.input_watermark(1, 7), Progress::NONE, "ch1 unaligned");
    assert_eq!(v.watermark(), 10);
    assert_eq!(
        v.input_watermark(1, 12),
        Progress::NONE,
        "aligned, min is 10"
    );
    assert_eq!(v.input_watermark(0, 15), wm(12));
}

#[test]
fn v12_valve_all_idle_flushes_max_in_either_order() {
    let mut v = ChannelValve::new(2);
    v.input_watermark(0, 10);
    assert_eq!(v.input_watermark(1, 5), wm(5));
    assert_eq!(v.input_status(0, IDLE), Progress::NONE);
    assert_eq!(
        v.input_status(1, IDLE),
        Progress {
            watermark: Some(10),
            became_idle: true,
            ..Progress::NONE
        }
    );
    let mut r = ChannelValve::new(2);
    r.input_watermark(0, 10);
    r.input_watermark(1, 5);
    assert_eq!(r.input_status(1, IDLE), wm(10));
    assert_eq!(r.input_status(0, IDLE), idle());
    assert!(r.is_idle());
}

#[test]
fn v13_valve_ignores_watermark_on_idle_channel() {
    let mut v = ChannelValve::new(2);
    v.input_watermark(0, 15);
    assert_eq!(v.input_watermark(1, 10), wm(10));
    assert_eq!(v.input_status(1, IDLE), wm(15));
    assert_eq!(v.input_watermark(1, 20), Progress::NONE);
    assert_eq!(
        v.channel(1).map(|c| c.watermark),
        Some(10),
        "20 on idle ch1 was ignored"
    );
    assert_eq!(v.input_status(1, ACTIVE), Progress::NONE);
    assert_eq!(v.input_watermark(1, 21), Progress::NONE, "min(15, 21) = 15");
    assert_eq!(
        v.channel(1).map(|c| (c.watermark, c.aligned)),
        Some((21, true)),
        "21 counts"
    );
    assert_eq!(v.input_watermark(0, 30), wm(21), "and now holds the output");
}

#[test]
fn v14_tumbling_fires_at_end_minus_one() {
    let mut op = operator(WindowAssigner::tumbling(secs(10)), 0, false);
    let mut out = Vec::new();
    op.process(input(1_000), &mut out).expect("ok");
    op.process(input(9_999), &mut out).expect("ok");
    op.on_watermark(9_998, &mut out);
    assert!(out.is_empty());
    op.on_watermark(9_999, &mut out);
    assert_eq!(fired(&out), [(0, 10_000, 2)]);
    let WindowOutput::Fired(r) = &out[0] else {
        panic!("expected a result")
    };
    assert_eq!(r.window.max_timestamp(), 9_999, "output timestamp");
}

#[test]
fn v15_late_element_dropped_and_counted_next_window_open() {
    let mut op = operator(WindowAssigner::tumbling(secs(10)), 0, false);
    let mut out = Vec::new();
    op.on_watermark(9_999, &mut out);
    op.process(input(9_999), &mut out).expect("ok");
    assert_eq!(op.late().total_dropped(), 1);
    op.process(input(10_000), &mut out).expect("ok");
    assert_eq!(op.late().total_dropped(), 1);
    op.on_watermark(19_999, &mut out);
    assert_eq!(fired(&out), [(10_000, 20_000, 1)]);
}

#[test]
fn v16_allowed_lateness_refires_with_full_contents_then_clears() {
    let mut op = operator(WindowAssigner::tumbling(secs(10)), 2_000, false);
    let mut out = Vec::new();
    op.process(input(1_000), &mut out).expect("ok");
    op.process(input(9_999), &mut out).expect("ok");
    op.on_watermark(9_999, &mut out);
    assert_eq!(fired(&out), [(0, 10_000, 2)]);
    out.clear();
    op.on_watermark(10_500, &mut out);
    assert!(out.is_empty(), "no second firing without a new element");
    op.process(input(5_000), &mut out).expect("ok");
    assert_eq!(fired(&out), [(0, 10_000, 3)], "re-fired with full contents");
    assert!(matches!(&out[0], WindowOutput::Fired(r) if r.refired));
    assert_eq!(op.late().total_dropped(), 0);
    op.on_watermark(11_998, &mut out);
    assert_eq!(op.pending(), 1, "state kept until end - 1 + lateness");
    op.on_watermark(11_999, &mut out);
    assert_eq!(op.pending(), 0, "state cleared at end - 1 + lateness");
    op.process(input(5_000), &mut out).expect("ok");
    assert_eq!(op.late().total_dropped(), 1);
}

#[test]
fn v17_late_side_output_receives_element_and_drop_counter_stays_zero() {
    let mut op = operator(WindowAssigner::tumbling(secs(10)), 0, true);
    let mut out = Vec::new();
    op.on_watermark(9_999, &mut out);
    op.process(input(9_999), &mut out).expect("ok");
    assert_eq!(out, [WindowOutput::Late(input(9_999))]);
    assert_eq!(op.late().total_dropped(), 0);
    assert_eq!(op.late().total_routed(), 1);
}

#[test]
fn v18_negative_timestamps_land_in_the_window_below() {
    let t = WindowAssigner::tumbling(10_000);
    assert_eq!(windows_of(t, -1), [(-10_000, 0)]);
    assert_eq!(windows_of(t, -10_000), [(-10_000, 0)]);
    assert_eq!(windows_of(t, -10_001), [(-20_000, -10_000)]);
}

#[test]
fn v19_offsets_shift_windows_and_offset_equal_to_size_is_an_error() {
    let t = WindowAssigner::Tumbling {
        size: hours(1),
        offset: mins(15),
    };
    assert_eq!(windows_of(t, 0), [(-2_700_000, 900_000)]);
    assert_eq!(windows_of(t, 1_000_000), [(900_000, 4_500_000)]);
    let small = WindowAssigner::Tumbling {
        size: 10,
        offset: -3,
    };
    assert_eq!(windows_of(small, 5), [(-3, 7)]);
    let bad = WindowAssigner::Tumbling {
        size: 10,
        offset: 10,
    };
    assert!(matches!(bad.validate(), Err(Error::InvalidWindow(_))));
    assert!(WindowOperator::new(WindowSpec::count(bad)).is_err());
}

#[test]
fn v20_min_timestamp_is_an_error_not_a_window() {
    let mut out = Vec::new();
    let e = WindowAssigner::tumbling(10).assign(MIN_WATERMARK, &mut out);
    assert!(matches!(e, Err(Error::TimestampOutOfRange { .. })));
    let mut op = operator(WindowAssigner::tumbling(10), 0, false);
    assert!(op.process(input(MIN_WATERMARK), &mut Vec::new()).is_err());
    assert_eq!((op.records_in(), op.pending()), (0, 0), "nothing changed");
}

#[test]
fn v21_kafka_partition_to_subtask_matches_flink() {
    assert_eq!(split_owner("events", 11, 8), Ok(2));
    let owners: Vec<usize> = (0..16)
        .map(|p| split_owner("events", p, 8).expect("valid"))
        .collect();
    assert_eq!(owners, [7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6]);
}

fn four_partitions_on_eight_subtasks(idle: Option<i64>) -> Harness {
    let mut h = Harness::tumbling(secs(1))
        .sql_watermark(0)
        .partitions(4)
        .parallelism(8)
        .idle_timeout(idle);
    for step in 0..20 {
        let t = step * 100;
        for p in 0..4 {
            h.process_at(t, Event::new("k", t).partition(p));
        }
    }
    h.set_processing_time(2_000);
    h
}

#[test]
fn v22_subtasks_without_partitions_hold_downstream_unless_idleness() {
    let owners: Vec<usize> = (0..4)
        .map(|p| split_owner("events", p, 8).expect("valid"))
        .collect();
    assert_eq!(owners, [7, 0, 1, 2], "subtasks 3-6 have no split");

    let stuck = four_partitions_on_eight_subtasks(None);
    assert_eq!(stuck.watermark(), MIN_WATERMARK);
    let holder = stuck.held_by().expect("held");
    assert_eq!((holder.subtask, holder.partition), (3, None));

    let released = four_partitions_on_eight_subtasks(Some(1_000));
    for s in 3..=6 {
        assert_eq!(released.subtask(s), Some((MIN_WATERMARK, true)));
    }
    let first = released.watermark_timeline().first().expect("advanced");
    assert_eq!(first.0, 1_400, "empty subtasks go idle at t=1400");
    assert!(released.watermark() > 1_000);
}

#[test]
fn v23_sql_watermark_has_no_minus_one() {
    let run = |h: Harness| {
        let mut h = h.partitions(1);
        h.process(Event::new("k", 1_000));
        h.process(Event::new("k", 9_999));
        h.advance_processing_time(200);
        (h.watermark(), h.output().len())
    };
    assert_eq!(
        run(Harness::tumbling(5_000).sql_watermark(secs(5))),
        (4_999, 1)
    );
    assert_eq!(
        run(Harness::tumbling(5_000).out_of_orderness(secs(5))),
        (4_998, 0)
    );
}

#[test]
fn v23b_sql_watermark_takes_the_last_row_like_flink() {
    // Flink's SQL generator assigns the last row's `ts - d` (it does not take
    // a maximum); the split keeps its highest watermark.
    let mut h = Harness::tumbling(1_000).sql_watermark(0);
    h.process(Event::new("k", 9_999));
    h.process(Event::new("k", 1_000));
    h.advance_processing_time(200);
    assert_eq!(h.watermark(), 1_000, "the last row, 1000, not 9999");
    h.process(Event::new("k", 500));
    h.advance_processing_time(200);
    assert_eq!(
        h.watermark(),
        1_000,
        "500 is below the split's 1000: no regression"
    );
    h.process(Event::new("k", 3_000));
    h.advance_processing_time(200);
    assert_eq!(h.watermark(), 3_000);
    // The DataStream form keeps the maximum.
    let mut d = Harness::tumbling(1_000).out_of_orderness(0);
    d.process(Event::new("k", 9_999));
    d.process(Event::new("k", 1_000));
    d.advance_processing_time(200);
    assert_eq!(d.watermark(), 9_998);
}

#[test]
fn v24_sql_tumble_late_row_dropped_boundary_row_accepted() {
    let mut h = Harness::tumbling(secs(5)).sql_watermark(secs(5));
    h.process(Event::new("k", 1_000));
    h.process(Event::new("k", 9_999));
    h.advance_processing_time(200);
    assert_eq!(h.watermark(), 4_999);
    let w = h.output()[0].window;
    assert_eq!((w.start, w.end, w.max_timestamp()), (0, 5_000, 4_999));
    h.process(Event::new("k", 4_000));
    assert_eq!(h.late_dropped(), 1);
    h.process(Event::new("k", 5_000));
    assert_eq!(h.late_dropped(), 1);
    h.end_of_input();
    let last = h.output().last().expect("fired");
    assert_eq!((last.window, last.count()), (Window::new(5_000, 10_000), 2));
}

#[test]
fn v25_hop_row_counts_in_unfired_windows_only() {
    let mut op = operator(WindowAssigner::hopping(secs(10), secs(5)), 0, false);
    let mut out = Vec::new();
    op.on_watermark(5_000, &mut out);
    op.process(input(3_000), &mut out).expect("ok");
    assert_eq!(op.late().total_dropped(), 0, "not a drop");
    op.on_watermark(MAX_WATERMARK, &mut out);
    assert_eq!(fired(&out), [(0, 10_000, 1)]);
}

#[test]
fn v26_end_of_input_fires_everything_even_when_idle() {
    for idle_first in [false, true] {
        let mut h = Harness::tumbling(secs(10))
            .out_of_orderness(0)
            .idle_timeout(Some(1_000));
        for ts in (1_000..=2_000).step_by(100) {
            h.process(Event::new("k", ts));
        }
        if idle_first {
            h.advance_processing_time(secs(5));
            assert_eq!(h.subtask(0).map(|s| s.1), Some(true), "source idle");
        }
        assert!(h.output().is_empty());
        h.end_of_input();
        assert_eq!(h.watermark(), MAX_WATERMARK);
        let f = &h.output()[0];
        assert_eq!((f.window, f.count()), (Window::new(0, 10_000), 11));
    }
}

#[test]
fn v27_alignment_pauses_sources_ahead_by_more_than_max_drift() {
    let mut g = AlignmentGroup::new(secs(10));
    g.report(0, 100_000);
    g.report(1, 130_000);
    assert_eq!(g.max_allowed(), 110_000);
    assert!(g.should_pause(130_000));
    assert_eq!(g.paused(), [1]);
    g.report(0, 125_000);
    assert_eq!(g.max_allowed(), 135_000);
    assert!(g.paused().is_empty());
    assert!(
        !g.should_pause(135_000),
        "exactly at max_allowed is not paused"
    );
    g.report_idle(1);
    assert_eq!(g.max_allowed(), 135_000);
    g.report(0, 200_000);
    g.report_idle(1);
    assert!(g.paused().is_empty(), "an idle member is never paused");
    g.report_idle(0);
    assert_eq!(g.max_allowed(), MAX_WATERMARK);
}

#[test]
fn v28_interval_zero_only_end_of_input_moves_the_watermark() {
    let mut h = Harness::tumbling(secs(1))
        .out_of_orderness(0)
        .emit_interval(0)
        .idle_timeout(Some(1_000));
    h.process(Event::new("k", 500));
    h.advance_processing_time(hours(1));
    assert_eq!(h.watermark(), MIN_WATERMARK);
    assert_eq!(
        h.subtask(0),
        Some((MIN_WATERMARK, false)),
        "idleness never evaluated"
    );
    assert!(h.output().is_empty() && h.watermark_timeline().is_empty());
    h.end_of_input();
    assert_eq!(h.watermark_timeline(), &[(hours(1), MAX_WATERMARK)]);
    assert_eq!(h.output().len(), 1);
}

#[test]
fn v29_split_added_at_runtime_freezes_subtask_without_regression() {
    let mut h = Harness::tumbling(secs(1)).out_of_orderness(secs(5));
    h.process(Event::new("k", 60_000));
    h.advance_processing_time(200);
    assert_eq!(h.watermark(), 54_999);
    let p1 = h.add_partition();
    h.process(Event::new("k", 120_000));
    h.advance_processing_time(200);
    assert_eq!(
        h.subtask(0),
        Some((54_999, false)),
        "frozen, not back to MIN"
    );
    h.process(Event::new("k", 58_000).partition(p1));
    h.advance_processing_time(200);
    assert_eq!(h.watermark(), 54_999, "52_999 is still behind");
    h.process(Event::new("k", 70_000).partition(p1));
    h.advance_processing_time(200);
    assert_eq!(h.watermark(), 64_999);
    assert!(h.watermark_timeline().windows(2).all(|w| w[0].1 < w[1].1));
}

#[test]
fn seed002_generator_exercise_with_manual_clock() {
    let strategy = |s: WatermarkStrategy| s.with_idleness(1_000).with_emit_interval(200);
    let mut datastream =
        strategy(WatermarkStrategy::bounded_out_of_orderness(5)).create_generator();
    let mut sql = strategy(WatermarkStrategy::sql(5)).create_generator();
    for g in [&mut datastream, &mut sql] {
        g.on_event(100);
        g.on_event(200);
    }
    assert_eq!(datastream.on_periodic_emit(200), Emit::Watermark(194));
    assert_eq!(sql.on_periodic_emit(200), Emit::Watermark(195));
    // A silent gap longer than the idle timeout marks the split idle.
    let mut t = 200;
    while datastream.on_periodic_emit(t) != Emit::Idle {
        t += 200;
        assert!(
            t <= 200 + 1_000 + 3 * 200,
            "idle within timeout + 3 intervals"
        );
    }
    assert!(t - 200 > 1_000, "never before the timeout");
    assert!(datastream.is_idle());
}

#[test]
fn aggregates_on_the_harness_compute_per_key_and_window() {
    use lowwater_core::window::aggregate::AggFunc;
    let mut h = Harness::tumbling(secs(10))
        .aggregate(AggSpec::count_star())
        .aggregate(AggSpec::on(AggFunc::Sum, 0))
        .aggregate(AggSpec::on(AggFunc::CountDistinct, 1));
    for (k, ts, amount, user) in [
        ("a", 1, 5, "u1"),
        ("b", 2, 7, "u1"),
        ("a", 3, 1, "u2"),
        ("a", 4, 2, "u1"),
    ] {
        h.process(Event::new(k, ts).value(amount).value(user));
    }
    h.end_of_input();
    let rows: Vec<(String, Vec<Value>)> = h
        .output()
        .iter()
        .map(|f| (f.key[0].to_string(), f.values.clone()))
        .collect();
    let v = |c, s, d| vec![Value::Int(c), Value::Int(s), Value::Int(d)];
    assert_eq!(rows, [("a".into(), v(3, 8, 2)), ("b".into(), v(1, 7, 1))]);
}
