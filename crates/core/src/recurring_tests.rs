use super::*;

fn eleven(silent_ms: Millis) -> Holder {
    Holder {
        subtask: 3,
        split: Some(11),
        silent_ms,
        never_had_record: false,
        gap_ms: Some(60_000),
        silent_at_least: false,
    }
}

/// Seed 000 at its scale: 1-minute windows, records every 100 ms on the
/// busy partitions, partition 11's heartbeat every 60 s; the watermark
/// moves only right after each heartbeat. Observed once a second until
/// `until`; returns every finding opened or closed.
fn heartbeat(m: &mut HoldMeter, from: i64, until: i64, every: i64) -> Vec<Recurring> {
    let mut out = Vec::new();
    let mut wm = 0;
    for s in from..until {
        let now = s * 1_000;
        m.on_record(now);
        if s % every == 1 {
            wm = now - 5_000;
        }
        let silent = (s % every) * 1_000;
        out.extend(m.observe(now, wm, Some(eleven(silent))));
    }
    out
}

#[test]
fn a_heartbeat_every_window_is_a_finding_within_three_windows() {
    let mut m = HoldMeter::new(60_000, 180_000, 0, i64::MIN);
    let found = heartbeat(&mut m, 0, 600, 60);
    let opened = found.first().expect("a finding");
    assert_eq!(opened.to, None);
    assert_eq!(opened.from, 180_000, "after three windows of observation");
    assert_eq!(
        (opened.held_by.subtask, opened.held_by.split),
        (3, Some(11))
    );
    let now = m.finding().expect("still going on");
    assert!(now.share > 0.9, "{}", now.share);
    assert_eq!(
        now.over_ms, 599_000,
        "observed since the start (ten windows at most)"
    );
    assert!(now.longest_ms >= 59_000, "{}", now.longest_ms);
    assert_eq!(found.len(), 1);
}

#[test]
fn a_watermark_that_moves_every_few_seconds_holds_nothing() {
    // Every 5 s under 1-minute windows: each standstill is shorter than a
    // quarter window, the ordinary pace of a sparse stream.
    let mut m = HoldMeter::new(60_000, 180_000, 0, i64::MIN);
    assert!(heartbeat(&mut m, 0, 900, 5).is_empty());
    assert_eq!(m.finding(), None);
}

#[test]
fn the_finding_closes_once_the_holds_cover_less_than_half() {
    let mut m = HoldMeter::new(60_000, 180_000, 0, i64::MIN);
    assert_eq!(heartbeat(&mut m, 0, 600, 60).len(), 1);
    // The idle timeout is set: the watermark moves every second.
    let mut closed = None;
    for s in 600..1_500 {
        let now = s * 1_000;
        m.on_record(now);
        if let Some(r) = m.observe(now, now - 5_000, Some(eleven(0))) {
            closed = Some(r);
            break;
        }
    }
    let closed = closed.expect("closed");
    let to = closed.to.expect("an end");
    // Ten windows measured: the old holds cover less than half after
    // about five windows of moving.
    assert!((880_000..=960_000).contains(&to), "{to}");
    assert_eq!(m.finding(), None);
}

#[test]
fn a_standstill_without_records_is_not_a_hold() {
    // Nothing arrives at all (a quiet night without an idle timeout): the
    // watermark stands still and no one waits.
    let mut m = HoldMeter::new(60_000, 180_000, 0, 0);
    for s in 0..900 {
        assert_eq!(m.observe(s * 1_000, 0, Some(eleven(s * 1_000))), None);
    }
}

#[test]
fn restored_it_goes_on_as_if_nothing_stopped() {
    let mut m = HoldMeter::new(60_000, 180_000, 0, i64::MIN);
    heartbeat(&mut m, 0, 150, 60);
    let bytes = postcard::to_allocvec(&m).expect("encode");
    let mut back: HoldMeter = postcard::from_bytes(&bytes).expect("decode");
    assert_eq!(
        heartbeat(&mut back, 150, 600, 60),
        heartbeat(&mut m, 150, 600, 60)
    );
}

#[test]
fn a_standstill_longer_than_the_stall_threshold_is_a_stall_not_a_hold() {
    // An outage of 10 minutes at a time (a stall each time): no finding.
    let mut m = HoldMeter::new(60_000, 180_000, 0, i64::MIN);
    assert!(heartbeat(&mut m, 0, 3_000, 600).is_empty());
}
