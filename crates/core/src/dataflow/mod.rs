//! Operators with input ports, the shape every event-time operator of a
//! job's graph takes (window aggregations today; joins and the rest of the
//! event-time SQL next).
//!
//! An [`Operator`] is a pure state machine: records arrive in batches on
//! one of its input ports, the combined watermark of its ports arrives
//! after them, and what it emits goes into an output vector. It has no
//! clock, no thread and no channel of its own: the drivers (the replay's
//! virtual-time stepper, the live runtime's tasks) hand it its input
//! through an [`gate::InputGate`], which combines the watermarks of its
//! ports' channels as Flink does and aligns checkpoint barriers across all
//! of them. Its state is its own serializable type (a snapshot is the
//! operator, encoded), and what it holds is read from it
//! ([`Operator::gauges`]) rather than pushed through the data path.
//!
//! [`harness::OperatorHarness`] drives one operator alone, port by port and
//! channel by channel, as Flink's `TwoInputStreamOperatorTestHarness` does.

pub mod gate;
pub mod harness;
pub mod window;

use crate::error::Error;
use crate::time::Timestamp;
use crate::window::batch::InputBatch;
use crate::window::operator::{WindowOperator, WindowOutput};

/// What an operator holds, read when asked (metrics, the page, the state
/// limit, the stall explanation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Gauges {
    /// Open keyed states (a window's (window, key) states not fired yet, a
    /// join's buffered rows).
    pub open_states: u64,
    /// An estimate of the bytes they take.
    pub state_bytes: u64,
    /// Records processed, late ones included.
    pub records_in: u64,
    /// Late records dropped.
    pub late_dropped: u64,
    /// Late records sent to a side output.
    pub late_routed: u64,
}

/// An event-time operator with input ports.
pub trait Operator {
    /// What it emits.
    type Output;

    /// How many input ports it has (1 for a window aggregation, 2 for a
    /// join).
    fn inputs(&self) -> usize;

    /// A batch of records arrives on `port`. A record that fails goes to
    /// `fail` with its index in the batch and changes no state; the others
    /// are processed.
    fn on_records(
        &mut self,
        port: usize,
        batch: &InputBatch,
        out: &mut Vec<Self::Output>,
        fail: &mut dyn FnMut(usize, Error),
    );

    /// The combined watermark of the ports advanced to `wm` (strictly
    /// above the last; the gate sees to it). Returns the watermark to
    /// forward downstream, after what it emitted (a window aggregation
    /// forwards `wm` itself; an operator that holds rows back may forward
    /// less).
    fn on_watermark(&mut self, wm: Timestamp, out: &mut Vec<Self::Output>) -> Option<Timestamp>;

    /// What it holds now.
    fn gauges(&self) -> Gauges;
}

impl Operator for WindowOperator {
    type Output = WindowOutput;

    fn inputs(&self) -> usize {
        1
    }

    fn on_records(
        &mut self,
        _port: usize,
        batch: &InputBatch,
        out: &mut Vec<WindowOutput>,
        fail: &mut dyn FnMut(usize, Error),
    ) {
        self.process_batch(batch, out, fail);
    }

    fn on_watermark(&mut self, wm: Timestamp, out: &mut Vec<WindowOutput>) -> Option<Timestamp> {
        // Flink's window operator fires, then forwards the watermark.
        WindowOperator::on_watermark(self, wm, out);
        Some(wm)
    }

    fn gauges(&self) -> Gauges {
        let late = self.late();
        Gauges {
            open_states: self.pending() as u64,
            state_bytes: self.state_bytes() as u64,
            records_in: self.records_in(),
            late_dropped: late.total_dropped(),
            late_routed: late.total_routed(),
        }
    }
}
