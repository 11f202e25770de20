//! kill -9 chaos of a Kafka -> lowwater -> PostgreSQL job with a primary
//! key and checkpoints: while a producer writes, the job is killed at
//! random moments after checkpoints and restarted with the same command
//! each time; the table then equals the fault-free result, every row exact
//! (the rows written after the last checkpoint are written again with the
//! same values, over themselves: exactly once in effect).
//! `LOWWATER_PG_CHAOS_KILLS` sets the number of kills (20 by default; the
//! long form is 100).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

mod common;

use common::chaos::{expected, kafka_scratch, kill_while_producing, s, spawn_quiet, BASE};
use common::postgres::{client, jdbc_options, schema, PORT};
use common::BOOTSTRAP;

#[test]
fn kill_9_at_random_moments_leaves_the_table_of_the_fault_free_run() {
    let (dir, id, input, _) = kafka_scratch("pgchaos", 4);
    let kills: usize = std::env::var("LOWWATER_PG_CHAOS_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let sch = schema(
        "chaos",
        "CREATE TABLE {s}.counts (window_start timestamp(3), window_end timestamp(3),
           user_id text, n bigint, PRIMARY KEY (window_start, user_id));",
    );
    let table = format!("{sch}.counts");
    let sql = format!(
        "SET 'execution.checkpointing.interval' = '300 ms';
SET 'execution.checkpointing.dir' = '{}';
SET 'parallelism.default' = '2';
CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{}',
  'properties.group.id' = 'pgchaos-{id}', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE counts (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, n BIGINT,
  PRIMARY KEY (window_start, user_id) NOT ENFORCED)
WITH ({});
INSERT INTO counts SELECT window_start, window_end, user_id, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, user_id ON CONFLICT DO DEDUPLICATE;
",
        s(&dir.join("ck")),
        &*BOOTSTRAP,
        jdbc_options(PORT, &table, ", 'sink.buffer-flush.max-rows' = '50'")
    );
    let job = dir.join("job.sql");
    std::fs::write(&job, sql).expect("job");
    // 2,000 records/s over 4 partitions for about (kills / 2 + 2) seconds.
    let per_partition = 250 * (kills as i64 + 4);
    let start = || spawn_quiet(&job);
    let ck = dir.join("ck").join("job");
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d ^ u64::from(id);
    let begun = Instant::now();
    kill_while_producing(&start, (&input, per_partition), (&ck, kills, &mut seed));
    let killed = kills;
    // The last run reads to the end: the far record fires every window.
    let want = expected(per_partition, 4, 2000, BASE + 86_400_000);
    let mut job = start();
    let mut c = client();
    let read = |c: &mut postgres::Client| -> BTreeMap<(i64, String), i64> {
        c.query(
            &format!(
                "SELECT (extract(epoch from window_start) * 1000)::bigint, user_id, n FROM {table} \
                 WHERE window_end = window_start + interval '2 seconds'"
            ),
            &[],
        )
        .expect("rows")
        .iter()
        .map(|r| {
            (
                (r.get::<_, i64>(0), r.get::<_, String>(1)),
                r.get::<_, i64>(2),
            )
        })
        .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut rows = read(&mut c);
    while rows.len() < want.len() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        rows = read(&mut c);
    }
    job.kill().expect("stop");
    let _ = job.wait();
    // Every window of the data, each with its exact count, nothing else
    // (the far 'end' records' windows aside).
    let got: BTreeMap<(i64, String), i64> =
        rows.into_iter().filter(|((_, u), _)| u != "end").collect();
    assert_eq!(got.len(), want.len(), "windows in the table");
    let wrong: Vec<_> = want
        .iter()
        .filter(|(k, n)| got.get(*k) != Some(n))
        .take(5)
        .collect();
    assert!(wrong.is_empty(), "windows with another count: {wrong:?}");
    eprintln!(
        "{killed} kills in {:.1} s: {} windows exact in {table}",
        begun.elapsed().as_secs_f64(),
        want.len()
    );
}
