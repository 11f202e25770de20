//! The idle timeout a stall's reason suggests, chosen from the data (issue
//! 37): below half the longest gap between the holding partition's records
//! and a quarter of the window, rounded down to a duration one writes,
//! with its trade in the same line; `lowwater tune` named where the data
//! says nothing.

use lowwater_sql::explain::{idle_advice, StallContext, StallHolder};

fn cx(window: Option<i64>, delay: Option<i64>) -> StallContext {
    StallContext {
        source: "clickstream".into(),
        own_idle_option: false,
        idle_timeout: None,
        caught_up: false,
        emit_interval: 200,
        parallelism: 4,
        window,
        delay,
    }
}

fn holder(gap_ms: Option<i64>, never_had_record: bool) -> StallHolder<'static> {
    StallHolder {
        topic: Some("clickstream"),
        partition: Some(11),
        subtask: 3,
        silent_ms: 90_000,
        never_had_record,
        gap_ms,
        silent_at_least: false,
    }
}

#[test]
fn a_heartbeat_every_minute_under_one_minute_windows_gets_15_s_not_1_min() {
    let (t, why) = idle_advice(&cx(Some(60_000), Some(5_000)), &holder(Some(60_000), false));
    assert_eq!(t, "'15 s'");
    assert_eq!(
        why,
        "chosen from its records, at most 1m 0s apart before this silence, and windows every \
         1m 0s; a record of it that comes after more than 15 s of silence, with an event time \
         over 5s behind the other partitions', is then late and counted per partition"
    );
}

#[test]
fn the_gap_or_the_window_whichever_asks_for_less_rounded_down() {
    let t = |gap, window| idle_advice(&cx(window, Some(1_000)), &holder(gap, false)).0;
    // The Quick start: a heartbeat every 8 s, 2-second windows (at least 1 s).
    assert_eq!(t(Some(8_000), Some(2_000)), "'1 s'");
    // A partition quiet for minutes at a time, hourly windows: below half
    // its gap (7 min is written 5 min).
    assert_eq!(t(Some(14 * 60_000), Some(3_600_000)), "'5 min'");
    // Hours of quiet and daily windows: at most 10 min.
    assert_eq!(t(Some(8 * 3_600_000), Some(86_400_000)), "'10 min'");
    // A join (no window): the gap alone.
    assert_eq!(t(Some(203_889), None), "'1 min'");
    assert_eq!(t(Some(40_000), None), "'15 s'");
}

#[test]
fn without_a_gap_the_window_decides_and_without_either_tune_is_named() {
    let (t, why) = idle_advice(&cx(Some(60_000), Some(5_000)), &holder(None, true));
    assert_eq!(t, "'15 s'");
    assert!(
        why.starts_with("it has had no record; chosen from the windows, every 1m 0s;"),
        "{why}"
    );
    let (t, why) = idle_advice(&cx(None, None), &holder(None, true));
    assert_eq!(t, "'1 min'");
    assert!(
        why.contains("`lowwater tune` measures it on a dump of the topic")
            && why.contains("counted per partition"),
        "{why}"
    );
}
