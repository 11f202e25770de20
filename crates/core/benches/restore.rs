//! Restore cost: how long a window subtask takes to encode its state into a
//! checkpoint and to decode it back on restart, for a window operator holding
//! 1,000,000 open (window, key) states: one 1-minute tumbling window, keys
//! `user-NNNNNN`, the watermark not yet at the window's end (a busy minute of
//! a job with a million active users).
//!
//! Two shapes of state, to show what the accumulators cost:
//! - `COUNT(*)`: one counter per (window, key);
//! - `COUNT(*), SUM(amount), COUNT(DISTINCT url)`: a counter, a sum and a set
//!   of up to 4 of 8 urls per (window, key).
//!
//! For each: the clone the runtime takes at a barrier, `checkpoint::encode`
//! (postcard + CRC-32), the checksum check alone, and `checkpoint::decode`
//! (check + deserialize), best of 3 each, measured side by side in one run;
//! bytes in total and per open window. The decoded operator must hold the
//! same number of open states and fire the same windows as the original.
//! The figure to read: decode of 1M open key-windows, target under 2 s, and
//! at another parallelism decode plus regrouping 8 subtasks' state into 4
//! (`WindowOperator::regroup`), target under 2 s too.
//!
//! `cargo bench -p lowwater-core --bench restore` (OPEN=n to change the size).

use std::time::Instant;

use lowwater_core::checkpoint::{decode, encode, format::verify};
use lowwater_core::route::key_subtask;
use lowwater_core::value::Value;
use lowwater_core::window::aggregate::{AggFunc, AggSpec};
use lowwater_core::window::assigner::WindowAssigner;
use lowwater_core::window::operator::{WindowInput, WindowOperator, WindowOutput, WindowSpec};

const MINUTE: i64 = 60_000;
const DAY: i64 = 1_757_808_000_000;

/// One shape of state: a name, the operator's definition, and how many
/// records each key receives.
struct Variant {
    name: &'static str,
    spec: WindowSpec,
    records_per_key: usize,
}

fn variants() -> Vec<Variant> {
    let assigner = WindowAssigner::tumbling(MINUTE);
    let mut rich = WindowSpec::count(assigner);
    rich.aggregates.push(AggSpec::on(AggFunc::Sum, 0));
    rich.aggregates.push(AggSpec::on(AggFunc::CountDistinct, 1));
    vec![
        Variant {
            name: "COUNT(*)",
            spec: WindowSpec::count(assigner),
            records_per_key: 2,
        },
        Variant {
            name: "COUNT(*), SUM(amount), COUNT(DISTINCT url)",
            spec: rich,
            records_per_key: 4,
        },
    ]
}

/// The operator with `keys` open states, all in the window
/// `[DAY, DAY + 1 min)`; no window fires (the watermark stays at its start).
fn fill(spec: &WindowSpec, keys: usize, per_key: usize) -> WindowOperator {
    let mut op = WindowOperator::new(spec.clone()).expect("a valid window");
    let urls: Vec<Value> = (0..8).map(|u| Value::str(&format!("/p/{u}"))).collect();
    let mut out = Vec::new();
    for r in 0..per_key {
        for k in 0..keys {
            let i = r * keys + k;
            let input = WindowInput {
                ts: DAY + (i as i64 * 7) % MINUTE,
                split: (k % 16) as u32,
                key: vec![Value::str(&format!("user-{k:06}"))],
                row: vec![Value::Int((i % 1_000) as i64), urls[(k + r) % 8].clone()],
            };
            op.process(input, &mut out).expect("a placeable time");
        }
    }
    assert!(out.is_empty(), "no window fired or was late while filling");
    op
}

/// Best wall time of 3 runs of `f`, in seconds, and the last result. The
/// result of each run is dropped outside the timed part.
fn best<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..3 {
        drop(last.take());
        let t = Instant::now();
        let out = f();
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(out);
    }
    (best, last.expect("three runs"))
}

fn fire_all(mut op: WindowOperator) -> Vec<WindowOutput> {
    let mut out = Vec::new();
    op.on_watermark(DAY + MINUTE - 1, &mut out);
    out
}

#[path = "proc/mod.rs"]
mod proc_stat;
use proc_stat::{env_num, peak_rss_mb};

fn measure(v: &Variant, keys: usize) {
    let t0 = Instant::now();
    let op = fill(&v.spec, keys, v.records_per_key);
    let filled = t0.elapsed().as_secs_f64();
    let open = op.pending();
    assert_eq!(open, keys, "one open state per key");
    let (clone, copy) = best(|| op.clone());
    drop(copy);
    let (enc, bytes) = best(|| encode(42, &op).expect("encodes"));
    let (check, _) = best(|| verify(&bytes).expect("whole"));
    let (dec, (id, back)) = best(|| decode::<WindowOperator>(&bytes).expect("decodes"));
    assert_eq!(id, 42);
    assert_eq!(
        back.pending(),
        open,
        "the restored operator holds every open window"
    );
    // A restore at another parallelism: the state of 8 keyed subtasks
    // (each key where the exchange sends it) regrouped into 4, then back
    // into 8 (the decode above is the part shared with any restore).
    let route = |n: usize| move |k: &[Value]| key_subtask(k, n);
    let eight = WindowOperator::regroup(vec![op.clone()], 8, route(8)).expect("regroups");
    let mut inputs: Vec<Vec<WindowOperator>> = (0..3).map(|_| eight.clone()).collect();
    let (rescale, four) = best(|| {
        let parts = inputs.pop().expect("one input per run");
        WindowOperator::regroup(parts, 4, route(4)).expect("regroups")
    });
    assert_eq!(
        four.iter().map(WindowOperator::pending).sum::<usize>(),
        open,
        "every open window in some subtask after regrouping"
    );
    drop((eight, four));
    let fired = fire_all(op);
    assert_eq!(fired.len(), open, "every open window fires");
    assert!(
        fire_all(back) == fired,
        "the restored operator fires the same windows"
    );
    println!(
        "  {}: {open} open key-windows ({} records in, {filled:.2} s to build)",
        v.name,
        keys * v.records_per_key
    );
    println!(
        "    clone {:>7.3} s   encode {:>7.3} s   checksum {:>7.3} s   decode (restore) {:>7.3} s",
        clone, enc, check, dec
    );
    println!(
        "    regroup 8 -> 4 subtasks {:>7.3} s; restore at another parallelism (decode + regroup) {:>7.3} s{}",
        rescale,
        dec + rescale,
        if dec + rescale < 2.0 {
            ""
        } else {
            "   ** over the 2 s target **"
        }
    );
    println!(
        "    {:.1} MB, {:.1} bytes per open window; decode {:.0} open windows/s, {:.0} MB/s{}",
        bytes.len() as f64 / 1e6,
        bytes.len() as f64 / open as f64,
        open as f64 / dec,
        bytes.len() as f64 / 1e6 / dec,
        if dec < 2.0 {
            ""
        } else {
            "   ** over the 2 s target **"
        }
    );
}

fn main() {
    let keys = env_num("OPEN", 1_000_000);
    println!("restore bench: {keys} open key-windows (TUMBLE 1 min, keys user-NNNNNN), best of 3");
    for v in variants() {
        measure(&v, keys);
    }
    println!("  peak RSS of the process: {:.0} MB", peak_rss_mb());
}
