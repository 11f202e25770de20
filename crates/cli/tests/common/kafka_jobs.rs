//! What the `lowwater run` Kafka tests share (`kafka.rs`,
//! `kafka_partitions.rs`): live and backlog producers, jobs reading and
//! writing topics, and the check that a live run's rows are the rows
//! `lowwater replay` computes from a dump of the same topic.
#![allow(dead_code)] // each test binary uses its own part

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseRecord, Producer};
use rdkafka::{Message, Offset, TopicPartitionList};

use super::{producer, sql_ts, BOOTSTRAP};

/// Produces live traffic until `stop`: a record every 20 ms, round-robin
/// over the `busy` partitions, plus one heartbeat every `heartbeat.1` ms on
/// partition `heartbeat.0` (the first at the start), all stamped with the
/// wall clock as the producers of the seeds do. Returns how many it sent.
pub fn produce_live(
    topic: &str,
    busy: &[i32],
    heartbeat: Option<(i32, u64)>,
    stop: &std::sync::atomic::AtomicBool,
) -> u64 {
    produce_live_users(topic, busy, heartbeat, 2, 20, stop)
}

/// [`produce_live`] with `users` distinct users and a record every
/// `every_ms` ms.
pub fn produce_live_users(
    topic: &str,
    busy: &[i32],
    heartbeat: Option<(i32, u64)>,
    users: u64,
    every_ms: u64,
    stop: &std::sync::atomic::AtomicBool,
) -> u64 {
    let p = producer();
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
    };
    let send = |part: i32, k: u64| {
        let ts = now();
        let payload = format!(r#"{{"user_id":"u{}","ts":"{}"}}"#, k % users, sql_ts(ts));
        p.send(
            BaseRecord::<(), str>::to(topic)
                .partition(part)
                .payload(&payload)
                .timestamp(ts),
        )
        .expect("send");
        p.poll(Duration::ZERO);
    };
    let (mut k, started) = (0u64, std::time::Instant::now());
    let mut beats = 0u64;
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        if let Some((hp, every)) = heartbeat {
            if started.elapsed().as_millis() as u64 >= beats * every {
                send(hp, k);
                beats += 1;
                k += 1;
            }
        }
        send(busy[(k % busy.len() as u64) as usize], k);
        k += 1;
        // Paces the producer (real traffic over real time, not a test waiting for time to pass).
        std::thread::sleep(Duration::from_millis(every_ms));
    }
    p.flush(Duration::from_secs(10)).expect("flush");
    k
}

/// Runs `lowwater run` while live traffic flows into `topic`.
pub fn run_with_traffic(
    topic: &str,
    busy: &[i32],
    heartbeat: Option<(i32, u64)>,
    args: &[&str],
) -> (std::process::Output, u64) {
    run_with_users(topic, busy, heartbeat, (2, 20), args)
}

/// [`run_with_traffic`] with `(users, every_ms)` as [`produce_live_users`]
/// takes them.
pub fn run_with_users(
    topic: &str,
    busy: &[i32],
    heartbeat: Option<(i32, u64)>,
    (users, every_ms): (u64, u64),
    args: &[&str],
) -> (std::process::Output, u64) {
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let producer =
            s.spawn(|| produce_live_users(topic, busy, heartbeat, users, every_ms, &stop));
        let o = Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(args)
            .output()
            .expect("run");
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        (o, producer.join().expect("producer"))
    })
}

pub fn consume_all(topic: &str, partitions: i32) -> Vec<String> {
    // librdkafka's default isolation.
    consume_all_with(topic, partitions, "read_committed")
}

/// [`consume_all`] with `isolation.level` = `isolation`.
pub fn consume_all_with(topic: &str, partitions: i32, isolation: &str) -> Vec<String> {
    let mut out: Vec<String> = consume_records(topic, partitions, isolation)
        .into_iter()
        .map(|r| r.value.unwrap_or_default())
        .collect();
    out.sort();
    out
}

/// One record read back: its partition, key and value (`None`: none).
#[allow(dead_code)]
pub struct Consumed {
    pub partition: i32,
    pub key: Option<String>,
    pub value: Option<String>,
}

/// Every record of `topic`'s `partitions`, from the beginning, in the
/// order read, with `isolation.level` = `isolation`.
pub fn consume_records(topic: &str, partitions: i32, isolation: &str) -> Vec<Consumed> {
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .set("group.id", "lowwater-test-reader")
        .set("enable.auto.commit", "false")
        .set("isolation.level", isolation)
        .create()
        .expect("consumer");
    let mut tpl = TopicPartitionList::new();
    for p in 0..partitions {
        tpl.add_partition_offset(topic, p, Offset::Beginning)
            .expect("partition");
    }
    c.assign(&tpl).expect("assign");
    let mut out = Vec::new();
    let mut quiet = 0;
    while quiet < 10 {
        match c.poll(Duration::from_millis(200)) {
            Some(Ok(m)) => {
                quiet = 0;
                let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
                out.push(Consumed {
                    partition: m.partition(),
                    key: m.key().map(text),
                    value: m.payload().map(text),
                });
            }
            _ => quiet += 1,
        }
    }
    out
}

pub fn job(dir: &Path, input: &str, output: &str, settings: &str) -> PathBuf {
    job_with(dir, input, output, settings, "", "")
}

/// The test job reading `input` from its earliest offset into `output`,
/// with `source_options` and `sink_options` (", 'k' = 'v'" each) added.
pub fn job_with(
    dir: &Path,
    input: &str,
    output: &str,
    settings: &str,
    source_options: &str,
    sink_options: &str,
) -> PathBuf {
    let sql = format!(
        "{settings}
CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '500' MILLISECOND)
WITH ('connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
      'properties.group.id' = 'lowwater-test', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json'{source_options});
CREATE TABLE counts (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, n BIGINT)
WITH ('connector' = 'kafka', 'topic' = '{output}', 'properties.bootstrap.servers' = '{BOOTSTRAP}', 'format' = 'json'{sink_options});
INSERT INTO counts SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
"
    );
    let path = dir.join(format!("{output}.sql"));
    std::fs::write(&path, sql).expect("write job");
    path
}

/// A row of the output topic as (everything before the count, the count).
pub fn row_count(row: &str) -> Option<(String, i64)> {
    row.rsplit_once(",\"n\":").map(|(k, n)| {
        (
            k.to_owned(),
            n.trim_end_matches('}').parse::<i64>().unwrap_or(-1),
        )
    })
}

/// Dumps `input` with `lowwater dump` and replays `job` on it: returns the
/// number of records dumped and the replayed rows by window and user.
pub fn dump_and_replay(
    dir: &Path,
    input: &str,
    job: &Path,
    partitions: i32,
) -> (u64, std::collections::HashMap<String, i64>) {
    let dump_path = dir.join(format!("{input}.jsonl"));
    let o = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args([
            "dump",
            input,
            "--bootstrap",
            &BOOTSTRAP,
            "--output",
            dump_path.to_str().unwrap_or_default(),
        ])
        .output()
        .expect("dump");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dumped = std::fs::read_to_string(&dump_path).expect("dump file");
    let replayed = dir.join(format!("{input}-replayed.jsonl"));
    let o = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args([
            "replay",
            job.to_str().unwrap_or_default(),
            "--input",
            &format!("clicks={}", dump_path.display()),
            "--partitions",
            &format!("clicks={partitions}"),
            "--output",
            &format!("counts={}", replayed.display()),
        ])
        .output()
        .expect("replay");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&replayed).expect("replayed rows");
    let rows = text
        .lines()
        .filter_map(|l| {
            let v: sonic_rs::Value = sonic_rs::from_str(l).ok()?;
            row_count(sonic_rs::JsonValueTrait::as_str(&v["payload"])?)
        })
        .collect();
    (dumped.lines().count() as u64, rows)
}

/// The late drops the run summary on stderr counts.
pub fn late_dropped(err: &str) -> u64 {
    err.split(" late dropped")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("the run summary counts late drops: {err}"))
}
