//! The seed incidents, reproduced on the harness and named after them.
//!
//! Event time is stamped by the producers from their clock, so in these
//! simulations a record's event time is its arrival time minus a small,
//! deterministic per-partition jitter. Processing time is time of day.

use lowwater_core::assignment::split_owner;
use lowwater_core::harness::{Event, Fired, Harness};
use lowwater_core::{hours, mins, secs, Timestamp, MIN_WATERMARK};

const INTERVAL: i64 = 200;

/// Feeds `busy` partitions one record every `every` ms (staggered, with a
/// jitter of up to 1.5 s) and calls `extra` at each step for special
/// partitions, from `from` to `to`.
fn drive(
    h: &mut Harness,
    busy: &[i32],
    every: i64,
    (from, to): (Timestamp, Timestamp),
    mut extra: impl FnMut(&mut Harness, Timestamp),
) {
    let mut t = from;
    while t < to {
        extra(h, t);
        for &p in busy {
            let at = t + i64::from(p) * 7;
            let jitter = (i64::from(p) * 389 + t / every * 113) % 1_500;
            let key = format!("sku-{}", p % 4);
            h.process_at(at, Event::new(key.as_str(), at - jitter).partition(p));
        }
        t += every;
    }
    h.set_processing_time(to);
}

/// Distinct emission times, each with the number of windows emitted then.
fn bursts(out: &[Fired]) -> Vec<(Timestamp, usize)> {
    let mut b: Vec<(Timestamp, usize)> = Vec::new();
    for f in out {
        match b.last_mut() {
            Some((t, n)) if *t == f.emitted_at => *n += 1,
            _ => b.push((f.emitted_at, 1)),
        }
    }
    b
}

fn windows_ending(out: &[Fired], from: Timestamp, to: Timestamp) -> Vec<&Fired> {
    out.iter()
        .filter(|f| f.window.end > from && f.window.end <= to)
        .collect()
}

/// Seed 000: `clickstream`, 16 partitions at parallelism 8; partition 11
/// gets one heartbeat every 90 minutes, stamped with the wall clock.
fn heartbeat(idle_timeout: Option<i64>) -> Harness {
    let mut h = Harness::tumbling(mins(1))
        .sql_watermark(secs(5))
        .topic("clickstream")
        .partitions(16)
        .parallelism(8)
        .idle_timeout(idle_timeout);
    let busy: Vec<i32> = (0..16).filter(|p| *p != 11).collect();
    drive(&mut h, &busy, secs(2), (secs(2), mins(200)), |h, t| {
        if t % mins(90) == secs(10) {
            h.process_at(t, Event::new("heartbeat", t).partition(11));
        }
    });
    h
}

#[test]
fn heartbeat_partition_freezes_windows_then_releases_a_burst() {
    let h = heartbeat(None);
    // Before the first heartbeat the watermark cannot move; after it, only
    // each following heartbeat moves it, by about 90 minutes at once.
    let b = bursts(h.output());
    let big: Vec<(Timestamp, usize)> = b.iter().copied().filter(|(_, n)| *n > 100).collect();
    assert_eq!(big.len(), 2, "two bursts in 200 minutes: {b:?}");
    for ((at, _), hb) in big.iter().zip([mins(90), mins(180)]) {
        let heartbeat_at = hb + secs(10);
        assert!(
            *at >= heartbeat_at && *at <= heartbeat_at + INTERVAL,
            "burst at {at}"
        );
    }
    // Between bursts nothing at all is emitted.
    assert_eq!(
        b.len(),
        big.len() + usize::from(b.first().is_some_and(|f| f.1 <= 100))
    );
    let worst = h.output().iter().map(Fired::emission_lag).max();
    assert!(
        worst.is_some_and(|l| l > mins(88)),
        "windows fire ~90 min late: {worst:?}"
    );
    assert_eq!(h.late_dropped(), 0);

    // At the end, the job is held by partition 11 on its Flink subtask.
    let holder = h.held_by().expect("held");
    assert_eq!(holder.partition, Some(11));
    assert_eq!(Some(holder.subtask), split_owner("clickstream", 11, 8).ok());
    assert_eq!(holder.silent_for, mins(20) - secs(10));
}

#[test]
fn heartbeat_partition_with_idle_timeout_fires_on_time() {
    let timeout = secs(60);
    let h = heartbeat(Some(timeout));
    let heartbeats = [secs(10), mins(90) + secs(10), mins(180) + secs(10)];
    let near_heartbeat = |end: Timestamp| {
        heartbeats
            .iter()
            .any(|hb| end > hb - secs(5) && end <= hb + mins(2))
    };
    for f in h.output() {
        let lag = f.emission_lag();
        if near_heartbeat(f.window.end) {
            // A fresh heartbeat holds the watermark until its partition is idle again.
            assert!(
                lag <= timeout + secs(5) + 3 * INTERVAL,
                "held too long: {f:?}"
            );
        } else {
            // Otherwise: out-of-orderness (5 s) + jitter (1.5 s) + one record step + a tick.
            assert!(
                lag <= secs(5) + 1_500 + secs(2) + INTERVAL,
                "late window: {f:?}"
            );
        }
    }
    // Exactly the hold the timeout allows: after the heartbeat at 90:10,
    // partition 11 holds the watermark at 90:05 until it is idle again, so
    // the window [90:00, 91:00) leaves when partition 11 goes idle, between
    // 60 s and 60 s + 3 intervals after the heartbeat.
    let held = h
        .output()
        .iter()
        .find(|f| f.window.start == mins(90))
        .expect("fired");
    let hb = mins(90) + secs(10);
    assert!(held.emitted_at > hb + timeout && held.emitted_at <= hb + timeout + 3 * INTERVAL);
    // Every minute up to the end fired (199 windows of one minute, per key).
    let minutes: std::collections::BTreeSet<Timestamp> =
        h.output().iter().map(|f| f.window.start).collect();
    assert_eq!(minutes.len(), 199);
    assert_eq!(h.late_dropped(), 0, "heartbeats stamped now are not late");
}

/// Seed 003: 12 partitions keyed by SKU, partition 7 quiet 03:37:58-06:20.
fn overnight(idle_timeout: Option<i64>) -> Harness {
    let mut h = Harness::tumbling(mins(1))
        .out_of_orderness(secs(30))
        .partitions(12)
        .parallelism(4)
        .idle_timeout(idle_timeout);
    let quiet = (hours(3) + mins(37) + secs(58), hours(6) + mins(20));
    let busy: Vec<i32> = (0..12).filter(|p| *p != 7).collect();
    drive(&mut h, &busy, secs(2), (hours(3), hours(7)), |h, t| {
        if t <= quiet.0 || t >= quiet.1 {
            h.process_at(t, Event::new("sku-slow", t).partition(7));
        }
        if t == hours(4) + mins(12) && idle_timeout.is_none() {
            // The case study's Step 2, at 04:12: partition 7 holds everything.
            h.set_processing_time(t);
            let holder = h.held_by().expect("held");
            assert_eq!(holder.partition, Some(7));
            assert_eq!(holder.silent_for, mins(34) + secs(2));
            assert_eq!(holder.watermark, hours(3) + mins(37) + secs(28) - 1);
        }
    });
    h
}

#[test]
fn overnight_quiet_partition_stalls_every_window_for_2h42m() {
    let h = overnight(None);
    let stalled = windows_ending(h.output(), hours(3) + mins(38), hours(6) + mins(19));
    assert!(!stalled.is_empty());
    // Every window of the quiet period came out in one burst at 06:20.
    assert!(stalled
        .iter()
        .all(|f| f.emitted_at >= hours(6) + mins(20)
            && f.emitted_at <= hours(6) + mins(20) + INTERVAL));
    let worst = stalled.iter().map(|f| f.emission_lag()).max().unwrap_or(0);
    assert!(worst > hours(2) + mins(40), "up to 2h 42m late: {worst}");
    // No window at all was emitted between 03:39 and 06:20.
    assert!(!h
        .output()
        .iter()
        .any(|f| f.emitted_at > hours(3) + mins(39) && f.emitted_at < hours(6) + mins(20)));
    assert_eq!(h.late_dropped(), 0, "correct, just late");
}

#[test]
fn overnight_quiet_partition_with_idle_timeout_stays_timely() {
    let h = overnight(Some(mins(1)));
    let quiet_period = windows_ending(h.output(), hours(3) + mins(40), hours(6) + mins(19));
    assert!(quiet_period.len() > 150);
    for f in quiet_period {
        assert!(f.emission_lag() <= secs(30) + secs(7), "late window: {f:?}");
    }
}

/// Seed 000, question 3: the heartbeat producer retired, partition 11 never
/// has a record.
fn retired_producer(idle_timeout: Option<i64>) -> Harness {
    let mut h = Harness::tumbling(mins(1))
        .sql_watermark(secs(5))
        .topic("clickstream")
        .partitions(16)
        .parallelism(8)
        .idle_timeout(idle_timeout);
    let busy: Vec<i32> = (0..16).filter(|p| *p != 11).collect();
    drive(&mut h, &busy, secs(2), (secs(2), mins(30)), |_, _| {});
    h
}

#[test]
fn retired_producer_freezes_event_time_forever() {
    let mut h = retired_producer(None);
    assert!(h.output().is_empty(), "no window ever fires");
    assert_eq!(h.watermark(), MIN_WATERMARK);
    let holder = h.held_by().expect("held");
    assert_eq!(
        (holder.partition, holder.never_had_record),
        (Some(11), true)
    );
    assert_eq!(holder.silent_for, mins(30), "silent since the job started");
    // lowwater's end of input still flushes everything.
    h.end_of_input();
    assert_eq!(
        h.output()
            .iter()
            .map(|f| f.window.start)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        30
    );
}

#[test]
fn retired_producer_with_idle_timeout_releases_windows() {
    let h = retired_producer(Some(secs(60)));
    assert_eq!(h.partition(11).map(|(_, p)| p.idle), Some(true));
    let fired = h
        .output()
        .iter()
        .filter(|f| f.window.end <= mins(29))
        .count();
    assert!(fired > 0);
    assert!(h.output().iter().all(|f| f.emission_lag() < secs(66)));
}

#[test]
fn case_study_silent_partition_test_asserts_the_bug_and_the_fix() {
    let run = |idle: Option<i64>| {
        let mut h = Harness::tumbling(secs(60))
            .out_of_orderness(secs(30))
            .partitions(2)
            .idle_timeout(idle);
        for t in [0, 30, 90, 150] {
            h.process(Event::new("k0", secs(t)).partition(0)); // partition 1 silent
        }
        h.advance_processing_time(secs(300));
        h.output()
            .iter()
            .map(|f| (f.window.start, f.count()))
            .collect::<Vec<_>>()
    };
    assert!(run(None).is_empty()); // the bug, asserted
    assert_eq!(run(Some(secs(60))), [(0, 2), (secs(60), 1)]);
}
