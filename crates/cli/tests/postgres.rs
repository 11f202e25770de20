//! The `jdbc` sink against a real PostgreSQL (`scripts/postgres.sh`).
//!
//! - Every column type lowwater has lands exactly (DECIMAL digits, the
//!   millisecond of a TIMESTAMP and a TIMESTAMP_LTZ, NULLs, unicode), with
//!   a primary key (upsert: running the job twice leaves each row once,
//!   overwritten) and without (append: twice is every row twice).
//! - A wrong password, a missing table, a column of the wrong type, a key
//!   that is not unique in the table, a NOT NULL column the sink leaves out
//!   and an unreachable server each fail the job before it reads a record,
//!   naming the server, the table and the column.
//! - Flushes by rows (`sink.buffer-flush.max-rows`: the table grows by
//!   whole batches while the job runs) and by interval (rows land while the
//!   job runs, with no checkpoint).
//! - The server stopped for 20 s while windows fire: the job reconnects and
//!   the table holds every window exactly; meanwhile `/metrics` shows the
//!   rows waiting and the age of the last commit. Away for longer than
//!   `connection.max-retry-timeout`, it fails the job, naming the server.
//! - A key written twice in one flush keeps its last row.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

mod common;

use common::chaos::{s, scratch, sigterm};
use common::postgres::{
    client, client_on, count, jdbc_options, schema, schema_on, script, spawn, PORT,
};
use common::{kafka_scratch, producer, sql_ts};

const BASE: i64 = 1_757_808_000_000; // 2025-09-14 00:00:00 UTC

fn lowwater(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(args)
        .output()
        .expect("the lowwater binary runs")
}

/// An input record of the typed job: (second, user, amount, score, note).
type Record = (
    i64,
    Option<&'static str>,
    &'static str,
    f64,
    Option<&'static str>,
);

const RECORDS: [Record; 7] = [
    (1, Some("ana"), "1.10", 0.5, Some("x")),
    (2, Some("ana"), "2.25", 1.5, None),
    (3, Some("bé"), "10.00", 2.0, None),
    (11, Some("ana"), "0.01", 3.0, Some("y")),
    (12, Some("中文 ✓"), "5.55", -1.25, Some("z")),
    (13, Some("中文 ✓"), "4.45", 0.25, Some("zz")),
    (14, None, "7.00", 1.0, None),
];

fn typed_input(dir: &Path) -> std::path::PathBuf {
    let input = dir.join("in");
    std::fs::create_dir_all(&input).expect("input dir");
    let lines: String = RECORDS
        .iter()
        .map(|(sec, user, amount, score, note)| {
            let user = user.map_or("null".to_string(), |u| format!("\"{u}\""));
            let note = note.map_or("null".to_string(), |n| format!("\"{n}\""));
            format!(
                "{{\"user_id\":{user},\"ts\":\"{}\",\"amount\":{amount},\"score\":{score},\"note\":{note}}}\n",
                sql_ts(BASE + sec * 1000)
            )
        })
        .collect();
    std::fs::write(input.join("part-0.json"), lines).expect("input");
    input
}

fn typed_job(dir: &Path, input: &Path, with: &str, pk: &str, tail: &str) -> std::path::PathBuf {
    let sql = format!(
        "CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), amount DECIMAL(10, 2), score DOUBLE,
  note STRING, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'json');
CREATE TABLE counts (window_start TIMESTAMP(3), window_end TIMESTAMP_LTZ(3), user_id STRING,
  n BIGINT, n_int INT, total DECIMAL(12, 2), avg_score DOUBLE, many BOOLEAN, note_max STRING,
  alerted_at TIMESTAMP_LTZ(3), n_tiny TINYINT, n_small SMALLINT, avg_float FLOAT, day DATE{pk})
WITH ({with});
INSERT INTO counts SELECT window_start, CAST(window_end AS TIMESTAMP_LTZ(3)), user_id,
  COUNT(*), CAST(COUNT(*) AS INT), SUM(amount), AVG(score), COUNT(*) > 1, MAX(note),
  CURRENT_TIMESTAMP, CAST(COUNT(*) AS TINYINT), CAST(COUNT(*) AS SMALLINT),
  CAST(AVG(score) AS FLOAT), CAST(window_start AS DATE)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, user_id{tail};
",
        s(input)
    );
    let job = dir.join("job.sql");
    std::fs::write(&job, sql).expect("job");
    job
}

/// The typed job upserting into `table` by `key` (its rows without a
/// user left out: a key column cannot be NULL), `max_rows` a flush.
fn keyed_typed_job(
    dir: &Path,
    input: &Path,
    (table, max_rows): (&str, usize),
    key: &str,
) -> std::path::PathBuf {
    let job = typed_job(
        dir,
        input,
        &jdbc_options(
            PORT,
            table,
            &format!(", 'sink.buffer-flush.max-rows' = '{max_rows}'"),
        ),
        &format!(", PRIMARY KEY ({key}) NOT ENFORCED"),
        " ON CONFLICT DO DEDUPLICATE",
    );
    let sql = std::fs::read_to_string(&job).expect("job");
    std::fs::write(
        &job,
        sql.replace("GROUP BY", "WHERE user_id IS NOT NULL GROUP BY"),
    )
    .expect("job");
    job
}

const TYPED_DDL: &str =
    "CREATE TABLE {s}.counts (window_start timestamp(3), window_end timestamptz(3),
  user_id text, n bigint, n_int integer, total numeric(12,2), avg_score double precision,
  many boolean, note_max varchar(10), alerted_at timestamptz(3), n_tiny smallint,
  n_small smallint, avg_float real, day date";

/// The rows of `table` as text, ordered.
fn typed_rows(c: &mut postgres::Client, table: &str) -> Vec<String> {
    c.query(
        &format!(
            "SELECT to_char(window_start, 'YYYY-MM-DD HH24:MI:SS.MS') || '|' ||
               to_char(window_end AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') || '|' ||
               coalesce(user_id, 'NULL') || '|' || n || '|' || n_int || '|' || total::text || '|' ||
               avg_score::text || '|' || many::text || '|' || coalesce(note_max, 'NULL') || '|' ||
               n_tiny || '|' || n_small || '|' || avg_float::text || '|' || day::text
             FROM {table} ORDER BY window_start, user_id NULLS FIRST, alerted_at"
        ),
        &[],
    )
    .expect("query")
    .iter()
    .map(|r| r.get(0))
    .collect()
}

const TYPED_EXPECTED: [&str; 5] = [
    "2025-09-14 00:00:00.000|2025-09-14 00:00:10.000|ana|2|2|3.35|1|true|x|2|2|1|2025-09-14",
    "2025-09-14 00:00:00.000|2025-09-14 00:00:10.000|bé|1|1|10.00|2|false|NULL|1|1|2|2025-09-14",
    "2025-09-14 00:00:10.000|2025-09-14 00:00:20.000|NULL|1|1|7.00|1|false|NULL|1|1|1|2025-09-14",
    "2025-09-14 00:00:10.000|2025-09-14 00:00:20.000|ana|1|1|0.01|3|false|y|1|1|3|2025-09-14",
    "2025-09-14 00:00:10.000|2025-09-14 00:00:20.000|中文 ✓|2|2|10.00|-0.5|true|zz|2|2|-0.5|2025-09-14",
];

#[test]
fn every_type_lands_exactly_upserted_with_a_key_and_appended_without() {
    let dir = scratch("pg-types");
    let input = typed_input(&dir);
    // Append: no key. Run twice: every row twice.
    let sch = schema("types_append", &format!("{TYPED_DDL});"));
    let table = format!("{sch}.counts");
    let job = typed_job(&dir, &input, &jdbc_options(PORT, &table, ""), "", "");
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as i64;
    for _ in 0..2 {
        let out = lowwater(&["run", s(&job)]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut c = client();
    let rows = typed_rows(&mut c, &table);
    let twice: Vec<String> = TYPED_EXPECTED
        .iter()
        .flat_map(|r| [r.to_string(), r.to_string()])
        .collect();
    assert_eq!(rows, twice);
    // alerted_at is the time each row was emitted: during this test.
    let (lo, hi): (f64, f64) = c
        .query_one(
            &format!(
                "SELECT min(extract(epoch from alerted_at))::float8, \
                 max(extract(epoch from alerted_at))::float8 FROM {table}"
            ),
            &[],
        )
        .map(|r| (r.get(0), r.get(1)))
        .expect("alerted_at");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as f64;
    assert!(
        lo * 1000.0 >= started as f64 - 1_000.0 && hi * 1000.0 <= now + 1_000.0,
        "{lo} {hi}"
    );

    // Upsert: the key (window_start, user_id), ON CONFLICT DO DEDUPLICATE.
    // A NULL user cannot be in a primary key: the WHERE leaves it out.
    let sch = schema(
        "types_upsert",
        &format!("{TYPED_DDL}, PRIMARY KEY (window_start, user_id));"),
    );
    let table = format!("{sch}.counts");
    let job = keyed_typed_job(&dir, &input, (&table, 2), "window_start, user_id");
    let mut first = None;
    for run in 0..2 {
        let out = lowwater(&["run", s(&job)]);
        assert!(
            out.status.success(),
            "run {run}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if first.is_none() {
            first = Some(
                c.query_one(&format!("SELECT max(alerted_at)::text FROM {table}"), &[])
                    .map(|r| r.get::<_, String>(0))
                    .expect("max"),
            );
        }
    }
    let want: Vec<&str> = TYPED_EXPECTED
        .iter()
        .copied()
        .filter(|r| !r.contains("|NULL|1|1|7.00"))
        .collect();
    assert_eq!(typed_rows(&mut c, &table), want);
    // The second run overwrote every row of the first (each emitted anew).
    let older: i64 = c
        .query_one(
            &format!("SELECT count(*) FROM {table} WHERE alerted_at <= $1::text::timestamptz"),
            &[&first.unwrap_or_default()],
        )
        .map(|r| r.get(0))
        .expect("count");
    assert_eq!(older, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_table_the_job_cannot_write_fails_it_at_start_naming_what_and_where() {
    let dir = scratch("pg-refusals");
    let input = typed_input(&dir);
    let sch = schema(
        "refusals",
        &format!(
            "{TYPED_DDL});
CREATE TABLE {{s}}.wrong_type (LIKE {{s}}.counts);
ALTER TABLE {{s}}.wrong_type ALTER COLUMN n TYPE integer;
CREATE TABLE {{s}}.no_key (LIKE {{s}}.counts);
CREATE TABLE {{s}}.extra (LIKE {{s}}.counts);
ALTER TABLE {{s}}.extra ADD COLUMN region text NOT NULL;
CREATE TABLE {{s}}.seconds (LIKE {{s}}.counts);
ALTER TABLE {{s}}.seconds ALTER COLUMN window_start TYPE timestamp(0);
CREATE TABLE {{s}}.included (LIKE {{s}}.counts, UNIQUE (window_start) INCLUDE (user_id));
CREATE TABLE {{s}}.by_uuid (LIKE {{s}}.counts);
ALTER TABLE {{s}}.by_uuid ALTER COLUMN user_id TYPE uuid USING NULL;
ALTER TABLE {{s}}.by_uuid ADD UNIQUE (window_start, user_id);"
        ),
    );
    let key = ", PRIMARY KEY (window_start, user_id) NOT ENFORCED";
    let dedup = " ON CONFLICT DO DEDUPLICATE";
    let cases: [(&str, String, &str, &str, &[&str]); 9] = [
        (
            "timestamp(0) rounds the milliseconds",
            jdbc_options(PORT, &format!("{sch}.seconds"), ""),
            "",
            "",
            &[
                "column 'window_start'",
                "timestamp(0) without time zone keeps 0 fractional digits",
            ],
        ),
        (
            "an INCLUDE column is not part of a unique key",
            jdbc_options(PORT, &format!("{sch}.included"), ""),
            key,
            dedup,
            &["PRIMARY KEY (window_start, user_id) is not a unique key"],
        ),
        (
            "a uuid key compares texts that differ as equal",
            jdbc_options(PORT, &format!("{sch}.by_uuid"), ""),
            key,
            dedup,
            &[
                "key column 'user_id'",
                "is uuid",
                "must be text or character varying",
            ],
        ),
        (
            "wrong password",
            jdbc_options(PORT, &format!("{sch}.counts"), "").replace("lowwater-secret", "nope"),
            "",
            "",
            &[
                "127.0.0.1:15432/lowwater",
                "28P01",
                "password authentication failed",
            ],
        ),
        (
            "missing table",
            jdbc_options(PORT, &format!("{sch}.missing"), ""),
            "",
            "",
            &[&format!(
                "table {sch}.missing does not exist in 127.0.0.1:15432/lowwater"
            )],
        ),
        (
            "wrong type",
            jdbc_options(PORT, &format!("{sch}.wrong_type"), ""),
            "",
            "",
            &[
                "column 'n' of",
                "is integer",
                "sink column 'n' (BIGINT)",
                "make it bigint",
            ],
        ),
        (
            "key not unique",
            jdbc_options(PORT, &format!("{sch}.no_key"), ""),
            ", PRIMARY KEY (window_start, user_id) NOT ENFORCED",
            " ON CONFLICT DO DEDUPLICATE",
            &[
                "PRIMARY KEY (window_start, user_id) is not a unique key",
                "ADD PRIMARY KEY",
            ],
        ),
        (
            "not null left out",
            jdbc_options(PORT, &format!("{sch}.extra"), ""),
            "",
            "",
            &["column 'region'", "NOT NULL without a default"],
        ),
        (
            "unreachable",
            jdbc_options(1, &format!("{sch}.counts"), ""),
            "",
            "",
            &[
                "cannot connect to PostgreSQL",
                "127.0.0.1:1/lowwater",
                "refused",
            ],
        ),
    ];
    for (what, with, pk, tail, says) in cases {
        let job = typed_job(&dir, &input, &with, pk, tail);
        let out = lowwater(&["run", s(&job)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        for word in says {
            assert!(err.contains(word), "{what}: no '{word}' in: {err}");
        }
        // The password is never printed.
        assert!(!err.contains("lowwater-secret"), "{what}: {err}");
    }
    // Nothing was written anywhere.
    assert_eq!(count(&mut client(), &format!("{sch}.counts")), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A Kafka -> PostgreSQL test's scratch directory, its 1-partition input
/// topic and its table: `ddl` run in a fresh schema of the server on
/// `port` (its own server, started here, when not the shared one).
fn kafka_to_table(name: &str, port: u16, ddl: &str) -> (std::path::PathBuf, String, String) {
    if port == PORT {
        common::postgres::server();
    } else {
        script("start", port);
    }
    let (dir, id) = kafka_scratch(name);
    let topic = format!("{name}-{id}");
    common::create_topic(&topic, 1);
    let sch = schema_on(port, name.trim_start_matches("pg-"), ddl);
    (dir, topic, sch)
}

/// Writes one record per second of event time, seconds `from..to`, for
/// user `u`, to partition 0 of `topic`.
fn produce_seconds(topic: &str, from: i64, to: i64) {
    use rdkafka::producer::{BaseRecord, Producer};
    let p = producer();
    for sec in from..to {
        let payload = format!(r#"{{"user_id":"u","ts":"{}"}}"#, sql_ts(BASE + sec * 1000));
        p.send(
            BaseRecord::<(), str>::to(topic)
                .partition(0)
                .payload(&payload),
        )
        .expect("send");
    }
    p.flush(Duration::from_secs(10)).expect("flush");
}

/// A Kafka -> PostgreSQL job counting `topic`'s records per user in 1 s
/// windows (each record fires the window before it) into `table`
/// (`pk`: with its primary key), checkpoints every `interval`.
fn kafka_job(
    dir: &Path,
    topic: &str,
    table_with: &str,
    pk: bool,
    interval: &str,
) -> std::path::PathBuf {
    let (key, tail) = match pk {
        true => (
            ", PRIMARY KEY (window_start, user_id) NOT ENFORCED",
            " ON CONFLICT DO DEDUPLICATE",
        ),
        false => ("", ""),
    };
    let sql = format!(
        "SET 'execution.checkpointing.interval' = '{interval}';
SET 'execution.checkpointing.dir' = '{}';
CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{}',
  'properties.group.id' = '{topic}-{}', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE counts (window_start TIMESTAMP(3), user_id STRING, n BIGINT{key})
WITH ({table_with});
INSERT INTO counts SELECT window_start, user_id, COUNT(*) FROM
TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id{tail};
",
        s(&dir.join("ck")),
        &*common::BOOTSTRAP,
        table_with.len()
    );
    let job = dir.join(format!("job-{}.sql", table_with.len()));
    std::fs::write(&job, sql).expect("job");
    job
}

/// Polls `table` until it has `want` rows (or 60 s pass); every count seen
/// on the way, in order.
fn counts_until(c: &mut postgres::Client, table: &str, want: i64) -> Vec<i64> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = vec![count(c, table)];
    while seen.last() != Some(&want) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        let n = count(c, table);
        if seen.last() != Some(&n) {
            seen.push(n);
        }
    }
    seen
}

#[test]
fn rows_are_flushed_in_batches_of_max_rows_and_every_interval() {
    let (dir, topic, sch) = kafka_to_table(
        "pg-flush",
        PORT,
        "CREATE TABLE {s}.by_rows (window_start timestamp(3), user_id text, n bigint);
         CREATE TABLE {s}.by_time (LIKE {s}.by_rows);",
    );
    // Seconds 0..8: windows 0..6 fire while the job runs, 7 stays open.
    produce_seconds(&topic, 0, 8);
    let mut c = client();
    // By rows: batches of 3; no interval, and no checkpoint before the stop.
    let by_rows = format!("{sch}.by_rows");
    let with = jdbc_options(
        PORT,
        &by_rows,
        ", 'sink.buffer-flush.max-rows' = '3', 'sink.buffer-flush.interval' = '0'",
    );
    let mut job = spawn(
        &kafka_job(&dir, &topic, &with, false, "1 h"),
        &dir.join("rows.log"),
    );
    let seen = counts_until(&mut c, &by_rows, 6);
    // Whole batches of 3 only (the 7th waits for a batch or the stop).
    assert!(
        seen.last() == Some(&6) && seen.iter().all(|n| n % 3 == 0),
        "the table grows by batches of 3 rows: {seen:?}"
    );
    // The stop's final checkpoint flushes the 7th.
    assert!(sigterm(&mut job.0).success());
    assert_eq!(count(&mut c, &by_rows), 7);
    // By interval: 1,000 rows would be a batch, but 100 ms pass first.
    let by_time = format!("{sch}.by_time");
    let with = jdbc_options(
        PORT,
        &by_time,
        ", 'sink.buffer-flush.max-rows' = '1000', 'sink.buffer-flush.interval' = '100 ms'",
    );
    let mut job = spawn(
        &kafka_job(&dir, &topic, &with, false, "1 h"),
        &dir.join("time.log"),
    );
    let seen = counts_until(&mut c, &by_time, 7);
    assert_eq!(seen.last(), Some(&7), "{seen:?}");
    assert!(
        job.0.try_wait().expect("wait").is_none(),
        "written while the job runs"
    );
    assert!(sigterm(&mut job.0).success());
    assert_eq!(count(&mut c, &by_time), 7);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_server_stopped_for_20_s_mid_run_loses_nothing_and_the_metrics_show_the_wait() {
    // A server of its own: stopping it disturbs no other test.
    const OWN: u16 = 15442;
    let (dir, topic, sch) = kafka_to_table(
        "pg-outage",
        OWN,
        "CREATE TABLE {s}.counts (window_start timestamp(3), user_id text, n bigint,
           PRIMARY KEY (window_start, user_id));",
    );
    let table = format!("{sch}.counts");
    let with = jdbc_options(OWN, &table, ", 'sink.buffer-flush.interval' = '200 ms'");
    let job_file = kafka_job(&dir, &topic, &with, true, "500 ms");
    let mut job = common::Running::start(&["run", s(&job_file)]);
    produce_seconds(&topic, 0, 6);
    let mut c = client_on(OWN);
    assert_eq!(counts_until(&mut c, &table, 5).last(), Some(&5));
    drop(c);
    let sample = |s: &prometheus_parse::Scrape, metric: &str| {
        s.samples
            .iter()
            .find(|x| x.metric == metric)
            .map_or(-1.0, common::value)
    };
    job.scrape_until("5 rows committed", |s| {
        sample(s, "lowwater_sink_jdbc_committed_rows_total") == 5.0
    });
    script("stop", OWN);
    // Ten more windows fire while the server is away.
    produce_seconds(&topic, 6, 16);
    let down = Instant::now();
    let lost = job.wait_for_line("is lost", Duration::from_secs(15));
    assert!(
        lost.is_some_and(|l| l.contains("the connection to 127.0.0.1:15442/lowwater is lost")),
        "no WARN of the lost connection"
    );
    // While the flush waits, the rows wait in the buffer and the commit
    // ages, both visible.
    let waiting = job.scrape_until("rows waiting and an old commit", |s| {
        sample(s, "lowwater_sink_jdbc_buffered_rows") > 0.0
            && sample(s, "lowwater_sink_jdbc_commit_age_seconds") > 3.0
    });
    assert_eq!(
        sample(&waiting, "lowwater_sink_jdbc_committed_rows_total"),
        5.0
    );
    // The outage lasts 20 s (under connection.max-retry-timeout, 60 s).
    std::thread::sleep(Duration::from_secs(20).saturating_sub(down.elapsed()));
    script("start", OWN);
    let mut c = client_on(OWN);
    assert_eq!(counts_until(&mut c, &table, 15).last(), Some(&15));
    let after = job.scrape_until("every row committed", |s| {
        sample(s, "lowwater_sink_jdbc_committed_rows_total") == 15.0
    });
    assert_eq!(sample(&after, "lowwater_sink_jdbc_buffered_rows"), 0.0);
    assert!(sample(&after, "lowwater_sink_jdbc_reconnects_total") >= 1.0);
    let log = job.stop();
    assert!(
        log.contains("connected to 127.0.0.1:15442/lowwater again"),
        "{log}"
    );
    let rows: Vec<(String, i64)> = c
        .query(
            &format!("SELECT to_char(window_start, 'HH24:MI:SS'), n FROM {table} ORDER BY 1"),
            &[],
        )
        .expect("rows")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let want: Vec<(String, i64)> = (0..15).map(|s| (format!("00:00:{s:02}"), 1)).collect();
    assert_eq!(rows, want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_key_written_twice_in_one_flush_keeps_its_last_row_and_identity_columns_fill_themselves() {
    let dir = scratch("pg-reduce");
    let input = typed_input(&dir);
    // The key is the user alone: ana's rows of both windows go in one
    // flush (max-rows 1000), reduced to the last; an identity column the
    // sink does not write numbers the rows.
    let sch = schema(
        "reduce",
        &format!(
            "{TYPED_DDL}, id bigint GENERATED ALWAYS AS IDENTITY, \
             created timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (user_id));"
        ),
    );
    let table = format!("{sch}.counts");
    let job = keyed_typed_job(&dir, &input, (&table, 1000), "user_id");
    let out = lowwater(&["run", s(&job)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut c = client();
    let want: Vec<&str> = [TYPED_EXPECTED[1], TYPED_EXPECTED[3], TYPED_EXPECTED[4]].to_vec();
    let mut rows = typed_rows(&mut c, &table);
    rows.sort();
    let mut want: Vec<String> = want.iter().map(|r| r.to_string()).collect();
    want.sort();
    assert_eq!(rows, want, "each user's last window");
    let ids: i64 = c
        .query_one(&format!("SELECT count(DISTINCT id) FROM {table}"), &[])
        .map(|r| r.get(0))
        .expect("ids");
    assert_eq!(ids, 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_server_away_longer_than_the_retry_timeout_fails_the_job_naming_it() {
    const OWN: u16 = 15443;
    let (dir, topic, sch) = kafka_to_table(
        "pg-away",
        OWN,
        "CREATE TABLE {s}.counts (window_start timestamp(3), user_id text, n bigint);",
    );
    let table = format!("{sch}.counts");
    let with = jdbc_options(
        OWN,
        &table,
        ", 'sink.buffer-flush.interval' = '100 ms', 'connection.max-retry-timeout' = '2 s'",
    );
    let log = dir.join("away.log");
    let mut job = spawn(&kafka_job(&dir, &topic, &with, false, "1 h"), &log);
    produce_seconds(&topic, 0, 4);
    let mut c = client_on(OWN);
    assert_eq!(counts_until(&mut c, &table, 3).last(), Some(&3));
    drop(c);
    script("stop", OWN);
    let down = Instant::now();
    produce_seconds(&topic, 4, 8);
    let text = || std::fs::read_to_string(&log).unwrap_or_default();
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = job.0.try_wait().expect("wait") {
            break Some(status);
        }
        if Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    script("start", OWN);
    let status = status.unwrap_or_else(|| panic!("still running 30 s later: {}", text()));
    assert!(!status.success(), "{}", text());
    // Within the 2 s and the last backoff step, with the server named.
    assert!(
        down.elapsed() < Duration::from_secs(12),
        "{:?}",
        down.elapsed()
    );
    let log = text();
    assert!(
        log.contains("lost the connection to 127.0.0.1:15443/lowwater and could not write again within connection.max-retry-timeout (2 s)"),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A TCP proxy to the shared server that, once, lets a client's COMMIT
/// through to the server and then cuts the connection before the server's
/// answer comes back: the commit happened, the client cannot know. Returns
/// the port it listens on.
fn commit_cutting_proxy() -> u16 {
    use std::io::{Read, Write};
    use std::net::{Shutdown, TcpListener, TcpStream};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let cut_once = Arc::new(AtomicBool::new(false));
    std::thread::spawn(move || {
        for client in listener.incoming().map_while(Result::ok) {
            let Ok(server) = TcpStream::connect(("127.0.0.1", PORT)) else {
                continue;
            };
            let swallow = Arc::new(AtomicBool::new(false));
            let (mut c_in, mut s_out) = (
                client.try_clone().expect("clone"),
                server.try_clone().expect("clone"),
            );
            let (cut, gate) = (cut_once.clone(), swallow.clone());
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 65_536];
                while let Ok(n) = c_in.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let commit = buf[..n].windows(7).any(|w| w == b"COMMIT\0");
                    let cutting = commit && !cut.swap(true, Ordering::SeqCst);
                    if cutting {
                        // Nothing the server answers from now on reaches
                        // the client; the COMMIT goes through.
                        gate.store(true, Ordering::SeqCst);
                    }
                    if s_out.write_all(&buf[..n]).is_err() {
                        break;
                    }
                    if cutting {
                        std::thread::sleep(Duration::from_millis(300));
                        let _ = c_in.shutdown(Shutdown::Both);
                        let _ = s_out.shutdown(Shutdown::Both);
                        break;
                    }
                }
            });
            let (mut s_in, mut c_out) = (server, client);
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 65_536];
                while let Ok(n) = s_in.read(&mut buf) {
                    if n == 0 || swallow.load(Ordering::SeqCst) {
                        break;
                    }
                    if c_out.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            });
        }
    });
    port
}

#[test]
fn an_append_whose_commit_was_cut_after_it_happened_is_not_written_twice() {
    let dir = scratch("pg-in-doubt");
    let input = typed_input(&dir);
    let sch = schema("in_doubt", &format!("{TYPED_DDL});"));
    let table = format!("{sch}.counts");
    let proxy = commit_cutting_proxy();
    // Append (no key): written twice, a row would be in the table twice.
    let job = typed_job(
        &dir,
        &input,
        &jdbc_options(proxy, &table, ", 'sink.buffer-flush.max-rows' = '2'"),
        "",
        "",
    );
    let out = lowwater(&["run", s(&job)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("is lost"), "the COMMIT was cut: {err}");
    assert!(
        err.contains("had committed; its rows are not written again"),
        "{err}"
    );
    assert_eq!(typed_rows(&mut client(), &table), TYPED_EXPECTED);
    let _ = std::fs::remove_dir_all(&dir);
}
