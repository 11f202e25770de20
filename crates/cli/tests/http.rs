//! `lowwater run --http`: the real binary serving real HTTP on 127.0.0.1
//! while a job runs. `/metrics` is parsed with a Prometheus text parser and
//! its values followed as the job runs: a partition without records is
//! named as the holder, its silence grows, and with an idle timeout its idle
//! flag flips; `/api/v1/watermarks` and `lowwater status` say the same; the
//! web page is loaded in a real headless Chromium.

use std::path::{Path, PathBuf};
use std::process::Command;

use sonic_rs::{JsonContainerTrait, JsonValueTrait};

mod common;
use common::{of_partition, value, Running};

/// A datagen job on 4 partitions whose partition 3 never produces; its
/// sink has SLOs of 3 s staleness and `max_lag` emission lag.
fn job(dir: &Path, name: &str, table_options: &str, max_lag: &str) -> PathBuf {
    let sql = format!(
        "SET 'parallelism.default' = '2';
CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '200' MILLISECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '200', 'lowwater.partitions' = '4',
      'lowwater.partition.3.never' = 'true', 'fields.user_id.length' = '1'{table_options});
CREATE TABLE counts (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, n BIGINT)
WITH ('connector' = 'blackhole', 'lowwater.sink.max-staleness' = '3 s', 'lowwater.sink.max-emission-lag' = '{max_lag}');
INSERT INTO counts SELECT window_start, window_end, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
"
    );
    let path = dir.join(format!("{name}.sql"));
    std::fs::write(&path, sql).expect("write job");
    path
}

/// Runs `job` for at most 60 s, serving HTTP.
fn start(job: &Path) -> Running {
    Running::start(&[
        "run",
        job.to_str().unwrap_or_default(),
        "--duration",
        "60 s",
    ])
}

fn of_sink(scrape: &prometheus_parse::Scrape, metric: &str) -> Option<f64> {
    scrape
        .samples
        .iter()
        .find(|s| s.metric == metric && s.labels.get("sink") == Some("counts"))
        .map(value)
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lowwater-http-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("dir");
    d
}

#[test]
fn metrics_api_and_status_name_the_partition_holding_the_watermark() {
    let d = dir("stall");
    let job = start(&job(&d, "stall", "", "1 min"));
    let first = job.scrape();
    let s1 = of_partition(&first, "lowwater_partition_silence_seconds", 3)
        .expect("partition 3's silence");
    // Its silence grows while the others keep receiving records, and it is
    // the one holding the watermark (at MIN: no watermark sample for it).
    let later = job.scrape_until("partition 3's silence to grow by 1 s while partition 0 reads records and the INSERT is stalled", |s| {
        of_partition(s, "lowwater_partition_silence_seconds", 3).is_some_and(|v| v > s1 + 1.0)
            && of_partition(s, "lowwater_partition_records_total", 0).is_some_and(|v| v > 0.0)
            && of_sink(s, "lowwater_stall_active") == Some(1.0)
    });
    // The metric reference cannot go stale: every family served is in
    // docs/metrics.md.
    let reference = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/metrics.md"),
    )
    .expect("docs/metrics.md");
    let mut undocumented: Vec<String> = later
        .samples
        .iter()
        .map(|x| {
            let m = x.metric.as_str();
            let m = ["_bucket", "_sum", "_count"]
                .iter()
                .find_map(|s| m.strip_suffix(s))
                .unwrap_or(m);
            m.to_string()
        })
        .filter(|m| {
            let base = m.strip_suffix("_total").unwrap_or(m);
            !reference.contains(m.as_str()) && !reference.contains(base)
        })
        .collect();
    undocumented.dedup();
    assert!(
        undocumented.is_empty(),
        "not in docs/metrics.md: {undocumented:?}"
    );
    assert_eq!(
        of_partition(&later, "lowwater_partition_holding", 3),
        Some(1.0)
    );
    for p in 0..3 {
        assert_eq!(
            of_partition(&later, "lowwater_partition_holding", p),
            Some(0.0)
        );
        assert!(
            of_partition(&later, "lowwater_partition_silence_seconds", p).is_some_and(|v| v < 2.0),
            "partition {p} keeps receiving records"
        );
        assert!(of_partition(&later, "lowwater_partition_watermark_milliseconds", p).is_some());
        assert_eq!(
            of_partition(&later, "lowwater_partition_future_records_total", p),
            Some(0.0),
            "no record is dated in the future"
        );
    }
    assert_eq!(
        of_partition(&later, "lowwater_partition_watermark_milliseconds", 3),
        None,
        "MIN is never exported as a number"
    );
    assert_eq!(
        of_partition(&later, "lowwater_partition_records_total", 3),
        Some(0.0)
    );
    assert_eq!(
        of_partition(&later, "lowwater_partition_idle", 3),
        Some(0.0)
    );
    assert_eq!(of_sink(&later, "lowwater_sink_rows_total"), Some(0.0));
    // No window fires: their states pile up, and so does their size.
    let piled = job.scrape_until("at least 10 open (window, key) states", |s| {
        of_sink(s, "lowwater_job_open_windows").is_some_and(|v| v >= 10.0)
    });
    let bytes = of_sink(&piled, "lowwater_job_state_bytes").unwrap_or(0.0);
    let open = of_sink(&piled, "lowwater_job_open_windows").unwrap_or(0.0);
    assert!(
        bytes >= open * 64.0,
        "{bytes} bytes for {open} open (window, key) states"
    );
    assert!(of_sink(&later, "lowwater_sink_freshness_seconds").is_some_and(|v| v > 1.0));
    assert_eq!(
        of_sink(&later, "lowwater_sink_max_staleness_seconds"),
        Some(3.0)
    );
    assert_eq!(
        of_sink(&later, "lowwater_sink_max_emission_lag_seconds"),
        Some(60.0)
    );
    assert_eq!(
        of_sink(&later, "lowwater_job_watermark_milliseconds"),
        None,
        "the job watermark is MIN"
    );
    // A health check says why it fails; the job is still ready.
    let (code, body) = job.get_status("/healthz");
    assert_eq!(code, 503, "{body}");
    assert!(
        body.starts_with("stalled: INSERT INTO counts for ")
            && body.contains("partition 3 of clicks"),
        "{body}"
    );
    assert_eq!(job.get_status("/ready"), (200, "ready\n".to_string()));
    // /api and /api/v1 say what there is, instead of an empty 404.
    for path in ["/api", "/api/v1"] {
        let (code, body) = job.get_status(path);
        assert_eq!(code, 200, "{path}");
        assert!(
            body.contains("\"/api/v1/watermarks\"") && body.contains("\"/metrics\""),
            "{body}"
        );
    }
    // Samples come in partition order; the build is labelled.
    let text = job.get("/metrics");
    let order: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("lowwater_partition_records_total{"))
        .filter_map(|l| l.split("partition=\"").nth(1)?.split('"').next())
        .collect();
    assert_eq!(order, ["0", "1", "2", "3"], "{text}");
    assert!(
        text.contains(&format!(
            "lowwater_build_info{{version=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION")
        )),
        "{text}"
    );
    // The sink's staleness SLO breaks after 3 s without a row.
    job.scrape_until("the stale flag of sink counts (no row for 3 s)", |s| {
        of_sink(s, "lowwater_sink_stale") == Some(1.0)
    });

    // The JSON API names the same partition, with the stall's reason.
    let api: sonic_rs::Value = sonic_rs::from_str(&job.get("/api/v1/watermarks")).expect("JSON");
    let parts = api["partitions"].as_array().expect("partitions");
    assert_eq!(parts.len(), 4);
    let holding: Vec<i64> = parts
        .iter()
        .filter(|p| p["holding"].as_bool() == Some(true))
        .filter_map(|p| p["partition"].as_i64())
        .collect();
    assert_eq!(holding, vec![3]);
    let stall = &api["inserts"][0]["stall"];
    assert_eq!(stall["held_by"]["partition"].as_i64(), Some(3));
    assert!(
        stall["reason"]
            .as_str()
            .is_some_and(|r| r.contains("partition 3 of clicks")),
        "{stall:?}"
    );
    assert_eq!(api["sinks"][0]["stale"].as_bool(), Some(true));

    // `lowwater status` prints the table with the holder marked, and exits
    // 1: the job is stalled (a health check).
    let o = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["status", "--url", &job.url])
        .output()
        .expect("status");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // --json prints the API's answer; the scheme may be left out.
    let bare = job.url.trim_start_matches("http://");
    let j = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["status", "--json", "--url", bare])
        .output()
        .expect("status --json");
    assert_eq!(
        j.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&j.stderr)
    );
    let parsed: sonic_rs::Value =
        sonic_rs::from_slice(&j.stdout).expect("status --json prints JSON");
    assert!(parsed["inserts"][0]["stall"].is_object(), "{parsed:?}");
    let row3 = out
        .lines()
        .find(|l| l.starts_with("clicks  clicks  3"))
        .unwrap_or_else(|| panic!("partition 3's row: {out}"));
    assert!(row3.ends_with("<- holds the watermark"), "{out}");
    assert!(out.contains("STALLED for"), "{out}");
    assert_eq!(out.matches("<- holds the watermark").count(), 1, "{out}");

    let log = job.stop();
    assert!(log.contains("sink counts is stale"), "{log}");
}

#[test]
fn with_an_idle_timeout_the_idle_flag_flips_and_windows_are_emitted() {
    let d = dir("idle");
    // Windows end 200 ms before the watermark passes them and fire on the
    // next periodic watermark: every one is later than a 100 ms SLO.
    let job = start(&job(
        &d,
        "idle",
        ", 'scan.watermark.idle-timeout' = '3 s'",
        "100 ms",
    ));
    let first = job.scrape();
    // Scraped as soon as HTTP answers, well before the 3 s idle timeout
    // passes (1 s failed 1 run in 5 under load: the debug build started
    // too slowly to see the partition active).
    assert_eq!(
        of_partition(&first, "lowwater_partition_idle", 3),
        Some(0.0),
        "partition 3 is active at the first scrape, before its 3 s idle timeout"
    );
    // Rows are written before each window subtask publishes the watermark
    // that fired them (and the job watermark is the minimum over the
    // subtasks): wait for both, not for a scrape between the two.
    let later = job.scrape_until(
        "partition 3 to go idle, rows to be written and the job watermark to be published",
        |s| {
            of_partition(s, "lowwater_partition_idle", 3) == Some(1.0)
                && of_sink(s, "lowwater_sink_rows_total").is_some_and(|v| v > 0.0)
                && of_sink(s, "lowwater_job_watermark_milliseconds").is_some()
        },
    );
    assert_eq!(
        of_partition(&later, "lowwater_partition_holding", 3),
        Some(0.0)
    );
    // Window rows were observed in the emission-lag histogram, under the SLO.
    let count = later
        .samples
        .iter()
        .find(|s| s.metric == "lowwater_sink_emission_lag_seconds_count")
        .map(value);
    let histogram = later
        .samples
        .iter()
        .find(|s| s.metric == "lowwater_sink_emission_lag_seconds");
    let observed = count.or_else(|| {
        histogram.and_then(|h| match &h.value {
            prometheus_parse::Value::Histogram(b) => b.last().map(|b| b.count),
            _ => None,
        })
    });
    assert!(observed.is_some_and(|n| n > 0.0), "{:?}", later.samples);
    // Window rows later than the SLO are counted (every one here; read
    // apart from the row count, so only "some" is exact).
    assert!(
        of_sink(&later, "lowwater_sink_emission_lag_breaches_total").is_some_and(|b| b > 0.0),
        "window rows later than the 100 ms SLO are counted"
    );
    // Healthy: the idle partition holds nothing, no stall. The stall the
    // first 3 s opened ends at the monitor's next tick after the watermark
    // moved, which can come just after the scrape above (seen under load).
    let started = std::time::Instant::now();
    let mut health = job.get_status("/healthz");
    while health.0 != 200 && started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(100));
        health = job.get_status("/healthz");
    }
    assert_eq!(health, (200, "ok\n".to_string()));
    let log = job.stop();
    assert!(
        log.contains("window rows emitted more than 100ms after their window ended"),
        "{log}"
    );
}

/// Finds Debian's `chromium` (installed by .ci/run).
fn chromium() -> String {
    for c in ["chromium", "chromium-browser", "google-chrome"] {
        if Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return c.to_string();
        }
    }
    panic!("no chromium on PATH: install Debian's chromium package (.ci/run does)");
}

/// Runs headless Chromium (as the issue asks: no sandbox, no GPU, no
/// background networking) with its own profile and `args`.
fn headless(browser: &str, profile: &Path, args: &[&str]) -> std::process::Output {
    Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            &format!("--user-data-dir={}", profile.display()),
        ])
        .args(args)
        .output()
        .expect("run chromium")
}

#[test]
fn the_web_page_shows_every_partition_and_highlights_the_holder_in_chromium() {
    let browser = chromium();
    let d = dir("page");
    let job = start(&job(&d, "page", "", "1 min"));
    // Wait until the stall is known, so the page has something to highlight.
    job.scrape_until("the INSERT's stall flag", |s| {
        of_sink(s, "lowwater_stall_active") == Some(1.0)
    });
    let profile = d.join("chromium-profile");
    let page = format!("{}/", job.url);
    let dom = headless(
        &browser,
        &profile,
        &["--virtual-time-budget=4000", "--dump-dom", &page],
    );
    let html = String::from_utf8_lossy(&dom.stdout).into_owned();
    assert!(
        html.contains("data-loaded=\"1\""),
        "the page rendered the API's answer: {}\n{html}",
        String::from_utf8_lossy(&dom.stderr)
    );
    for p in 0..4 {
        assert!(
            html.contains(&format!("data-partition=\"{p}\"")),
            "partition {p} has a row: {html}"
        );
    }
    let holding_row = html
        .split("<tr")
        .find(|r| r.contains("data-partition=\"3\""))
        .unwrap_or_default();
    assert!(
        holding_row.contains("holding"),
        "partition 3's row is highlighted: {holding_row}"
    );
    assert_eq!(
        html.split("<tr")
            .filter(|r| r.contains("class=\"holding"))
            .count(),
        1,
        "exactly one partition holds the watermark"
    );
    // The flight recorder's history names the hold (the stall follows it
    // within a second, after the page loaded).
    let held = html
        .split("<tr")
        .find(|r| r.contains("data-kind=\"held\""))
        .unwrap_or_default();
    assert!(
        held.contains("watermark held at MIN by partition 3 of clicks"),
        "the history shows the hold: {html}"
    );
    // The watermark is MIN (partition 3 never had a record): the chart
    // still shows the stall, as the time since the job started.
    let points: u64 = html
        .split("data-points=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        points >= 2,
        "the chart plots the MIN stall: {points} points"
    );
    // It updates: more than one successful refresh within the page's time.
    let refreshes: u64 = html
        .split("id=\"refreshes\">")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    assert!(refreshes >= 2, "the page refreshed {refreshes} times");
    // A screenshot, for people to look at (target/lowwater-page.png).
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lowwater-page.png");
    let o = headless(
        &browser,
        &profile,
        &[
            "--virtual-time-budget=3000",
            "--hide-scrollbars",
            "--window-size=1280,1000",
            &format!("--screenshot={}", shot.display()),
            &page,
        ],
    );
    assert!(
        shot.exists(),
        "screenshot written: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    job.stop();
}

#[test]
fn a_healthy_job_shows_its_holder_without_alarm_in_chromium() {
    let browser = chromium();
    let d = dir("page-healthy");
    let job = start(&job(
        &d,
        "page-healthy",
        ", 'scan.watermark.idle-timeout' = '1 s'",
        "1 min",
    ));
    job.scrape_until(
        "partition 3 to go idle and rows to be written with no stall",
        |s| {
            of_partition(s, "lowwater_partition_idle", 3) == Some(1.0)
                && of_sink(s, "lowwater_sink_rows_total").is_some_and(|v| v > 0.0)
                && of_sink(s, "lowwater_stall_active") == Some(0.0)
        },
    );
    let dom = headless(
        &browser,
        &d.join("chromium-profile"),
        &[
            "--virtual-time-budget=3000",
            "--dump-dom",
            &format!("{}/", job.url),
        ],
    );
    let html = String::from_utf8_lossy(&dom.stdout).into_owned();
    assert!(html.contains("data-loaded=\"1\""), "{html}");
    assert!(
        html.contains("No stall: no watermark has stood still longer than the stall threshold (")
            && html.contains("), and none is held again and again."),
        "{html}"
    );
    assert!(
        !html.contains("class=\"holding"),
        "no row is highlighted while healthy: {html}"
    );
    assert!(
        html.split("<tr").any(|r| r.contains("class=\"holder")),
        "the slowest partition is marked, neutrally: {html}"
    );
    job.stop();
}

#[test]
fn checkpoints_are_counted_in_metrics_the_api_and_status() {
    let d = dir("checkpoints");
    let plain = std::fs::read_to_string(job(&d, "plain", "", "1 min")).expect("job");
    let path = d.join("ck.sql");
    let settings = format!(
        "SET 'execution.checkpointing.interval' = '200 ms';\nSET 'execution.checkpointing.dir' = '{}';\n",
        d.join("ck").display()
    );
    std::fs::write(&path, settings + &plain).expect("job");
    let job = start(&path);
    let s = job.scrape_until("two completed checkpoints", |s| {
        s.samples
            .iter()
            .any(|x| x.metric == "lowwater_checkpoints_completed_total" && value(x) >= 2.0)
    });
    let one = |m: &str| s.samples.iter().find(|x| x.metric == m).map(value);
    assert!(one("lowwater_checkpoint_last_size_bytes").is_some_and(|b| b > 0.0));
    assert!(one("lowwater_checkpoint_last_age_seconds").is_some_and(|a| (0.0..5.0).contains(&a)));
    assert!(one("lowwater_checkpoint_last_duration_seconds").is_some_and(|d| d < 5.0));
    assert_eq!(one("lowwater_checkpoints_failed_total"), Some(0.0));
    let api: sonic_rs::Value = sonic_rs::from_str(&job.get("/api/v1/watermarks")).expect("JSON");
    let c = api.get("checkpoints").expect("checkpoints");
    assert_eq!(c.get("enabled").and_then(|v| v.as_bool()), Some(true));
    assert!(c
        .get("last_id")
        .and_then(|v| v.as_u64())
        .is_some_and(|id| id >= 2));
    let status = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["status", "--url", &job.url])
        .output()
        .expect("status runs");
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(
        text.contains("checkpoints: ") && text.contains(" completed, 0 failed; last "),
        "{text}"
    );
    let log = job.stop();
    assert!(log.contains("final checkpoint"), "{log}");
}

/// Issue 37 item 8, the flight recorder: partition 3 holds the watermark
/// (it never produces) until its 3 s idle timeout makes it idle; the
/// recorder keeps the hold, the idle flip and the release, serves them at
/// `/api/v1/history`, `lowwater status --history` prints them, and after a
/// restart (its file is beside the checkpoints) they are still there.
#[test]
fn the_flight_recorder_says_who_held_the_watermark_after_the_fact_and_across_a_restart() {
    let d = dir("flight");
    let plain = std::fs::read_to_string(job(
        &d,
        "plain",
        ", 'scan.watermark.idle-timeout' = '3 s'",
        "1 min",
    ))
    .expect("job");
    let path = d.join("flight.sql");
    let settings = format!(
        "SET 'execution.checkpointing.interval' = '500 ms';\nSET 'execution.checkpointing.dir' = '{}';\n",
        d.join("ck").display()
    );
    std::fs::write(&path, settings + &plain).expect("job");
    let kinds = |job: &Running| -> Vec<(String, Option<i64>, i64)> {
        let v: sonic_rs::Value = sonic_rs::from_str(&job.get("/api/v1/history")).expect("JSON");
        v["events"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|e| {
                        (
                            e["kind"].as_str().unwrap_or_default().to_string(),
                            e["partition"].as_i64(),
                            e["t"].as_i64().unwrap_or_default(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let job = start(&path);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut seen = kinds(&job);
    while !seen.iter().any(|(k, _, _)| k == "released") && std::time::Instant::now() < deadline {
        // Paces the polling (the job's own time passes meanwhile).
        std::thread::sleep(std::time::Duration::from_millis(250));
        seen = kinds(&job);
    }
    // The job's stall threshold is the idle timeout (3 s): whether the
    // recorder, looking once a second, sees the short stall before the idle
    // flip ends it depends on where its looks fall; a stall it saw ends.
    let order: Vec<(&str, Option<i64>)> = seen
        .iter()
        .map(|(k, p, _)| (k.as_str(), *p))
        .filter(|(k, _)| !matches!(*k, "stalled" | "moving"))
        .collect();
    assert_eq!(
        order,
        vec![("held", Some(3)), ("idle", Some(3)), ("released", Some(3))],
        "{seen:?}"
    );
    let stalls = seen.iter().filter(|(k, _, _)| k == "stalled").count();
    let ends = seen.iter().filter(|(k, _, _)| k == "moving").count();
    assert_eq!(stalls, ends, "{seen:?}");
    let status = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["status", "--url", &job.url, "--history"])
        .output()
        .expect("status runs");
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(
        text.contains(
            "INSERT INTO counts: watermark held at MIN by partition 3 of clicks (subtask "
        ) && text.contains("partition 3 of clicks (subtask ")
            && text.contains(") went idle"),
        "{text}"
    );
    let log = job.stop();
    assert!(log.contains("final checkpoint"), "{log}");
    // The restarted job shows what the first run recorded.
    let again = start(&path);
    let after = kinds(&again);
    assert!(
        after.len() >= 3 && after[..3] == seen[..3],
        "{after:?} after {seen:?}"
    );
    again.stop();
}

/// Raises this process's open-file limit (its children inherit it) so that
/// the test can hold thousands of connections.
fn raise_open_files(want: u64) -> u64 {
    rlimit::increase_nofile_limit(want).unwrap_or(0)
}

#[test]
fn metrics_answer_while_two_thousand_idle_clients_are_connected() {
    let limit = raise_open_files(8_192);
    assert!(
        limit >= 4_500,
        "the test needs 4,500 open files, has {limit}"
    );
    let d = dir("idle-clients");
    let job = start(&job(&d, "idle", "", "10 s"));
    let addr = job.url.trim_start_matches("http://").to_string();
    let idle: Vec<std::net::TcpStream> = (0..2_000)
        .map(|_| std::net::TcpStream::connect(&addr).expect("connect"))
        .collect();
    let t = std::time::Instant::now();
    let scrape = job.scrape();
    assert!(
        !scrape.samples.is_empty() && t.elapsed() < std::time::Duration::from_secs(5),
        "scraped {} samples in {:?}",
        scrape.samples.len(),
        t.elapsed()
    );
    // An idle client is disconnected after the idle timeout (10 s): its
    // read ends instead of waiting forever.
    let mut first = &idle[0];
    first
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .expect("timeout");
    let t = std::time::Instant::now();
    let mut buf = [0u8; 64];
    let n = std::io::Read::read(&mut first, &mut buf).unwrap_or(0);
    assert!(
        n == 0 && t.elapsed() < std::time::Duration::from_secs(25),
        "the idle connection was closed ({n} bytes after {:?})",
        t.elapsed()
    );
    drop(idle);
    job.stop();
}

/// Issue 37 item 3, the past-side guard over HTTP: a producer writing
/// seconds where the table reads milliseconds moves the watermark in
/// 1970, so no stall opens; the partition is flagged in `/metrics` and
/// `/healthz` answers 503 naming it and what to write.
#[test]
fn event_times_in_seconds_are_flagged_in_metrics_and_health() {
    let d = dir("seconds");
    let path = d.join("seconds.sql");
    std::fs::write(
        &path,
        "CREATE TABLE events (epoch BIGINT, ts AS TO_TIMESTAMP_LTZ(epoch, 3),
           WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
         ) WITH ('connector' = 'datagen', 'rows-per-second' = '20',
           'fields.epoch.kind' = 'sequence', 'fields.epoch.start' = '1757851200',
           'fields.epoch.end' = '1757861200');
         CREATE TABLE counts (window_start TIMESTAMP(3), cnt BIGINT)
           WITH ('connector' = 'blackhole');
         INSERT INTO counts SELECT window_start, COUNT(*)
           FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
           GROUP BY window_start, window_end;",
    )
    .expect("job");
    let job = start(&path);
    job.scrape_until("the partition flagged as writing seconds", |s| {
        of_partition(s, "lowwater_partition_implausible_time", 0) == Some(1.0)
    });
    let (code, body) = job.get_status("/healthz");
    assert_eq!(code, 503, "{body}");
    assert!(
        body.contains("implausible event times: ")
            && body.contains("its producer writes seconds")
            && body.contains("TO_TIMESTAMP_LTZ(ts, 0)"),
        "{body}"
    );
    job.stop();
}
