//! Where checkpoints live, and which one a restart restores.
//!
//! A store keeps whole checkpoint files by id; writing one is atomic (it is
//! there complete, or not at all). The decisions are made here, without I/O
//! of their own: [`latest`] restores the newest checkpoint that reads back
//! whole, and says which newer ones it had to skip and why (a file damaged on
//! disk, cut short, or of another layout), so the caller can warn; an upper
//! bound lets a Kafka commit marker name the newest checkpoint whose output
//! was committed. [`retire`] keeps the newest few (Flink's
//! `state.checkpoints.num-retained`). The live runtime stores files in a
//! directory; [`MemoryStore`] is the same contract in memory, for tests.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;

use super::format::decode;
use super::CheckpointId;

/// Checkpoint files by id.
pub trait CheckpointStore {
    /// Ids of the checkpoints stored, in any order.
    fn list(&self) -> Result<Vec<CheckpointId>, String>;
    /// The bytes of checkpoint `id`.
    fn read(&self, id: CheckpointId) -> Result<Vec<u8>, String>;
    /// Stores checkpoint `id` atomically.
    fn write(&mut self, id: CheckpointId, bytes: &[u8]) -> Result<(), String>;
    /// Removes checkpoint `id`.
    fn remove(&mut self, id: CheckpointId) -> Result<(), String>;
}

/// A checkpoint read back for a restore.
#[derive(Debug, Clone, PartialEq)]
pub struct Restored<T> {
    /// Its id.
    pub id: CheckpointId,
    /// Its snapshot.
    pub snapshot: T,
    /// Its size in bytes.
    pub bytes: usize,
    /// Newer checkpoints that could not be used, with the reason.
    pub skipped: Vec<(CheckpointId, String)>,
}

/// The newest checkpoint with an id of at most `upto` (any, when `None`)
/// that reads back whole. `Ok(None)` when there is none.
pub fn latest<T: DeserializeOwned>(
    store: &dyn CheckpointStore,
    upto: Option<CheckpointId>,
) -> Result<Option<Restored<T>>, String> {
    latest_with(store, upto, decode::<T>)
}

/// Decodes a checkpoint file's bytes: its id and snapshot.
pub type Decoder<T> = fn(&[u8]) -> Result<(CheckpointId, T), super::format::CheckpointError>;

/// [`latest`], each file decoded by `decode` (a snapshot type that reads
/// earlier layouts too).
pub fn latest_with<T>(
    store: &dyn CheckpointStore,
    upto: Option<CheckpointId>,
    decode: Decoder<T>,
) -> Result<Option<Restored<T>>, String> {
    let mut ids = store.list()?;
    ids.sort_unstable_by(|a, b| b.cmp(a));
    let mut skipped = Vec::new();
    for id in ids.into_iter().filter(|id| upto.is_none_or(|u| *id <= u)) {
        let bytes = match store.read(id) {
            Ok(b) => b,
            Err(e) => {
                skipped.push((id, e));
                continue;
            }
        };
        match decode(&bytes) {
            Ok((found, snapshot)) if found == id => {
                return Ok(Some(Restored {
                    id,
                    snapshot,
                    bytes: bytes.len(),
                    skipped,
                }))
            }
            Ok((found, _)) => skipped.push((id, format!("the file holds checkpoint {found}"))),
            Err(e) => skipped.push((id, e.to_string())),
        }
    }
    Ok(None)
}

/// Removes all but the newest `keep` checkpoints (at least one is kept);
/// returns the ids removed.
pub fn retire(store: &mut dyn CheckpointStore, keep: usize) -> Result<Vec<CheckpointId>, String> {
    let mut ids = store.list()?;
    ids.sort_unstable_by(|a, b| b.cmp(a));
    let old: Vec<CheckpointId> = ids.into_iter().skip(keep.max(1)).collect();
    for id in &old {
        store.remove(*id)?;
    }
    Ok(old)
}

/// Checkpoints in memory: the store contract for tests.
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    files: BTreeMap<CheckpointId, Vec<u8>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore::default()
    }

    /// The stored bytes of `id`, to damage them in a test.
    pub fn bytes_mut(&mut self, id: CheckpointId) -> Option<&mut Vec<u8>> {
        self.files.get_mut(&id)
    }
}

impl CheckpointStore for MemoryStore {
    fn list(&self) -> Result<Vec<CheckpointId>, String> {
        Ok(self.files.keys().copied().collect())
    }

    fn read(&self, id: CheckpointId) -> Result<Vec<u8>, String> {
        self.files
            .get(&id)
            .cloned()
            .ok_or_else(|| format!("checkpoint {id} is not stored"))
    }

    fn write(&mut self, id: CheckpointId, bytes: &[u8]) -> Result<(), String> {
        self.files.insert(id, bytes.to_vec());
        Ok(())
    }

    fn remove(&mut self, id: CheckpointId) -> Result<(), String> {
        self.files.remove(&id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::encode;

    fn store(ids: &[u64]) -> MemoryStore {
        let mut s = MemoryStore::new();
        for &id in ids {
            s.write(id, &encode(id, &format!("state {id}")).expect("in test"))
                .expect("in test");
        }
        s
    }

    #[test]
    fn the_newest_whole_checkpoint_is_restored_and_damaged_ones_are_named() {
        let mut s = store(&[1, 2, 3]);
        let len = s.bytes_mut(3).expect("in test").len();
        s.bytes_mut(3).expect("in test").truncate(len - 1);
        s.bytes_mut(2).expect("in test")[30] ^= 1;
        let r = latest::<String>(&s, None)
            .expect("in test")
            .expect("in test");
        assert_eq!((r.id, r.snapshot.as_str()), (1, "state 1"));
        assert_eq!(r.skipped.len(), 2);
        assert!(r.skipped[0].1.contains("truncated"), "{:?}", r.skipped);
        assert!(r.skipped[1].1.contains("corrupt"), "{:?}", r.skipped);
    }

    #[test]
    fn an_upper_bound_skips_checkpoints_whose_output_was_not_committed() {
        let s = store(&[4, 5, 6]);
        let r = latest::<String>(&s, Some(5))
            .expect("in test")
            .expect("in test");
        assert_eq!(r.id, 5);
        assert!(r.skipped.is_empty());
        assert!(latest::<String>(&s, Some(3)).expect("in test").is_none());
        assert!(latest::<String>(&MemoryStore::new(), None)
            .expect("in test")
            .is_none());
    }

    #[test]
    fn retire_keeps_the_newest() {
        let mut s = store(&[1, 2, 3, 4]);
        assert_eq!(retire(&mut s, 2).expect("in test"), vec![2, 1]);
        assert_eq!(s.list().expect("in test"), vec![3, 4]);
        assert_eq!(retire(&mut s, 0).expect("in test"), vec![3]);
    }
}
