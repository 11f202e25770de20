//! The first pass over a dump: each line's header (topic, partition,
//! offset, arrival time) without its key and payload, which the JSON
//! parser skips instead of copying and unescaping. What ordering needs:
//! the partitions that exist, the earliest arrival, the record count and
//! whether the dump is already in arrival order.
//!
//! A line whose header is not the plain case (a field missing, null or of
//! another type, an escaped topic name, a line that does not parse) is
//! parsed in full instead, so it fails with the error the second pass
//! would give, or yields what the full parse reads. Every line is parsed
//! in full in the second pass in any case.

use sonic_rs::JsonValueTrait;

use super::lines::Lines;
use super::{InputError, Topics};
use crate::dump::parse_raw;
use crate::json::flat::{json_int, zero_bytes, ONES};

/// A record's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) topic: u32,
    pub(crate) partition: i32,
    pub(crate) offset: Option<i64>,
    pub(crate) ts: i64,
}

/// The header of the line `lines` last returned (`line`), its topic
/// interned in `topics`.
pub(crate) fn header(lines: &Lines, line: &str, topics: &mut Topics) -> Result<Header, InputError> {
    let h = match plain(line, topics).or_else(|| fast(line, topics)) {
        Some(h) => h,
        None => {
            let raw = parse_raw(line).map_err(|e| lines.error(e.column, e.message))?;
            Header {
                topic: topics.id(&raw.topic),
                partition: raw.partition,
                offset: raw.offset,
                ts: raw.ts,
            }
        }
    };
    check_partition(lines, line, h.partition)?;
    Ok(h)
}

/// A negative partition is refused in both passes, with the same words.
pub(crate) fn check_partition(lines: &Lines, line: &str, partition: i32) -> Result<(), InputError> {
    if partition < 0 {
        let column = line.find("\"partition\"").map_or(1, |c| c + 1);
        return Err(lines.error(
            column,
            format!("partition {partition} is negative; Kafka partitions start at 0"),
        ));
    }
    Ok(())
}

/// Whether `rest` (what follows the fourth header field) names a header
/// field again as a key: the full parse takes a repeated field's last
/// value, so such a line is read in full. A key's opening quote is not
/// escaped; in a string every quote is, so a name after a backslash is
/// text. (A string that only looks like a key costs a full read.)
///
/// One pass, eight bytes at a time: the quotes of a word are found at
/// once, and only a quote not after a backslash is looked at (a dump's
/// payload is escaped JSON: its many quotes are all escaped).
fn names_a_header_field(rest: &[u8]) -> bool {
    let named = |at: usize| {
        let after = &rest[at + 1..];
        match after.first() {
            Some(b't') => after.starts_with(b"topic\"") || after.starts_with(b"ts\""),
            Some(b'p') => after.starts_with(b"partition\""),
            Some(b'o') => after.starts_with(b"offset\""),
            _ => false,
        }
    };
    let key = |at: usize| (at == 0 || rest[at - 1] != b'\\') && named(at);
    let mut words = rest.chunks_exact(8);
    let mut base = 0;
    for w in &mut words {
        let mut word = [0; 8];
        word.copy_from_slice(w);
        let mut quotes = zero_bytes(u64::from_le_bytes(word) ^ (ONES * u64::from(b'"')));
        while quotes != 0 {
            if key(base + quotes.trailing_zeros() as usize / 8) {
                return true;
            }
            quotes &= quotes - 1;
        }
        base += 8;
    }
    (base..rest.len()).any(|at| rest[at] == b'"' && key(at))
}

/// The header as kcat and `lowwater dump` write it, read by hand: an
/// object whose first fields are `"name":value` pairs with plain values
/// (a string without escapes, an integer, null), up to the four header
/// fields. `None` at anything else, which the lazy parser then reads.
fn plain(line: &str, topics: &mut Topics) -> Option<Header> {
    let b = line.as_bytes();
    let mut i = b.iter().position(|c| !c.is_ascii_whitespace())?;
    if b[i] != b'{' {
        return None;
    }
    i += 1;
    let (mut topic, mut partition, mut offset, mut ts) = (None, None, None::<Option<i64>>, None);
    loop {
        // "name":
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let name_end = i + 1 + b[i + 1..].iter().position(|&c| c == b'"' || c == b'\\')?;
        if b[name_end] != b'"' || b.get(name_end + 1) != Some(&b':') {
            return None;
        }
        let name = &b[i + 1..name_end];
        i = name_end + 2;
        // A plain value, up to the next ',' or '}'.
        let value_end = if b.get(i) == Some(&b'"') {
            let close = i + 1 + b[i + 1..].iter().position(|&c| c == b'"' || c == b'\\')?;
            if b[close] != b'"' {
                return None;
            }
            close + 1
        } else {
            i + b[i..].iter().position(|&c| c == b',' || c == b'}')?
        };
        let value = &line[i..value_end];
        match name {
            b"topic" => topic = Some(value.strip_prefix('"')?.strip_suffix('"')?),
            b"partition" => partition = Some(i32::try_from(json_int(value)?).ok()?),
            b"offset" if value == "null" => offset = Some(None),
            b"offset" => offset = Some(Some(json_int(value)?)),
            b"ts" => ts = Some(json_int(value)?),
            _ if value.starts_with('"') || value == "null" || json_int(value).is_some() => {}
            _ => return None,
        }
        if let (Some(t), Some(p), Some(o), Some(ts)) = (topic, partition, offset, ts) {
            if names_a_header_field(&b[value_end..]) {
                return None;
            }
            return Some(Header {
                topic: topics.id(t),
                partition: p,
                offset: o,
                ts,
            });
        }
        i = value_end;
        match b.get(i) {
            Some(b',') => i += 1,
            _ => return None,
        }
    }
}

/// A plain integer (digits, maybe a minus); anything else (`1e3`, `1.0`,
/// null) is left to the full parse.
fn int(v: &sonic_rs::LazyValue<'_>) -> Option<i64> {
    json_int(v.as_raw_str())
}

/// The plain case, read lazily; `None` for anything else. Fields repeated
/// take their last value, and null is absent, as in the full parse.
fn fast(line: &str, topics: &mut Topics) -> Option<Header> {
    let (mut topic, mut partition, mut offset, mut ts) = (None, None, None, None);
    for item in sonic_rs::to_object_iter(line) {
        let (k, v) = item.ok()?;
        match &*k {
            "topic" => topic = Some(v),
            "partition" => partition = Some(i32::try_from(int(&v)?).ok()?),
            "offset" if v.is_null() => offset = None,
            "offset" => offset = Some(int(&v)?),
            "ts" => ts = Some(int(&v)?),
            _ => {}
        }
    }
    Some(Header {
        topic: topics.id(topic?.as_str()?),
        partition: partition?,
        offset,
        ts: ts?,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The check as it was written first: each name found by memmem.
    fn names_by_search(rest: &[u8]) -> bool {
        [
            &b"\"topic\""[..],
            b"\"partition\"",
            b"\"offset\"",
            b"\"ts\"",
        ]
        .iter()
        .any(|name| {
            memchr::memmem::find_iter(rest, name).any(|at| at == 0 || rest[at - 1] != b'\\')
        })
    }

    use proptest::prelude::*;

    proptest! {
        /// The one-pass check finds every repeated header field the search
        /// for each name finds (and may find more: a line it flags is read
        /// by the full parse, which is never wrong).
        #[test]
        fn the_one_pass_check_finds_what_the_search_finds(
            parts in prop::collection::vec(prop_oneof![
                Just(&b"\"topic\""[..]), Just(&b"\"partition\""[..]), Just(&b"\"offset\""[..]),
                Just(&b"\"ts\""[..]), Just(&b"\\"[..]), Just(&b"\""[..]), Just(&b"t"[..]),
                Just(&b"x:1,"[..]), Just(&b"\\\"ts\\\""[..]),
            ], 0..24),
        ) {
            let rest: Vec<u8> = parts.concat();
            if names_by_search(&rest) {
                prop_assert!(names_a_header_field(&rest));
            }
        }
    }

    #[test]
    fn the_hand_read_header_is_the_full_parse_or_nothing() {
        let lines = [
            r#"{"topic":"clicks","partition":3,"offset":17,"tstype":"create","ts":1757808000000,"broker":1,"key":null,"payload":"{\"a\":1}"}"#,
            r#"{"topic":"clicks","partition":0,"offset":null,"ts":-5,"payload":"x"}"#,
            r#"{"partition":2,"ts":9,"topic":"t","offset":1,"payload":null}"#,
            r#"{"topic":"a\"b","partition":1,"offset":1,"ts":1}"#,
            r#"{"topic": "spaced","partition":1,"offset":1,"ts":1}"#,
            r#"{"topic":"t","partition":1,"ts":1,"payload":"no offset"}"#,
            r#"{"topic":"t","partition":"1","offset":1,"ts":1}"#,
            r#"{"topic":"t","extra":{"a":1,"b":2},"partition":1,"offset":1,"ts":1}"#,
            r#"{"topic":"t","partition":1,"offset":1,"ts":1.5}"#,
            r#"{"topic":"t","partition":+1,"offset":1,"ts":1}"#,
            r#"{"topic":"t","partition":1,"offset":01,"ts":1}"#,
            r#"{"topic":"t","partition":1,"offset":1,"ts":-0}"#,
        ];
        let mut plain_read = 0;
        for line in lines {
            let mut topics = Topics::default();
            match plain(line, &mut topics) {
                Some(h) => {
                    plain_read += 1;
                    let raw = parse_raw(line).expect("a valid line");
                    assert_eq!(topics.names[h.topic as usize], raw.topic, "{line}");
                    assert_eq!(
                        (h.partition, h.offset, h.ts),
                        (raw.partition, raw.offset, raw.ts),
                        "{line}"
                    );
                }
                None => {
                    // The lazy parser or the full parse reads it instead.
                    let mut t = Topics::default();
                    let lazy = fast(line, &mut t);
                    if let Ok(raw) = parse_raw(line) {
                        if let Some(h) = lazy {
                            assert_eq!((h.partition, h.ts), (raw.partition, raw.ts), "{line}");
                        }
                    }
                }
            }
        }
        assert_eq!(plain_read, 3);
        // A repeated header field: read in full, the last one wins.
        let line = r#"{"topic":"t","partition":5,"offset":1,"ts":1,"payload":"{\"partition\":7}","partition":9}"#;
        assert!(plain(line, &mut Topics::default()).is_none());
        let lines_at = super::super::lines::Lines::open_as(Path::new("/dev/null"), Path::new("x"))
            .expect("open");
        let mut topics = Topics::default();
        let h = header(&lines_at, line, &mut topics).expect("a valid line");
        assert_eq!(h.partition, 9);
        assert!(plain(
            r#"{"topic":"t","partition":5,"offset":1,"ts":1,"payload":"{\"ts\":7,\"topic\":\"x\"}"}"#,
            &mut Topics::default()
        )
        .is_some());
    }
}
