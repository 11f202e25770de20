//! The window operator alone: records from batches (as the window subtask
//! takes them) into 1-minute tumbling windows, fired by a watermark every
//! 10 s of event time, no decoding and no threads. Three shapes:
//! - `16 int keys, COUNT(*)`: the datagen bench's job;
//! - `1,000 string keys, COUNT/SUM/MIN/MAX`: the JSON keyed job's;
//! - `global, COUNT/SUM/MIN/MAX`: the JSON global job's;
//! - `1,000 string keys, HOP 5 min/1 min, COUNT/SUM/MIN/MAX`: five windows
//!   per record, the SUM kept per slice (as Flink merges a HOP's slices).
//!
//! Event times are 1 ms apart, so a window holds 60,000 records; prints
//! nanoseconds per record and results fired, best of 5, for records handed
//! in one at a time (`process_ref`, as replay does) and a batch at a time
//! (`process_batch`, as the window subtask does).
//!
//! `cargo bench -p lowwater-core --bench window` (RECORDS=n to change the size).

use std::time::Instant;

use lowwater_core::value::Value;
use lowwater_core::window::aggregate::{AggFunc, AggSpec};
use lowwater_core::window::assigner::WindowAssigner;
use lowwater_core::window::batch::InputBatch;
use lowwater_core::window::operator::{WindowOperator, WindowOutput, WindowSpec};

#[path = "proc/mod.rs"]
mod proc_stat;
use proc_stat::env_num;

const DAY: i64 = 1_757_808_000_000;
const BATCH: usize = 1_024;

struct Shape {
    name: &'static str,
    spec: WindowSpec,
    key: fn(usize) -> Vec<Value>,
}

fn shapes() -> Vec<Shape> {
    let tumble = WindowAssigner::tumbling(60_000);
    let mut four = WindowSpec::count(tumble);
    for f in [AggFunc::Sum, AggFunc::Min, AggFunc::Max] {
        four.aggregates.push(AggSpec::on(f, 0));
    }
    vec![
        Shape {
            name: "16 int keys, COUNT(*)",
            spec: WindowSpec::count(tumble),
            key: |i| vec![Value::Int((i % 16) as i64)],
        },
        Shape {
            name: "1,000 string keys, COUNT/SUM/MIN/MAX",
            spec: four.clone(),
            key: |i| vec![Value::str(&format!("u{}", (i * 7919) % 1000))],
        },
        Shape {
            name: "global, COUNT/SUM/MIN/MAX",
            spec: four.clone(),
            key: |_| Vec::new(),
        },
        Shape {
            name: "1,000 string keys, HOP 5 min/1 min, COUNT/SUM/MIN/MAX",
            spec: WindowSpec {
                assigner: WindowAssigner::hopping(300_000, 60_000),
                ..four
            },
            key: |i| vec![Value::str(&format!("u{}", (i * 7919) % 1000))],
        },
    ]
}

/// The records in batches of 1,024.
fn batches(shape: &Shape, records: usize) -> Vec<InputBatch> {
    let mut out = Vec::new();
    let mut b = InputBatch::with_capacity(BATCH, 1, 1);
    for i in 0..records {
        let (mut key, mut row) = ((shape.key)(i), vec![Value::Int((i * 31 % 500) as i64)]);
        b.push(DAY + i as i64, 0, &mut key, &mut row);
        if b.len() == BATCH {
            out.push(std::mem::take(&mut b));
        }
    }
    if !b.is_empty() {
        out.push(b);
    }
    out
}

/// One run, a batch at a time or a record at a time: seconds and results
/// fired.
fn run(spec: &WindowSpec, batches: &[InputBatch], per_batch: bool) -> (f64, usize) {
    let mut op = WindowOperator::new(spec.clone()).expect("a valid window");
    let mut out: Vec<WindowOutput> = Vec::new();
    let mut fired = 0;
    let mut next_wm = DAY + 10_000;
    let started = Instant::now();
    for b in batches {
        if per_batch {
            op.process_batch(b, &mut out, |i, e| panic!("record {i}: {e}"));
        } else {
            for input in b.iter() {
                op.process_ref(input, &mut out).expect("placed");
            }
        }
        let last = b.get(b.len() - 1).map_or(0, |r| r.ts);
        if last >= next_wm {
            op.on_watermark(last - 1, &mut out);
            next_wm += 10_000;
        }
        fired += out.len();
        out.clear();
    }
    op.on_watermark(i64::MAX, &mut out);
    fired += out.len();
    (started.elapsed().as_secs_f64(), fired)
}

fn main() {
    let records = env_num("RECORDS", 5_000_000);
    println!("window bench: {records} records per shape, 1-minute TUMBLE, best of 5");
    for shape in shapes() {
        let input = batches(&shape, records);
        for (how, per_batch) in [("per record", false), ("per batch", true)] {
            let (mut best, mut fired) = (f64::MAX, 0);
            for _ in 0..5 {
                let (secs, n) = run(&shape.spec, &input, per_batch);
                best = best.min(secs);
                fired = n;
            }
            println!(
                "  {:<38} {how:<10} {:>6.1} ns/record  {:>6.1}M records/s  {fired} results",
                shape.name,
                best * 1e9 / records as f64,
                records as f64 / best / 1e6
            );
        }
    }
}
