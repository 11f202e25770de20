//! The (key -> accumulators) states of one window, laid out flat: every
//! key's values end to end in one vector, every accumulator in another
//! (`width` per key), and a hash index of slot numbers over them.
//!
//! A map of `Key -> KeyState` holds two vectors per state (the key and its
//! accumulators): two allocations when a key first comes into a window, two
//! frees when the window fires, and states scattered over the heap that
//! the firing sort and the results then walk. Here a window holds a few
//! vectors whatever its keys, and its index is a table of slot numbers (8
//! bytes a bucket instead of 56).
//!
//! Serialized as the map it replaces (key -> `{accs, fired}`), so
//! checkpoints are unchanged.

use std::fmt;
use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::value::{Key, Value};

use super::aggregate::{Accumulator, AggSpec};

/// One key's state in a window, owned (as checkpoints hold it, and as
/// session windows move it from window to window when they merge).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct KeyState {
    pub accs: Vec<Accumulator>,
    pub fired: bool,
}

/// [`KeyState`] borrowed from a table: serializes as one.
#[derive(Serialize)]
struct KeyStateRef<'a> {
    accs: &'a [Accumulator],
    fired: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Open,
    Fired,
    /// Removed (a session state that moved to the merged window); its key
    /// values are NULL and its accumulators empty until the table goes.
    Gone,
}

/// The states of one window.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyTable {
    index: HashTable<usize>,
    hasher: DefaultHashBuilder,
    /// Per slot: its key's hash, where its key ends in `keys`, and whether
    /// it fired.
    hashes: Vec<u64>,
    ends: Vec<usize>,
    slots: Vec<Slot>,
    keys: Vec<Value>,
    /// The keys' one width while they all have the same (a key found
    /// without reading `ends`).
    uniform: Option<usize>,
    /// Accumulators per slot (set by the first slot).
    width: usize,
    accs: Vec<Accumulator>,
    live: usize,
}

impl KeyTable {
    /// An empty table with room for `keys` keys.
    pub fn with_capacity(keys: usize) -> Self {
        KeyTable {
            index: HashTable::with_capacity(keys),
            ..KeyTable::default()
        }
    }

    /// Keys the table has room for without growing.
    pub fn capacity(&self) -> usize {
        self.index.capacity()
    }

    /// Empties the table, keeping its vectors' room.
    pub fn clear(&mut self) {
        self.index.clear();
        self.hashes.clear();
        self.ends.clear();
        self.slots.clear();
        self.keys.clear();
        self.uniform = None;
        self.width = 0;
        self.accs.clear();
        self.live = 0;
    }

    /// Keys held.
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// A key's hash: a single integer or string key (the usual GROUP BY)
    /// hashed as itself, without the slice's length and the value's tag
    /// (equal keys always take the same branch: an INT equals only an INT).
    #[inline]
    fn hash(&self, key: &[Value]) -> u64 {
        match key {
            [Value::Int(i)] => self.hasher.hash_one(*i),
            [Value::Str(s)] => self.hasher.hash_one(&**s),
            _ => self.hasher.hash_one(key),
        }
    }

    #[inline]
    fn find(&self, hash: u64, key: &[Value]) -> Option<usize> {
        let (ends, keys, uniform) = (&self.ends, &self.keys, self.uniform);
        self.index
            .find(hash, |&s| key_at(ends, keys, uniform, s) == key)
            .copied()
    }

    /// The slot of `key`, made with fresh accumulators of `specs` when the
    /// key is new.
    #[inline]
    pub fn slot(&mut self, key: &[Value], specs: &[AggSpec]) -> usize {
        let hash = self.hash(key);
        if let Some(s) = self.find(hash, key) {
            return s;
        }
        self.keys.extend_from_slice(key);
        self.push(hash, specs.len(), |accs| {
            accs.extend(specs.iter().map(AggSpec::create))
        })
    }

    /// Adds `row` to `key`'s accumulators (made when the key is new);
    /// returns its slot.
    #[inline]
    pub fn add(&mut self, key: &[Value], row: &[Value], specs: &[AggSpec]) -> usize {
        let s = self.slot(key, specs);
        for (spec, acc) in specs.iter().zip(self.accs_mut(s)) {
            spec.add(acc, row);
        }
        s
    }

    /// [`KeyTable::add`] in a HOP (`from_last`) or CUMULATE window: `row`
    /// goes into the slice ending at `slice` of the aggregates whose result
    /// depends on how the slices merge ([`AggSpec::add_sliced`]).
    #[inline]
    pub fn add_sliced(
        &mut self,
        key: &[Value],
        row: &[Value],
        specs: &[AggSpec],
        slice: crate::time::Timestamp,
        from_last: bool,
    ) -> usize {
        let s = self.slot(key, specs);
        for (spec, acc) in specs.iter().zip(self.accs_mut(s)) {
            spec.add_sliced(acc, row, slice, from_last);
        }
        s
    }

    /// Puts `state` in under `key`, replacing the key's state if it has one.
    pub fn insert(&mut self, key: Key, state: KeyState) {
        let hash = self.hash(&key);
        if let Some(s) = self.find(hash, &key) {
            let w = self.width;
            for (to, from) in self.accs[s * w..(s + 1) * w].iter_mut().zip(state.accs) {
                *to = from;
            }
            self.slots[s] = if state.fired { Slot::Fired } else { Slot::Open };
            return;
        }
        self.keys.extend(key);
        let s = self.push(hash, state.accs.len(), |accs| accs.extend(state.accs));
        if state.fired {
            self.slots[s] = Slot::Fired;
        }
    }

    /// A new open slot for the key just appended to `keys`, with the
    /// `width` accumulators `fill` appends.
    fn push(&mut self, hash: u64, width: usize, fill: impl FnOnce(&mut Vec<Accumulator>)) -> usize {
        let s = self.slots.len();
        let key_len = self.keys.len() - self.ends.last().copied().unwrap_or(0);
        if s == 0 {
            self.width = width;
            self.uniform = Some(key_len);
        } else if self.uniform != Some(key_len) {
            self.uniform = None;
        }
        let before = self.accs.len();
        fill(&mut self.accs);
        // Every slot holds `width` accumulators (a state of another width
        // cannot come from one operator; cut or pad rather than misalign).
        self.accs
            .resize_with(before + self.width, || Accumulator::Count(0));
        self.hashes.push(hash);
        self.ends.push(self.keys.len());
        self.slots.push(Slot::Open);
        self.live += 1;
        let hashes = &self.hashes;
        self.index.insert_unique(hash, s, |&t| hashes[t]);
        s
    }

    /// Takes `key`'s state out.
    pub fn remove(&mut self, key: &[Value]) -> Option<KeyState> {
        let hash = self.hash(key);
        let (ends, keys, uniform) = (&self.ends, &self.keys, self.uniform);
        let entry = self
            .index
            .find_entry(hash, |&s| key_at(ends, keys, uniform, s) == key)
            .ok()?;
        let (s, _) = entry.remove();
        let fired = self.slots[s] == Slot::Fired;
        self.slots[s] = Slot::Gone;
        self.live -= 1;
        for v in &mut self.keys[span(&self.ends, self.uniform, s)] {
            *v = Value::Null;
        }
        let w = self.width;
        let accs = self.accs[s * w..(s + 1) * w]
            .iter_mut()
            .map(|a| std::mem::replace(a, Accumulator::Count(0)))
            .collect();
        // A session state that goes out and comes back into the same
        // window (every record of a session that does not grow it) leaves
        // a removed slot each time: rebuilt once they are the majority.
        let gone = self.slots.len() - self.live;
        if gone > 8 && gone > self.live {
            self.compact();
        }
        Some(KeyState { accs, fired })
    }

    /// The same table without its removed slots (slot numbers change).
    fn compact(&mut self) {
        let old = std::mem::replace(self, KeyTable::with_capacity(self.live));
        let (w, mut keys, mut accs) = (old.width, old.keys.into_iter(), old.accs.into_iter());
        let mut start = 0;
        for (s, slot) in old.slots.iter().enumerate() {
            let end = old.ends[s];
            let key: Vec<Value> = keys.by_ref().take(end - start).collect();
            let state: Vec<Accumulator> = accs.by_ref().take(w).collect();
            start = end;
            if *slot == Slot::Gone {
                continue;
            }
            self.keys.extend(key);
            let s = self.push(old.hashes[s], w, |a| a.extend(state));
            self.slots[s] = *slot;
        }
        self.hasher = old.hasher;
    }

    /// Every key's state, moved out, in slot order (removed slots left
    /// out): the table taken apart to regroup its keys elsewhere.
    pub fn into_states(self) -> Vec<(Key, KeyState)> {
        let (w, mut keys, mut accs) = (self.width, self.keys.into_iter(), self.accs.into_iter());
        let mut out = Vec::with_capacity(self.live);
        let mut start = 0;
        for (s, slot) in self.slots.iter().enumerate() {
            let end = self.ends[s];
            let key: Key = keys.by_ref().take(end - start).collect();
            let state: Vec<Accumulator> = accs.by_ref().take(w).collect();
            start = end;
            if *slot != Slot::Gone {
                let fired = *slot == Slot::Fired;
                out.push((key, KeyState { accs: state, fired }));
            }
        }
        out
    }

    /// Slot `s`'s key.
    pub fn key(&self, s: usize) -> &[Value] {
        key_at(&self.ends, &self.keys, self.uniform, s)
    }

    /// Slot `s`'s key, moved out (the table is on its way out).
    pub fn take_key(&mut self, s: usize) -> Key {
        self.keys[span(&self.ends, self.uniform, s)]
            .iter_mut()
            .map(|v| std::mem::replace(v, Value::Null))
            .collect()
    }

    /// Slot `s`'s accumulators.
    #[inline]
    pub fn accs(&self, s: usize) -> &[Accumulator] {
        &self.accs[s * self.width..(s + 1) * self.width]
    }

    /// Slot `s`'s accumulators, to update.
    #[inline]
    pub fn accs_mut(&mut self, s: usize) -> &mut [Accumulator] {
        &mut self.accs[s * self.width..(s + 1) * self.width]
    }

    /// Marks slot `s` fired; returns whether it had fired before.
    pub fn set_fired(&mut self, s: usize) -> bool {
        std::mem::replace(&mut self.slots[s], Slot::Fired) == Slot::Fired
    }

    /// The slots that have not fired, in slot order.
    pub fn unfired(&self) -> Vec<usize> {
        (0..self.slots.len())
            .filter(|&s| self.slots[s] == Slot::Open)
            .collect()
    }

    /// Puts `slots` in the order of their keys.
    pub fn sort_by_key(&self, slots: &mut [usize]) {
        // Keys are unique: an unstable sort gives the one order.
        if slots.len() < 2 || !self.sort_by_prefix(slots) {
            slots.sort_unstable_by(|&a, &b| self.key(a).cmp(self.key(b)));
        }
    }

    /// [`KeyTable::sort_by_key`] when every key is one integer or every
    /// key one string (the usual GROUP BY): sorted on a number per key that
    /// orders as the keys do (an integer's bits with the sign flipped; a
    /// string's first eight bytes, big-endian), the keys themselves
    /// compared only where two numbers tie. Each key is read once, not at
    /// every comparison. `false`: other keys, left as they were.
    fn sort_by_prefix(&self, slots: &mut [usize]) -> bool {
        if self.uniform != Some(1) {
            return false;
        }
        let prefix = |s: usize| match &self.keys[s] {
            Value::Int(i) => Some((*i as u64) ^ (1 << 63)),
            Value::Str(text) => {
                let mut b = [0u8; 8];
                let n = text.len().min(8);
                b[..n].copy_from_slice(&text.as_bytes()[..n]);
                Some(u64::from_be_bytes(b))
            }
            _ => None,
        };
        let first = std::mem::discriminant(&self.keys[slots[0]]);
        let mut keyed = Vec::with_capacity(slots.len());
        for &s in slots.iter() {
            if std::mem::discriminant(&self.keys[s]) != first {
                return false;
            }
            match prefix(s) {
                Some(p) => keyed.push((p, s)),
                None => return false,
            }
        }
        keyed.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| self.keys[a.1].cmp(&self.keys[b.1]))
        });
        for (to, (_, s)) in slots.iter_mut().zip(keyed) {
            *to = s;
        }
        true
    }

    /// The slots that have not fired, in key order.
    pub fn unfired_sorted(&self) -> Vec<usize> {
        let mut fire = self.unfired();
        self.sort_by_key(&mut fire);
        fire
    }

    /// The keys held.
    pub fn keys(&self) -> impl Iterator<Item = &[Value]> + '_ {
        self.live_slots().map(|s| self.key(s))
    }

    fn live_slots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.slots.len()).filter(|&s| self.slots[s] != Slot::Gone)
    }

    /// An estimate of the bytes the table takes: its vectors at their
    /// capacity, plus the keys' and accumulators' own heap averaged over
    /// up to 8 keys and scaled to all of them.
    pub fn bytes(&self) -> usize {
        const SAMPLE: usize = 8;
        let (n, heap) = self.live_slots().take(SAMPLE).fold((0, 0), |(n, heap), s| {
            let key = self.key(s).iter().map(Value::heap_bytes).sum::<usize>();
            let accs = self
                .accs(s)
                .iter()
                .map(Accumulator::heap_bytes)
                .sum::<usize>();
            (n + 1, heap + key + accs)
        });
        let heap = (heap * self.live).checked_div(n).unwrap_or(0);
        use std::mem::size_of;
        self.index.capacity() * (size_of::<usize>() + 1)
            + self.hashes.capacity() * size_of::<u64>()
            + self.ends.capacity() * size_of::<usize>()
            + self.slots.capacity() * size_of::<Slot>()
            + self.keys.capacity() * size_of::<Value>()
            + self.accs.capacity() * size_of::<Accumulator>()
            + heap
    }
}

/// Slot `s`'s key in `keys`.
#[inline]
fn key_at<'a>(ends: &[usize], keys: &'a [Value], uniform: Option<usize>, s: usize) -> &'a [Value] {
    &keys[span(ends, uniform, s)]
}

/// Where slot `s`'s key lies in `keys`.
#[inline]
fn span(ends: &[usize], uniform: Option<usize>, s: usize) -> std::ops::Range<usize> {
    match uniform {
        Some(w) => s * w..(s + 1) * w,
        None => s.checked_sub(1).map_or(0, |p| ends[p])..ends[s],
    }
}

impl Serialize for KeyTable {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.live))?;
        for s in self.live_slots() {
            map.serialize_entry(
                self.key(s),
                &KeyStateRef {
                    accs: self.accs(s),
                    fired: self.slots[s] == Slot::Fired,
                },
            )?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for KeyTable {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Tables;
        impl<'de> Visitor<'de> for Tables {
            type Value = KeyTable;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of keys to window states")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyTable, A::Error> {
                let mut table = KeyTable::with_capacity(map.size_hint().unwrap_or(0).min(4_096));
                while let Some((key, state)) = map.next_entry::<Key, KeyState>()? {
                    table.insert(key, state);
                }
                Ok(table)
            }
        }
        deserializer.deserialize_map(Tables)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::aggregate::AggFunc;
    use hashbrown::HashMap;

    fn specs() -> Vec<AggSpec> {
        vec![AggSpec::count_star(), AggSpec::on(AggFunc::Sum, 0)]
    }

    fn add(t: &mut KeyTable, key: &[Value], v: i64) -> usize {
        t.add(key, &[Value::Int(v)], &specs())
    }

    fn state(t: &KeyTable, key: &[Value]) -> Option<Vec<Value>> {
        let hash = t.hash(key);
        let s = t.find(hash, key)?;
        Some(
            specs()
                .iter()
                .zip(t.accs(s))
                .map(|(p, a)| p.finish(a))
                .collect(),
        )
    }

    #[test]
    fn a_cleared_table_keeps_its_room_and_holds_nothing_of_before() {
        let mut t = KeyTable::default();
        for i in 0..300 {
            add(&mut t, &[Value::Int(i)], i);
        }
        let room = t.capacity();
        t.clear();
        assert_eq!((t.len(), t.capacity()), (0, room));
        assert_eq!(state(&t, &[Value::Int(7)]), None);
        assert_eq!(t.keys().count(), 0);
        // Keys of another width than before, as a new table takes them.
        add(&mut t, &[Value::str("a"), Value::Int(1)], 5);
        add(&mut t, &[Value::str("a"), Value::Int(1)], 6);
        add(&mut t, &[Value::Int(7)], 1);
        assert_eq!(t.len(), 2);
        assert_eq!(
            state(&t, &[Value::str("a"), Value::Int(1)]),
            Some(vec![Value::Int(2), Value::Int(11)])
        );
        assert_eq!(
            state(&t, &[Value::Int(7)]),
            Some(vec![Value::Int(1), Value::Int(1)])
        );
        assert_eq!(t.keys().count(), 2);
    }

    #[test]
    fn keys_of_any_width_find_their_own_state() {
        let mut t = KeyTable::with_capacity(1);
        let keys: Vec<Key> = (0..200)
            .map(|i| match i % 3 {
                0 => vec![Value::Int(i)],
                1 => vec![Value::str(&format!("k{i}")), Value::Null],
                _ => vec![],
            })
            .collect();
        for (i, k) in keys.iter().enumerate() {
            add(&mut t, k, i as i64);
            add(&mut t, k, 1);
        }
        // The empty key (every third) is one key.
        assert_eq!(t.len(), 67 + 67 + 1);
        assert_eq!(
            state(&t, &keys[0]),
            Some(vec![Value::Int(2), Value::Int(1)])
        );
        assert_eq!(
            state(&t, &keys[100]),
            Some(vec![Value::Int(2), Value::Int(101)])
        );
        assert_eq!(state(&t, &[Value::Int(1)]), None);
        let sorted: Vec<&[Value]> = t.unfired_sorted().into_iter().map(|s| t.key(s)).collect();
        assert!(sorted.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(sorted.len(), t.len());
    }

    mod sorted {
        use super::*;
        use proptest::prelude::*;

        fn key() -> impl Strategy<Value = Value> {
            prop_oneof![
                any::<i64>().prop_map(Value::Int),
                prop_oneof![-3i64..3, Just(i64::MIN), Just(i64::MAX)].prop_map(Value::Int),
                "[ab\\x00é]{0,10}".prop_map(|s| Value::str(&s)),
                Just(Value::Null),
            ]
        }

        proptest! {
            /// Sorting on prefixes gives the order of the keys, whatever
            /// they are: strings sharing eight bytes or ending in NUL,
            /// integers at either end, one or two kinds, NULL.
            #[test]
            fn sorts_as_the_keys_compare(
                keys in prop::collection::vec(key(), 0..40),
                pairs in any::<bool>(),
            ) {
                let mut t = KeyTable::default();
                for (i, k) in keys.iter().enumerate() {
                    let key = if pairs { vec![k.clone(), Value::Int(0)] } else { vec![k.clone()] };
                    add(&mut t, &key, i as i64);
                }
                let sorted: Vec<Vec<Value>> =
                    t.unfired_sorted().into_iter().map(|s| t.key(s).to_vec()).collect();
                let mut want: Vec<Vec<Value>> = t.keys().map(<[Value]>::to_vec).collect();
                want.sort();
                prop_assert_eq!(sorted, want);
            }
        }
    }

    #[test]
    fn a_removed_state_leaves_and_comes_back_with_its_accumulators() {
        let mut t = KeyTable::default();
        let (a, b) = (vec![Value::str("a")], vec![Value::str("b")]);
        add(&mut t, &a, 5);
        let sb = add(&mut t, &b, 7);
        assert!(!t.set_fired(sb));
        assert!(t.set_fired(sb));
        let taken = t.remove(&b).expect("b is there");
        assert!(taken.fired);
        assert_eq!(t.len(), 1);
        assert!(t.remove(&b).is_none());
        assert_eq!(t.keys().collect::<Vec<_>>(), vec![&a[..]]);
        assert_eq!(t.unfired_sorted().len(), 1);
        t.insert(b.clone(), taken);
        assert_eq!(state(&t, &b), Some(vec![Value::Int(1), Value::Int(7)]));
        // Inserting over a key replaces its state.
        t.insert(
            a.clone(),
            KeyState {
                accs: vec![Accumulator::Count(9), Accumulator::Sum(Value::Int(3))],
                fired: false,
            },
        );
        assert_eq!(state(&t, &a), Some(vec![Value::Int(9), Value::Int(3)]));
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn a_state_taken_out_and_put_back_over_and_over_does_not_grow_the_table() {
        let mut t = KeyTable::default();
        let others: Vec<Key> = (0..5).map(|i| vec![Value::Int(i)]).collect();
        for k in &others {
            add(&mut t, k, 1);
        }
        let k = vec![Value::str("session")];
        add(&mut t, &k, 0);
        for i in 1..1_000 {
            let mut st = t.remove(&k).expect("held");
            let specs = specs();
            for (spec, acc) in specs.iter().zip(st.accs.iter_mut()) {
                spec.add(acc, &[Value::Int(i)]);
            }
            t.insert(k.clone(), st);
        }
        assert!(t.slots.len() <= 2 * t.len() + 9, "{} slots", t.slots.len());
        assert_eq!(t.len(), 6);
        assert_eq!(
            state(&t, &k),
            Some(vec![Value::Int(1_000), Value::Int(499_500)])
        );
        for o in &others {
            assert_eq!(state(&t, o), Some(vec![Value::Int(1), Value::Int(1)]));
        }
    }

    #[test]
    fn it_serializes_as_the_map_it_replaces() {
        let mut t = KeyTable::default();
        let mut map: HashMap<Key, KeyState> = HashMap::new();
        for i in 0..50i64 {
            let key = vec![Value::Int(i % 10), Value::str(&format!("s{}", i % 3))];
            add(&mut t, &key, i);
        }
        t.remove(&[Value::Int(0), Value::str("s0")]);
        for k in t.keys() {
            let s = t.find(t.hash(k), k).expect("held");
            map.insert(
                k.to_vec(),
                KeyState {
                    accs: t.accs(s).to_vec(),
                    fired: false,
                },
            );
        }
        // The map's bytes read as a table with the same states, and the
        // table's as the map.
        let from_map: KeyTable =
            postcard::from_bytes(&postcard::to_allocvec(&map).expect("encode")).expect("decode");
        let from_table: HashMap<Key, KeyState> =
            postcard::from_bytes(&postcard::to_allocvec(&t).expect("encode")).expect("decode");
        assert_eq!(from_table, map);
        assert_eq!(from_map.len(), t.len());
        for k in t.keys() {
            assert_eq!(state(&from_map, k), state(&t, k));
        }
    }
}
