//! The first pass over a dump: each line's header (topic, partition,
//! offset, arrival time) without its key and payload. What ordering needs:
//! the partitions that exist, the earliest arrival, the record count and
//! whether the dump is already in arrival order.
//!
//! A line in the shape `lowwater dump` and kcat -J write starts with its
//! header: when that header names `offset` (else the rest of the line
//! might), it is read from there by its fixed text (`dump/shape.rs`) and
//! the rest of the line is not looked at (a header field named again
//! after the payload is an error of the second pass). Any other line is read lazily
//! (sonic-rs skips the key and payload), and one whose header is not the
//! plain case (a field missing, null, of another type or named twice, an
//! escaped topic name, a line that does not parse) is parsed in full, so
//! that it fails with the error the second pass would give. The second
//! pass parses every line in full in any case: a line whose header reads
//! well and whose rest does not (or names a header field again after its
//! payload) fails there, naming its line.

use sonic_rs::JsonValueTrait;

use super::lines::Lines;
use super::{InputError, Topics};
use crate::dump::{parse_raw, shape};
use crate::json::flat::json_int;

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
    // A header without an offset is read in full: the rest of the line
    // may name one.
    let shaped = shape::head(line).filter(|h| h.has_offset).map(|h| Header {
        topic: topics.id(h.topic),
        partition: h.partition,
        offset: h.offset,
        ts: h.ts,
    });
    let h = match shaped.or_else(|| lazy(line, topics)) {
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

/// A plain integer (digits, maybe a minus); anything else (`1e3`, `1.0`,
/// null) is left to the full parse.
fn int(v: &sonic_rs::LazyValue<'_>) -> Option<i64> {
    json_int(v.as_raw_str())
}

/// The plain case, read lazily; `None` for anything else. A header field
/// named twice is the full parse's (an error), and null is absent, as in
/// the full parse.
fn lazy(line: &str, topics: &mut Topics) -> Option<Header> {
    let (mut topic, mut partition, mut offset, mut ts) = (None, None, None, None);
    let mut offset_named = false;
    for item in sonic_rs::to_object_iter(line) {
        let (k, v) = item.ok()?;
        match &*k {
            "topic" if topic.is_none() => topic = Some(v),
            "partition" if partition.is_none() => partition = Some(i32::try_from(int(&v)?).ok()?),
            "offset" if !offset_named => {
                offset_named = true;
                offset = if v.is_null() { None } else { Some(int(&v)?) };
            }
            "ts" if ts.is_none() => ts = Some(int(&v)?),
            "topic" | "partition" | "offset" | "ts" => return None,
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

    fn read(line: &str) -> Result<(String, Header), InputError> {
        let lines = Lines::open_as(Path::new("/dev/null"), Path::new("x")).expect("open");
        let mut topics = Topics::default();
        let h = header(&lines, line, &mut topics)?;
        Ok((topics.names[h.topic as usize].clone(), h))
    }

    #[test]
    fn every_way_of_reading_a_header_is_the_full_parse() {
        let lines = [
            r#"{"topic":"clicks","partition":3,"offset":17,"tstype":"create","ts":1757808000000,"broker":1,"key":null,"payload":"{\"a\":1}"}"#,
            r#"{"topic":"clicks","partition":0,"offset":null,"ts":-5,"payload":"x"}"#,
            r#"{"partition":2,"ts":9,"topic":"t","offset":1,"payload":null}"#,
            r#"{"topic":"a\"b","partition":1,"offset":1,"ts":1}"#,
            r#"{"topic": "spaced","partition":1,"offset":1,"ts":1}"#,
            r#"{"topic":"t","partition":1,"ts":1,"payload":"no offset"}"#,
            r#"{"topic":"t","extra":{"a":1,"b":2},"partition":1,"offset":1,"ts":1}"#,
            r#"{"topic":"t","partition":1,"offset":1,"ts":1,"payload":"{\"ts\":7,\"topic\":\"x\"}"}"#,
        ];
        let mut by_shape = 0;
        for line in lines {
            by_shape += usize::from(shape::head(line).is_some_and(|h| h.has_offset));
            let (topic, h) = read(line).expect("a valid line");
            let raw = parse_raw(line).expect("a valid line");
            assert_eq!(topic, raw.topic, "{line}");
            assert_eq!(
                (h.partition, h.offset, h.ts),
                (raw.partition, raw.offset, raw.ts),
                "{line}"
            );
        }
        assert_eq!(by_shape, 3);
        for bad in [
            r#"{"topic":"t","partition":"1","offset":1,"ts":1}"#,
            r#"{"topic":"t","partition":1,"offset":1,"ts":1.5}"#,
            r#"{"topic":"t","partition":+1,"offset":1,"ts":1}"#,
            r#"{"topic":"t","partition":1,"offset":01,"ts":1}"#,
            r#"{"topic":"t","partition":1,"offset":1,"ts":-0}"#,
            r#"{"topic":"t","partition":-1,"offset":1,"ts":1}"#,
        ] {
            assert!(read(bad).is_err(), "{bad}");
            assert!(parse_raw(bad).is_err() || bad.contains("-1"), "{bad}");
        }
    }

    #[test]
    fn a_header_field_named_twice_is_an_error_in_one_pass_or_the_other() {
        // Not in the shape: the first pass refuses it, naming the second.
        let line = r#"{"partition":5,"topic":"t","offset":1,"ts":1,"partition":9}"#;
        let Err(InputError::Dump {
            column, message, ..
        }) = read(line)
        else {
            panic!("a repeated partition must be refused");
        };
        assert!(
            message.contains("\"partition\" is named twice"),
            "{message}"
        );
        assert_eq!(column, line.rfind("\"partition\"").expect("there") + 1);
        // In the shape up to its header: the first pass reads the header,
        // the second pass refuses the line.
        let line = r#"{"topic":"t","partition":5,"offset":1,"ts":1,"payload":"{\"partition\":7}","partition":9}"#;
        assert_eq!(read(line).expect("the header").1.partition, 5);
        let e = parse_raw(line).expect_err("a repeated partition");
        assert!(e.message.contains("named twice"), "{e}");
        for again in ["topic", "ts", "key", "payload"] {
            let line = format!(
                r#"{{"topic":"t","partition":5,"ts":1,"key":null,"payload":null,"{again}":null}}"#
            );
            let e = parse_raw(&line).expect_err("a repeated field");
            assert!(
                e.message.contains(&format!("\"{again}\" is named twice")),
                "{e}"
            );
        }
    }
}
