//! Lag-aware idleness (`'scan.watermark.idle-mode' = 'caught-up'`): a split
//! goes idle only when it is quiet AND its reader has read everything the
//! broker has, so idleness can never let the watermark pass records that
//! exist but were not read yet (a partition catching up after a restart).

use lowwater_core::source::SourceSubtask;
use lowwater_core::watermark::generator::WatermarkStrategy;
use lowwater_core::{secs, Timestamp};

const I: i64 = 200;

fn subtask() -> SourceSubtask {
    let mut s =
        SourceSubtask::new(WatermarkStrategy::sql(0).with_idleness(secs(1))).expect("strategy");
    s.add_split(0).expect("split");
    s.add_split(1).expect("split");
    s
}

/// Runs periodic emits from `from` to `to` (exclusive); split 1 gets a
/// record at every emit, split 0 nothing; `behind(t)` says whether split
/// 0's reader is behind at `t`. Returns when split 0 first went idle.
fn run(
    s: &mut SourceSubtask,
    from: Timestamp,
    to: Timestamp,
    behind: impl Fn(Timestamp) -> bool,
) -> Option<Timestamp> {
    let mut t = from;
    let mut idle_at = None;
    while t < to {
        s.on_record(1, t, t).expect("record");
        if behind(t) {
            s.on_backlog(0).expect("split");
        }
        s.on_periodic_emit(t);
        if idle_at.is_none() && s.split(0).expect("split").idle {
            idle_at = Some(t);
        }
        t += I;
    }
    idle_at
}

#[test]
fn a_split_that_is_behind_never_goes_idle() {
    let mut s = subtask();
    s.on_record(0, 1_000, 0).expect("record");
    assert_eq!(run(&mut s, 0, secs(60), |_| true), None);
    // It holds the subtask at its own watermark the whole time.
    assert_eq!(s.watermark(), 1_000);
    assert_eq!(s.holding_split(), Some(0));
}

#[test]
fn a_caught_up_quiet_split_goes_idle_exactly_as_with_timeout_only() {
    let mut timeout = subtask();
    let mut caught_up = subtask();
    let a = run(&mut timeout, 0, secs(10), |_| false);
    // Caught up from the start, then behind once at 2 s (a record burst
    // the broker had): idle again exactly one countdown after that.
    let b = run(&mut caught_up, 0, secs(10), |t| t == secs(2));
    // The first probe (0) starts the countdown; idle on the first probe
    // strictly more than 1 s later.
    assert_eq!(a, Some(1_200));
    // Idle at 1.2 s, then active again at 2 s, and idle once more 1.2 s
    // after the 2.2 s probe (the first quiet one): the first idle moment
    // is the same as with the timeout alone.
    assert_eq!(b, Some(1_200));
    assert!(caught_up.split(0).expect("split").idle);
}

#[test]
fn idleness_counts_from_the_moment_the_split_caught_up() {
    let mut s = subtask();
    // Behind for the last time at the 4.8 s probe; the 5.0 s probe is the
    // first quiet one and starts the countdown; idle on the first probe
    // strictly more than the 1 s timeout later.
    let at = run(&mut s, 0, secs(20), |t| t < secs(5)).expect("went idle");
    assert_eq!(at, 6_200);
}

#[test]
fn an_idle_split_found_behind_becomes_active_and_holds_the_watermark_again() {
    let mut s = subtask();
    s.on_record(0, 500, 0).expect("record");
    let idle = run(&mut s, 0, secs(5), |_| false);
    assert!(idle.is_some());
    let before = s.watermark();
    assert!(before > 500, "split 1 alone moved the watermark");
    // The broker reports new records for split 0: it is active again at
    // once (before its records arrive) and the subtask's watermark stops.
    s.on_backlog(0).expect("split");
    assert!(!s.split(0).expect("split").idle);
    s.on_record(1, secs(9), secs(5)).expect("record");
    s.on_periodic_emit(secs(5));
    assert_eq!(s.watermark(), before, "held at the last emitted watermark");
    assert_eq!(s.holding_split(), Some(0));
}

#[test]
fn backlog_of_an_unknown_split_is_an_error() {
    let mut s = subtask();
    assert!(s.on_backlog(7).is_err());
}
