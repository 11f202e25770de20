//! The `lowwater` binary, run for real: success paths write what they say,
//! and every kind of bad input stops with exit code 2 and a message that
//! names the place (line and column, or file:line and topic/partition/offset).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::hostile_payloads;
use sonic_rs::JsonValueTrait;

fn lowwater(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(args)
        .output()
        .expect("the lowwater binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lowwater-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn write(name: &str, text: &str) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, text).expect("write temp file");
    p
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

const JOB: &str = "CREATE TABLE events (user_id STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json');
CREATE TABLE out (window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '/tmp/out', 'format' = 'json');
INSERT INTO out SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
";

fn line(partition: i32, offset: i64, ts: i64, payload: &str) -> String {
    let escaped = payload.replace('\\', "\\\\").replace('"', "\\\"");
    format!(
        r#"{{"topic":"events","partition":{partition},"offset":{offset},"ts":{ts},"key":null,"payload":"{escaped}"}}"#
    )
}

#[test]
fn replay_writes_rows_and_report_and_explains_the_stall() {
    let job = write("ok.sql", JOB);
    let mut dump = String::new();
    for k in 0..40 {
        let ts = 1_757_851_200_000 + k * 1_000;
        dump += &line(
            0,
            k,
            ts,
            &format!(
                r#"{{"user_id":"u","ts":"2025-09-14 12:00:{:02}.000"}}"#,
                k % 60
            ),
        );
        dump.push('\n');
    }
    let input = write("ok.jsonl", &dump);
    let (out, report) = (tmp("ok.out.jsonl"), tmp("ok.report.json"));
    let o = lowwater(&[
        "replay",
        s(&job),
        "--input",
        &format!("events={}", s(&input)),
        "--output",
        &format!("out={}", s(&out)),
        "--report",
        s(&report),
        "--partitions",
        "events=2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("written nowhere"), "{}", stderr(&o));
    let rows = std::fs::read_to_string(&out).expect("output written");
    assert_eq!(rows.lines().count(), 4, "{rows}");
    // Without --output, the sink's rows go nowhere: a hint says so.
    let o = lowwater(&[
        "replay",
        s(&job),
        "--input",
        &format!("events={}", s(&input)),
        "--partitions",
        "events=2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "note: sink out (filesystem): its 4 rows were computed and written nowhere (replay \
             never writes to a sink's connector); add --output out=FILE to see them"
        ),
        "{}",
        stderr(&o)
    );
    assert!(rows.contains(r#"\"cnt\":10"#));
    let report = std::fs::read_to_string(&report).expect("report written");
    assert!(report.contains("\"never_had_record\": true"), "{report}");
    assert!(
        stderr(&o)
            .contains("partition 1 of events (subtask 0) has had no record since the job started"),
        "{}",
        stderr(&o)
    );

    let e = lowwater(&["explain", s(&job), "--partitions", "events=4"]);
    let text = String::from_utf8_lossy(&e.stdout);
    assert!(e.status.success());
    assert!(
        text.contains("idle-timeout is disabled and it has 4 partitions"),
        "{text}"
    );
    assert!(
        text.contains("subtask 0: events/0, events/1, events/2, events/3"),
        "{text}"
    );
}

fn expect_user_error(args: &[&str], needles: &[&str]) {
    let o = lowwater(args);
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(&o));
    let err = stderr(&o);
    for n in needles {
        assert!(err.contains(n), "expected {n:?} in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn unsupported_sql_names_the_construct_and_its_place() {
    let job = write(
        "join.sql",
        &JOB.replace(
            "FROM TABLE(TUMBLE",
            "FROM events JOIN x ON true, TABLE(TUMBLE",
        ),
    );
    expect_user_error(
        &["explain", s(&job)],
        &["join.sql: line 6, column 85", "one join per query"],
    );
    let job = write(
        "array.sql",
        &JOB.replace("user_id STRING", "user_id ARRAY<INT>"),
    );
    expect_user_error(
        &["explain", s(&job)],
        &["line 1, column 30", "type ARRAY is not supported"],
    );
}

#[test]
fn unknown_with_option_is_an_error_like_in_flink() {
    let job = write(
        "opt.sql",
        &JOB.replace(
            "'format' = 'json');\nCREATE TABLE out",
            "'format' = 'json', 'scan.startup.mdoe' = 'x');\nCREATE TABLE out",
        ),
    );
    expect_user_error(
        &["explain", s(&job)],
        &[
            "line 3, column",
            "'scan.startup.mdoe'",
            "did you mean 'scan.startup.mode'?",
        ],
    );
}

#[test]
fn malformed_dump_line_names_file_line_and_column() {
    let job = write("dump.sql", JOB);
    let good = line(
        0,
        0,
        1_000,
        r#"{"user_id":"u","ts":"2025-09-14 12:00:00.000"}"#,
    );
    let input = write(
        "bad.jsonl",
        &format!("{good}\n{{\"topic\":\"events\",\"partition\":oops}}\n"),
    );
    expect_user_error(
        &[
            "replay",
            s(&job),
            "--input",
            &format!("events={}", s(&input)),
        ],
        &["bad.jsonl:2:", "not a kcat -J record"],
    );
}

#[test]
fn payload_of_the_wrong_type_names_the_record_and_the_field() {
    let job = write("type.sql", JOB);
    let input = write(
        "type.jsonl",
        &(line(3, 17, 1_000, r#"{"user_id":"u","ts":12345}"#) + "\n"),
    );
    expect_user_error(
        &[
            "replay",
            s(&job),
            "--input",
            &format!("events={}", s(&input)),
        ],
        &[
            "type.jsonl:1: topic events partition 3 offset 17",
            "field 'ts' (TIMESTAMP(3))",
            "json.ignore-parse-errors",
        ],
    );
}

#[test]
fn command_line_mistakes_are_explained() {
    let job = write("args.sql", JOB);
    expect_user_error(
        &["replay", s(&job), "--input", "nosuch=x.jsonl"],
        &["table 'nosuch'"],
    );
    expect_user_error(
        &["replay", s(&job), "--input", "events"],
        &["expected TABLE=VALUE"],
    );
    let o = lowwater(&[
        "replay",
        s(&job),
        "--input",
        "events=/nonexistent/dump.jsonl",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "an unreadable file is an I/O failure: {}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("/nonexistent/dump.jsonl"));
}

#[test]
fn absurd_arrival_times_finish_and_negative_partitions_are_named() {
    let job = write("absurd.sql", JOB);
    let ok = r#"{"user_id":"u","ts":"2025-09-14 12:00:00.000"}"#;
    let dump = format!("{}\n{}\n", line(0, 0, 1_000, ok), line(0, 1, i64::MAX, ok));
    let input = write("absurd.jsonl", &dump);
    let started = std::time::Instant::now();
    let o = lowwater(&[
        "replay",
        s(&job),
        "--input",
        &format!("events={}", s(&input)),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        started.elapsed().as_secs() < 30,
        "idle ticks are skipped, not run one by one"
    );
    let neg = write("neg.jsonl", &format!("{}\n", line(-1, 0, 1_000, ok)));
    expect_user_error(
        &["replay", s(&job), "--input", &format!("events={}", s(&neg))],
        &["neg.jsonl:1:", "partition -1 is negative"],
    );
}

/// Hostile records in a dump: JSON nested 10,000 levels and an event time
/// of -2^63 stop the replay naming file, line, topic, partition and offset,
/// or are skipped and counted with `json.ignore-parse-errors`; no abort.
#[test]
fn deep_json_and_absurd_event_times_in_a_dump_are_errors_at_their_place() {
    let dir = std::env::temp_dir().join(format!("lowwater-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let payloads = hostile_payloads();
    let lines: String = payloads
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let rec = lowwater_connectors::dump::DumpRecord {
                topic: "t".into(),
                partition: 0,
                offset: Some(i as i64),
                ts: 1_757_808_000_000 + i as i64 * 100,
                key: None,
                payload: Some(p.clone().into_bytes()),
            };
            lowwater_connectors::dump::format_record(&rec) + "\n"
        })
        .collect();
    let input = dir.join("in.jsonl");
    std::fs::write(&input, lines).expect("dump");
    let job = |extra: &str| {
        let path = dir.join(format!("job{}.sql", extra.len()));
        std::fs::write(
            &path,
            format!(
                "CREATE TABLE src (k STRING, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
                 WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json'{extra});
                 CREATE TABLE out (k STRING, n BIGINT) WITH ('connector' = 'print');
                 INSERT INTO out SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k;"
            ),
        )
        .expect("job");
        path
    };
    let input_arg = format!("src={}", s(&input));
    let o = lowwater(&["replay", s(&job("")), "--input", &input_arg]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("in.jsonl:2: topic t partition 0 offset 1"),
        "{err}"
    );
    assert!(err.contains("deeper than 1000 levels"), "{err}");
    let ignore = job(", 'json.ignore-parse-errors' = 'true'");
    let o = lowwater(&["replay", s(&ignore), "--input", &input_arg]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("2 skipped"), "both are counted: {err}");
}

#[test]
fn status_against_a_server_that_never_answers_times_out() {
    // Accepts the connection and never writes a byte.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let held = std::thread::spawn(move || {
        let conn = listener.accept();
        std::thread::sleep(std::time::Duration::from_secs(2));
        drop(conn);
    });
    let t = std::time::Instant::now();
    let o = lowwater(&["status", "--url", &url, "--timeout", "500 ms"]);
    let took = t.elapsed();
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("within 500ms"), "{}", stderr(&o));
    assert!(
        took.as_secs() < 4,
        "gave up after the timeout, not later: {took:?}"
    );
    let o = lowwater(&["status", "--url", &url, "--timeout", "soon"]);
    assert!(
        stderr(&o).contains("--timeout 'soon' is not a duration"),
        "{}",
        stderr(&o)
    );
    held.join().expect("listener thread");
}

fn golden(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../replay/tests/golden/cases")
        .join(case)
}

#[test]
fn dash_is_standard_output_and_print_sinks_print_in_replay() {
    let case = golden("print_sink");
    let input = format!("events={}", s(&case.join("events.jsonl")));
    let want = std::fs::read_to_string(case.join("expected/out.jsonl")).expect("expected");
    // --output TABLE=- writes the dump to standard output.
    let o = lowwater(&[
        "replay",
        s(&case.join("job.sql")),
        "--input",
        &input,
        "--output",
        "out=-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
    // Without --output, a print sink's rows go to standard output, as in `run`.
    let o = lowwater(&[
        "replay",
        s(&case.join("job.sql")),
        "--input",
        &input,
        "--report",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.starts_with("+I[2025-09-14T12:00, 2025-09-14T12:00:10, a, 10]\n"),
        "{out}"
    );
    // ... followed by the report (--report -).
    let json = &out[out.find('{').expect("the report")..];
    let report: sonic_rs::Value = sonic_rs::from_str(json).expect("report JSON");
    assert!(report["totals"]["records_in"]
        .as_u64()
        .is_some_and(|n| n > 0));
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    // Every click as a row (a window function without GROUP BY): more
    // output than a pipe holds, read one line at a time by a reader that
    // stops after the first.
    let job = write(
        "pipe.sql",
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/seed000_heartbeat/job.sql"),
        )
        .expect("example job")
        .replace("clicks       BIGINT", "url STRING")
        .replace(
            "SELECT window_start, window_end, COUNT(*) AS clicks",
            "SELECT window_start, window_end, url",
        )
        .replace("GROUP BY window_start, window_end;", ";"),
    );
    let input = format!(
        "clickstream={}",
        s(&Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/seed000_heartbeat/clickstream.jsonl"))
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args([
            "replay",
            s(&job),
            "--input",
            &input,
            "--output",
            "dashboard=-",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = String::new();
    {
        use std::io::BufRead;
        let mut r = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        r.read_line(&mut first).expect("a line");
    }
    let o = child.wait_with_output().expect("wait");
    assert!(first.starts_with("{\"topic\":\"dashboard\""), "{first}");
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        stderr(&o)
    );
    assert!(!stderr(&o).contains("Broken pipe"), "{}", stderr(&o));
}

#[test]
fn durations_on_the_command_line_take_what_lowwater_prints() {
    let job = golden("tumble_keyed").join("job.sql");
    let o = lowwater(&["run", s(&job), "--duration", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--duration '5': give a unit; did you mean '5 s'?"),
        "{}",
        stderr(&o)
    );
    let input = format!("events={}", s(&golden("tumble_keyed").join("events.jsonl")));
    for d in ["3m 0s", "1h30m", "1.5s"] {
        let o = lowwater(&["replay", s(&job), "--input", &input, "--stall-threshold", d]);
        assert!(o.status.success(), "{d}: {}", stderr(&o));
    }
}

#[test]
fn logs_follow_rust_log_and_are_json_or_plain_as_asked() {
    let case = golden("tumble_keyed");
    let input = format!("events={}", s(&case.join("events.jsonl")));
    let out = tmp("logs-out.jsonl");
    let run = |extra: &[&str], rust_log: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_lowwater"));
        c.args(["run", s(&case.join("job.sql")), "--input", &input])
            .args(["--output", &format!("out={}", s(&out))])
            .args(extra);
        match rust_log {
            Some(v) => c.env("RUST_LOG", v),
            None => c.env_remove("RUST_LOG"),
        };
        let o = c.output().expect("run");
        assert!(o.status.success(), "{}", stderr(&o));
        stderr(&o)
    };
    // Piped, the logs have no colour codes by default.
    let plain = run(&[], None);
    assert!(
        plain.contains("INFO") && !plain.contains('\u{1b}'),
        "{plain}"
    );
    assert!(run(&["--color", "always"], None).contains('\u{1b}'));
    // RUST_LOG and -q raise the level.
    assert!(!run(&[], Some("warn")).contains("INFO"));
    assert!(!run(&["-q"], None).contains("INFO"));
    // JSON: every line of standard error is a JSON object, the summary too.
    let json = run(&["--log-format", "json"], None);
    let mut summary = false;
    for line in json.lines() {
        let v: sonic_rs::Value = sonic_rs::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        summary |= v["fields"]["summary"]
            .as_str()
            .is_some_and(|t| t.starts_with("run:"));
    }
    assert!(summary, "{json}");
}

#[test]
fn dump_passes_librdkafka_properties_like_kcat() {
    let o = lowwater(&[
        "dump",
        "t",
        "--bootstrap",
        "127.0.0.1:1",
        "-X",
        "bogus.property=1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bogus.property"), "{}", stderr(&o));
    let o = lowwater(&["dump", "t", "--bootstrap", "127.0.0.1:1", "-X", "novalue"]);
    assert!(
        stderr(&o).contains("-X novalue: expected"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn replay_shows_progress_on_a_terminal_only_and_sorts_in_any_buffer() {
    let job = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/seed000_heartbeat");
    let input = format!("clickstream={}", s(&job.join("clickstream.jsonl")));
    let sql = job.join("job.sql");
    let run = |buffer: &str| {
        let o = lowwater(&[
            "replay",
            s(&sql),
            "--input",
            &input,
            "--output",
            "dashboard=-",
            "--sort-buffer",
            buffer,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        // Piped: no progress bar among the logs.
        assert!(
            !stderr(&o).contains("reading  ") && !stderr(&o).contains("replaying "),
            "{}",
            stderr(&o)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    // 3,000 records in runs of a few dozen, spilled and merged: the same rows.
    let rows = run("32 MB");
    assert_eq!(rows.lines().count(), 200);
    assert_eq!(run("4 KB"), rows);
    expect_user_error(
        &[
            "replay",
            s(&sql),
            "--input",
            &input,
            "--sort-buffer",
            "lots",
        ],
        &["--sort-buffer 'lots' is not a memory size", "'64 MB'"],
    );
    // On a terminal (a pseudo-terminal from util-linux's `script`), the bar
    // is drawn on standard error.
    let has_script = Command::new("sh")
        .args(["-c", "command -v script"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(has_script, "util-linux's `script` is needed for this test");
    let cmd = format!(
        "{} replay {} --input {input} --output dashboard={}",
        env!("CARGO_BIN_EXE_lowwater"),
        s(&sql),
        s(&tmp("progress-rows.jsonl"))
    );
    let o = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .expect("script runs");
    let tty = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{tty}");
    assert!(
        tty.contains("reading  ") || tty.contains("replaying "),
        "no progress bar on a terminal: {tty}"
    );
}

#[test]
fn replay_reads_a_pipe_and_refuses_a_line_that_names_a_field_twice() {
    let job = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/seed000_heartbeat");
    let dump = job.join("clickstream.jsonl");
    let sql = job.join("job.sql");
    let from_file = lowwater(&[
        "replay",
        s(&sql),
        "--input",
        &format!("clickstream={}", s(&dump)),
        "--output",
        "dashboard=-",
    ]);
    assert!(from_file.status.success(), "{}", stderr(&from_file));
    // A pipe can be read once: replay copies it first (two passes).
    let piped = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args([
            "replay",
            s(&sql),
            "--input",
            "clickstream=/dev/stdin",
            "--output",
            "dashboard=-",
        ])
        .stdin(std::fs::File::open(&dump).expect("dump"))
        .output()
        .expect("runs");
    assert!(piped.status.success(), "{}", stderr(&piped));
    assert_eq!(piped.stdout, from_file.stdout);
    // A line that repeats its partition after the payload is refused,
    // naming its line and the second field (JSON readers differ on which of
    // the two counts): the first pass reads its header, the second the line.
    let text = std::fs::read_to_string(&dump).expect("dump");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[5] = lines[5].trim_end_matches('}').to_string() + r#","partition":3}"#;
    let column = lines[5].rfind(r#""partition""#).expect("there") + 1;
    let edited = write("repeated-field.jsonl", &(lines.join("\n") + "\n"));
    let o = lowwater(&[
        "replay",
        s(&sql),
        "--input",
        &format!("clickstream={}", s(&edited)),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("repeated-field.jsonl:6:{column}:"))
            && err.contains(r#""partition" is named twice"#),
        "{err}"
    );
}

/// A producer writing seconds where the table reads milliseconds dates
/// every record in January 1970: the watermark moves (no stall), no window
/// of the present fires, and nothing is late. The replay summary and the
/// live run both say what it looks like and what to write.
#[test]
fn event_times_in_seconds_read_as_milliseconds_are_named_in_replay_and_run() {
    let job = write(
        "seconds.sql",
        "CREATE TABLE events (user_id STRING, epoch BIGINT, ts AS TO_TIMESTAMP_LTZ(epoch, 3),
           WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
         ) WITH ('connector' = 'kafka', 'topic' = 'events',
           'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json');
         CREATE TABLE counts (window_start TIMESTAMP(3), cnt BIGINT)
           WITH ('connector' = 'blackhole');
         INSERT INTO counts SELECT window_start, COUNT(*)
           FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
           GROUP BY window_start, window_end;",
    );
    let mut dump = String::new();
    for k in 0..30 {
        // Arrived in 2025, stamped with the count of seconds.
        let at = 1_757_851_200_000 + k * 1_000;
        let payload = format!(r#"{{"user_id":"u","epoch":{}}}"#, at / 1_000);
        dump += &line(0, k, at, &payload);
        dump.push('\n');
    }
    let input = write("seconds.jsonl", &dump);
    let o = lowwater(&[
        "replay",
        s(&job),
        "--input",
        &format!("events={}", s(&input)),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = "partition 0 of events: its newest event time is 1970-01-21 08:17:31.229 while \
                its records arrive at 2025-09-14 12:00:29.000: its producer writes seconds \
                where table events reads milliseconds (read a count of seconds with \
                TO_TIMESTAMP_LTZ(ts, 0), or fix the producer)";
    assert!(stderr(&o).contains(want), "{}", stderr(&o));
    // Live: a generator of counts of seconds, watched while it runs: the
    // WARN, once.
    let live = write(
        "seconds_live.sql",
        "CREATE TABLE events (epoch BIGINT, ts AS TO_TIMESTAMP_LTZ(epoch, 3),
           WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
         ) WITH ('connector' = 'datagen', 'rows-per-second' = '20',
           'fields.epoch.kind' = 'sequence', 'fields.epoch.start' = '1757851200',
           'fields.epoch.end' = '1757861200');
         CREATE TABLE counts (window_start TIMESTAMP(3), cnt BIGINT)
           WITH ('connector' = 'blackhole');
         INSERT INTO counts SELECT window_start, COUNT(*)
           FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
           GROUP BY window_start, window_end;",
    );
    let o = lowwater(&["run", s(&live), "--duration", "2 s"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let warned = stderr(&o)
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("its producer writes seconds"))
        .count();
    assert_eq!(warned, 1, "{}", stderr(&o));
}
