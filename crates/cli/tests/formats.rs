//! The csv, avro and avro-confluent formats on real topics, with records
//! written and read by real clients: confluent-kafka's AvroSerializer and
//! AvroDeserializer (Python, `scripts/pyenv.sh`) against a Schema Registry
//! stand-in that follows Confluent's REST API (`scripts/schema_registry.py`;
//! Confluent's own server is not served by the registries this project
//! builds from), and fastavro for plain Avro.
//!
//! - a window job reads Confluent Avro records of two schema versions (the
//!   second adds a field and reorders them) and writes its results as
//!   Confluent Avro, which the real deserializer reads back;
//! - a record framed with a schema id the registry does not know stops the
//!   job with an error at its topic/partition/offset;
//! - plain Avro written by fastavro with Flink's derived schema is read, and
//!   the sink's output is read back by fastavro;
//! - CSV in and out, with Flink's quoting.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

mod common;
use common::{create_topic, kafka_scratch, producer, run_sql as run, BOOTSTRAP};

const T0: i64 = 1_757_808_000_000; // 2025-09-14 00:00:00, a minute boundary

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts")
}

/// The Python with confluent-kafka and fastavro (made once).
fn python() -> &'static str {
    static PY: OnceLock<String> = OnceLock::new();
    PY.get_or_init(|| {
        let o = Command::new("bash")
            .arg(scripts().join("pyenv.sh"))
            .output()
            .expect("run scripts/pyenv.sh");
        assert!(
            o.status.success(),
            "scripts/pyenv.sh could not install confluent-kafka and fastavro: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    })
}

/// The registry stand-in on a free port, stopped when dropped.
struct Registry {
    child: Child,
    url: String,
}

impl Registry {
    fn start() -> Registry {
        let mut child = Command::new("python3")
            .arg(scripts().join("schema_registry.py"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the registry stand-in");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("its port");
        let port = line
            .trim()
            .strip_prefix("listening on ")
            .expect("a port line");
        Registry {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `scripts/avro_client.py ARGS` with `input` on stdin.
fn client(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(python())
        .arg(scripts().join("avro_client.py"))
        .args(args)
        .args(["--bootstrap", &BOOTSTRAP])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run avro_client.py");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("records");
    let o = child.wait_with_output().expect("avro_client.py ends");
    assert!(
        o.status.success(),
        "avro_client.py {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Writes `records` (JSON lines) to `topic` with confluent-kafka's
/// AvroSerializer and `schema` (registered under `<topic>-value`).
fn produce_confluent(topic: &str, registry: &str, schema: &str, records: &str) {
    client(
        &[
            "produce-confluent",
            "--topic",
            topic,
            "--registry",
            registry,
            "--schema",
            schema,
        ],
        records,
    );
}

fn write_file(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.to_string_lossy().into_owned()
}

fn sorted_lines(o: &Output) -> Vec<String> {
    let mut v: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

const V1: &str = r#"{"type":"record","name":"Click","namespace":"shop","fields":[
  {"name":"user","type":"string"},{"name":"amount","type":"long"},
  {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}}]}"#;
// Version 2 adds region (with a default) and tags, and puts region first.
const V2: &str = r#"{"type":"record","name":"Click","namespace":"shop","fields":[
  {"name":"region","type":"string","default":"eu"},
  {"name":"user","type":"string"},{"name":"amount","type":"int"},
  {"name":"tags","type":{"type":"array","items":"string"},"default":[]},
  {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}}]}"#;

#[test]
fn a_window_job_reads_two_schema_versions_and_writes_confluent_avro() {
    let (dir, id) = kafka_scratch("formats");
    let (input, output) = (format!("avro-in-{id}"), format!("avro-out-{id}"));
    create_topic(&input, 1);
    create_topic(&output, 1);
    let reg = Registry::start();
    let v1 = write_file(&dir, "v1.avsc", V1);
    let v2 = write_file(&dir, "v2.avsc", V2);
    let rec = |user: &str, amount: i64, s: i64| {
        format!(
            r#"{{"user":"{user}","amount":{amount},"ts":{}}}"#,
            T0 + s * 1000
        )
    };
    let first: Vec<String> = [
        ("a", 1, 0),
        ("b", 2, 1),
        ("a", 3, 2),
        ("a", 4, 61),
        ("b", 5, 62),
        ("b", 6, 63),
    ]
    .iter()
    .map(|(u, a, s)| rec(u, *a, *s))
    .collect();
    produce_confluent(&input, &reg.url, &v1, &first.join("\n"));
    let second: Vec<String> = [("a", 10, 64), ("a", 20, 65), ("b", 30, 121), ("b", 40, 122)]
        .iter()
        .map(|(u, a, s)| {
            let r = rec(u, *a, *s);
            format!(r#"{{"region":"us","tags":["x"],{}"#, &r[1..])
        })
        .collect();
    produce_confluent(&input, &reg.url, &v2, &second.join("\n"));
    let sql = format!(
        "CREATE TABLE clicks (`user` STRING, amount BIGINT, ts TIMESTAMP(3), region STRING,
                              WATERMARK FOR ts AS ts)
         WITH ('connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
               'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
               'format' = 'avro-confluent', 'avro-confluent.url' = '{url}');
         CREATE TABLE totals (window_start TIMESTAMP(3), `user` STRING, region STRING, n BIGINT, total BIGINT)
         WITH ('connector' = 'kafka', 'topic' = '{output}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
               'format' = 'avro-confluent', 'avro-confluent.url' = '{url}');
         INSERT INTO totals SELECT window_start, `user`, region, COUNT(*), SUM(amount)
         FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
         GROUP BY window_start, window_end, `user`, region;",
        url = reg.url
    );
    let o = run(&dir, "confluent", &sql);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = client(
        &[
            "consume-confluent",
            "--topic",
            &output,
            "--registry",
            &reg.url,
            "--count",
            "6",
        ],
        "",
    );
    let row = |s: i64, user: &str, region: Option<&str>, n: i64, total: i64| {
        let region = region.map_or("null".to_string(), |r| format!("\"{r}\""));
        format!(
            r#"{{"n": {n}, "region": {region}, "total": {total}, "user": "{user}", "window_start": {}}}"#,
            T0 + s * 1000
        )
    };
    // Version-1 records have no region: NULL (Flink's reader schema has no
    // default for it); version 2's int amount is promoted to BIGINT.
    let mut want = vec![
        row(0, "a", None, 2, 4),
        row(0, "b", None, 1, 2),
        row(60, "a", None, 1, 4),
        row(60, "b", None, 2, 11),
        row(60, "a", Some("us"), 2, 30),
        row(120, "b", Some("us"), 2, 70),
    ];
    want.sort();
    assert_eq!(sorted_lines(&got), want);

    // The incident replays: `lowwater dump` keeps the Avro values (as
    // base64), replay reads them through the registry and looks the sink's
    // schema up (it never registers one).
    let lw = env!("CARGO_BIN_EXE_lowwater");
    let dump = dir.join("clicks.jsonl");
    let o = Command::new(lw)
        .args(["dump", &input, "--bootstrap", &BOOTSTRAP, "--output"])
        .arg(&dump)
        .output()
        .expect("dump");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&dump).expect("the dump");
    // Values that are not UTF-8 are base64 (those that happen to be UTF-8
    // stay strings: both are the same bytes).
    assert_eq!(text.lines().count(), 10, "{text}");
    assert!(text.contains("\"payload_base64\":"), "{text}");
    let job = dir.join("confluent.sql");
    let out = dir.join("totals.jsonl");
    let replay = |sql: &Path| {
        Command::new(lw)
            .arg("replay")
            .arg(sql)
            .arg("--input")
            .arg(format!("clicks={}", dump.display()))
            .arg("--output")
            .arg(format!("totals={}", out.display()))
            .output()
            .expect("replay")
    };
    let o = replay(&job);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = std::fs::read_to_string(&out).expect("replay output");
    assert_eq!(rows.lines().count(), 6, "{rows}");
    // Every row is framed with the id the live sink registered (magic 0,
    // then 4 id bytes: base64 "AAAAAA" for id 0..63).
    assert!(
        rows.lines()
            .all(|l| l.contains("\"payload_base64\":\"AAAAA")
                || l.contains(r#""payload":"\u0000\u0000\u0000\u0000"#)),
        "{rows}"
    );
    let other = dir.join("other-subject.sql");
    std::fs::write(
        &other,
        sql.replace(
            &format!("'avro-confluent.url' = '{}');\n         INSERT", reg.url),
            &format!(
                "'avro-confluent.url' = '{}', 'avro-confluent.subject' = 'never-registered');\n         INSERT",
                reg.url
            ),
        ),
    )
    .expect("job");
    let o = replay(&other);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("replay does not register"),
        "{err}"
    );
}

#[test]
fn an_unknown_schema_id_stops_the_job_at_its_place() {
    let (dir, id) = kafka_scratch("formats");
    let input = format!("avro-unknown-{id}");
    create_topic(&input, 1);
    let reg = Registry::start();
    let v1 = write_file(&dir, "v1.avsc", V1);
    let good = format!(r#"{{"user":"a","amount":1,"ts":{T0}}}"#);
    // Schema id 999 (0x3e7), then a datum.
    let input_lines = format!("{good}\n{{\"raw_hex\": \"00000003e70261\"}}\n{good}");
    produce_confluent(&input, &reg.url, &v1, &input_lines);
    let sql = format!(
        "CREATE TABLE clicks (`user` STRING, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
         WITH ('connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
               'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
               'format' = 'avro-confluent', 'avro-confluent.url' = '{}');
         CREATE TABLE p (n BIGINT) WITH ('connector' = 'print');
         INSERT INTO p SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
         GROUP BY window_start, window_end;",
        reg.url
    );
    let o = run(&dir, "unknown", &sql);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains(&format!("topic {input} partition 0 offset 1"))
            && err.contains("schema id 999 is not in the registry"),
        "{err}"
    );
}

/// Flink's derived schema of (`user` STRING, amount BIGINT, ts TIMESTAMP(3)),
/// as Flink 2.1's AvroSchemaConverter prints it.
const DERIVED_IN: &str = r#"{"type":"record","name":"record","namespace":"org.apache.flink.avro.generated","fields":[
  {"name":"user","type":["null","string"],"default":null},
  {"name":"amount","type":["null","long"],"default":null},
  {"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null}]}"#;
const DERIVED_OUT: &str = r#"{"type":"record","name":"record","namespace":"org.apache.flink.avro.generated","fields":[
  {"name":"window_start","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},
  {"name":"user","type":["null","string"],"default":null},
  {"name":"total","type":["null","long"],"default":null}]}"#;

#[test]
fn plain_avro_from_fastavro_is_read_and_the_sink_is_read_back_by_fastavro() {
    let (dir, id) = kafka_scratch("formats");
    let (input, output) = (format!("plain-in-{id}"), format!("plain-out-{id}"));
    create_topic(&input, 1);
    create_topic(&output, 1);
    let schema_in = write_file(&dir, "in.avsc", DERIVED_IN);
    let schema_out = write_file(&dir, "out.avsc", DERIVED_OUT);
    let records: Vec<String> = [("a", 5, 0), ("b", 7, 10), ("a", 9, 70)]
        .iter()
        .map(|(u, a, s)| format!(r#"{{"user":"{u}","amount":{a},"ts":{}}}"#, T0 + s * 1000))
        .collect();
    client(
        &["produce-plain", "--topic", &input, "--schema", &schema_in],
        &records.join("\n"),
    );
    let sql = format!(
        "CREATE TABLE clicks (`user` STRING, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
         WITH ('connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
               'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'avro');
         CREATE TABLE totals (window_start TIMESTAMP(3), `user` STRING, total BIGINT)
         WITH ('connector' = 'kafka', 'topic' = '{output}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
               'format' = 'avro');
         INSERT INTO totals SELECT window_start, `user`, SUM(amount)
         FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
         GROUP BY window_start, window_end, `user`;"
    );
    let o = run(&dir, "plain", &sql);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = client(
        &[
            "consume-plain",
            "--topic",
            &output,
            "--schema",
            &schema_out,
            "--count",
            "3",
        ],
        "",
    );
    let row = |s: i64, u: &str, t: i64| {
        format!(
            r#"{{"total": {t}, "user": "{u}", "window_start": {}}}"#,
            T0 + s * 1000
        )
    };
    let mut want = vec![row(0, "a", 5), row(0, "b", 7), row(60, "a", 9)];
    want.sort();
    assert_eq!(sorted_lines(&got), want);
}

#[test]
fn csv_in_and_out_with_flinks_conversions_and_quoting() {
    use rdkafka::producer::{BaseRecord, Producer};
    let (dir, id) = kafka_scratch("formats");
    let (input, output) = (format!("csv-in-{id}"), format!("csv-out-{id}"));
    create_topic(&input, 1);
    create_topic(&output, 1);
    let p = producer();
    for line in [
        "a, 5 ,2025-09-14 00:00:00",
        "\"b, the second\",7,2025-09-14 00:00:10.5\n",
        "a,x,2025-09-14 00:00:20",
        "a,9,2025-09-14 00:01:10",
    ] {
        p.send(BaseRecord::<(), str>::to(&input).payload(line))
            .expect("queued");
    }
    p.flush(std::time::Duration::from_secs(10))
        .expect("flushed");
    let sql = format!(
        "CREATE TABLE clicks (`user` STRING, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
         WITH ('connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
               'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
               'format' = 'csv', 'csv.ignore-parse-errors' = 'true');
         CREATE TABLE totals (window_start TIMESTAMP(3), `user` STRING, total BIGINT)
         WITH ('connector' = 'kafka', 'topic' = '{output}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
               'format' = 'csv', 'csv.null-literal' = 'NULL');
         INSERT INTO totals SELECT window_start, `user`, SUM(amount)
         FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
         GROUP BY window_start, window_end, `user`;"
    );
    let o = run(&dir, "csv", &sql);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut got = Vec::new();
    lowwater_kafka::dump_topic(&BOOTSTRAP, &output, None, None, &[], |r| {
        got.push(String::from_utf8(r.payload.unwrap_or_default()).map_err(|e| e.to_string())?);
        Ok(())
    })
    .expect("read the output");
    got.sort();
    // 'x' is not a BIGINT: NULL with csv.ignore-parse-errors (the row stays,
    // and SUM skips it); timestamps and strings with a space are quoted, no
    // line end.
    assert_eq!(
        got,
        [
            "\"2025-09-14 00:00:00\",\"b, the second\",7",
            "\"2025-09-14 00:00:00\",a,5",
            "\"2025-09-14 00:01:00\",a,9",
        ]
    );
}
