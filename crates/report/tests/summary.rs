//! The end-of-run summary groups stalls that repeat with the same holder
//! (a heartbeat partition stalls a job again and again) and keeps the
//! others one line each, in time order.

use lowwater_report::{summary, HeldBy, ReplayInfo, Report, StallReport, Totals};

fn stall(from: i64, len: i64, partition: i32) -> StallReport {
    StallReport {
        sink: "out".into(),
        source: "events".into(),
        from_ts: from,
        to_ts: from + len,
        duration_ms: len,
        resolved: true,
        watermark: Some(from - 1_000),
        reason: format!("partition {partition} of events has had no record"),
        held_by: Some(HeldBy {
            topic: Some("events".into()),
            partition: Some(partition),
            subtask: 0,
            silent_ms: len,
            never_had_record: false,
            gap_ms: None,
            silent_at_least: false,
        }),
    }
}

#[test]
fn repeated_stalls_of_one_holder_are_one_line() {
    let mut stalls: Vec<StallReport> = (0..12)
        .map(|i| stall(1_000_000 + i * 60_000, 5_000 + i * 100, 3))
        .collect();
    stalls.insert(4, stall(1_250_000, 9_000, 7));
    let r = Report {
        totals: Totals {
            records_in: 0,
            records_out: 0,
            late_records_dropped: 0,
            late_records_routed: 0,
            records_skipped: 0,
            fields_nulled: 0,
            records_filtered: 0,
            future_records: 0,
        },
        partitions: Vec::new(),
        sinks: Vec::new(),
        stalls,
        recurring_holds: Vec::new(),
        replay: ReplayInfo {
            start_ts: 0,
            end_ts: 2_000_000,
            emit_interval_ms: 200,
            parallelism: 1,
            stall_threshold_ms: 3_000,
            drained: true,
        },
    };
    let text = summary(&r);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("stall")).collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].contains("12 stalls of out held by partition 3 of events")
            && lines[0].contains("longest 6.1s"),
        "{text}"
    );
    assert!(lines[1].starts_with("  stall 5: "), "{text}");
}

#[test]
fn a_negative_emission_lag_is_explained_not_printed() {
    let r = Report {
        totals: Totals {
            records_in: 1,
            records_out: 1,
            late_records_dropped: 0,
            late_records_routed: 0,
            records_skipped: 0,
            fields_nulled: 0,
            records_filtered: 0,
            future_records: 0,
        },
        partitions: Vec::new(),
        sinks: vec![lowwater_report::SinkReport {
            table: "out".into(),
            rows: 1,
            window_rows: 1,
            late_rows: 0,
            max_emission_lag_ms: Some(-60_000),
            early_rows: 0,
            emission_lag_breaches: 0,
        }],
        stalls: Vec::new(),
        recurring_holds: Vec::new(),
        replay: ReplayInfo {
            start_ts: 0,
            end_ts: 1,
            emit_interval_ms: 200,
            parallelism: 1,
            stall_threshold_ms: 3_000,
            drained: true,
        },
    };
    let text = summary(&r);
    assert!(
        !text.contains("-1m") && text.contains("fired at the end of input"),
        "{text}"
    );
}
