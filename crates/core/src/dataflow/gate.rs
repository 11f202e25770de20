//! The input gate of an operator: its input ports, each with its channels
//! (one per upstream subtask), and what they tell the operator.
//!
//! Watermarks combine in two steps, as in Flink:
//! - **Per port**, a [`ChannelValve`] (Flink's `StatusWatermarkValve`): the
//!   minimum over the port's active, aligned channels; all idle -> the
//!   maximum is flushed, then the port is IDLE.
//! - **Across ports**, a [`PortCombiner`] (Flink 2.3's
//!   `IndexedCombinedWatermarkStatus` over `CombinedWatermarkStatus`, used
//!   by `AbstractStreamOperator#processWatermark1/2` and
//!   `processWatermarkStatus1/2`): the minimum over the ports that are not
//!   idle; when every port is idle, the maximum over all of them (Flink
//!   2.3 flushes it, so the order in which ports went idle does not
//!   matter); emitted only when strictly greater than the last. The
//!   operator is idle when every port is, and says so downstream.
//!
//! With one port the combiner passes the valve's output through unchanged.
//!
//! Checkpoint barriers align across every channel of every port (Flink's
//! aligned checkpoints over all input gates): a channel that delivered the
//! barrier is held until all have; an ended channel counts as delivered;
//! a newer barrier abandons an older alignment.

use serde::{Deserialize, Serialize};

use crate::checkpoint::barrier::{Alignment, BarrierAligner};
use crate::checkpoint::CheckpointId;
use crate::time::{Timestamp, MIN_WATERMARK};
use crate::watermark::valve::ChannelValve;
use crate::watermark::{Progress, WatermarkStatus};

/// One port's contribution to the combined watermark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Partial {
    watermark: Timestamp,
    idle: bool,
}

/// The combination of an operator's ports (Flink's
/// `IndexedCombinedWatermarkStatus`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortCombiner {
    ports: Vec<Partial>,
    combined: Timestamp,
    idle: bool,
}

impl PortCombiner {
    /// A combiner of `n` ports, all at `MIN` and active.
    pub fn new(n: usize) -> Self {
        PortCombiner {
            ports: vec![
                Partial {
                    watermark: MIN_WATERMARK,
                    idle: false
                };
                n
            ],
            combined: MIN_WATERMARK,
            idle: false,
        }
    }

    /// Port `port`'s valve emitted `p`: what the operator sees.
    pub fn input(&mut self, port: usize, p: Progress) -> Progress {
        let was_idle = self.idle;
        let mut out = Progress::NONE;
        let Some(slot) = self.ports.get_mut(port) else {
            return out;
        };
        if p.became_active {
            slot.idle = false;
            out.watermark = self.update();
        }
        if let Some(wm) = p.watermark {
            // A watermark makes its port active again (PartialWatermark#setWatermark).
            let slot = &mut self.ports[port];
            slot.idle = false;
            slot.watermark = slot.watermark.max(wm);
            out.watermark = self.update().or(out.watermark);
        }
        if p.became_idle {
            self.ports[port].idle = true;
            out.watermark = self.update().or(out.watermark);
        }
        out.became_active = was_idle && !self.idle;
        out.became_idle = !was_idle && self.idle;
        out
    }

    /// `CombinedWatermarkStatus#updateCombinedWatermark`: the new combined
    /// watermark, if it advanced.
    fn update(&mut self) -> Option<Timestamp> {
        if self.ports.is_empty() {
            return None;
        }
        self.idle = self.ports.iter().all(|p| p.idle);
        let candidate = match self.idle {
            true => self.ports.iter().map(|p| p.watermark).max(),
            false => self
                .ports
                .iter()
                .filter(|p| !p.idle)
                .map(|p| p.watermark)
                .min(),
        }?;
        (candidate > self.combined).then(|| {
            self.combined = candidate;
            candidate
        })
    }

    /// The last combined watermark.
    pub fn watermark(&self) -> Timestamp {
        self.combined
    }

    /// Whether every port is idle.
    pub fn is_idle(&self) -> bool {
        self.idle
    }

    /// The port holding the combined watermark back: the active port with
    /// the lowest watermark (ties: the lowest port).
    pub fn holding_port(&self) -> Option<usize> {
        self.ports
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.idle)
            .min_by_key(|(i, p)| (p.watermark, *i))
            .map(|(i, _)| i)
    }
}

/// The watermark state of a gate: what a snapshot keeps (barrier
/// alignment is not state: a restored operator aligns the next checkpoint
/// afresh).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateState {
    /// Each port's valve.
    pub ports: Vec<ChannelValve>,
    /// The combination of the ports.
    pub combiner: PortCombiner,
}

impl GateState {
    /// The gate of an operator whose upstream subtasks were regrouped (a
    /// restore at another parallelism): port `i`'s valve is `valve(i, its
    /// output before)`, the ports' combination is as it was.
    pub fn regrouped(&self, valve: &dyn Fn(usize, Timestamp) -> ChannelValve) -> GateState {
        GateState {
            ports: self
                .ports
                .iter()
                .enumerate()
                .map(|(i, v)| valve(i, v.watermark()))
                .collect(),
            combiner: self.combiner.clone(),
        }
    }
}

/// An operator's input gate. It serializes as its [`GateState`].
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(from = "GateState", into = "GateState")]
pub struct InputGate {
    state: GateState,
    aligner: BarrierAligner,
    /// The first flat channel number of each port.
    offsets: Vec<usize>,
}

impl From<GateState> for InputGate {
    fn from(state: GateState) -> Self {
        InputGate::restore(state)
    }
}

impl From<InputGate> for GateState {
    fn from(gate: InputGate) -> Self {
        gate.state
    }
}

impl InputGate {
    /// A gate with one port per entry of `channels`, each with that many
    /// channels.
    pub fn new(channels: &[usize]) -> Self {
        InputGate::restore(GateState {
            ports: channels.iter().map(|&n| ChannelValve::new(n)).collect(),
            combiner: PortCombiner::new(channels.len()),
        })
    }

    /// A one-port gate continuing from `valve` (a checkpoint that stored
    /// only the valve of a one-input operator).
    pub fn single(valve: ChannelValve) -> Self {
        let mut combiner = PortCombiner::new(1);
        // The valve's last output is what the operator last saw.
        combiner.ports[0] = Partial {
            watermark: valve.watermark(),
            idle: valve.is_idle(),
        };
        combiner.combined = valve.watermark();
        combiner.idle = valve.is_idle();
        InputGate::restore(GateState {
            ports: vec![valve],
            combiner,
        })
    }

    /// A gate continuing from a snapshot of its state.
    pub fn restore(state: GateState) -> Self {
        let mut offsets = Vec::with_capacity(state.ports.len());
        let mut total = 0;
        for v in &state.ports {
            offsets.push(total);
            total += v.len();
        }
        InputGate {
            state,
            aligner: BarrierAligner::new(total),
            offsets,
        }
    }

    /// The state a snapshot keeps.
    pub fn state(&self) -> &GateState {
        &self.state
    }

    /// Port `port`'s valve.
    pub fn port(&self, port: usize) -> Option<&ChannelValve> {
        self.state.ports.get(port)
    }

    /// Number of ports.
    pub fn ports(&self) -> usize {
        self.state.ports.len()
    }

    /// Channel `ch` of port `port` sent `p`: the operator's progress, in
    /// order (see [`ChannelValve::input`]). Empty when nothing changed.
    pub fn input(&mut self, port: usize, ch: usize, p: Progress) -> Vec<Progress> {
        let Some(valve) = self.state.ports.get_mut(port) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for step in valve.input(ch, p) {
            let combined = self.state.combiner.input(port, step);
            if !combined.is_empty() {
                out.push(combined);
            }
        }
        out
    }

    /// Channel `ch` of port `port` sent watermark `wm`.
    pub fn watermark(&mut self, port: usize, ch: usize, wm: Timestamp) -> Vec<Progress> {
        let p = Progress {
            watermark: Some(wm),
            ..Progress::NONE
        };
        self.input(port, ch, p)
    }

    /// Channel `ch` of port `port` changed its status.
    pub fn status(&mut self, port: usize, ch: usize, s: WatermarkStatus) -> Vec<Progress> {
        let p = Progress {
            became_active: s == WatermarkStatus::Active,
            became_idle: s == WatermarkStatus::Idle,
            ..Progress::NONE
        };
        self.input(port, ch, p)
    }

    /// The operator's watermark: the last combined one.
    pub fn current(&self) -> Timestamp {
        self.state.combiner.watermark()
    }

    /// Whether every port is idle.
    pub fn is_idle(&self) -> bool {
        self.state.combiner.is_idle()
    }

    /// Who holds the operator's watermark back: the port, and its channel
    /// with the lowest watermark among those taking part in its minimum.
    pub fn holding(&self) -> Option<(usize, usize)> {
        if self.is_idle() {
            return None;
        }
        let port = self.state.combiner.holding_port()?;
        let valve = &self.state.ports[port];
        if valve.is_idle() {
            return None;
        }
        Some((port, valve.holding_channel()?))
    }

    /// The watermark of the channel holding the operator back (`MIN` when
    /// none does).
    pub fn holding_watermark(&self) -> Timestamp {
        self.holding()
            .and_then(|(p, c)| self.state.ports[p].channel(c))
            .map_or(MIN_WATERMARK, |c| c.watermark)
    }

    fn flat(&self, port: usize, ch: usize) -> Option<usize> {
        let valve = self.state.ports.get(port)?;
        (ch < valve.len()).then(|| self.offsets[port] + ch)
    }

    /// Barrier `id` arrived on channel `ch` of port `port`.
    pub fn barrier(&mut self, port: usize, ch: usize, id: CheckpointId) -> Alignment {
        match self.flat(port, ch) {
            Some(f) => self.aligner.on_barrier(f, id),
            None => Alignment::Ignored,
        }
    }

    /// Channel `ch` of port `port` ended: it counts as having delivered
    /// every barrier.
    pub fn end(&mut self, port: usize, ch: usize) -> Alignment {
        match self.flat(port, ch) {
            Some(f) => self.aligner.on_end(f),
            None => Alignment::Ignored,
        }
    }

    /// Whether channel `ch` of port `port` is held by an alignment (its
    /// input waits until the alignment ends).
    pub fn is_held(&self, port: usize, ch: usize) -> bool {
        self.flat(port, ch).is_some_and(|f| self.aligner.is_held(f))
    }

    /// Gives up the alignment in progress; returns the checkpoint.
    pub fn cancel_alignment(&mut self) -> Option<CheckpointId> {
        self.aligner.cancel()
    }

    /// Checkpoints abandoned because a newer barrier overtook them, taken.
    pub fn take_abandoned(&mut self) -> Vec<CheckpointId> {
        self.aligner.take_abandoned()
    }
}

#[cfg(test)]
#[path = "gate_tests.rs"]
mod tests;
