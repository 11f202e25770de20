//! Kafka throughput: a pre-filled 16-partition topic (1M clickstream records)
//! read by the seed 000 job (`TUMBLE(1 min)`, `COUNT(*)`, bounded with
//! `scan.bounded.mode` = 'latest-offset', blackhole sink) at parallelism 1
//! and 2, next to a raw rdkafka consumer reading the same topic, in the same
//! run. The ratio lowwater / raw consume is the figure to read.
//!
//! Needs the local broker: `scripts/kafka.sh start` (the bench starts it).
//! `cargo bench -p lowwater-runtime --bench kafka` (RECORDS=n to change the size).

use std::time::{Duration, Instant};

use lowwater_runtime::{run, RunArgs};
use lowwater_sql::plan::JobPlan;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::{Offset, TopicPartitionList};

const BOOTSTRAP: &str = "127.0.0.1:19092";

fn fill(topic: &str, n: usize) {
    lowwater_kafka::create_topic(BOOTSTRAP, topic, 16).expect("topic");
    let p: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .set("linger.ms", "20")
        .set("queue.buffering.max.messages", "1000000")
        .create()
        .expect("producer");
    let day = 1_757_808_000_000i64;
    let deadline = Instant::now() + Duration::from_secs(300);
    for i in 0..n {
        let ts = day + i as i64 * 3;
        let payload = format!(
            r#"{{"user_id":"u{}","url":"/p/{}","event_time":"{}"}}"#,
            i % 5_000,
            i % 97,
            lowwater_core::time::format_timestamp(ts - (i as i64 * 389) % 2_000, ' ')
        );
        let mut rec = BaseRecord::<(), str>::to(topic)
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
fn stored(topic: &str) -> i64 {
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .create()
        .expect("consumer");
    let Ok(md) = c.fetch_metadata(Some(topic), Duration::from_secs(10)) else {
        return 0;
    };
    let Some(t) = md
        .topics()
        .iter()
        .find(|t| t.name() == topic && t.error().is_none())
    else {
        return 0;
    };
    t.partitions()
        .iter()
        .map(|p| {
            c.fetch_watermarks(topic, p.id(), Duration::from_secs(10))
                .map_or(0, |(low, high)| high - low)
        })
        .sum()
}

fn raw_consume(topic: &str, n: usize) -> f64 {
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .set("group.id", "raw-bench")
        .set("enable.auto.commit", "false")
        .create()
        .expect("consumer");
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
    let n: usize = std::env::var("RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka.sh");
    let ok = std::process::Command::new("bash")
        .arg(script)
        .arg("start")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "the Kafka broker did not start");
    let topic = format!("bench-clickstream-{n}");
    match stored(&topic) {
        0 => fill(&topic, n),
        s if s == n as i64 => {}
        s => panic!(
            "topic {topic} holds {s} records, not {n}: a fill was interrupted; \
             delete it (or wipe the broker's data dir) and run again"
        ),
    }
    assert_eq!(
        stored(&topic),
        n as i64,
        "the bench topic holds exactly the records it was filled with"
    );
    let raw = raw_consume(&topic, n);
    println!("kafka bench: {n} records on a 16-partition topic, seed 000 job, same run");
    println!(
        "  raw rdkafka consume:      {raw:>6.2} s  {:>10.0} records/s",
        n as f64 / raw
    );
    for p in [1usize, 2] {
        let sql = format!(
            "SET 'parallelism.default' = '{p}';
             CREATE TABLE clickstream (user_id STRING, url STRING, event_time TIMESTAMP(3),
               WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
             WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
                   'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
             CREATE TABLE dashboard (window_start TIMESTAMP(3), window_end TIMESTAMP(3), clicks BIGINT) WITH ('connector' = 'blackhole');
             INSERT INTO dashboard SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE clickstream, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))
             GROUP BY window_start, window_end;"
        );
        let plan = JobPlan::from_sql(&sql).expect("plans");
        let t0 = Instant::now();
        let out = run(&plan, &RunArgs::default()).expect("runs");
        let s = t0.elapsed().as_secs_f64();
        assert_eq!(
            out.report.totals.records_in as usize, n,
            "read the whole topic"
        );
        println!(
            "  lowwater, parallelism {p}:  {s:>6.2} s  {:>10.0} records/s  ({:.2} of raw consume), {} windows",
            n as f64 / s,
            raw / s,
            out.report.totals.records_out
        );
    }
}
