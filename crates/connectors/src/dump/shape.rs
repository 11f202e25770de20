//! The line as `lowwater dump` and kcat -J write it, read by matching its
//! fixed text: `{"topic":"T","partition":P,"offset":O,"tstype":"X","ts":TS`
//! (`offset` and `tstype` may be left out, `offset` may be null), then for
//! the whole record `,"broker":B` and `,"headers":[...]` (kcat's, optional;
//! the headers an array of scalars), `,"key":K`, `,"payload":V` and `}`
//! ending the line. Each field's name is compared as bytes, not scanned,
//! and each comes once, in this order: a line in this shape cannot repeat
//! a field. The header's plain strings and integers are read here by hand
//! (the JSON fast path's scanner, dispatching on every value, measured
//! 13% slower on the replay bench); the headers, key and payload by that
//! scanner ([`Scanner`]), as the fast path reads them.
//!
//! The first pass over a dump reads only the header ([`head`]); the second
//! reads the record ([`parse_owned`]), where a payload that is quoted text
//! (its only escapes `\"`, see [`crate::payload`]) is checked as such and
//! kept as written, not scanned and unescaped. Anything else (another order, whitespace,
//! an escaped topic, headers that are not an array of scalars, a number
//! that is not a plain integer) gives up (`None`) and the line goes to the
//! general fast path (`dump/fast.rs`) and then to the general parse, which
//! read every line this does to the same record (a property test holds
//! them to it).

use std::borrow::Cow;

use super::RawRecord;
use crate::json::flat::Scanner;
use crate::payload::Payload;

/// A record's header, and where its text ends in the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Head<'a> {
    pub(crate) topic: &'a str,
    pub(crate) partition: i32,
    pub(crate) offset: Option<i64>,
    pub(crate) ts: i64,
    /// Whether the header names `offset`: if it does not, the rest of the
    /// line may (a header read alone does not know it).
    pub(crate) has_offset: bool,
    /// The index just after the `ts` value.
    pub(crate) end: usize,
}

/// `at` past `text`, if the line has `text` at `at`.
#[inline(always)]
fn lit(b: &[u8], at: usize, text: &[u8]) -> Option<usize> {
    let end = at + text.len();
    (b.get(at..end)? == text).then_some(end)
}

/// The end of a plain string's text starting at `from` (its closing
/// quote): no escape, no control character (either gives up).
#[inline(always)]
fn plain_end(b: &[u8], from: usize) -> Option<usize> {
    let end = from
        + b[from..]
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
    (b[end] == b'"').then_some(end)
}

/// An integer as JSON writes one at `at` (a minus, digits without leading
/// zeros, not `-0`, in 64 bits) and the index after it. What follows is
/// the caller's to match: a fraction or exponent does not match it.
#[inline(always)]
fn int(b: &[u8], at: usize) -> Option<(i64, usize)> {
    let negative = b.get(at) == Some(&b'-');
    let mut i = at + usize::from(negative);
    let first = *b.get(i)?;
    if !first.is_ascii_digit() {
        return None;
    }
    // Summed below zero, so that i64::MIN fits.
    let mut v = -i64::from(first - b'0');
    i += 1;
    while let Some(&d) = b.get(i) {
        if !d.is_ascii_digit() {
            break;
        }
        if first == b'0' {
            return None;
        }
        v = v.checked_mul(10)?.checked_sub(i64::from(d - b'0'))?;
        i += 1;
    }
    match negative {
        true if v == 0 => None,
        true => Some((v, i)),
        false => Some((v.checked_neg()?, i)),
    }
}

/// The header of `line`, if it starts in the shape.
#[inline]
pub(crate) fn head(line: &str) -> Option<Head<'_>> {
    let b = line.as_bytes();
    let from = lit(b, 0, b"{\"topic\":\"")?;
    let until = plain_end(b, from)?;
    let at = lit(b, until, b"\",\"partition\":")?;
    let (partition, mut at) = int(b, at)?;
    let partition = i32::try_from(partition).ok()?;
    let (mut offset, mut has_offset) = (None, false);
    if let Some(o) = lit(b, at, b",\"offset\":") {
        has_offset = true;
        (offset, at) = match lit(b, o, b"null") {
            Some(end) => (None, end),
            None => int(b, o).map(|(o, end)| (Some(o), end))?,
        };
    }
    if let Some(t) = lit(b, at, b",\"tstype\":\"") {
        at = plain_end(b, t)? + 1;
    }
    let at = lit(b, at, b",\"ts\":")?;
    let (ts, end) = int(b, at)?;
    // Not a fraction or an exponent: the next field, or the end.
    if !matches!(b.get(end), Some(b',' | b'}')) {
        return None;
    }
    Some(Head {
        topic: &line[from..until],
        partition,
        offset,
        ts,
        has_offset,
        end,
    })
}

/// The record of `line`, if it is in the shape from end to end.
#[inline]
pub(crate) fn parse(line: &str) -> Option<RawRecord<'_>> {
    let (h, key, mut s) = up_to_payload(line)?;
    let payload = s.bytes(true)?;
    ended(line, s.position())?;
    Some(RawRecord {
        topic: Cow::Borrowed(h.topic),
        partition: h.partition,
        offset: h.offset,
        ts: h.ts,
        key: key.map(Cow::Owned),
        payload: payload.map(Cow::Owned),
    })
}

/// [`parse`], its header, key and payload owned; a payload that is quoted
/// text (a JSON payload whose strings hold no escape) kept as written,
/// ([`Payload::quoted`]), instead of unescaped.
#[inline]
pub(crate) fn parse_owned(line: &str) -> Option<(Head<'_>, Option<Vec<u8>>, Option<Payload>)> {
    let (h, key, mut s) = up_to_payload(line)?;
    let b = line.as_bytes();
    let from = s.position() + 1;
    // Quoted text has no unescaped quote: the string runs to the `"}`
    // that ends the line.
    if b.get(from - 1) == Some(&b'"') && b.len() >= from + 2 && b.ends_with(b"\"}") {
        if let Some(p) = line.get(from..b.len() - 2).and_then(Payload::quoted) {
            return Some((h, key, Some(p)));
        }
    }
    let payload = s.bytes(true)?;
    ended(line, s.position())?;
    Some((h, key, payload.map(Payload::from)))
}

/// The header and key of `line`, and a scanner at its payload's value.
#[inline(always)]
fn up_to_payload(line: &str) -> Option<(Head<'_>, Option<Vec<u8>>, Scanner<'_>)> {
    let b = line.as_bytes();
    let h = head(line)?;
    let mut at = h.end;
    if let Some(broker) = lit(b, at, b",\"broker\":") {
        at = int(b, broker)?.1;
    }
    // kcat's headers (names and values), skipped as the fast path skips
    // them.
    if let Some(headers) = lit(b, at, b",\"headers\":") {
        let mut s = Scanner::at(line, headers);
        s.skip()?;
        at = s.position();
    }
    // The key, unescaped into bytes of its own as the fast path reads it;
    // the payload is the caller's.
    let mut s = Scanner::at(line, lit(b, at, b",\"key\":")?);
    let key = s.bytes(false)?;
    let s = Scanner::at(line, lit(b, s.position(), b",\"payload\":")?);
    Some((h, key, s))
}

/// `Some` if `line` ends with the `}` at `at`.
#[inline(always)]
fn ended(line: &str, at: usize) -> Option<()> {
    (lit(line.as_bytes(), at, b"}")? == line.len()).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_as_json_writes_them() {
        fn read(s: &str) -> Option<(i64, &str)> {
            int(s.as_bytes(), 0).map(|(v, end)| (v, &s[end..]))
        }
        assert_eq!(read("0,"), Some((0, ",")));
        assert_eq!(read("-17}"), Some((-17, "}")));
        assert_eq!(read("9223372036854775807"), Some((i64::MAX, "")));
        assert_eq!(read("-9223372036854775808"), Some((i64::MIN, "")));
        // What the caller's next text then refuses: a fraction, an exponent.
        assert_eq!(read("1.5"), Some((1, ".5")));
        assert_eq!(
            read("1234567812345678,"),
            Some((1_234_567_812_345_678, ","))
        );
        for refused in [
            "",
            "-",
            "-0",
            "01",
            "-01",
            "00000000",
            "+1",
            "9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999999",
            "x",
        ] {
            assert_eq!(read(refused), None, "{refused}");
        }
    }

    use proptest::prelude::*;

    proptest! {
        /// The header's integers are read as JSON's integers are.
        #[test]
        fn integers_read_as_json_int_reads_them(
            text in prop_oneof![
                any::<i64>().prop_map(|v| v.to_string()),
                "-?[0-9]{1,22}",
                "-?[0-9]{0,9}[/:a.e][0-9]{0,9}",
            ],
        ) {
            let digits = text.trim_start_matches('-');
            let end = text.len() - digits.len() + digits.bytes().take_while(u8::is_ascii_digit).count();
            let want = crate::json::flat::json_int(&text[..end]).map(|v| (v, end));
            prop_assert_eq!(int(text.as_bytes(), 0), want, "{}", text);
        }
    }

    #[test]
    fn reads_the_shape_and_nothing_else() {
        let line = r#"{"topic":"clicks","partition":3,"offset":7,"tstype":"create","ts":1757808000000,"key":"u\"1","payload":"{\"a\":1}"}"#;
        let r = parse(line).expect("the shape");
        assert_eq!(
            (&*r.topic, r.partition, r.offset, r.ts),
            ("clicks", 3, Some(7), 1_757_808_000_000)
        );
        assert_eq!(r.key.as_deref(), Some(&b"u\"1"[..]));
        assert_eq!(r.payload.as_deref(), Some(&br#"{"a":1}"#[..]));
        // Optional fields, kcat's broker, a tombstone.
        let short = r#"{"topic":"t","partition":0,"offset":null,"ts":-5,"broker":1001,"key":null,"payload":null}"#;
        let r = parse(short).expect("the shape");
        assert_eq!((r.offset, r.ts, r.key, r.payload), (None, -5, None, None));
        let kcat = r#"{"topic":"t","partition":0,"ts":1,"broker":1,"headers":["k","v\"",null,2],"key":null,"payload":"p"}"#;
        assert_eq!(
            parse(kcat).and_then(|r| r.payload).as_deref(),
            Some(&b"p"[..])
        );
        let h = head(r#"{"topic":"t","partition":2,"ts":9,"payload":"x"}"#).expect("a header");
        assert_eq!((h.topic, h.partition, h.offset, h.ts), ("t", 2, None, 9));
        assert_eq!(head(r#"{"topic":"t","partition":2,"ts":9e3}"#), None);
        for other in [
            r#"{"topic":"a\"b","partition":1,"offset":1,"ts":1,"key":null,"payload":null}"#,
            r#"{"topic": "t","partition":1,"offset":1,"ts":1,"key":null,"payload":null}"#,
            r#"{"partition":1,"topic":"t","offset":1,"ts":1,"key":null,"payload":null}"#,
            r#"{"topic":"t","partition":1,"offset":1,"ts":1.5,"key":null,"payload":null}"#,
            r#"{"topic":"t","partition":1,"offset":01,"ts":1,"key":null,"payload":null}"#,
            r#"{"topic":"t","partition":1,"offset":1,"ts":-0,"key":null,"payload":null}"#,
            r#"{"topic":"t","partition":4294967296,"ts":1,"key":null,"payload":null}"#,
            r#"{"topic":"t","partition":1,"ts":1,"headers":[["a"]],"key":null,"payload":null}"#,
            r#"{"topic":"t","partition":1,"ts":1,"headers":{},"key":null,"payload":null}"#,
            r#"{"topic":"t","partition":1,"ts":1,"headers":[1e400],"key":null,"payload":null}"#,
            r#"{"topic":"t","partition":1,"ts":1,"key":null,"payload":null,"ts":2}"#,
            r#"{"topic":"t","partition":1,"ts":1,"key":null,"payload":"a\u0041"}"#,
            r#"{"topic":"t","partition":1,"ts":1,"key":null,"payload":null} "#,
            r#"{"topic":"t","partition":1,"ts":1,"key":null}"#,
        ] {
            assert!(parse(other).is_none(), "{other}");
        }
    }
}
