//! `lowwater run` against a real Apache Kafka broker (started by
//! `scripts/kafka.sh`, a single KRaft node on 127.0.0.1:19092): a topic with
//! one silent partition stalls every window and the warning names it; with
//! an idle timeout the windows reach the output topic, and every row there is
//! a row `lowwater replay` computes from the same records.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;
use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::{Message, Offset, TopicPartitionList};

const BOOTSTRAP: &str = "127.0.0.1:19092";
static BROKER: Once = Once::new();

fn broker() {
    BROKER.call_once(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka.sh");
        let o = Command::new("bash")
            .arg(script)
            .arg("start")
            .output()
            .expect("run scripts/kafka.sh");
        assert!(
            o.status.success(),
            "the Kafka broker did not start: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    });
}

/// Runs a future to completion on this thread (rdkafka's admin calls).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn create_topic(name: &str, partitions: i32) {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .create()
        .expect("admin client");
    let t = NewTopic::new(name, partitions, TopicReplication::Fixed(1));
    let r = block_on(admin.create_topics(&[t], &AdminOptions::new())).expect("create topics");
    for x in r {
        x.expect("topic created");
    }
}

fn sql_ts(ms: i64) -> String {
    lowwater_core_time(ms)
}

fn lowwater_core_time(ms: i64) -> String {
    // yyyy-MM-dd HH:mm:ss.SSS in UTC, as Flink's json format reads TIMESTAMP(3).
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:03}",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1_000 % 60,
        rem % 1_000
    )
}

/// Produces live traffic until `stop`: a record every 20 ms to partitions
/// 0-2 (partition 3 stays silent), stamped with the wall clock, as a
/// producer in the seeds would. Returns the records as a kcat -J dump.
fn produce_live(topic: &str, stop: &std::sync::atomic::AtomicBool) -> String {
    let p: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .create()
        .expect("producer");
    let mut dump = String::new();
    let mut offsets = [0i64; 3];
    let mut k = 0i64;
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        let part = (k % 3) as i32;
        let ts = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let payload = format!(r#"{{"user_id":"u{}","ts":"{}"}}"#, k % 2, sql_ts(ts));
        p.send(
            BaseRecord::<(), str>::to(topic)
                .partition(part)
                .payload(&payload)
                .timestamp(ts),
        )
        .expect("send");
        p.poll(Duration::ZERO);
        let escaped = payload.replace('"', "\\\"");
        dump += &format!(
            "{{\"topic\":\"{topic}\",\"partition\":{part},\"offset\":{},\"ts\":{ts},\"key\":null,\"payload\":\"{escaped}\"}}\n",
            offsets[part as usize]
        );
        offsets[part as usize] += 1;
        k += 1;
        // Paces the producer (real traffic over real time, not a test waiting for time to pass).
        std::thread::sleep(Duration::from_millis(20));
    }
    p.flush(Duration::from_secs(10)).expect("flush");
    dump
}

/// Runs `lowwater run` while live traffic flows into `topic`.
fn run_with_traffic(topic: &str, args: &[&str]) -> (std::process::Output, String) {
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let producer = s.spawn(|| produce_live(topic, &stop));
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
    let sql = format!(
        "SET 'parallelism.default' = '2';
{settings}
CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '500' MILLISECOND)
WITH ('connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
      'properties.group.id' = 'lowwater-test', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE counts (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, n BIGINT)
WITH ('connector' = 'kafka', 'topic' = '{output}', 'properties.bootstrap.servers' = '{BOOTSTRAP}', 'format' = 'json');
INSERT INTO counts SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
"
    );
    let path = dir.join(format!("{output}.sql"));
    std::fs::write(&path, sql).expect("write job");
    path
}

#[test]
fn a_silent_kafka_partition_is_named_and_idle_timeout_releases_windows_to_kafka() {
    broker();
    let id = std::process::id();
    let dir = std::env::temp_dir().join(format!("lowwater-kafka-{id}"));
    std::fs::create_dir_all(&dir).expect("dir");
    let (input, stalled_out, fixed_out) = (
        format!("clicks-{id}"),
        format!("stalled-{id}"),
        format!("fixed-{id}"),
    );
    create_topic(&input, 4);
    create_topic(&stalled_out, 1);
    create_topic(&fixed_out, 1);
    // Without an idle timeout, partition 3 holds every window.
    let stalled = job(&dir, &input, &stalled_out, "");
    let (o, mut dump) = run_with_traffic(
        &input,
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

    // With one, the windows reach the output topic.
    let fixed = job(
        &dir,
        &input,
        &fixed_out,
        "SET 'table.exec.source.idle-timeout' = '1 s';",
    );
    let (o, more) = run_with_traffic(
        &input,
        &[
            "run",
            fixed.to_str().unwrap_or_default(),
            "--duration",
            "6 s",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dump += &more;
    let live = consume_all(&fixed_out, 1);
    assert!(
        live.len() >= 4,
        "windows fired while running: {}",
        live.len()
    );

    // Replay of the same records (a dump of the input topic) computes the same rows.
    let dump_path = dir.join("clicks.jsonl");
    std::fs::write(&dump_path, dump).expect("dump");
    let replayed = dir.join("replayed.jsonl");
    let o = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args([
            "replay",
            fixed.to_str().unwrap_or_default(),
            "--input",
            &format!("clicks={}", dump_path.display()),
            "--partitions",
            "clicks=4",
            "--output",
            &format!("counts={}", replayed.display()),
        ])
        .output()
        .expect("replay");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&replayed).expect("replayed rows");
    for row in &live {
        let escaped = row.replace('"', "\\\"");
        assert!(
            text.contains(&escaped),
            "live row {row} is not a replay row"
        );
    }
}
