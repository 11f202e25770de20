//! Bytes eight at a time (SWAR): a word's bytes that are zero or control
//! characters, found without a branch per byte. The JSON scanner and the
//! payload reader both look for a string's stops this way.

pub(crate) const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
const LOW: u64 = u64::from_ne_bytes([0x7f; 8]);
const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);

/// Per byte of the word `v`, its high bit set where the byte is zero,
/// exactly: a byte's low seven bits plus 0x7f carry into its own high
/// bit, never into the next byte.
#[inline(always)]
pub(crate) fn zero_bytes(v: u64) -> u64 {
    !(((v & LOW) + LOW) | v | LOW)
}

/// Per byte of the word `v`, its high bit set where the byte is a control
/// character (below 0x20), exactly.
#[inline(always)]
pub(crate) fn control(v: u64) -> u64 {
    !(((v & LOW) + ONES * (0x80 - 0x20)) | v) & HIGH
}
