//! Window deduplication under kill -9, Kafka -> lowwater -> Kafka with an
//! exactly-once sink: the first click of each user in each 2-second window
//! (`ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id
//! ORDER BY ts) ... WHERE rn = 1`), while a producer writes 4 partitions.
//! The job is killed with kill -9 at random moments after checkpoints and
//! started again with the same command each time; the committed output
//! then holds each (window, user)'s first click once, and nothing else.
//! `LOWWATER_CHAOS_KILLS` sets the number of kills (6 by default; the long
//! form is 24).

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sonic_rs::JsonValueTrait;

mod common;
use common::chaos::*;
use common::BOOTSTRAP;

/// (window start, user) -> the event time of the first click.
fn first_clicks(
    per_partition: i64,
    partitions: i64,
    window: i64,
    upto: i64,
) -> BTreeMap<(i64, String), i64> {
    let mut e = BTreeMap::new();
    for p in 0..partitions {
        for i in 0..per_partition {
            let (ts, user) = record(i, p);
            let start = ts - ts.rem_euclid(window);
            if start + window <= upto {
                let first = e.entry((start, user)).or_insert(ts);
                *first = (*first).min(ts);
            }
        }
    }
    e
}

#[test]
fn window_deduplication_is_exact_after_kill_9_with_exactly_once_output() {
    let (dir, id, input, output) = kafka_scratch("dedup", 4);
    let ck = dir.join("ck");
    let job = dir.join("job.sql");
    std::fs::write(
        &job,
        format!(
            "SET 'execution.checkpointing.interval' = '300 ms';
SET 'execution.checkpointing.dir' = '{ck}';
CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
  'properties.group.id' = 'dedup-{id}', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE first_clicks (window_start TIMESTAMP(3), user_id STRING, ts TIMESTAMP(3))
WITH ('connector' = 'kafka', 'topic' = '{output}', 'properties.bootstrap.servers' = '{BOOTSTRAP}',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'dedup-{id}');
INSERT INTO first_clicks SELECT window_start, user_id, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id ORDER BY ts) AS rn
  FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '2' SECOND))
) WHERE rn = 1;
",
            ck = s(&ck)
        ),
    )
    .expect("job");
    let kills: usize = std::env::var("LOWWATER_CHAOS_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    let per_partition = 500 * (kills as i64 + 2);
    let start = || {
        Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(["run", s(&job)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn lowwater")
    };
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15 ^ u64::from(id);
    let ck_job = ck.join("job");
    kill_while_producing(&start, (&input, per_partition), (&ck_job, kills, &mut seed));
    let want = first_clicks(per_partition, 4, 2000, BASE + 86_400_000);
    let parse = |r: &String| -> ((i64, String), i64) {
        let v: sonic_rs::Value = sonic_rs::from_str(r).expect("a JSON row");
        let ts = |f: &str| {
            lowwater_core::time::parse_timestamp(v.get(f).and_then(|x| x.as_str()).unwrap_or(""))
                .unwrap_or_else(|| panic!("{f} in {r}"))
        };
        let user = v
            .get("user_id")
            .and_then(|x| x.as_str())
            .unwrap_or("")
            .to_string();
        ((ts("window_start"), user), ts("ts"))
    };
    let mut job = start();
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut rows = consume(&output);
    while rows.len() < want.len() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        rows = consume(&output);
    }
    assert!(sigterm(&mut job).success());
    let committed = consume_with(&output, "read_committed");
    let mut got: BTreeMap<(i64, String), i64> = BTreeMap::new();
    for r in &committed {
        let (k, ts) = parse(r);
        assert!(got.insert(k.clone(), ts).is_none(), "{k:?} written twice");
    }
    let missing = want.keys().filter(|k| !got.contains_key(*k)).count();
    assert_eq!(missing, 0, "{missing} of {} windows missing", want.len());
    assert_eq!(got, want, "each window's first click, exactly");
    eprintln!(
        "{kills} kills: {} (window, user) first clicks exactly once",
        want.len()
    );
}
