//! Helpers shared by the integration tests: a job watched over HTTP
//! (`http.rs`, `kafka.rs`), the local Kafka broker with its scratch
//! directories, topics and producer (`kafka.rs`, `kafka_edge.rs`,
//! `checkpoint.rs`, `security.rs`), and hostile input (`cli.rs`,
//! `kafka_edge.rs`).
#![allow(dead_code)] // each test binary uses its own part

pub mod chaos;
pub mod kafka_jobs;
pub mod postgres;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../../../kafka/tests/common/address.rs"]
mod address;
/// The local test broker (`scripts/kafka.sh`, 127.0.0.1 and `KAFKA_PORT`).
#[allow(unused_imports)] // each test binary uses its own part
pub use address::{kafka_port, BOOTSTRAP, SECURE};

/// Starts the broker (once) and makes the scratch directory
/// `lowwater-{name}-{pid}`; returns it with this process's id, which names
/// the test's topics.
pub fn kafka_scratch(name: &str) -> (std::path::PathBuf, u32) {
    broker();
    let id = std::process::id();
    let dir = std::env::temp_dir().join(format!("lowwater-{name}-{id}"));
    std::fs::create_dir_all(&dir).expect("dir");
    (dir, id)
}

/// Creates topic `name` with `partitions` partitions on the local broker.
pub fn create_topic(name: &str, partitions: i32) {
    lowwater_kafka::create_topic(&BOOTSTRAP, name, partitions).expect("topic created");
}

/// `ms` as a SQL timestamp literal's text (`2025-09-14 00:00:00.000`).
pub fn sql_ts(ms: i64) -> String {
    lowwater_core::time::format_timestamp(ms, ' ')
}

/// A producer to the local broker with librdkafka's defaults.
pub fn producer() -> rdkafka::producer::BaseProducer {
    rdkafka::config::ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .create()
        .expect("producer")
}

/// Hostile JSON records, in order: a good one, one nesting 10,000 levels
/// (in a field no job reads), one with an event time of -2^63, a good one.
pub fn hostile_payloads() -> [String; 4] {
    let deep = format!(
        r#"{{"k":"a","x":{}1{},"ms":1757808000100}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    [
        r#"{"k":"a","ms":1757808000000}"#.to_string(),
        deep,
        r#"{"k":"a","ms":-9223372036854775808}"#.to_string(),
        r#"{"k":"b","ms":1757808001200}"#.to_string(),
    ]
}

/// Starts the local broker (`scripts/kafka.sh`, `BOOTSTRAP`) once per
/// test binary.
pub fn broker() {
    static BROKER: std::sync::Once = std::sync::Once::new();
    BROKER.call_once(|| {
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka.sh");
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

/// Limits the consumers with `client.id` = `client_id` to
/// `bytes_per_second` (a real Kafka client quota, set with Kafka's
/// ConfigCommand on the local broker).
pub fn throttle(client_id: &str, bytes_per_second: u64) {
    let home = std::env::var("HOME").unwrap_or_default();
    let o = Command::new("java")
        .args([
            "-cp",
            &format!("{home}/.cache/lowwater/kafka/libs/*"),
            "org.apache.kafka.tools.ConfigCommand",
            "--bootstrap-server",
            &BOOTSTRAP,
            "--alter",
            "--add-config",
            &format!("consumer_byte_rate={bytes_per_second}"),
            "--entity-type",
            "clients",
            "--entity-name",
            client_id,
        ])
        .output()
        .expect("run Kafka's ConfigCommand");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Writes `sql` to `dir/name.sql` and runs it with `lowwater run`
/// (`--duration 60 s` at most) to its end; its output.
pub fn run_sql(dir: &std::path::Path, name: &str, sql: &str) -> std::process::Output {
    let path = dir.join(format!("{name}.sql"));
    std::fs::write(&path, sql).expect("write the job");
    Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args([
            "run",
            path.to_str().unwrap_or_default(),
            "--duration",
            "60 s",
        ])
        .output()
        .expect("lowwater runs")
}

/// A `lowwater` process serving `--http` on a free loopback port, and the
/// base URL it logged.
pub struct Running {
    child: Child,
    pub url: String,
    /// The lines logged up to the address.
    early: Vec<String>,
    log: std::sync::mpsc::Receiver<String>,
}

impl Running {
    /// Runs `lowwater ARGS --http 127.0.0.1:0`. Its stderr is read on its
    /// own thread to the end, so the job never blocks on a full pipe.
    pub fn start(args: &[&str]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(args)
            .args(["--http", "127.0.0.1:0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn lowwater");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        // The job logs the address it listens on before its threads start.
        let mut early = Vec::new();
        let url = rx
            .iter()
            .find_map(|l| {
                early.push(l.clone());
                l.split("serving ")
                    .nth(1)
                    .and_then(|r| r.split_whitespace().next())
                    .map(|u| u.trim_end_matches('/').to_string())
            })
            .expect("the job logs the address it serves");
        Running {
            child,
            url,
            early,
            log: rx,
        }
    }

    /// The body of `GET path`.
    pub fn get(&self, path: &str) -> String {
        ureq::get(&format!("{}{path}", self.url))
            .call()
            .expect("GET")
            .body_mut()
            .read_to_string()
            .expect("body")
    }

    /// `path`'s status code and body (error statuses included).
    pub fn get_status(&self, path: &str) -> (u16, String) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let mut r = agent
            .get(&format!("{}{path}", self.url))
            .call()
            .expect("GET");
        let status = r.status().as_u16();
        (status, r.body_mut().read_to_string().expect("body"))
    }

    /// `/metrics`, parsed with a Prometheus text parser.
    pub fn scrape(&self) -> prometheus_parse::Scrape {
        let text = self.get("/metrics");
        prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_string())))
            .expect("Prometheus text")
    }

    /// Scrapes until `done` holds (each scrape is a real request; the job's
    /// own time passes between them). After 30 s it panics, naming `what`
    /// it waited for and showing the last scrape's lowwater samples.
    pub fn scrape_until(
        &self,
        what: &str,
        mut done: impl FnMut(&prometheus_parse::Scrape) -> bool,
    ) -> prometheus_parse::Scrape {
        let started = Instant::now();
        loop {
            let s = self.scrape();
            if done(&s) {
                return s;
            }
            if started.elapsed() > Duration::from_secs(30) {
                let last: Vec<String> = s
                    .samples
                    .iter()
                    .filter(|x| !x.metric.contains("_bucket") && !x.metric.contains("build_info"))
                    .map(|x| format!("{} {:?} {:?}", x.metric, x.labels, x.value))
                    .collect();
                panic!(
                    "waited 30 s for {what}; the last scrape had:\n{}",
                    last.join("\n")
                );
            }
            // Paces the polling (a scrape every 100 ms, as a fast Prometheus
            // would) so that the job under test keeps its CPU.
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits (at most `within`) for a logged line that holds `needle`;
    /// returns it. Lines read meanwhile stay in the log [`Running::stop`]
    /// returns.
    pub fn wait_for_line(&mut self, needle: &str, within: Duration) -> Option<String> {
        if let Some(l) = self.early.iter().find(|l| l.contains(needle)) {
            return Some(l.clone());
        }
        let deadline = Instant::now() + within;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            let Ok(line) = self.log.recv_timeout(left) else {
                return None;
            };
            self.early.push(line.clone());
            if line.contains(needle) {
                return Some(line);
            }
        }
        None
    }

    /// Kills the job with SIGKILL (as kill -9: no flush, no final
    /// checkpoint) and returns its log.
    pub fn kill9(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut log = std::mem::take(&mut self.early);
        log.extend(self.log.try_iter());
        log.join("\n")
    }

    /// Stops the job (SIGTERM), checks that it exited cleanly and returns
    /// its log.
    pub fn stop(self) -> String {
        self.stop_with(0)
    }

    /// Stops the job (SIGTERM), checks that it exited with `code` (a watch
    /// stopped during a stall exits 1) and returns its log.
    pub fn stop_with(mut self, code: i32) -> String {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let status = self.child.wait().expect("wait");
        let mut log = std::mem::take(&mut self.early);
        log.extend(self.log.iter());
        assert_eq!(status.code(), Some(code), "{status:?}\n{}", log.join("\n"));
        log.join("\n")
    }
}

impl Drop for Running {
    /// A test that fails midway does not leave its job running.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A sample's number (counters, gauges, untyped).
pub fn value(s: &prometheus_parse::Sample) -> f64 {
    match s.value {
        prometheus_parse::Value::Counter(v)
        | prometheus_parse::Value::Gauge(v)
        | prometheus_parse::Value::Untyped(v) => v,
        _ => f64::NAN,
    }
}

/// The value of `metric` for partition `p` (`None` if absent).
pub fn of_partition(scrape: &prometheus_parse::Scrape, metric: &str, p: i32) -> Option<f64> {
    scrape
        .samples
        .iter()
        .find(|s| s.metric == metric && s.labels.get("partition") == Some(&p.to_string()))
        .map(value)
}
