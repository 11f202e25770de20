//! The event-time interval join (`FROM a JOIN b ON a.k = b.k AND b.ts
//! BETWEEN a.ts - INTERVAL ... AND a.ts + INTERVAL ...`), as Flink 2.3's
//! `RowTimeIntervalJoin` (its `TimeIntervalJoin`) computes it, INNER, LEFT,
//! RIGHT and FULL.
//!
//! The bounds are those of `left.ts - right.ts`, `[lower, upper]`: a left
//! row at `t` pairs with the right rows of its key in `[t - upper, t -
//! lower]`, a right row at `t` with the left rows in `[t + lower, t +
//! upper]`. Per key each side's rows are cached by rowtime with a flag
//! (joined yet). As Flink does:
//! - a row joins the other side's cached rows in its range at once (the
//!   driver's condition, the ON terms beyond the key, decides; a key with a
//!   NULL never matches, SQL `=`), and the pass also drops the other side's
//!   rows at or before that side's expiration time (padding the unjoined
//!   ones of an outer side with NULLs);
//! - the row is cached unless the watermark has passed its range's upper
//!   bound; then an unjoined row of an outer side is padded at once, and
//!   the row is counted as late ([`IntervalJoin::late`]);
//! - a cleanup timer per key and side, at the oldest cached row's time plus
//!   its side's relative size (and `table.exec.interval-join.min-cleanup-
//!   interval`) plus 1, drops the expired rows when the watermark reaches
//!   it, padding the unjoined ones of an outer side, and moves to the
//!   oldest row left;
//! - "the watermark" is the combined one of both inputs, clamped at 0 (no
//!   watermark yet counts as 0), and the expiration times are the
//!   operator's, shared by every key (Flink keeps them in fields, starting
//!   at 0; lowwater keeps them in its state, so a restore goes on as if
//!   nothing stopped, where a restored Flink starts them at 0 again);
//! - a cleanup that leaves only rows at or before the epoch (rowtime <= 0)
//!   clears the key's cache without padding them, as Flink's does (its
//!   next timer is only registered for a time above 0): such rows are
//!   counted ([`IntervalJoin::cleared`]).
//!
//! The output watermark is the input's minus `max(left relative size,
//! right relative size)`: a row emitted later pairs rows at most that far
//! behind the watermark, so a window after the join is not made late by
//! it (Flink's `KeyedCoProcessOperatorWithWatermarkDelay`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::dataflow::{Gauges, Operator};
use crate::error::Error;
use crate::time::{Millis, Timestamp, MIN_WATERMARK};
use crate::value::{Row, Value};
use crate::window::batch::InputBatch;

/// The left side's port.
pub const LEFT: usize = 0;
/// The right side's port.
pub const RIGHT: usize = 1;

/// Which unjoined rows are written with NULLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum JoinKind {
    /// None.
    Inner,
    /// The left side's.
    Left,
    /// The right side's.
    Right,
    /// Both sides'.
    Full,
    /// None; a left row once when it has a match, the right side unwritten
    /// (`IN` / `EXISTS`; window joins only).
    Semi,
    /// None; a left row when it has no match (`NOT IN` / `NOT EXISTS`;
    /// window joins only).
    Anti,
}

impl JoinKind {
    fn left_outer(self) -> bool {
        matches!(self, JoinKind::Left | JoinKind::Full)
    }

    fn right_outer(self) -> bool {
        matches!(self, JoinKind::Right | JoinKind::Full)
    }
}

/// An interval join's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntervalSpec {
    /// INNER, LEFT, RIGHT or FULL.
    pub kind: JoinKind,
    /// The least `left.ts - right.ts`.
    pub lower: Millis,
    /// The most `left.ts - right.ts` (at least `lower`).
    pub upper: Millis,
    /// `table.exec.interval-join.min-cleanup-interval` (Flink's default 0).
    pub min_cleanup: Millis,
}

/// A joined row: both sides, or one side padded with NULLs.
#[derive(Debug, Clone, PartialEq)]
pub struct Paired {
    /// The left row (`None`: padded).
    pub left: Option<Row>,
    /// The right row (`None`: padded).
    pub right: Option<Row>,
}

/// Rows of one side and key, sorted by rowtime (rows of one rowtime in
/// arrival order), each with whether it joined. A vector whose first row
/// is kept inline: a key holds a few rows, most often one (an order and
/// its shipment), which then costs no allocation of its own. It is stored
/// as a sequence, as a vector is.
type Cache = SmallVec<[(Timestamp, Row, bool); 1]>;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct KeyState {
    left: Cache,
    right: Cache,
    /// The timer that cleans the left cache (Flink's `rightTimerState`).
    left_cleanup: Option<Timestamp>,
    /// The timer that cleans the right cache (Flink's `leftTimerState`).
    right_cleanup: Option<Timestamp>,
}

impl KeyState {
    /// Holds nothing: no row and no pending cleanup.
    fn is_empty(&self) -> bool {
        self.left.is_empty()
            && self.right.is_empty()
            && self.left_cleanup.is_none()
            && self.right_cleanup.is_none()
    }
}

/// The interval join operator.
///
/// Each key's state is in a slot, found by a table of slot numbers hashed
/// by key, so the key is stored once; a cleanup timer is a (time, slot)
/// in a heap, with no copy of its key. Checkpoints and replay snapshots
/// store it as they always have (a map of key to state and the set of
/// (time, key) timers: `store::Stored`).
#[derive(Debug, Clone)]
pub struct IntervalJoin {
    spec: IntervalSpec,
    watermark: Timestamp,
    /// Key states by slot (a free one's number is in `free`).
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Slot numbers by their key's hash.
    index: HashTable<u32>,
    hasher: DefaultHashBuilder,
    /// Registered timers (time, slot), the earliest first. One that matches
    /// neither of its slot's cleanups does nothing (Flink never deletes a
    /// timer); the timers of one time fire in key order.
    timers: BinaryHeap<Reverse<(Timestamp, u32)>>,
    /// The timers one advance fires (kept for its capacity).
    due: Vec<(Timestamp, u32)>,
    left_expiration: Timestamp,
    right_expiration: Timestamp,
    cached: u64,
    records_in: u64,
    late: [u64; 2],
    cleared: u64,
}

/// A key's values, the first kept inline (most join keys are one column:
/// no allocation of its own, and no pointer to follow when it is compared).
type SlotKey = SmallVec<[Value; 1]>;

/// A key and its state.
#[derive(Debug, Clone)]
struct Slot {
    key: SlotKey,
    hash: u64,
    state: KeyState,
    /// Holds a key (else free: its key and state empty).
    live: bool,
}

impl IntervalJoin {
    /// An empty join of shape `spec` (its watermark MIN).
    pub fn new(spec: IntervalSpec) -> Self {
        IntervalJoin {
            spec,
            watermark: MIN_WATERMARK,
            slots: Vec::new(),
            free: Vec::new(),
            index: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
            timers: BinaryHeap::new(),
            due: Vec::new(),
            left_expiration: 0,
            right_expiration: 0,
            cached: 0,
            records_in: 0,
            late: [0, 0],
            cleared: 0,
        }
    }

    /// How far a left row reaches forward: `-lower` (Flink's
    /// `leftRelativeSize`).
    fn left_relative(&self) -> Millis {
        self.spec.lower.saturating_neg()
    }

    /// How far a left row reaches back: `upper` (`rightRelativeSize`).
    fn right_relative(&self) -> Millis {
        self.spec.upper
    }

    /// The watermark as Flink's operator time: 0 until it is above 0.
    fn operator_time(&self) -> Timestamp {
        self.watermark.max(0)
    }

    fn expiration(op_time: Timestamp, relative: Millis) -> Timestamp {
        if op_time < Timestamp::MAX {
            op_time.saturating_sub(relative).saturating_sub(1)
        } else {
            Timestamp::MAX
        }
    }

    /// The joins of every subtask regrouped into `n`, each key's cached
    /// rows, cleanups and timers in the subtask `route` picks for it (a
    /// restore at another parallelism). The watermark and the expirations
    /// are the lowest of the parts' (a lower expiration only looks at the
    /// cache once more); the counters, totals of the job, go to the first.
    pub fn regroup(
        parts: Vec<IntervalJoin>,
        n: usize,
        route: impl Fn(&[Value]) -> usize,
    ) -> Vec<IntervalJoin> {
        let Some(spec) = parts.first().map(|p| p.spec) else {
            return Vec::new();
        };
        let low = |f: fn(&IntervalJoin) -> Timestamp| parts.iter().map(f).min().unwrap_or(0);
        let (watermark, left, right) = (
            low(|p| p.watermark),
            low(|p| p.left_expiration),
            low(|p| p.right_expiration),
        );
        let mut out: Vec<IntervalJoin> = (0..n.max(1))
            .map(|_| IntervalJoin {
                watermark,
                left_expiration: left,
                right_expiration: right,
                ..IntervalJoin::new(spec)
            })
            .collect();
        let last = out.len() - 1;
        for part in parts {
            let first = &mut out[0];
            first.records_in += part.records_in;
            first.late[0] += part.late[0];
            first.late[1] += part.late[1];
            first.cleared += part.cleared;
            for Slot { key, state, .. } in part.slots.into_iter().filter(|s| s.live) {
                let to = &mut out[route(&key).min(last)];
                to.cached += (state.left.len() + state.right.len()) as u64;
                to.put(&key, state);
            }
        }
        out
    }

    /// The slot of `key` (`hash` its hash), if it has one.
    fn find(&self, hash: u64, key: &[Value]) -> Option<u32> {
        let slots = &self.slots;
        let same = |&i: &u32| slots[i as usize].key[..] == *key;
        self.index.find(hash, same).copied()
    }

    /// The slot of `key`, a new one (an empty state) when it has none.
    fn slot_of(&mut self, key: &[Value]) -> u32 {
        let hash = self.hasher.hash_one(key);
        if let Some(i) = self.find(hash, key) {
            return i;
        }
        self.occupy(SlotKey::from(key), hash, KeyState::default())
    }

    /// Puts `state` of `key` in a free slot and indexes it.
    fn occupy(&mut self, key: SlotKey, hash: u64, state: KeyState) -> u32 {
        let slot = Slot {
            key,
            hash,
            state,
            live: true,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = slot;
                i
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        };
        let slots = &self.slots;
        let hash_of = |&i: &u32| slots[i as usize].hash;
        self.index.insert_unique(hash, i, hash_of);
        i
    }

    /// `key` with `state` (a restore: its timers registered again from its
    /// cleanups; it holds no timer that would not fire as one of them).
    fn put(&mut self, key: &[Value], state: KeyState) {
        let hash = self.hasher.hash_one(key);
        let cleanups = [state.left_cleanup, state.right_cleanup];
        let i = self.occupy(SlotKey::from(key), hash, state);
        for t in cleanups.into_iter().flatten() {
            self.timers.push(Reverse((t, i)));
        }
    }

    /// Frees slot `i` (its key forgotten).
    fn vacate(&mut self, i: u32) {
        let Some(slot) = self.slots.get_mut(i as usize).filter(|s| s.live) else {
            return;
        };
        slot.live = false;
        slot.key = SlotKey::new();
        slot.state = KeyState::default();
        if let Ok(entry) = self.index.find_entry(slot.hash, |&j| j == i) {
            entry.remove();
        }
        self.free.push(i);
    }

    /// The key of slot `i` (`None` when free).
    fn key_at(&self, i: u32) -> Option<&[Value]> {
        self.slots
            .get(i as usize)
            .filter(|s| s.live)
            .map(|s| &s.key[..])
    }

    /// How far the output watermark trails the input's.
    pub fn delay(&self) -> Millis {
        self.left_relative().max(self.right_relative())
    }

    /// A left row arrives: its pairs with the cached right rows come out
    /// now (`matches`: the condition beyond the key and the time bounds).
    /// Returns whether it is late: the watermark had passed its range, so
    /// it is not cached (and, on an outer side, padded at once if unjoined).
    pub fn left<E>(
        &mut self,
        ts: Timestamp,
        key: &[Value],
        row: impl Into<Row>,
        matches: &mut dyn FnMut(&Row, &Row) -> Result<bool, E>,
        out: &mut Vec<Paired>,
    ) -> Result<bool, E> {
        self.arrive(true, ts, key, row.into(), matches, out)
    }

    /// A right row arrives (see [`IntervalJoin::left`]); returns whether it
    /// is late.
    pub fn right<E>(
        &mut self,
        ts: Timestamp,
        key: &[Value],
        row: impl Into<Row>,
        matches: &mut dyn FnMut(&Row, &Row) -> Result<bool, E>,
        out: &mut Vec<Paired>,
    ) -> Result<bool, E> {
        self.arrive(false, ts, key, row.into(), matches, out)
    }

    /// `processElement1` (`is_left`) and `processElement2`, one code path
    /// with the sides swapped.
    fn arrive<E>(
        &mut self,
        is_left: bool,
        ts: Timestamp,
        key: &[Value],
        row: Row,
        matches: &mut dyn FnMut(&Row, &Row) -> Result<bool, E>,
        out: &mut Vec<Paired>,
    ) -> Result<bool, E> {
        self.records_in += 1;
        let op_time = self.operator_time();
        // This side reaches the other over [ts - back, ts + ahead].
        let (back, ahead) = match is_left {
            true => (self.right_relative(), self.left_relative()),
            false => (self.left_relative(), self.right_relative()),
        };
        let (lower, upper) = (ts.saturating_sub(back), ts.saturating_add(ahead));
        let (this_outer, other_outer) = match is_left {
            true => (self.spec.kind.left_outer(), self.spec.kind.right_outer()),
            false => (self.spec.kind.right_outer(), self.spec.kind.left_outer()),
        };
        let null_key = key.iter().any(Value::is_null);
        let mut emitted = false;
        let expiration = match is_left {
            true => self.right_expiration,
            false => self.left_expiration,
        };
        let cleanup = self.cleanup_time(is_left, ts);
        let slot = self.slot_of(key);
        let state = &mut self.slots[slot as usize].state;
        if expiration < upper {
            let fresh = Self::expiration(op_time, back);
            match is_left {
                true => self.right_expiration = fresh,
                false => self.left_expiration = fresh,
            }
            let other = if is_left {
                &mut state.right
            } else {
                &mut state.left
            };
            let mut removed = 0;
            let mut failed = None;
            other.retain_mut(|(t, o, joined)| {
                if failed.is_some() {
                    return true;
                }
                if *t >= lower && *t <= upper {
                    let ok = match (null_key, is_left) {
                        (true, _) => Ok(false),
                        (false, true) => matches(&row, o),
                        (false, false) => matches(o, &row),
                    };
                    match ok {
                        Ok(true) => {
                            emitted = true;
                            *joined = true;
                            out.push(pair(is_left, row.clone(), Some(o.clone())));
                        }
                        Ok(false) => {}
                        Err(e) => {
                            failed = Some(e);
                            return true;
                        }
                    }
                }
                if *t <= fresh {
                    if other_outer && !*joined {
                        out.push(pad(!is_left, std::mem::take(o)));
                    }
                    removed += 1;
                    return false;
                }
                true
            });
            self.cached -= removed;
            if let Some(e) = failed {
                return Err(e);
            }
        }
        if op_time < upper {
            let this = if is_left {
                &mut state.left
            } else {
                &mut state.right
            };
            // After the rows of the same rowtime: arrival order within it.
            let at = this.partition_point(|(t, ..)| *t <= ts);
            this.insert(at, (ts, row, emitted));
            self.cached += 1;
            let timer = if is_left {
                &mut state.left_cleanup
            } else {
                &mut state.right_cleanup
            };
            if timer.is_none() {
                *timer = Some(cleanup);
                self.timers.push(Reverse((cleanup, slot)));
            }
            Ok(false)
        } else {
            self.late[usize::from(!is_left)] += 1;
            if !emitted && this_outer {
                out.push(pad(is_left, row));
            }
            self.drop_if_empty(slot);
            Ok(true)
        }
    }

    /// When the cleanup of side `left`'s cache for its oldest row at `ts`
    /// fires (`registerCleanUpTimer`).
    fn cleanup_time(&self, left: bool, ts: Timestamp) -> Timestamp {
        let relative = if left {
            self.left_relative()
        } else {
            self.right_relative()
        };
        ts.saturating_add(relative)
            .saturating_add(self.spec.min_cleanup)
            .saturating_add(1)
    }

    /// The combined watermark advances to `wm`: the cleanup timers at or
    /// before it fire (the unjoined rows they drop of an outer side come
    /// out padded). Returns the watermark to forward, `wm - delay`.
    pub fn advance(&mut self, wm: Timestamp, out: &mut Vec<Paired>) -> Timestamp {
        self.watermark = wm;
        // Every timer due now: a cleanup registers its next timer after
        // the watermark (at the oldest remaining row's time plus its side's
        // size plus 1), so none comes due while these fire (short of times
        // saturated at the end of time, which then fire at the next
        // advance). They fire in (time, key) order, each once.
        let mut due = std::mem::take(&mut self.due);
        while let Some(&Reverse((t, i))) = self.timers.peek() {
            if t > wm {
                break;
            }
            self.timers.pop();
            due.push((t, i));
        }
        // Popped in time order already: only timers of one time are put in
        // key order (the keys read only for them).
        due.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| self.key_at(a.1).cmp(&self.key_at(b.1)))
                .then(a.1.cmp(&b.1))
        });
        due.dedup();
        for &(t, i) in &due {
            self.on_timer(t, i, out);
        }
        due.clear();
        self.due = due;
        wm.saturating_sub(self.delay())
    }

    fn on_timer(&mut self, t: Timestamp, i: u32, out: &mut Vec<Paired>) {
        let op_time = self.operator_time();
        // The key's state, out of its slot while its caches are cleaned.
        let Some(slot) = self.slots.get_mut(i as usize).filter(|s| s.live) else {
            return;
        };
        let mut state = std::mem::take(&mut slot.state);
        // Flink's order: the right cache's cleanup, then the left's.
        if state.right_cleanup == Some(t) {
            self.right_expiration = Self::expiration(op_time, self.right_relative());
            self.remove_expired(i, &mut state, false, out);
        }
        if state.left_cleanup == Some(t) {
            self.left_expiration = Self::expiration(op_time, self.left_relative());
            self.remove_expired(i, &mut state, true, out);
        }
        if state.is_empty() {
            self.vacate(i);
        } else {
            self.slots[i as usize].state = state;
        }
    }

    /// Forgets slot `i`'s key when it holds nothing: no row and no
    /// pending cleanup.
    fn drop_if_empty(&mut self, i: u32) {
        let empty = self.slots[i as usize].state.is_empty();
        if empty {
            self.vacate(i);
        }
    }

    /// `removeExpiredRows` of side `left`'s cache of `key` (its `state`).
    fn remove_expired(
        &mut self,
        slot: u32,
        state: &mut KeyState,
        left: bool,
        out: &mut Vec<Paired>,
    ) {
        let (expiration, outer) = match left {
            true => (self.left_expiration, self.spec.kind.left_outer()),
            false => (self.right_expiration, self.spec.kind.right_outer()),
        };
        let cache = if left {
            &mut state.left
        } else {
            &mut state.right
        };
        let mut earliest: Timestamp = -1;
        let mut removed = 0u64;
        cache.retain_mut(|(t, r, joined)| {
            if *t <= expiration {
                if outer && !*joined {
                    out.push(pad(left, std::mem::take(r)));
                }
                removed += 1;
                false
            } else {
                if *t < earliest || earliest < 0 {
                    earliest = *t;
                }
                true
            }
        });
        self.cached -= removed;
        if earliest > 0 {
            let t = self.cleanup_time(left, earliest);
            match left {
                true => state.left_cleanup = Some(t),
                false => state.right_cleanup = Some(t),
            }
            self.timers.push(Reverse((t, slot)));
        } else {
            // Rows left at or before the epoch go without padding, as in
            // Flink (it registers no timer for them).
            let left_over = cache.len() as u64;
            self.cached -= left_over;
            self.cleared += left_over;
            cache.clear();
            match left {
                true => state.left_cleanup = None,
                false => state.right_cleanup = None,
            }
        }
    }

    /// The combined watermark it last saw.
    pub fn watermark(&self) -> Timestamp {
        self.watermark
    }

    /// Rows cached, both sides.
    pub fn cached(&self) -> u64 {
        self.cached
    }

    /// Rows of side `port` ([`LEFT`], [`RIGHT`]) that arrived after the
    /// watermark passed the end of their range: joined with what was
    /// cached, not cached themselves (an outer side's unjoined ones were
    /// padded at once).
    pub fn late(&self, port: usize) -> u64 {
        self.late.get(port).copied().unwrap_or(0)
    }

    /// Cached rows at or before the epoch a cleanup dropped without
    /// padding (Flink's behaviour, see the module's notes).
    pub fn cleared(&self) -> u64 {
        self.cleared
    }

    /// An estimate of the bytes its state takes.
    pub fn state_bytes(&self) -> usize {
        use std::mem::size_of;
        let row =
            |r: &Row| r.len() * size_of::<Value>() + r.iter().map(Value::heap_bytes).sum::<usize>();
        let cache = |c: &Cache| {
            let spilled = if c.spilled() { c.capacity() } else { 0 };
            spilled * size_of::<(Timestamp, Row, bool)>()
                + c.iter().map(|(_, r, _)| row(r)).sum::<usize>()
        };
        // The keys held, each with its slot, its index entry and its
        // timers (room kept for keys gone is not counted: the gauge falls
        // to 0 when the join holds nothing).
        let per_key = size_of::<Slot>() + size_of::<u32>() + 2 * size_of::<(Timestamp, u32)>();
        let keys = self.slots.iter().filter(|s| s.live);
        keys.map(|s| {
            let spilled = if s.key.spilled() { s.key.capacity() } else { 0 };
            let key =
                spilled * size_of::<Value>() + s.key.iter().map(Value::heap_bytes).sum::<usize>();
            per_key + key + cache(&s.state.left) + cache(&s.state.right)
        })
        .sum::<usize>()
    }
}

/// A pair of `row` (from the left side when `is_left`) and `other`.
fn pair(is_left: bool, row: Row, other: Option<Row>) -> Paired {
    match is_left {
        true => Paired {
            left: Some(row),
            right: other,
        },
        false => Paired {
            left: other,
            right: Some(row),
        },
    }
}

/// `row` of the left side (`left`) or the right, the other padded.
fn pad(left: bool, row: Row) -> Paired {
    pair(left, row, None)
}

/// The operator with no condition beyond the key and the time bounds (an
/// interval join whose ON has only those): what the operator harness
/// drives.
impl Operator for IntervalJoin {
    type Output = Paired;

    fn inputs(&self) -> usize {
        2
    }

    fn on_records(
        &mut self,
        port: usize,
        batch: &InputBatch,
        out: &mut Vec<Paired>,
        _fail: &mut dyn FnMut(usize, Error),
    ) {
        let mut any = |_: &Row, _: &Row| Ok::<bool, ()>(true);
        for r in batch.iter() {
            let _ = match port {
                LEFT => self.left(r.ts, r.key, r.row, &mut any, out),
                _ => self.right(r.ts, r.key, r.row, &mut any, out),
            };
        }
    }

    fn on_watermark(&mut self, wm: Timestamp, out: &mut Vec<Paired>) -> Option<Timestamp> {
        Some(self.advance(wm, out))
    }

    fn gauges(&self) -> Gauges {
        Gauges {
            open_states: self.cached,
            state_bytes: self.state_bytes() as u64,
            records_in: self.records_in,
            late_dropped: 0,
            late_routed: 0,
        }
    }
}

#[path = "interval_store.rs"]
mod store;

#[cfg(test)]
#[path = "interval_tests.rs"]
mod tests;
