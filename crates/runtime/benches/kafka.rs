//! Kafka throughput: a pre-filled 16-partition topic (1M clickstream records)
//! read by the seed 000 job (`TUMBLE(1 min)`, `COUNT(*)`, bounded with
//! `scan.bounded.mode` = 'latest-offset', blackhole sink) at parallelism 1
//! and 2, next to a raw rdkafka consumer reading the same topic, in the same
//! run. The ratio lowwater / raw consume is the figure to read.
//!
//! Then the formats: the same records as JSON, CSV and plain Avro (Flink's
//! derived schema) in three topics, the same job over each, alternated,
//! best of 3, at parallelism 1 and 2 (the windows must agree).
//!
//! Then exactly-once vs at-least-once: the same bounded read, but
//! `TUMBLE(1 s)` per `user_id` (about one output row per input record, so
//! the sink carries real traffic) written to a 4-partition Kafka topic, once
//! at-least-once and once exactly-once, both with checkpoints every second so
//! that only the sink differs. Alternated, best of 3, at parallelism 1 and 2;
//! each run has its own sink topic, job name and transactional-id prefix
//! (exactly-once keeps its commit markers in a topic named after the prefix:
//! a new one per run, created inside the timed run as a first start would).
//! The rows each run wrote are counted back with a `read_committed`
//! consumer; the topics are deleted afterwards. Target: exactly-once at
//! 0.8x of at-least-once or better.
//!
//! Needs the local broker: `scripts/kafka.sh start` (the bench starts it).
//! `cargo bench -p lowwater-runtime --bench kafka` (RECORDS=n to change the
//! size; READ_ONLY=1 stops after the first part, FORMATS_ONLY=1 after the
//! formats). The first part also runs each job with librdkafka's default
//! `fetch.queue.backoff.ms` (1000 ms) beside lowwater's 10 ms, and prints
//! wall and CPU seconds.

use std::time::{Duration, Instant};

use lowwater_runtime::{run, RunArgs};

mod common;
use common::{best, runs};
#[path = "../../core/benches/proc/mod.rs"]
mod proc_stat;
use lowwater_sql::plan::JobPlan;
use proc_stat::{cpu_seconds, env_num};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{Offset, TopicPartitionList};

/// The broker of `scripts/kafka.sh`: 127.0.0.1 and `KAFKA_PORT` (default 19092).
fn bootstrap() -> String {
    format!(
        "127.0.0.1:{}",
        std::env::var("KAFKA_PORT").unwrap_or_else(|_| "19092".into())
    )
}

/// The `i`-th clickstream record's fields: user, url, event time (ms), and
/// its Kafka timestamp.
fn record(i: usize) -> (String, String, i64, i64) {
    let day = 1_757_808_000_000i64;
    let ts = day + i as i64 * 3;
    (
        format!("u{}", i % 5_000),
        format!("/p/{}", i % 97),
        ts - (i as i64 * 389) % 2_000,
        ts,
    )
}

/// A record value in `format` (json, csv or avro: the same fields).
fn encode(format: &str, i: usize, avro: &mut lowwater_connectors::avro::AvroWriter) -> Vec<u8> {
    let (user, url, event, _) = record(i);
    let text = lowwater_core::time::format_timestamp(event, ' ');
    match format {
        "json" => {
            format!(r#"{{"user_id":"{user}","url":"{url}","event_time":"{text}"}}"#).into_bytes()
        }
        "csv" => format!("{user},{url},\"{text}\"").into_bytes(),
        _ => avro
            .write(&[
                lowwater_core::Value::str(&user),
                lowwater_core::Value::str(&url),
                lowwater_core::Value::Timestamp(event),
            ])
            .expect("encodes"),
    }
}

fn fill(topic: &str, n: usize, format: &str) {
    lowwater_kafka::create_topic(&bootstrap(), topic, 16).expect("topic");
    let p: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("linger.ms", "20")
        .set("queue.buffering.max.messages", "1000000")
        .create()
        .expect("producer");
    let mut avro = lowwater_connectors::avro::AvroWriter::new(
        &lowwater_sql::formats::ValueFormat::Avro,
        &[
            ("user_id".to_string(), lowwater_sql::SqlType::String, false),
            ("url".to_string(), lowwater_sql::SqlType::String, false),
            (
                "event_time".to_string(),
                lowwater_sql::SqlType::Timestamp,
                false,
            ),
        ],
        &[topic.to_string()],
        lowwater_connectors::avro::Registration::Register,
    )
    .expect("avro writer");
    let deadline = Instant::now() + Duration::from_secs(300);
    for i in 0..n {
        let payload = encode(format, i, &mut avro);
        let ts = record(i).3;
        let mut rec = BaseRecord::<(), [u8]>::to(topic)
            .partition((i % 16) as i32)
            .payload(&payload)
            .timestamp(ts);
        loop {
            match p.send(rec) {
                Ok(()) => break,
                Err((_, r)) => {
                    assert!(
                        Instant::now() < deadline,
                        "filling {topic} made no progress in 300 s: is the broker healthy? \
                         (scripts/kafka.sh status)"
                    );
                    rec = r;
                    p.poll(Duration::from_millis(10));
                }
            }
        }
        if i % 10_000 == 0 {
            p.poll(Duration::ZERO);
        }
    }
    p.flush(Duration::from_secs(60)).expect("flush");
}

/// Records readable in `topic` (end minus start offset, summed over its
/// partitions; 0 if it does not exist). Retention can move the start offset.
/// A broker that has just started answers with errors for a while (no
/// leader yet): those are waited out, up to a minute, rather than read as
/// "no topic", which would fill the topic a second time.
fn stored(topic: &str) -> i64 {
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .expect("consumer");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match stored_once(&c, topic) {
            Ok(n) => return n,
            Err(e) => assert!(
                Instant::now() < deadline,
                "cannot count the records of {topic} for 60 s: {e} (scripts/kafka.sh status)"
            ),
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// One attempt of [`stored`]: `Err` while the broker cannot say yet.
fn stored_once(c: &BaseConsumer, topic: &str) -> Result<i64, String> {
    let md = c
        .fetch_metadata(Some(topic), Duration::from_secs(10))
        .map_err(|e| e.to_string())?;
    let Some(t) = md.topics().iter().find(|t| t.name() == topic) else {
        return Ok(0);
    };
    match t.error().map(RDKafkaErrorCode::from) {
        None => {}
        Some(RDKafkaErrorCode::UnknownTopicOrPartition) => return Ok(0),
        Some(e) => return Err(e.to_string()),
    }
    let mut sum = 0;
    for p in t.partitions() {
        if p.error().is_some() || p.leader() < 0 {
            return Err(format!("partition {} has no leader yet", p.id()));
        }
        let (low, high) = c
            .fetch_watermarks(topic, p.id(), Duration::from_secs(10))
            .map_err(|e| e.to_string())?;
        sum += high - low;
    }
    Ok(sum)
}

fn raw_consume(topic: &str, n: usize, backoff_ms: Option<&str>) -> f64 {
    let mut cfg = ClientConfig::new();
    cfg.set("bootstrap.servers", bootstrap())
        .set("group.id", "raw-bench")
        .set("enable.auto.commit", "false");
    if let Some(b) = backoff_ms {
        cfg.set("fetch.queue.backoff.ms", b);
    }
    let c: BaseConsumer = cfg.create().expect("consumer");
    let mut tpl = TopicPartitionList::new();
    for p in 0..16 {
        tpl.add_partition_offset(topic, p, Offset::Beginning)
            .expect("partition");
    }
    c.assign(&tpl).expect("assign");
    let t0 = Instant::now();
    let mut got = 0;
    while got < n {
        if let Some(Ok(_)) = c.poll(Duration::from_millis(100)) {
            got += 1;
        }
    }
    t0.elapsed().as_secs_f64()
}

fn main() {
    let n = env_num("RECORDS", 1_000_000);
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka.sh");
    let ok = std::process::Command::new("bash")
        .arg(script)
        .arg("start")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "the Kafka broker did not start");
    let topic = format!("bench-clickstream-{n}");
    prepare(&topic, n, "json");
    let raw = raw_consume(&topic, n, None);
    let raw10 = raw_consume(&topic, n, Some("10"));
    println!("kafka bench: {n} records on a 16-partition topic, seed 000 job, same run");
    println!(
        "  raw rdkafka consume:      {raw:>6.2} s  {:>10.0} records/s (librdkafka's defaults)",
        n as f64 / raw
    );
    println!(
        "  raw rdkafka consume:      {raw10:>6.2} s  {:>10.0} records/s (fetch.queue.backoff.ms 10, \
         as lowwater sets it)",
        n as f64 / raw10
    );
    // lowwater's consumer setting next to librdkafka's default fetch
    // backoff (what lowwater used before), alternated, best of 3.
    let old = ", 'properties.fetch.queue.backoff.ms' = '1000'";
    let mut p1 = 0.0;
    for p in [1usize, 2] {
        for (what, extra) in [("", ""), (" (backoff 1000 ms)", old)] {
            let mut best: Option<((f64, u64), f64)> = None;
            for _ in 0..3 {
                let r = read_job_with(&topic, "json", p, n, extra);
                if best.is_none_or(|b| r.0 .0 < b.0 .0) {
                    best = Some(r);
                }
            }
            let Some(((s, windows), cpu)) = best else {
                continue;
            };
            if p == 1 && extra.is_empty() {
                p1 = s;
            }
            println!(
                "  lowwater, parallelism {p}{what}: {s:>6.2} s wall, {cpu:>6.2} s CPU  {:>10.0} \
                 records/s  ({:.2} of raw consume, {:.2} of raw at 10 ms{}), {windows} windows",
                n as f64 / s,
                raw / s,
                raw10 / s,
                if p == 2 && extra.is_empty() {
                    format!(", {:.2}x parallelism 1", p1 / s)
                } else {
                    String::new()
                }
            );
        }
    }
    if std::env::var("READ_ONLY").is_ok() {
        return;
    }
    formats(n);
    if std::env::var("FORMATS_ONLY").is_ok() {
        return;
    }
    for p in [1usize, 2] {
        sink_guarantees(&topic, p, n);
    }
}

/// Fills `topic` with `n` records in `format` unless it holds them already.
fn prepare(topic: &str, n: usize, format: &str) {
    match stored(topic) {
        0 => fill(topic, n, format),
        s if s == n as i64 => {}
        s => panic!(
            "topic {topic} holds {s} records, not {n}: a fill was interrupted; \
             delete it (or wipe the broker's data dir) and run again"
        ),
    }
    assert_eq!(
        stored(topic),
        n as i64,
        "the bench topic holds exactly the records it was filled with"
    );
}

/// The seed 000 job over `topic` in `format` at parallelism `p`: its wall
/// time and the windows it wrote.
fn read_job(topic: &str, format: &str, p: usize, n: usize) -> (f64, u64) {
    read_job_with(topic, format, p, n, "").0
}

/// The seed 000 job over `topic` with `extra` WITH options; its wall and
/// CPU seconds and its windows.
fn read_job_with(topic: &str, format: &str, p: usize, n: usize, extra: &str) -> ((f64, u64), f64) {
    let bs = bootstrap();
    let sql = format!(
        "SET 'parallelism.default' = '{p}';
         CREATE TABLE clickstream (user_id STRING, url STRING, event_time TIMESTAMP(3),
           WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
         WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bs}',
               'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = '{format}'{extra});
         CREATE TABLE dashboard (window_start TIMESTAMP(3), window_end TIMESTAMP(3), clicks BIGINT) WITH ('connector' = 'blackhole');
         INSERT INTO dashboard SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE clickstream, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
         GROUP BY window_start, window_end;"
    );
    let plan = JobPlan::from_sql(&sql).expect("plans");
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let out = run(&plan, &RunArgs::default()).expect("runs");
    let (s, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
    assert_eq!(
        out.report.totals.records_in as usize, n,
        "read the whole topic"
    );
    ((s, out.report.totals.records_out), cpu)
}

/// The same job over the same records as JSON, CSV and Avro topics,
/// alternated, best of 3 each, at parallelism 1 and 2; the windows must
/// agree across formats.
fn formats(n: usize) {
    let names = ["json", "csv", "avro"];
    let topic = |f: &str| match f {
        "json" => format!("bench-clickstream-{n}"),
        f => format!("bench-clickstream-{f}-{n}"),
    };
    for f in names {
        prepare(&topic(f), n, f);
    }
    for p in [1usize, 2] {
        let mut secs = [vec![], vec![], vec![]];
        let mut windows = [0u64; 3];
        for _ in 0..3 {
            for (i, f) in names.iter().enumerate() {
                let (s, w) = read_job(&topic(f), f, p, n);
                secs[i].push(s);
                windows[i] = w;
            }
        }
        assert!(
            windows.iter().all(|w| *w == windows[0]),
            "every format gives the same windows: {windows:?}"
        );
        let json = best(&secs[0]);
        println!(
            "  parallelism {p}, formats (best of 3): json {:>8.0} records/s, csv {:>8.0} ({:.2}x json), avro {:>8.0} ({:.2}x json)",
            n as f64 / json,
            n as f64 / best(&secs[1]),
            json / best(&secs[1]),
            n as f64 / best(&secs[2]),
            json / best(&secs[2]),
        );
        println!(
            "    runs (s): json [{}], csv [{}], avro [{}]",
            runs(&secs[0]),
            runs(&secs[1]),
            runs(&secs[2])
        );
    }
}

/// The job of the sink comparison: `TUMBLE(1 s)` per user into Kafka topic
/// `sink`, with `guarantee` (extra sink options), checkpoints every second
/// in `dir`.
fn sink_job(topic: &str, sink: &str, guarantee: &str, dir: &std::path::Path, p: usize) -> JobPlan {
    let bs = bootstrap();
    let sql = format!(
        "SET 'parallelism.default' = '{p}';
         SET 'execution.checkpointing.interval' = '1 s';
         SET 'execution.checkpointing.dir' = 'file://{}';
         CREATE TABLE clickstream (user_id STRING, url STRING, event_time TIMESTAMP(3),
           WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
         WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bs}',
               'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
         CREATE TABLE per_user (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, clicks BIGINT)
         WITH ('connector' = 'kafka', 'topic' = '{sink}', 'properties.bootstrap.servers' = '{bs}',
               'format' = 'json'{guarantee});
         INSERT INTO per_user SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE clickstream, DESCRIPTOR(event_time), INTERVAL '1' SECOND))
         GROUP BY window_start, window_end, user_id;",
        dir.display()
    );
    JobPlan::from_sql(&sql).expect("plans")
}

/// At-least-once vs exactly-once into Kafka at parallelism `p`: alternated,
/// best of 3 each; prints both rates, the ratio, every run's time and the
/// rows written.
fn sink_guarantees(topic: &str, p: usize, n: usize) {
    let tag = format!("{}-p{p}", std::process::id());
    let dir = std::env::temp_dir().join(format!("lowwater-kafka-bench-ck-{tag}"));
    let (mut secs, mut rows) = ([vec![], vec![]], [vec![], vec![]]);
    let mut topics = Vec::new();
    for i in 0..3 {
        for (m, eo) in [false, true].into_iter().enumerate() {
            let name = format!("bench-{}-{tag}-{i}", if eo { "eo" } else { "alo" });
            let (s, written) = sink_run(topic, &name, eo, &dir, p, n);
            topics.push(name.clone());
            if eo {
                topics.push(format!("{name}.lowwater-checkpoints"));
            }
            secs[m].push(s);
            rows[m].push(written);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let (alo, eo) = (best(&secs[0]), best(&secs[1]));
    println!(
        "  parallelism {p}, into Kafka, checkpoints every 1 s: exactly-once {:>8.0} records/s vs at-least-once {:>8.0} = {:.3}x{}",
        n as f64 / eo,
        n as f64 / alo,
        alo / eo,
        if alo / eo >= 0.8 { "" } else { "   ** under the 0.8x target **" }
    );
    println!(
        "    runs (s): at-least-once [{}], exactly-once [{}]",
        runs(&secs[0]),
        runs(&secs[1])
    );
    println!(
        "    rows written (read back read_committed) per run: at-least-once {:?}, exactly-once {:?}",
        rows[0], rows[1]
    );
    let names: Vec<&str> = topics.iter().map(String::as_str).collect();
    lowwater_kafka::delete_topics(&bootstrap(), &names).expect("delete the bench's topics");
}

/// One run of the sink job into a new topic `name` (also its job name and,
/// exactly-once, its transactional-id prefix): its wall time and the rows it
/// wrote, checked against what a `read_committed` reader finds.
fn sink_run(
    topic: &str,
    name: &str,
    eo: bool,
    dir: &std::path::Path,
    p: usize,
    n: usize,
) -> (f64, u64) {
    let guarantee = if eo {
        format!(", 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '{name}'")
    } else {
        ", 'sink.delivery-guarantee' = 'at-least-once'".to_string()
    };
    lowwater_kafka::create_topic(&bootstrap(), name, 4).expect("sink topic");
    let plan = sink_job(topic, name, &guarantee, dir, p);
    let args = RunArgs {
        job_name: name.to_string(),
        ..RunArgs::default()
    };
    let t0 = Instant::now();
    let out = run(&plan, &args).expect("runs");
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!(
        out.report.totals.records_in as usize, n,
        "read the whole topic"
    );
    let written = out.report.totals.records_out;
    let read = committed_rows(name);
    assert_eq!(
        read, written,
        "{name}: every row written is committed and readable"
    );
    (secs, written)
}

/// Rows readable in `topic` by a `read_committed` consumer (aborted rows and
/// transaction markers skipped), read from the beginning to each partition's end.
fn committed_rows(topic: &str) -> u64 {
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", "bench-count")
        .set("isolation.level", "read_committed")
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "true")
        .create()
        .expect("consumer");
    let mut tpl = TopicPartitionList::new();
    for p in 0..4 {
        tpl.add_partition_offset(topic, p, Offset::Beginning)
            .expect("partition");
    }
    c.assign(&tpl).expect("assign");
    let deadline = Instant::now() + Duration::from_secs(120);
    let (mut rows, mut ended) = (0, std::collections::BTreeSet::new());
    while ended.len() < 4 {
        assert!(
            Instant::now() < deadline,
            "{topic}: not read to its end in 120 s"
        );
        match c.poll(Duration::from_millis(100)) {
            Some(Ok(_)) => rows += 1,
            Some(Err(KafkaError::PartitionEOF(p))) => {
                ended.insert(p);
            }
            Some(Err(e)) => panic!("{topic}: {e}"),
            None => {}
        }
    }
    rows
}
