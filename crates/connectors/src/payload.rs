//! A record's value as its source holds it: bytes, or the text of a JSON
//! string kept as it is written in a dump line.
//!
//! A dump line holds its payload as a JSON string, so a JSON payload's
//! quotes are written `\"`. Unescaping it means a copy with a branch at
//! every quote, which was the largest single cost of a replay after the
//! line's header. When the line escapes nothing in the payload but its
//! quotes (a JSON payload with no whitespace but spaces, whose own strings
//! hold no escape), the reader keeps it as written, quoted text
//! ([`Payload::quoted`]): the JSON decoder reads that text as it stands
//! (`json::flat::scan_quoted`), and whatever needs the bytes (the decoder's
//! general path, the raw, csv and Avro formats, a record held back by
//! watermark alignment) unescapes it then ([`PayloadRef::bytes`]).

use std::borrow::Cow;

use crate::word::{control, zero_bytes, ONES};

/// A record's value, owned (a dump record read ahead of the engine): its
/// bytes, or quoted text, the text of a JSON string (between its quotes)
/// in which each `\` is followed by `"`, each `"` follows a `\`, and no
/// byte is a control character, whose value is the text with each `\"`
/// read as `"`. Quoted text is made only by [`Payload::quoted`], which
/// checks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload(Owned);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Owned {
    Bytes(Vec<u8>),
    Quoted(String),
}

/// A record's value, borrowed: what the decoders read (bytes, or quoted
/// text as [`Payload`] holds it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PayloadRef<'a>(Borrowed<'a>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Borrowed<'a> {
    Bytes(&'a [u8]),
    Quoted(&'a str),
}

impl From<Vec<u8>> for Payload {
    fn from(bytes: Vec<u8>) -> Self {
        Payload(Owned::Bytes(bytes))
    }
}

impl<'a> From<&'a [u8]> for PayloadRef<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        PayloadRef(Borrowed::Bytes(bytes))
    }
}

impl Payload {
    /// The text of a JSON string (between its quotes) kept as it is
    /// written, if it is quoted text; `None` if it is not.
    pub fn quoted(text: &str) -> Option<Payload> {
        is_quoted(text.as_bytes()).then(|| Payload(Owned::Quoted(text.to_string())))
    }

    /// The value borrowed.
    pub fn view(&self) -> PayloadRef<'_> {
        PayloadRef(match &self.0 {
            Owned::Bytes(b) => Borrowed::Bytes(b),
            Owned::Quoted(q) => Borrowed::Quoted(q),
        })
    }

    /// The value's bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        match self.0 {
            Owned::Bytes(b) => b,
            Owned::Quoted(q) => match unquote(&q) {
                Cow::Borrowed(_) => q.into_bytes(),
                Cow::Owned(s) => s.into_bytes(),
            },
        }
    }

    /// What it holds, as written: its bytes, or its quoted text's bytes
    /// (and `true`).
    pub(crate) fn as_written(&self) -> (&[u8], bool) {
        match &self.0 {
            Owned::Bytes(b) => (b, false),
            Owned::Quoted(q) => (q.as_bytes(), true),
        }
    }

    /// The memory it holds.
    pub(crate) fn capacity(&self) -> usize {
        match &self.0 {
            Owned::Bytes(b) => b.capacity(),
            Owned::Quoted(q) => q.capacity(),
        }
    }
}

impl<'a> PayloadRef<'a> {
    /// Quoted text (see [`Payload`]) as it is written; `None` if `text` is
    /// not quoted text.
    pub fn quoted(text: &'a str) -> Option<Self> {
        is_quoted(text.as_bytes()).then_some(PayloadRef(Borrowed::Quoted(text)))
    }

    /// The value's bytes (quoted text is unescaped: a copy if it holds a
    /// `\"`).
    pub fn bytes(self) -> Cow<'a, [u8]> {
        match self.0 {
            Borrowed::Bytes(b) => Cow::Borrowed(b),
            Borrowed::Quoted(q) => match unquote(q) {
                Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
                Cow::Owned(s) => Cow::Owned(s.into_bytes()),
            },
        }
    }

    /// What it holds, for the decoders.
    pub(crate) fn form(self) -> Borrowed<'a> {
        self.0
    }
}

/// `text` with each `\"` read as `"` (every other byte as it is).
pub(crate) fn unquote(text: &str) -> Cow<'_, str> {
    match text.contains('\\') {
        true => Cow::Owned(text.replace("\\\"", "\"")),
        false => Cow::Borrowed(text),
    }
}

/// Whether `b` is quoted text (see [`Payload`]). Eight bytes at a
/// time and without a branch on the bytes: per word, the backslashes moved
/// one byte on (the last one into the next word) must be exactly the
/// quotes, and no byte a control character.
pub(crate) fn is_quoted(b: &[u8]) -> bool {
    #[inline(always)]
    fn word(v: u64, bad: u64, carry: u64) -> (u64, u64) {
        let slash = zero_bytes(v ^ (ONES * u64::from(b'\\')));
        let quote = zero_bytes(v ^ (ONES * u64::from(b'"')));
        (
            bad | control(v) | (quote ^ ((slash << 8) | carry)),
            slash >> 56,
        )
    }
    let (mut bad, mut carry) = (0, 0);
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let mut v = [0; 8];
        v.copy_from_slice(w);
        (bad, carry) = word(u64::from_le_bytes(v), bad, carry);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        // Padded with a byte that is neither.
        let mut v = [b'a'; 8];
        v[..rest.len()].copy_from_slice(rest);
        (bad, carry) = word(u64::from_le_bytes(v), bad, carry);
    }
    bad == 0 && carry == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Quoted text, byte by byte.
    fn quoted_by_bytes(b: &[u8]) -> bool {
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'\\' if b.get(i + 1) == Some(&b'"') => i += 2,
                b'\\' | b'"' => return false,
                c if c < 0x20 => return false,
                _ => i += 1,
            }
        }
        true
    }

    #[test]
    fn quoted_text_and_what_is_not() {
        for yes in [
            "",
            "a",
            r#"\""#,
            r#"{\"a\":\"b\"}"#,
            "é\\\"ü",
            r#"1234567\"8"#,
        ] {
            assert!(is_quoted(yes.as_bytes()), "{yes}");
        }
        for no in [
            "\\",
            r#"\\"#,
            r#"\\""#,
            r#"a"b"#,
            r#"\n"#,
            "a\tb",
            r#"\u0041"#,
            r#"1234567\"#,
            r#"12345678\"#,
            r#"\"\"\\"#,
            "\u{1f}",
        ] {
            assert!(!is_quoted(no.as_bytes()), "{no}");
        }
        assert_eq!(unquote(r#"{\"a\":1}"#), r#"{"a":1}"#);
        assert!(matches!(unquote("plain"), Cow::Borrowed(_)));
    }

    proptest! {
        /// The word-at-a-time check is the byte-by-byte one, at every
        /// length and alignment.
        #[test]
        fn is_quoted_reads_as_a_byte_scan(
            pieces in prop::collection::vec(prop_oneof![
                6 => "[a-zé ]{1,9}",
                4 => Just(r#"\""#.to_string()),
                1 => r#"\\[\\/nu]"#,
                1 => Just("\\".to_string()),
                1 => Just("\"".to_string()),
                1 => Just("\u{1}".to_string()),
            ], 0..14),
        ) {
            let text = pieces.concat();
            prop_assert_eq!(is_quoted(text.as_bytes()), quoted_by_bytes(text.as_bytes()), "{}", text);
            if is_quoted(text.as_bytes()) {
                // What JSON reads of the string is what unquoting gives.
                let json: String = sonic_rs::from_str(&format!("\"{text}\"")).expect("a JSON string");
                prop_assert_eq!(unquote(&text), json);
            }
        }
    }
}
