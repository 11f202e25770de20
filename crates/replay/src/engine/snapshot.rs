//! Checkpoints of the replay engine: what decides its future, taken and
//! restored (the replay's restarts check that a restore changes nothing).

use std::collections::BTreeMap;

use lowwater_core::diagnose::{Stall, StallDetector};
use lowwater_core::source::{SourceSubtask, SplitId};
use lowwater_core::watermark::valve::ChannelValve;
use lowwater_core::window::limit::OpenStateGuard;
use lowwater_core::window::operator::WindowOperator;
use lowwater_core::{Millis, Timestamp};
use serde::{Deserialize, Serialize};

use super::Engine;

/// The engine's state at a moment, for a checkpoint: everything that
/// decides what happens next (the core's state of every subtask and
/// operator, the stall detectors, the clock) and the report's counters.
/// Rows already written are not state.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EngineSnapshot {
    sources: Vec<Vec<SourceSubtask>>,
    /// Per source subtask, its splits' longest gaps between records (the
    /// subtasks' own serialization leaves them out).
    #[serde(default)]
    gaps: Vec<Vec<Vec<(SplitId, Millis)>>>,
    pipes: Vec<PipeSnapshot>,
    /// The temporal joins (none in snapshots of jobs without joins).
    #[serde(default)]
    joins: Vec<super::join::JoinSnapshot>,
    /// The interval joins.
    #[serde(default)]
    intervals: Vec<super::interval::IntervalSnapshot>,
    sinks: Vec<(usize, SinkCounts)>,
    skipped: BTreeMap<SplitId, u64>,
    nulled: BTreeMap<SplitId, u64>,
    future: BTreeMap<SplitId, u64>,
    last_record: Timestamp,
    last_tick: Timestamp,
    now: Timestamp,
    records_in: u64,
    align: super::align::AlignState,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct PipeSnapshot {
    valve: ChannelValve,
    op: WindowOperator,
    /// Cascading windows: the chained aggregations.
    chain: Vec<WindowOperator>,
    detector: StallDetector,
    guard: OpenStateGuard,
    stalls: Vec<Stall>,
    filtered: u64,
    peak_open: u64,
    meter: lowwater_core::recurring::HoldMeter,
    recurring: Vec<lowwater_core::recurring::Recurring>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SinkCounts {
    rows: u64,
    window_rows: u64,
    late_rows: u64,
    max_emission_lag: Option<Millis>,
    lags: BTreeMap<Millis, u64>,
    early_rows: u64,
}

impl Engine<'_> {
    /// A snapshot of the engine's state (see [`EngineSnapshot`]).
    pub fn snapshot(&self) -> EngineSnapshot {
        EngineSnapshot {
            sources: self.sources.iter().map(|s| s.subtasks.clone()).collect(),
            gaps: self
                .sources
                .iter()
                .map(|s| s.subtasks.iter().map(SourceSubtask::gaps).collect())
                .collect(),
            pipes: self
                .pipes
                .iter()
                .map(|p| {
                    let (valve, op) = p.node.parts();
                    PipeSnapshot {
                        valve,
                        op,
                        chain: p.node.chain().to_vec(),
                        detector: p.detector.clone(),
                        guard: p.node.guard().clone(),
                        stalls: p.stalls.clone(),
                        filtered: p.filtered,
                        peak_open: p.peak_open,
                        meter: p.meter.clone(),
                        recurring: p.recurring.clone(),
                    }
                })
                .collect(),
            joins: self.joins.iter().map(|j| j.snapshot()).collect(),
            intervals: self.intervals.iter().map(|j| j.snapshot()).collect(),
            sinks: self
                .sinks
                .iter()
                .map(|(t, s)| {
                    let o = &s.out;
                    let counts = SinkCounts {
                        rows: o.rows,
                        window_rows: o.window_rows,
                        late_rows: o.late_rows,
                        max_emission_lag: o.max_emission_lag,
                        lags: o.lags.clone(),
                        early_rows: o.early_rows,
                    };
                    (*t, counts)
                })
                .collect(),
            skipped: self.skipped.clone(),
            nulled: self.nulled.clone(),
            future: self.future.clone(),
            last_record: self.last_record,
            last_tick: self.last_tick,
            now: self.now,
            records_in: self.records_in,
            align: self.align.clone(),
        }
    }

    /// Continues from `snap`, taken of an engine of the same plan and
    /// splits: the same records from then on give the same rows and report
    /// as if the engine had never stopped.
    pub fn restore(&mut self, snap: EngineSnapshot) -> Result<(), String> {
        let shape = |a: usize, b: usize, what: &str| {
            if a == b {
                Ok(())
            } else {
                Err(format!("the checkpoint has {b} {what}, the job {a}"))
            }
        };
        shape(self.sources.len(), snap.sources.len(), "sources")?;
        shape(self.pipes.len(), snap.pipes.len(), "pipelines")?;
        shape(self.joins.len(), snap.joins.len(), "temporal joins")?;
        shape(self.intervals.len(), snap.intervals.len(), "interval joins")?;
        let mut gaps = snap.gaps.into_iter();
        for (src, subtasks) in self.sources.iter_mut().zip(snap.sources) {
            shape(src.subtasks.len(), subtasks.len(), "source subtasks")?;
            let mut src_gaps = gaps.next().unwrap_or_default().into_iter();
            // Emission is the job's configuration, not checkpointed state.
            for (now, mut then) in src.subtasks.iter_mut().zip(subtasks) {
                then.reconfigure(now.strategy());
                then.restore_gaps(&src_gaps.next().unwrap_or_default());
                *now = then;
            }
        }
        for (pipe, p) in self.pipes.iter_mut().zip(snap.pipes) {
            pipe.node.resume(p.valve, p.op, p.guard);
            pipe.node.restore_chain(p.chain);
            pipe.detector = p.detector;
            pipe.stalls = p.stalls;
            pipe.filtered = p.filtered;
            pipe.peak_open = p.peak_open;
            pipe.meter = p.meter;
            pipe.recurring = p.recurring;
        }
        for (j, s) in self.joins.iter_mut().zip(snap.joins) {
            j.restore(s);
        }
        for (j, s) in self.intervals.iter_mut().zip(snap.intervals) {
            j.restore(s);
        }
        for (t, c) in snap.sinks {
            if let Some(s) = self.sinks.get_mut(&t) {
                s.out.rows = c.rows;
                s.out.window_rows = c.window_rows;
                s.out.late_rows = c.late_rows;
                s.out.max_emission_lag = c.max_emission_lag;
                s.out.lags = c.lags;
                s.out.early_rows = c.early_rows;
            }
        }
        self.skipped = snap.skipped;
        self.future = snap.future;
        self.nulled = snap.nulled;
        self.last_record = snap.last_record;
        self.last_tick = snap.last_tick;
        self.now = snap.now;
        self.records_in = snap.records_in;
        self.align = snap.align;
        Ok(())
    }
}
