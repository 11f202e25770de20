//! What the checkpoint and rescale tests share (`checkpoint.rs`,
//! `rescale.rs`): a JSON job counting clicks per user in tumbling windows,
//! its input (files, or a paced producer writing Kafka partitions), the
//! exact windows that input gives, and kills at random moments after a
//! checkpoint.
#![allow(dead_code)] // each test binary uses its own part

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseRecord, Producer};
use rdkafka::{Message, Offset, TopicPartitionList};
use sonic_rs::JsonValueTrait;

use super::{broker, producer, sql_ts, BOOTSTRAP};

/// 2025-09-14 00:00:00 UTC: event time 0 of the records written.
pub const BASE: i64 = 1_757_808_000_000;

pub fn lowwater(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the lowwater binary runs")
}

pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lowwater-ckpt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The window rows (window start in epoch ms, user) -> count that the
/// records give.
pub type Expected = BTreeMap<(i64, String), i64>;

/// A window row's (window start, user) and count, from its JSON payload.
pub fn row(payload: &str) -> Option<((i64, String), i64)> {
    let v: sonic_rs::Value = sonic_rs::from_str(payload).ok()?;
    let start = lowwater_core::time::parse_timestamp(v.get("window_start")?.as_str()?)?;
    let user = v.get("user_id")?.as_str()?.to_string();
    Some(((start, user), v.get("n")?.as_i64()?))
}

/// Every expected window row is there with its exact count, no row has
/// another count, and nothing else is there. Returns the duplicates.
pub fn assert_exact(rows: &[String], expected: &Expected) -> usize {
    let mut seen: BTreeMap<(i64, String), BTreeSet<i64>> = BTreeMap::new();
    for r in rows {
        let (k, n) = row(r).unwrap_or_else(|| panic!("not a window row: {r}"));
        seen.entry(k).or_default().insert(n);
    }
    let missing: Vec<_> = expected.keys().filter(|k| !seen.contains_key(*k)).collect();
    assert!(
        missing.is_empty(),
        "{} of {} windows missing, first {:?}",
        missing.len(),
        expected.len(),
        missing.first()
    );
    for (k, counts) in &seen {
        let want = expected.get(k);
        assert!(
            want.is_some(),
            "a window row nobody asked for: {k:?} {counts:?}"
        );
        assert_eq!(
            counts.iter().copied().collect::<Vec<_>>(),
            vec![*want.unwrap_or(&0)],
            "window {k:?}"
        );
    }
    rows.len() - expected.len()
}

pub fn job_sql(source: &str, sink: &str, settings: &str, window: &str) -> String {
    format!(
        "{settings}
CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ({source});
CREATE TABLE counts (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, n BIGINT)
WITH ({sink});
INSERT INTO counts SELECT window_start, window_end, user_id, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '{window}' SECOND))
GROUP BY window_start, window_end, user_id;
"
    )
}

/// Record `i` of a partition: its event time (10 ms apart, a little out of
/// order, never more than the watermark's 2 s) and its user.
pub fn record(i: i64, partition: i64) -> (i64, String) {
    let ts = BASE + i * 10 + (i * 7919 + partition * 31) % 900;
    (ts, format!("u{}", (i * 13 + partition) % 7))
}

pub fn expected(per_partition: i64, partitions: i64, window_ms: i64, upto: i64) -> Expected {
    let mut e = Expected::new();
    for p in 0..partitions {
        for i in 0..per_partition {
            let (ts, user) = record(i, p);
            let start = ts - ts.rem_euclid(window_ms);
            if start + window_ms <= upto {
                *e.entry((start, user)).or_insert(0) += 1;
            }
        }
    }
    e
}

/// Payloads of a dump file; a line cut short by the crash is left out.
pub fn dump_payloads(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let rec: sonic_rs::Value = sonic_rs::from_str(l).ok()?;
            Some(rec.get("payload")?.as_str()?.to_string())
        })
        .collect()
}

/// `parts` JSON files of `n` records each (a filesystem source's partitions).
pub fn write_input(dir: &Path, n: i64, parts: i64) -> PathBuf {
    let input = dir.join("in");
    std::fs::create_dir_all(&input).expect("input dir");
    for p in 0..parts {
        let lines: String = (0..n)
            .map(|i| {
                let (ts, user) = record(i, p);
                format!("{{\"user_id\":\"{user}\",\"ts\":\"{}\"}}\n", sql_ts(ts))
            })
            .collect();
        std::fs::write(input.join(format!("part-{p}.json")), lines).expect("input");
    }
    input
}

pub fn checkpoints(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "lwck"));
    v.sort();
    v
}

/// The broker, a scratch directory and fresh input (`partitions`) and
/// output (1 partition) topics for test `name`; the process id names them.
pub fn kafka_scratch(name: &str, partitions: i32) -> (PathBuf, u32, String, String) {
    broker();
    let dir = scratch(name);
    let id = std::process::id();
    let (input, output) = (format!("{name}-in-{id}"), format!("{name}-out-{id}"));
    lowwater_kafka::create_topic(&BOOTSTRAP, &input, partitions).expect("topic");
    lowwater_kafka::create_topic(&BOOTSTRAP, &output, 1).expect("topic");
    (dir, id, input, output)
}

/// Kills `job` with kill -9 at a random moment (0-400 ms, from `seed`)
/// after the next checkpoint in `ck` was written.
pub fn kill_after_next_checkpoint(mut job: std::process::Child, ck: &Path, seed: &mut u64) {
    let seen = newest_id(ck);
    let deadline = Instant::now() + Duration::from_secs(30);
    while newest_id(ck) == seen && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    let extra = Instant::now() + Duration::from_millis(*seed % 400);
    while Instant::now() < extra {
        std::thread::sleep(Duration::from_millis(5));
    }
    job.kill().expect("kill -9");
    let _ = job.wait();
}

/// Kills the job `start` starts with kill -9 `kills` times, each at a
/// random moment after its next checkpoint in `ck`, while `per_partition`
/// records per partition of `topic`'s 4 are produced at 2,000 a second
/// (see [`produce`]); returns once both are done.
pub fn kill_while_producing(
    start: &dyn Fn() -> std::process::Child,
    (topic, per_partition): (&str, i64),
    (ck, kills, seed): (&Path, usize, &mut u64),
) {
    std::thread::scope(|scope| {
        let producer = scope.spawn(|| produce(topic, 4, per_partition, 2_000));
        for _ in 0..kills {
            kill_after_next_checkpoint(start(), ck, seed);
        }
        producer.join().expect("producer");
    });
}

/// Writes `per_partition` records to each partition at about `rate`
/// records per second in all, then one record per partition far in event
/// time, so that every window of the data fires.
pub fn produce(topic: &str, partitions: i64, per_partition: i64, rate: u64) {
    let p = producer();
    let started = Instant::now();
    let send = |part: i64, ts: i64, user: &str| {
        let payload = format!(r#"{{"user_id":"{user}","ts":"{}"}}"#, sql_ts(ts));
        let mut rec = BaseRecord::<(), str>::to(topic)
            .partition(part as i32)
            .payload(&payload);
        loop {
            match p.send(rec) {
                Ok(()) => break,
                Err((_, r)) => {
                    rec = r;
                    p.poll(Duration::from_millis(10));
                }
            }
        }
        p.poll(Duration::ZERO);
    };
    for i in 0..per_partition {
        for part in 0..partitions {
            let (ts, user) = record(i, part);
            send(part, ts, &user);
        }
        // Paces the producer: real traffic over real time.
        let due = Duration::from_micros((i as u64 + 1) * partitions as u64 * 1_000_000 / rate);
        if let Some(wait) = due.checked_sub(started.elapsed()) {
            std::thread::sleep(wait);
        }
    }
    for part in 0..partitions {
        send(part, BASE + 86_400_000, "end");
    }
    p.flush(Duration::from_secs(10)).expect("flush");
}

pub fn consume(topic: &str) -> Vec<String> {
    consume_with(topic, "read_committed")
}

/// Every record of partition 0 of `topic` a reader with `isolation` sees,
/// read up to the end offset (once no transaction is open there).
pub fn consume_with(topic: &str, isolation: &str) -> Vec<String> {
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .set("group.id", format!("check-{topic}"))
        .set("enable.auto.commit", "false")
        .set("isolation.level", isolation)
        .create()
        .expect("consumer");
    let (_, high) = c
        .fetch_watermarks(topic, 0, Duration::from_secs(10))
        .expect("end offset");
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(topic, 0, Offset::Beginning)
        .expect("tpl");
    c.assign(&tpl).expect("assign");
    let mut out = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    let at_end = |c: &BaseConsumer| {
        c.position()
            .ok()
            .and_then(|p| p.find_partition(topic, 0)?.offset().to_raw())
            .is_some_and(|o| o >= high)
    };
    while !at_end(&c) && Instant::now() < deadline {
        if let Some(Ok(m)) = c.poll(Duration::from_millis(200)) {
            out.push(String::from_utf8_lossy(m.payload().unwrap_or_default()).into_owned());
        }
    }
    out
}

pub fn window_keys(rows: &[String]) -> usize {
    rows.iter()
        .filter_map(|r| row(r))
        .map(|(k, _)| k)
        .collect::<BTreeSet<_>>()
        .len()
}

pub fn sigterm(child: &mut std::process::Child) -> std::process::ExitStatus {
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill -TERM");
    assert!(sent.success());
    child.wait().expect("wait")
}

/// The Kafka -> Kafka job of the chaos tests, with `sink_extra` options.
pub fn chaos_job(dir: &Path, id: u32, input: &str, output: &str, sink_extra: &str) -> PathBuf {
    chaos_job_with(dir, id, (input, output), sink_extra, "")
}

/// [`chaos_job`] with `settings` (`SET` lines) before its own, in the same
/// file (`dir`/job.sql: one name, so its checkpoints are found again).
pub fn chaos_job_with(
    dir: &Path,
    id: u32,
    (input, output): (&str, &str),
    sink_extra: &str,
    settings: &str,
) -> PathBuf {
    let settings = format!(
        "{settings}SET 'execution.checkpointing.interval' = '300 ms';\n\
         SET 'execution.checkpointing.dir' = '{}';",
        s(&dir.join("ck"))
    );
    let source = format!(
        "'connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}', \
         'properties.group.id' = 'chaos-{id}', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json'"
    );
    let sink = format!(
        "'connector' = 'kafka', 'topic' = '{output}', 'properties.bootstrap.servers' = '{BOOTSTRAP}', \
         'format' = 'json'{sink_extra}"
    );
    let job = dir.join("job.sql");
    std::fs::write(&job, job_sql(&source, &sink, &settings, "2")).expect("job");
    job
}

pub fn newest_id(dir: &Path) -> u64 {
    checkpoints(dir)
        .last()
        .and_then(|p| p.file_stem()?.to_str()?.strip_prefix("chk-")?.parse().ok())
        .unwrap_or(0)
}

/// `lowwater run JOB` with its output thrown away (the chaos tests read
/// what it wrote, not what it said).
pub fn spawn_quiet(job: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["run", s(job)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn lowwater")
}

/// `lowwater run JOB`, its standard error written to `log`.
pub fn spawn_logged(job: &Path, log: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["run", s(job)])
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(log).expect("log"))
        .spawn()
        .expect("spawn lowwater")
}

/// The settings and source options of the file jobs of the crash tests:
/// checkpoints every 50 ms into `ck`, the JSON files in `input`.
pub fn file_job(ck: &Path, input: &Path) -> (String, String) {
    let settings = format!(
        "SET 'execution.checkpointing.interval' = '50 ms';\n\
         SET 'execution.checkpointing.dir' = 'file://{}';\n\
         SET 'pipeline.auto-watermark-interval' = '20 ms';",
        s(ck)
    );
    let source = format!(
        "'connector' = 'filesystem', 'path' = '{}', 'format' = 'json'",
        s(input)
    );
    (settings, source)
}
