//! How an [`IntervalJoin`] is stored in checkpoints and replay snapshots:
//! the layout of the versions before slots, written from the slots without
//! copying them and read back into slots.

use std::collections::BTreeSet;

use hashbrown::HashMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{IntervalJoin, IntervalSpec, KeyState, Slot};
use crate::time::Timestamp;
use crate::value::{Key, Value};

/// An [`IntervalJoin`] as checkpoints and replay snapshots store it (the
/// layout of the versions before slots): its keys as a map of key to
/// state, and its timers as the set of (time, key), of which only those
/// that match a key's cleanup are read back (the others would do nothing).
#[derive(Deserialize)]
struct Stored {
    spec: IntervalSpec,
    watermark: Timestamp,
    keys: HashMap<Key, KeyState>,
    #[allow(dead_code)] // read for the layout; the cleanups say them again
    timers: BTreeSet<(Timestamp, Key)>,
    left_expiration: Timestamp,
    right_expiration: Timestamp,
    cached: u64,
    records_in: u64,
    late: [u64; 2],
    cleared: u64,
}

/// [`Stored`], written from a join without copying it.
#[derive(Serialize)]
struct StoredRef<'a> {
    spec: &'a IntervalSpec,
    watermark: Timestamp,
    keys: Keys<'a>,
    timers: Timers<'a>,
    left_expiration: Timestamp,
    right_expiration: Timestamp,
    cached: u64,
    records_in: u64,
    late: [u64; 2],
    cleared: u64,
}

/// The keys and states of a join's slots, written as a map.
struct Keys<'a>(&'a [Slot]);

impl Serialize for Keys<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // With its length first: postcard writes a map's length ahead.
        use serde::ser::SerializeMap;
        let live = || self.0.iter().filter(|x| x.live);
        let mut map = s.serialize_map(Some(live().count()))?;
        for x in live() {
            map.serialize_entry(&x.key[..], &x.state)?;
        }
        map.end()
    }
}

/// A join's pending cleanups as the set of (time, key) its timers were,
/// in that set's order.
struct Timers<'a>(&'a [Slot]);

impl Serialize for Timers<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut timers: Vec<(Timestamp, &[Value])> = Vec::new();
        for slot in self.0.iter().filter(|s| s.live) {
            let st = &slot.state;
            for t in [st.left_cleanup, st.right_cleanup].into_iter().flatten() {
                timers.push((t, &slot.key[..]));
            }
        }
        timers.sort_unstable();
        timers.dedup();
        s.collect_seq(timers)
    }
}

impl Serialize for IntervalJoin {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        StoredRef {
            spec: &self.spec,
            watermark: self.watermark,
            keys: Keys(&self.slots),
            timers: Timers(&self.slots),
            left_expiration: self.left_expiration,
            right_expiration: self.right_expiration,
            cached: self.cached,
            records_in: self.records_in,
            late: self.late,
            cleared: self.cleared,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for IntervalJoin {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Stored::deserialize(d)?;
        let mut join = IntervalJoin {
            watermark: s.watermark,
            left_expiration: s.left_expiration,
            right_expiration: s.right_expiration,
            cached: s.cached,
            records_in: s.records_in,
            late: s.late,
            cleared: s.cleared,
            ..IntervalJoin::new(s.spec)
        };
        // In key order, so that a restored join numbers its slots alike
        // whatever the map's order was.
        let mut keys: Vec<(Key, KeyState)> = s.keys.into_iter().collect();
        keys.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (key, state) in keys {
            join.put(&key, state);
        }
        Ok(join)
    }
}
