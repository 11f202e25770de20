//! The join nodes alone, as a join subtask drives them (no decoding, no
//! threads), on the peer bench's shape: orders (BIGINT id, a STRING
//! currency of 100, INT amount, TIMESTAMP), 100 per second of event time.
//!
//! - **Temporal join**: a version of every currency each minute (port 1),
//!   the orders on port 0, a watermark on both ports every second of event
//!   time: nanoseconds per order joined.
//! - **Interval join**: one shipment per order 1 s to 10 min after it;
//!   nanoseconds per row (both sides).
//! - **Bytes per held row**: resident memory grown (VmRSS, measured first,
//!   in a fresh process) per probe row a temporal join holds while its
//!   watermark stands still, and per row an interval join caches. The row
//!   itself (four values of 24 bytes) is 96 of them.
//!
//! `cargo bench -p lowwater-core --bench join` (ORDERS=n to change the size).

use std::sync::Arc;
use std::time::Instant;

use lowwater_core::join::interval::{IntervalSpec, JoinKind, Paired, LEFT, RIGHT};
use lowwater_core::join::interval_node::IntervalJoinNode;
use lowwater_core::join::node::TemporalJoinNode;
use lowwater_core::join::temporal::{Joined, BUILD, PROBE};
use lowwater_core::value::{Row, Value};
use lowwater_core::watermark::Progress;

#[path = "proc/mod.rs"]
mod proc_stat;
use proc_stat::{env_num, rss_bytes};

const DAY: i64 = 1_757_808_000_000;
const CURRENCIES: usize = 100;

fn wm(ts: i64) -> Progress {
    Progress {
        watermark: Some(ts),
        ..Progress::NONE
    }
}

/// Order `i`: its time, key and row (the currency string shared, as the
/// source's interner shares it).
fn order(i: usize, names: &[Value]) -> (i64, Row, Row) {
    let ts = DAY + 10_000 + i as i64 * 10;
    let c = names[(i * 7919) % CURRENCIES].clone();
    let row = vec![
        Value::Int(i as i64),
        c.clone(),
        Value::Int(1 + (i % 99) as i64),
        Value::Timestamp(ts),
    ];
    (ts, vec![c], row)
}

fn currencies() -> Vec<Value> {
    (0..CURRENCIES)
        .map(|c| Value::Str(Arc::from(format!("c{c}").as_str())))
        .collect()
}

/// Nanoseconds per order through a temporal join whose watermark moves
/// every second of event time; the rows joined.
fn temporal(n: usize) -> (f64, usize) {
    let names = currencies();
    let mut node = TemporalJoinNode::new(1, 1, true, u64::MAX, 1_000);
    let mut out: Vec<Joined> = Vec::new();
    let mut joined = 0;
    let start = Instant::now();
    let mut next_minute = DAY;
    for i in 0..n {
        let (ts, key, row) = order(i, &names);
        while next_minute <= ts + 60_000 {
            for (c, name) in names.iter().enumerate() {
                let rate = vec![
                    name.clone(),
                    Value::Int(100 + c as i64),
                    Value::Timestamp(next_minute),
                ];
                let key = std::slice::from_ref(name);
                node.build(next_minute, key, key, &rate);
            }
            next_minute += 60_000;
        }
        node.probe(ts, &key, row);
        if i % 100 == 99 {
            let w = ts - 5_000;
            node.progress(PROBE, 0, wm(w), 0, &mut out);
            node.progress(BUILD, 0, wm(next_minute - 65_000), 0, &mut out);
            joined += out.len();
            out.clear();
        }
    }
    node.progress(PROBE, 0, wm(i64::MAX), 0, &mut out);
    node.progress(BUILD, 0, wm(i64::MAX), 0, &mut out);
    joined += out.len();
    (start.elapsed().as_nanos() as f64 / n as f64, joined)
}

/// An inner join of orders with what comes up to 10 minutes after them.
fn ten_minutes() -> IntervalSpec {
    IntervalSpec {
        kind: JoinKind::Inner,
        lower: -600_000,
        upper: 0,
        min_cleanup: 0,
    }
}

/// Nanoseconds per row (orders and shipments) through an interval join of
/// 10 minutes; the pairs made.
fn interval(n: usize) -> (f64, usize) {
    let names = currencies();
    let mut node = IntervalJoinNode::new(ten_minutes(), 1, 1, u64::MAX, 1_000);
    let mut out: Vec<Paired> = Vec::new();
    let mut pairs = 0;
    let mut all = |_: &Row, _: &Row| Ok::<bool, ()>(true);
    // Shipments 1 s to 10 min after their order, sent in time order.
    let mut ships: Vec<(i64, usize)> = (0..n)
        .map(|i| {
            (
                order(i, &names).0 + 1_000 + ((i * 104_729) % 599_000) as i64,
                i,
            )
        })
        .collect();
    ships.sort_unstable();
    let mut s = 0;
    let start = Instant::now();
    for i in 0..n {
        let (ts, _, row) = order(i, &names);
        let key = [Value::Int(i as i64)];
        node.row(LEFT, ts, &key, row, &mut all, &mut out).ok();
        while s < ships.len() && ships[s].0 <= ts {
            let (at, o) = ships[s];
            let ship = vec![
                Value::Int(s as i64),
                Value::Int(o as i64),
                Value::Timestamp(at),
            ];
            node.row(RIGHT, at, &[Value::Int(o as i64)], ship, &mut all, &mut out)
                .ok();
            s += 1;
        }
        if i % 100 == 99 {
            node.progress(LEFT, 0, wm(ts - 5_000), 0, &mut all, &mut out)
                .ok();
            node.progress(RIGHT, 0, wm(ts - 5_000), 0, &mut all, &mut out)
                .ok();
        }
        pairs += out.len();
        out.clear();
    }
    for &(at, o) in &ships[s..] {
        let ship = vec![Value::Int(0), Value::Int(o as i64), Value::Timestamp(at)];
        node.row(RIGHT, at, &[Value::Int(o as i64)], ship, &mut all, &mut out)
            .ok();
    }
    pairs += out.len();
    (start.elapsed().as_nanos() as f64 / (2 * n) as f64, pairs)
}

/// Heap bytes per probe row a temporal join holds while its watermark
/// stands still (the versioned side never moves), and per row an interval
/// join caches (no watermark at all).
fn held_bytes(n: usize) -> (f64, f64) {
    let names = currencies();
    let mut node = TemporalJoinNode::new(1, 1, true, u64::MAX, 1_000);
    let before = rss_bytes();
    for i in 0..n {
        let (ts, key, row) = order(i, &names);
        node.probe(ts, &key, row);
    }
    let temporal = (rss_bytes() - before) / n as f64;
    assert_eq!(node.op().waiting(), n as u64);
    drop(node);
    let mut node = IntervalJoinNode::new(ten_minutes(), 1, 1, u64::MAX, 1_000);
    let mut out = Vec::new();
    let mut all = |_: &Row, _: &Row| Ok::<bool, ()>(true);
    let before = rss_bytes();
    for i in 0..n {
        let (ts, _, row) = order(i, &names);
        node.row(LEFT, ts, &[Value::Int(i as i64)], row, &mut all, &mut out)
            .ok();
    }
    let interval = (rss_bytes() - before) / n as f64;
    assert_eq!(node.op().cached(), n as u64);
    (temporal, interval)
}

fn main() {
    let n = env_num("ORDERS", 1_000_000);
    // First, while the process is fresh (freed memory stays resident).
    let (held_t, held_i) = held_bytes(n);
    let mut best_t = f64::MAX;
    let mut best_i = f64::MAX;
    let (mut joined, mut pairs) = (0, 0);
    for _ in 0..3 {
        let (t, j) = temporal(n);
        let (i, p) = interval(n);
        best_t = best_t.min(t);
        best_i = best_i.min(i);
        (joined, pairs) = (j, p);
    }
    assert_eq!(joined, n, "every order joined");
    assert_eq!(pairs, n, "every order paired with its shipment");
    println!(
        "temporal join: {best_t:.0} ns per order ({:.1}M orders/s), {joined} joined",
        1e3 / best_t
    );
    println!(
        "interval join: {best_i:.0} ns per row ({:.1}M rows/s), {pairs} pairs",
        1e3 / best_i
    );
    println!(
        "held: {held_t:.0} bytes per waiting probe row (temporal), {held_i:.0} bytes per cached \
         row (interval)"
    );
}
