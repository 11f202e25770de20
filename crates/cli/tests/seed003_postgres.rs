//! Seed 003 end to end, live: stock levels on a real Kafka topic (4
//! partitions, one of which goes quiet), `examples/seed003_postgres`'s job
//! upserting stock-out alerts into `gold.stock_out_alerts` on a real
//! PostgreSQL, and the seed's two checks run on that table: freshness
//! (`max(alerted_at)`) and emission lag (`max(alerted_at - event_ts)`).
//!
//! The example's minutes become seconds here, in the same ratios (2 s
//! windows, 1 s out-of-orderness, 1 s idle timeout; max-staleness 10 s,
//! past the stall monitor's 3 windows as 5 minutes are in the example;
//! max-emission-lag 4 s); everything else is the example's text.
//!
//! - `job.sql` (no idle timeout): while the quiet partition holds the
//!   watermark the table gets no row, and lowwater warns that the sink is
//!   stale, naming the partition; when the partition speaks again the held
//!   alerts arrive in one burst, the lag query shows the stall, and
//!   lowwater reports the rows over `lowwater.sink.max-emission-lag`.
//! - `job_idle_timeout.sql` (the seed's fix): alerts keep coming while the
//!   partition is quiet, fresh and within the SLO, and lowwater warns of
//!   nothing.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rdkafka::producer::{BaseRecord, Producer};

mod common;

use common::chaos::sigterm;
use common::postgres::{client, spawn};
use common::{kafka_scratch, producer, sql_ts, BOOTSTRAP};

fn example(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/seed003_postgres")
        .join(name);
    std::fs::read_to_string(path).expect("the example")
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as i64
}

/// The example job `file`, at test scale, reading `topic` and writing the
/// schema `schema`.
fn job(dir: &Path, file: &str, topic: &str, schema: &str) -> std::path::PathBuf {
    let sql = example(file)
        .replace("INTERVAL '1' MINUTE", "INTERVAL '2' SECOND")
        .replace("INTERVAL '30' SECOND", "INTERVAL '1' SECOND")
        .replace(
            "'table.exec.source.idle-timeout' = '1 min'",
            "'table.exec.source.idle-timeout' = '1 s'",
        )
        .replace(
            "'lowwater.sink.max-staleness' = '5 min'",
            "'lowwater.sink.max-staleness' = '10 s'",
        )
        .replace(
            "'lowwater.sink.max-emission-lag' = '2 min'",
            "'lowwater.sink.max-emission-lag' = '4 s'",
        )
        .replace("'topic' = 'stock_changes'", &format!("'topic' = '{topic}'"))
        .replace("'inventory_alerts'", &format!("'{topic}'"))
        .replace("127.0.0.1:19092", &BOOTSTRAP)
        .replace(
            "gold.stock_out_alerts",
            &format!("{schema}.stock_out_alerts"),
        );
    assert!(
        sql.contains("INTERVAL '2' SECOND") && sql.contains(schema),
        "{sql}"
    );
    let path = dir.join(file);
    std::fs::write(&path, sql).expect("job");
    path
}

/// Every 100 ms, a stock change (its event time: now) on partitions 0-2,
/// each SKU reaching 0 every few changes; partition 3 (slow-moving SKUs)
/// gets one change at the start, then nothing until `stop`.
fn produce(topic: &str, stop: &AtomicBool) {
    let p = producer();
    let send = |partition: i32, sku: &str, qty: i64| {
        let payload = format!(
            r#"{{"sku":"{sku}","available_qty":{qty},"changed_at":"{}"}}"#,
            sql_ts(now_ms())
        );
        let rec = BaseRecord::<(), str>::to(topic)
            .partition(partition)
            .payload(&payload);
        p.send(rec).expect("send");
    };
    send(3, "slow-1", 7);
    let mut tick = 0i64;
    while !stop.load(Ordering::SeqCst) {
        for partition in 0..3 {
            let sku = format!("p{partition}-{}", tick % 3);
            send(partition, &sku, (tick / 3) % 4);
        }
        p.poll(Duration::ZERO);
        tick += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    p.flush(Duration::from_secs(10)).expect("flush");
}

/// Sets `stop` when dropped: a failed assertion ends the producer too.
struct Stop<'a>(&'a AtomicBool);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Polls `probe` every 100 ms until it is true or `secs` pass.
fn until(secs: u64, mut probe: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if probe() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    probe()
}

/// The seed's checks on the table: (rows, seconds since the newest
/// alert, the worst emission lag in seconds).
fn checks(c: &mut postgres::Client, schema: &str) -> (i64, Option<f64>, Option<f64>) {
    let table = format!("{schema}.stock_out_alerts");
    let row = c
        .query_one(
            &format!(
                "SELECT count(*), extract(epoch from now() - max(alerted_at))::float8,
                        extract(epoch from max(alerted_at - event_ts))::float8 FROM {table}"
            ),
            &[],
        )
        .expect("the seed's queries");
    (row.get(0), row.get(1), row.get(2))
}

fn setup(name: &str) -> (std::path::PathBuf, String, String, postgres::Client) {
    let (dir, id) = kafka_scratch(name);
    let topic = format!("{name}-{id}");
    common::create_topic(&topic, 4);
    let schema = format!("gold_{name}_{id}").replace('-', "_");
    let mut c = client();
    c.batch_execute(&format!(
        "DROP SCHEMA IF EXISTS {schema} CASCADE; {}",
        example("schema.sql").replace("gold", &schema)
    ))
    .expect("schema.sql");
    (dir, topic, schema, c)
}

#[test]
fn without_the_idle_timeout_the_table_stalls_and_both_checks_show_it() {
    let (dir, topic, schema, mut c) = setup("seed3-stall");
    let log = dir.join("stall.log");
    let mut job = spawn(&job(&dir, "job.sql", &topic, &schema), &log);
    let text = || std::fs::read_to_string(&log).unwrap_or_default();
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let producing = scope.spawn(|| produce(&topic, &stop));
        let _stop = Stop(&stop);
        // The quiet partition holds every window: lowwater says the sink
        // is stale and why, while the table has no row.
        assert!(until(40, || text().contains("is stale")), "{}", text());
        let stale = text();
        assert!(
            stale.contains("sink stock_out_alerts is stale") && stale.contains("partition 3"),
            "{stale}"
        );
        let (rows, fresh, _) = checks(&mut c, &schema);
        assert_eq!((rows, fresh), (0, None), "freshness: no alert at all");
        // The partition speaks again: the held windows fire at once.
        let p = producer();
        let payload = format!(
            r#"{{"sku":"slow-1","available_qty":6,"changed_at":"{}"}}"#,
            sql_ts(now_ms())
        );
        p.send(
            BaseRecord::<(), str>::to(&topic)
                .partition(3)
                .payload(&payload),
        )
        .expect("send");
        p.flush(Duration::from_secs(10)).expect("flush");
        assert!(until(30, || checks(&mut c, &schema).0 > 3), "{}", text());
        stop.store(true, Ordering::SeqCst);
        producing.join().expect("producer");
    });
    let (rows, _, lag) = checks(&mut c, &schema);
    let lag = lag.unwrap_or_default();
    // The oldest held alert waited the whole stall (3 s of staleness and
    // more), beyond the 4 s SLO.
    assert!(lag > 4.0, "emission lag {lag} s over {rows} rows");
    assert!(
        until(15, || text().contains("lowwater.sink.max-emission-lag")),
        "{}",
        text()
    );
    assert!(sigterm(&mut job.0).success(), "{}", text());
    eprintln!("stalled: {rows} alerts after the partition woke, worst emission lag {lag:.1} s");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn with_the_idle_timeout_alerts_stay_fresh_while_the_partition_is_quiet() {
    let (dir, topic, schema, mut c) = setup("seed3-fixed");
    let log = dir.join("fixed.log");
    let mut job = spawn(&job(&dir, "job_idle_timeout.sql", &topic, &schema), &log);
    let text = || std::fs::read_to_string(&log).unwrap_or_default();
    let stop = AtomicBool::new(false);
    let windows = |c: &mut postgres::Client| -> i64 {
        c.query_one(
            &format!("SELECT count(DISTINCT event_ts) FROM {schema}.stock_out_alerts"),
            &[],
        )
        .map(|r| r.get(0))
        .unwrap_or(0)
    };
    std::thread::scope(|scope| {
        let producing = scope.spawn(|| produce(&topic, &stop));
        let _stop = Stop(&stop);
        // Four windows' alerts (8 s) while partition 3 stays quiet.
        assert!(until(60, || windows(&mut c) >= 4), "{}", text());
        let (rows, fresh, lag) = checks(&mut c, &schema);
        let (fresh, lag) = (fresh.unwrap_or(f64::MAX), lag.unwrap_or(f64::MAX));
        assert!(fresh < 3.0, "freshness: newest alert {fresh} s old");
        assert!(lag < 4.0, "emission lag {lag} s over {rows} rows");
        stop.store(true, Ordering::SeqCst);
        producing.join().expect("producer");
        eprintln!("fixed: {rows} alerts, newest {fresh:.1} s old, worst emission lag {lag:.1} s");
    });
    assert!(sigterm(&mut job.0).success(), "{}", text());
    let log = text();
    assert!(
        !log.contains("is stale") && !log.contains("max-emission-lag"),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_example_file_plans_and_explain_names_the_sink() {
    for file in ["job.sql", "job_idle_timeout.sql", "live.sql"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/seed003_postgres")
            .join(file);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(["explain", path.to_str().expect("utf-8")])
            .output()
            .expect("explain");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains("jdbc: PostgreSQL table gold.stock_out_alerts on 127.0.0.1:15432/lowwater, upsert on (sku, event_ts)"),
            "{file}: {text}"
        );
        assert!(!text.contains("lowwater-secret"), "{file}");
    }
}
