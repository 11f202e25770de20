//! Which window subtask a group key goes to: a hash that is the same in
//! every build, on every platform, forever.
//!
//! A key's open windows live in the window subtask its hash picks. After a
//! restore that state is in the subtask the checkpoint says, so the key
//! must hash to the same subtask in the restarted process, which may be a
//! newer lowwater built with newer dependencies. General-purpose hashers
//! (`std`'s, foldhash, ahash) promise no such thing; this one is FNV-1a,
//! fed by `Value`'s `Hash` (our own, written down in `value.rs`), with
//! integers mixed as whole little-endian words and `usize` as 64 bits.

use std::hash::{BuildHasher, Hasher};

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a over bytes, word-at-a-time over integers.
#[derive(Debug, Clone, Copy)]
pub struct StableHasher(u64);

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher(OFFSET)
    }
}

impl Hasher for StableHasher {
    fn finish(&self) -> u64 {
        // A final avalanche so that `% subtasks` uses every bit.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(PRIME);
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0 ^ i).wrapping_mul(PRIME);
    }

    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }

    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

/// Builds [`StableHasher`]s: the key exchange's hasher.
#[derive(Debug, Clone, Copy, Default)]
pub struct StableState;

impl BuildHasher for StableState {
    type Hasher = StableHasher;

    fn build_hasher(&self) -> StableHasher {
        StableHasher::default()
    }
}

/// The window subtask (of `subtasks`) of a group key.
pub fn key_subtask(key: &[crate::Value], subtasks: usize) -> usize {
    (StableState.hash_one(key) % subtasks.max(1) as u64) as usize
}

/// The subtask (of `subtasks`) of a key given as references to its
/// values: the same as [`key_subtask`] of those values (a vector of
/// references hashes as the slice of the values would).
pub fn key_subtask_of_refs(values: &[&crate::Value], subtasks: usize) -> usize {
    (StableState.hash_one(values) % subtasks.max(1) as u64) as usize
}

/// The subtask (of `subtasks`) of a key routed by its values at
/// `positions` only (a versioned view's key within the join key): they
/// hash as a vector of references, which hashes as the slice of those
/// values would.
pub fn positions_subtask(key: &[crate::Value], positions: &[usize], subtasks: usize) -> usize {
    let values: Vec<&crate::Value> = positions.iter().filter_map(|&i| key.get(i)).collect();
    (StableState.hash_one(values) % subtasks.max(1) as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Value;

    #[test]
    fn the_same_key_goes_to_the_same_subtask_in_every_build() {
        // Pinned values: a change here moves every key of every restored
        // job to another subtask, which a checkpoint cannot survive.
        assert_eq!(
            key_subtask(&[Value::str("user-1")], 8),
            key_subtask(&[Value::str("user-1")], 8)
        );
        assert_eq!(
            StableState.hash_one([Value::Int(42)]),
            0xa349_4672_84e3_1f25
        );
        assert_eq!(
            StableState.hash_one([Value::str("u1"), Value::Int(7)]),
            0x4615_f41e_3b64_9511
        );
    }

    #[test]
    fn keys_spread_over_subtasks() {
        let mut counts = [0usize; 4];
        for i in 0..4000 {
            counts[key_subtask(&[Value::str(&format!("user-{i}"))], 4)] += 1;
        }
        assert!(counts.iter().all(|c| (800..1200).contains(c)), "{counts:?}");
    }
}
