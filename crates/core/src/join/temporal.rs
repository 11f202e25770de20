//! The event-time temporal join (`FROM probe [LEFT] JOIN versioned FOR
//! SYSTEM_TIME AS OF probe.ts ON probe.k = versioned.k`), as Flink 2.3's
//! `TemporalRowTimeJoinOperator` computes it.
//!
//! Port 0 is the probe side, port 1 the build side (the versioned table's
//! rows, each a version of its key valid from its rowtime). Per key:
//! - a probe row is buffered with an arrival index; a version is stored at
//!   its rowtime (a second version at the same rowtime replaces the first);
//! - each arrival registers one timer per key, at the smallest time seen
//!   (a probe row's or a version's), as Flink keeps one timer per key;
//! - when the combined watermark of both ports reaches the timer, every
//!   buffered probe row of that key whose time is at most the watermark is
//!   emitted, in arrival order, with the version of largest rowtime at most
//!   its time (none: no version yet, or a deletion); then versions older
//!   than the newest one at most the watermark are dropped (that one is
//!   kept even when it is older), and the timer moves to the oldest probe
//!   row still buffered;
//! - a probe row at or behind the watermark is not dropped (Flink 2.3 keeps
//!   it): it is emitted at the next watermark advance with the versions
//!   still held, which may no longer be the one valid at its time. Such rows
//!   are counted ([`TemporalJoin::late_probes`]), and so are versions that
//!   arrive at or behind the watermark ([`TemporalJoin::late_versions`]):
//!   probe rows already emitted at or after their time joined an older
//!   version (the counter Flink lacks, FLINK-37153).
//!
//! Keys are compared as values, not with SQL `=`: a probe row whose key is
//! NULL joins the NULL key's version, as Flink 2.3 does (checked on a real
//! run: `compat/cases/temporal_inner_versioned_view.sql`).
//!
//! What the operator emits is the pairing ([`Joined`]): the probe row and
//! the version valid at its time. The rest of Flink's join, which changes
//! no state, is the driver's: the ON condition's other terms decide whether
//! a paired row is joined, and a LEFT join writes the probe row with NULLs
//! where no version or a failed condition leaves it unmatched.
//!
//! The output watermark is the input's: every probe row at or before it
//! has been emitted when it is forwarded, so a window aggregation after the
//! join, over the probe side's rowtime, is exact.

use std::collections::{BTreeMap, BTreeSet};

use hashbrown::HashMap;

use serde::{Deserialize, Serialize};

use crate::dataflow::{Gauges, Operator};
use crate::error::Error;
use crate::time::{Timestamp, MIN_WATERMARK};
use crate::value::{Key, Row, Value};
use crate::window::batch::InputBatch;

/// The probe side's port.
pub const PROBE: usize = 0;
/// The build (versioned) side's port.
pub const BUILD: usize = 1;

/// A probe row and the version valid at its time.
#[derive(Debug, Clone, PartialEq)]
pub struct Joined {
    /// The probe row's rowtime.
    pub ts: Timestamp,
    /// The join key.
    pub key: Key,
    /// The probe row.
    pub probe: Row,
    /// The version of largest rowtime at most `ts`, if any and not a
    /// deletion.
    pub build: Option<Row>,
}

/// A version of a key: its row, or its deletion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Version {
    Row(Row),
    Deleted,
}

/// One key's state.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct KeyState {
    /// The next probe row's arrival index.
    next: u64,
    /// Buffered probe rows by arrival index: (rowtime, row).
    probes: BTreeMap<u64, (Timestamp, Row)>,
    /// Versions by rowtime.
    versions: BTreeMap<Timestamp, Version>,
    /// The key's one timer.
    timer: Option<Timestamp>,
}

/// The event-time temporal join operator (an empty one, `new` or
/// `default`, starts at the MIN watermark, not at 0).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TemporalJoin {
    watermark: Timestamp,
    keys: HashMap<Key, KeyState>,
    /// Every key's timer, by (time, key): fired in time order.
    timers: BTreeSet<(Timestamp, Key)>,
    /// Probe rows buffered, over every key.
    waiting: u64,
    /// Versions held, over every key.
    held: u64,
    records_in: u64,
    late_probes: u64,
    late_versions: u64,
}

impl TemporalJoin {
    /// An empty join.
    pub fn new() -> Self {
        TemporalJoin {
            watermark: MIN_WATERMARK,
            keys: HashMap::new(),
            timers: BTreeSet::new(),
            waiting: 0,
            held: 0,
            records_in: 0,
            late_probes: 0,
            late_versions: 0,
        }
    }

    /// A probe row arrives (borrowed, or owned: then kept without a copy);
    /// returns whether it is late (at or behind the watermark: kept, and
    /// joined at the next advance).
    pub fn probe(&mut self, ts: Timestamp, key: &[Value], row: impl Into<Row>) -> bool {
        self.records_in += 1;
        let late = ts <= self.watermark;
        self.late_probes += u64::from(late);
        let state = self.keys.entry_ref(key).or_default();
        let i = state.next;
        state.next += 1;
        state.probes.insert(i, (ts, row.into()));
        self.waiting += 1;
        register_smallest(&mut self.timers, key, state, ts);
        late
    }

    /// A version arrives (`row`, or the key's deletion when `None`);
    /// returns whether it is late (probe rows already joined at or after
    /// its time had an older version).
    pub fn version(&mut self, ts: Timestamp, key: &[Value], row: Option<&[Value]>) -> bool {
        self.records_in += 1;
        let late = ts <= self.watermark;
        self.late_versions += u64::from(late);
        let state = self.keys.entry_ref(key).or_default();
        let v = row.map_or(Version::Deleted, |r| Version::Row(r.to_vec()));
        if state.versions.insert(ts, v).is_none() {
            self.held += 1;
        }
        register_smallest(&mut self.timers, key, state, ts);
        late
    }

    /// The watermark advances to `wm`: every timer at or before it fires.
    pub fn advance(&mut self, wm: Timestamp, out: &mut Vec<Joined>) {
        self.watermark = wm;
        while let Some((t, _)) = self.timers.first() {
            if *t > wm {
                break;
            }
            let Some((_, key)) = self.timers.pop_first() else {
                break;
            };
            self.fire(key, wm, out);
        }
    }

    fn fire(&mut self, key: Key, wm: Timestamp, out: &mut Vec<Joined>) {
        let Some(state) = self.keys.get_mut(&key) else {
            return;
        };
        state.timer = None;
        // Arrival order (the index), as Flink emits; rows still ahead of
        // the watermark stay, the oldest of them sets the next timer.
        let mut next = Timestamp::MAX;
        for (i, (ts, probe)) in std::mem::take(&mut state.probes) {
            if ts > wm {
                next = next.min(ts);
                state.probes.insert(i, (ts, probe));
                continue;
            }
            self.waiting -= 1;
            let build = match state.versions.range(..=ts).next_back() {
                Some((_, Version::Row(r))) => Some(r.clone()),
                _ => None,
            };
            out.push(Joined {
                ts,
                key: key.clone(),
                probe,
                build,
            });
        }
        // Keep the newest version at most the watermark, and every newer one.
        if let Some(&keep) = state.versions.range(..=wm).next_back().map(|(t, _)| t) {
            let newer = state.versions.split_off(&keep);
            self.held -= state.versions.len() as u64;
            state.versions = newer;
        }
        if next < Timestamp::MAX {
            state.timer = Some(next);
            self.timers.insert((next, key));
        }
    }

    /// The joins of every subtask (as a checkpoint holds them) regrouped
    /// into `n`, each key's probe rows, versions and timer in the subtask
    /// `route` picks for it: a restore at another parallelism. The
    /// watermark is the lowest of the parts'; the counters, totals of the
    /// job, go to the first.
    pub fn regroup(
        parts: Vec<TemporalJoin>,
        n: usize,
        route: impl Fn(&[Value]) -> usize,
    ) -> Vec<TemporalJoin> {
        let watermark = parts
            .iter()
            .map(|p| p.watermark)
            .min()
            .unwrap_or(MIN_WATERMARK);
        let mut out: Vec<TemporalJoin> = (0..n.max(1))
            .map(|_| TemporalJoin {
                watermark,
                ..TemporalJoin::new()
            })
            .collect();
        let last = out.len() - 1;
        for part in parts {
            let first = &mut out[0];
            first.records_in += part.records_in;
            first.late_probes += part.late_probes;
            first.late_versions += part.late_versions;
            for (key, state) in part.keys {
                let to = &mut out[route(&key).min(last)];
                to.waiting += state.probes.len() as u64;
                to.held += state.versions.len() as u64;
                to.keys.insert(key, state);
            }
            for (t, key) in part.timers {
                out[route(&key).min(last)].timers.insert((t, key));
            }
        }
        out
    }

    /// The combined watermark it last saw.
    pub fn watermark(&self) -> Timestamp {
        self.watermark
    }

    /// Probe rows buffered, waiting for the watermark to pass their time.
    pub fn waiting(&self) -> u64 {
        self.waiting
    }

    /// Versions held (deletions included).
    pub fn versions(&self) -> u64 {
        self.held
    }

    /// The oldest buffered probe row's time, if any.
    pub fn oldest_waiting(&self) -> Option<Timestamp> {
        self.keys
            .values()
            .filter_map(|s| s.probes.values().map(|(t, _)| *t).min())
            .min()
    }

    /// Probe rows that arrived at or behind the watermark (emitted at its
    /// next advance with the versions still held).
    pub fn late_probes(&self) -> u64 {
        self.late_probes
    }

    /// Versions that arrived at or behind the watermark (probe rows at or
    /// after their time may have been joined with an older version).
    pub fn late_versions(&self) -> u64 {
        self.late_versions
    }

    /// An estimate of the bytes its state takes.
    pub fn state_bytes(&self) -> usize {
        use std::mem::size_of;
        let row =
            |r: &Row| r.len() * size_of::<Value>() + r.iter().map(Value::heap_bytes).sum::<usize>();
        self.keys
            .iter()
            .map(|(k, s)| {
                row(k)
                    + size_of::<KeyState>()
                    + s.probes.values().map(|(_, r)| 48 + row(r)).sum::<usize>()
                    + s.versions
                        .values()
                        .map(|v| match v {
                            Version::Row(r) => 40 + row(r),
                            Version::Deleted => 40,
                        })
                        .sum::<usize>()
            })
            .sum()
    }
}

impl Default for TemporalJoin {
    fn default() -> Self {
        TemporalJoin::new()
    }
}

/// Registers `ts` as the key's timer when it has none or a later one.
fn register_smallest(
    timers: &mut BTreeSet<(Timestamp, Key)>,
    key: &[Value],
    state: &mut KeyState,
    ts: Timestamp,
) {
    match state.timer {
        Some(t) if t <= ts => {}
        old => {
            if let Some(t) = old {
                timers.remove(&(t, key.to_vec()));
            }
            state.timer = Some(ts);
            timers.insert((ts, key.to_vec()));
        }
    }
}

impl Operator for TemporalJoin {
    type Output = Joined;

    fn inputs(&self) -> usize {
        2
    }

    /// A probe row's `row` is the probe side's columns; a build row's is
    /// the version's columns (a deletion is not read from a batch: an
    /// upsert source's tombstones come through [`TemporalJoin::version`]).
    fn on_records(
        &mut self,
        port: usize,
        batch: &InputBatch,
        _out: &mut Vec<Joined>,
        _fail: &mut dyn FnMut(usize, Error),
    ) {
        for r in batch.iter() {
            if port == PROBE {
                self.probe(r.ts, r.key, r.row);
            } else {
                self.version(r.ts, r.key, Some(r.row));
            }
        }
    }

    fn on_watermark(&mut self, wm: Timestamp, out: &mut Vec<Joined>) -> Option<Timestamp> {
        self.advance(wm, out);
        Some(wm)
    }

    fn gauges(&self) -> Gauges {
        Gauges {
            open_states: self.waiting,
            state_bytes: self.state_bytes() as u64,
            records_in: self.records_in,
            late_dropped: 0,
            late_routed: 0,
        }
    }
}

#[cfg(test)]
#[path = "temporal_tests.rs"]
mod tests;
