//! The seed 000 incident, run on the deterministic harness: `clickstream` has
//! 16 partitions read at parallelism 8; partition 11 only receives one
//! heartbeat every 90 minutes. Event-time windows of one minute stall, and
//! fire in bursts, until `table.exec.source.idle-timeout` is set.
//!
//! Run: `cargo run -p lowwater-core --example heartbeat_incident`
//! (processing time is virtual: 3 h 20 min of traffic replay in about a second).

use std::collections::BTreeMap;

use lowwater_core::harness::{Event, Fired, Harness};
use lowwater_core::time::{display_duration, display_time};
use lowwater_core::{mins, secs, Millis, Timestamp};

const RUN: Timestamp = mins(200);
const HEARTBEAT_EVERY: Millis = mins(90);

fn job(idle_timeout: Option<Millis>) -> Harness {
    Harness::tumbling(mins(1))
        .sql_watermark(secs(5)) // WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
        .topic("clickstream")
        .partitions(16)
        .parallelism(8)
        .idle_timeout(idle_timeout)
}

/// Feeds the traffic: 15 busy partitions (one record each every 2 s) and
/// partition 11's heartbeat. Calls `probe` every 30 minutes.
fn run(h: &mut Harness, mut probe: impl FnMut(&Harness)) {
    let mut t = secs(2);
    while t < RUN {
        if t % HEARTBEAT_EVERY == secs(10) {
            h.process_at(t, Event::new("heartbeat", t).partition(11));
        }
        if t % mins(30) == 0 {
            h.set_processing_time(t);
            probe(h);
        }
        for p in (0..16).filter(|p| *p != 11) {
            let at = t + i64::from(p) * 7;
            h.process_at(at, Event::new("click", at - 800).partition(p));
        }
        t += secs(2);
    }
    h.set_processing_time(RUN);
}

fn bursts(out: &[Fired]) -> BTreeMap<Timestamp, (usize, Millis)> {
    let mut b: BTreeMap<Timestamp, (usize, Millis)> = BTreeMap::new();
    for f in out {
        let e = b.entry(f.emitted_at).or_insert((0, 0));
        e.0 += 1;
        e.1 = e.1.max(f.emission_lag());
    }
    b
}

fn summary(out: &[Fired]) -> String {
    let mut lags: Vec<Millis> = out.iter().map(Fired::emission_lag).collect();
    lags.sort_unstable();
    let pct = |q: usize| {
        lags.get(lags.len().saturating_sub(1) * q / 100)
            .copied()
            .unwrap_or(0)
    };
    format!(
        "{} window results, emission lag p50 {}, p99 {}, max {}",
        out.len(),
        display_duration(pct(50)),
        display_duration(pct(99)),
        display_duration(pct(100)),
    )
}

fn main() {
    println!(
        "seed 000: 16 partitions, parallelism 8, partition 11 sends one heartbeat every 90 min"
    );
    println!("job: 1-minute TUMBLE, WATERMARK event_time - 5 s, idle-timeout disabled (Flink's default)\n");

    let mut stalled = job(None);
    run(&mut stalled, |h| match h.held_by() {
        Some(holder) => println!(
            "  {}  job watermark {}  held by partition {} (subtask {}), silent for {}",
            display_time(h.now()),
            display_time(h.watermark()),
            holder.partition.map_or("-".to_string(), |p| p.to_string()),
            holder.subtask,
            display_duration(holder.silent_for),
        ),
        None => println!(
            "  {}  job watermark {}  (idle)",
            display_time(h.now()),
            display_time(h.watermark())
        ),
    });
    println!("\nwindow emissions (processing time -> windows released at once, worst lag):");
    for (at, (n, worst)) in bursts(stalled.output()) {
        println!(
            "  {}  {n:>4} windows  worst lag {}",
            display_time(at),
            display_duration(worst)
        );
    }
    println!("watermark advances: {}", stalled.watermark_timeline().len());
    println!("=> {}\n", summary(stalled.output()));

    println!("same traffic with SET 'table.exec.source.idle-timeout' = '60 s':");
    let mut fixed = job(Some(secs(60)));
    run(&mut fixed, |_| {});
    let late_bursts = bursts(fixed.output())
        .into_iter()
        .filter(|(_, (n, _))| *n > 1)
        .count();
    println!("=> {}", summary(fixed.output()));
    println!(
        "   windows released together: {late_bursts} times (each heartbeat holds the watermark \
         until partition 11 is idle again); late records dropped: {}",
        fixed.late_dropped()
    );
}
