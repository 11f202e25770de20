//! A temporal join node of one subtask, the shape the replay stepper and
//! the live task both drive (as [`crate::dataflow::window::WindowNode`] is
//! for window aggregations): its input gate (port 0 the probe side's
//! channels, port 1 the build side's), the deduplication of a versioned
//! view before the build port, the operator, and the rest of Flink's join
//! that changes no state ([`Joined::into_row`]: the ON condition's other
//! terms and a LEFT join's NULLs). What holds it is read from it
//! ([`TemporalJoinNode::hold`]): which side and channel, and how many probe
//! rows wait since when.

use serde::{Deserialize, Serialize};

use crate::dataflow::gate::{GateState, InputGate};
use crate::time::Millis;
use crate::time::Timestamp;
use crate::value::{Row, Value};
use crate::watermark::Progress;
use crate::window::limit::{OpenStateGuard, Verdict};

use super::dedup::{KeepLast, Normalize, Versioning};
use super::temporal::{Joined, TemporalJoin};

/// What holds a join's watermark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JoinHold {
    /// The port: [`super::temporal::PROBE`] or [`super::temporal::BUILD`].
    pub port: usize,
    /// The channel of that port (an upstream subtask).
    pub channel: usize,
    /// The join's combined watermark.
    pub watermark: Timestamp,
    /// Probe rows waiting for it to pass their time (an interval join:
    /// the rows it caches). The oldest one's time is
    /// [`TemporalJoin::oldest_waiting`], a walk over them, asked for apart.
    pub waiting: u64,
}

/// A temporal join node.
#[derive(Debug, Clone)]
pub struct TemporalJoinNode {
    gate: InputGate,
    op: TemporalJoin,
    dedup: Versioning,
    /// The bound on waiting probe rows (`lowwater.state.max-join-rows`).
    guard: OpenStateGuard,
}

/// A node's state, as a checkpoint or a replay snapshot keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TemporalJoinState {
    gate: GateState,
    op: TemporalJoin,
    dedup: Versioning,
    guard: OpenStateGuard,
}

impl TemporalJoinState {
    /// The states of every subtask of one join (as a checkpoint holds
    /// them) regrouped into `n`: each join key's probe rows and versions in
    /// the subtask `route` picks for it, each view key's deduplication in
    /// the one `dedup_route` picks (the same subtask as its join keys), an
    /// upsert table's last row per primary key where `route` sends its join
    /// key, each port's valve rebuilt by `valve` (port, its output before): a
    /// restore at another parallelism.
    pub fn regroup(
        parts: Vec<TemporalJoinState>,
        n: usize,
        route: &dyn Fn(&[Value]) -> usize,
        dedup_route: &dyn Fn(&[Value]) -> usize,
        valve: &dyn Fn(usize, Timestamp) -> crate::watermark::valve::ChannelValve,
    ) -> Vec<TemporalJoinState> {
        let Some(first) = parts.first() else {
            return Vec::new();
        };
        let (gate, guard) = (first.gate.regrouped(valve), first.guard.clone());
        let (ops, dedups): (Vec<TemporalJoin>, Vec<Versioning>) =
            parts.into_iter().map(|p| (p.op, p.dedup)).unzip();
        let ops = TemporalJoin::regroup(ops, n, route);
        let dedups = Versioning::regroup(dedups, n, route, dedup_route);
        ops.into_iter()
            .zip(dedups)
            .map(|(op, dedup)| TemporalJoinState {
                gate: gate.clone(),
                op,
                dedup,
                guard: guard.clone(),
            })
            .collect()
    }
}

impl TemporalJoinNode {
    /// A join over `probe` probe channels and `build` build channels; a
    /// versioned view (`deduplicate`) keeps the last row on rowtime per key
    /// before the build port. At most `limit` probe rows may wait while its
    /// watermark stands still for longer than `grace` ([`Self::check`]).
    pub fn new(probe: usize, build: usize, deduplicate: bool, limit: u64, grace: Millis) -> Self {
        let dedup = match deduplicate {
            true => Versioning::View(KeepLast::new()),
            false => Versioning::Table,
        };
        Self::with(probe, build, dedup, limit, grace)
    }

    /// [`Self::new`] for an upsert table whose changelog is normalized
    /// before the build port ([`Normalize`]; rows come through
    /// [`Self::upsert`]).
    pub fn upserting(probe: usize, build: usize, limit: u64, grace: Millis) -> Self {
        let dedup = Versioning::Upsert(Normalize::new());
        Self::with(probe, build, dedup, limit, grace)
    }

    fn with(probe: usize, build: usize, dedup: Versioning, limit: u64, grace: Millis) -> Self {
        TemporalJoinNode {
            gate: InputGate::new(&[probe, build]),
            op: TemporalJoin::new(),
            dedup,
            guard: OpenStateGuard::new(limit, grace),
        }
    }

    /// A probe row; returns whether it is late (see [`TemporalJoin::probe`]).
    pub fn probe(&mut self, ts: Timestamp, key: &[Value], row: impl Into<Row>) -> bool {
        self.op.probe(ts, key, row)
    }

    /// A build row: a new version of its join `key`, unless the view's
    /// deduplication drops it (an older row than the last of its view key
    /// `dedup`, which may be coarser than the join key: Flink deduplicates
    /// by the view's PARTITION BY before the join).
    /// Returns whether the version is late (a row the deduplication
    /// dropped is not: it never reaches the join).
    pub fn build(&mut self, ts: Timestamp, dedup: &[Value], key: &[Value], row: &[Value]) -> bool {
        let passes = match &mut self.dedup {
            Versioning::Table => true,
            Versioning::View(d) => d.admit(dedup, ts),
            Versioning::Upsert(n) => n.upsert(dedup, ts, key, row),
        };
        passes && self.op.version(ts, key, Some(row))
    }

    /// A record of an upsert table with primary key `pk`: an upsert (`row`
    /// at `ts`, join key `key`) or a tombstone (`None`). Normalized, a
    /// tombstone deletes the key's last version at that version's time
    /// (its join key the one the last row had; `ts` is not read) and is
    /// never late: it belongs to the version it deletes. Not normalized
    /// (Flink's planner removed the ChangelogNormalize), the join takes
    /// the tombstone as it comes: "no version" of `key` from `ts` on.
    /// Returns whether what reached the join is late.
    pub fn upsert(
        &mut self,
        ts: Timestamp,
        pk: &[Value],
        key: &[Value],
        row: Option<&[Value]>,
    ) -> bool {
        match (row, &mut self.dedup) {
            (Some(row), _) => self.build(ts, pk, key, row),
            (None, Versioning::Upsert(n)) => {
                if let Some((at, key)) = n.delete(pk) {
                    self.op.version(at, &key, None);
                }
                false
            }
            (None, _) => self.op.version(ts, key, None),
        }
    }

    /// Channel `ch` of `port` sent `p` at `now`: the probe rows the new
    /// combined watermark passes come out. Returns the watermark to
    /// forward, if it moved (the join forwards its input's).
    pub fn progress(
        &mut self,
        port: usize,
        ch: usize,
        p: Progress,
        now: Timestamp,
        out: &mut Vec<Joined>,
    ) -> Option<Timestamp> {
        let mut moved = None;
        for step in self.gate.input(port, ch, p) {
            if let Some(wm) = step.watermark {
                self.op.advance(wm, out);
                self.guard.on_watermark(wm, now);
                moved = Some(wm);
            }
        }
        moved
    }

    /// The rows it holds (waiting probe rows and versions) against the
    /// limit at `now` (see [`OpenStateGuard`]: over it while the watermark
    /// stood still for longer than the grace, the driver stops the job,
    /// naming the stall). Versions count too: while the probe side holds
    /// the watermark, every version newer than it is kept.
    pub fn check(&mut self, now: Timestamp) -> Verdict {
        self.check_held(self.held(), now)
    }

    /// The rows the limit counts: waiting probe rows and versions.
    pub fn held(&self) -> u64 {
        self.op.waiting() + self.op.versions()
    }

    /// [`Self::check`] of `held` rows: a live join's over all its subtasks
    /// (the limit is the join's, not each subtask's).
    pub fn check_held(&mut self, held: u64, now: Timestamp) -> Verdict {
        self.guard.check(held, now)
    }

    /// The bound on waiting probe rows.
    pub fn limit(&self) -> u64 {
        self.guard.limit()
    }

    /// What holds the watermark, when a channel does (none when every
    /// channel is idle or ended).
    pub fn hold(&self) -> Option<JoinHold> {
        let (port, channel) = self.gate.holding()?;
        Some(JoinHold {
            port,
            channel,
            watermark: self.gate.current(),
            waiting: self.op.waiting(),
        })
    }

    /// The operator.
    pub fn op(&self) -> &TemporalJoin {
        &self.op
    }

    /// The input gate.
    pub fn gate(&self) -> &InputGate {
        &self.gate
    }

    /// The input gate, for the barriers and ends of its channels (a live
    /// task aligns checkpoints on it).
    pub fn gate_mut(&mut self) -> &mut InputGate {
        &mut self.gate
    }

    /// Build rows the view's deduplication dropped.
    pub fn deduplicated(&self) -> u64 {
        match &self.dedup {
            Versioning::View(d) => d.dropped(),
            _ => 0,
        }
    }

    /// An upsert table's normalization (`None` for a table or a view).
    pub fn normalize(&self) -> Option<&Normalize> {
        match &self.dedup {
            Versioning::Upsert(n) => Some(n),
            _ => None,
        }
    }

    /// Its state.
    pub fn state(&self) -> TemporalJoinState {
        TemporalJoinState {
            gate: self.gate.state().clone(),
            op: self.op.clone(),
            dedup: self.dedup.clone(),
            guard: self.guard.clone(),
        }
    }

    /// A node continuing from `state`.
    pub fn restore(state: TemporalJoinState) -> Self {
        let mut guard = state.guard;
        // A restore counts as a move: the restored rows get the grace.
        guard.restored(state.op.watermark(), state.op.waiting());
        TemporalJoinNode {
            gate: InputGate::restore(state.gate),
            op: state.op,
            dedup: state.dedup,
            guard,
        }
    }
}

impl Joined {
    /// The joined row: the probe row then the version's `build_width`
    /// columns, when `matches` (the ON condition's terms beyond the key,
    /// asked with that joined row) holds; else, for a LEFT join (`outer`),
    /// the probe row with NULLs, and for an inner join nothing. A
    /// version-less probe row is unmatched. As Flink's join condition,
    /// `matches` is asked only with a version.
    pub fn into_row<E>(
        self,
        build_width: usize,
        outer: bool,
        matches: impl FnOnce(&Row) -> Result<bool, E>,
    ) -> Result<Option<Row>, E> {
        let mut row = self.probe;
        let width = row.len();
        if let Some(b) = self.build {
            row.extend(b);
            if matches(&row)? {
                return Ok(Some(row));
            }
            row.truncate(width);
        }
        if !outer {
            return Ok(None);
        }
        row.extend(std::iter::repeat_n(Value::Null, build_width));
        Ok(Some(row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::temporal::{BUILD, PROBE};
    use crate::time::secs;

    fn wm(t: Timestamp) -> Progress {
        Progress {
            watermark: Some(t),
            ..Progress::NONE
        }
    }

    #[test]
    fn the_view_drops_an_older_rate_and_the_quiet_build_channel_is_named() {
        // Two build channels: channel 1 has no record and holds the join.
        let mut n = TemporalJoinNode::new(1, 2, true, 2, 1_000);
        let k = [Value::from("EUR")];
        n.build(secs(10), &k, &k, &[Value::Int(116)]);
        n.build(secs(8), &k, &k, &[Value::Int(115)]);
        n.probe(secs(9), &k, &[Value::Int(5)]);
        let mut out = Vec::new();
        assert_eq!(n.progress(PROBE, 0, wm(secs(20)), 0, &mut out), None);
        assert_eq!(n.progress(BUILD, 0, wm(secs(20)), 0, &mut out), None);
        assert_eq!(
            n.hold(),
            Some(JoinHold {
                port: BUILD,
                channel: 1,
                watermark: crate::time::MIN_WATERMARK,
                waiting: 1,
            })
        );
        assert_eq!(n.deduplicated(), 1);
        // One row waits and one version is held, the limit: within it; a
        // second row while the watermark never moved is over it.
        assert_eq!(n.check(4_000), Verdict::Near);
        n.probe(secs(9), &k, &[Value::Int(6)]);
        assert_eq!(n.check(4_000), Verdict::Over { still_for: None });
        assert_eq!(
            n.progress(BUILD, 1, wm(secs(20)), 5_000, &mut out),
            Some(secs(20))
        );
        // 10 s is the only version: the 9 s order has none at its time.
        let rows: Vec<_> = out
            .into_iter()
            .map(|j| j.into_row::<()>(1, true, |_| Ok(true)))
            .collect();
        let unmatched = |v| Ok(Some(vec![Value::Int(v), Value::Null]));
        assert_eq!(rows, vec![unmatched(5), unmatched(6)]);
        assert_eq!(n.check(5_500), Verdict::Within, "the rows left");
        let restored = TemporalJoinNode::restore(n.state());
        assert_eq!(restored.gate().current(), secs(20));
        assert_eq!(restored.deduplicated(), 1);
    }

    #[test]
    fn the_view_deduplicates_by_its_own_key_even_when_the_join_key_is_finer() {
        // PARTITION BY currency, joined ON currency AND market (Flink's
        // deduplication runs before the join, on the view's key).
        let mut n = TemporalJoinNode::new(1, 1, true, 100, 1_000);
        let eur = [Value::from("EUR")];
        let (fwd, spot) = (
            [Value::from("EUR"), Value::from("fwd")],
            [Value::from("EUR"), Value::from("spot")],
        );
        n.build(secs(12), &eur, &fwd, &[Value::Int(210)]);
        n.build(secs(11), &eur, &spot, &[Value::Int(113)]);
        assert_eq!(n.deduplicated(), 1, "older than EUR's last row");
        n.probe(secs(11) + 500, &spot, &[Value::Int(1)]);
        let mut out = Vec::new();
        n.progress(PROBE, 0, wm(secs(20)), 0, &mut out);
        n.progress(BUILD, 0, wm(secs(20)), 0, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].build, None, "no spot version was kept");
    }

    #[test]
    fn a_tombstone_deletes_the_last_version_at_its_time_and_a_later_upsert_restores_the_key() {
        let mut n = TemporalJoinNode::upserting(1, 1, 100, 1_000);
        let eur = [Value::from("EUR")];
        let rate = |r: i64| [Value::Int(r)];
        n.upsert(secs(10), &eur, &eur, Some(&rate(114)));
        n.upsert(secs(20), &eur, &eur, Some(&rate(116)));
        n.upsert(secs(20), &eur, &eur, Some(&rate(116)));
        // The tombstone arrives at 40 s: it deletes the 20 s version.
        n.upsert(secs(40), &eur, &eur, None);
        n.upsert(secs(41), &eur, &eur, None);
        n.upsert(secs(50), &eur, &eur, Some(&rate(118)));
        for (t, id) in [(15, 1), (20, 2), (25, 3), (49, 4), (55, 5)] {
            n.probe(secs(t), &eur, &[Value::Int(id)]);
        }
        let mut out = Vec::new();
        n.progress(PROBE, 0, wm(secs(60)), 0, &mut out);
        n.progress(BUILD, 0, wm(secs(60)), 0, &mut out);
        let rows: Vec<_> = out
            .into_iter()
            .map(|j| {
                j.into_row::<()>(1, true, |_| Ok(true))
                    .expect("no error")
                    .expect("a LEFT join writes every row")
            })
            .collect();
        let row = |id: i64, r: Value| vec![Value::Int(id), r];
        assert_eq!(
            rows,
            vec![
                row(1, Value::Int(114)),
                row(2, Value::Null),
                row(3, Value::Null),
                row(4, Value::Null),
                row(5, Value::Int(118)),
            ]
        );
        let norm = n.normalize().expect("an upsert node");
        assert_eq!((norm.unchanged(), norm.deleted(), norm.absent()), (1, 1, 1));
        let back = TemporalJoinNode::restore(n.state());
        assert_eq!(back.normalize().map(Normalize::keys), Some(1));
    }

    #[test]
    fn a_normalized_deletion_behind_the_watermark_is_not_late_and_a_raw_one_deletes_at_its_time() {
        let eur = [Value::from("EUR")];
        let mut out = Vec::new();
        let mut n = TemporalJoinNode::upserting(1, 1, 100, 1_000);
        assert!(!n.upsert(secs(10), &eur, &eur, Some(&[Value::Int(114)])));
        n.progress(PROBE, 0, wm(secs(30)), 0, &mut out);
        n.progress(BUILD, 0, wm(secs(30)), 0, &mut out);
        assert!(
            !n.upsert(secs(40), &eur, &eur, None),
            "deletes the 10 s version"
        );
        assert_eq!(n.normalize().map(Normalize::deleted), Some(1));
        // Not normalized (no metadata column read): the join takes the
        // tombstone at its own time, as Flink's does.
        let mut t = TemporalJoinNode::new(1, 1, false, 100, 1_000);
        t.upsert(secs(10), &eur, &eur, Some(&[Value::Int(114)]));
        t.upsert(secs(20), &eur, &eur, None);
        for (ts, id) in [(15, 1), (25, 2)] {
            t.probe(secs(ts), &eur, &[Value::Int(id)]);
        }
        let mut out = Vec::new();
        t.progress(PROBE, 0, wm(secs(60)), 0, &mut out);
        t.progress(BUILD, 0, wm(secs(60)), 0, &mut out);
        let builds: Vec<_> = out.into_iter().map(|j| j.build).collect();
        assert_eq!(builds, vec![Some(vec![Value::Int(114)]), None]);
    }

    #[test]
    fn the_condition_beyond_the_key_decides_between_the_version_and_nulls() {
        let j = || Joined {
            ts: 0,
            key: vec![Value::Int(1)],
            probe: vec![Value::Int(7)],
            build: Some(vec![Value::Int(120)]),
        };
        // The joined row: the probe's column, then the version's.
        let over = |r: &Row| -> Result<bool, String> { Ok(r[0] < r[1]) };
        let under = |r: &Row| -> Result<bool, String> { Ok(r[0] > r[1]) };
        assert_eq!(
            j().into_row(1, false, over),
            Ok(Some(vec![Value::Int(7), Value::Int(120)]))
        );
        assert_eq!(j().into_row(1, false, under), Ok(None));
        assert_eq!(
            j().into_row(1, true, under),
            Ok(Some(vec![Value::Int(7), Value::Null]))
        );
        let fails = |_: &Row| -> Result<bool, String> { Err("division by zero".into()) };
        assert_eq!(j().into_row(1, true, fails), Err("division by zero".into()));
    }
}
