//! Dumps that used to exhaust memory: a partition number is an id, not an
//! index (partition 2147483647 made replay allocate 16 GiB).

use lowwater_replay::{replay, ReplayArgs};
use lowwater_sql::plan::JobPlan;

/// The process's peak resident memory in KiB (`VmHWM`).
fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

#[test]
fn a_huge_partition_number_costs_no_memory() {
    let dir = std::env::temp_dir().join(format!("lowwater-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let dump = dir.join("events.jsonl");
    let line = |p: i64, ts: i64, user: &str| {
        format!(
            r#"{{"topic":"events","partition":{p},"offset":0,"tstype":"create","ts":{ts},"key":null,"payload":"{{\"user_id\":\"{user}\",\"ts\":\"2025-09-14 12:00:0{}\"}}"}}"#,
            ts % 10
        )
    };
    std::fs::write(
        &dump,
        [
            line(0, 1_757_851_200_000, "a"),
            line(2_147_483_647, 1_757_851_200_001, "b"),
        ]
        .join("\n"),
    )
    .expect("write");
    let plan = JobPlan::from_sql(
        "CREATE TABLE events (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
           WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
         CREATE TABLE sink (window_start TIMESTAMP(3), n BIGINT) WITH ('connector' = 'blackhole');
         INSERT INTO sink SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts),
           INTERVAL '10' SECOND)) GROUP BY window_start, window_end;",
    )
    .expect("plans");
    let before = peak_kib();
    let out = replay(
        &plan,
        &ReplayArgs {
            inputs: vec![("events".into(), dump)],
            ..ReplayArgs::default()
        },
    )
    .expect("replays");
    assert_eq!(out.report.totals.records_in, 2);
    let grown = peak_kib().saturating_sub(before);
    assert!(grown < 256 * 1024, "peak memory grew by {grown} KiB");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn late_records_after_a_future_timestamp_are_blamed_on_it() {
    // One partition; and four with a 1 min idle timeout and a 3 min lull,
    // after which the poisoned partition's watermark passes.
    for (name, partitions, blamed) in [
        ("future_timestamp_unguarded", 1, 0),
        ("future_timestamp_lull_unguarded", 4, 2),
    ] {
        let case = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden/cases")
            .join(name);
        let sql = std::fs::read_to_string(case.join("job.sql")).expect("job");
        let plan = JobPlan::from_sql(&sql).expect("plans");
        let out = replay(
            &plan,
            &ReplayArgs {
                inputs: vec![("events".into(), case.join("events.jsonl"))],
                partitions: vec![("events".into(), partitions)],
                ..ReplayArgs::default()
            },
        )
        .expect("replays");
        assert!(out.report.totals.late_records_dropped > 0, "{name}");
        let summary = lowwater_replay::report::summary(&out.report);
        assert!(
            summary.contains(&format!(
                "partition {blamed} of events has a record dated 9999-01-01"
            )) && summary.contains("'lowwater.watermark.max-future' = '10 min' on table events"),
            "{name}: {summary}"
        );
    }
}

#[test]
fn open_windows_are_bounded_and_the_stall_holding_them_is_named() {
    let dir = std::env::temp_dir().join(format!("lowwater-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let dump = dir.join("events.jsonl");
    let t0 = 1_757_851_200_000i64;
    let rec = |p: i32, o: usize, ts: i64, user: &str| {
        let sec = (ts - t0) / 1_000;
        format!(
            r#"{{"topic":"events","partition":{p},"offset":{o},"tstype":"create","ts":{ts},"key":null,"payload":"{{\"user_id\":\"{user}\",\"ts\":\"2025-09-14 {:02}:{:02}:{:02}\"}}"}}"#,
            12 + sec / 3600,
            sec / 60 % 60,
            sec % 60
        )
    };
    // Partition 1 says one thing and falls silent: the watermark stays at
    // its first record while partition 0 brings 20,000 users.
    let mut lines = vec![rec(1, 0, t0, "quiet")];
    lines.extend((0..20_000).map(|i| rec(0, i, t0 + i as i64 * 100, &format!("u{i}"))));
    std::fs::write(&dump, lines.join("\n")).expect("write");
    let job = |limit: &str| {
        JobPlan::from_sql(&format!(
            "{limit}CREATE TABLE events (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
               WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
             CREATE TABLE sink (window_start TIMESTAMP(3), user_id STRING, n BIGINT) WITH ('connector' = 'blackhole');
             INSERT INTO sink SELECT window_start, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts),
               INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id;"
        ))
        .expect("plans")
    };
    let args = ReplayArgs {
        inputs: vec![("events".into(), dump.clone())],
        ..ReplayArgs::default()
    };
    let e = replay(
        &job("SET 'lowwater.state.max-open-windows' = '5000';\n"),
        &args,
    )
    .expect_err("the limit stops the replay")
    .to_string();
    assert!(
        e.contains(
            "(window, key) states are open, more than lowwater.state.max-open-windows (5000)"
        ) && e.contains("partition 1 of topic events holds it"),
        "{e}"
    );
    replay(&job(""), &args).expect("within the default limit");

    // 'fire-oldest': the oldest windows fire early instead, their rows
    // marked in the sink's lowwater_incomplete column; nothing is lost.
    let plan = JobPlan::from_sql(
        "SET 'lowwater.state.max-open-windows' = '5000';
         SET 'lowwater.state.on-limit' = 'fire-oldest';
         CREATE TABLE events (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
           WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
         CREATE TABLE sink (window_start TIMESTAMP(3), user_id STRING, n BIGINT, lowwater_incomplete BOOLEAN)
           WITH ('connector' = 'kafka', 'topic' = 'sink', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
         INSERT INTO sink (window_start, user_id, n) SELECT window_start, user_id, COUNT(*)
         FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id;",
    )
    .expect("plans");
    let out = replay(&plan, &args).expect("fires early instead of failing");
    let rows: Vec<String> = out.outputs["sink"]
        .iter()
        .map(|r| String::from_utf8_lossy(r.payload.as_deref().unwrap_or_default()).into_owned())
        .collect();
    let early = rows
        .iter()
        .filter(|r| r.contains(r#""lowwater_incomplete":true"#))
        .count();
    let complete = rows
        .iter()
        .filter(|r| r.contains(r#""lowwater_incomplete":false"#))
        .count();
    assert_eq!(rows.len(), 20_001, "one row per user (each in one window)");
    assert_eq!(early + complete, rows.len());
    assert!(
        early > 10_000 && complete > 0,
        "{early} early, {complete} at the end"
    );
    assert_eq!(out.report.sinks[0].early_rows, early as u64);
    assert_eq!(out.report.totals.late_records_dropped, 0);
    assert!(
        out.peak_open_windows["sink"] <= 5_000 + 4_096,
        "{:?}",
        out.peak_open_windows
    );
    let summary = lowwater_replay::report::summary(&out.report);
    assert!(
        summary.contains("row(s) fired early, incomplete"),
        "{summary}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dump_line_nested_50000_deep_is_an_error_with_its_line() {
    let deep = format!(
        r#"{{"topic":"events","partition":0,"ts":1,"x":{}1{}}}"#,
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    let e = lowwater_connectors::dump::parse_line(&deep).expect_err("too deep");
    assert!(e.to_string().contains("deeper than"), "{e}");
}

/// A dump line of topic `events` with `payload` as its (escaped) value.
fn event_line(p: i64, offset: i64, arrival: i64, payload: &str) -> String {
    format!(
        r#"{{"topic":"events","partition":{p},"offset":{offset},"tstype":"create","ts":{arrival},"key":null,"payload":"{payload}"}}"#
    )
}

/// An escaped JSON value of user `u` at event time `event`.
fn user_at(event: &str) -> String {
    format!(r#"{{\"user_id\":\"u\",\"ts\":\"{event}\"}}"#)
}

/// A 10 s count over `events`, whose partitions align with a 30 s drift,
/// updated every `update_interval`.
fn aligned_job(update_interval: &str) -> JobPlan {
    JobPlan::from_sql(&format!(
        "CREATE TABLE events (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
           WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json',
                 'scan.watermark.alignment.group' = 'g', 'scan.watermark.alignment.max-drift' = '30 s',
                 'scan.watermark.alignment.update-interval' = '{update_interval}');
         CREATE TABLE sink (window_start TIMESTAMP(3), n BIGINT) WITH ('connector' = 'blackhole');
         INSERT INTO sink SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts),
           INTERVAL '10' SECOND)) GROUP BY window_start, window_end;"
    ))
    .expect("plans")
}

/// Replays `plan` over a dump of `lines` written to a scratch directory.
fn replay_lines(
    name: &str,
    plan: &JobPlan,
    lines: &[String],
) -> Result<lowwater_replay::Outcome, lowwater_replay::ReplayError> {
    let dir = std::env::temp_dir().join(format!("lowwater-hostile-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let dump = dir.join("events.jsonl");
    std::fs::write(&dump, lines.join("\n")).expect("write");
    let out = replay(
        plan,
        &ReplayArgs {
            inputs: vec![("events".into(), dump)],
            ..ReplayArgs::default()
        },
    );
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// Found by the fuzz target: with watermark alignment holding records of a
/// paused partition back, an arrival time centuries ahead made the replay
/// run one periodic tick per 200 ms up to it (10^16 ticks). Once a quiet
/// tick leaves alignment as it was, the replay jumps as it does without
/// alignment.
#[test]
fn an_arrival_time_far_ahead_while_alignment_holds_records_is_one_jump() {
    let t = 1_757_851_200_000i64;
    let lines = [
        event_line(1, 0, t, &user_at("2025-09-14 12:00:00")),
        // Partition 0 runs two minutes ahead (drift 30 s): paused.
        event_line(0, 0, t + 10, &user_at("2025-09-14 12:02:00")),
        event_line(0, 1, t + 3_000, &user_at("2025-09-14 12:02:01")),
        event_line(0, 2, t + 3_100, &user_at("2025-09-14 12:02:02")),
        event_line(
            1,
            1,
            4_611_687_776_278_612_903,
            &user_at("2025-09-14 12:00:01"),
        ),
    ];
    let out = replay_lines("far-ahead", &aligned_job("1 s"), &lines).expect("replays");
    assert_eq!(out.report.totals.records_in, 5);
    let paused: Vec<u64> = out.report.partitions.iter().map(|p| p.paused_ms).collect();
    assert!(
        paused.iter().any(|&ms| ms > 0),
        "partition 0 was paused: {paused:?}"
    );
}

/// A record alignment held back and read later still fails at its own
/// place: the replay keeps where held records came from (the dump is
/// streamed, not kept).
#[test]
fn a_held_back_record_that_fails_names_its_own_line() {
    let t = 1_757_851_200_000i64;
    let mut lines = vec![
        event_line(1, 0, t, &user_at("2025-09-14 12:00:00")),
        event_line(0, 0, t + 10, &user_at("2025-09-14 12:02:00")),
        // Held back (partition 0 is paused), then read when partition 1
        // catches up: not JSON.
        event_line(0, 1, t + 3_000, "not json"),
    ];
    for i in 0..200 {
        let event = format!("2025-09-14 12:0{}:{:02}", 1 + i / 60, i % 60);
        lines.push(event_line(1, 1 + i, t + 3_100 + i * 100, &user_at(&event)));
    }
    let err = replay_lines("held", &aligned_job("1 s"), &lines)
        .expect_err("the bad record fails the replay")
        .to_string();
    assert!(err.contains("events.jsonl:3"), "{err}");
    assert!(err.contains("partition 0 offset 1"), "{err}");
}

/// The jump over quiet time while alignment holds records stops at the
/// group's next update, which may resume the paused partition: here the
/// update 20 s after the start, not the next record 60 s after it.
#[test]
fn a_jump_over_quiet_time_stops_at_the_next_alignment_update() {
    let t = 1_757_851_200_000i64;
    let lines = [
        event_line(1, 0, t, &user_at("2025-09-14 12:00:00")),
        // Two minutes ahead with a 30 s drift: paused by the first
        // update, at t + 10 s.
        event_line(0, 0, t + 10, &user_at("2025-09-14 12:02:00")),
        event_line(0, 1, t + 12_000, &user_at("2025-09-14 12:02:01")),
        // Partition 1 catches up: the update at t + 20 s resumes 0.
        event_line(1, 1, t + 15_000, &user_at("2025-09-14 12:01:45")),
        event_line(1, 2, t + 60_000, &user_at("2025-09-14 12:01:46")),
    ];
    let out = replay_lines("jump", &aligned_job("10 s"), &lines).expect("replays");
    // What ticking every 200 ms gives (partition 1 is paused too, from its
    // catch-up record to that update); jumping past the update to the last
    // record gave [48_000, 44_800].
    let paused: Vec<u64> = out.report.partitions.iter().map(|p| p.paused_ms).collect();
    assert_eq!(paused, vec![8_200, 5_000]);
}
