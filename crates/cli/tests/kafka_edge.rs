//! Kafka at its edges, against real brokers: a brand-new cluster whose
//! group coordinator does not exist yet (the first start with group offsets
//! waits for it and reads everything), hostile records on a real topic, and
//! topics written with every compression codec.

use std::path::{Path, PathBuf};
use std::process::Command;

use rdkafka::config::ClientConfig;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

mod common;
use common::{
    broker, create_topic, hostile_payloads, kafka_scratch, producer, run_sql, sql_ts, BOOTSTRAP,
};

/// A second broker with a data directory of its own (a brand-new cluster),
/// stopped when dropped.
struct FreshBroker {
    home: PathBuf,
    port: u16,
}

impl FreshBroker {
    fn start(port: u16) -> FreshBroker {
        broker(); // the jars are fetched once, by the main broker's start
        let main = std::env::var("LOWWATER_KAFKA_HOME").map_or_else(
            |_| {
                PathBuf::from(std::env::var("HOME").unwrap_or_default())
                    .join(".cache/lowwater/kafka")
            },
            PathBuf::from,
        );
        let home =
            std::env::temp_dir().join(format!("lowwater-fresh-broker-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).expect("home");
        std::os::unix::fs::symlink(main.join("libs"), home.join("libs")).expect("libs");
        let b = FreshBroker { home, port };
        let o = b.kafka_sh("start");
        assert!(
            o.status.success(),
            "the fresh broker did not start: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        b
    }

    fn kafka_sh(&self, cmd: &str) -> std::process::Output {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka.sh");
        Command::new("bash")
            .arg(script)
            .arg(cmd)
            .env("KAFKA_PORT", self.port.to_string())
            .env("LOWWATER_KAFKA_HOME", &self.home)
            .output()
            .expect("run scripts/kafka.sh")
    }

    fn bootstrap(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

impl Drop for FreshBroker {
    fn drop(&mut self) {
        let _ = self.kafka_sh("stop");
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

#[test]
fn the_first_group_offsets_start_on_a_brand_new_cluster_reads_every_record() {
    let (dir, id) = kafka_scratch("edge-fresh");
    let fresh = FreshBroker::start(19292);
    let topic = format!("fresh-{id}");
    lowwater_kafka::create_topic(&fresh.bootstrap(), &topic, 2).expect("topic");
    let p: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", fresh.bootstrap())
        .create()
        .expect("producer");
    for i in 0..10_000i64 {
        let payload = format!(r#"{{"k":"a","ts":"{}"}}"#, sql_ts(1_757_808_000_000 + i));
        let mut rec = BaseRecord::<(), str>::to(&topic)
            .partition((i % 2) as i32)
            .payload(&payload);
        while let Err((_, r)) = p.send(rec) {
            rec = r;
            p.poll(std::time::Duration::from_millis(10));
        }
    }
    p.flush(std::time::Duration::from_secs(30)).expect("flush");
    let sql = format!(
        "CREATE TABLE src (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
         WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{}',
               'properties.group.id' = 'first-{id}', 'properties.auto.offset.reset' = 'earliest',
               'scan.startup.mode' = 'group-offsets', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
         CREATE TABLE out (n BIGINT) WITH ('connector' = 'print');
         INSERT INTO out SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end;",
        fresh.bootstrap()
    );
    let path = dir.join("first.sql");
    std::fs::write(&path, sql).expect("job");
    let o = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args([
            "run",
            path.to_str().unwrap_or_default(),
            "--duration",
            "90 s",
        ])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("10000 records in"),
        "every record is read: {err}"
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("+I[10000]"),
        "{err}"
    );
}

/// Hostile records on a real topic: a payload nesting JSON 10,000 levels
/// (in a field the job never reads) and an event time of -2^63 are errors
/// at their topic/partition/offset, or skipped and counted with
/// `json.ignore-parse-errors`; the process never aborts.
#[test]
fn deep_json_and_absurd_event_times_are_errors_at_their_place_never_a_crash() {
    let (dir, id) = kafka_scratch("edge-hostile");
    let topic = format!("hostile-{id}");
    create_topic(&topic, 1);
    let p: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .set("message.max.bytes", "1000000")
        .create()
        .expect("producer");
    let payloads = hostile_payloads();
    for payload in &payloads {
        p.send(
            BaseRecord::<(), str>::to(&topic)
                .partition(0)
                .payload(payload),
        )
        .map_err(|(e, _)| e)
        .expect("send");
    }
    p.flush(std::time::Duration::from_secs(30)).expect("flush");
    let run = |extra: &str| {
        let sql = format!(
            "CREATE TABLE src (k STRING, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
             WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
                   'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'{extra});
             CREATE TABLE out (k STRING, n BIGINT) WITH ('connector' = 'print');
             INSERT INTO out SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k;"
        );
        run_sql(&dir, &format!("hostile{}", extra.len()), &sql)
    };
    let o = run("");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "an error, not an abort: {err}");
    assert!(
        err.contains(&format!("topic {topic} partition 0 offset 1")),
        "{err}"
    );
    assert!(err.contains("deeper than 1000 levels"), "{err}");
    let o = run(", 'json.ignore-parse-errors' = 'true'");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("+I[a, 1]") && out.contains("+I[b, 1]"),
        "{out}"
    );
    assert!(err.contains("2 skipped"), "both are counted: {err}");
}

/// Topics written with each compression codec (gzip, snappy, lz4, zstd)
/// are read whole: librdkafka is built with every one of them.
#[test]
fn every_compression_codec_is_read() {
    let (dir, id) = kafka_scratch("edge-codecs");
    for codec in ["gzip", "snappy", "lz4", "zstd"] {
        let topic = format!("codec-{codec}-{id}");
        create_topic(&topic, 1);
        let p: BaseProducer = ClientConfig::new()
            .set("bootstrap.servers", BOOTSTRAP)
            .set("compression.type", codec)
            .create()
            .expect("producer");
        for i in 0..200 {
            let payload = format!(
                r#"{{"k":"a","ts":"{}"}}"#,
                sql_ts(1_757_808_000_000 + i * 10)
            );
            p.send(
                BaseRecord::<(), str>::to(&topic)
                    .partition(0)
                    .payload(&payload),
            )
            .map_err(|(e, _)| e)
            .expect("send");
        }
        p.flush(std::time::Duration::from_secs(30)).expect("flush");
        let sql = format!(
            "CREATE TABLE src (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
             WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
                   'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
             CREATE TABLE out (n BIGINT) WITH ('connector' = 'print');
             INSERT INTO out SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY window_start, window_end;"
        );
        let o = run_sql(&dir, codec, &sql);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{codec}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(out.contains("+I[200]"), "{codec}: {out}");
    }
}

/// A source table that takes its group key from the Kafka key, as Flink
/// jobs declare it (`key.format` json, `key.fields`, `key.fields-prefix`,
/// `value.fields-include` = 'EXCEPT_KEY'): counts per key from a real topic
/// and from a dump of it are the same, exact; a record without a key gives
/// no row (as in Flink) and is counted as skipped; an undecodable key is an
/// error at its place.
#[test]
fn key_fields_of_a_source_are_read_from_the_kafka_key() {
    let (dir, id) = kafka_scratch("edge-keys");
    let topic = format!("keys-{id}");
    create_topic(&topic, 2);
    let p = producer();
    let mut want = std::collections::BTreeMap::new();
    for i in 0..300i64 {
        let user = format!("u{}", i % 3);
        // The key format's field names are the columns' without the prefix.
        let key = format!(r#"{{"user":"{user}"}}"#);
        let value = format!(r#"{{"ts":"{}"}}"#, sql_ts(1_757_808_000_000 + i * 10));
        let rec = BaseRecord::to(&topic)
            .partition((i % 2) as i32)
            .key(&key)
            .payload(&value);
        p.send(rec).map_err(|(e, _)| e).expect("send");
        *want.entry(user).or_insert(0) += 1;
    }
    let keyless = format!(r#"{{"ts":"{}"}}"#, sql_ts(1_757_808_000_500));
    p.send(
        BaseRecord::<str, str>::to(&topic)
            .partition(0)
            .payload(&keyless),
    )
    .map_err(|(e, _)| e)
    .expect("send");
    p.flush(std::time::Duration::from_secs(30)).expect("flush");
    let sql = |extra: &str| {
        format!(
            "CREATE TABLE src (k_user STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
             WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
                   'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
                   'key.format' = 'json', 'key.fields' = 'k_user', 'key.fields-prefix' = 'k_',
                   'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY'{extra});
             CREATE TABLE out (user_id STRING, n BIGINT) WITH ('connector' = 'print');
             INSERT INTO out SELECT k_user, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' DAY))
             GROUP BY window_start, window_end, k_user;"
        )
    };
    let o = run_sql(&dir, "keys", &sql(""));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (user, n) in &want {
        assert!(out.contains(&format!("+I[{user}, {n}]")), "{user}: {out}");
    }
    assert!(!out.contains("null"), "the record without a key: {out}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("1 skipped"),
        "counted: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The same from a dump of the topic, through replay.
    let dump = dir.join("keys.jsonl");
    let d = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["dump", &topic, "--bootstrap", &BOOTSTRAP, "--output"])
        .arg(&dump)
        .output()
        .expect("dump");
    assert!(d.status.success(), "{}", String::from_utf8_lossy(&d.stderr));
    let (job, rows) = (dir.join("keys.sql"), dir.join("replayed.jsonl"));
    let r = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["replay"])
        .arg(&job)
        .arg("--input")
        .arg(format!("src={}", dump.display()))
        .arg("--output")
        .arg(format!("out={}", rows.display()))
        .output()
        .expect("replay");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let replayed = std::fs::read_to_string(&rows).expect("replayed rows");
    for (user, n) in &want {
        assert!(
            replayed.contains(&format!("+I[{user}, {n}]")),
            "{user}: {replayed}"
        );
    }
    // An undecodable key names its record.
    p.send(
        BaseRecord::to(&topic)
            .partition(1)
            .key("not json {")
            .payload(&keyless),
    )
    .map_err(|(e, _)| e)
    .expect("send");
    p.flush(std::time::Duration::from_secs(30)).expect("flush");
    let o = run_sql(&dir, "badkey", &sql(""));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("topic {topic} partition 1 offset 150: the key: ")),
        "{err}"
    );
}

/// `'format' = 'raw'`: a topic of plain text lines (not JSON) is read with
/// its Kafka timestamp as the rowtime, and a raw sink writes one text value
/// per row, read back as is.
#[test]
fn raw_text_topics_are_read_and_written_as_is() {
    let (dir, id) = kafka_scratch("edge-raw");
    let (input, output) = (format!("raw-in-{id}"), format!("raw-out-{id}"));
    create_topic(&input, 1);
    create_topic(&output, 1);
    let p = producer();
    let lines = ["GET /a {not json", "GET /b", "GET /a {not json", "POST /c"];
    for (i, line) in lines.iter().enumerate() {
        let rec = BaseRecord::<(), str>::to(&input)
            .partition(0)
            .payload(*line)
            .timestamp(1_757_808_000_000 + i as i64 * 100);
        p.send(rec).map_err(|(e, _)| e).expect("send");
    }
    p.flush(std::time::Duration::from_secs(30)).expect("flush");
    let sql = format!(
        "CREATE TABLE access (line STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', WATERMARK FOR ts AS ts)
         WITH ('connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
               'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'raw');
         CREATE TABLE seen (line STRING)
         WITH ('connector' = 'kafka', 'topic' = '{output}', 'properties.bootstrap.servers' = '{BOOTSTRAP}', 'format' = 'raw');
         INSERT INTO seen SELECT line FROM TABLE(TUMBLE(TABLE access, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
         GROUP BY window_start, window_end, line;"
    );
    let o = run_sql(&dir, "raw", &sql);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let c: rdkafka::consumer::BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .set("group.id", format!("raw-check-{id}"))
        .set("auto.offset.reset", "earliest")
        .create()
        .expect("consumer");
    use rdkafka::consumer::Consumer;
    use rdkafka::Message;
    c.subscribe(&[&output]).expect("subscribe");
    let mut got = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while got.len() < 3 && std::time::Instant::now() < deadline {
        if let Some(Ok(m)) = c.poll(std::time::Duration::from_millis(200)) {
            got.push(String::from_utf8_lossy(m.payload().unwrap_or_default()).into_owned());
        }
    }
    got.sort();
    assert_eq!(got, vec!["GET /a {not json", "GET /b", "POST /c"]);
    // A raw table has one physical STRING column.
    let bad = "CREATE TABLE t (a STRING, b STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
               WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'x:1', 'format' = 'raw');
               CREATE TABLE o (n BIGINT) WITH ('connector' = 'print');
               INSERT INTO o SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;";
    let o = run_sql(&dir, "rawbad", bad);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("format 'raw' holds the whole record value in one physical STRING"),
        "{err}"
    );
}

/// A sink topic that does not exist (a typo) is an error at start that
/// names it and says how to create it; the broker, which auto-creates
/// topics, is not asked in a way that creates it. With
/// 'properties.allow.auto.create.topics' = 'true' the broker creates it.
#[test]
fn a_sink_topic_that_does_not_exist_is_an_error_unless_auto_creation_is_asked() {
    let (dir, id) = kafka_scratch("sink-typo");
    let input = format!("typo-in-{id}");
    create_topic(&input, 1);
    let p = producer();
    let payload = format!(r#"{{"k":"a","ts":"{}"}}"#, sql_ts(1_757_808_000_000));
    p.send(BaseRecord::<(), str>::to(&input).payload(&payload))
        .expect("send");
    p.flush(std::time::Duration::from_secs(10)).expect("flush");
    let job = |out: &str, extra: &str| {
        format!(
            "CREATE TABLE src (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
               WITH ('connector' = 'kafka', 'topic' = '{input}',
                 'properties.bootstrap.servers' = '{BOOTSTRAP}',
                 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
                 'format' = 'json');
             CREATE TABLE out_counts (n BIGINT)
               WITH ('connector' = 'kafka', 'topic' = '{out}',
                 'properties.bootstrap.servers' = '{BOOTSTRAP}', 'format' = 'json'{extra});
             INSERT INTO out_counts SELECT COUNT(*)
               FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
               GROUP BY window_start, window_end;"
        )
    };
    let typo = format!("typo-ouput-{id}");
    let o = run_sql(&dir, "typo", &job(&typo, ""));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains(&format!("sink 'out_counts': topic '{typo}' does not exist"))
            && err.contains("scripts/kafka.sh create")
            && err.contains("'properties.allow.auto.create.topics' = 'true'"),
        "{err}"
    );
    let exists = |t: &str| {
        let props: std::collections::BTreeMap<String, String> =
            [("bootstrap.servers".to_string(), BOOTSTRAP.to_string())].into();
        lowwater_kafka::topic_exists(&props, t).expect("the broker answers")
    };
    assert!(!exists(&typo), "checking did not create the topic");
    let auto = format!("auto-output-{id}");
    let extra = ", 'properties.allow.auto.create.topics' = 'true'";
    let o = run_sql(&dir, "auto", &job(&auto, extra));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        exists(&auto),
        "the broker created the topic the job wrote to"
    );
}

/// Issue 37 item 7: `explain` asks the brokers for a Kafka table's
/// partition count when `--partitions` does not give it (without creating
/// the topic), so its partition map and warnings need no flag; a topic that
/// does not exist is said on standard error and not created.
#[test]
fn explain_asks_the_brokers_for_the_partition_count() {
    let (dir, id) = kafka_scratch("explain");
    let topic = format!("explain-in-{id}");
    create_topic(&topic, 3);
    let job = |topic: &str| {
        let sql = format!(
            "CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{BOOTSTRAP}', 'format' = 'json');
CREATE TABLE out (window_start TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
"
        );
        let path = dir.join(format!("{topic}.sql"));
        std::fs::write(&path, sql).expect("job");
        path
    };
    let o = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["explain", job(&topic).to_str().expect("utf-8")])
        .output()
        .expect("explain");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        text.contains(&format!("subtask 0: {topic}/0, {topic}/1, {topic}/2")),
        "{text}"
    );
    assert!(text.contains("it has 3 partitions"), "{text}");
    let missing = format!("explain-missing-{id}");
    let o = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["explain", job(&missing).to_str().expect("utf-8")])
        .output()
        .expect("explain");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("does not exist on its brokers yet"), "{err}");
    let exists = lowwater_kafka::topic_exists(
        &[("bootstrap.servers".to_string(), BOOTSTRAP.to_string())].into(),
        &missing,
    );
    assert_eq!(exists, Ok(false), "explain created the topic");
}
