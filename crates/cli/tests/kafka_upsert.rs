//! An `upsert-kafka` versioned table live on the real broker, against
//! real Flink's rows: `compat/upsert/{rates,orders}.jsonl` produced with
//! their keys, tombstones (records without a value) and timestamps, in
//! two halves. The first half is read by a job at parallelism 2 that takes
//! checkpoints and is killed with kill -9; the second is read by the same
//! job restored at parallelism 3 (keys move between subtasks), bounded at
//! the end offsets so that it
//! drains and ends. Its exactly-once Kafka sink, read with read_committed,
//! holds the rows real Flink 2.3 wrote from the same records
//! (`compat/upsert/expected_a_left.jsonl`, `scripts/flink_upsert.py`):
//! among them, the orders of a currency whose version the tombstone of
//! the second half deleted, which needs the last version of every key
//! (the changelog's normalization) to survive the kill and the rescale.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rdkafka::producer::{BaseRecord, Producer};
use sonic_rs::JsonValueTrait;

mod common;
use common::kafka_jobs::consume_all;
use common::{create_topic, kafka_scratch, producer, Running, BOOTSTRAP};

/// Records up to this time (ms after 10:00 UTC) are the first half.
const HALF: i64 = 15_000;
const BASE: i64 = 1_757_844_000_000;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../compat/upsert")
        .join(name)
}

/// The dump's records of one half: (partition, time, key, value).
type Rec = (i32, i64, Option<String>, Option<String>);

fn records(name: &str, first: bool) -> Vec<Rec> {
    let text = std::fs::read_to_string(fixture(name)).expect("the dump");
    text.lines()
        .map(|l| {
            let v: sonic_rs::Value = sonic_rs::from_str(l).expect("a dump line");
            (
                v["partition"].as_i64().expect("partition") as i32,
                v["ts"].as_i64().expect("ts"),
                v["key"].as_str().map(str::to_string),
                v["payload"].as_str().map(str::to_string),
            )
        })
        .filter(|r| (r.1 - BASE <= HALF) == first)
        .collect()
}

fn produce(topic: &str, recs: &[Rec]) {
    let p = producer();
    for (partition, ts, key, value) in recs {
        let mut r = BaseRecord::<String, String>::to(topic)
            .partition(*partition)
            .timestamp(*ts);
        if let Some(k) = key {
            r = r.key(k);
        }
        if let Some(v) = value {
            r = r.payload(v);
        }
        p.send(r).expect("send a record");
    }
    p.flush(Duration::from_secs(10)).expect("flush");
}

/// The Flink case's SQL for this run: its topics, group, a Kafka sink
/// with exactly-once output, checkpoints, `parallelism`; bounded at the
/// end offsets (`bounded`) or not.
fn job(dir: &Path, id: u32, parallelism: usize, bounded: bool) -> PathBuf {
    let sql = std::fs::read_to_string(fixture("a_left.sql")).expect("the case");
    let sql = sql
        .replace("{{orders}}", &format!("upsert-orders-{id}"))
        .replace("{{rates}}", &format!("upsert-rates-{id}"))
        .replace("{{case}}", "live");
    let sql = match bounded {
        true => sql,
        false => sql
            .replace("'scan.bounded.mode' = 'latest-offset', ", "")
            .replace(",\n  'scan.bounded.mode' = 'latest-offset'", ""),
    };
    assert_eq!(sql.contains("scan.bounded.mode"), bounded, "{sql}");
    // The filesystem sink becomes an exactly-once Kafka topic.
    let sink = sql.find("CREATE TABLE results").expect("the sink");
    let insert = sql.find("INSERT INTO results").expect("the INSERT");
    let out = format!(
        "CREATE TABLE results (
  order_id STRING, currency STRING, amount BIGINT, rate BIGINT,
  order_time TIMESTAMP(3), update_time TIMESTAMP(3)
) WITH ('connector' = 'kafka', 'topic' = 'upsert-out-{id}',
  'properties.bootstrap.servers' = '{BOOTSTRAP}', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'upsert-{id}');
"
    );
    let sql = format!(
        "SET 'pipeline.name' = 'upsert-{id}';
SET 'parallelism.default' = '{parallelism}';
SET 'execution.checkpointing.interval' = '300 ms';
SET 'execution.checkpointing.dir' = '{ck}';
{}{out}{}",
        &sql[..sink],
        &sql[insert..],
        ck = dir.join("ck").display()
    );
    let path = dir.join(format!("job-{parallelism}.sql"));
    std::fs::write(&path, sql).expect("write the job");
    path
}

#[test]
fn tombstones_after_a_kill_and_a_rescale_delete_the_versions_flink_deletes() {
    let (dir, id) = kafka_scratch("upsert");
    let (orders, rates, out) = (
        format!("upsert-orders-{id}"),
        format!("upsert-rates-{id}"),
        format!("upsert-out-{id}"),
    );
    create_topic(&orders, 2);
    create_topic(&rates, 2);
    create_topic(&out, 1);
    produce(&rates, &records("rates.jsonl", true));
    produce(&orders, &records("orders.jsonl", true));
    let first = job(&dir, id, 2, false);
    let s = |p: &Path| p.to_str().expect("utf-8 path").to_string();
    let run = Running::start(&["run", &s(&first)]);
    // Every first-half record read, then a checkpoint completed after it.
    let want_read =
        (records("rates.jsonl", true).len() + records("orders.jsonl", true).len()) as u64;
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut at = None;
    loop {
        let l: sonic_rs::Value = sonic_rs::from_str(&run.get("/api/v1/watermarks")).expect("JSON");
        let read = l["totals"]["records_in"].as_u64().unwrap_or(0);
        let done = l["checkpoints"]["completed"].as_u64().unwrap_or(0);
        // CHF's tombstone deleted its 90 (the AUD one had nothing to
        // delete): the join publishes it once it has taken the record.
        let deleted = l["joins"][0]["versions_deleted"].as_u64();
        if read == want_read && deleted == Some(1) {
            match at {
                None => at = Some(done),
                Some(c) if done > c => break,
                Some(_) => {}
            }
        }
        assert!(
            Instant::now() < deadline,
            "the first half was not read and checkpointed: {l:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let deleted = run
        .scrape()
        .samples
        .iter()
        .find(|x| x.metric == "lowwater_join_versions_deleted")
        .map(common::value);
    assert_eq!(deleted, Some(1.0));
    let log = run.kill9();
    // The second half, then the job restored at parallelism 3, bounded.
    produce(&rates, &records("rates.jsonl", false));
    produce(&orders, &records("orders.jsonl", false));
    let second = job(&dir, id, 3, true);
    let out_run = std::process::Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["run", &s(&second)])
        .output()
        .expect("lowwater runs");
    let log2 = String::from_utf8_lossy(&out_run.stderr).into_owned();
    assert!(out_run.status.success(), "{log}\n{log2}");
    assert!(
        log2.contains("restoring checkpoint") && log2.contains("parallelism.default was 2, now 3"),
        "{log2}"
    );
    let mut rows = consume_all(&out, 1);
    rows.sort();
    let want: Vec<String> = std::fs::read_to_string(fixture("expected_a_left.jsonl"))
        .expect("Flink's rows")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(rows, want, "{log2}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Kafka's Java client's murmur2 of `data` (its `Utils.murmur2`), which
/// its default partitioner takes, positive, modulo the partition count.
fn java_murmur2(data: &[u8]) -> i32 {
    let (seed, m, r) = (0x9747_b28c_u32 as i32, 0x5bd1_e995_u32 as i32, 24);
    let len = data.len() as i32;
    let mut h = seed ^ len;
    let chunks = data.chunks_exact(4);
    let tail = chunks.remainder();
    for c in chunks {
        let mut k = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(m);
        k ^= ((k as u32) >> r) as i32;
        k = k.wrapping_mul(m);
        h = h.wrapping_mul(m);
        h ^= k;
    }
    if !tail.is_empty() {
        for (i, b) in tail.iter().enumerate().rev() {
            h ^= i32::from(*b) << (8 * i);
        }
        h = h.wrapping_mul(m);
    }
    h ^= ((h as u32) >> 13) as i32;
    h = h.wrapping_mul(m);
    h ^= ((h as u32) >> 15) as i32;
    h
}

#[test]
fn window_rows_are_written_under_their_primary_key_where_javas_producer_puts_it() {
    let (dir, id) = kafka_scratch("upsert-sink");
    let (input, out) = (format!("upsert-in-{id}"), format!("upsert-sink-{id}"));
    create_topic(&input, 1);
    create_topic(&out, 4);
    let p = producer();
    let currencies = ["EUR", "GBP", "USD", "JPY", "CHF", "AUD"];
    for i in 0..60i64 {
        let payload = format!(
            r#"{{"currency":"{}","amount":{i},"ts":"{}"}}"#,
            currencies[i as usize % 6],
            common::sql_ts(BASE + i * 10_000)
        );
        p.send(BaseRecord::<(), String>::to(&input).payload(&payload))
            .expect("send");
    }
    p.flush(Duration::from_secs(10)).expect("flush");
    // Flink 2.3 asks for this (or an ON CONFLICT clause) before it writes
    // an append-only query into a table with a primary key.
    let sql = format!(
        "SET 'table.exec.sink.require-on-conflict' = 'false';
CREATE TABLE orders (currency STRING, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE totals (currency STRING, window_start TIMESTAMP(3), total BIGINT,
  PRIMARY KEY (currency, window_start) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
  'key.format' = 'json', 'value.format' = 'json');
INSERT INTO totals SELECT currency, window_start, SUM(amount)
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' MINUTE))
GROUP BY window_start, window_end, currency;
"
    );
    let path = dir.join("sink.sql");
    std::fs::write(&path, sql).expect("write the job");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["run", path.to_str().expect("utf-8")])
        .output()
        .expect("lowwater runs");
    let log = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{log}");
    let rows: Vec<_> = common::kafka_jobs::consume_records(&out, 4, "read_committed")
        .into_iter()
        .map(|r| (r.partition, r.key, r.value))
        .collect();
    // 60 orders over 10 minutes: two 5-minute windows of 6 currencies.
    assert_eq!(rows.len(), 12, "{rows:?}\n{log}");
    for (partition, key, value) in &rows {
        let key = key.as_deref().expect("a key");
        let value = value.as_deref().expect("a value");
        let k: sonic_rs::Value = sonic_rs::from_str(key).expect("a JSON key");
        let v: sonic_rs::Value = sonic_rs::from_str(value).expect("a JSON value");
        // The key holds the primary key; the value every column ('ALL').
        let fields: std::collections::BTreeMap<String, sonic_rs::Value> =
            sonic_rs::from_str(key).expect("a JSON object");
        assert_eq!(fields.len(), 2, "{key}");
        assert_eq!(k["currency"].as_str(), v["currency"].as_str());
        assert_eq!(k["window_start"].as_str(), v["window_start"].as_str());
        assert!(v["total"].as_i64().is_some(), "{value}");
        let java = (java_murmur2(key.as_bytes()) & 0x7fff_ffff) % 4;
        assert_eq!(
            *partition, java,
            "{key} is not where Java's producer puts it"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn murmur2_is_javas() {
    // Values from Kafka's own UtilsTest.testMurmur2.
    assert_eq!(java_murmur2(b"21"), -973932308);
    assert_eq!(java_murmur2(b"foobar"), -790332482);
    assert_eq!(java_murmur2(b"a-little-bit-long-string"), -985981536);
    assert_eq!(java_murmur2(b"a-little-bit-longer-string"), -1486304829);
    assert_eq!(
        java_murmur2(b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"),
        -58897971
    );
    assert_eq!(java_murmur2(b"abc"), 479470107);
}
