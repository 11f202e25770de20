//! Which source subtask reads which Kafka partition.
//!
//! Bit-compatible with Flink's `KafkaSourceEnumerator.getSplitOwner`:
//! `start = ((topic.hashCode() * 31) & 0x7FFFFFFF) % parallelism`,
//! `owner = (start + partition) % parallelism`, with Java's `String.hashCode`
//! over UTF-16 code units and 32-bit wrapping arithmetic. Matching it matters:
//! which partitions share a subtask decides which watermarks are combined
//! first, and a user comparing lowwater with Flink must see the same subtask
//! named as holding the watermark.

use crate::error::{Error, Result};

/// Java's `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16
/// code units, wrapping in 32 bits.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// The source subtask that owns `partition` of `topic` at `parallelism`.
pub fn split_owner(topic: &str, partition: i32, parallelism: usize) -> Result<usize> {
    if parallelism == 0 || parallelism > i32::MAX as usize {
        return Err(Error::InvalidIndex(format!(
            "parallelism must be between 1 and {}, got {parallelism}",
            i32::MAX
        )));
    }
    if partition < 0 {
        return Err(Error::InvalidIndex(format!(
            "Kafka partition numbers start at 0, got {partition} for topic '{topic}'"
        )));
    }
    let p = parallelism as i64;
    let start = i64::from(java_string_hash(topic).wrapping_mul(31) & 0x7FFF_FFFF) % p;
    Ok(((start + i64::from(partition)) % p) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_matches_known_values() {
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("hello"), 99_162_322);
        // Overflowing and non-ASCII (UTF-16 code units, a surrogate pair for the emoji).
        assert_eq!(java_string_hash("clickstream"), -2_036_150_520);
        assert_eq!(java_string_hash("é"), 233);
        assert_eq!(java_string_hash("😀"), 1_772_899);
    }

    #[test]
    fn bad_parallelism_or_partition_is_an_error() {
        assert!(split_owner("t", 0, 0).is_err());
        assert!(split_owner("t", -1, 2).is_err());
    }
}
