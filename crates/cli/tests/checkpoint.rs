//! Checkpoints of `lowwater run`, the binary, crashed for real.
//!
//! - Filesystem part files finish at checkpoints: after a crash (parallelism
//!   3 over 2 files, so one source subtask may end at once while the others
//!   keep checkpointing) they hold every row exactly once; the finished job
//!   leaves an end-of-input checkpoint, so running it again writes nothing.
//! - A filesystem job killed by a failpoint right after a checkpoint (the
//!   process aborts, as kill -9 would leave it), with that newest checkpoint
//!   then damaged on disk: the same command restores the older one (with a
//!   WARN naming the damaged one) and every window of the data is in the
//!   output with its exact count, none missing, none with another count.
//! - A changed job refuses the checkpoint and names what changed;
//!   `--reset-state` starts without it.
//! - Kafka -> Kafka while a producer writes: the job is killed with kill -9
//!   at random moments after checkpoints and restarted with the same command
//!   each time; the output topic then holds every window exactly as the
//!   data says (at least once: a row written after the last checkpoint is
//!   written again, identical). `LOWWATER_CHAOS_KILLS` sets the number of
//!   kills (6 by default; the long form is 24).
//!
//! Tests wait on the process or on files and topics, bounded by deadlines.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rdkafka::producer::{BaseRecord, Producer};

mod common;
use common::chaos::*;
use common::{producer, sql_ts, BOOTSTRAP};

#[test]
fn a_crash_restores_the_newest_whole_checkpoint_and_every_window_is_exact() {
    let dir = scratch("files");
    let (n, parts) = (60_000, 2);
    let input = write_input(&dir, n, parts);
    let ck = dir.join("ck");
    let (settings, source) = file_job(&ck, &input);
    let sink = "'connector' = 'blackhole'";
    let job = dir.join("job.sql");
    std::fs::write(&job, job_sql(&source, sink, &settings, "1")).expect("job");
    let (out1, out2) = (dir.join("out1.jsonl"), dir.join("out2.jsonl"));
    let args = |out: &Path| {
        vec![
            "run".to_string(),
            s(&job).to_string(),
            "--output".to_string(),
            format!("counts={}", s(out)),
        ]
    };
    let a1 = args(&out1);
    let a1: Vec<&str> = a1.iter().map(String::as_str).collect();
    let crashed = lowwater(&a1, &[("LOWWATER_FAILPOINT", "after-checkpoint-write:4")]);
    let err = String::from_utf8_lossy(&crashed.stderr);
    assert!(
        !crashed.status.success(),
        "the failpoint aborts the job: {err}"
    );
    assert!(err.contains("failpoint after-checkpoint-write:4"), "{err}");
    let files = checkpoints(&ck.join("job"));
    assert_eq!(
        files
            .last()
            .and_then(|p| p.file_name())
            .map(|f| f.to_string_lossy().into_owned()),
        Some("chk-00000004.lwck".to_string()),
        "{files:?}"
    );
    // The newest checkpoint is damaged on disk: the older one is used.
    let newest = files.last().expect("a checkpoint");
    let len = std::fs::metadata(newest).expect("size").len();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(newest)
        .expect("open");
    f.set_len(len - 7).expect("truncate");
    let a2 = args(&out2);
    let a2: Vec<&str> = a2.iter().map(String::as_str).collect();
    let resumed = lowwater(&a2, &[]);
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{err}");
    assert!(
        err.contains("checkpoint 4 cannot be used (truncated"),
        "a WARN names the damaged checkpoint: {err}"
    );
    assert!(err.contains("restoring checkpoint 3"), "{err}");
    let (first, second) = (dump_payloads(&out1), dump_payloads(&out2));
    // Bounded input: at its end every window fires.
    let want = expected(n, parts, 1000, i64::MAX);
    let mut rows = first.clone();
    rows.extend(second.iter().cloned());
    assert_exact(&rows, &want);
    assert!(
        !first.is_empty() && first.len() < want.len(),
        "the crash was mid-way"
    );
    // At least once, and only just: the restored job writes again exactly
    // the rows the crashed one wrote after the restored checkpoint (a tail
    // of its output), never one from before it, and nothing twice itself.
    let again: BTreeSet<_> = second
        .iter()
        .filter_map(|r| row(r))
        .map(|(k, _)| k)
        .collect();
    assert_eq!(
        again.len(),
        second.len(),
        "the restored run wrote a row twice"
    );
    let keys: Vec<_> = first
        .iter()
        .filter_map(|r| row(r))
        .map(|(k, _)| k)
        .collect();
    let tail = keys
        .iter()
        .position(|k| again.contains(k))
        .unwrap_or(keys.len());
    assert!(
        keys[tail..].iter().all(|k| again.contains(k)),
        "a row from before the restored checkpoint was written again"
    );
}

#[test]
fn a_changed_job_refuses_the_checkpoint_and_names_the_change() {
    let dir = scratch("changed");
    let input = dir.join("in.json");
    let lines: String = (0..60_000)
        .map(|i| {
            let (ts, user) = record(i, 0);
            format!("{{\"user_id\":\"{user}\",\"ts\":\"{}\"}}\n", sql_ts(ts))
        })
        .collect();
    std::fs::write(&input, lines).expect("input");
    let settings = format!(
        "SET 'execution.checkpointing.interval' = '20 ms';\n\
         SET 'execution.checkpointing.dir' = '{}';",
        s(&dir.join("ck"))
    );
    let source = format!(
        "'connector' = 'filesystem', 'path' = '{}', 'format' = 'json'",
        s(&input)
    );
    let job = dir.join("job.sql");
    let write = |window: &str| {
        std::fs::write(
            &job,
            job_sql(&source, "'connector' = 'blackhole'", &settings, window),
        )
        .expect("job")
    };
    write("1");
    let crashed = lowwater(
        &["run", s(&job)],
        &[("LOWWATER_FAILPOINT", "after-checkpoint-write:1")],
    );
    assert!(!crashed.status.success());
    write("2");
    let refused = lowwater(&["run", s(&job)], &[]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(err.contains("checkpoint 1 does not fit this job"), "{err}");
    assert!(
        err.contains(
            "INSERT 1 INTO counts: window: was TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' \
             SECOND), now TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '2' SECOND)"
        ),
        "{err}"
    );
    assert!(err.contains("--reset-state"), "{err}");
    // The same job under another name finds no checkpoint of its own, and
    // says whose are beside it (issue 34: a rename lost the state silently).
    let renamed = dir.join("renamed.sql");
    std::fs::copy(&job, &renamed).expect("copy");
    let o = lowwater(&["run", s(&renamed)], &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("hold checkpoints of other jobs (job)") && err.contains("pipeline.name"),
        "{err}"
    );
    let fresh = lowwater(&["run", s(&job), "--reset-state"], &[]);
    let err = String::from_utf8_lossy(&fresh.stderr);
    assert!(fresh.status.success(), "{err}");
    assert!(
        err.contains("--reset-state: checkpoint 1 (taken")
            && err.contains("open windows are dropped"),
        "{err}"
    );
}

#[test]
fn kill_9_at_random_moments_loses_no_window_kafka_to_kafka() {
    let (dir, id, input, output) = kafka_scratch("chaos", 4);
    let kills: usize = std::env::var("LOWWATER_CHAOS_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    let settings = format!(
        "SET 'execution.checkpointing.interval' = '300 ms';\n\
         SET 'execution.checkpointing.dir' = '{}';",
        s(&dir.join("ck"))
    );
    let source = format!(
        "'connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}', \
         'properties.group.id' = 'chaos-{id}', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json'"
    );
    let sink = format!(
        "'connector' = 'kafka', 'topic' = '{output}', 'properties.bootstrap.servers' = '{BOOTSTRAP}', 'format' = 'json'"
    );
    let job = dir.join("job.sql");
    std::fs::write(&job, job_sql(&source, &sink, &settings, "2")).expect("job");
    // 2,000 records/s over 4 partitions for about (kills + 2) seconds.
    let per_partition = 500 * (kills as i64 + 2);
    let start = || spawn_quiet(&job);
    let ck = dir.join("ck").join("job");
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15 ^ u64::from(id);
    kill_while_producing(&start, (&input, per_partition), (&ck, kills, &mut seed));
    let killed = kills;
    // The last run reads to the end: the far record fires every window.
    let want = expected(per_partition, 4, 2000, BASE + 86_400_000);
    let mut job = start();
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut rows = consume(&output);
    while rows
        .iter()
        .filter_map(|r| row(r))
        .map(|(k, _)| k)
        .collect::<BTreeSet<_>>()
        .len()
        < want.len()
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(200));
        rows = consume(&output);
    }
    job.kill().expect("stop");
    let _ = job.wait();
    let dup = assert_exact(&rows, &want);
    eprintln!(
        "{killed} kills: {} windows exact, {dup} rows written twice (at least once)",
        want.len()
    );
}

#[test]
fn exactly_once_output_survives_kill_9_and_every_commit_step_failing() {
    let (dir, id, input, output) = kafka_scratch("eo", 4);
    let extra = format!(
        ", 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'eo-{id}'"
    );
    let job = chaos_job(&dir, id, &input, &output, &extra);
    let ck = dir.join("ck").join("job");
    let kills: usize = std::env::var("LOWWATER_CHAOS_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
        .max(3);
    let per_partition = 500 * (kills as i64 + 2);
    let start = |failpoint: Option<String>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_lowwater"));
        c.args(["run", s(&job)])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(f) = failpoint {
            c.env("LOWWATER_FAILPOINT", f);
        }
        c.spawn().expect("spawn lowwater")
    };
    let steps = [
        "before-checkpoint-write",
        "after-checkpoint-write",
        "after-commit",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d ^ u64::from(id);
    let mut aborted_by_failpoint = 0;
    std::thread::scope(|scope| {
        let producer = scope.spawn(|| produce(&input, 4, per_partition, 2_000));
        for k in 0..kills {
            if let Some(step) = steps.get(k) {
                // The process dies at this step of the commit protocol.
                let at = newest_id(&ck) + 2;
                let mut job = start(Some(format!("{step}:{at}")));
                let status = job.wait().expect("wait");
                assert!(!status.success(), "{step}:{at} did not stop the job");
                aborted_by_failpoint += 1;
                continue;
            }
            kill_after_next_checkpoint(start(None), &ck, &mut seed);
        }
        producer.join().expect("producer");
    });
    let want = expected(per_partition, 4, 2000, BASE + 86_400_000);
    let mut job = start(None);
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut rows = consume(&output);
    while window_keys(&rows) < want.len() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        rows = consume(&output);
    }
    // A graceful stop commits a final checkpoint: no transaction stays open.
    assert!(sigterm(&mut job).success());
    let committed = consume_with(&output, "read_committed");
    let dup = assert_exact(&committed, &want);
    assert_eq!(dup, 0, "exactly once: no row twice");
    let all = consume_with(&output, "read_uncommitted");
    assert!(
        all.len() > committed.len(),
        "aborted transactions happened: {} records in the topic, {} committed",
        all.len(),
        committed.len()
    );
    eprintln!(
        "{kills} crashes ({aborted_by_failpoint} at commit steps): {} windows exactly once; \
         {} aborted rows seen only by read_uncommitted",
        want.len(),
        all.len() - committed.len()
    );
}

/// Issue 34 item 8: under exactly-once, the checkpoint whose output was
/// committed is damaged on disk after a kill -9 (the two newest of three
/// new files are cut short: the marker names one of them). The same command restores the
/// older intact checkpoint, reads its records again and writes none of the
/// windows the committed output holds: after three such rounds and a
/// graceful end, the `read_committed` output holds every window once. It
/// used to stop for good until a person chose duplicates or losses.
#[test]
fn exactly_once_survives_a_damaged_committed_checkpoint_without_a_person() {
    let (dir, id, input, output) = kafka_scratch("damaged", 4);
    let extra = format!(
        ", 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'damaged-{id}'"
    );
    let job = chaos_job(&dir, id, &input, &output, &extra);
    let ck = dir.join("ck").join("job");
    let rounds = 3;
    let logs: Vec<_> = (0..=rounds)
        .map(|r| dir.join(format!("run{r}.log")))
        .collect();
    let start = |log: &Path| spawn_logged(&job, log);
    let per_partition = 500 * (rounds as i64 + 2);
    std::thread::scope(|scope| {
        let producer = scope.spawn(|| produce(&input, 4, per_partition, 2_000));
        for log in &logs[..rounds] {
            let seen = newest_id(&ck);
            let mut job = start(log);
            // Three new checkpoints: each one's output is committed before
            // the next is written (they complete one after the other), so
            // the marker names one of the two newest, which are cut short,
            // and the third is intact.
            let deadline = Instant::now() + Duration::from_secs(60);
            while newest_id(&ck) < seen + 3 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            job.kill().expect("kill -9");
            let _ = job.wait();
            for newest in checkpoints(&ck).iter().rev().take(2) {
                let len = std::fs::metadata(newest).expect("size").len();
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(newest)
                    .expect("open");
                f.set_len(len - 7).expect("truncate");
            }
        }
        producer.join().expect("producer");
    });
    let want = expected(per_partition, 4, 2000, BASE + 86_400_000);
    let mut job = start(&logs[rounds]);
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut rows = consume(&output);
    while window_keys(&rows) < want.len() && Instant::now() < deadline {
        assert!(
            job.try_wait().expect("try_wait").is_none(),
            "the job stopped"
        );
        std::thread::sleep(Duration::from_millis(200));
        rows = consume(&output);
    }
    assert!(sigterm(&mut job).success());
    let log = |r: usize| std::fs::read_to_string(&logs[r]).unwrap_or_default();
    for r in 1..=rounds {
        assert!(
            log(r).contains("whose output was committed to Kafka, cannot be read: checkpoint"),
            "run {r}: {}",
            log(r)
        );
    }
    // Windows were computed again and not written (a round whose older
    // checkpoint fired as far as the committed one has none to drop).
    let dropped = |r: usize| log(r).contains("computed again from the older checkpoint and not");
    assert!((1..=rounds).any(dropped), "{}", log(1));
    let committed = consume_with(&output, "read_committed");
    let dup = assert_exact(&committed, &want);
    assert_eq!(dup, 0, "exactly once: no row twice");
    eprintln!(
        "{rounds} damaged committed checkpoints: {} windows exactly once",
        want.len()
    );
}

#[test]
fn a_second_instance_fences_the_first_and_a_short_transaction_timeout_is_refused() {
    let (dir, id, input, output) = kafka_scratch("fence", 2);
    let extra = format!(
        ", 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'fence-{id}'"
    );
    let job = chaos_job(&dir, id, &input, &output, &extra);
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_lowwater"))
            .args(["run", s(&job)])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn lowwater")
    };
    let ck = dir.join("ck").join("job");
    let first = run();
    let deadline = Instant::now() + Duration::from_secs(30);
    while newest_id(&ck) == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut second = run();
    let out = first.wait_with_output().expect("first ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the fenced instance stops: {err}");
    assert!(err.contains("Another instance of this job"), "{err}");
    assert!(sigterm(&mut second).success());

    let short = ", 'properties.transaction.timeout.ms' = '1000'";
    let job = chaos_job(&dir, id, &input, &output, &format!("{extra}{short}"));
    let o = lowwater(&["run", s(&job)], &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("transaction.timeout.ms"), "{err}");
}

/// The rows of the finished part files in `dir` (each line must parse:
/// a finished file never holds half a row), and the unfinished files.
fn finished_rows(dir: &Path) -> (Vec<String>, Vec<String>) {
    let (mut rows, mut hidden) = (Vec::new(), Vec::new());
    for e in std::fs::read_dir(dir)
        .expect("sink dir")
        .filter_map(|e| e.ok())
    {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            hidden.push(name);
            continue;
        }
        let text = std::fs::read_to_string(e.path()).expect("part file");
        for line in text.lines() {
            assert!(row(line).is_some(), "{name}: a half-written row: {line}");
            rows.push(line.to_string());
        }
    }
    (rows, hidden)
}

#[test]
fn filesystem_part_files_finish_at_checkpoints_and_hold_every_row_once_after_a_crash() {
    let dir = scratch("parts");
    let (n, parts) = (60_000, 2);
    let input = write_input(&dir, n, parts);
    let out = dir.join("out");
    let settings = format!(
        "SET 'parallelism.default' = '3';\n\
         SET 'execution.checkpointing.interval' = '50 ms';\n\
         SET 'execution.checkpointing.dir' = '{}';\n\
         SET 'pipeline.auto-watermark-interval' = '20 ms';",
        s(&dir.join("ck"))
    );
    let source = format!(
        "'connector' = 'filesystem', 'path' = '{}', 'format' = 'json'",
        s(&input)
    );
    let sink = format!(
        "'connector' = 'filesystem', 'path' = '{}', 'format' = 'json'",
        s(&out)
    );
    let job = dir.join("job.sql");
    std::fs::write(&job, job_sql(&source, &sink, &settings, "1")).expect("job");
    let crashed = lowwater(
        &["run", s(&job)],
        &[("LOWWATER_FAILPOINT", "after-checkpoint-write:4")],
    );
    assert!(
        !crashed.status.success(),
        "{}",
        String::from_utf8_lossy(&crashed.stderr)
    );
    let (early, unfinished) = finished_rows(&out);
    assert!(
        !unfinished.is_empty(),
        "rows after checkpoint 3 are not finished yet"
    );
    let resumed = lowwater(&["run", s(&job)], &[]);
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{err}");
    assert!(err.contains("restoring checkpoint 4"), "{err}");
    let (rows, unfinished) = finished_rows(&out);
    assert!(unfinished.is_empty(), "{unfinished:?}");
    let want = expected(n, parts, 1000, i64::MAX);
    assert_eq!(assert_exact(&rows, &want), 0, "every row once");
    assert!(
        !early.is_empty() && early.len() < rows.len(),
        "the crash was mid-way"
    );
    // The finished job left an end-of-input checkpoint: the same command
    // again restores it and writes nothing twice.
    assert!(err.contains("end-of-input checkpoint"), "{err}");
    let again = lowwater(&["run", s(&job)], &[]);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err}");
    let (after, unfinished) = finished_rows(&out);
    assert!(unfinished.is_empty(), "{unfinished:?}");
    assert_eq!(
        after.len(),
        rows.len(),
        "a finished job run again writes nothing: {err}"
    );
}

/// Without checkpoints, offsets are committed behind the records of open
/// windows, with the watermark up to which windows were written (issue 33
/// item 6: a restart wrote a window again with part of its records, after
/// its complete row, and a consumer keeping the last row per key kept the
/// partial one). Killed with kill -9 three times while records arrive:
/// every window is written whole, and every row of it has its exact count.
#[test]
fn without_checkpoints_kill_9_loses_no_window_and_writes_none_partial() {
    let (dir, id, input, output) = kafka_scratch("nockpt", 2);
    let per_partition = 6_000;
    let source = format!(
        "'connector' = 'kafka', 'topic' = '{input}', 'properties.bootstrap.servers' = '{BOOTSTRAP}', \
         'properties.group.id' = 'nock-{id}', 'scan.startup.mode' = 'group-offsets', \
         'properties.auto.offset.reset' = 'earliest', 'format' = 'json'"
    );
    let sink = format!(
        "'connector' = 'kafka', 'topic' = '{output}', 'properties.bootstrap.servers' = '{BOOTSTRAP}', 'format' = 'json'"
    );
    let job = dir.join("job.sql");
    std::fs::write(&job, job_sql(&source, &sink, "", "10")).expect("job");
    let start = || spawn_quiet(&job);
    let want = expected(per_partition, 2, 10_000, BASE + 86_400_000);
    // Killed while records arrive, each time once another quarter of the
    // windows was written.
    let mut last = std::thread::scope(|scope| {
        let producer = scope.spawn(|| produce(&input, 2, per_partition, 2_000));
        for quarter in 1..=3 {
            let mut job = start();
            let deadline = Instant::now() + Duration::from_secs(60);
            while window_keys(&consume(&output)) < want.len() * quarter / 4
                && Instant::now() < deadline
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            job.kill().expect("kill -9");
            let _ = job.wait();
        }
        let last = start();
        producer.join().expect("producer");
        last
    });
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut rows = consume(&output);
    while window_keys(&rows) < want.len() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        rows = consume(&output);
    }
    last.kill().expect("stop");
    let _ = last.wait();
    // At least once: a window that fired after the last commit is written
    // again, whole; never with part of its records.
    let dup = assert_exact(&rows, &want);
    eprintln!(
        "3 kills without checkpoints: {} windows whole, {dup} written twice",
        want.len()
    );
}

#[test]
fn a_poison_record_fails_again_at_the_same_place_after_a_restore() {
    let (dir, id, input, output) = kafka_scratch("poison", 1);
    let job = chaos_job(&dir, id, &input, &output, "");
    let ck = dir.join("ck").join("job");
    let p = producer();
    let send = |payload: &str| {
        p.send(
            BaseRecord::<(), str>::to(&input)
                .partition(0)
                .payload(payload),
        )
        .expect("send");
        p.flush(Duration::from_secs(10)).expect("flush");
    };
    for i in 0..100 {
        let (ts, user) = record(i, 0);
        send(&format!(r#"{{"user_id":"{user}","ts":"{}"}}"#, sql_ts(ts)));
    }
    let mut first = Command::new(env!("CARGO_BIN_EXE_lowwater"))
        .args(["run", s(&job)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn lowwater");
    let deadline = Instant::now() + Duration::from_secs(30);
    while newest_id(&ck) < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        newest_id(&ck) >= 2,
        "checkpoints were taken before the poison record"
    );
    send("{\"user_id\": \"u1\", \"ts\": ");
    let deadline = Instant::now() + Duration::from_secs(30);
    while first.try_wait().expect("wait").is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = first.wait_with_output().expect("first run ends");
    let err1 = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err1}");
    let place = format!("topic {input} partition 0 offset 100");
    assert!(err1.contains(&place), "{err1}");
    let again = lowwater(&["run", s(&job)], &[]);
    let err2 = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(2), "{err2}");
    assert!(err2.contains("restoring checkpoint"), "{err2}");
    assert!(
        err2.contains(&place),
        "the same record stops it again: {err2}"
    );
}

/// An INSERT whose bounded input ended while another INSERT of the job
/// runs on: its window subtasks have ended, and the rows they wrote are
/// finished with the next checkpoint (here the final one of `--duration`),
/// every row once.
#[test]
fn part_files_of_an_insert_that_ended_finish_while_the_job_runs_on() {
    let dir = scratch("ended");
    let (n, parts) = (20_000, 2);
    let input = write_input(&dir, n, parts);
    let out = dir.join("out");
    let sql = format!(
        "SET 'execution.checkpointing.interval' = '100 ms';
         SET 'execution.checkpointing.dir' = '{}';
         CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
         WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'json');
         CREATE TABLE counts (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, n BIGINT)
         WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'json');
         CREATE TABLE live (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
         WITH ('connector' = 'datagen', 'rows-per-second' = '100', 'fields.k.min' = '1', 'fields.k.max' = '2');
         CREATE TABLE nowhere (n BIGINT) WITH ('connector' = 'blackhole');
         INSERT INTO counts SELECT window_start, window_end, user_id, COUNT(*) AS n
         FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
         GROUP BY window_start, window_end, user_id;
         INSERT INTO nowhere SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE live, DESCRIPTOR(ts), INTERVAL '1' SECOND))
         GROUP BY window_start, window_end;",
        s(&dir.join("ck")),
        s(&input),
        s(&out)
    );
    let job = dir.join("job.sql");
    std::fs::write(&job, sql).expect("job");
    let o = lowwater(&["run", s(&job), "--duration", "3 s"], &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("final checkpoint"), "{err}");
    let (rows, unfinished) = finished_rows(&out);
    assert!(unfinished.is_empty(), "{unfinished:?}");
    let want = expected(n, parts, 1000, i64::MAX);
    assert_eq!(assert_exact(&rows, &want), 0, "every row once");
}
