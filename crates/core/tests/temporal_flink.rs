//! The temporal join operator against real Flink 2.3: the compatibility
//! suite's temporal join cases (`compat/cases/temporal_*.sql`, Flink's rows
//! in `compat/expected`) computed by the core operator alone, fed through
//! the operator harness with the cases' data (`compat/data/orders.jsonl`,
//! `rates.jsonl`) as two sources whose watermarks trail their largest time
//! by the tables' 5 s. Each probe row must be paired with the version
//! Flink joined it with: for the deduplicated view (an older rate arriving
//! after a newer one is not a version), for the table with a primary key
//! (every row is), for NULL keys (Flink joins a NULL currency with the NULL
//! currency's rate) and for orders before a key's first version.

use std::path::Path;

use lowwater_core::dataflow::harness::OperatorHarness;
use lowwater_core::join::dedup::KeepLast;
use lowwater_core::join::temporal::{Joined, TemporalJoin, BUILD, PROBE};
use lowwater_core::time::parse_timestamp;
use lowwater_core::window::batch::InputBatch;
use lowwater_core::{secs, Timestamp, Value, MAX_WATERMARK, MIN_WATERMARK};
use sonic_rs::JsonValueTrait;

fn compat(path: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../compat")
        .join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn json(line: &str) -> sonic_rs::Value {
    sonic_rs::from_str(line).expect("a JSON row")
}

fn text(v: &sonic_rs::Value, field: &str) -> Value {
    v.get(field)
        .and_then(|f| f.as_str())
        .map_or(Value::Null, Value::from)
}

fn int(v: &sonic_rs::Value, field: &str) -> Option<i64> {
    v.get(field).and_then(|f| f.as_i64())
}

fn time(v: &sonic_rs::Value, field: &str) -> Option<Timestamp> {
    v.get(field)
        .and_then(|f| f.as_str())
        .and_then(parse_timestamp)
}

/// (key, rowtime, row) of each line of a data file: orders' row is
/// `[order_id, amount]`, rates' `[rate, ts]`.
fn rows(file: &str, orders: bool) -> Vec<(Value, Timestamp, Vec<Value>)> {
    compat(file)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v = json(l);
            let ts = time(&v, "ts").expect("a ts");
            let row = if orders {
                let id = int(&v, "order_id").expect("an id");
                vec![
                    Value::Int(id),
                    Value::Int(int(&v, "amount").expect("an amount")),
                ]
            } else {
                vec![
                    Value::Int(int(&v, "rate").expect("a rate")),
                    Value::Timestamp(ts),
                ]
            };
            (text(&v, "currency"), ts, row)
        })
        .collect()
}

/// Every order paired with its version, in the order the join emits them.
fn pairs(deduplicated: bool) -> Vec<Joined> {
    let orders = rows("data/orders.jsonl", true);
    let rates = rows("data/rates.jsonl", false);
    let mut h = OperatorHarness::new(TemporalJoin::new(), &[1, 1]).expect("two ports");
    let mut dedup = KeepLast::new();
    let (mut max_o, mut max_r) = (MIN_WATERMARK, MIN_WATERMARK);
    let delay = secs(5);
    for i in 0..orders.len().max(rates.len()) {
        if let Some((k, ts, row)) = orders.get(i) {
            let mut b = InputBatch::default();
            b.push(*ts, 0, &mut vec![k.clone()], &mut row.clone());
            h.records(PROBE, 0, b);
            max_o = max_o.max(*ts);
            h.watermark(PROBE, 0, max_o - delay - 1);
        }
        if let Some((k, ts, row)) = rates.get(i) {
            if !deduplicated || dedup.admit(std::slice::from_ref(k), *ts) {
                let mut b = InputBatch::default();
                b.push(*ts, 0, &mut vec![k.clone()], &mut row.clone());
                h.records(BUILD, 0, b);
            }
            max_r = max_r.max(*ts);
            h.watermark(BUILD, 0, max_r - delay - 1);
        }
    }
    h.watermark(PROBE, 0, MAX_WATERMARK);
    h.watermark(BUILD, 0, MAX_WATERMARK);
    assert_eq!(h.operator().late_probes() + h.operator().late_versions(), 0);
    h.records_out().into_iter().cloned().collect()
}

/// Every order with the (rate, rate time) it was paired with, sorted;
/// orders without a version are left out unless `left`.
fn join(deduplicated: bool, left: bool) -> Vec<(i64, Option<(i64, Timestamp)>)> {
    let mut out: Vec<_> = pairs(deduplicated)
        .iter()
        .filter(|j| left || j.build.is_some())
        .map(|j| {
            let id = j.probe[0].as_int().expect("an id");
            let b = j.build.as_ref().map(|r| {
                let rate = r[0].as_int().expect("a rate");
                let Value::Timestamp(t) = r[1] else {
                    panic!("a rate time")
                };
                (rate, t)
            });
            (id, b)
        })
        .collect();
    out.sort();
    out
}

/// Flink's rows of a case as (order id, (rate, rate time)); the inner
/// case has no rate time column: it is taken from the left case's rows.
fn flink(
    case: &str,
    times: &[(i64, Option<(i64, Timestamp)>)],
) -> Vec<(i64, Option<(i64, Timestamp)>)> {
    let mut out: Vec<_> = compat(&format!("expected/{case}.jsonl"))
        .lines()
        .map(|l| {
            let v = json(l);
            let id = int(&v, "order_id").expect("an id");
            let b = int(&v, "rate").map(|rate| {
                let t = time(&v, "rate_time").unwrap_or_else(|| {
                    times
                        .iter()
                        .find(|(i, _)| *i == id)
                        .and_then(|(_, b)| b.map(|b| b.1))
                        .expect("the left case's rate time")
                });
                (rate, t)
            });
            (id, b)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_deduplicated_view_pairs_every_order_as_flink_did() {
    let left = join(true, true);
    assert_eq!(left, flink("temporal_left_versioned_view", &[]));
    assert_eq!(
        join(true, false),
        flink("temporal_inner_versioned_view", &left)
    );
}

#[test]
fn the_primary_key_table_pairs_every_order_as_flink_did() {
    // Here the 10:00:08 rate that arrived after the 10:00:10 one is a
    // version too: order 5 (10:00:09) joins it, where the view gave 114.
    let left = join(false, true);
    assert_eq!(left, flink("temporal_left_primary_key_table", &[]));
    assert!(left.contains(&(5, Some((115, secs(1_757_844_008))))));
}

#[test]
fn the_condition_beyond_the_key_pads_with_nulls_as_flink_did() {
    // ON o.currency = r.currency AND o.amount > 5 AND r.rate < 117, LEFT.
    let mut got: Vec<(i64, Option<i64>)> = pairs(true)
        .into_iter()
        .filter_map(|j| {
            // The joined row: order_id, amount, then the version's rate.
            j.into_row::<()>(2, true, |r| {
                Ok(r[1].as_int() > Some(5) && r[2].as_int() < Some(117))
            })
            .expect("computes")
        })
        .map(|r| (r[0].as_int().expect("an id"), r[2].as_int()))
        .collect();
    got.sort();
    let mut want: Vec<(i64, Option<i64>)> =
        compat("expected/temporal_left_residual_condition.jsonl")
            .lines()
            .map(|l| {
                let v = json(l);
                (int(&v, "order_id").expect("an id"), int(&v, "rate"))
            })
            .collect();
    want.sort();
    assert_eq!(got, want);
}
