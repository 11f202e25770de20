use serde::{Deserialize, Serialize};

use super::*;
use crate::time::{secs, MIN_WATERMARK};
use crate::value::Value;
use crate::window::assigner::WindowAssigner;
use crate::window::operator::{WindowOperator, WindowSpec};

fn batch(records: &[(&str, Timestamp)]) -> InputBatch {
    let mut b = InputBatch::default();
    for (k, ts) in records {
        b.push(*ts, 0, &mut vec![Value::from(*k)], &mut vec![]);
    }
    b
}

fn counts() -> WindowOperator {
    WindowOperator::new(WindowSpec::count(WindowAssigner::tumbling(secs(60))))
        .expect("a valid window")
}

/// (key, window end, count) of what fired.
fn fired(h: &OperatorHarness<WindowOperator>) -> Vec<(String, Timestamp, i64)> {
    h.fired()
        .iter()
        .map(|r| {
            let k = r.key[0].as_str().unwrap_or_default().to_string();
            (k, r.window.end, r.values[0].as_int().unwrap_or(-1))
        })
        .collect()
}

#[test]
fn a_window_fires_once_every_channel_passed_its_end_then_the_watermark_follows() {
    let mut h = OperatorHarness::new(counts(), &[2]).expect("ports match");
    h.records(0, 0, batch(&[("a", secs(1)), ("b", secs(2))]));
    h.records(0, 1, batch(&[("a", secs(3))]));
    h.watermark(0, 0, secs(60));
    assert!(h.fired().is_empty());
    assert_eq!(h.holding(), Some((0, 1)));
    h.watermark(0, 1, secs(60) - 1);
    assert_eq!(
        fired(&h),
        vec![("a".into(), secs(60), 2), ("b".into(), secs(60), 1)]
    );
    assert_eq!(h.emitted().last(), Some(&Emitted::Watermark(secs(60) - 1)));
    assert_eq!(h.gauges().open_states, 0);
    assert_eq!(h.gauges().records_in, 3);
}

#[test]
fn an_idle_channel_releases_the_windows_it_held() {
    let mut h = OperatorHarness::new(counts(), &[2]).expect("ports match");
    h.records(0, 0, batch(&[("a", secs(1))]));
    h.watermark(0, 0, secs(120));
    assert_eq!(h.gauges().open_states, 1);
    h.status(0, 1, WatermarkStatus::Idle);
    assert_eq!(fired(&h), vec![("a".into(), secs(60), 1)]);
    h.status(0, 0, WatermarkStatus::Idle);
    assert_eq!(h.emitted().last(), Some(&Emitted::Idle));
    h.status(0, 0, WatermarkStatus::Active);
    assert_eq!(h.emitted().last(), Some(&Emitted::Active));
}

#[test]
fn a_record_that_cannot_be_placed_fails_alone() {
    let mut h = OperatorHarness::new(counts(), &[1]).expect("ports match");
    h.records(
        0,
        0,
        batch(&[("a", secs(1)), ("x", MIN_WATERMARK), ("a", secs(2))]),
    );
    assert_eq!(h.failed().len(), 1);
    assert_eq!(h.failed()[0].0, 1);
    h.watermark(0, 0, secs(60));
    assert_eq!(fired(&h), vec![("a".into(), secs(60), 2)]);
}

#[test]
fn the_wrong_number_of_ports_is_refused() {
    assert!(OperatorHarness::new(counts(), &[1, 1]).is_err());
}

#[test]
fn input_after_a_barrier_waits_for_the_alignment_and_stays_out_of_the_snapshot() {
    let mut h = OperatorHarness::new(counts(), &[2]).expect("ports match");
    h.records(0, 0, batch(&[("a", secs(1))]));
    h.barrier(0, 0, 1);
    assert!(h.is_held(0, 0));
    // After its barrier, channel 0's input belongs to checkpoint 2.
    h.records(0, 0, batch(&[("a", secs(2))]));
    h.watermark(0, 0, secs(100));
    assert_eq!(h.gauges().records_in, 1, "held until the alignment");
    h.records(0, 1, batch(&[("b", secs(3))]));
    h.barrier(0, 1, 1);
    assert!(!h.is_held(0, 0));
    assert_eq!(h.gauges().records_in, 3);
    let (id, bytes) = h.snapshots()[0].clone();
    assert_eq!(id, 1);
    // The snapshot holds a@1 and b@3, not the held a@2.
    let mut r: OperatorHarness<WindowOperator> =
        OperatorHarness::restore(&bytes).expect("the snapshot decodes");
    assert_eq!(r.gauges().records_in, 2);
    r.watermark(0, 0, secs(100));
    r.watermark(0, 1, secs(100));
    assert_eq!(
        fired(&r),
        vec![("a".into(), secs(60), 1), ("b".into(), secs(60), 1)]
    );
}

/// One scripted step of a harness.
type Step = dyn Fn(&mut OperatorHarness<WindowOperator>);

#[test]
fn a_restored_operator_has_the_future_of_one_that_never_stopped() {
    let script = |h: &mut OperatorHarness<WindowOperator>, from: usize| {
        let steps: Vec<Box<Step>> = vec![
            Box::new(|h| h.records(0, 0, batch(&[("a", secs(5)), ("b", secs(70))]))),
            Box::new(|h| h.watermark(0, 0, secs(65))),
            Box::new(|h| h.records(0, 1, batch(&[("a", secs(50))]))),
            Box::new(|h| h.barrier(0, 0, 7)),
            Box::new(|h| h.barrier(0, 1, 7)),
            Box::new(|h| h.records(0, 1, batch(&[("a", secs(61))]))),
            Box::new(|h| h.watermark(0, 1, secs(200))),
            Box::new(|h| h.watermark(0, 0, secs(200))),
        ];
        for s in &steps[from..] {
            s(h);
        }
    };
    let mut whole = OperatorHarness::new(counts(), &[2]).expect("ports match");
    script(&mut whole, 0);
    let bytes = whole.snapshots()[0].1.clone();
    let mut restored: OperatorHarness<WindowOperator> =
        OperatorHarness::restore(&bytes).expect("the snapshot decodes");
    script(&mut restored, 5);
    assert_eq!(fired(&restored), fired(&whole));
    assert_eq!(
        fired(&whole),
        vec![
            ("a".into(), secs(60), 2),
            ("a".into(), secs(120), 1),
            ("b".into(), secs(120), 1)
        ]
    );
}

/// A two-input operator for the harness's own tests: it keeps each port's
/// records and, at each watermark, emits those at or below it as (port,
/// key, ts), by time: the shape of an event-time join's buffers.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Buffer {
    rows: Vec<(usize, String, Timestamp)>,
}

impl Operator for Buffer {
    type Output = (usize, String, Timestamp);

    fn inputs(&self) -> usize {
        2
    }

    fn on_records(
        &mut self,
        port: usize,
        batch: &InputBatch,
        _out: &mut Vec<Self::Output>,
        _fail: &mut dyn FnMut(usize, Error),
    ) {
        for r in batch.iter() {
            let k = r.key[0].as_str().unwrap_or_default().to_string();
            self.rows.push((port, k, r.ts));
        }
    }

    fn on_watermark(&mut self, wm: Timestamp, out: &mut Vec<Self::Output>) -> Option<Timestamp> {
        self.rows.sort_by_key(|r| (r.2, r.0));
        let n = self.rows.partition_point(|r| r.2 <= wm);
        out.extend(self.rows.drain(..n));
        Some(wm)
    }

    fn gauges(&self) -> Gauges {
        Gauges {
            open_states: self.rows.len() as u64,
            ..Gauges::default()
        }
    }
}

#[test]
fn a_quiet_partition_of_the_second_input_holds_a_two_input_operator() {
    // Orders on port 0 (one channel), rates on port 1 (two channels, the
    // second a partition that never gets a record).
    let mut h = OperatorHarness::new(Buffer::default(), &[1, 2]).expect("ports match");
    h.records(0, 0, batch(&[("o1", 10), ("o2", 30)]));
    h.records(1, 0, batch(&[("r1", 5)]));
    h.watermark(0, 0, 40);
    h.watermark(1, 0, 40);
    assert!(h.records_out().is_empty());
    assert_eq!(h.gauges().open_states, 3);
    assert_eq!(h.holding(), Some((1, 1)), "port 1, channel 1 holds it");
    h.status(1, 1, WatermarkStatus::Idle);
    assert_eq!(
        h.records_out(),
        vec![
            &(1, "r1".to_string(), 5),
            &(0, "o1".to_string(), 10),
            &(0, "o2".to_string(), 30)
        ]
    );
    assert_eq!(h.current_watermark(), 40);
    // The whole rates input goes idle: the orders alone decide.
    h.status(1, 0, WatermarkStatus::Idle);
    h.records(0, 0, batch(&[("o3", 50)]));
    h.watermark(0, 0, 60);
    assert_eq!(h.records_out().len(), 4);
    assert_eq!(h.emitted().last(), Some(&Emitted::Watermark(60)));
}

#[test]
fn barriers_of_both_inputs_align_before_the_snapshot() {
    let mut h = OperatorHarness::new(Buffer::default(), &[1, 1]).expect("ports match");
    h.records(0, 0, batch(&[("o1", 10)]));
    h.barrier(0, 0, 1);
    h.records(0, 0, batch(&[("o2", 20)]));
    assert!(h.snapshots().is_empty());
    h.records(1, 0, batch(&[("r1", 5)]));
    h.barrier(1, 0, 1);
    assert_eq!(h.snapshots().len(), 1);
    let r: OperatorHarness<Buffer> =
        OperatorHarness::restore(&h.snapshots()[0].1).expect("the snapshot decodes");
    assert_eq!(r.gauges().open_states, 2, "o1 and r1, not o2");
    assert_eq!(h.gauges().open_states, 3);
}
