//! The bytes of a checkpoint: a fixed header, then the snapshot encoded with
//! `postcard` (compact, schema-less binary serde).
//!
//! ```text
//! "LWCK" | format version u32 | checkpoint id u64 | payload length u64 | CRC-32 u32 | payload
//! ```
//! (integers little-endian; the CRC-32 covers the id, the length and the
//! payload). Decoding checks every part before it
//! deserializes anything, so a file cut short by a crash, or damaged on disk,
//! is reported as such and an older checkpoint can be used instead.

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::CheckpointId;

const MAGIC: &[u8; 4] = b"LWCK";
/// The version of the checkpoint layout this build writes.
///
/// 2 added the chained window aggregations of an INSERT (cascading
/// windows) to each window subtask's part; 3 the join subtasks' parts;
/// 4 the offsets from which a source's open windows can be rebuilt. A
/// snapshot type that also reads files of older versions does so with
/// [`open`] and its own older types (the live runtime restores them);
/// [`decode`] reads this version only.
pub const FORMAT_VERSION: u32 = 4;

/// The oldest layout whose files still pass [`verify`].
pub const OLDEST_READABLE: u32 = 1;
const HEADER: usize = 4 + 4 + 8 + 8 + 4;

/// Why checkpoint bytes could not be written or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    /// The bytes are not a lowwater checkpoint at all.
    #[error("not a lowwater checkpoint (the file does not start with LWCK)")]
    NotACheckpoint,
    /// Written by a lowwater with another layout.
    #[error("checkpoint format {found} is not a format this lowwater reads (it writes {FORMAT_VERSION})")]
    Version {
        /// The version in the file.
        found: u32,
    },
    /// Shorter than its header says: a write that did not finish.
    #[error("truncated: {have} bytes of the {want} the header announces")]
    Truncated {
        /// Bytes present.
        have: usize,
        /// Bytes announced.
        want: usize,
    },
    /// The id, length or payload does not match the checksum.
    #[error("corrupt: checksum {found:08x} where the header says {want:08x}")]
    Checksum {
        /// CRC-32 of the payload as read.
        found: u32,
        /// CRC-32 in the header.
        want: u32,
    },
    /// The payload passed its checksum but does not decode (a bug, or a
    /// snapshot of another shape).
    #[error("the snapshot does not decode: {0}")]
    Decode(String),
    /// The snapshot could not be encoded (a bug).
    #[error("the snapshot does not encode: {0}")]
    Encode(String),
}

/// Encodes `snapshot` as checkpoint `id`.
pub fn encode<T: Serialize>(id: CheckpointId, snapshot: &T) -> Result<Vec<u8>, CheckpointError> {
    let payload =
        postcard::to_allocvec(snapshot).map_err(|e| CheckpointError::Encode(e.to_string()))?;
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    let crc = checksum(&out[8..24], &payload);
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// The checkpoint id in `bytes`, after checking the header and checksum
/// (without decoding the snapshot).
pub fn verify(bytes: &[u8]) -> Result<CheckpointId, CheckpointError> {
    if bytes.len() < 4 || &bytes[..4] != MAGIC {
        return Err(CheckpointError::NotACheckpoint);
    }
    if bytes.len() < HEADER {
        return Err(CheckpointError::Truncated {
            have: bytes.len(),
            want: HEADER,
        });
    }
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let long = |at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(b)
    };
    let version = word(4);
    if !(OLDEST_READABLE..=FORMAT_VERSION).contains(&version) {
        return Err(CheckpointError::Version { found: version });
    }
    let id = long(8);
    let len = usize::try_from(long(16)).unwrap_or(usize::MAX);
    let want = HEADER.saturating_add(len);
    if bytes.len() != want {
        return Err(CheckpointError::Truncated {
            have: bytes.len(),
            want,
        });
    }
    let crc = word(24);
    let found = checksum(&bytes[8..24], &bytes[HEADER..]);
    if found != crc {
        return Err(CheckpointError::Checksum { found, want: crc });
    }
    Ok(id)
}

/// The CRC-32 in the header of checkpoint bytes (checked by [`verify`]),
/// which names this very file: a commit marker stores it.
pub fn file_crc(bytes: &[u8]) -> Option<u32> {
    let b = bytes.get(24..28)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn checksum(id_and_len: &[u8], payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(id_and_len);
    h.update(payload);
    h.finalize()
}

/// Checks checkpoint bytes (see [`verify`]): the id, the layout version
/// and the payload, for a caller that decodes each version its own way.
pub fn open(bytes: &[u8]) -> Result<(CheckpointId, u32, &[u8]), CheckpointError> {
    let id = verify(bytes)?;
    let version = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    Ok((id, version, &bytes[HEADER..]))
}

/// Decodes a payload from [`open`].
pub fn decode_payload<T: DeserializeOwned>(payload: &[u8]) -> Result<T, CheckpointError> {
    postcard::from_bytes(payload).map_err(|e| CheckpointError::Decode(e.to_string()))
}

/// Decodes checkpoint bytes of this build's layout: the id and the snapshot.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<(CheckpointId, T), CheckpointError> {
    let (id, version, payload) = open(bytes)?;
    if version != FORMAT_VERSION {
        return Err(CheckpointError::Version { found: version });
    }
    Ok((id, decode_payload(payload)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_id_and_snapshot() {
        let bytes = encode(7, &(vec![1i64, -2, 3], "x".to_string())).expect("in test");
        let (id, back): (u64, (Vec<i64>, String)) = decode(&bytes).expect("in test");
        assert_eq!(id, 7);
        assert_eq!(back, (vec![1, -2, 3], "x".to_string()));
    }

    #[test]
    fn every_truncation_and_every_flipped_byte_is_detected() {
        let bytes = encode(3, &vec![42u64; 50]).expect("in test");
        for cut in 0..bytes.len() {
            assert!(verify(&bytes[..cut]).is_err(), "cut at {cut} passed");
        }
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x10;
            assert!(verify(&bad).is_err(), "flipped byte {i} passed");
        }
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert_eq!(verify(b"PK\x03\x04"), Err(CheckpointError::NotACheckpoint));
        let mut bytes = encode(1, &1u8).expect("in test");
        bytes[4] = 9;
        assert_eq!(verify(&bytes), Err(CheckpointError::Version { found: 9 }));
        // The previous layout passes the checks; decoding it is the
        // snapshot type's business.
        let mut old = encode(1, &1u8).expect("in test");
        old[4] = 1;
        assert_eq!(open(&old).map(|(id, v, _)| (id, v)), Ok((1, 1)));
        assert_eq!(
            decode::<u8>(&old),
            Err(CheckpointError::Version { found: 1 })
        );
    }
}
