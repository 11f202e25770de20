//! The fast path of a dump line: the kcat -J shape (`topic`, `partition`,
//! `offset`, `ts`, `key`, `payload`, in any order, each once, and any other
//! field, such as `tstype` and kcat's `broker` and `headers`, ignored when
//! its value is a scalar or an array of scalars) read in one pass by the
//! JSON fast path's scanner, the key and payload unescaped into their
//! bytes as they are scanned. Anything else gives up (`None`) and the line
//! goes to the general path (sonic-rs's document tree), which also gives
//! every error: a field with an object or a nested array, a number other
//! than a 64-bit integer in an ignored field (the general path refuses one
//! that overflows a double), `key_base64` or `payload_base64`, a repeated
//! field (an error), a value of another type, a missing or NULL required field, an
//! escaped topic, a `\u` escape, nesting. A property test holds the two
//! paths to the same record.

use std::borrow::Cow;

use super::RawRecord;
use crate::json::flat::{scan_with, Token};

/// The record of `line`, if it has the plain shape.
pub(super) fn parse(line: &str) -> Option<RawRecord<'_>> {
    let mut topic = None;
    let (mut partition, mut offset, mut ts) = (None, None, None);
    let (mut key, mut payload) = (None, None);
    scan_with(line, |name, s| {
        // Each field once (the general path refuses a repeated one).
        let first = |seen: bool| (!seen).then_some(());
        if let "key" | "payload" = name {
            // Unescaped as it is scanned, into the record's own bytes.
            let slot = if name == "key" {
                &mut key
            } else {
                &mut payload
            };
            first(slot.is_some())?;
            *slot = Some(s.bytes(name == "payload")?);
            return Some(());
        }
        if !matches!(name, "topic" | "partition" | "offset" | "ts") {
            // Bytes that are not UTF-8: the general path decodes them.
            if let "key_base64" | "payload_base64" = name {
                return None;
            }
            // Any other field (`tstype`, kcat's `broker` and `headers`) is
            // ignored, as the general path ignores it, once its value is a
            // scalar or an array of scalars that the general path reads.
            return s.skip();
        }
        let token = s.value()?;
        match name {
            "topic" => {
                first(topic.is_some())?;
                let Token::Str(t) = token else { return None };
                topic = Some(t);
            }
            "partition" => {
                first(partition.is_some())?;
                let Token::Int(p) = token else { return None };
                partition = Some(i32::try_from(p).ok()?);
            }
            "offset" => {
                first(offset.is_some())?;
                offset = Some(match token {
                    Token::Int(o) => Some(o),
                    Token::Null => None,
                    _ => return None,
                });
            }
            "ts" => {
                first(ts.is_some())?;
                let Token::Int(t) = token else { return None };
                ts = Some(t);
            }
            _ => return None,
        }
        Some(())
    })?;
    Some(RawRecord {
        topic: Cow::Borrowed(topic?),
        partition: partition?,
        offset: offset.flatten(),
        ts: ts?,
        key: key.flatten().map(Cow::Owned),
        payload: payload.flatten().map(Cow::Owned),
    })
}
