//! The shipped monitoring against a real Prometheus (Debian's `prometheus`
//! package, which `scripts/test.sh` installs): the alerting rules pass
//! `promtool check rules` and their unit tests, and a Prometheus server
//! scraping a running job answers every query of the Grafana dashboard with
//! data, and every rule's expression without an error.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::Running;
use sonic_rs::{JsonContainerTrait, JsonValueTrait};

fn dashboards() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dashboards")
}

fn tool(name: &str) -> String {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "{name} is not installed: `bash scripts/test.sh` installs Debian's prometheus package"
    );
    name.to_string()
}

#[test]
fn the_alerting_rules_pass_promtool() {
    let promtool = tool("promtool");
    for args in [
        vec!["check", "rules", "lowwater-alerts.yml"],
        vec!["test", "rules", "lowwater-alerts.test.yml"],
    ] {
        let o = Command::new(&promtool)
            .args(&args)
            .current_dir(dashboards())
            .output()
            .expect("promtool");
        assert!(
            o.status.success(),
            "promtool {}: {}{}",
            args.join(" "),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// A Prometheus server, stopped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn query(base: &str, q: &str) -> sonic_rs::Value {
    let body = ureq::get(&format!("{base}/api/v1/query"))
        .query("query", q)
        .call()
        .unwrap_or_else(|e| panic!("query {q}: {e}"))
        .body_mut()
        .read_to_string()
        .expect("body");
    sonic_rs::from_str(&body).expect("Prometheus JSON")
}

fn results(v: &sonic_rs::Value) -> usize {
    v["data"]["result"].as_array().map_or(0, |a| a.len())
}

#[test]
fn a_real_prometheus_answers_every_dashboard_query() {
    let prometheus = tool("prometheus");
    let dir = std::env::temp_dir().join(format!("lowwater-prometheus-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    // The heartbeat example, faster: partition 3 every 2 s, 1 s windows,
    // so there are stalls, a holder and window rows within seconds.
    let job = dir.join("job.sql");
    std::fs::write(
        &job,
        "CREATE TABLE clicks (user_id INT, event_time TIMESTAMP(3),
           WATERMARK FOR event_time AS event_time - INTERVAL '200' MILLISECOND
         ) WITH ('connector' = 'datagen', 'rows-per-second' = '200', 'fields.user_id.min' = '1',
           'fields.user_id.max' = '5', 'lowwater.partitions' = '4', 'lowwater.partition.3.every' = '2 s');
         CREATE TABLE dashboard (window_start TIMESTAMP(3), clicks BIGINT) WITH ('connector' = 'blackhole',
           'lowwater.sink.max-emission-lag' = '1 s', 'lowwater.sink.max-staleness' = '1 min');
         INSERT INTO dashboard SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks,
           DESCRIPTOR(event_time), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;",
    )
    .expect("job");
    let running = Running::start(&[
        "run",
        job.to_str().unwrap_or_default(),
        "--duration",
        "60 s",
        "--stall-threshold",
        "500 ms",
    ]);
    let target = running.url.trim_start_matches("http://").to_string();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - {}\n\
             scrape_configs:\n  - job_name: lowwater\n    static_configs:\n      - targets: ['{target}']\n",
            dashboards().join("lowwater-alerts.yml").display()
        ),
    )
    .expect("config");
    let _server = Server(
        Command::new(prometheus)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start prometheus"),
    );
    let base = format!("http://127.0.0.1:{port}");
    // Wait until it has scraped the job for a while (rates need samples).
    let started = Instant::now();
    loop {
        let ready = ureq::get(&format!("{base}/api/v1/query"))
            .query("query", "count_over_time(up{job=\"lowwater\"}[1m]) >= 8")
            .call()
            .ok()
            .and_then(|mut r| r.body_mut().read_to_string().ok())
            .and_then(|b| sonic_rs::from_str::<sonic_rs::Value>(&b).ok())
            .is_some_and(|v| results(&v) > 0);
        if ready {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(40),
            "Prometheus did not scrape the job 8 times within 40 s"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let dash: sonic_rs::Value = sonic_rs::from_str(
        &std::fs::read_to_string(dashboards().join("grafana-lowwater.json")).expect("dashboard"),
    )
    .expect("dashboard JSON");
    // Series only some jobs have: consumer lag is for Kafka sources.
    let only_some = ["lowwater_partition_consumer_lag_records"];
    let mut empty = Vec::new();
    let mut checked = 0;
    for panel in dash["panels"].as_array().expect("panels").iter() {
        for t in panel["targets"]
            .as_array()
            .map(|a| a.to_vec())
            .unwrap_or_default()
        {
            let Some(expr) = t["expr"].as_str() else {
                continue;
            };
            let q = expr
                .replace("$job", "lowwater")
                .replace("$instance", ".*")
                .replace("$sink", ".*")
                .replace("$table", ".*")
                .replace("$__rate_interval", "30s")
                .replace("$__range", "1m");
            let v = query(&base, &q);
            assert_eq!(v["status"].as_str(), Some("success"), "{q}: {v:?}");
            checked += 1;
            if results(&v) == 0 && !only_some.iter().any(|m| q.contains(m)) {
                empty.push(q);
            }
        }
    }
    eprintln!(
        "{checked} dashboard queries answered, {} without data",
        empty.len()
    );
    assert!(checked > 30, "{checked} dashboard queries");
    assert!(empty.is_empty(), "queries without data: {empty:#?}");
    // Every rule's expression is valid and evaluates (whether it alerts
    // depends on the moment).
    let rules = ureq::get(&format!("{base}/api/v1/rules"))
        .call()
        .expect("rules")
        .body_mut()
        .read_to_string()
        .expect("body");
    let rules: sonic_rs::Value = sonic_rs::from_str(&rules).expect("rules JSON");
    let group = &rules["data"]["groups"][0];
    let list = group["rules"].as_array().expect("rules");
    assert_eq!(list.len(), 4, "{rules:?}");
    for r in list.iter() {
        assert_eq!(r["health"].as_str(), Some("ok"), "{r:?}");
        let q = r["query"].as_str().expect("query");
        assert_eq!(query(&base, q)["status"].as_str(), Some("success"), "{q}");
    }
    running.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
