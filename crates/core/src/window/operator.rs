//! The window operator: keyed (or global) incremental aggregation over
//! event-time windows, fired by the watermark.
//!
//! Semantics (Flink's `WindowOperator` + `EventTimeTrigger`, and the SQL window
//! aggregate, which is the same with allowed lateness 0):
//! - A window `[start, end)` fires when the watermark reaches `end - 1`, before
//!   the watermark is forwarded; results carry timestamp `end - 1`.
//! - With allowed lateness `L`, a window is *late* once `end - 1 + L <=
//!   watermark`; its state is dropped then. A record goes into each of its
//!   windows that is not late. A record whose every window is late is a late
//!   record: it goes to the late side output when one is configured, otherwise
//!   it is dropped; either way it is counted per input split.
//! - A record that lands in a window that has already fired but is not late
//!   (only possible with `L > 0`) fires that window again at once, with its
//!   full contents.
//! - Session windows (`[ts, ts + gap)`) merge with every open session of the
//!   same key that they overlap or touch. A record whose session is late and
//!   touches no open session is late.
//!
//! Output order is deterministic: by window end, then start, then key.

use std::collections::BTreeMap;

// hashbrown's map (std's, with the fast foldhash hasher, randomly seeded per
// process) has `entry_ref`: a session's key is cloned only when it is new.
// (A window's own states are a `KeyTable`.)
use hashbrown::HashMap;

use crate::error::{Error, Result};
use crate::time::{Millis, Timestamp, MIN_WATERMARK};
use crate::value::{Key, Row, Value};
use serde::{Deserialize, Serialize};

use super::aggregate::{Accumulator, AggFunc, AggSpec};
use super::assigner::{Window, WindowAssigner};
use super::batch::{InputBatch, InputRef};
use super::table::{KeyState, KeyTable};

pub use crate::source::SplitId;

/// What the window operator computes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowSpec {
    /// Which windows a record belongs to.
    pub assigner: WindowAssigner,
    /// The aggregates computed per key and window, in output order.
    pub aggregates: Vec<AggSpec>,
    /// How long after firing a window still accepts records (DataStream
    /// `allowedLateness`; 0 in SQL).
    pub allowed_lateness: Millis,
    /// Whether late records go to a side output instead of being dropped.
    pub late_side_output: bool,
}

impl WindowSpec {
    /// `COUNT(*)` per key over `assigner`, no lateness, no side output.
    pub fn count(assigner: WindowAssigner) -> Self {
        WindowSpec {
            assigner,
            aggregates: vec![AggSpec::count_star()],
            allowed_lateness: 0,
            late_side_output: false,
        }
    }
}

/// One record entering the operator.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowInput {
    /// Event time.
    pub ts: Timestamp,
    /// The split it was read from.
    pub split: SplitId,
    /// Group key (empty for a global aggregate).
    pub key: Key,
    /// The row the aggregates read their arguments from.
    pub row: Row,
}

/// One fired window of one key.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowResult {
    /// Group key.
    pub key: Key,
    /// The window.
    pub window: Window,
    /// One value per aggregate, in [`WindowSpec::aggregates`] order.
    pub values: Vec<Value>,
    /// Whether this (window, key) had fired before: a late record within the
    /// allowed lateness fired it again with its full contents (never in SQL).
    pub refired: bool,
    /// Whether it fired before the watermark reached its end, to bound the
    /// open state ([`WindowOperator::fire_oldest`]): its records so far only.
    pub early: bool,
}

/// Something the operator emits.
#[derive(Debug, Clone, PartialEq)]
pub enum WindowOutput {
    /// A window fired (or fired again).
    Fired(WindowResult),
    /// A late record routed to the side output.
    Late(WindowInput),
}

/// Per-split counts of late records.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LateCounters {
    /// Late records dropped, per split (Flink's `numLateRecordsDropped`).
    pub dropped: BTreeMap<SplitId, u64>,
    /// Late records sent to the side output, per split.
    pub routed: BTreeMap<SplitId, u64>,
}

impl LateCounters {
    /// Total dropped over all splits.
    pub fn total_dropped(&self) -> u64 {
        self.dropped.values().sum()
    }

    /// Total routed to the side output over all splits.
    pub fn total_routed(&self) -> u64 {
        self.routed.values().sum()
    }
}

/// The window operator of one window subtask.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WindowOperator {
    spec: WindowSpec,
    watermark: Timestamp,
    windows: BTreeMap<Window, KeyTable>,
    sessions: HashMap<Key, Vec<Window>>,
    late: LateCounters,
    records_in: u64,
    #[serde(skip)]
    scratch: Vec<Window>,
    /// The last record's tumbling window: the next record's too, most of
    /// the time, found without a division.
    #[serde(skip)]
    last_tumble: Option<Window>,
    /// How many keys the last window that left the state held: a new
    /// window's table starts at that size instead of growing to it by
    /// doubling (allocating and rehashing at each step).
    #[serde(skip)]
    keys_hint: usize,
    /// The last window's table, emptied, for the next window to open (its
    /// vectors kept rather than freed and allocated again: with glibc, a
    /// large free every window also sweeps the allocator's small free
    /// lists). Kept only up to `SPARE_KEYS` keys; not state (not in
    /// checkpoints, nor in the state's bytes).
    #[serde(skip)]
    spare: Option<KeyTable>,
}

/// The most keys a window's emptied table may have held to be kept for
/// the next window.
const SPARE_KEYS: usize = 16_384;

impl WindowOperator {
    /// An operator at watermark `MIN`. Validates the window definition.
    pub fn new(spec: WindowSpec) -> Result<Self> {
        spec.assigner.validate()?;
        Ok(WindowOperator {
            spec,
            watermark: MIN_WATERMARK,
            windows: BTreeMap::new(),
            sessions: HashMap::new(),
            late: LateCounters::default(),
            records_in: 0,
            scratch: Vec::new(),
            last_tumble: None,
            keys_hint: 0,
            spare: None,
        })
    }

    /// Starts the operator at watermark `wm`, firing nothing: the windows
    /// at or below it are taken as written already (a restart without
    /// checkpoints that knows how far its last run wrote). Records then
    /// only go into later windows. Ignored once the watermark is past it.
    pub fn start_at(&mut self, wm: Timestamp) {
        self.watermark = self.watermark.max(wm);
    }

    /// The operators of every subtask of one aggregation (as a checkpoint
    /// holds them), regrouped into `n` operators with each key's state in
    /// the subtask `route` picks for it: a restore at another parallelism.
    ///
    /// Every open (window, key) state and session keeps its accumulators
    /// and fired flag. The watermark is the lowest of the parts' (with
    /// aligned checkpoints they are all the same); the late counters and
    /// the records count, totals of the job, go to the first operator.
    pub fn regroup(
        parts: Vec<WindowOperator>,
        n: usize,
        route: impl Fn(&[Value]) -> usize,
    ) -> Result<Vec<WindowOperator>> {
        let Some(first) = parts.first() else {
            return Err(Error::Checkpoint(
                "no window operator to regroup (a checkpoint without window subtasks)".into(),
            ));
        };
        let watermark = parts
            .iter()
            .map(|p| p.watermark)
            .min()
            .unwrap_or(MIN_WATERMARK);
        let mut out = (0..n.max(1))
            .map(|_| WindowOperator::new(first.spec.clone()))
            .collect::<Result<Vec<_>>>()?;
        for op in &mut out {
            op.watermark = watermark;
        }
        let last = out.len() - 1;
        for part in parts {
            let totals = &mut out[0];
            totals.records_in += part.records_in;
            for (split, n) in part.late.dropped {
                *totals.late.dropped.entry(split).or_insert(0) += n;
            }
            for (split, n) in part.late.routed {
                *totals.late.routed.entry(split).or_insert(0) += n;
            }
            for (window, table) in part.windows {
                for (key, state) in table.into_states() {
                    let to = &mut out[route(&key).min(last)];
                    to.windows.entry(window).or_default().insert(key, state);
                }
            }
            for (key, sessions) in part.sessions {
                let to = &mut out[route(&key).min(last)];
                to.sessions.entry(key).or_default().extend(sessions);
            }
        }
        Ok(out)
    }

    /// The operator's current (input) watermark.
    pub fn watermark(&self) -> Timestamp {
        self.watermark
    }

    /// Late-record counters.
    pub fn late(&self) -> &LateCounters {
        &self.late
    }

    /// Records processed (including late ones).
    pub fn records_in(&self) -> u64 {
        self.records_in
    }

    /// Number of (window, key) states held.
    pub fn pending(&self) -> usize {
        self.windows.values().map(KeyTable::len).sum()
    }

    /// The earliest end among the open windows (`None`: none is open).
    pub fn first_open_end(&self) -> Option<Timestamp> {
        self.windows.keys().map(|w| w.end).min()
    }

    /// An estimate of the bytes the open (window, key) states take: each
    /// window's hash table at its capacity, plus the keys' and
    /// accumulators' heap, averaged over up to 8 states of the window and
    /// scaled to all of them (cost: a few states per window, not all).
    pub fn state_bytes(&self) -> usize {
        self.windows.values().map(KeyTable::bytes).sum::<usize>()
            + self.windows.len() * std::mem::size_of::<(Window, KeyTable)>()
            + self.sessions.capacity() * (std::mem::size_of::<(Key, Vec<Window>)>() + 1)
            + self
                .sessions
                .values()
                .map(|w| w.capacity() * std::mem::size_of::<Window>())
                .sum::<usize>()
    }

    /// Fires the windows that end first, as if the watermark had reached
    /// their end, until at most `keep` (window, key) states are open; their
    /// results are marked `early`. The operator's watermark is then past
    /// them, so their later records are late (counted, or routed). Returns
    /// the number of results fired.
    pub fn fire_oldest(&mut self, keep: usize, out: &mut Vec<WindowOutput>) -> usize {
        let from = out.len();
        while self.pending() > keep {
            let Some(first) = self.windows.keys().next().copied() else {
                break;
            };
            let before = self.pending();
            self.on_watermark(
                first.max_timestamp().max(self.watermark.saturating_add(1)),
                out,
            );
            if self.pending() >= before {
                break;
            }
        }
        for o in &mut out[from..] {
            if let WindowOutput::Fired(r) = o {
                r.early = true;
            }
        }
        out.len() - from
    }

    /// The definition this operator runs.
    pub fn spec(&self) -> &WindowSpec {
        &self.spec
    }

    /// Processes one record. Fails only when the record's time cannot be
    /// placed in a window (`MIN`), before any state changes.
    pub fn process(&mut self, input: WindowInput, out: &mut Vec<WindowOutput>) -> Result<()> {
        if !self.place(InputRef::from(&input), out)? {
            self.on_late(input, out);
        }
        Ok(())
    }

    /// [`WindowOperator::process`] of a borrowed record (a batch's): its
    /// key and row are copied only when it opens a (window, key) state, or
    /// goes to the late side output.
    pub fn process_ref(&mut self, input: InputRef<'_>, out: &mut Vec<WindowOutput>) -> Result<()> {
        if matches!(self.spec.assigner, WindowAssigner::Tumbling { .. }) {
            if let Some(w) = self.open_tumble(input.ts)? {
                self.add_run(w, std::iter::once(input));
                return Ok(());
            }
        }
        self.process_general(input, out)
    }

    /// A record through the assigner's windows (every kind, late records,
    /// windows that fire again).
    fn process_general(&mut self, input: InputRef<'_>, out: &mut Vec<WindowOutput>) -> Result<()> {
        if !self.place(input, out)? {
            self.on_late(input.to_input(), out);
        }
        Ok(())
    }

    /// [`WindowOperator::process_ref`] of every record of `batch`, in
    /// order, with the same results. A record that fails goes to
    /// `on_error` with its index (and changes no state); the rest are
    /// processed. For tumbling windows, a run of records in one window
    /// finds the window's state once, not once per record.
    pub fn process_batch(
        &mut self,
        batch: &InputBatch,
        out: &mut Vec<WindowOutput>,
        mut on_error: impl FnMut(usize, Error),
    ) {
        if !matches!(self.spec.assigner, WindowAssigner::Tumbling { .. }) {
            for (i, input) in batch.iter().enumerate() {
                if let Err(e) = self.process_ref(input, out) {
                    on_error(i, e);
                }
            }
            return;
        }
        let (times, n) = (batch.timestamps(), batch.len());
        let mut i = 0;
        while i < n {
            let Some(input) = batch.get(i) else {
                break;
            };
            let w = match self.open_tumble(input.ts) {
                Ok(Some(w)) => w,
                Err(e) => {
                    on_error(i, e);
                    i += 1;
                    continue;
                }
                Ok(None) => {
                    if let Err(e) = self.process_general(input, out) {
                        on_error(i, e);
                    }
                    i += 1;
                    continue;
                }
            };
            // The run of records in `w`.
            let end = i
                + 1
                + times[i + 1..]
                    .iter()
                    .take_while(|&&ts| w.start <= ts && ts < w.end)
                    .count();
            self.add_run(w, batch.range(i, end));
            i = end;
        }
    }

    /// The tumbling window of `ts` when it takes records without firing
    /// (not late, not fired yet); `None` when the record needs the general
    /// path (late, or in a window that fired and fires again).
    fn open_tumble(&mut self, ts: Timestamp) -> Result<Option<Window>> {
        let mut windows = std::mem::take(&mut self.scratch);
        windows.clear();
        let assigned = self.assign(ts, &mut windows);
        let w = windows.first().copied();
        self.scratch = windows;
        assigned?;
        Ok(w.filter(|w| !self.is_late(w) && w.max_timestamp() > self.watermark))
    }

    /// Adds `records`, all in the open window `w`, to its state.
    fn add_run<'a>(&mut self, w: Window, records: impl Iterator<Item = InputRef<'a>>) {
        let keys = table(&mut self.windows, w, self.keys_hint, &mut self.spare);
        let mut n = 0;
        for input in records {
            keys.add(input.key, input.row, &self.spec.aggregates);
            n += 1;
        }
        self.records_in += n;
    }

    /// Adds the record to each of its windows that is not late; returns
    /// whether there was one (else the record is late).
    fn place(&mut self, input: InputRef<'_>, out: &mut Vec<WindowOutput>) -> Result<bool> {
        let mut windows = std::mem::take(&mut self.scratch);
        windows.clear();
        let assigned = self.assign(input.ts, &mut windows);
        if let Err(e) = assigned {
            self.scratch = windows;
            return Err(e);
        }
        self.records_in += 1;
        let accepted = if self.spec.assigner.is_merging() {
            self.add_to_session(windows[0], input, out)
        } else {
            let mut any = false;
            for w in &windows {
                if !self.is_late(w) {
                    self.add_to_window(*w, input, out);
                    any = true;
                }
            }
            any
        };
        self.scratch = windows;
        Ok(accepted)
    }

    /// The windows of `ts`, from the assigner, or for a tumbling window
    /// the last record's when `ts` is in it (the same window, without the
    /// assigner's division).
    fn assign(&mut self, ts: Timestamp, out: &mut Vec<Window>) -> Result<()> {
        if let Some(w) = self.last_tumble {
            if ts != MIN_WATERMARK && w.start <= ts && ts < w.end {
                out.push(w);
                return Ok(());
            }
        }
        self.spec.assigner.assign(ts, out)?;
        if matches!(self.spec.assigner, WindowAssigner::Tumbling { .. }) {
            self.last_tumble = out.first().copied();
        }
        Ok(())
    }

    /// The watermark advanced to `wm`: fires every window with `end - 1 <=
    /// wm` that has not fired, then drops the state of late windows. A
    /// watermark not above the current one changes nothing.
    pub fn on_watermark(&mut self, wm: Timestamp, out: &mut Vec<WindowOutput>) {
        self.on_watermark_in_chunks(wm, out, usize::MAX, &mut |_| {});
    }

    /// [`WindowOperator::on_watermark`], handing the results out as it
    /// goes: after a window has fired, if `out` holds `chunk` results or
    /// more, `take(out)` is called to empty it. The results and their order
    /// are the same; a watermark that fires hundreds of windows of
    /// thousands of keys at once does not hold all their results in memory
    /// (where the first ones would have left the caches before they are
    /// written). A window's results are never split between two calls.
    pub fn on_watermark_in_chunks(
        &mut self,
        wm: Timestamp,
        out: &mut Vec<WindowOutput>,
        chunk: usize,
        take: &mut dyn FnMut(&mut Vec<WindowOutput>),
    ) {
        if wm <= self.watermark {
            return;
        }
        self.watermark = wm;
        self.fire_and_drop(wm, out, chunk, take);
        for (window, keys) in self.windows.iter_mut() {
            if window.max_timestamp() > wm {
                break;
            }
            for s in keys.unfired_sorted() {
                keys.set_fired(s);
                push_fired(
                    &self.spec,
                    keys.key(s).to_vec(),
                    *window,
                    finish(&self.spec, keys.accs(s)),
                    false,
                    out,
                );
            }
            if out.len() >= chunk {
                take(out);
            }
        }
        self.cleanup();
    }

    /// The first part of [`WindowOperator::on_watermark_in_chunks`] for the
    /// windows that are late as soon as they fire (all of them without
    /// allowed lateness), in the same order: each leaves the state and its
    /// keys move into the results instead of being copied. Session windows
    /// are left to the general path (their keys are also in `sessions`).
    fn fire_and_drop(
        &mut self,
        wm: Timestamp,
        out: &mut Vec<WindowOutput>,
        chunk: usize,
        take: &mut dyn FnMut(&mut Vec<WindowOutput>),
    ) {
        if self.spec.assigner.is_merging() {
            return;
        }
        let lateness = self.spec.allowed_lateness;
        while let Some(entry) = self.windows.first_entry() {
            let window = *entry.key();
            if window.max_timestamp() > wm || !late(&window, lateness, wm) {
                return;
            }
            let mut states = entry.remove();
            // The results are computed in slot order, reading the
            // accumulators front to back (a window's state may have left
            // the caches long before it fires), then handed out in key
            // order.
            let mut order = states.unfired();
            let mut values = vec![Vec::new(); order.last().map_or(0, |&s| s + 1)];
            for &s in &order {
                values[s] = finish(&self.spec, states.accs(s));
            }
            states.sort_by_key(&mut order);
            for s in order {
                push_fired(
                    &self.spec,
                    states.take_key(s),
                    window,
                    std::mem::take(&mut values[s]),
                    false,
                    out,
                );
            }
            self.retire(states);
            if out.len() >= chunk {
                take(out);
            }
        }
    }

    fn is_late(&self, w: &Window) -> bool {
        late(w, self.spec.allowed_lateness, self.watermark)
    }

    fn new_state(&self) -> KeyState {
        KeyState {
            accs: self.spec.aggregates.iter().map(AggSpec::create).collect(),
            fired: false,
        }
    }

    fn add_to_window(&mut self, w: Window, input: InputRef<'_>, out: &mut Vec<WindowOutput>) {
        let slicing = self.spec.assigner.slicing();
        let keys = table(&mut self.windows, w, self.keys_hint, &mut self.spare);
        let s = match slicing {
            Some((size, offset, from_last)) => {
                let start = input.ts - (input.ts - offset).rem_euclid(size);
                let slice = start.saturating_add(size);
                keys.add_sliced(
                    input.key,
                    input.row,
                    &self.spec.aggregates,
                    slice,
                    from_last,
                )
            }
            None => keys.add(input.key, input.row, &self.spec.aggregates),
        };
        if w.max_timestamp() <= self.watermark {
            // Late but within allowed lateness: fire again with full contents.
            let refired = keys.set_fired(s);
            push_fired(
                &self.spec,
                input.key.to_vec(),
                w,
                finish(&self.spec, keys.accs(s)),
                refired,
                out,
            );
        }
    }

    fn add_to_session(
        &mut self,
        new: Window,
        input: InputRef<'_>,
        out: &mut Vec<WindowOutput>,
    ) -> bool {
        let open = self
            .sessions
            .get(input.key)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let touching: Vec<Window> = open
            .iter()
            .filter(|w| w.intersects(&new))
            .copied()
            .collect();
        if touching.is_empty() && self.is_late(&new) {
            return false;
        }
        let merged = touching.iter().fold(new, |m, w| m.cover(w));
        let mut state = self.new_state();
        for w in &touching {
            if let Some(old) = self.take_state(w, input.key) {
                state.fired |= old.fired && merged == *w;
                for ((acc, o), spec) in state
                    .accs
                    .iter_mut()
                    .zip(old.accs)
                    .zip(&self.spec.aggregates)
                {
                    spec.merge(acc, o);
                }
            }
        }
        let open = self.sessions.entry_ref(input.key).or_default();
        open.retain(|w| !touching.contains(w));
        open.push(merged);
        self.windows
            .entry(merged)
            .or_default()
            .insert(input.key.to_vec(), state);
        self.add_to_window(merged, input, out);
        true
    }

    fn take_state(&mut self, w: &Window, key: &[Value]) -> Option<KeyState> {
        let keys = self.windows.get_mut(w)?;
        let state = keys.remove(key);
        if keys.is_empty() {
            self.windows.remove(w);
        }
        state
    }

    fn on_late(&mut self, input: WindowInput, out: &mut Vec<WindowOutput>) {
        let counters = if self.spec.late_side_output {
            &mut self.late.routed
        } else {
            &mut self.late.dropped
        };
        *counters.entry(input.split).or_insert(0) += 1;
        if self.spec.late_side_output {
            out.push(WindowOutput::Late(input));
        }
    }

    fn cleanup(&mut self) {
        while let Some((w, _)) = self.windows.first_key_value() {
            if !self.is_late(w) {
                break;
            }
            let w = *w;
            if let Some(keys) = self.windows.remove(&w) {
                if self.spec.assigner.is_merging() {
                    for key in keys.keys() {
                        forget_session(&mut self.sessions, key, &w);
                    }
                }
                self.retire(keys);
            }
        }
    }

    /// A window's table leaves the state: its size is the next window's
    /// hint, and it is kept, emptied, for the next window to open.
    fn retire(&mut self, mut keys: KeyTable) {
        self.keys_hint = keys.len();
        if keys.capacity() <= SPARE_KEYS {
            keys.clear();
            self.spare = Some(keys);
        }
    }
}

/// Window `w`'s states, made when it has none yet: the spare table if
/// there is one, else one with room for `keys_hint` keys (the last
/// window's size, at most 1,024: many windows open at once after a large
/// one would otherwise each take its size).
fn table<'a>(
    windows: &'a mut BTreeMap<Window, KeyTable>,
    w: Window,
    keys_hint: usize,
    spare: &mut Option<KeyTable>,
) -> &'a mut KeyTable {
    windows.entry(w).or_insert_with(|| {
        spare
            .take()
            .unwrap_or_else(|| KeyTable::with_capacity(keys_hint.min(1_024)))
    })
}

/// Takes window `w` off `key`'s open sessions.
fn forget_session(sessions: &mut HashMap<Key, Vec<Window>>, key: &[Value], w: &Window) {
    if let Some(open) = sessions.get_mut(key) {
        open.retain(|o| o != w);
        if open.is_empty() {
            sessions.remove(key);
        }
    }
}

/// Whether window `w` is past its allowed lateness at watermark `wm`: it
/// takes no more records and its state can go.
fn late(w: &Window, lateness: Millis, wm: Timestamp) -> bool {
    w.max_timestamp().saturating_add(lateness) <= wm
}

/// Pushes the results of one (window, key): one, or one per kept row of a
/// Window Top-N (its `values` are each row's values and rank in turn).
fn push_fired(
    spec: &WindowSpec,
    key: Key,
    window: Window,
    values: Vec<Value>,
    refired: bool,
    out: &mut Vec<WindowOutput>,
) {
    if let [AggSpec {
        func: AggFunc::TopRows(top),
        ..
    }] = spec.aggregates.as_slice()
    {
        for row in values.chunks(top.row_width()) {
            out.push(WindowOutput::Fired(WindowResult {
                key: key.clone(),
                window,
                values: row.to_vec(),
                refired,
                early: false,
            }));
        }
        return;
    }
    out.push(WindowOutput::Fired(WindowResult {
        key,
        window,
        values,
        refired,
        early: false,
    }));
}

/// The aggregates' results from a key's accumulators.
fn finish(spec: &WindowSpec, accs: &[Accumulator]) -> Vec<Value> {
    let mut out = Vec::with_capacity(accs.len());
    for (s, a) in spec.aggregates.iter().zip(accs) {
        match (s.func, a) {
            (AggFunc::TopRows(top), Accumulator::Top(kept)) => top.finish(kept, &mut out),
            _ => out.push(s.finish(a)),
        }
    }
    out
}
