//! Live runtime throughput: a file job of 10M JSON records (16 keys, event
//! times in order) through `TUMBLE(1 min)` + `COUNT(*)` per key into a
//! blackhole, at parallelism 1 and 2, measured side by side in one run.
//! Prints wall-clock records/s, CPU seconds (user + system, from
//! /proc/self/stat), records per CPU-second, and the process's peak RSS.
//!
//! Then the cost of watching: the same job with `--http` serving and a
//! client scraping `/metrics` and `/api/v1/watermarks` ten times a second
//! (Prometheus scrapes every 15 s or so), alternated with runs without it,
//! best of 3 each; the ratio of the two is the figure. On 2 cores a job
//! that saturates them shares them with the bench's own client, so the
//! records per CPU-second of the process, less the client thread's CPU,
//! are printed beside it: that is lowwater's own cost of being watched.
//!
//! Then the cost of checkpointing: the same job with
//! `execution.checkpointing.interval` = '1 s' (checkpoints in a temporary
//! directory, a job name of its own per run, removed after the run),
//! alternated with runs without checkpoints, best of 3 each, at parallelism 1
//! and 2; the ratio with / without is the figure (target: 0.95 or more).
//! The job's state is small (1-minute windows of 16 keys), so the cost
//! measured is the barriers, the alignment and the file writes, not the
//! encoding of a large state (`cargo bench -p lowwater-core --bench restore`
//! measures that). A bounded source that has finished takes part in no
//! further checkpoint, so a run of a few seconds takes a few checkpoints.
//!
//! Last, the CPU one scrape costs: a 16-partition datagen job at 1,600
//! rows/s served over `--http`, its process's CPU with no client as the
//! baseline, then 1,000 scrapes of `/metrics` and of `/api/v1/watermarks`:
//! the process's CPU less the client thread's and less the baseline, per
//! scrape.
//!
//! `cargo bench -p lowwater-runtime --bench run` (RECORDS=n to change the
//! size; SCRAPE_ONLY=1 for the last part alone).

use std::io::Write;
use std::time::Instant;

use lowwater_runtime::{run, RunArgs};

mod common;
use common::{best, runs};
#[path = "../../core/benches/proc/mod.rs"]
mod proc_stat;
use lowwater_sql::plan::JobPlan;
use proc_stat::{cpu_seconds, env_num, peak_rss_mb, thread_cpu_seconds};

fn generate(dir: &std::path::Path, records: usize) {
    std::fs::create_dir_all(dir).expect("bench dir");
    let day = 1_757_808_000_000i64;
    for file in 0..2 {
        let path = dir.join(format!("part-{file}.json"));
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
        for i in (file..records).step_by(2) {
            let ts = day + i as i64 * 10;
            writeln!(
                f,
                r#"{{"k":"k{}","v":{},"ts":"{}"}}"#,
                i % 16,
                i % 1000,
                lowwater_core::time::format_timestamp(ts, ' ')
            )
            .expect("write");
        }
    }
}

fn main() {
    if std::env::var_os("SCRAPE_ONLY").is_some() {
        scrape_cost();
        return;
    }
    let n = env_num("RECORDS", 10_000_000);
    let dir = std::env::temp_dir().join(format!("lowwater-run-bench-{n}"));
    if !dir.join("part-1.json").exists() {
        generate(&dir, n);
    }
    let sql = format!(
        "CREATE TABLE src (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
           WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'json');
         CREATE TABLE out (window_start TIMESTAMP(3), k STRING, n BIGINT) WITH ('connector' = 'blackhole');
         INSERT INTO out SELECT window_start, k, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
         GROUP BY window_start, window_end, k;",
        dir.display()
    );
    let base = JobPlan::from_sql(&sql).expect("plans");
    let mb = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok()?.metadata().ok())
                .map(|m| m.len())
                .sum::<u64>()
        })
        .unwrap_or(0) as f64
        / 1e6;
    println!("run bench: {n} records ({mb:.0} MB of JSON lines in 2 files), TUMBLE 1 min, COUNT(*) per key (16 keys)");
    for p in [1usize, 2] {
        let mut plan = base.clone();
        plan.settings.parallelism = p;
        let (cpu0, t0) = (cpu_seconds(), Instant::now());
        let out = run(&plan, &RunArgs::default()).expect("runs");
        let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - cpu0);
        assert_eq!(out.report.totals.records_in as usize, n);
        println!(
            "  parallelism {p}: {wall:>6.2} s wall, {:>10.0} records/s, {cpu:>6.2} CPU-s, {:>10.0} records/CPU-s, {} windows out",
            n as f64 / wall,
            n as f64 / cpu.max(0.01),
            out.report.totals.records_out
        );
    }
    println!("  peak RSS of the process: {:.0} MB", peak_rss_mb());
    for p in [1usize, 2] {
        let mut plan = base.clone();
        plan.settings.parallelism = p;
        let (mut off, mut on) = (f64::MAX, f64::MAX);
        let (mut cpu_off, mut cpu_on) = (f64::MAX, f64::MAX);
        let mut scrapes = 0;
        for _ in 0..3 {
            let (t0, c0) = (Instant::now(), cpu_seconds());
            run(&plan, &RunArgs::default()).expect("runs");
            off = off.min(t0.elapsed().as_secs_f64());
            cpu_off = cpu_off.min(cpu_seconds() - c0);
            let addr = free_port();
            let args = RunArgs {
                http: Some(addr.clone()),
                ..RunArgs::default()
            };
            let done = std::sync::atomic::AtomicBool::new(false);
            let (t0, c0) = (Instant::now(), cpu_seconds());
            let mut client_cpu = 0.0;
            std::thread::scope(|s| {
                let scraper = s.spawn(|| {
                    let mut n = 0;
                    while !done.load(std::sync::atomic::Ordering::SeqCst) {
                        for path in ["/metrics", "/api/v1/watermarks"] {
                            if get(&addr, path).is_some_and(|b| !b.is_empty()) {
                                n += 1;
                            }
                        }
                        std::thread::sleep(std::time::Duration::from_millis(100));
                    }
                    (n, thread_cpu_seconds())
                });
                run(&plan, &args).expect("runs");
                done.store(true, std::sync::atomic::Ordering::SeqCst);
                let (n, cpu) = scraper.join().unwrap_or((0, 0.0));
                scrapes += n;
                client_cpu = cpu;
            });
            on = on.min(t0.elapsed().as_secs_f64());
            cpu_on = cpu_on.min(cpu_seconds() - c0 - client_cpu);
        }
        println!(
            "  parallelism {p}, watched (--http, {scrapes} scrapes at 10/s): {:>10.0} records/s vs {:>10.0} unwatched = {:.3}x",
            n as f64 / on,
            n as f64 / off,
            off / on
        );
        // On 2 cores a saturated job shares them with the bench's own
        // scraping client: the CPU the job process spent, less the
        // client thread's, is lowwater's cost of being watched.
        println!(
            "    CPU-seconds without the client's: {cpu_on:.2} watched vs {cpu_off:.2} unwatched = {:.3}x the records per CPU-second",
            cpu_off / cpu_on.max(0.01)
        );
    }
    for p in [1usize, 2] {
        checkpoint_cost(&base, p, n);
    }
    scrape_cost();
}

/// The CPU a scrape of each endpoint costs the process serving a
/// 16-partition job (see the header).
fn scrape_cost() {
    const SCRAPES: usize = 1_000;
    let sql = "CREATE TABLE clicks (user_id INT, event_time TIMESTAMP(3),
           WATERMARK FOR event_time AS event_time - INTERVAL '1' SECOND)
         WITH ('connector' = 'datagen', 'rows-per-second' = '1600', 'fields.user_id.min' = '1',
               'fields.user_id.max' = '50', 'lowwater.partitions' = '16');
         CREATE TABLE sink (window_start TIMESTAMP(3), user_id INT, clicks BIGINT) WITH ('connector' = 'blackhole');
         INSERT INTO sink SELECT window_start, user_id, COUNT(*)
           FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(event_time), INTERVAL '2' SECOND))
           GROUP BY window_start, window_end, user_id;";
    let plan = JobPlan::from_sql(sql).expect("plans");
    let addr = free_port();
    let args = RunArgs {
        http: Some(addr.clone()),
        ..RunArgs::default()
    };
    let stop = args.stop.clone();
    let pause = std::time::Duration::from_millis;
    std::thread::scope(|s| {
        let job = s.spawn(|| run(&plan, &args));
        while get(&addr, "/ready").is_none() {
            std::thread::sleep(pause(50));
        }
        // A few windows fired, so that every family has its samples.
        std::thread::sleep(pause(3_000));
        let (c0, t0) = (cpu_seconds(), Instant::now());
        std::thread::sleep(pause(3_000));
        let idle = (cpu_seconds() - c0) / t0.elapsed().as_secs_f64();
        println!(
            "  scrape cost, 16-partition job at 1,600 rows/s (idle: {:.1}% of a core):",
            idle * 100.0
        );
        for path in ["/metrics", "/api/v1/watermarks"] {
            let (c0, k0, t0) = (cpu_seconds(), thread_cpu_seconds(), Instant::now());
            let mut bytes = 0;
            for _ in 0..SCRAPES {
                bytes = get(&addr, path).map_or(0, |b| b.len());
            }
            let client = thread_cpu_seconds() - k0;
            let used = cpu_seconds() - c0 - client - idle * t0.elapsed().as_secs_f64();
            println!(
                "    {path:<20} {:>6.3} ms of CPU per scrape ({bytes} bytes): {:.2}% of a core at 10 scrapes/s",
                used / SCRAPES as f64 * 1e3,
                used / SCRAPES as f64 * 10.0 * 100.0
            );
        }
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = job.join();
    });
}

/// Runs the job at parallelism `p` without and with checkpoints every
/// second, alternated, best of 3 each, and prints both rates, their ratio
/// and the sizes of the checkpoint files the runs left.
fn checkpoint_cost(base: &JobPlan, p: usize, n: usize) {
    let root = std::env::temp_dir().join(format!("lowwater-run-bench-ck-{}", std::process::id()));
    let mut plain = base.clone();
    plain.settings.parallelism = p;
    let mut checked = plain.clone();
    checked.settings.checkpoints.interval = Some(1_000);
    checked.settings.checkpoints.dir = Some(root.display().to_string());
    let (mut offs, mut ons) = (Vec::new(), Vec::new());
    let (mut taken, mut sizes) = (Vec::new(), Vec::new());
    for i in 0..3 {
        let t0 = Instant::now();
        run(&plain, &RunArgs::default()).expect("runs");
        offs.push(t0.elapsed().as_secs_f64());
        let args = RunArgs {
            job_name: format!("bench-p{p}-{i}"),
            ..RunArgs::default()
        };
        let t0 = Instant::now();
        let out = run(&checked, &args).expect("runs with checkpoints");
        ons.push(t0.elapsed().as_secs_f64());
        assert_eq!(out.report.totals.records_in as usize, n);
        let (newest, bytes) = checkpoint_files(&root.join(&args.job_name));
        taken.push(newest);
        sizes.extend(bytes);
        std::fs::remove_dir_all(&root).expect("remove the checkpoints");
    }
    let (off, on) = (best(&offs), best(&ons));
    println!(
        "  parallelism {p}, checkpoints every 1 s: {:>10.0} records/s vs {:>10.0} without = {:.3}x{}",
        n as f64 / on,
        n as f64 / off,
        off / on,
        if off / on >= 0.95 { "" } else { "   ** under the 0.95x target **" }
    );
    println!(
        "    runs (s): without [{}], with [{}]",
        runs(&offs),
        runs(&ons)
    );
    println!(
        "    checkpoints taken per run: {taken:?}; files kept: {} to {} bytes",
        sizes.iter().min().unwrap_or(&0),
        sizes.iter().max().unwrap_or(&0)
    );
}

/// The newest checkpoint id in a job's checkpoint directory (how many the run
/// took) and the sizes of the files there (the retained ones).
fn checkpoint_files(dir: &std::path::Path) -> (u64, Vec<u64>) {
    let mut newest = 0;
    let mut sizes = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let id = name
            .strip_prefix("chk-")
            .and_then(|r| r.strip_suffix(".lwck"))
            .and_then(|d| d.parse::<u64>().ok());
        if let Some(id) = id {
            newest = newest.max(id);
            sizes.push(e.metadata().map_or(0, |m| m.len()));
        }
    }
    (newest, sizes)
}

/// A free port on 127.0.0.1 (bound and released).
fn free_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").to_string()
}

/// A plain HTTP/1.1 GET; `None` while the server is not up yet.
fn get(addr: &str, path: &str) -> Option<String> {
    use std::io::Read;
    let mut c = std::net::TcpStream::connect(addr).ok()?;
    write!(
        c,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut body = String::new();
    c.read_to_string(&mut body).ok()?;
    Some(body)
}
