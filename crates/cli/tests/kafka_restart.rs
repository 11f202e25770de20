//! A broker restart while `lowwater run` reads and writes Kafka: the job
//! keeps running (librdkafka reconnects; the job warns) and windows keep
//! coming after the broker is back. The test starts a broker of its own
//! (`scripts/kafka.sh` on `KAFKA_PORT` + 100), restarts that one and stops
//! it at the end: the shared test broker, and any broker it did not start,
//! is never restarted.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rdkafka::config::ClientConfig;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

mod common;
use common::kafka_jobs::{consume_all_with, job_with, row_count};

/// This test's own broker, stopped when dropped.
struct OwnBroker {
    port: u16,
}

impl OwnBroker {
    fn start() -> Self {
        let b = OwnBroker {
            port: common::kafka_port() + 100,
        };
        b.kafka_sh("start");
        let home = std::env::var("LOWWATER_KAFKA_HOME").map_or_else(
            |_| {
                std::path::PathBuf::from(std::env::var("HOME").unwrap_or_default())
                    .join(".cache/lowwater/kafka")
            },
            std::path::PathBuf::from,
        );
        assert!(
            home.join(format!("broker-{}.pid", b.port)).exists(),
            "something else answers on 127.0.0.1:{}; this test restarts a broker of its own there",
            b.port
        );
        b
    }

    fn bootstrap(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn kafka_sh(&self, cmd: &str) {
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka.sh");
        let o = Command::new("bash")
            .arg(script)
            .arg(cmd)
            .env("KAFKA_PORT", self.port.to_string())
            .output()
            .expect("scripts/kafka.sh");
        assert!(
            o.status.success(),
            "KAFKA_PORT={} kafka.sh {cmd}: {}",
            self.port,
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

impl Drop for OwnBroker {
    fn drop(&mut self) {
        // No assertion here: a panic while a failed test unwinds aborts.
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka.sh");
        let _ = Command::new("bash")
            .arg(script)
            .arg("stop")
            .env("KAFKA_PORT", self.port.to_string())
            .output();
    }
}

#[test]
fn a_broker_restart_does_not_stop_the_job() {
    let broker = OwnBroker::start();
    let bootstrap = broker.bootstrap();
    let id = std::process::id();
    let topic = format!("restart-{id}");
    lowwater_kafka::create_topic(&bootstrap, &topic, 2).expect("topic");
    let dir = std::env::temp_dir().join(format!("lowwater-restart-{id}"));
    std::fs::create_dir_all(&dir).expect("dir");
    let job = dir.join("job.sql");
    std::fs::write(
        &job,
        format!(
            "SET 'table.exec.source.idle-timeout' = '1 s';
CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '200' MILLISECOND)
WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}',
      'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE out (window_start TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;"
        ),
    )
    .expect("job");
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        // Live traffic for the whole test (the producer buffers while the broker is down).
        s.spawn(|| {
            let p: BaseProducer = ClientConfig::new()
                .set("bootstrap.servers", &bootstrap)
                .create()
                .expect("producer");
            let mut k = 0i64;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let ts = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis() as i64);
                let payload = format!(r#"{{"user_id":"u","ts":{}}}"#, format_ts(ts));
                let _ = p.send(
                    BaseRecord::<(), str>::to(&topic)
                        .partition((k % 2) as i32)
                        .payload(&payload)
                        .timestamp(ts),
                );
                p.poll(Duration::ZERO);
                k += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = p.flush(Duration::from_secs(10));
        });
        let mut child = Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args([
                "run",
                job.to_str().unwrap_or_default(),
                "--duration",
                "40 s",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // Drained on its own thread, so a chatty job never blocks on a full pipe.
        let stderr = child.stderr.take().expect("stderr");
        let log = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut text);
            text
        });
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let first = lines.next().and_then(Result::ok).unwrap_or_default();
        assert!(
            first.starts_with("+I["),
            "a window before the restart: {first}"
        );
        broker.kafka_sh("restart");
        // Windows of event time after the restart still come.
        let after = lines.by_ref().map_while(Result::ok).take(3).count();
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        // Reads stdout to its end: rows printed while stopping must not meet
        // a closed pipe (the print sink fails the job on a write error).
        lines.map_while(Result::ok).for_each(drop);
        let status = child.wait().expect("wait");
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let log = log.join().unwrap_or_default();
        assert_eq!(
            after, 3,
            "windows kept coming after the broker restarted\n{log}"
        );
        assert!(status.success(), "{status:?}\n{log}");
    });
}

fn format_ts(ms: i64) -> String {
    // As a JSON string in Flink's SQL timestamp form.
    format!("\"{}\"", lowwater_core::time::format_timestamp(ms, ' '))
}

/// Issue 33 item 4: checkpoints that fail for longer than
/// `transaction.timeout.ms` under an exactly-once sink. Each failed
/// checkpoint says that the output waits invisible in an open transaction,
/// and for how long; when the brokers abort it for its age, the job stops
/// saying so (it was blamed on "another instance" that did not exist); the
/// same command then continues from the last committed checkpoint and every
/// window is written exactly once. The checkpoint directory is broken by
/// putting a file where it was.
#[test]
fn an_expired_transaction_is_named_and_the_restart_writes_its_windows_exactly_once() {
    let (dir, id) = common::kafka_scratch("txn-expiry");
    let (input, output) = (format!("expiry-in-{id}"), format!("expiry-out-{id}"));
    common::create_topic(&input, 1);
    common::create_topic(&output, 1);
    let settings = format!(
        "SET 'execution.checkpointing.interval' = '1 s';\nSET 'execution.checkpointing.dir' = '{}';",
        dir.join("ck").display()
    );
    let sink = format!(
        ", 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = \
         'expiry-{id}', 'properties.transaction.timeout.ms' = '12000'"
    );
    let job = job_with(&dir, &input, &output, &settings, "", &sink);
    let ck = dir.join("ck").join(&output);
    let base: i64 = 1_757_808_000_000;
    let producer = common::producer();
    let send = |i: i64| {
        let payload = format!(
            "{{\"user_id\":\"u{}\",\"ts\":\"{}\"}}",
            i % 3,
            common::sql_ts(base + i * 100)
        );
        producer
            .send(BaseRecord::<(), str>::to(&input).payload(&payload))
            .expect("produce");
        producer.poll(Duration::ZERO);
    };
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(["run", job.to_str().expect("utf-8")])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn lowwater")
    };
    let mut next = 0;
    for _ in 0..50 {
        send(next);
        next += 1;
    }
    producer.flush(Duration::from_secs(10)).expect("flush");
    let mut first = run();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_dir(&ck).map_or(0, |d| d.count()) == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    // No directory to write checkpoints to from now on.
    let saved = dir.join("ck-saved");
    std::fs::rename(&ck, &saved).expect("move the checkpoints away");
    std::fs::write(&ck, "not a directory").expect("a file in its place");
    // Records keep coming, so that windows keep firing into the open
    // transaction, until the job stops (about 12 s after the last commit).
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = first.try_wait().expect("try_wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "the job did not stop");
        send(next);
        next += 1;
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(first.stderr.as_mut().expect("stderr"), &mut err)
        .expect("stderr");
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("stays invisible to read_committed consumers")
            && err.contains("transaction.timeout.ms (12s)"),
        "{err}"
    );
    assert!(
        err.contains("the brokers aborted the Kafka transaction")
            && !err.contains("Another instance"),
        "{err}"
    );
    std::fs::remove_file(&ck).expect("the file");
    std::fs::rename(&saved, &ck).expect("the checkpoints back");
    // A record far ahead fires every window.
    let last = next;
    send(last + 100);
    producer.flush(Duration::from_secs(10)).expect("flush");
    let mut again = run();
    let mut want = std::collections::BTreeMap::new();
    for i in 0..last {
        *want
            .entry((i * 100 / 1000, format!("u{}", i % 3)))
            .or_insert(0i64) += 1;
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut rows = consume_all_with(&output, 1, "read_committed");
    while rows.len() < want.len() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(300));
        rows = consume_all_with(&output, 1, "read_committed");
    }
    let _ = Command::new("kill")
        .args(["-TERM", &again.id().to_string()])
        .status();
    let _ = again.wait();
    let got: Vec<(String, i64)> = rows.iter().filter_map(|r| row_count(r)).collect();
    let keys: std::collections::BTreeSet<&String> = got.iter().map(|(k, _)| k).collect();
    assert_eq!(keys.len(), got.len(), "a window written twice: {rows:?}");
    assert_eq!(got.len(), want.len(), "every window once: {rows:?}");
    let total: i64 = got.iter().map(|(_, n)| n).sum();
    assert_eq!(total, last, "every record counted once");
}

/// Issue 33 item 5: a job stopped by `lowwater.state.max-open-windows`
/// came back to a restore that held more states than the limit, and was
/// stopped again at once, also once the partition that held the watermark
/// was writing again: the windows it held never reached the output. Here
/// partition 1 trails partition 0 by three windows, so the job holds more
/// states than its limit while its watermark moves (catching up, allowed);
/// then partition 1 goes quiet, the watermark stands still and the job
/// stops. Partition 1 writes again and the same command restores the
/// states (still over the limit), fires them and goes on: every window
/// exact.
#[test]
fn a_job_stopped_by_the_state_limit_comes_back_once_the_stall_is_released() {
    let (dir, id) = common::kafka_scratch("state-limit");
    let (input, output) = (format!("limit-in-{id}"), format!("limit-out-{id}"));
    common::create_topic(&input, 2);
    common::create_topic(&output, 1);
    let settings = format!(
        "SET 'execution.checkpointing.interval' = '300 ms';\n\
         SET 'execution.checkpointing.dir' = '{}';\n\
         SET 'lowwater.state.max-open-windows' = '1000';",
        dir.join("ck").display()
    );
    let job = job_with(&dir, &input, &output, &settings, "", "");
    let base: i64 = 1_757_808_000_000;
    let producer = common::producer();
    let mut sent: std::collections::BTreeMap<(i64, String), i64> = Default::default();
    let mut send = |p: i32, t: i64, user: String| {
        let payload = format!(
            "{{\"user_id\":\"{user}\",\"ts\":\"{}\"}}",
            common::sql_ts(base + t)
        );
        producer
            .send(
                BaseRecord::<(), str>::to(&input)
                    .partition(p)
                    .payload(&payload),
            )
            .expect("produce");
        producer.poll(Duration::ZERO);
        *sent.entry((t / 1000, user)).or_insert(0) += 1;
    };
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(["run", job.to_str().expect("utf-8")])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn lowwater")
    };
    // 400 users a second on partition 0, one on partition 1 three seconds
    // behind: about 1,400 open (window, user) states, the watermark moving.
    let mut first = run();
    let mut t = 0;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(4) {
        for k in 0..40 {
            send(0, t + k * 25, format!("u{}", (t / 25 + k) % 400));
        }
        send(1, (t - 3_000).max(0), "slow".into());
        t += 1_000;
        std::thread::sleep(Duration::from_millis(100));
    }
    // Partition 1 goes quiet: the watermark stands still, the job stops.
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = first.try_wait().expect("try_wait") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the state limit did not stop the job"
        );
        for k in 0..40 {
            send(0, t + k * 25, format!("u{}", (t / 25 + k) % 400));
        }
        t += 1_000;
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(first.stderr.as_mut().expect("stderr"), &mut err)
        .expect("stderr");
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(
        err.contains("lowwater.state.max-open-windows (1000)") && err.contains("has not moved"),
        "{err}"
    );
    // The stall is released, and a record far ahead on both partitions
    // fires every window.
    send(1, t, "slow".into());
    send(0, t + 100_000, "last".into());
    send(1, t + 100_000, "last".into());
    producer.flush(Duration::from_secs(10)).expect("flush");
    sent.retain(|(w, _), _| *w < (t + 100_000) / 1000);
    let mut again = run();
    let deadline = Instant::now() + Duration::from_secs(60);
    let distinct = |rows: &[String]| {
        rows.iter()
            .filter_map(|r| row_count(r))
            .map(|(k, _)| k)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    let mut rows = consume_all_with(&output, 1, "read_committed");
    while distinct(&rows) < sent.len() && Instant::now() < deadline {
        if let Some(status) = again.try_wait().expect("try_wait") {
            let mut err = String::new();
            std::io::Read::read_to_string(again.stderr.as_mut().expect("stderr"), &mut err)
                .expect("stderr");
            panic!("the restored job stopped ({status}): {err}");
        }
        std::thread::sleep(Duration::from_millis(300));
        rows = consume_all_with(&output, 1, "read_committed");
    }
    let _ = Command::new("kill")
        .args(["-TERM", &again.id().to_string()])
        .status();
    let _ = again.wait();
    // At least once: a window fired after the last checkpoint of the first
    // run is written again, with the same count.
    let mut got: std::collections::BTreeMap<String, i64> = Default::default();
    for (k, n) in rows.iter().filter_map(|r| row_count(r)) {
        let before = got.insert(k.clone(), n);
        assert!(before.is_none_or(|b| b == n), "{k}: {before:?} then {n}");
    }
    assert_eq!(got.len(), sent.len(), "every window once");
    let total: i64 = got.values().sum();
    assert_eq!(total, sent.values().sum::<i64>(), "every record counted");
}

/// Issue 34: the fix the stall warning proposes, applied to a running job.
/// Partition 3 wrote once and went quiet, so every window waits; the job
/// stops (its final checkpoint keeps the open windows), `SET
/// 'table.exec.source.idle-timeout'` is added, and the same command restores
/// the checkpoint across the change (it used to refuse it with a Debug dump,
/// and --reset-state lost the open windows): every window exact.
#[test]
fn the_idle_timeout_fix_is_applied_across_a_restart_without_losing_a_window() {
    let (dir, id) = common::kafka_scratch("idle-fix");
    let (input, output) = (format!("idlefix-in-{id}"), format!("idlefix-out-{id}"));
    common::create_topic(&input, 4);
    common::create_topic(&output, 1);
    let base: i64 = 1_757_808_000_000;
    let producer = common::producer();
    let mut sent: std::collections::BTreeMap<(i64, String), i64> = Default::default();
    let mut send = |p: i32, t: i64, user: String| {
        let payload = format!(
            "{{\"user_id\":\"{user}\",\"ts\":\"{}\"}}",
            common::sql_ts(base + t)
        );
        producer
            .send(
                BaseRecord::<(), str>::to(&input)
                    .partition(p)
                    .payload(&payload),
            )
            .expect("produce");
        producer.poll(Duration::ZERO);
        *sent.entry((t / 1000, user)).or_insert(0) += 1;
    };
    let checkpoints = format!(
        "SET 'execution.checkpointing.interval' = '300 ms';\nSET 'execution.checkpointing.dir' = '{}';",
        dir.join("ck").display()
    );
    let write_job = |settings: &str| {
        let job = job_with(&dir, &input, &output, settings, "", "");
        // One name for both versions: the checkpoints are found again.
        let named = dir.join("job.sql");
        std::fs::rename(&job, &named).expect("job");
        named
    };
    let run = |job: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(["run", job.to_str().expect("utf-8")])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn lowwater")
    };
    let stop = |mut child: std::process::Child| {
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let status = child.wait().expect("wait");
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().expect("stderr"), &mut err)
            .expect("stderr");
        (status, err)
    };
    send(3, 0, "quiet".into());
    let mut t = 0;
    let traffic = |send: &mut dyn FnMut(i32, i64, String), t: &mut i64, secs: u64| {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(secs) {
            for k in 0..30 {
                send((k % 3) as i32, *t + k * 33, format!("u{}", k % 4));
            }
            *t += 1_000;
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let stalled = run(&write_job(&checkpoints));
    traffic(&mut send, &mut t, 3);
    let (status, err) = stop(stalled);
    assert!(status.success(), "{err}");
    assert!(
        consume_all_with(&output, 1, "read_committed").is_empty(),
        "partition 3 held every window: {err}"
    );
    let fixed = write_job(&format!(
        "{checkpoints}\nSET 'table.exec.source.idle-timeout' = '1 s';"
    ));
    let again = run(&fixed);
    traffic(&mut send, &mut t, 3);
    // A record far ahead on the busy partitions fires every window.
    for p in 0..3 {
        send(p, t + 100_000, "last".into());
    }
    producer.flush(Duration::from_secs(10)).expect("flush");
    sent.retain(|(w, _), _| *w < (t + 100_000) / 1000);
    let deadline = Instant::now() + Duration::from_secs(60);
    let keys = |rows: &[String]| {
        rows.iter()
            .filter_map(|r| row_count(r))
            .map(|(k, _)| k)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    let mut rows = consume_all_with(&output, 1, "read_committed");
    while keys(&rows) < sent.len() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(300));
        rows = consume_all_with(&output, 1, "read_committed");
    }
    let (status, err) = stop(again);
    assert!(status.success(), "{err}");
    assert!(
        err.contains("table.exec.source.idle-timeout was disabled, now 1s")
            && err.contains("restoring checkpoint"),
        "{err}"
    );
    let mut got: std::collections::BTreeMap<String, i64> = Default::default();
    for (k, n) in rows.iter().filter_map(|r| row_count(r)) {
        let before = got.insert(k.clone(), n);
        assert!(before.is_none_or(|b| b == n), "{k}: {before:?} then {n}");
    }
    assert_eq!(got.len(), sent.len(), "every window: {err}");
    assert_eq!(
        got.values().sum::<i64>(),
        sent.values().sum::<i64>(),
        "every record counted once"
    );
}
