//! Topic dumps: one Kafka record per line, as `kcat -J` prints them:
//! `{"topic":"t","partition":0,"offset":42,"tstype":"create","ts":1757820000000,"key":null,"payload":"{...}"}`.
//!
//! On input `offset` and `tstype` are optional and unknown fields (`broker`,
//! `headers`) are ignored; `ts` and `partition` are required, and a field
//! named twice is refused (which of the two would a reader take?). A line
//! that is not such a record is an error naming the line and column.

use std::borrow::Cow;
use std::io::{self, Write};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use sonic_rs::{JsonContainerTrait, JsonValueTrait};

mod fast;
pub(crate) mod shape;

/// One record of a dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpRecord {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Offset, when known.
    pub offset: Option<i64>,
    /// Record timestamp (arrival time in replay).
    pub ts: i64,
    /// Key, if any.
    pub key: Option<Vec<u8>>,
    /// Value; `None` for a tombstone.
    pub payload: Option<Vec<u8>>,
}

/// A malformed dump line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct DumpError {
    /// 1-based column in the line.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// A dump line's fields, before they are copied into a [`DumpRecord`].
#[derive(Debug)]
pub struct RawRecord<'a> {
    /// Topic.
    pub topic: Cow<'a, str>,
    /// Partition.
    pub partition: i32,
    /// Offset, when known.
    pub offset: Option<i64>,
    /// Record timestamp.
    pub ts: i64,
    /// Key.
    pub key: Option<Cow<'a, [u8]>>,
    /// Value (`None`: tombstone).
    pub payload: Option<Cow<'a, [u8]>>,
}

/// Parses one dump line: the line as `lowwater dump` and kcat -J write it
/// by its fixed text (`dump/shape.rs`), any other flat line on the fast
/// path (`dump/fast.rs`), any other line (and every error) on the general
/// one.
pub fn parse_raw(line: &str) -> Result<RawRecord<'_>, DumpError> {
    match shape::parse(line) {
        Some(r) => Ok(r),
        None => parse_unshaped(line),
    }
}

/// [`parse_raw`] of a line that is not in the shape `dump/shape.rs` reads.
pub(crate) fn parse_unshaped(line: &str) -> Result<RawRecord<'_>, DumpError> {
    match fast::parse(line) {
        Some(r) => Ok(r),
        None => parse_general(line),
    }
}

/// [`parse_raw`] of any line, with its errors. The line is parsed into
/// sonic-rs's document tree, which measured about twice as fast as its
/// serde path for these lines (whose payload is an escaped JSON string).
fn parse_general(line: &str) -> Result<RawRecord<'static>, DumpError> {
    let bad = |column: usize, what: String| {
        DumpError {
        column: column.max(1),
        message: format!(
            "not a kcat -J record ({what}); expected {{\"topic\":..,\"partition\":..,\"ts\":..,\"payload\":..}}"
        ),
    }
    };
    if crate::json::nests_deeper(line, crate::json::MAX_NESTING) {
        return Err(bad(
            1,
            format!(
                "the line nests JSON deeper than {} levels; a dump record is one flat object",
                crate::json::MAX_NESTING
            ),
        ));
    }
    let doc: sonic_rs::Value = sonic_rs::from_str(line)
        .map_err(|e| bad(e.column(), first_line(&e.to_string()).to_string()))?;
    let obj = doc
        .as_object()
        .ok_or_else(|| bad(1, "not a JSON object".into()))?;
    // One pass over the fields (a lookup per field would scan them each time).
    let mut found: [Option<&sonic_rs::Value>; 8] = [None; 8];
    const NAMES: [&str; 8] = [
        "topic",
        "partition",
        "offset",
        "ts",
        "key",
        "payload",
        "key_base64",
        "payload_base64",
    ];
    let mut named = [false; 8];
    for (k, v) in obj.iter() {
        if let Some(i) = NAMES.iter().position(|n| *n == k) {
            // A record's field named twice: JSON parsers differ on which
            // one counts (sonic-rs and Jackson take the last), so neither
            // is guessed.
            if std::mem::replace(&mut named[i], true) {
                // The second `"k"` that is a name (a colon follows), not
                // a value that reads the same.
                let quoted = format!("\"{k}\"");
                let second = line
                    .match_indices(&quoted)
                    .filter(|(i, _)| {
                        line[i + quoted.len()..]
                            .trim_start_matches([' ', '\t', '\n', '\r'])
                            .starts_with(':')
                    })
                    .nth(1)
                    .map_or(1, |(i, _)| i + 1);
                return Err(DumpError {
                    column: second,
                    message: format!(
                        "\"{k}\" is named twice in the record; a dump line names each field once"
                    ),
                });
            }
            found[i] = Some(v).filter(|v| !v.is_null());
        }
    }
    let field = |name: &str| NAMES.iter().position(|n| *n == name).and_then(|i| found[i]);
    let at = |name: &str| line.find(&format!("\"{name}\"")).map_or(1, |i| i + 1);
    let int = |name: &str| -> Result<Option<i64>, DumpError> {
        match field(name) {
            None => Ok(None),
            Some(v) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| bad(at(name), format!("\"{name}\" must be an integer"))),
        }
    };
    let text = |name: &str| -> Result<Option<String>, DumpError> {
        match field(name) {
            None => Ok(None),
            Some(v) => v
                .as_str()
                .map(|s| Some(s.to_string()))
                .ok_or_else(|| bad(at(name), format!("\"{name}\" must be a string or null"))),
        }
    };
    // Bytes that are not UTF-8 (Avro, raw binary) are written as base64
    // under `key_base64` / `payload_base64` instead of `key` / `payload`.
    let bytes = |name: &str, b64: &str| -> Result<Option<Vec<u8>>, DumpError> {
        // Most lines have no base64 field: look it up without allocating.
        if field(b64).is_none() {
            return Ok(text(name)?.map(String::into_bytes));
        }
        match text(b64)? {
            Some(t) => BASE64
                .decode(t.as_bytes())
                .map(Some)
                .map_err(|e| bad(at(b64), format!("\"{b64}\" is not base64 ({e})"))),
            None => Ok(text(name)?.map(String::into_bytes)),
        }
    };
    let topic = text("topic")?.ok_or_else(|| bad(1, "missing \"topic\"".into()))?;
    let partition = int("partition")?.ok_or_else(|| bad(1, "missing \"partition\"".into()))?;
    let partition = i32::try_from(partition)
        .map_err(|_| bad(1, format!("partition {partition} is out of range")))?;
    Ok(RawRecord {
        topic: Cow::Owned(topic),
        partition,
        offset: int("offset")?,
        ts: int("ts")?.ok_or_else(|| bad(1, "missing \"ts\"".into()))?,
        key: bytes("key", "key_base64")?.map(Cow::Owned),
        payload: bytes("payload", "payload_base64")?.map(Cow::Owned),
    })
}

/// Parses one dump line.
pub fn parse_line(line: &str) -> Result<DumpRecord, DumpError> {
    let raw = parse_raw(line)?;
    Ok(DumpRecord {
        topic: raw.topic.into_owned(),
        partition: raw.partition,
        offset: raw.offset,
        ts: raw.ts,
        key: raw.key.map(Cow::into_owned),
        payload: raw.payload.map(Cow::into_owned),
    })
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

pub use crate::escape::write_json_str;

/// Renders a record as one dump line (without the newline).
pub fn format_record(r: &DumpRecord) -> String {
    let mut out = String::with_capacity(96 + r.payload.as_ref().map_or(0, |p| p.len() * 2));
    out.push_str("{\"topic\":");
    write_json_str(&mut out, &r.topic);
    out.push_str(&format!(",\"partition\":{}", r.partition));
    if let Some(o) = r.offset {
        out.push_str(&format!(",\"offset\":{o}"));
    }
    out.push_str(&format!(",\"tstype\":\"create\",\"ts\":{}", r.ts));
    write_bytes(&mut out, "key", r.key.as_deref());
    write_bytes(&mut out, "payload", r.payload.as_deref());
    out.push('}');
    out
}

/// Appends `,"name":...`: the bytes as a JSON string when they are UTF-8,
/// else as base64 under `name_base64`.
fn write_bytes(out: &mut String, name: &str, bytes: Option<&[u8]>) {
    match bytes.map(|b| (std::str::from_utf8(b), b)) {
        None => out.push_str(&format!(",\"{name}\":null")),
        Some((Ok(text), _)) => {
            out.push_str(&format!(",\"{name}\":"));
            write_json_str(out, text);
        }
        Some((Err(_), b)) => {
            out.push_str(&format!(",\"{name}_base64\":\""));
            out.push_str(&BASE64.encode(b));
            out.push('"');
        }
    }
}

/// Writes records as dump lines.
pub fn write_records<W: Write>(w: &mut W, records: &[DumpRecord]) -> io::Result<()> {
    for r in records {
        w.write_all(format_record(r).as_bytes())?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_escapes_and_unknown_fields() {
        let line = r#"{"topic":"clickstream","partition":11,"offset":42,"tstype":"create","ts":1757820000000,"broker":1,"headers":[],"key":null,"payload":"{\"user_id\":\"u\\\"1\",\"n\":1}"}"#;
        let r = parse_line(line).expect("valid");
        assert_eq!(
            (r.topic.as_str(), r.partition, r.offset, r.ts),
            ("clickstream", 11, Some(42), 1_757_820_000_000)
        );
        assert_eq!(
            r.payload.as_deref(),
            Some(r#"{"user_id":"u\"1","n":1}"#.as_bytes())
        );
        let again = parse_line(&format_record(&r)).expect("own output parses");
        assert_eq!(again, r);
    }

    #[test]
    fn malformed_lines_name_the_column() {
        let e = parse_line(r#"{"topic":"t","partition":"x","ts":1}"#).expect_err("bad partition");
        assert!(e.column > 1, "{e}");
        let e = parse_line(r#"{"topic":"t","partition":0}"#).expect_err("no ts");
        assert!(e.message.contains("ts"), "{e}");
        assert!(parse_line("not json").is_err());
        // A field named twice: the column of the second name, not of a value
        // or header that reads the same.
        let line =
            r#"{"topic":"key","partition":0,"ts":1,"headers":["key","v"],"key":"a", "key" :"b"}"#;
        let e = parse_line(line).expect_err("key twice");
        assert!(e.message.contains("\"key\" is named twice"), "{e}");
        assert_eq!(e.column, line.rfind("\"key\"").expect("there") + 1, "{e}");
    }

    #[test]
    fn bytes_that_are_not_utf8_round_trip_as_base64() {
        let r = DumpRecord {
            topic: "t".into(),
            partition: 0,
            offset: Some(1),
            ts: 5,
            key: Some(vec![0, 0xff, b'k']),
            payload: Some(vec![0, 0, 0, 0, 1, 0x80, 0xfe]),
        };
        let line = format_record(&r);
        assert!(
            line.contains("\"payload_base64\":\"AAAAAAGA/g==\""),
            "{line}"
        );
        assert!(line.contains("\"key_base64\":"), "{line}");
        assert!(!line.contains("\"payload\":"), "{line}");
        assert_eq!(parse_line(&line).expect("own output parses"), r);
        // UTF-8 bytes stay plain strings (the kcat -J shape).
        let text = DumpRecord {
            key: None,
            payload: Some(b"\0{}".to_vec()),
            ..r
        };
        let line = format_record(&text);
        assert!(
            line.ends_with(",\"key\":null,\"payload\":\"\\u0000{}\"}"),
            "{line}"
        );
        assert_eq!(parse_line(&line).expect("parses"), text);
        let e = parse_line(r#"{"topic":"t","partition":0,"ts":1,"payload_base64":"!!"}"#)
            .expect_err("bad base64");
        assert!(e.message.contains("payload_base64"), "{e}");
    }

    fn owned(r: RawRecord<'_>) -> DumpRecord {
        DumpRecord {
            topic: r.topic.into_owned(),
            partition: r.partition,
            offset: r.offset,
            ts: r.ts,
            key: r.key.map(Cow::into_owned),
            payload: r.payload.map(Cow::into_owned),
        }
    }

    #[test]
    fn plain_lines_take_the_fast_path() {
        let r = DumpRecord {
            topic: "clicks".into(),
            partition: 3,
            offset: Some(7),
            ts: 1_757_808_000_000,
            key: Some(b"u1".to_vec()),
            payload: Some(br#"{"user_id":"u\"1","url":"/p/0"}"#.to_vec()),
        };
        let line = format_record(&r);
        assert_eq!(fast::parse(&line).map(owned), Some(r.clone()));
        // kcat's `broker` and `headers` are read and ignored.
        for extra in [
            r#""broker":1001,"#,
            r#""broker":1,"headers":["trace","a\"b",  "empty",null],"#,
            r#""headers":[],"#,
        ] {
            let kcat = line.replacen("\"key\"", &format!("{extra}\"key\""), 1);
            assert_eq!(fast::parse(&kcat).map(owned), Some(r.clone()), "{kcat}");
        }
        for general_only in [
            r#"{"topic":"t","partition":0,"ts":1,"payload":"\u0041"}"#,
            r#"{"topic":"t","partition":0,"ts":1,"headers":[["k"],"v"]}"#,
            r#"{"topic":"t","partition":0,"ts":1,"headers":{"k":"v"}}"#,
            r#"{"topic":"t","partition":0,"ts":1,"headers":["k",]}"#,
            r#"{"topic":"t","partition":0,"ts":1,"broker":1e400}"#,
            r#"{"topic":"t","partition":0,"ts":1,"headers":["k",1e400]}"#,
            r#"{"topic":"t","partition":0,"ts":1,"payload_base64":"AA=="}"#,
            r#"{"topic":"t","partition":0,"ts":1,"ts":2}"#,
            r#"{"topic":"t","partition":0,"ts":-0}"#,
            r#"{"topic":"t","partition":null,"ts":1}"#,
        ] {
            assert!(fast::parse(general_only).is_none(), "{general_only}");
        }
    }

    mod fast_path {
        use super::*;
        use proptest::prelude::*;

        fn field() -> impl Strategy<Value = String> {
            let value = crate::json::tests::fast_path::value;
            let name = prop_oneof![
                Just("topic"),
                Just("partition"),
                Just("offset"),
                Just("tstype"),
                Just("ts"),
                Just("key"),
                Just("payload"),
                Just("payload_base64"),
                Just("broker"),
            ];
            // kcat's headers: an array of names and values (nested values
            // and objects are the general path's).
            let array =
                prop::collection::vec(value(), 0..4).prop_map(|v| format!("[{}]", v.join(" , ")));
            let headers = prop_oneof![
                3 => array,
                1 => Just(r#"[["k"],null]"#.to_string()),
                1 => Just(r#"{"k":"v"}"#.to_string()),
                1 => Just("1e400".to_string()),
                1 => Just(r#"["k",1e400]"#.to_string()),
                1 => value(),
            ];
            prop_oneof![
                4 => (name, value()).prop_map(|(n, v)| format!("\"{n}\":{v}")),
                1 => headers.prop_map(|h| format!("\"headers\":{h}")),
            ]
        }

        fn line() -> impl Strategy<Value = String> {
            // Mostly the plain shape with one field changed, so that the
            // fast path is taken often.
            let plain = (
                "[a-z]{1,6}",
                // Now and then a partition beyond 32 bits.
                prop_oneof![9 => 0i64..20, 1 => any::<i64>()],
                any::<i64>(),
                r#"[a-z "\\\n\t{}:,é]{0,30}"#,
                prop::option::of(field()),
                any::<bool>(),
            )
                .prop_map(|(t, p, ts, payload, extra, ws)| {
                    let sep = if ws { " , " } else { "," };
                    let mut fields = vec![
                        format!("\"topic\":\"{t}\""),
                        format!("\"partition\":{p}"),
                        "\"tstype\":\"create\"".to_string(),
                        format!("\"ts\":{ts}"),
                        "\"key\":null".to_string(),
                        format!("\"payload\":{payload:?}"),
                    ];
                    fields.extend(extra);
                    format!("{{{}}}", fields.join(sep))
                });
            let any_fields =
                prop::collection::vec(field(), 0..8).prop_map(|f| format!("{{{}}}", f.join(",")));
            prop_oneof![3 => plain, 1 => any_fields]
        }

        proptest! {
            /// A line the fast path reads is one the general path reads,
            /// to the same record.
            #[test]
            fn reads_as_the_general_path(line in line()) {
                if let Some(fast) = fast::parse(&line) {
                    let general = parse_general(&line);
                    prop_assert!(general.is_ok(), "{line}: fast read it, general: {general:?}");
                    prop_assert_eq!(Some(owned(fast)), general.ok().map(owned), "{}", line);
                }
                shape_reads_as_the_general_path(&line)?;
            }

            /// A line read by its fixed text is read so by the general path,
            /// and its header is the record's; a line changed by one
            /// character is read the same way or not at all.
            #[test]
            fn the_shape_reads_as_the_general_path(
                ((line, skippable), at, c) in (shaped(), any::<prop::sample::Index>(), prop_oneof![
                    Just(' '), Just('"'), Just('\\'), Just(','), Just('}'), Just('0'),
                    Just('-'), Just('.'), Just('e'), Just('n'), Just('\u{1}'), Just('é'),
                ]),
            ) {
                // Headers the fast path skips (an array of scalars, numbers
                // 64-bit integers) keep the line in the shape.
                if skippable {
                    prop_assert!(shape::parse(&line).is_some(), "{}", line);
                }
                shape_reads_as_the_general_path(&line)?;
                let mut changed = line.clone();
                let at = at.index(line.len());
                if line.is_char_boundary(at) {
                    changed.replace_range(at..at + line[at..].chars().next().map_or(0, char::len_utf8), &c.to_string());
                    shape_reads_as_the_general_path(&changed)?;
                }
            }
        }

        fn shape_reads_as_the_general_path(line: &str) -> Result<(), TestCaseError> {
            let general = parse_general(line).map(owned);
            if let Some(r) = shape::parse(line) {
                prop_assert!(
                    general.is_ok(),
                    "{line}: shape read it, general: {general:?}"
                );
                prop_assert_eq!(Some(owned(r)), general.as_ref().ok().cloned(), "{}", line);
            }
            // Read owned, a payload kept as written or not: the same record.
            let read = shape::parse_owned(line).map(|(h, key, payload)| DumpRecord {
                topic: h.topic.to_string(),
                partition: h.partition,
                offset: h.offset,
                ts: h.ts,
                key,
                payload: payload.map(crate::payload::Payload::into_bytes),
            });
            prop_assert_eq!(read.is_some(), shape::parse(line).is_some(), "{}", line);
            if read.is_some() {
                prop_assert_eq!(read, general.as_ref().ok().cloned(), "{}", line);
            }
            if let Some(h) = shape::head(line).filter(|h| h.has_offset) {
                if let Ok(g) = &general {
                    prop_assert_eq!(
                        (h.topic, h.partition, h.offset, h.ts),
                        (g.topic.as_str(), g.partition, g.offset, g.ts),
                        "{}",
                        line
                    );
                }
            }
            Ok(())
        }

        /// Lines in the shape: each optional field there or not, and
        /// whether their headers (if any) are ones the fast path skips.
        fn shaped() -> impl Strategy<Value = (String, bool)> {
            let text = r#"[a-z "\\/\n\t{}:,é]{0,24}"#;
            let bytes = prop_oneof![1 => Just("null".to_string()), 3 => text.prop_map(|t| format!("{t:?}"))];
            (
                "[a-zé€._-]{0,8}",
                prop_oneof![9 => 0i32..20, 1 => any::<i32>()],
                prop::option::of(prop_oneof![
                    Just("null".to_string()),
                    any::<i64>().prop_map(|o| o.to_string())
                ]),
                prop::option::of("[a-zé ]{0,8}"),
                any::<i64>(),
                (
                    prop::option::of(any::<i64>()),
                    prop::option::of(prop_oneof![
                        Just(("[]", true)),
                        Just((r#"["trace","a\"b", null,7]"#, true)),
                        Just((r#"[["k"]]"#, false)),
                        Just((r#"["k",1.5]"#, false)),
                        Just(("{}", false)),
                    ]),
                ),
                bytes.clone(),
                bytes,
            )
                .prop_map(|(t, p, o, tstype, ts, (broker, headers), key, payload)| {
                    let mut line = format!(r#"{{"topic":"{t}","partition":{p}"#);
                    if let Some(o) = o {
                        line.push_str(&format!(r#","offset":{o}"#));
                    }
                    if let Some(x) = tstype {
                        line.push_str(&format!(r#","tstype":"{x}""#));
                    }
                    line.push_str(&format!(r#","ts":{ts}"#));
                    if let Some(b) = broker {
                        line.push_str(&format!(r#","broker":{b}"#));
                    }
                    if let Some((h, _)) = headers {
                        line.push_str(&format!(r#","headers":{h}"#));
                    }
                    line.push_str(&format!(r#","key":{key},"payload":{payload}}}"#));
                    (line, headers.is_none_or(|(_, skippable)| skippable))
                })
        }
    }

    #[test]
    fn control_characters_are_escaped() {
        let mut s = String::new();
        write_json_str(&mut s, "a\u{1}b\n");
        assert_eq!(s, "\"a\\u0001b\\n\"");
    }
}
