//! An operator test harness: one operator alone behind its input gate, fed
//! port by port and channel by channel with scripted batches, watermarks,
//! idle marks, barriers and ends, as Flink's `OneInputStreamOperatorTestHarness`
//! and `TwoInputStreamOperatorTestHarness` do.
//!
//! ```
//! use lowwater_core::dataflow::harness::{Emitted, OperatorHarness};
//! use lowwater_core::window::assigner::WindowAssigner;
//! use lowwater_core::window::batch::InputBatch;
//! use lowwater_core::window::operator::{WindowOperator, WindowSpec};
//! use lowwater_core::{secs, Value};
//!
//! let op = WindowOperator::new(WindowSpec::count(WindowAssigner::tumbling(secs(60)))).unwrap();
//! // One port, two channels (two upstream subtasks).
//! let mut h = OperatorHarness::new(op, &[2]).unwrap();
//! let mut batch = InputBatch::default();
//! batch.push(secs(10), 0, &mut vec![Value::from("k")], &mut vec![]);
//! h.records(0, 0, batch);
//! h.watermark(0, 0, secs(61));
//! assert!(h.fired().is_empty()); // channel 1 is at MIN: it holds the window
//! assert_eq!(h.holding(), Some((0, 1)));
//! h.watermark(0, 1, secs(61));
//! assert_eq!(h.fired().len(), 1);
//! assert_eq!(h.emitted().last(), Some(&Emitted::Watermark(secs(61))));
//! ```
//!
//! Input of a channel held by a barrier alignment waits, in its order, until
//! the alignment ends, and is then handled; at alignment the operator is
//! snapshotted (encoded as a checkpoint would be) before any held input.

use std::collections::VecDeque;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::checkpoint::barrier::Alignment;
use crate::checkpoint::{self, CheckpointError, CheckpointId};
use crate::error::{Error, Result};
use crate::time::Timestamp;
use crate::watermark::{Progress, WatermarkStatus};
use crate::window::batch::InputBatch;
use crate::window::operator::{WindowOutput, WindowResult};

use super::gate::{GateState, InputGate};
use super::{Gauges, Operator};

/// What left the operator, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Emitted<T> {
    /// An output record.
    Record(T),
    /// A watermark forwarded downstream.
    Watermark(Timestamp),
    /// The operator's inputs all went idle.
    Idle,
    /// An input became active again after all were idle.
    Active,
    /// Checkpoint `id` aligned: the operator's state was snapshotted.
    Snapshot(CheckpointId),
}

/// Input of a channel.
#[derive(Debug, Clone)]
enum Input {
    Records(InputBatch),
    Progress(Progress),
    Barrier(CheckpointId),
    End,
}

/// One operator behind its gate.
pub struct OperatorHarness<O: Operator> {
    op: O,
    gate: InputGate,
    held: VecDeque<(usize, usize, Input)>,
    emitted: Vec<Emitted<O::Output>>,
    snapshots: Vec<(CheckpointId, Vec<u8>)>,
    failed: Vec<(usize, Error)>,
    buf: Vec<O::Output>,
}

/// A snapshot: the gate's watermark state and the operator.
#[derive(serde::Serialize, serde::Deserialize)]
struct Snapshot<O> {
    gate: GateState,
    op: O,
}

impl<O: Operator + Serialize + DeserializeOwned> OperatorHarness<O> {
    /// `op` behind a gate with `channels[p]` channels on port `p`.
    pub fn new(op: O, channels: &[usize]) -> Result<Self> {
        if channels.len() != op.inputs() {
            return Err(Error::InvalidIndex(format!(
                "the operator has {} input ports, the harness was given {}",
                op.inputs(),
                channels.len()
            )));
        }
        Ok(OperatorHarness {
            op,
            gate: InputGate::new(channels),
            held: VecDeque::new(),
            emitted: Vec::new(),
            snapshots: Vec::new(),
            failed: Vec::new(),
            buf: Vec::new(),
        })
    }

    /// A harness continuing from snapshot `bytes` (one of
    /// [`OperatorHarness::snapshots`]).
    pub fn restore(bytes: &[u8]) -> std::result::Result<Self, CheckpointError> {
        let (_, s): (CheckpointId, Snapshot<O>) = checkpoint::decode(bytes)?;
        Ok(OperatorHarness {
            op: s.op,
            gate: InputGate::restore(s.gate),
            held: VecDeque::new(),
            emitted: Vec::new(),
            snapshots: Vec::new(),
            failed: Vec::new(),
            buf: Vec::new(),
        })
    }

    /// A batch of records on channel `ch` of port `port`.
    pub fn records(&mut self, port: usize, ch: usize, batch: InputBatch) {
        self.offer(port, ch, Input::Records(batch));
    }

    /// Watermark `wm` on channel `ch` of port `port`.
    pub fn watermark(&mut self, port: usize, ch: usize, wm: Timestamp) {
        let p = Progress {
            watermark: Some(wm),
            ..Progress::NONE
        };
        self.offer(port, ch, Input::Progress(p));
    }

    /// Channel `ch` of port `port` goes idle or active.
    pub fn status(&mut self, port: usize, ch: usize, s: WatermarkStatus) {
        let p = Progress {
            became_active: s == WatermarkStatus::Active,
            became_idle: s == WatermarkStatus::Idle,
            ..Progress::NONE
        };
        self.offer(port, ch, Input::Progress(p));
    }

    /// Checkpoint barrier `id` on channel `ch` of port `port`.
    pub fn barrier(&mut self, port: usize, ch: usize, id: CheckpointId) {
        self.offer(port, ch, Input::Barrier(id));
    }

    /// Channel `ch` of port `port` ends.
    pub fn end(&mut self, port: usize, ch: usize) {
        self.offer(port, ch, Input::End);
    }

    fn offer(&mut self, port: usize, ch: usize, input: Input) {
        if self.gate.is_held(port, ch) {
            self.held.push_back((port, ch, input));
            return;
        }
        self.handle(port, ch, input);
        // Held input of channels released by an alignment, in its order
        // (a channel may be held again by the next barrier it holds).
        while let Some(i) = self
            .held
            .iter()
            .position(|(p, c, _)| !self.gate.is_held(*p, *c))
        {
            if let Some((p, c, input)) = self.held.remove(i) {
                self.handle(p, c, input);
            }
        }
    }

    fn handle(&mut self, port: usize, ch: usize, input: Input) {
        match input {
            Input::Records(batch) => {
                let failed = &mut self.failed;
                self.op
                    .on_records(port, &batch, &mut self.buf, &mut |i, e| failed.push((i, e)));
                self.flush();
            }
            Input::Progress(p) => {
                for step in self.gate.input(port, ch, p) {
                    if step.became_active {
                        self.emitted.push(Emitted::Active);
                    }
                    if let Some(wm) = step.watermark {
                        let fwd = self.op.on_watermark(wm, &mut self.buf);
                        self.flush();
                        if let Some(f) = fwd {
                            self.emitted.push(Emitted::Watermark(f));
                        }
                    }
                    if step.became_idle {
                        self.emitted.push(Emitted::Idle);
                    }
                }
            }
            Input::Barrier(id) => {
                if let Alignment::Aligned(id) = self.gate.barrier(port, ch, id) {
                    self.snapshot(id);
                }
            }
            Input::End => {
                if let Alignment::Aligned(id) = self.gate.end(port, ch) {
                    self.snapshot(id);
                }
            }
        }
    }

    fn flush(&mut self) {
        self.emitted.extend(self.buf.drain(..).map(Emitted::Record));
    }

    fn snapshot(&mut self, id: CheckpointId) {
        let s = Snapshot {
            gate: self.gate.state().clone(),
            op: &self.op,
        };
        match checkpoint::encode(id, &s) {
            Ok(bytes) => self.snapshots.push((id, bytes)),
            Err(e) => self
                .failed
                .push((usize::MAX, Error::Checkpoint(e.to_string()))),
        }
        self.emitted.push(Emitted::Snapshot(id));
    }

    /// Everything that left the operator, in order.
    pub fn emitted(&self) -> &[Emitted<O::Output>] {
        &self.emitted
    }

    /// The output records, in order.
    pub fn records_out(&self) -> Vec<&O::Output> {
        self.emitted
            .iter()
            .filter_map(|e| match e {
                Emitted::Record(r) => Some(r),
                _ => None,
            })
            .collect()
    }

    /// Takes everything emitted so far.
    pub fn take_emitted(&mut self) -> Vec<Emitted<O::Output>> {
        std::mem::take(&mut self.emitted)
    }

    /// The snapshots taken, with their checkpoint ids.
    pub fn snapshots(&self) -> &[(CheckpointId, Vec<u8>)] {
        &self.snapshots
    }

    /// Records that failed (index in their batch, error).
    pub fn failed(&self) -> &[(usize, Error)] {
        &self.failed
    }

    /// Who holds the operator's watermark: (port, channel).
    pub fn holding(&self) -> Option<(usize, usize)> {
        self.gate.holding()
    }

    /// The operator's input watermark.
    pub fn current_watermark(&self) -> Timestamp {
        self.gate.current()
    }

    /// Whether channel `ch` of port `port` is held by an alignment.
    pub fn is_held(&self, port: usize, ch: usize) -> bool {
        self.gate.is_held(port, ch)
    }

    /// What the operator holds.
    pub fn gauges(&self) -> Gauges {
        self.op.gauges()
    }

    /// The operator.
    pub fn operator(&self) -> &O {
        &self.op
    }
}

impl<O: Operator<Output = WindowOutput> + Serialize + DeserializeOwned> OperatorHarness<O> {
    /// The window results emitted so far, in order.
    pub fn fired(&self) -> Vec<&WindowResult> {
        self.emitted
            .iter()
            .filter_map(|e| match e {
                Emitted::Record(WindowOutput::Fired(r)) => Some(r),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "harness_tests.rs"]
mod tests;
