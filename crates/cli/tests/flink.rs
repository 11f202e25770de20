//! `lowwater submit` and `lowwater watch` against a real Apache Flink 2.3
//! standalone cluster and its SQL Gateway (`scripts/flink.sh`), next to the
//! real Kafka broker: seed 000's shape (16 partitions, parallelism 8, one
//! partition silent, no idle timeout) submitted as a job file, the stall
//! named by partition and subtask in the WARN, the API, `/healthz`, the
//! metrics and the web page; with an idle timeout no stall, and the rows
//! Flink writes equal to `lowwater replay` of `lowwater dump` of the input.
//! The tests run one at a time (a shared lock): the cluster has 8 slots.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::kafka_jobs::{consume_all, produce_live};
use common::{create_topic, kafka_scratch, producer, sql_ts, Running, BOOTSTRAP};
use rdkafka::producer::{BaseRecord, Producer};

/// One Flink job at a time: each takes all 8 slots.
static CLUSTER: Mutex<()> = Mutex::new(());

fn rest_port() -> u16 {
    std::env::var("FLINK_REST_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(8081)
}

fn gateway_port() -> u16 {
    std::env::var("FLINK_GATEWAY_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(8083)
}

fn rest() -> String {
    format!("http://127.0.0.1:{}", rest_port())
}

fn gateway() -> String {
    format!("http://127.0.0.1:{}", gateway_port())
}

/// Sets its flag when dropped: a test that fails midway still stops its
/// producer thread (and so its scope ends).
struct StopOnDrop<'a>(&'a std::sync::atomic::AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Cancels a Flink job when dropped, so that a test failing midway frees
/// the cluster's slots.
struct CancelOnDrop(String);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.0.is_empty() {
            cancel(&self.0);
        }
    }
}

/// The jobs these tests submit are named after their sink.
const TEST_JOB: &str = "insert-into_default_catalog.default_database.dashboard";

/// Starts the cluster and the gateway (once per test binary), and cancels
/// what an interrupted earlier run of these tests left running (it would
/// hold the slots).
fn flink() {
    static FLINK: std::sync::Once = std::sync::Once::new();
    FLINK.call_once(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/flink.sh");
        let o = Command::new("bash")
            .arg(script)
            .arg("start")
            .output()
            .expect("run scripts/flink.sh");
        assert!(
            o.status.success(),
            "Flink did not start: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let jobs = get_json(&format!("{}/jobs/overview", rest()));
        for j in jobs["jobs"].as_array().into_iter().flatten() {
            if j["state"].as_str() == Some("RUNNING") && j["name"].as_str() == Some(TEST_JOB) {
                cancel(j["jid"].as_str().unwrap_or_default());
            }
        }
    });
}

fn get_json(url: &str) -> sonic_rs::Value {
    let body = ureq::get(url)
        .call()
        .expect("GET")
        .body_mut()
        .read_to_string()
        .expect("body");
    sonic_rs::from_str(&body).expect("JSON")
}

/// Cancels a Flink job (and waits until it is no longer running), so the
/// next test has the slots.
fn cancel(job: &str) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let _ = agent
        .patch(&format!("{}/jobs/{job}?mode=cancel", rest()))
        .send_empty();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        let v = get_json(&format!("{}/jobs/{job}", rest()));
        if v["state"]
            .as_str()
            .is_some_and(|s| s != "RUNNING" && s != "CANCELLING")
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!("Flink job {job} was not cancelled within 60 s");
}

use sonic_rs::{JsonContainerTrait, JsonValueTrait};

/// The seed 000 job: `topic` (16 partitions) counted in 2 s tumbling
/// windows into `out`, parallelism 8, `settings` added.
fn seed_job(dir: &Path, name: &str, topic: &str, out: &str, settings: &str) -> std::path::PathBuf {
    let sql = format!(
        "SET 'parallelism.default' = '8';\n{settings}\n\
         CREATE TABLE clickstream (\n  user_id STRING,\n  ts TIMESTAMP(3),\n  \
         WATERMARK FOR ts AS ts - INTERVAL '1' SECOND\n) WITH (\n  'connector' = 'kafka',\n  \
         'topic' = '{topic}',\n  'properties.bootstrap.servers' = '{BOOTSTRAP}',\n  \
         'properties.group.id' = '{name}',\n  'scan.startup.mode' = 'earliest-offset',\n  \
         'format' = 'json'\n);\n\
         CREATE TABLE dashboard (\n  window_start TIMESTAMP(3),\n  window_end TIMESTAMP(3),\n  \
         clicks BIGINT\n) WITH (\n  'connector' = 'kafka',\n  'topic' = '{out}',\n  \
         'properties.bootstrap.servers' = '{BOOTSTRAP}',\n  'format' = 'json'\n);\n\
         INSERT INTO dashboard\nSELECT window_start, window_end, COUNT(*) AS clicks\n\
         FROM TABLE(TUMBLE(TABLE clickstream, DESCRIPTOR(ts), INTERVAL '2' SECOND))\n\
         GROUP BY window_start, window_end;\n"
    );
    let path = dir.join(format!("{name}.sql"));
    std::fs::write(&path, sql).expect("write the job");
    path
}

/// Polls the watcher's API until `done` holds (90 s at most: Flink starts
/// the job and refreshes its metrics every 10 s).
fn api_until(
    job: &Running,
    what: &str,
    mut done: impl FnMut(&sonic_rs::Value) -> bool,
) -> sonic_rs::Value {
    let started = Instant::now();
    loop {
        let v: sonic_rs::Value = sonic_rs::from_str(&job.get("/api/v1/watermarks")).expect("JSON");
        if done(&v) {
            return v;
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "waited 90 s for {what}; the API said: {v}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// A scratch directory and this test's two topics: `NAME-in-ID` (16
/// partitions) and `NAME-out-ID` (1).
fn topics(name: &str) -> (std::path::PathBuf, u32, String, String) {
    let (dir, id) = kafka_scratch(name);
    let (topic, out) = (format!("{name}-in-{id}"), format!("{name}-out-{id}"));
    create_topic(&topic, 16);
    create_topic(&out, 1);
    (dir, id, topic, out)
}

/// `lowwater submit JOB` to the gateway, watching it every 2 s with a 15 s
/// stall threshold, serving HTTP.
fn submit_and_watch(job: &Path) -> Running {
    Running::start(&[
        "submit",
        job.to_str().unwrap_or_default(),
        "--flink",
        &gateway(),
        "--rest",
        &rest(),
        "--poll-interval",
        "2 s",
        "--stall-threshold",
        "15 s",
    ])
}

fn watched_job(v: &sonic_rs::Value) -> String {
    v["watched"]["job_id"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn seed000_on_flink_the_silent_partition_and_its_subtask_are_named_everywhere() {
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    flink();
    let (dir, id, topic, out) = topics("flink-seed");
    let job = seed_job(&dir, &format!("flink-seed-{id}"), &topic, &out, "");
    let busy: Vec<i32> = (0..16).filter(|p| *p != 11).collect();
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let producer = s.spawn(|| produce_live(&topic, &busy, None, &stop));
        let _stop = StopOnDrop(&stop);
        let mut w = submit_and_watch(&job);
        // 15 s is below what a watch can serve (2 x (2 s poll + Flink's
        // 10 s metric refresh)): said at start, with the figure to use.
        let warned = w
            .wait_for_line("is below what a watch of Flink can serve", Duration::ZERO)
            .unwrap_or_default();
        assert!(
            warned.contains("use --stall-threshold 24s or more"),
            "{warned}"
        );
        let stalled = api_until(&w, "a stall held by a partition", |v| {
            v["inserts"][0]["stall"]["held_by"]["partition"]
                .as_i64()
                .is_some()
        });
        let flink_job = CancelOnDrop(watched_job(&stalled));
        assert_eq!(flink_job.0.len(), 32, "the submitted job's id: {stalled}");
        let held = &stalled["inserts"][0]["stall"]["held_by"];
        // Flink's Kafka enumerator puts partition p on reader
        // (start + p) % parallelism (SEMANTICS.md §9).
        let owner = lowwater_core::assignment::split_owner(&topic, 11, 8).expect("owner");
        assert_eq!(held["partition"].as_i64(), Some(11), "{stalled}");
        assert_eq!(held["subtask"].as_u64(), Some(owner as u64), "{stalled}");
        assert_eq!(held["never_had_record"].as_bool(), Some(true));
        let reason = stalled["inserts"][0]["stall"]["reason"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let named = format!(
            "partition 11 of {topic} (subtask {owner}) has had no record since the job started \
             and idle-timeout is disabled, so it holds the watermark at MIN; SET \
             'table.exec.source.idle-timeout' = '1 s' releases it (it has had no record; \
             chosen from the windows, every 2s; a record of it that comes after more than 1 s \
             of silence, with an event time over 1s behind the other partitions', is then late \
             and counted per partition)"
        );
        assert_eq!(reason, named, "the same reason text as a lowwater job");
        // Every partition is there, 11 marked as the holder, on its subtask.
        let parts = stalled["partitions"].as_array().expect("partitions");
        assert_eq!(parts.len(), 16, "{stalled}");
        for p in parts.iter() {
            let n = p["partition"].as_i64().unwrap_or(-1);
            assert_eq!(p["holding"].as_bool(), Some(n == 11), "{p}");
            let sub = lowwater_core::assignment::split_owner(&topic, n as i32, 8).expect("owner");
            assert_eq!(p["subtask"].as_u64(), Some(sub as u64), "{p}");
        }
        assert_eq!(stalled["watched"]["engine"].as_str(), Some("flink"));
        // The poll's cost: the job, the window vertex, and the source's 48
        // metrics in two requests (Flink's 4096-byte request line).
        let cost = api_until(&w, "a poll without discovery", |v| {
            v["watched"]["requests_per_poll"]
                .as_u64()
                .is_some_and(|n| n <= 4)
        });
        assert_eq!(
            cost["watched"]["requests_per_poll"].as_u64(),
            Some(4),
            "{cost}"
        );
        // /healthz is 503 with the reason; /metrics has the partitions.
        let (code, body) = w.get_status("/healthz");
        assert_eq!(code, 503, "{body}");
        assert!(body.contains(&named), "{body}");
        let scrape = w.scrape();
        assert_eq!(
            common::of_partition(&scrape, "lowwater_partition_holding", 11),
            Some(1.0)
        );
        assert!(
            common::of_partition(&scrape, "lowwater_partition_watermark_milliseconds", 3)
                .is_some_and(|v| v > 0.0)
        );
        // `lowwater status` reads it as it reads a lowwater job: exit 1, stalled.
        let st = Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(["status", "--url", &w.url])
            .output()
            .expect("status");
        assert_eq!(
            st.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&st.stdout)
        );
        assert!(String::from_utf8_lossy(&st.stdout).contains("partition 11"));
        page_names_the_holder(&dir, &w.url);
        // Stopped while the stall goes on: the watch exits 1, as --help says.
        let log = w.stop_with(1);
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        producer.join().expect("producer");
        drop(flink_job);
        let warn = log
            .lines()
            .find(|l| l.contains("watermark stalled: INSERT INTO dashboard"))
            .unwrap_or_else(|| panic!("no stall WARN: {log}"));
        assert!(warn.contains(&named), "{warn}");
    });
}

/// An event-time temporal join on Flink, its versioned table (4
/// partitions) written on 2 only: `lowwater submit` + `watch` name the
/// join's versioned side and a rates partition that never had a record,
/// as they would for a lowwater job.
#[test]
fn a_temporal_join_on_flink_is_held_by_its_quiet_versioned_partition() {
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    flink();
    let (dir, id) = kafka_scratch("flink-join");
    let (orders, rates, out) = (
        format!("flink-join-orders-{id}"),
        format!("flink-join-rates-{id}"),
        format!("flink-join-out-{id}"),
    );
    create_topic(&orders, 2);
    create_topic(&rates, 4);
    create_topic(&out, 1);
    // A rate of each user on partitions 0 and 1, as of the start.
    let p = producer();
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    for (part, user) in [(0, "u0"), (1, "u1")] {
        let payload = format!(
            r#"{{"currency":"{user}","rate":7,"update_time":"{}"}}"#,
            sql_ts(start - 60_000)
        );
        let r = BaseRecord::<(), str>::to(&rates)
            .partition(part)
            .payload(&payload);
        p.send(r).expect("send a rate");
    }
    p.flush(Duration::from_secs(10)).expect("flush");
    let kafka = |topic: &str, group: &str| {
        format!(
            "'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = \
             '{BOOTSTRAP}', 'properties.group.id' = '{group}', 'scan.startup.mode' = \
             'earliest-offset', 'format' = 'json'"
        )
    };
    let sql = format!(
        "SET 'parallelism.default' = '2';
CREATE TABLE orders (user_id STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ({});
CREATE TABLE rates (currency STRING, rate INT, update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time - INTERVAL '1' SECOND) WITH ({});
CREATE VIEW versioned_rates AS SELECT currency, rate, update_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rownum
  FROM rates) WHERE rownum = 1;
CREATE TABLE dashboard (user_id STRING, rate INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
  'format' = 'json');
INSERT INTO dashboard SELECT o.user_id, r.rate, o.ts
FROM orders AS o JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r
ON o.user_id = r.currency;
",
        kafka(&orders, &format!("flink-join-{id}")),
        kafka(&rates, &format!("flink-join-{id}"))
    );
    let job = dir.join(format!("flink-join-{id}.sql"));
    std::fs::write(&job, sql).expect("write the job");
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let producer = s.spawn(|| produce_live(&orders, &[0, 1], None, &stop));
        let _stop = StopOnDrop(&stop);
        let w = submit_and_watch(&job);
        let stalled = api_until(&w, "a join stall held by a partition", |v| {
            v["inserts"][0]["stall"]["held_by"]["partition"]
                .as_i64()
                .is_some()
        });
        let flink_job = CancelOnDrop(watched_job(&stalled));
        let insert = &stalled["inserts"][0];
        let held = &insert["stall"]["held_by"];
        assert_eq!(held["topic"].as_str(), Some(rates.as_str()), "{stalled}");
        let partition = held["partition"].as_i64().unwrap_or(-1);
        assert!(partition == 2 || partition == 3, "{stalled}");
        assert_eq!(held["never_had_record"].as_bool(), Some(true), "{stalled}");
        let reason = insert["stall"]["reason"].as_str().unwrap_or_default();
        assert!(
            reason.starts_with("the temporal join waits for its versioned side, table rates: ")
                && reason.contains(&format!("partition {partition} of {rates}"))
                && reason.contains("'scan.watermark.idle-timeout' on table rates"),
            "{reason}"
        );
        assert_eq!(
            insert["source"].as_str(),
            Some("orders JOIN rates"),
            "{stalled}"
        );
        let log = w.stop_with(1);
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        producer.join().expect("producer");
        drop(flink_job);
        assert!(
            log.contains("the temporal join waits for its versioned side"),
            "{log}"
        );
    });
}

/// The web page, in headless Chromium, marks partition 11's row.
fn page_names_the_holder(dir: &Path, url: &str) {
    let profile = dir.join("chromium-profile");
    let o = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            &format!("--user-data-dir={}", profile.display()),
            "--virtual-time-budget=4000",
            "--dump-dom",
            &format!("{url}/"),
        ])
        .output()
        .expect("run chromium (installed by scripts/test.sh)");
    let html = String::from_utf8_lossy(&o.stdout).into_owned();
    let holding: Vec<&str> = html
        .split("<tr")
        .filter(|r| r.contains("class=\"holding"))
        .collect();
    assert_eq!(holding.len(), 1, "one row is highlighted: {html}");
    assert!(
        holding[0].contains("data-partition=\"11\""),
        "{}",
        holding[0]
    );
    assert!(
        html.contains("data-watched=\""),
        "the page names the Flink job: {html}"
    );
}

/// Records with event times `base + k * 50 ms` on the 15 busy partitions
/// (round robin), then one record a second later on each, so that every
/// window up to `base + n * 50 ms` closes; returns the last event time.
fn produce_bounded(topic: &str, base: i64, n: i64) -> i64 {
    let p = producer();
    let busy: Vec<i32> = (0..16).filter(|p| *p != 11).collect();
    let send = |part: i32, ts: i64, k: i64| {
        let payload = format!(r#"{{"user_id":"u{}","ts":"{}"}}"#, k % 3, sql_ts(ts));
        p.send(
            BaseRecord::<(), str>::to(topic)
                .partition(part)
                .payload(&payload),
        )
        .expect("send");
        p.poll(Duration::ZERO);
    };
    for k in 0..n {
        send(busy[(k % 15) as usize], base + k * 50, k);
    }
    let last = base + n * 50 + 5_000;
    for (i, part) in busy.iter().enumerate() {
        send(*part, last, n + i as i64);
    }
    p.flush(Duration::from_secs(10)).expect("flush");
    last
}

#[test]
fn with_an_idle_timeout_flink_has_no_stall_and_writes_the_rows_replay_computes() {
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    flink();
    let (dir, id, topic, out) = topics("flink-idle");
    let base = 1_757_808_000_000; // 2025-09-14 00:00:00
    let last = produce_bounded(&topic, base, 3_000);
    let job = seed_job(
        &dir,
        &format!("flink-idle-{id}"),
        &topic,
        &out,
        "SET 'table.exec.source.idle-timeout' = '2 s';",
    );
    let w = submit_and_watch(&job);
    // Every window before the closing records' has been written (they are
    // 2 s windows over 150 s of event time).
    let cutoff = last - 5_000;
    let v = api_until(
        &w,
        "partition 11 idle and the watermark past the data",
        |v| {
            let idle = v["partitions"]
                .as_array()
                .and_then(|a| a.iter().find(|p| p["partition"].as_i64() == Some(11)))
                .is_some_and(|p| p["idle"].as_bool() == Some(true));
            idle && v["inserts"][0]["watermark"]
                .as_i64()
                .is_some_and(|w| w >= cutoff)
        },
    );
    let flink_job = CancelOnDrop(watched_job(&v));
    // Watched through at least one more metric refresh (10 s), with no
    // stall at any poll of the API on the way.
    let watched_from = v["now"].as_i64().unwrap_or(0);
    let v = api_until(&w, "one more metric refresh of watching", |v| {
        assert_eq!(v["stalls"].as_array().map(|a| a.len()), Some(0), "{v}");
        v["now"].as_i64().unwrap_or(0) - watched_from >= 12_000
    });
    assert_eq!(v["totals"]["late_records_dropped"].as_u64(), Some(0), "{v}");
    let log = w.stop();
    drop(flink_job);
    assert!(!log.contains("watermark stalled"), "{log}");
    // Flink's rows against lowwater's replay of a dump of the same topic.
    let flink_rows = rows_before(&consume_all(&out, 1), cutoff);
    let dump = dir.join("input.jsonl");
    let d = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["dump", &topic, "--bootstrap", &BOOTSTRAP])
        .args(["--output", dump.to_str().unwrap_or_default()])
        .output()
        .expect("dump");
    assert!(d.status.success(), "{}", String::from_utf8_lossy(&d.stderr));
    let replayed = dir.join("replayed.jsonl");
    let r = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .arg("replay")
        .arg(&job)
        .args(["--input", &format!("clickstream={}", dump.display())])
        .args(["--partitions", "clickstream=16"])
        .args(["--output", &format!("dashboard={}", replayed.display())])
        .output()
        .expect("replay");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(&replayed).expect("replayed rows");
    let payloads: Vec<String> = text
        .lines()
        .filter_map(|l| sonic_rs::from_str::<sonic_rs::Value>(l).ok())
        .filter_map(|v| v["payload"].as_str().map(str::to_string))
        .collect();
    let replay_rows = rows_before(&payloads, cutoff);
    // 150 s of event time in 2 s windows.
    assert_eq!(
        flink_rows.len(),
        75,
        "Flink wrote every window: {flink_rows:?}"
    );
    assert_eq!(
        flink_rows, replay_rows,
        "Flink's rows = lowwater replay's rows"
    );
    let total: i64 = flink_rows.iter().map(|r| r.2).sum();
    assert_eq!(total, 3_000, "every record is counted once, none late");
}

/// (window_start, window_end, clicks) of the rows whose window ends by
/// `cutoff`, sorted.
fn rows_before(payloads: &[String], cutoff: i64) -> Vec<(String, String, i64)> {
    let mut rows: Vec<(String, String, i64)> = payloads
        .iter()
        .filter_map(|p| sonic_rs::from_str::<sonic_rs::Value>(p).ok())
        .map(|v| {
            (
                v["window_start"].as_str().unwrap_or_default().to_string(),
                v["window_end"].as_str().unwrap_or_default().to_string(),
                v["clicks"].as_i64().unwrap_or(-1),
            )
        })
        // Flink writes `2025-09-14 00:00:02` (no fraction when it is 0).
        .filter(|(_, end, _)| end.get(..19).unwrap_or("") <= &sql_ts(cutoff)[..19])
        .collect();
    rows.sort();
    rows
}

/// Writes `sql` to `lowwater-flink-DIR-PID/NAME` under the temp directory.
fn job_file(dir: &str, name: &str, sql: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("lowwater-flink-{dir}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join(name);
    std::fs::write(&path, sql).expect("write the job");
    path
}

fn lowwater(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(args)
        .output()
        .expect("run lowwater")
}

#[test]
fn an_unreachable_cluster_and_an_unknown_job_are_clear_errors() {
    // Nothing listens on port 1.
    let o = lowwater(&["watch", "--flink", "http://127.0.0.1:1"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cannot reach Flink's REST API at http://127.0.0.1:1")
            && err.contains("is the cluster running (bin/start-cluster.sh)"),
        "{err}"
    );
    let job = job_file(
        "down",
        "gen.sql",
        "CREATE TABLE gen (n BIGINT) WITH ('connector' = 'datagen');\n\
         CREATE TABLE sink (n BIGINT) WITH ('connector' = 'blackhole');\n\
         INSERT INTO sink SELECT n FROM gen;\n",
    );
    let o = lowwater(&[
        "submit",
        job.to_str().unwrap_or_default(),
        "--flink",
        "127.0.0.1:1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cannot reach the SQL Gateway at http://127.0.0.1:1")
            && err.contains("bin/sql-gateway.sh start"),
        "{err}"
    );
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    flink();
    let o = lowwater(&[
        "watch",
        "--flink",
        &rest(),
        "--job",
        "0123456789abcdef0123456789abcdef",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "no job '0123456789abcdef0123456789abcdef' on {}",
            rest()
        )),
        "{err}"
    );
}

#[test]
fn lowwater_only_options_are_refused_before_flink_sees_the_file() {
    let job = job_file(
        "opts",
        "late.sql",
        "SET 'lowwater.state.max-open-windows' = '1000';\n\
         CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (\n\
           'connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1',\n\
           'format' = 'json',\n\
           'late-data.sink' = 'late_clicks');\n\
         CREATE TABLE late_clicks (user_id STRING, ts TIMESTAMP(3)) WITH ('connector' = 'print');\n\
         CREATE TABLE counts (ws TIMESTAMP(3), c BIGINT) WITH ('connector' = 'print');\n\
         INSERT INTO counts SELECT window_start, COUNT(*)\n\
         FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))\n\
         GROUP BY window_start, window_end;\n",
    );
    let path = job.to_str().unwrap_or_default();
    let o = lowwater(&["explain", path, "--target", "flink"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("on Flink 2.3 (lowwater submit --flink):"),
        "{out}"
    );
    assert!(
        out.contains(
            "line 1: SET 'lowwater.state.max-open-windows' is lowwater's own (Flink ignores it)"
        ),
        "{out}"
    );
    assert!(out.contains("line 5: 'late-data.sink' on table clicks is lowwater's own (Flink refuses the table): a Flink SQL window aggregate drops late rows"), "{out}");
    // Refused before any request: the gateway address does not answer.
    let o = lowwater(&["submit", path, "--flink", "http://127.0.0.1:1"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "{path}:5: 'late-data.sink' on table clicks is lowwater's own"
        )),
        "{err}"
    );
    assert!(!err.contains("cannot reach"), "{err}");
}

#[test]
fn a_job_without_kafka_sources_and_a_statement_flink_refuses_are_clear_errors() {
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    flink();
    let job = job_file(
        "nokafka",
        "datagen.sql",
        "CREATE TABLE gen (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '10');\n\
         CREATE TABLE sink (n BIGINT) WITH ('connector' = 'blackhole');\n\
         INSERT INTO sink SELECT n FROM gen;\n",
    );
    let o = lowwater(&[
        "submit",
        job.to_str().unwrap_or_default(),
        "--flink",
        &gateway(),
        "--no-watch",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let id = String::from_utf8_lossy(&o.stdout).trim().to_string();
    let _cancel = CancelOnDrop(id.clone());
    let o = lowwater(&["watch", "--flink", &rest(), "--job", &id]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("Flink job {id}")) && err.contains("reads no Kafka topic"),
        "{err}"
    );
    // A statement Flink refuses: its line and Flink's root cause.
    let bad = job_file(
        "nokafka",
        "bad.sql",
        "CREATE TABLE gen (n BIGINT) WITH ('connector' = 'datagen');\n\
         INSERT INTO nowhere SELECT n FROM gen;\n",
    );
    let o = lowwater(&[
        "submit",
        bad.to_str().unwrap_or_default(),
        "--flink",
        &gateway(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "bad.sql: line 2: Flink refused the statement `INSERT INTO nowhere SELECT n FROM gen`"
        ) && err.contains("nowhere"),
        "{err}"
    );
}
