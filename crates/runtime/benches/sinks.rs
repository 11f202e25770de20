//! Sink throughput: the same job writing about one row per input record
//! (`TUMBLE(1 s)` per user over JSON files, 5,000 users 3 ms apart: each
//! record is a window of its own, 200,000 records give 200,000 rows) to
//! each sink, alternated, best of 3, side by side:
//!
//! - blackhole (the job without a sink's cost),
//! - Kafka (a 4-partition topic, at-least-once),
//! - PostgreSQL without a primary key (append: multi-row INSERTs),
//! - PostgreSQL with one (upsert: INSERT ... ON CONFLICT DO UPDATE),
//!   into an empty table and over the rows of the run before (every row an
//!   update),
//! - the upsert with `sink.buffer-flush.max-rows` at 100 (Flink's default),
//!   1,000 and 5,000.
//!
//! Each run checks that its rows all arrived (counted in the table, or read
//! back from the topic's end offsets). Figures: rows per second (wall), and
//! lowwater's CPU seconds (the server's CPU is its own process's).
//!
//! Needs the local broker and server: `scripts/kafka.sh start`,
//! `scripts/postgres.sh start` (the bench starts both).
//! `cargo bench -p lowwater-runtime --bench sinks` (RECORDS=n to change
//! the size, RUNS=n the runs per variant).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lowwater_runtime::{run, RunArgs};
use lowwater_sql::plan::JobPlan;

mod common;
use common::{best, runs};
#[path = "../../core/benches/proc/mod.rs"]
mod proc_stat;
use proc_stat::{cpu_seconds, env_num};

const BASE: i64 = 1_757_808_000_000;

fn script(name: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scripts/{name}.sh"));
    let ok = std::process::Command::new("bash")
        .arg(path)
        .arg("start")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "scripts/{name}.sh start failed");
}

fn bootstrap() -> String {
    format!(
        "127.0.0.1:{}",
        std::env::var("KAFKA_PORT").unwrap_or_else(|_| "19092".into())
    )
}

fn pg() -> postgres::Client {
    postgres::Config::new()
        .host("127.0.0.1")
        .port(15432)
        .user("lowwater")
        .password("lowwater-secret")
        .dbname("lowwater")
        .connect(postgres::NoTls)
        .expect("the local PostgreSQL (scripts/postgres.sh)")
}

/// `n` records in 2 files: user `u{i % 5000}`, 3 ms apart.
fn input(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lowwater-sink-bench-{n}"));
    if dir.join("done").exists() {
        return dir;
    }
    std::fs::create_dir_all(&dir).expect("dir");
    for part in 0..2 {
        let mut text = String::new();
        for i in (part..n).step_by(2) {
            let ts = lowwater_core::time::format_timestamp(BASE + i as i64 * 3, ' ');
            text.push_str(&format!(
                "{{\"user_id\":\"u{}\",\"ts\":\"{ts}\"}}\n",
                i % 5_000
            ));
        }
        std::fs::write(dir.join(format!("part-{part}.json")), text).expect("input");
    }
    std::fs::write(dir.join("done"), "").expect("marker");
    dir
}

fn job(input: &Path, sink: &str, pk: bool) -> JobPlan {
    let (key, tail) = match pk {
        true => (
            ", PRIMARY KEY (window_start, user_id) NOT ENFORCED",
            " ON CONFLICT DO DEDUPLICATE",
        ),
        false => ("", ""),
    };
    let sql = format!(
        "CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'json');
CREATE TABLE out (window_start TIMESTAMP(3), user_id STRING, n BIGINT{key}) WITH ({sink});
INSERT INTO out SELECT window_start, user_id, COUNT(*) FROM
TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id{tail};",
        input.display()
    );
    JobPlan::from_sql(&sql).expect("the bench job plans")
}

fn jdbc(table: &str, max_rows: usize) -> String {
    format!(
        "'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:15432/lowwater', \
         'table-name' = '{table}', 'username' = 'lowwater', 'password' = 'lowwater-secret', \
         'sink.buffer-flush.max-rows' = '{max_rows}'"
    )
}

/// Rows in `topic` (the sum of its partitions' end offsets).
fn topic_rows(topic: &str) -> u64 {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    let c: BaseConsumer = rdkafka::config::ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .expect("consumer");
    (0..4)
        .map(|p| {
            c.fetch_watermarks(topic, p, Duration::from_secs(10))
                .map_or(0, |(_, h)| h as u64)
        })
        .sum()
}

struct Variant {
    name: &'static str,
    /// The sink's options, for run `r`.
    sink: Box<dyn Fn(usize) -> String>,
    pk: bool,
    /// Set-up before run `r` (a fresh table or topic), and the rows the
    /// sink holds after it.
    before: Box<dyn Fn(usize)>,
    rows: Box<dyn Fn(usize) -> u64>,
}

fn main() {
    script("kafka");
    script("postgres");
    let n = env_num("RECORDS", 200_000);
    let rounds = env_num("RUNS", 3);
    let input = input(n);
    let id = std::process::id();
    let mut c = pg();
    c.batch_execute(&format!(
        "DROP SCHEMA IF EXISTS bench_{id} CASCADE; CREATE SCHEMA bench_{id};"
    ))
    .expect("schema");
    let table = move |name: &str, r: usize| format!("bench_{id}.{name}_{r}");
    let create = move |name: &'static str, pk: bool, keep: bool| -> Box<dyn Fn(usize)> {
        Box::new(move |r| {
            let key = if pk {
                ", PRIMARY KEY (window_start, user_id)"
            } else {
                ""
            };
            let t = table(name, if keep { 0 } else { r });
            let drop = if keep {
                String::new()
            } else {
                format!("DROP TABLE IF EXISTS {t}; ")
            };
            pg().batch_execute(&format!(
                "{drop}CREATE TABLE IF NOT EXISTS {t} (window_start timestamp(3), user_id text, n bigint{key})"
            ))
            .expect("table");
        })
    };
    let rows_in = move |name: &'static str, keep: bool| -> Box<dyn Fn(usize) -> u64> {
        Box::new(move |r| {
            let t = table(name, if keep { 0 } else { r });
            pg().query_one(&format!("SELECT count(*) FROM {t}"), &[])
                .map_or(0, |row| row.get::<_, i64>(0) as u64)
        })
    };
    let bs = bootstrap();
    let variants: Vec<Variant> = vec![
        Variant {
            name: "blackhole",
            sink: Box::new(|_| "'connector' = 'blackhole'".into()),
            pk: false,
            before: Box::new(|_| {}),
            rows: Box::new(|_| 0),
        },
        Variant {
            name: "kafka (4 partitions, at-least-once)",
            sink: Box::new(move |r| {
                format!(
                    "'connector' = 'kafka', 'topic' = 'sink-bench-{id}-{r}', \
                     'properties.bootstrap.servers' = '{bs}', 'format' = 'json'"
                )
            }),
            pk: false,
            before: Box::new(move |r| {
                lowwater_kafka::create_topic(&bootstrap(), &format!("sink-bench-{id}-{r}"), 4)
                    .expect("topic")
            }),
            rows: Box::new(move |r| topic_rows(&format!("sink-bench-{id}-{r}"))),
        },
        Variant {
            name: "postgres append, max-rows 1000",
            sink: Box::new(move |r| jdbc(&table("append", r), 1000)),
            pk: false,
            before: create("append", false, false),
            rows: rows_in("append", false),
        },
        Variant {
            name: "postgres upsert (inserts), max-rows 1000",
            sink: Box::new(move |r| jdbc(&table("upsert", r), 1000)),
            pk: true,
            before: create("upsert", true, false),
            rows: rows_in("upsert", false),
        },
        Variant {
            name: "postgres upsert (updates), max-rows 1000",
            sink: Box::new(move |_| jdbc(&table("updates", 0), 1000)),
            pk: true,
            before: create("updates", true, true),
            rows: rows_in("updates", true),
        },
        Variant {
            name: "postgres upsert (inserts), max-rows 100 (Flink's default)",
            sink: Box::new(move |r| jdbc(&table("upsert100", r), 100)),
            pk: true,
            before: create("upsert100", true, false),
            rows: rows_in("upsert100", false),
        },
        Variant {
            name: "postgres upsert (inserts), max-rows 5000",
            sink: Box::new(move |r| jdbc(&table("upsert5000", r), 5000)),
            pk: true,
            before: create("upsert5000", true, false),
            rows: rows_in("upsert5000", false),
        },
    ];
    // The "updates" table holds the rows of one run before it is timed.
    let mut times: Vec<Vec<(f64, f64)>> = vec![Vec::new(); variants.len()];
    let mut written = vec![0u64; variants.len()];
    for r in 0..rounds {
        for (v, variant) in variants.iter().enumerate() {
            (variant.before)(r);
            if variant.name.contains("updates") && r == 0 {
                let plan = job(&input, &(variant.sink)(r), variant.pk);
                run(&plan, &RunArgs::default()).expect("fills the table");
            }
            let plan = job(&input, &(variant.sink)(r), variant.pk);
            let cpu = cpu_seconds();
            let t0 = Instant::now();
            let out = run(&plan, &RunArgs::default()).expect("runs");
            let secs = t0.elapsed().as_secs_f64();
            let cpu = cpu_seconds() - cpu;
            assert_eq!(
                out.report.totals.records_in as usize, n,
                "read every record"
            );
            let rows = out.report.totals.records_out;
            if variant.name != "blackhole" {
                assert_eq!(
                    (variant.rows)(r),
                    rows,
                    "{}: every row in the sink",
                    variant.name
                );
            }
            written[v] = rows;
            times[v].push((secs, cpu));
        }
    }
    println!(
        "sinks: {n} records -> {} rows each, best of {rounds} (wall s; lowwater CPU s)",
        written[0]
    );
    let base = best(&times[0].iter().map(|t| t.0).collect::<Vec<_>>());
    for (v, variant) in variants.iter().enumerate() {
        let walls: Vec<f64> = times[v].iter().map(|t| t.0).collect();
        let cpus: Vec<f64> = times[v].iter().map(|t| t.1).collect();
        let w = best(&walls);
        println!(
            "  {:<58} {:>9.0} rows/s  wall {:.2} s (x{:.2} blackhole's)  CPU {:.2} s  [{}]",
            variant.name,
            written[v] as f64 / w,
            w,
            w / base,
            best(&cpus),
            runs(&walls)
        );
    }
    let _ = c.batch_execute(&format!("DROP SCHEMA IF EXISTS bench_{id} CASCADE"));
}
