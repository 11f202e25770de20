use proptest::prelude::*;

use super::*;
use crate::time::MAX_WATERMARK;

fn wm(w: Timestamp) -> Progress {
    Progress {
        watermark: Some(w),
        ..Progress::NONE
    }
}

const IDLE: Progress = Progress {
    became_active: false,
    watermark: None,
    became_idle: true,
};

const ACTIVE: Progress = Progress {
    became_active: true,
    watermark: None,
    became_idle: false,
};

/// The watermarks in a list of progress.
fn wms(ps: &[Progress]) -> Vec<Timestamp> {
    ps.iter().filter_map(|p| p.watermark).collect()
}

#[test]
fn the_operator_watermark_is_the_minimum_over_its_ports() {
    // Two ports (say a join's probe and build side), two channels each.
    let mut g = InputGate::new(&[2, 2]);
    assert!(g.watermark(0, 0, 10).is_empty());
    assert!(g.watermark(0, 1, 12).is_empty(), "port 1 is still at MIN");
    assert!(
        g.watermark(1, 0, 20).is_empty(),
        "port 1's channel 1 is at MIN"
    );
    assert_eq!(g.holding(), Some((1, 1)));
    assert_eq!(wms(&g.watermark(1, 1, 15)), vec![10]);
    assert_eq!(g.holding(), Some((0, 0)));
    assert_eq!(g.holding_watermark(), 10);
    // Port 0 moves to 12 (its minimum); port 1 is at 15.
    assert_eq!(wms(&g.watermark(0, 0, 30)), vec![12]);
    assert_eq!(g.holding(), Some((0, 1)));
    assert_eq!(g.current(), 12);
}

#[test]
fn an_idle_port_is_left_out_and_all_idle_flushes_the_maximum() {
    let mut g = InputGate::new(&[1, 1]);
    assert!(g.watermark(0, 0, 100).is_empty());
    // Port 1 never had a record and goes idle: port 0 alone decides.
    assert_eq!(g.input(1, 0, IDLE), vec![wm(100)]);
    assert!(!g.is_idle());
    assert_eq!(g.holding(), Some((0, 0)));
    // Port 0 goes idle too: the maximum (100, already out), then IDLE.
    assert_eq!(g.input(0, 0, IDLE), vec![IDLE]);
    assert!(g.is_idle());
    assert_eq!(g.holding(), None);
    // Port 1 wakes up below the operator's watermark: ACTIVE, no regress.
    assert_eq!(g.input(1, 0, ACTIVE), vec![ACTIVE]);
    assert!(g.watermark(1, 0, 50).is_empty());
    assert_eq!(wms(&g.watermark(1, 0, 101)), vec![101]);
    assert_eq!(g.current(), 101);
}

#[test]
fn when_every_port_is_idle_the_order_they_went_idle_does_not_matter() {
    // Flink 2.3's CombinedWatermarkStatus: all idle -> the maximum.
    for first in [0, 1] {
        let mut g = InputGate::new(&[1, 1]);
        g.watermark(0, 0, 5);
        g.watermark(1, 0, 4);
        g.input(first, 0, IDLE);
        g.input(1 - first, 0, IDLE);
        assert_eq!(g.current(), 5, "port {first} idle first");
        assert!(g.is_idle());
    }
}

#[test]
fn end_of_input_on_every_port_releases_every_window() {
    let mut g = InputGate::new(&[2, 1]);
    g.watermark(0, 0, MAX_WATERMARK);
    g.watermark(0, 1, MAX_WATERMARK);
    assert_eq!(wms(&g.watermark(1, 0, MAX_WATERMARK)), vec![MAX_WATERMARK]);
}

#[test]
fn a_quiet_channel_of_one_port_holds_the_operator_and_is_named() {
    // Seed 000 one operator later: the build side's partition 1 is quiet.
    let mut g = InputGate::new(&[1, 2]);
    for t in [100, 200, 300] {
        g.watermark(0, 0, t);
        g.watermark(1, 0, t);
    }
    assert_eq!(g.current(), MIN_WATERMARK);
    assert_eq!(g.holding(), Some((1, 1)));
    assert_eq!(g.holding_watermark(), MIN_WATERMARK);
    assert_eq!(wms(&g.input(1, 1, IDLE)), vec![300]);
}

#[test]
fn barriers_align_across_every_channel_of_every_port() {
    let mut g = InputGate::new(&[2, 1]);
    assert_eq!(g.barrier(0, 0, 1), Alignment::Holding);
    assert!(g.is_held(0, 0) && !g.is_held(0, 1) && !g.is_held(1, 0));
    assert_eq!(g.barrier(1, 0, 1), Alignment::Holding);
    assert!(g.is_held(1, 0));
    assert_eq!(g.barrier(0, 1, 1), Alignment::Aligned(1));
    assert!(!g.is_held(0, 0) && !g.is_held(1, 0));
    // A channel that ended counts as delivered.
    assert_eq!(g.end(1, 0), Alignment::Ignored);
    assert_eq!(g.barrier(0, 0, 2), Alignment::Holding);
    assert_eq!(g.barrier(0, 1, 2), Alignment::Aligned(2));
    // Channels that do not exist change nothing.
    assert_eq!(g.barrier(2, 0, 3), Alignment::Ignored);
    assert_eq!(g.barrier(0, 2, 3), Alignment::Ignored);
    assert!(!g.is_held(5, 0));
}

#[test]
fn a_newer_barrier_on_another_port_abandons_the_older_alignment() {
    let mut g = InputGate::new(&[1, 1]);
    assert_eq!(g.barrier(0, 0, 1), Alignment::Holding);
    assert_eq!(g.barrier(1, 0, 2), Alignment::Holding);
    assert_eq!(g.take_abandoned(), vec![1]);
    assert!(!g.is_held(0, 0), "port 0 delivered 1, not 2");
    assert_eq!(g.barrier(0, 0, 1), Alignment::Ignored);
    assert_eq!(g.barrier(0, 0, 2), Alignment::Aligned(2));
}

#[test]
fn a_cancelled_alignment_releases_the_held_channels() {
    let mut g = InputGate::new(&[1, 1]);
    g.barrier(0, 0, 3);
    assert_eq!(g.cancel_alignment(), Some(3));
    assert!(!g.is_held(0, 0));
    assert_eq!(g.barrier(1, 0, 3), Alignment::Ignored);
}

#[test]
fn a_gate_restored_from_a_one_input_valve_goes_on_as_the_valve_would() {
    let mut v = ChannelValve::new(2);
    v.input_watermark(0, 10);
    v.input_watermark(1, 20);
    let mut g = InputGate::single(v.clone());
    assert_eq!(g.current(), 10);
    assert_eq!(wms(&g.watermark(0, 0, 15)), vec![15]);
    let mut restored = InputGate::restore(g.state().clone());
    assert_eq!(restored.current(), 15);
    assert_eq!(wms(&restored.watermark(0, 0, 30)), vec![20]);
}

/// One step of a channel: a watermark or a status change.
fn step() -> impl Strategy<Value = (usize, Progress)> {
    let p = prop_oneof![
        (0i64..50).prop_map(wm),
        Just(IDLE),
        Just(ACTIVE),
        Just(wm(MAX_WATERMARK)),
    ];
    (0usize..3, p)
}

proptest! {
    /// With one port, the gate is exactly the valve (Flink's one-input
    /// operators have no combined status).
    #[test]
    fn one_port_is_the_valve(steps in proptest::collection::vec(step(), 0..60)) {
        let mut valve = ChannelValve::new(3);
        let mut g = InputGate::new(&[3]);
        for (ch, p) in steps {
            prop_assert_eq!(g.input(0, ch, p), valve.input(ch, p));
            prop_assert_eq!(g.current(), valve.watermark());
            prop_assert_eq!(g.is_idle(), valve.is_idle());
        }
    }

    /// Over any input, the operator's watermark never goes backwards and
    /// never passes what an active port has seen.
    #[test]
    fn the_combined_watermark_is_monotone(steps in proptest::collection::vec((0usize..2, step()), 0..80)) {
        let mut g = InputGate::new(&[3, 3]);
        let mut last = MIN_WATERMARK;
        for (port, (ch, p)) in steps {
            for out in g.input(port, ch, p) {
                if let Some(w) = out.watermark {
                    prop_assert!(w > last);
                    last = w;
                }
            }
            prop_assert_eq!(g.current(), last);
        }
    }
}
