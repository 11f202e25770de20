//! Watermark alignment in replay (Flink's FLIP-182 and FLIP-217, at the
//! split level): `scan.watermark.alignment.group`, `.max-drift` and
//! `.update-interval` on source tables.
//!
//! Every update interval the group's slowest watermark is taken again over
//! its partitions (an idle partition counts as `MAX`, one without a
//! watermark yet is left out, as in Flink), and a partition whose watermark
//! is more than its table's drift above it is paused; one at or below the
//! limit reads again. A paused partition is kept active (it has records
//! waiting), and its records wait, as they would in Kafka, until it reads
//! again; then they are read at once, in arrival order, until one takes its
//! watermark past the limit again. A partition is also paused as soon as
//! one of its records takes it past the limit (Flink checks when the
//! split's watermark moves; replay reads infinitely fast, so it checks at
//! each record). The watermark used is what the partition's generator would
//! emit now. At the end of the input every partition counts as finished
//! (`MAX`), so everything waiting is read before the final watermark.

use std::collections::{BTreeMap, VecDeque};

use lowwater_connectors::payload::PayloadRef;
use lowwater_core::source::SplitId;
use lowwater_core::watermark::alignment::AlignmentGroup;
use lowwater_core::{Millis, Timestamp, MAX_WATERMARK, MIN_WATERMARK};
use lowwater_sql::plan::JobPlan;
use serde::{Deserialize, Serialize};

use super::{Engine, Failed, RecordRef, SplitMeta};

/// A record of a paused partition, waiting until it reads again.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Deferred {
    /// Where it came from (the driver's record index, for errors).
    origin: usize,
    table: usize,
    topic: String,
    partition: i32,
    offset: Option<i64>,
    ts: Timestamp,
    payload: Option<Vec<u8>>,
    key: Option<Vec<u8>>,
}

/// The alignment groups of a job (configuration, not state).
#[derive(Debug, Clone, Default)]
pub(super) struct Groups {
    /// Per group: its member splits.
    members: Vec<Vec<SplitId>>,
    /// Per group: how often its slowest watermark is taken again.
    interval: Vec<Millis>,
    /// Per split: its group and its table's drift.
    of: Vec<Option<(usize, Millis)>>,
}

impl Groups {
    /// The groups of `plan`'s aligned tables over `splits`.
    pub(super) fn new(plan: &JobPlan, splits: &[SplitMeta]) -> Self {
        let mut names: Vec<&str> = Vec::new();
        let mut g = Groups::default();
        for (id, meta) in splits.iter().enumerate() {
            let Some(a) = &plan.tables[meta.table].alignment else {
                g.of.push(None);
                continue;
            };
            let gi = match names.iter().position(|n| *n == a.group) {
                Some(i) => i,
                None => {
                    names.push(&a.group);
                    g.members.push(Vec::new());
                    g.interval.push(a.update_interval);
                    names.len() - 1
                }
            };
            g.members[gi].push(id as SplitId);
            g.interval[gi] = g.interval[gi].min(a.update_interval);
            g.of.push(Some((gi, a.max_drift)));
        }
        g
    }

    fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// What alignment changes as the replay runs (checkpointed).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct AlignState {
    /// Per group: when its slowest watermark is next taken, and its value
    /// (`MAX` before the first update: nothing is paused, as in Flink).
    next_update: Vec<Timestamp>,
    slowest: Vec<Timestamp>,
    /// Paused splits, since when.
    paused_since: BTreeMap<SplitId, Timestamp>,
    /// Time each split spent paused, pauses that ended.
    paused_ms: BTreeMap<SplitId, Millis>,
    /// Records of paused splits, waiting, per split in arrival order.
    deferred: BTreeMap<SplitId, VecDeque<Deferred>>,
}

impl AlignState {
    pub(super) fn new(groups: &Groups, t0: Timestamp) -> Self {
        let n = groups.members.len();
        AlignState {
            next_update: groups
                .interval
                .iter()
                .map(|i| t0.saturating_add(*i))
                .collect(),
            slowest: vec![MAX_WATERMARK; n],
            ..AlignState::default()
        }
    }

    /// Whether `id`'s records wait: it is paused or older ones still wait.
    fn holds(&self, id: SplitId) -> bool {
        self.paused_since.contains_key(&id) || self.deferred.get(&id).is_some_and(|d| !d.is_empty())
    }

    /// Whether any split is paused or has records waiting.
    pub(super) fn any_held(&self) -> bool {
        !self.paused_since.is_empty() || self.deferred.values().any(|d| !d.is_empty())
    }

    /// How many alignment groups there are.
    pub(super) fn groups(&self) -> usize {
        self.next_update.len()
    }

    /// When each group takes its slowest watermark next.
    pub(super) fn updates(&self) -> Vec<Timestamp> {
        self.next_update.clone()
    }

    /// When the next group takes its slowest watermark again.
    pub(super) fn next_update(&self) -> Option<Timestamp> {
        self.next_update.iter().copied().min()
    }

    /// What a tick can change of alignment: the paused splits and how many
    /// records wait.
    pub(super) fn signature(&self) -> (Vec<SplitId>, usize) {
        (
            self.paused_since.keys().copied().collect(),
            self.deferred.values().map(VecDeque::len).sum(),
        )
    }
}

impl Engine<'_> {
    /// Keeps a record of a split that is paused (or has older records
    /// waiting) until the split reads again; `false` if it is read now.
    pub(super) fn defer(
        &mut self,
        origin: usize,
        table: usize,
        id: SplitId,
        rec: RecordRef<'_>,
    ) -> bool {
        if self.groups.is_empty() || !self.align.holds(id) {
            return false;
        }
        self.align
            .deferred
            .entry(id)
            .or_default()
            .push_back(Deferred {
                origin,
                table,
                topic: rec.topic.to_string(),
                partition: rec.partition,
                offset: rec.offset,
                ts: rec.ts,
                payload: rec.payload.map(|p| p.bytes().into_owned()),
                key: rec.key.map(<[u8]>::to_vec),
            });
        true
    }

    /// The watermark split `id` would emit now, and whether it is idle.
    fn due(&self, id: SplitId) -> (Timestamp, bool) {
        let meta = &self.splits[id as usize];
        let Some(si) = self.source_of[meta.table] else {
            return (MIN_WATERMARK, true);
        };
        let sub = &self.sources[si].subtasks[meta.subtask];
        let view = sub.split(id);
        let idle = view.is_some_and(|v| v.idle);
        // The generator's value can go down (the SQL form follows the last
        // row); the split's watermark never does.
        let emitted = view.map_or(MIN_WATERMARK, |v| v.watermark);
        (
            sub.due_watermark(id).unwrap_or(MIN_WATERMARK).max(emitted),
            idle,
        )
    }

    /// The highest watermark split `id` may have and keep reading.
    fn limit(&self, id: SplitId) -> Timestamp {
        match self.groups.of.get(id as usize).copied().flatten() {
            Some((g, drift)) => self.align.slowest[g].saturating_add(drift),
            None => MAX_WATERMARK,
        }
    }

    fn pause(&mut self, id: SplitId) {
        self.align.paused_since.entry(id).or_insert(self.now);
    }

    fn resume(&mut self, id: SplitId) {
        if let Some(since) = self.align.paused_since.remove(&id) {
            *self.align.paused_ms.entry(id).or_insert(0) += self.now.saturating_sub(since);
        }
    }

    /// After a record of split `id`: it pauses if its watermark passed the
    /// group's limit.
    pub(super) fn check_pause(&mut self, id: SplitId) {
        if self.groups.of.get(id as usize).copied().flatten().is_none() {
            return;
        }
        let (wm, idle) = self.due(id);
        if !idle && wm > self.limit(id) {
            self.pause(id);
        }
    }

    /// Before a periodic emit: a paused split has records waiting, so it
    /// stays active (Flink stops a paused split's idleness clock).
    pub(super) fn keep_paused_active(&mut self) {
        let held: Vec<SplitId> = self.align.paused_since.keys().copied().collect();
        for id in held {
            let meta = &self.splits[id as usize];
            if let Some(si) = self.source_of[meta.table] {
                let _ = self.sources[si].subtasks[meta.subtask].on_backlog(id);
            }
        }
    }

    /// At tick `t`: the groups due for an update take their slowest
    /// watermark again, pause and resume their splits, and the resumed
    /// ones read what waited.
    pub(super) fn update_alignment(&mut self, t: Timestamp) -> Result<(), Failed> {
        let mut changed = false;
        for g in 0..self.groups.members.len() {
            if self.align.next_update[g] > t {
                continue;
            }
            let interval = self.groups.interval[g].max(1);
            let behind = (t - self.align.next_update[g]) / interval + 1;
            self.align.next_update[g] =
                self.align.next_update[g].saturating_add(behind.saturating_mul(interval));
            let mut group = AlignmentGroup::new(0);
            for &id in &self.groups.members[g] {
                match self.due(id) {
                    (_, true) => group.report_idle(id),
                    (MIN_WATERMARK, false) => {}
                    (wm, false) => group.report(id, wm),
                }
            }
            self.align.slowest[g] = group.max_allowed();
            for id in self.groups.members[g].clone() {
                let (wm, idle) = self.due(id);
                if idle || wm <= self.limit(id) {
                    self.resume(id);
                } else {
                    self.pause(id);
                }
            }
            changed = true;
        }
        if changed {
            self.drain()?;
        }
        Ok(())
    }

    /// The input ended: every split counts as finished (`MAX`), so every
    /// paused split reads what waited.
    pub(super) fn end_alignment(&mut self) -> Result<(), Failed> {
        for s in &mut self.align.slowest {
            *s = MAX_WATERMARK;
        }
        for id in self.align.paused_since.keys().copied().collect::<Vec<_>>() {
            self.resume(id);
        }
        self.drain()
    }

    /// Reads the waiting records of splits that read again, oldest arrival
    /// first, each pausing its split again once past the limit.
    fn drain(&mut self) -> Result<(), Failed> {
        loop {
            let next = self
                .align
                .deferred
                .iter()
                .filter(|(id, _)| !self.align.paused_since.contains_key(id))
                .filter_map(|(id, d)| d.front().map(|r| ((r.ts, r.origin), *id)))
                .min();
            let Some((_, id)) = next else {
                return Ok(());
            };
            let Some(r) = self
                .align
                .deferred
                .get_mut(&id)
                .and_then(VecDeque::pop_front)
            else {
                return Ok(());
            };
            let rec = RecordRef {
                topic: &r.topic,
                partition: r.partition,
                offset: r.offset,
                ts: r.ts,
                payload: r.payload.as_deref().map(PayloadRef::from),
                key: r.key.as_deref(),
            };
            self.process_now(r.table, id, rec).map_err(|error| Failed {
                origin: r.origin,
                error,
            })?;
            self.check_pause(id);
        }
    }

    /// Time split `id` spent paused by alignment, up to now.
    pub fn paused_ms(&self, id: SplitId) -> Millis {
        let ended = self.align.paused_ms.get(&id).copied().unwrap_or(0);
        let open = self
            .align
            .paused_since
            .get(&id)
            .map_or(0, |s| self.now.saturating_sub(*s));
        ended + open
    }

    /// Whether the job aligns watermarks (a record may then be read after
    /// later ones).
    pub fn aligns(&self) -> bool {
        !self.groups.is_empty()
    }

    /// Whether record `origin` of split `id` was just held back.
    pub fn is_deferred(&self, id: SplitId, origin: usize) -> bool {
        self.align
            .deferred
            .get(&id)
            .and_then(VecDeque::back)
            .is_some_and(|r| r.origin == origin)
    }

    /// The driver's index of the oldest record alignment holds back.
    pub fn oldest_deferred(&self) -> Option<usize> {
        self.align
            .deferred
            .values()
            .filter_map(|d| d.front().map(|r| r.origin))
            .min()
    }

    /// Whether split `id` is paused by alignment now.
    pub fn is_paused(&self, id: SplitId) -> bool {
        self.align.paused_since.contains_key(&id)
    }
}
