//! A broker restart while `lowwater run` reads and writes Kafka: the job
//! keeps running (librdkafka reconnects; the job warns) and windows keep
//! coming after the broker is back. The test starts a broker of its own
//! (`scripts/kafka.sh` on `KAFKA_PORT` + 100), restarts that one and stops
//! it at the end: the shared test broker, and any broker it did not start,
//! is never restarted.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use rdkafka::config::ClientConfig;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

#[allow(dead_code)] // the shared listeners; this test uses only the port
#[path = "../../kafka/tests/common/address.rs"]
mod address;

/// This test's own broker, stopped when dropped.
struct OwnBroker {
    port: u16,
}

impl OwnBroker {
    fn start() -> Self {
        let b = OwnBroker {
            port: address::kafka_port() + 100,
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
        // One WARN per outage, not per subtask and periodic watermark (nor
        // per error: librdkafka alternates two while the broker restarts),
        // and a line when records come again.
        let warns = log
            .lines()
            .filter(|l| l.contains("WARN") && l.contains("Kafka:"))
            .count();
        // (Two if records the client had fetched before the restart end a
        // first outage while the broker is still down.)
        assert!((1..=2).contains(&warns), "{warns} Kafka WARNs\n{log}");
        assert!(
            log.contains("Kafka: records arrive again, "),
            "the end of the outage is said\n{log}"
        );
    });
}

fn format_ts(ms: i64) -> String {
    // As a JSON string in Flink's SQL timestamp form.
    format!("\"{}\"", lowwater_core::time::format_timestamp(ms, ' '))
}
