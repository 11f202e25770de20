//! The cost checkpoints now add to each Kafka record: the source subtask
//! keeps the rebuild offsets of its partitions (`CommitTracker::on_record`
//! per record, `committable` per checkpoint), which it used to do only
//! without checkpoints. 16 partitions, records in order of arrival with
//! event times a little out of order, the watermark 5 s behind and a
//! checkpoint every 100,000 records; ns per record, best of 5, beside an
//! empty loop over the same records (the measurement's own cost).
//!
//! `cargo bench -p lowwater-core --bench tracker` (RECORDS=n).

use std::hint::black_box;
use std::time::Instant;

use lowwater_core::checkpoint::commit::CommitTracker;

#[path = "proc/mod.rs"]
mod proc_stat;
use proc_stat::env_num;

const PARTITIONS: usize = 16;
const MINUTE: i64 = 60_000;

fn run(n: usize, track: bool) -> f64 {
    let mut trackers = vec![CommitTracker::new(); PARTITIONS];
    let mut offsets = [0i64; PARTITIONS];
    let mut kept = 0usize;
    let t = Instant::now();
    for i in 0..n {
        let p = i % PARTITIONS;
        let ts = (i as i64) + ((i * 7919) % 900) as i64;
        let release = ts + MINUTE - 1;
        if track {
            trackers[p].on_record(offsets[p], release, 0);
        }
        black_box(release);
        offsets[p] += 1;
        if i % 100_000 == 99_999 {
            let wm = ts - 5_000;
            for tr in &mut trackers {
                kept += black_box(tr.committable(wm, u64::MAX)).is_some() as usize;
            }
        }
    }
    black_box(kept);
    t.elapsed().as_secs_f64() * 1e9 / n as f64
}

fn main() {
    let n = env_num("RECORDS", 50_000_000);
    let best = |track: bool| (0..5).map(|_| run(n, track)).fold(f64::MAX, f64::min);
    let (empty, tracked) = (best(false), best(true));
    println!(
        "tracker bench: {n} records over {PARTITIONS} partitions: loop alone {empty:.2} ns/record, \
         with the rebuild offsets tracked {tracked:.2} ns/record: {:.2} ns added per record",
        tracked - empty
    );
}
