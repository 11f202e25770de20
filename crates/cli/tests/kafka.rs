//! `lowwater run` against a real Apache Kafka broker (started by
//! `scripts/kafka.sh`, a single KRaft node on 127.0.0.1 and `KAFKA_PORT`, default 19092): a topic with
//! one silent partition stalls every window and the warning names it; with
//! an idle timeout the windows reach the output topic, and every row there is
//! a row `lowwater replay` computes from the same records.

use sonic_rs::{JsonContainerTrait, JsonValueTrait};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseRecord, Producer};
use rdkafka::{Message, Offset, TopicPartitionList};

mod common;
use common::{
    broker, create_topic, kafka_scratch, of_partition, producer, run_sql, sql_ts, throttle,
    Running, BOOTSTRAP,
};

/// Produces live traffic until `stop`: a record every 20 ms, round-robin
/// over the `busy` partitions, plus one heartbeat every `heartbeat.1` ms on
/// partition `heartbeat.0` (the first at the start), all stamped with the
/// wall clock as the producers of the seeds do. Returns how many it sent.
fn produce_live(
    topic: &str,
    busy: &[i32],
    heartbeat: Option<(i32, u64)>,
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
        let payload = format!(r#"{{"user_id":"u{}","ts":"{}"}}"#, k % 2, sql_ts(ts));
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
        std::thread::sleep(Duration::from_millis(20));
    }
    p.flush(Duration::from_secs(10)).expect("flush");
    k
}

/// Runs `lowwater run` while live traffic flows into `topic`.
fn run_with_traffic(
    topic: &str,
    busy: &[i32],
    heartbeat: Option<(i32, u64)>,
    args: &[&str],
) -> (std::process::Output, u64) {
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let producer = s.spawn(|| produce_live(topic, busy, heartbeat, &stop));
        let o = Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(args)
            .output()
            .expect("run");
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        (o, producer.join().expect("producer"))
    })
}

fn consume_all(topic: &str, partitions: i32) -> Vec<String> {
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .set("group.id", "lowwater-test-reader")
        .set("enable.auto.commit", "false")
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
                out.push(String::from_utf8_lossy(m.payload().unwrap_or_default()).into_owned());
            }
            _ => quiet += 1,
        }
    }
    out.sort();
    out
}

fn job(dir: &Path, input: &str, output: &str, settings: &str) -> PathBuf {
    job_with(dir, input, output, settings, "", "")
}

/// The test job reading `input` from its earliest offset into `output`,
/// with `source_options` and `sink_options` (", 'k' = 'v'" each) added.
fn job_with(
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
fn row_count(row: &str) -> Option<(String, i64)> {
    row.rsplit_once(",\"n\":").map(|(k, n)| {
        (
            k.to_owned(),
            n.trim_end_matches('}').parse::<i64>().unwrap_or(-1),
        )
    })
}

/// Dumps `input` with `lowwater dump` and replays `job` on it: returns the
/// number of records dumped and the replayed rows by window and user.
fn dump_and_replay(
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
fn late_dropped(err: &str) -> u64 {
    err.split(" late dropped")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("the run summary counts late drops: {err}"))
}

#[test]
fn a_silent_kafka_partition_is_named_and_idle_timeout_releases_windows_to_kafka() {
    let (dir, id) = kafka_scratch("kafka-silent");
    let (input, stalled_out, fixed_out) = (
        format!("clicks-{id}"),
        format!("stalled-{id}"),
        format!("fixed-{id}"),
    );
    create_topic(&input, 4);
    create_topic(&stalled_out, 1);
    create_topic(&fixed_out, 1);
    // Without an idle timeout, partition 3 holds every window.
    let stalled = job(
        &dir,
        &input,
        &stalled_out,
        "SET 'parallelism.default' = '2';",
    );
    let busy = [0, 1, 2];
    let (o, _) = run_with_traffic(
        &input,
        &busy,
        None,
        &[
            "run",
            stalled.to_str().unwrap_or_default(),
            "--duration",
            "6 s",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("WARN"), "{err}");
    assert!(
        err.contains(&format!("partition 3 of {input} (subtask ")),
        "{err}"
    );
    assert!(
        err.contains("has had no record since the job started"),
        "{err}"
    );
    assert!(
        consume_all(&stalled_out, 1).is_empty(),
        "no window may fire"
    );

    // With one, the windows reach the output topic. This job reads a topic
    // of its own from the start, while its traffic flows: catching up on old
    // records with an idle timeout could let a partition fetched later go idle
    // and its records be dropped as late (counted), which replay, reading in
    // arrival order, does not do.
    let input2 = format!("clicks2-{id}");
    create_topic(&input2, 4);
    let fixed = job(
        &dir,
        &input2,
        &fixed_out,
        "SET 'parallelism.default' = '2';\nSET 'table.exec.source.idle-timeout' = '1 s';",
    );
    let (o, sent) = run_with_traffic(
        &input2,
        &busy,
        None,
        &[
            "run",
            fixed.to_str().unwrap_or_default(),
            "--duration",
            "6 s",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    // A live partition fetched late can go idle for a moment and its records
    // then arrive behind the watermark: dropped, and counted in the summary.
    let live_late = late_dropped(&err);
    let live = consume_all(&fixed_out, 1);
    assert!(
        live.len() >= 4,
        "windows fired while running: {}",
        live.len()
    );

    // `lowwater dump` writes the input topic; replaying it computes every row the live job wrote.
    let (dumped, replay_rows) = dump_and_replay(&dir, &input2, &fixed, 4);
    assert_eq!(dumped, sent, "every produced record is in the dump");
    // Replay reads in arrival order and drops nothing here; with no late
    // drop live, every live row is a replay row; with some, a live count can
    // only be lower than replay's for the same window and user.
    for row in &live {
        let (k, n) = row_count(row).unwrap_or_else(|| panic!("live row {row} has no count"));
        let replayed = replay_rows.get(&k).copied();
        if live_late == 0 {
            assert_eq!(replayed, Some(n), "live row {row} is not a replay row");
        } else {
            assert!(
                replayed.is_some_and(|r| r >= n),
                "live row {row} (with {live_late} late drops) has no replay row counting at least as much: {replayed:?}"
            );
        }
    }
}

#[test]
fn seed000_heartbeat_partition_on_16_partitions_at_parallelism_8() {
    let (dir, id) = kafka_scratch("kafka-seed");
    let (input, out) = (format!("clickstream-{id}"), format!("dashboard-{id}"));
    create_topic(&input, 16);
    create_topic(&out, 1);
    let busy: Vec<i32> = (0..16).filter(|p| *p != 11).collect();
    // Partition 11 gets one heartbeat every 10 s: the first at the start.
    let stalled = job(&dir, &input, &out, "SET 'parallelism.default' = '8';");
    let (o, _) = run_with_traffic(
        &input,
        &busy,
        Some((11, 10_000)),
        &[
            "run",
            stalled.to_str().unwrap_or_default(),
            "--duration",
            "7 s",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // Flink's formula puts partition 11 of this topic on the subtask the warning names.
    assert!(
        err.contains(&format!("partition 11 of {input} (subtask ")),
        "{err}"
    );
    assert!(err.contains("has had no record for"), "{err}");
    assert!(
        consume_all(&out, 1).is_empty(),
        "the heartbeat holds every window"
    );

    // With an idle timeout the heartbeat partition goes idle between beats
    // and windows fire on time: their emission lag stays bounded. (A topic
    // of its own, read from the start while its traffic flows.)
    let (input2, out2) = (format!("clickstream2-{id}"), format!("dashboard2-{id}"));
    create_topic(&input2, 16);
    create_topic(&out2, 1);
    let timely = job(
        &dir,
        &input2,
        &out2,
        "SET 'parallelism.default' = '8';\nSET 'table.exec.source.idle-timeout' = '1 s';",
    );
    let report = dir.join("timely-report.json");
    let (o, _) = run_with_traffic(
        &input2,
        &busy,
        Some((11, 10_000)),
        &[
            "run",
            timely.to_str().unwrap_or_default(),
            "--duration",
            "7 s",
            "--report",
            report.to_str().unwrap_or_default(),
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let fired = consume_all(&out2, 1);
    assert!(
        fired.len() >= 4,
        "windows fired while running: {}",
        fired.len()
    );
    let r: sonic_rs::Value =
        sonic_rs::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
    let lag = r["sinks"][0]["max_emission_lag_ms"]
        .as_i64()
        .expect("the report has the sink's emission lag");
    // Window delay 500 ms + idle timeout 1 s + a few 200 ms emit intervals,
    // with slack for a loaded 2-core CI machine; without the timeout no
    // window fires at all in 7 s.
    assert!(
        lag <= 500 + 1_000 + 3 * 200 + 2_000,
        "max emission lag {lag} ms"
    );
}

/// Seed 003 traffic: stock changes on 12 partitions keyed by SKU; partition 7
/// (slow SKUs) goes quiet after the first second. Returns the records sent.
fn produce_stock(topic: &str, stop: &std::sync::atomic::AtomicBool) -> u64 {
    let p = producer();
    let started = std::time::Instant::now();
    let mut k = 0u64;
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        let part = (k % 12) as i32;
        k += 1;
        if part == 7 && started.elapsed() > Duration::from_secs(1) {
            continue;
        }
        let ts = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let payload = format!(
            r#"{{"sku":"sku-{part:02}","available_qty":{},"changed_at":"{}"}}"#,
            40 - (k % 41),
            sql_ts(ts)
        );
        p.send(
            BaseRecord::<str, str>::to(topic)
                .partition(part)
                .key(&format!("sku-{part:02}"))
                .payload(&payload)
                .timestamp(ts),
        )
        .expect("send");
        p.poll(Duration::ZERO);
        std::thread::sleep(Duration::from_millis(10));
    }
    p.flush(Duration::from_secs(10)).expect("flush");
    k
}

#[test]
fn seed003_quiet_partition_keyed_by_sku() {
    let (dir, id) = kafka_scratch("kafka-stock");
    let run = |settings: &str, suffix: &str| {
        let (input, out) = (
            format!("stock-{suffix}-{id}"),
            format!("alerts-{suffix}-{id}"),
        );
        create_topic(&input, 12);
        create_topic(&out, 1);
        let sql = format!(
            "SET 'parallelism.default' = '2';
{settings}
CREATE TABLE stock_changes (sku STRING, available_qty INT, changed_at TIMESTAMP(3),
  WATERMARK FOR changed_at AS changed_at - INTERVAL '300' MILLISECOND)
WITH ('connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
      'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE stock_out_alerts (window_start TIMESTAMP(3), window_end TIMESTAMP(3), sku STRING, min_available INT)
WITH ('connector' = 'kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{BOOTSTRAP}', 'format' = 'json',
      'key.format' = 'json', 'key.fields' = 'sku');
INSERT INTO stock_out_alerts SELECT window_start, window_end, sku, MIN(available_qty)
FROM TABLE(TUMBLE(TABLE stock_changes, DESCRIPTOR(changed_at), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, sku;"
        );
        let job = dir.join(format!("{suffix}.sql"));
        std::fs::write(&job, sql).expect("job");
        let stop = std::sync::atomic::AtomicBool::new(false);
        let o = std::thread::scope(|s| {
            s.spawn(|| produce_stock(&input, &stop));
            let o = Command::new(env!("CARGO_BIN_EXE_lowwater"))
                .args(["run", job.to_str().unwrap_or_default(), "--duration", "7 s"])
                .output()
                .expect("run");
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            o
        });
        (o, input, consume_all(&out, 1))
    };
    let (o, input, rows) = run("", "stalled");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!("partition 7 of {input} (subtask ")),
        "{err}"
    );
    assert!(err.contains("has had no record for"), "{err}");
    // Only windows that closed before partition 7 went quiet (its first
    // second) can fire: at most two seconds of windows for 12 SKUs.
    assert!(
        rows.len() <= 24,
        "the quiet partition holds every later window: {rows:?}"
    );
    let (o, _, rows) = run("SET 'table.exec.source.idle-timeout' = '1 s';", "fixed");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let skus: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter_map(|r| {
            r.split("\"sku\":\"")
                .nth(1)
                .and_then(|t| t.split('"').next())
        })
        .collect();
    assert!(
        skus.len() >= 11,
        "alerts per SKU keep coming for the busy partitions: {skus:?}"
    );
    assert!(
        rows.len() >= 11 * 3,
        "several windows per SKU: {}",
        rows.len()
    );
}

#[test]
fn unreachable_brokers_and_missing_topics_are_clear_errors() {
    broker();
    let dir = std::env::temp_dir().join(format!("lowwater-kafka-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let job = |bootstrap: &str, topic: &str| {
        let sql = format!(
            "CREATE TABLE src (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
             WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json');
             CREATE TABLE out (k STRING, n BIGINT) WITH ('connector' = 'print');
             INSERT INTO out SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k;"
        );
        let path = dir.join(format!("{}.sql", topic.replace('/', "_")));
        std::fs::write(&path, sql).expect("job");
        Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(["run", path.to_str().unwrap_or_default()])
            .output()
            .expect("run")
    };
    let o = job("127.0.0.1:1", "anything");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot reach the Kafka brokers at 127.0.0.1:1"),
        "{err}"
    );
    let o = job(&BOOTSTRAP, "no-such-topic-here");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("topic 'no-such-topic-here' does not exist"),
        "{err}"
    );
}

#[test]
fn a_poison_record_names_topic_partition_and_offset_or_is_skipped_and_counted() {
    let (dir, id) = kafka_scratch("kafka-poison");
    let topic = format!("poison-{id}");
    create_topic(&topic, 2);
    let p = producer();
    // Partition 1: two good records, then one that is not JSON (offset 2), then a good one.
    let payloads = [
        r#"{"k":"a","ts":"2025-09-14 00:00:00.000"}"#,
        r#"{"k":"a","ts":"2025-09-14 00:00:00.500"}"#,
        "not json {",
        r#"{"k":"b","ts":"2025-09-14 00:00:01.200"}"#,
    ];
    for payload in payloads {
        p.send(
            BaseRecord::<(), str>::to(&topic)
                .partition(1)
                .payload(payload),
        )
        .map_err(|(e, _)| e)
        .expect("send");
    }
    p.flush(std::time::Duration::from_secs(30)).expect("flush");
    let run = |extra: &str| {
        let sql = format!(
            "CREATE TABLE src (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
             WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
                   'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'{extra});
             CREATE TABLE out (k STRING, n BIGINT) WITH ('connector' = 'print');
             INSERT INTO out SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k;"
        );
        run_sql(&dir, &format!("poison{}", extra.len()), &sql)
    };
    let o = run("");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "a poison record fails the job: {err}");
    assert!(
        err.contains(&format!("topic {topic} partition 1 offset 2")),
        "the error names where the record is: {err}"
    );
    let o = run(", 'json.ignore-parse-errors' = 'true'");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("+I[a, 2]"), "{out}");
    assert!(out.contains("+I[b, 1]"), "{out}");
    assert!(err.contains("1 skipped"), "the skip is counted: {err}");
}

/// Writes a backlog to `topic` partition `part` before a job starts:
/// `n` records of about 1 KB, stamped over the `span_ms` before now, in order.
fn produce_backlog(topic: &str, part: i32, n: i64, span_ms: i64) {
    let p = producer();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let pad = "x".repeat(1_000);
    for i in 0..n {
        let ts = now - span_ms + i * span_ms / n;
        let payload = format!(
            r#"{{"user_id":"u{}","ts":"{}","pad":"{pad}"}}"#,
            i % 2,
            sql_ts(ts)
        );
        p.send(
            BaseRecord::<(), str>::to(topic)
                .partition(part)
                .payload(&payload)
                .timestamp(ts),
        )
        .expect("send");
        p.poll(Duration::ZERO);
    }
    p.flush(Duration::from_secs(30)).expect("flush");
}

/// Limits how fast the brokers serve consumers with this client.id (a
/// Kafka client quota, as multi-tenant clusters set them).
/// Lag-aware idleness while catching up: a job reads a backlog (partition
/// 0, 1 KB records over the last minute) while partition 1 gets live
/// traffic, with the brokers throttling its consumer (a client quota of
/// 100 KB/s, fetches of at most 300 KB), under a 1 s idle timeout in
/// 'caught-up' mode. Partition 0 is behind the whole run, so it never goes
/// idle and holds the watermark: nothing is late, the backlog's windows
/// fire one by one, and each is exactly the row `lowwater replay` computes
/// from a dump of the topic. (Whether a timeout-only job drops part of the
/// backlog here depends on how the broker spaces throttled fetches, so the
/// rule itself is tested deterministically in lowwater-core's `backlog`
/// tests and the backlog figure in lowwater-kafka's.)
#[test]
fn caught_up_idleness_reads_a_throttled_backlog_without_late_drops() {
    let (dir, id) = kafka_scratch("kafka-caught-up");
    let (input, out) = (format!("backlog-{id}"), format!("backlog-out-{id}"));
    create_topic(&input, 2);
    create_topic(&out, 1);
    produce_backlog(&input, 0, 3_000, 60_000);
    let client = format!("lowwater-throttled-{id}");
    throttle(&client, 100_000);
    let path = job_with(
        &dir,
        &input,
        &out,
        "SET 'parallelism.default' = '1';\nSET 'table.exec.source.idle-timeout' = '1 s';",
        &format!(
            ", 'scan.watermark.idle-mode' = 'caught-up', 'properties.client.id' = '{client}', \
             'properties.max.partition.fetch.bytes' = '300000'"
        ),
        "",
    );
    let (o, _) = run_with_traffic(
        &input,
        &[1],
        None,
        &[
            "run",
            path.to_str().unwrap_or_default(),
            "--duration",
            "8 s",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    assert_eq!(late_dropped(&err), 0, "{err}");
    let live = consume_all(&out, 1);
    assert!(
        live.len() >= 4,
        "the backlog's windows fired: {}\n{err}",
        live.len()
    );
    let (_, replay_rows) = dump_and_replay(&dir, &input, &path, 2);
    assert_replay_rows(&live, &replay_rows);
}

/// Every live row is exactly the row replay computed for its window and key.
fn assert_replay_rows(live: &[String], replay_rows: &std::collections::HashMap<String, i64>) {
    for row in live {
        let (k, n) = row_count(row).unwrap_or_else(|| panic!("live row {row} has no count"));
        assert_eq!(
            replay_rows.get(&k).copied(),
            Some(n),
            "live row {row} is not a replay row"
        );
    }
}

/// Partition discovery: partitions added to the topic while the job runs
/// are found (every 1 s here), assigned by Flink's formula, read from their
/// earliest offset, and their records counted in windows.
#[test]
fn partitions_added_while_running_are_read() {
    let (dir, id) = kafka_scratch("kafka-discovery");
    let (input, out) = (format!("growing-{id}"), format!("growing-out-{id}"));
    create_topic(&input, 2);
    create_topic(&out, 1);
    // Parallelism 1: without an idle timeout a subtask without partitions
    // would hold the watermark at MIN (as in Flink) until one is added.
    let path = job_with(
        &dir,
        &input,
        &out,
        "SET 'parallelism.default' = '1';",
        ", 'scan.topic-partition-discovery.interval' = '1 s'",
        "",
    );
    let report = dir.join("report.json");
    let stop = std::sync::atomic::AtomicBool::new(false);
    let grown = std::sync::atomic::AtomicBool::new(false);
    let child = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args([
            "run",
            path.to_str().unwrap_or_default(),
            "--duration",
            "60 s",
            "--report",
            report.to_str().unwrap_or_default(),
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run");
    let resumed = std::thread::scope(|s| {
        // Traffic on the first two partitions until the topic grows, then on all three.
        s.spawn(|| produce_live(&input, &[0, 1], None, &grown));
        s.spawn(|| produce_live_after(&input, &grown, &stop));
        let c: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", BOOTSTRAP)
            .set("group.id", "lowwater-test-watch")
            .create()
            .expect("consumer");
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset(&out, 0, Offset::Beginning)
            .expect("partition");
        c.assign(&tpl).expect("assign");
        let window_end = |m: &rdkafka::message::BorrowedMessage<'_>| -> Option<String> {
            let v: sonic_rs::Value = sonic_rs::from_slice(m.payload()?).ok()?;
            v["window_end"].as_str().map(str::to_owned)
        };
        // A window fired: the job runs with the partitions it started with.
        // Then the topic grows. The new partition starts at MIN and holds the
        // watermark until its records are read, so a window ending after the
        // growth (plus the 1 s window) proves that they were.
        let mut grown_at = None;
        let mut resumed = false;
        for _ in 0..120 {
            let Some(Ok(m)) = c.poll(Duration::from_millis(500)) else {
                continue;
            };
            match &grown_at {
                None => {
                    lowwater_kafka::add_topic_partitions(&BOOTSTRAP, &input, 3)
                        .expect("grow the topic");
                    // The new partition is in the metadata before the
                    // producer sends to it.
                    let mut props = std::collections::BTreeMap::new();
                    props.insert("bootstrap.servers".to_string(), BOOTSTRAP.to_string());
                    let grew = (0..100).any(|_| {
                        lowwater_kafka::partitions(&props, &input).is_ok_and(|p| p.len() == 3)
                    });
                    assert!(grew, "the topic has 3 partitions");
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis() as i64);
                    grown_at = Some(sql_ts(now + 1_000));
                    grown.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                Some(after) => {
                    if window_end(&m).is_some_and(|end| end > *after) {
                        resumed = true;
                        break;
                    }
                }
            }
        }
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        grown.store(true, std::sync::atomic::Ordering::SeqCst);
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        resumed
    });
    let o = child.wait_with_output().expect("run");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    assert!(
        resumed,
        "no window after the topic grew: the new partition holds the watermark\n{err}"
    );
    assert!(
        err.contains(&format!("new partition 2 of {input}")),
        "{err}"
    );
    let r: sonic_rs::Value =
        sonic_rs::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
    let p2 = r["partitions"]
        .as_array()
        .expect("partitions")
        .iter()
        .find(|p| p["partition"].as_i64() == Some(2))
        .cloned()
        .unwrap_or_else(|| panic!("partition 2 in the report: {r:?}"));
    assert!(
        p2["records"].as_u64().is_some_and(|n| n > 0),
        "the new partition was read: {p2:?}"
    );
    assert!(
        p2["final_watermark"].as_i64().is_some(),
        "the new partition has a watermark: {p2:?}"
    );
}

/// Once `start` is set, live traffic on all three partitions until `stop`.
fn produce_live_after(
    topic: &str,
    start: &std::sync::atomic::AtomicBool,
    stop: &std::sync::atomic::AtomicBool,
) -> u64 {
    while !start.load(std::sync::atomic::Ordering::SeqCst) {
        if stop.load(std::sync::atomic::Ordering::SeqCst) {
            return 0;
        }
        // Waits for the other producer's signal without burning a core.
        std::thread::park_timeout(Duration::from_millis(10));
    }
    produce_live(topic, &[0, 1, 2], None, stop)
}

/// How many records each partition of `topic` holds.
fn partition_counts(topic: &str, partitions: i32) -> Vec<i64> {
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .create()
        .expect("consumer");
    (0..partitions)
        .map(|p| {
            let (low, high) = c
                .fetch_watermarks(topic, p, Duration::from_secs(10))
                .expect("watermarks");
            high - low
        })
        .collect()
}

/// `sink.partitioner`: 'fixed' puts sink subtask i's rows on partition i
/// (Flink's FlinkFixedPartitioner), 'round-robin' spreads rows evenly.
#[test]
fn sink_partitioners_fixed_and_round_robin() {
    let (dir, id) = kafka_scratch("kafka-partitioner");
    let input = format!("partitioner-in-{id}");
    create_topic(&input, 2);
    // A bounded backlog: 40 users over 4 windows on both partitions.
    let p = producer();
    for i in 0..400i64 {
        let ts = 1_750_000_000_000 + i * 10;
        let payload = format!(r#"{{"user_id":"u{}","ts":"{}"}}"#, i % 40, sql_ts(ts));
        p.send(
            BaseRecord::<(), str>::to(&input)
                .partition((i % 2) as i32)
                .payload(&payload)
                .timestamp(ts),
        )
        .expect("send");
    }
    p.flush(Duration::from_secs(10)).expect("flush");
    for (partitioner, expect) in [("fixed", "fixed"), ("round-robin", "even")] {
        let out = format!("partitioner-{partitioner}-{id}");
        create_topic(&out, 3);
        let path = job_with(
            &dir,
            &input,
            &out,
            "SET 'parallelism.default' = '2';",
            ", 'scan.bounded.mode' = 'latest-offset'",
            &format!(", 'sink.partitioner' = '{partitioner}'"),
        );
        let o = Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(["run", path.to_str().unwrap_or_default()])
            .output()
            .expect("run");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let counts = partition_counts(&out, 3);
        // 40 users x 4 windows.
        assert_eq!(counts.iter().sum::<i64>(), 160, "{partitioner}: {counts:?}");
        match expect {
            // Both window subtasks have users: partitions 0 and 1, never 2.
            "fixed" => assert!(
                counts[0] > 0 && counts[1] > 0 && counts[2] == 0,
                "{partitioner}: {counts:?}"
            ),
            _ => assert!(
                counts.iter().max().unwrap_or(&0) - counts.iter().min().unwrap_or(&0) <= 1,
                "{partitioner}: {counts:?}"
            ),
        }
    }
}

/// The consumer lag the metrics show for a Kafka partition: the offsets on
/// the broker not read yet, 0 once the job has read everything.
#[test]
fn consumer_lag_is_served_per_kafka_partition() {
    let (dir, id) = kafka_scratch("kafka-lag");
    let (input, out) = (format!("lag-{id}"), format!("lag-out-{id}"));
    create_topic(&input, 2);
    create_topic(&out, 1);
    produce_backlog(&input, 0, 500, 10_000);
    let path = job(&dir, &input, &out, "SET 'parallelism.default' = '1';");
    let job = Running::start(&[
        "run",
        path.to_str().unwrap_or_default(),
        "--duration",
        "60 s",
    ]);
    job.scrape_until(
        "both partitions to show a consumer lag of 0 once the 500 records are read",
        |s| {
            of_partition(s, "lowwater_partition_consumer_lag_records", 0) == Some(0.0)
                && of_partition(s, "lowwater_partition_consumer_lag_records", 1) == Some(0.0)
                && of_partition(s, "lowwater_partition_records_total", 0) == Some(500.0)
        },
    );
    job.stop();
}
