//! Planning: what the planner accepts, what it rejects (with the place and a
//! way out), and the warnings `explain` gives before a job runs.

use std::collections::BTreeMap;

use lowwater_core::window::aggregate::AggFunc;
use lowwater_core::window::assigner::WindowAssigner;
use lowwater_sql::explain::warnings;
use lowwater_sql::plan::{JobPlan, OutputKind};

const SRC: &str = "CREATE TABLE events (user_id STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
CREATE TABLE out (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, n BIGINT)
  WITH ('connector' = 'print');
";

fn job(insert: &str) -> String {
    format!("{SRC}{insert}")
}

fn err(sql: &str) -> String {
    match JobPlan::from_sql(sql) {
        Ok(_) => panic!("expected an error for:\n{sql}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn plans_a_keyed_window_aggregation() {
    let plan = JobPlan::from_sql(&job("SET 'parallelism.default' = '3';
         INSERT INTO out SELECT window_start, window_end, user_id, SUM(amount) AS n
         FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
         WHERE amount > 0 GROUP BY window_start, window_end, user_id"))
    .expect("plans");
    assert_eq!(plan.settings.parallelism, 3);
    let p = &plan.pipelines[0];
    assert_eq!(p.window.assigner, WindowAssigner::hopping(10_000, 5_000));
    assert_eq!(p.window.aggregates[0].func, AggFunc::Sum);
    assert_eq!(
        p.window.aggregates[0].narrow,
        lowwater_core::window::aggregate::Narrow::I32,
        "SUM(INT) is an INT in Flink"
    );
    assert_eq!(
        p.outputs.iter().map(|o| o.kind.clone()).collect::<Vec<_>>(),
        [
            OutputKind::WindowStart,
            OutputKind::WindowEnd,
            OutputKind::Key(0),
            OutputKind::Agg(0)
        ]
    );
    assert!(p.filter.is_some());
    assert_eq!(
        plan.tables[p.source].watermark.map(|w| w.delay),
        Some(5_000)
    );
}

#[test]
fn rejections_name_the_problem_and_the_fix() {
    let cases: Vec<(String, &str)> = vec![
        (
            job("INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(user_id), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id"),
            "DESCRIPTOR(user_id) must name the rowtime column 'ts'",
        ),
        (
            job("INSERT INTO out SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end"),
            "writes 3 column(s) but the target has 4",
        ),
        (
            job("INSERT INTO out SELECT window_start, window_end, amount, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id"),
            "`amount` must be window_start, window_end, window_time, a GROUP BY key or an aggregate",
        ),
        (
            job("INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id"),
            "SESSION must be partitioned by exactly the GROUP BY keys",
        ),
        (
            job("INSERT INTO out SELECT window_start, window_end, user_id, SUM(user_id) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id"),
            "SUM needs a numeric argument, found STRING",
        ),
        (
            job("INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '4' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end, user_id"),
            "integral multiple of the slide",
        ),
        (
            job("INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY user_id"),
            "GROUP BY must contain window_start and window_end",
        ),
        (
            job("SET 'table.exec.mini-batch.enabeld' = 'true'; INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id").replace("mini-batch.enabeld", "minibatch.enabled"),
            "unknown setting 'table.exec.minibatch.enabled'",
        ),
        (job("INSERT INTO out SELECT 1"), "found the end of the file"),
        (
            job("SET 'lowwater.state.on-limit' = 'drop'; INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id"),
            "lowwater.state.on-limit 'drop' is not known; use 'fail'",
        ),
        (
            SRC.replace("'format' = 'json');\nCREATE TABLE out", "'format' = 'json', 'late-data.sink' = 'nowhere');\nCREATE TABLE out"),
            "late-data.sink 'nowhere' is not a table of this job",
        ),
        (
            SRC.replace("'format' = 'json');\nCREATE TABLE out", "'format' = 'json', 'late-data.sink' = 'late');\nCREATE TABLE late (ts TIMESTAMP(3), lowwater_late_reason INT) WITH ('connector' = 'print');\nCREATE TABLE out")
                + "INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id",
            "column 'lowwater_late_reason' holds why a row is late ('late' or 'future-timestamp') and must be STRING, not INT",
        ),
        (
            job("INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id")
                .replace("'format' = 'json');", "'format' = 'json', 'scan.watermark.alignment.update-interval' = '1 s');"),
            "'scan.watermark.alignment.group' and 'scan.watermark.alignment.max-drift' must be set when configuring watermark alignment",
        ),
        (
            job("INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id")
                .replace("'format' = 'json');", "'format' = 'json', 'scan.watermark.alignment.group' = 'g', 'scan.watermark.alignment.max-drift' = '0 s');"),
            "scan.watermark.alignment.max-drift '0 s' is not a positive duration",
        ),
        (
            SRC.replace("WATERMARK FOR ts AS ts - INTERVAL '5' SECOND", "WATERMARK FOR ts AS ts + INTERVAL '5' SECOND"),
            "unsupported watermark expression",
        ),
        (
            job("INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE nope, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id"),
            "table 'nope' is not defined",
        ),
        (SRC.to_string(), "no INSERT INTO"),
    ];
    for (sql, needle) in cases {
        let e = err(&sql);
        assert!(e.contains(needle), "expected {needle:?} in: {e}");
        let line: u64 = e
            .strip_prefix("line ")
            .and_then(|r| r.split(',').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(line >= 1, "every error has a place: {e}");
    }
}

#[test]
fn explain_warns_about_the_seed_configurations() {
    let insert = "INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end, user_id";
    let parts = |n| BTreeMap::from([("events".to_string(), n)]);
    let plan = JobPlan::from_sql(&job(&format!("SET 'parallelism.default' = '8'; {insert}")))
        .expect("plans");
    let w = warnings(&plan, &parts(4)).join("\n");
    assert!(
        w.contains("idle-timeout is disabled and it has 4 partitions"),
        "{w}"
    );
    // The suggestion follows the windows (2 s: at least 1 s), not a fixed
    // '1 min' (issue 37 item 1).
    assert!(
        w.contains("SET 'table.exec.source.idle-timeout' = '1 s' (a quarter of its 2s windows)"),
        "{w}"
    );
    assert!(
        w.contains("`lowwater tune` measures the choice on a dump"),
        "{w}"
    );
    assert!(
        w.contains("subtasks 3, 4, 5, 6 read nothing and hold the watermark at MIN"),
        "{w}"
    );
    assert!(
        w.contains("the window (2s) is shorter than the watermark delay"),
        "{w}"
    );
    let plan = JobPlan::from_sql(&job(&format!(
        "SET 'table.exec.source.idle-timeout' = '1 s'; {insert}"
    )))
    .expect("plans");
    let w = warnings(&plan, &parts(1)).join("\n");
    assert!(
        w.contains("the idle-timeout (1s) is shorter than the watermark delay (5s)"),
        "{w}"
    );
    assert!(
        w.contains("'scan.watermark.idle-mode' = 'caught-up' keeps it active"),
        "{w}"
    );
    let caught_up = JobPlan::from_sql(
        &job(&format!(
            "SET 'table.exec.source.idle-timeout' = '1 s'; {insert}"
        ))
        .replace(
            "'format' = 'json');",
            "'format' = 'json', 'scan.watermark.idle-mode' = 'caught-up');",
        ),
    )
    .expect("plans");
    let w = warnings(&caught_up, &parts(1)).join("\n");
    assert!(!w.contains("idle-mode"), "{w}");
    let calm = JobPlan::from_sql(&job(&insert
        .replace("'2' SECOND", "'1' MINUTE")
        .replace("SET", "")))
    .expect("plans");
    let quiet = JobPlan {
        settings: lowwater_sql::plan::Settings {
            idle_timeout: None,
            ..calm.settings.clone()
        },
        ..calm
    };
    assert_eq!(warnings(&quiet, &parts(1)), Vec::<String>::new());
}

#[test]
fn datagen_options_are_checked() {
    let job = |opts: &str| {
        format!(
            "CREATE TABLE g (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen'{opts});
             CREATE TABLE s (n BIGINT) WITH ('connector' = 'blackhole');
             INSERT INTO s SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end"
        )
    };
    assert!(JobPlan::from_sql(&job(", 'lowwater.partitions' = '4', 'lowwater.partition.3.every' = '90 s', 'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '9'")).is_ok());
    for (opts, needle) in [
        (
            ", 'fields.k.min' = 'abc'",
            "fields.k.min = 'abc' is not valid",
        ),
        (
            ", 'fields.k.kind' = 'sequenc'",
            "fields.k.kind = 'sequenc' is not valid",
        ),
        (", 'fields.nope.min' = '1'", "has no column 'nope'"),
        (
            ", 'lowwater.partitions' = '2', 'lowwater.partition.1.quiet' = '40 s..10 s'",
            "must end after it starts",
        ),
        (
            ", 'lowwater.partitions' = '2', 'lowwater.partition.5.never' = 'true'",
            "partition 5 does not exist",
        ),
        (
            ", 'number-of-rows' = '2.7'",
            "number-of-rows must be a whole number",
        ),
        (
            ", 'rows-per-second' = '-1'",
            "must be a non-negative number",
        ),
        (", 'lowwater.bogus' = '1'", "unsupported option"),
    ] {
        let e = JobPlan::from_sql(&job(opts)).expect_err(opts).to_string();
        assert!(e.contains(needle), "expected {needle:?} in: {e}");
        assert!(!e.starts_with("line 0"), "{e}");
    }
}

#[test]
fn kafka_options_not_implemented_yet_are_errors_not_ignored() {
    for (opt, needle) in [
        (
            "'sink.delivery-guarantee' = 'exactly-once'",
            "needs 'sink.transactional-id-prefix'",
        ),
        (
            "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'j'",
            "exactly-once' needs checkpoints",
        ),
        (
            "'sink.partitioner' = 'com.example.MyPartitioner'",
            "sink.partitioner = 'com.example.MyPartitioner' is not supported yet",
        ),
        (
            "'scan.topic-partition-discovery.interval' = 'often'",
            "often",
        ),
        (
            "'scan.bounded.mode' = 'timestamp'",
            "supported: unbounded, latest-offset",
        ),
        (
            "'scan.watermark.idle-mode' = 'caught-up'",
            "idleness is off; set 'scan.watermark.idle-timeout'",
        ),
        (
            "'scan.watermark.idle-mode' = 'lag'",
            "scan.watermark.idle-mode 'lag' is not known",
        ),
        (
            "'scan.watermark.idle-mode' = 'caught-up', 'scan.watermark.idle-timeout' = '1 s', 'properties.statistics.interval.ms' = '0'",
            "turns off (no partition could ever count as caught up)",
        ),
    ] {
        let sql = job("INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id")
            .replace("'format' = 'json');", &format!("'format' = 'json', {opt});"));
        let e = err(&sql);
        assert!(e.contains(needle), "expected {needle:?} in: {e}");
    }
    let ok = job("INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id")
        .replace("'format' = 'json');", "'format' = 'json', 'scan.bounded.mode' = 'latest-offset', 'sink.delivery-guarantee' = 'at-least-once');");
    assert!(JobPlan::from_sql(&ok).is_ok());
}

#[test]
fn kafka_idle_mode_and_partition_discovery() {
    let q = "INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id";
    let with = |opts: &str| {
        let sql = job(q).replace("'format' = 'json');", &format!("'format' = 'json'{opts});"));
        let plan = JobPlan::from_sql(&sql).expect("plan");
        let t = &plan.tables[plan.table("events").expect("events")];
        (t.caught_up, t.idle_timeout, t.discovery_interval)
    };
    // Flink's defaults: timeout mode, discovery every 5 minutes.
    assert_eq!(with(""), (false, None, Some(300_000)));
    assert_eq!(
        with(", 'scan.watermark.idle-timeout' = '2 s', 'scan.watermark.idle-mode' = 'caught-up'"),
        (true, Some(2_000), Some(300_000))
    );
    assert_eq!(
        with(", 'scan.watermark.idle-timeout' = '2 s', 'scan.watermark.idle-mode' = 'timeout'"),
        (false, Some(2_000), Some(300_000))
    );
    assert_eq!(
        with(", 'scan.topic-partition-discovery.interval' = '0'"),
        (false, None, None)
    );
    assert_eq!(
        with(", 'scan.topic-partition-discovery.interval' = '10 s'"),
        (false, None, Some(10_000))
    );
    // The job-wide idle timeout also satisfies caught-up mode.
    let sql = format!(
        "SET 'table.exec.source.idle-timeout' = '1 s';\n{}",
        job(q).replace(
            "'format' = 'json');",
            "'format' = 'json', 'scan.watermark.idle-mode' = 'caught-up');"
        )
    );
    let plan = JobPlan::from_sql(&sql).expect("plan");
    let t = &plan.tables[plan.table("events").expect("events")];
    assert!(t.caught_up);
    assert_eq!(t.idle_timeout, Some(1_000));
}

#[test]
fn checkpoint_settings_are_planned_checked_and_explained() {
    let insert = "INSERT INTO out SELECT window_start, window_end, user_id, SUM(amount) AS n
         FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND))
         GROUP BY window_start, window_end, user_id";
    let plan = JobPlan::from_sql(&job(&format!(
        "SET 'execution.checkpointing.interval' = '10 s';
         SET 'state.checkpoints.dir' = 'file:///var/lib/lw';
         SET 'state.checkpoints.num-retained' = '5';
         {insert}"
    )))
    .expect("plans");
    let c = &plan.settings.checkpoints;
    assert_eq!(
        (c.interval, c.dir.as_deref(), c.retained),
        (Some(10_000), Some("/var/lib/lw"), 5)
    );
    let text = lowwater_sql::explain::explain(&plan, &Default::default());
    assert!(
        text.contains("checkpoints: every 10s into /var/lib/lw, newest 5 kept"),
        "{text}"
    );
    let e = err(&job(&format!(
        "SET 'execution.checkpointing.interval' = '10 s';\n{insert}"
    )));
    assert!(
        e.contains("execution.checkpointing.dir") && e.starts_with("line "),
        "{e}"
    );
    let e = err(&job(&format!(
        "SET 'execution.checkpointing.dir' = 's3://bucket/x';\n{insert}"
    )));
    assert!(e.contains("local or mounted file system"), "{e}");
    let off = JobPlan::from_sql(&job(insert)).expect("plans");
    let text = lowwater_sql::explain::explain(&off, &Default::default());
    assert!(text.contains("checkpoints: off"), "{text}");
}

/// Issue 34: a Flink job file stopped at `unknown setting
/// 'table.exec.mini-batch.enabled'`. Flink's settings lowwater has no use
/// for are accepted and named in one note; `pipeline.name` is a setting of
/// its own (the checkpoints' directory), not noted as ignored.
#[test]
fn flink_settings_lowwater_has_no_use_for_are_accepted_and_named() {
    let plan = JobPlan::from_sql(&job(
        "SET 'table.exec.mini-batch.enabled' = 'true';
         SET 'table.exec.mini-batch.allow-latency' = '5 s';
         SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
         SET 'table.exec.resource.default-parallelism' = '4';
         SET 'execution.checkpointing.mode' = 'EXACTLY_ONCE';
         SET 'state.backend.type' = 'rocksdb';
         SET 'pipeline.name' = 'clicks-per-minute';
         INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id",
    ))
    .expect("a Flink job file plans");
    assert_eq!(plan.settings.name.as_deref(), Some("clicks-per-minute"));
    let note = plan.settings.ignored_note().expect("named");
    assert!(
        note.starts_with("Flink settings lowwater has no use for, ignored: ")
            && note.contains("lowwater aggregates a window in one phase")
            && note.contains("'table.exec.mini-batch.enabled' = 'true'")
            && note.contains("'state.backend.type' = 'rocksdb'")
            && !note.contains("pipeline.name"),
        "{note}"
    );
    // A setting that is not Flink's stays an error; a prefix alone is not
    // one of them.
    for key in ["table.exec.mini-batchy", "lowwater.watermark.delay"] {
        let e = err(&job(&format!(
            "SET '{key}' = 'x'; INSERT INTO out SELECT window_start, window_end, user_id, \
             COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) \
             GROUP BY window_start, window_end, user_id"
        )));
        assert!(e.contains(&format!("unknown setting '{key}'")), "{e}");
    }
}

#[test]
fn mistyped_settings_and_options_get_a_did_you_mean() {
    let e = err(&job(
        "SET 'pipeline.auto-watermark-intervall' = '1 s'; INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id",
    ));
    assert!(
        e.contains("unknown setting 'pipeline.auto-watermark-intervall'; did you mean 'pipeline.auto-watermark-interval'?"),
        "{e}"
    );
    let e = err(&SRC.replace(
        "'format' = 'json');\nCREATE TABLE out",
        "'format' = 'json', 'scan.startup.mod' = 'earliest-offset');\nCREATE TABLE out",
    ));
    assert!(
        e.contains("did you mean 'scan.startup.mode'?") && !e.contains("supported options"),
        "{e}"
    );
    // A misspelled required key is pointed at, not reported missing at the
    // table (`properties.*` keys pass the unknown-option check).
    let e = err(&SRC.replace(
        "'properties.bootstrap.servers' = 'b:9092'",
        "'properties.bootstrap.server' = 'b:9092'",
    ));
    assert!(
        e.contains(
            "line 3, column 52: table 'events': connector 'kafka' requires option \
             'properties.bootstrap.servers', and 'properties.bootstrap.server' is here: did you \
             mean 'properties.bootstrap.servers'?"
        ),
        "{e}"
    );
    // Values too: a format, a startup mode (its first word alone).
    let e = err(&SRC.replace("'format' = 'json'", "'format' = 'jsn'"));
    assert!(
        e.contains("format 'jsn' is not supported; did you mean 'json'?"),
        "{e}"
    );
    let e = err(&SRC.replace(
        "'format' = 'json');\nCREATE TABLE out",
        "'format' = 'json', 'scan.startup.mode' = 'earliest');\nCREATE TABLE out",
    ));
    assert!(e.contains("did you mean 'earliest-offset'?"), "{e}");
    // Every setting lowwater names as known is accepted by name (a wrong
    // value is another error).
    for key in [
        "table.exec.source.idle-timeout",
        "pipeline.auto-watermark-interval",
        "parallelism.default",
        "table.local-time-zone",
        "execution.checkpointing.interval",
        "execution.checkpointing.dir",
        "state.checkpoints.dir",
        "execution.checkpointing.timeout",
        "state.checkpoints.num-retained",
        "execution.state-recovery.path",
        "lowwater.window.max-windows-per-record",
        "lowwater.state.max-open-windows",
        "lowwater.state.on-limit",
        "pipeline.name",
    ] {
        let r = JobPlan::from_sql(&job(&format!(
            "SET '{key}' = 'x'; INSERT INTO out SELECT 1"
        )));
        let e = r.map(|_| String::new()).unwrap_or_else(|e| e.to_string());
        assert!(!e.contains("unknown setting"), "{key}: {e}");
    }
}

#[test]
fn explain_reads_a_datagen_tables_own_partition_count() {
    let plan = JobPlan::from_sql(
        "CREATE TABLE clicks (user_id INT, event_time TIMESTAMP(3), WATERMARK FOR event_time AS event_time)
         WITH ('connector' = 'datagen', 'lowwater.partitions' = '4');
         CREATE TABLE out (n BIGINT) WITH ('connector' = 'blackhole');
         INSERT INTO out SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(event_time), INTERVAL '1' SECOND))
         GROUP BY window_start, window_end;",
    )
    .expect("plans");
    let text = lowwater_sql::explain::explain(&plan, &Default::default());
    assert!(
        text.contains("partitions -> subtasks (4 per topic") && !text.contains("pass --partitions"),
        "{text}"
    );
    let w = warnings(&plan, &Default::default()).join("\n");
    assert!(w.contains("it has 4 partitions"), "{w}");
}

/// A GROUP BY key that is a plain column read by nothing else of the
/// record is moved out of the source row by its last reader; one an
/// aggregate or the late-data sink also reads is copied. Either way the
/// window input is the same.
#[test]
fn keys_read_by_nothing_else_move_out_of_the_row() {
    use lowwater_core::Value;
    let keyed = |select: &str, late: bool| {
        let src = if late {
            SRC.replace(
                "'format' = 'json');\nCREATE TABLE out",
                "'format' = 'json', 'late-data.sink' = 'late');\nCREATE TABLE late (user_id STRING, lowwater_late_reason STRING) WITH ('connector' = 'print');\nCREATE TABLE out",
            )
        } else {
            SRC.to_string()
        };
        let sql = format!(
            "{src}INSERT INTO out SELECT window_start, window_end, user_id, {select} AS n
             FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
             GROUP BY window_start, window_end, user_id"
        );
        let plan = JobPlan::from_sql(&sql).expect("plans");
        let carried = plan.late_row(0).map(|l| l.columns()).unwrap_or_default();
        let moves = plan.pipelines[0].movable_keys(&plan.tables[0], &carried);
        (plan, moves)
    };
    assert_eq!(keyed("COUNT(*)", false).1, vec![true]);
    assert_eq!(keyed("COUNT(DISTINCT user_id)", false).1, vec![false]);
    assert_eq!(keyed("COUNT(*)", true).1, vec![false]);
    let (plan, moves) = keyed("SUM(amount)", false);
    let pl = &plan.pipelines[0];
    let row = vec![Value::str("u1"), Value::Int(5), Value::Timestamp(7)];
    let (mut key, mut args) = (Vec::new(), Vec::new());
    pl.window_input(&row, &mut key, &mut args).expect("input");
    let mut taken = row.clone();
    let (mut key2, mut args2) = (Vec::new(), Vec::new());
    pl.append_window_input_taking(&mut taken, &moves, &mut key2, &mut args2)
        .expect("input");
    assert_eq!((key2, args2), (key, args));
    assert_eq!(taken, vec![Value::Null, Value::Int(5), Value::Timestamp(7)]);
    // A number is copied (it costs nothing to), even where asked to move.
    let by_amount = JobPlan::from_sql(&job(
        "INSERT INTO out SELECT window_start, window_end, user_id, COUNT(*) AS n
         FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
         GROUP BY window_start, window_end, user_id, amount",
    ))
    .expect("plans");
    let pl = &by_amount.pipelines[0];
    assert_eq!(
        pl.movable_keys(&by_amount.tables[0], &[]),
        vec![true, false]
    );
    let mut taken = row.clone();
    let (mut key, mut args) = (Vec::new(), Vec::new());
    pl.append_window_input_taking(&mut taken, &[true, true], &mut key, &mut args)
        .expect("input");
    assert_eq!(key, vec![Value::str("u1"), Value::Int(5)]);
    assert_eq!(taken, vec![Value::Null, Value::Int(5), Value::Timestamp(7)]);
}

/// Issue 37 item 7: `explain` shows a table's record-key columns and a
/// sink's SLO options.
#[test]
fn explain_shows_record_keys_and_sink_slos() {
    let plan = JobPlan::from_sql(
        "CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
         WITH ('connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = 'b:9092',
               'format' = 'json', 'key.format' = 'json', 'key.fields' = 'user_id',
               'value.fields-include' = 'EXCEPT_KEY');
         CREATE TABLE counts (ws TIMESTAMP(3), user_id STRING, n BIGINT)
         WITH ('connector' = 'kafka', 'topic' = 'counts', 'properties.bootstrap.servers' = 'b:9092',
               'format' = 'json', 'lowwater.sink.max-emission-lag' = '30 s',
               'lowwater.sink.max-staleness' = '5 min');
         INSERT INTO counts SELECT window_start, user_id, COUNT(*)
         FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
         GROUP BY window_start, window_end, user_id;",
    )
    .expect("plans");
    let text = lowwater_sql::explain::explain(&plan, &BTreeMap::new());
    assert!(
        text.contains("key: user_id (json, not in the value))"),
        "{text}"
    );
    assert!(
        text.contains("sink SLOs: max emission lag 30s, max staleness 5m 0s"),
        "{text}"
    );
}
