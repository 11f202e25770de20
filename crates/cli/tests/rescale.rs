//! A checkpoint restored at another parallelism (issue 34), the binary
//! crashed for real, each window checked against the exact count its input
//! gives:
//! - files: a job crashed at parallelism 3 right after a checkpoint,
//!   restored at 2 and crashed again, then restored at 1 to the end: every
//!   window is in the output with its count (at least once: a row written
//!   after the restored checkpoint is written again, identical);
//! - Kafka with an exactly-once sink, while a producer writes 16
//!   partitions: parallelism 8 -> 4 -> 16 -> 1 with kill -9 after a
//!   checkpoint in between; the committed output holds every window once.
//!
//! Tests wait on the process or on files and topics, bounded by deadlines.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

mod common;
use common::chaos::*;

/// The job of the chaos tests at parallelism `p`, in `dir`/job.sql (one
/// name for every parallelism: the checkpoints are found again).
fn write_job(dir: &Path, p: usize, settings: &str, source: &str, sink: &str, window: &str) {
    let settings = format!("SET 'parallelism.default' = '{p}';\n{settings}");
    let sql = job_sql(source, sink, &settings, window);
    std::fs::write(dir.join("job.sql"), sql).expect("job");
}

#[test]
fn a_crashed_file_job_restores_at_2_then_1_and_every_window_is_exact() {
    let dir = scratch("rescale-files");
    let (n, parts) = (80_000, 4);
    let input = write_input(&dir, n, parts);
    let ck = dir.join("ck");
    let (settings, source) = file_job(&ck, &input);
    let job = dir.join("job.sql");
    let run = |p: usize, out: &Path, failpoint: Option<&str>| {
        write_job(
            &dir,
            p,
            &settings,
            &source,
            "'connector' = 'blackhole'",
            "1",
        );
        let out = format!("counts={}", s(out));
        let env: Vec<(&str, &str)> = failpoint
            .map(|f| ("LOWWATER_FAILPOINT", f))
            .into_iter()
            .collect();
        lowwater(&["run", s(&job), "--output", &out], &env)
    };
    let outs: Vec<_> = (1..=3).map(|i| dir.join(format!("out{i}.jsonl"))).collect();
    let first = run(3, &outs[0], Some("after-checkpoint-write:3"));
    let err = String::from_utf8_lossy(&first.stderr);
    assert!(
        !first.status.success(),
        "the failpoint aborts the job: {err}"
    );
    let second = run(2, &outs[1], Some("after-checkpoint-write:6"));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        !second.status.success(),
        "the failpoint aborts the job: {err}"
    );
    assert!(
        err.contains("checkpoint 3: parallelism.default was 3, now 2")
            && err.contains("restoring checkpoint 3"),
        "{err}"
    );
    let last = run(1, &outs[2], None);
    let err = String::from_utf8_lossy(&last.stderr);
    assert!(last.status.success(), "{err}");
    assert!(
        err.contains("checkpoint 6: parallelism.default was 2, now 1"),
        "{err}"
    );
    let runs: Vec<Vec<String>> = outs.iter().map(|o| dump_payloads(o)).collect();
    assert!(
        runs.iter().all(|r| !r.is_empty()),
        "every run wrote windows (the crashes were mid-way): {:?}",
        runs.iter().map(Vec::len).collect::<Vec<_>>()
    );
    // Bounded input: at its end every window fires.
    let want = expected(n, parts, 1000, i64::MAX);
    let dup = assert_exact(&runs.concat(), &want);
    eprintln!(
        "{} windows exact, {dup} written again after a crash",
        want.len()
    );
}

#[test]
fn kafka_exactly_once_from_parallelism_8_to_4_to_16_to_1_under_kill_9() {
    let (dir, id, input, output) = kafka_scratch("rescale", 16);
    let eo = format!(
        ", 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'rescale-{id}'"
    );
    let start = |p: usize, log: &Path| -> Child {
        let parallelism = format!("SET 'parallelism.default' = '{p}';\n");
        let job = chaos_job_with(&dir, id, (&input, &output), &eo, &parallelism);
        spawn_logged(&job, log)
    };
    let ck = dir.join("ck").join("job");
    let steps = [8, 4, 16];
    // 4,000 records/s over 16 partitions for about 5 seconds.
    let per_partition = 1_250;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15 ^ u64::from(id);
    let logs: Vec<_> = (0..=steps.len())
        .map(|i| dir.join(format!("run{i}.log")))
        .collect();
    std::thread::scope(|scope| {
        let producer = scope.spawn(|| produce(&input, 16, per_partition, 4_000));
        for (i, &p) in steps.iter().enumerate() {
            // Two checkpoints: the first one's output is committed once
            // the second is taken, so the next run restores this one's.
            let seen = newest_id(&ck);
            let job = start(p, &logs[i]);
            let deadline = Instant::now() + Duration::from_secs(60);
            while newest_id(&ck) < seen + 1 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            kill_after_next_checkpoint(job, &ck, &mut seed);
        }
        producer.join().expect("producer");
    });
    let want = expected(per_partition, 16, 2000, BASE + 86_400_000);
    let mut job = start(1, &logs[steps.len()]);
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut rows = consume(&output);
    while window_keys(&rows) < want.len() && Instant::now() < deadline {
        if let Some(status) = job.try_wait().expect("try_wait") {
            let log = std::fs::read_to_string(&logs[steps.len()]).unwrap_or_default();
            panic!("the job stopped ({status}): {log}");
        }
        std::thread::sleep(Duration::from_millis(200));
        rows = consume(&output);
    }
    assert!(sigterm(&mut job).success());
    let log = |i: usize| std::fs::read_to_string(&logs[i]).unwrap_or_default();
    for (i, pair) in [8, 4, 16, 1].windows(2).enumerate() {
        let said = format!("parallelism.default was {}, now {}", pair[0], pair[1]);
        assert!(log(i + 1).contains(&said), "run {}: {}", i + 1, log(i + 1));
    }
    let committed = consume_with(&output, "read_committed");
    let dup = assert_exact(&committed, &want);
    assert_eq!(dup, 0, "exactly once: no row twice");
    eprintln!(
        "8 -> 4 -> 16 -> 1 under kill -9: {} windows exactly once",
        want.len()
    );
}
