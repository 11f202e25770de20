//! `JSON_QUERY(s, path)`: the object or array at `path` as JSON text,
//! written as Flink 2.3 writes it (checked on real runs, the
//! `json_query_*` compat cases): Jackson's compact form, an object's
//! members sorted by name (Java's `String` order, UTF-16 code units; of
//! two members with one name the last is kept), numbers as Java's
//! `BigDecimal` prints their literal (`1.50`, `1E+10`, `0` for `-0`),
//! strings with `"`, `\` and the control characters escaped (`\t`, `\n`,
//! `\r`, `\b`, `\f`, else `\u00XX`) and everything else as it is.
//!
//! Flink's defaults apply: `WITHOUT ARRAY WRAPPER`, `NULL ON EMPTY`, `NULL
//! ON ERROR`. A scalar there (a string, number, boolean or null) is an
//! error without a wrapper, so NULL; a missing value or text that does not
//! parse is NULL too.

use std::fmt::Write as _;

/// A JSON value read from the text, numbers kept as their literal.
enum Json {
    Null,
    Bool(bool),
    Number(String),
    Text(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// The JSON text `raw` (an object or array) as Flink's JSON_QUERY writes
/// it; `None` when it is not an object or array or does not parse.
pub(crate) fn query_text(raw: &str) -> Option<String> {
    let mut reader = Reader {
        bytes: raw.as_bytes(),
        at: 0,
    };
    let value = reader.value()?;
    reader.blank();
    if reader.at != raw.len() {
        return None;
    }
    if !matches!(value, Json::Array(_) | Json::Object(_)) {
        return None;
    }
    let mut out = String::with_capacity(raw.len());
    write(&value, &mut out)?;
    Some(out)
}

/// Writes `v`; `None` when a number in it is not one Java reads.
fn write(v: &Json, out: &mut String) -> Option<()> {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(&number_text(n)?),
        Json::Text(s) => quote(s, out),
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out)?;
            }
            out.push(']');
        }
        Json::Object(members) => {
            // Sorted by name in Java's order (stable: a name's members in
            // their order); the last of a name wins.
            let mut sorted: Vec<&(String, Json)> = members.iter().collect();
            sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            let mut last: Vec<&(String, Json)> = Vec::with_capacity(sorted.len());
            for m in sorted {
                match last.last_mut() {
                    Some(prev) if prev.0 == m.0 => *prev = m,
                    _ => last.push(m),
                }
            }
            let sorted = last;
            out.push('{');
            for (i, (name, value)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                quote(name, out);
                out.push(':');
                write(value, out)?;
            }
            out.push('}');
        }
    }
    Some(())
}

/// A string as Jackson writes it.
fn quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A JSON number's literal as Java prints what Jackson reads from it: an
/// integer as its digits (`-0` is `0`), anything with a fraction or an
/// exponent as `BigDecimal.toString` does (`1.50`, `1E+2`, `0.0`).
/// `None` where Java's `BigDecimal` cannot hold the number (an exponent
/// past an `int`), which Flink reads as an error: NULL.
pub(crate) fn number_text(raw: &str) -> Option<String> {
    let (negative, body) = match raw.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, raw.strip_prefix('+').unwrap_or(raw)),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if frac.is_empty() && !body.contains(['.', 'e', 'E']) {
        let digits = int.trim_start_matches('0');
        return Some(match (digits.is_empty(), negative) {
            (true, _) => "0".into(),
            (false, true) => format!("-{digits}"),
            (false, false) => digits.to_string(),
        });
    }
    // The unscaled digits and the scale, as BigDecimal holds them.
    let joined = format!("{int}{frac}");
    let trimmed = joined.trim_start_matches('0');
    let digits = if trimmed.is_empty() { "0" } else { trimmed };
    let scale = (frac.len() as i64).checked_sub(exponent)?;
    if i32::try_from(scale).is_err() {
        return None;
    }
    let adjusted = (digits.len() as i64 - 1).checked_sub(scale)?;
    let sign = if negative && digits != "0" { "-" } else { "" };
    if scale >= 0 && adjusted >= -6 {
        // Plain notation with `scale` decimals.
        let scale = scale as usize;
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (i, f) = padded.split_at(padded.len() - scale);
        return Some(match f.is_empty() {
            true => format!("{sign}{i}"),
            false => format!("{sign}{i}.{f}"),
        });
    }
    // Scientific notation: one digit before the point.
    let (first, rest) = digits.split_at(1);
    let point = if rest.is_empty() {
        String::new()
    } else {
        format!(".{rest}")
    };
    let e = if adjusted >= 0 {
        format!("+{adjusted}")
    } else {
        adjusted.to_string()
    };
    Some(format!("{sign}{first}{point}E{e}"))
}

/// A reader of JSON text (nesting is bounded before it is called: the
/// caller checks [`lowwater_core::text::nests_deeper`]).
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn blank(&mut self) {
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.blank();
        if self.bytes.get(self.at) == Some(&b) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn literal(&mut self, word: &str) -> bool {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Option<Json> {
        self.blank();
        match *self.bytes.get(self.at)? {
            b'{' => {
                self.at += 1;
                let mut members = Vec::new();
                if self.eat(b'}') {
                    return Some(Json::Object(members));
                }
                loop {
                    self.blank();
                    let name = self.text()?;
                    if !self.eat(b':') {
                        return None;
                    }
                    members.push((name, self.value()?));
                    if self.eat(b'}') {
                        return Some(Json::Object(members));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Some(Json::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    if self.eat(b']') {
                        return Some(Json::Array(items));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'"' => self.text().map(Json::Text),
            b't' => self.literal("true").then_some(Json::Bool(true)),
            b'f' => self.literal("false").then_some(Json::Bool(false)),
            b'n' => self.literal("null").then_some(Json::Null),
            b'-' | b'0'..=b'9' => {
                let start = self.at;
                while self
                    .bytes
                    .get(self.at)
                    .is_some_and(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                {
                    self.at += 1;
                }
                let n = std::str::from_utf8(&self.bytes[start..self.at]).ok()?;
                valid_number(n).then(|| Json::Number(n.to_string()))
            }
            _ => None,
        }
    }

    /// A string (the reader at its opening quote), its escapes decoded.
    fn text(&mut self) -> Option<String> {
        if self.bytes.get(self.at) != Some(&b'"') {
            return None;
        }
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            match b {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let e = *self.bytes.get(self.at)?;
                    self.at += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let high = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&high) {
                                // A surrogate pair: the low half follows.
                                if !(self.literal("\\u")) {
                                    return None;
                                }
                                let low = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&low) {
                                    return None;
                                }
                                0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                high
                            };
                            char::from_u32(code)?
                        }
                        _ => return None,
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                b if b < 0x20 => return None,
                b => out.push(b),
            }
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes.get(self.at..self.at + 4)?;
        self.at += 4;
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    }
}

/// Whether `n` is a JSON number literal.
fn valid_number(n: &str) -> bool {
    let b = n.strip_prefix('-').unwrap_or(n).as_bytes();
    let int_end = b
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(b.len());
    if int_end == 0 || (b[0] == b'0' && int_end > 1) {
        return false;
    }
    let mut rest = &b[int_end..];
    if let Some(r) = rest.strip_prefix(b".") {
        let d = r.iter().take_while(|c| c.is_ascii_digit()).count();
        if d == 0 {
            return false;
        }
        rest = &r[d..];
    }
    if let Some(r) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let r = r
            .strip_prefix(b"+")
            .or_else(|| r.strip_prefix(b"-"))
            .unwrap_or(r);
        let d = r.iter().take_while(|c| c.is_ascii_digit()).count();
        return d > 0 && d == r.len();
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::query_text;

    #[test]
    fn objects_sorted_numbers_as_java_prints_them() {
        assert_eq!(
            query_text(r#"{"z":1,"a":{"y":1.50,"b":-0,"c":-0.0,"d":1e10,"e":3.0e2}}"#).as_deref(),
            Some(r#"{"a":{"b":0,"c":0.0,"d":1E+10,"e":3.0E+2,"y":1.50},"z":1}"#)
        );
        assert_eq!(
            query_text(" [ 1 , [ ] , { } , null , true ] ").as_deref(),
            Some("[1,[],{},null,true]")
        );
    }

    #[test]
    fn strings_escaped_as_jackson_does() {
        assert_eq!(
            query_text(r#"["q\"uote","a\/b","x\ty","\u00fc\u20ac","\u0001","\ud83d\ude00"]"#)
                .as_deref(),
            Some("[\"q\\\"uote\",\"a/b\",\"x\\ty\",\"ü€\",\"\\u0001\",\"😀\"]")
        );
    }

    #[test]
    fn the_last_member_of_a_name_and_java_string_order() {
        assert_eq!(
            query_text(r#"{"b":1,"a":2,"b":3}"#).as_deref(),
            Some(r#"{"a":2,"b":3}"#)
        );
        // U+FF21 sorts after U+1F600 in UTF-16 (a surrogate is 0xD83D).
        assert_eq!(
            query_text("{\"\u{ff21}\":1,\"\u{1f600}\":2}").as_deref(),
            Some("{\"\u{1f600}\":2,\"\u{ff21}\":1}")
        );
    }

    #[test]
    fn numbers_java_cannot_hold_are_none() {
        assert_eq!(query_text("[1e99999999999999999999]"), None);
        assert_eq!(query_text("[1e-9223372036854775808]"), None);
        assert_eq!(query_text("[1.5e-2147483649]"), None);
        assert_eq!(query_text("[1e5]").as_deref(), Some("[1E+5]"));
    }

    #[test]
    fn scalars_and_broken_text_are_none() {
        for raw in [
            "1",
            "\"s\"",
            "null",
            "true",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "[01]",
            "[1] x",
        ] {
            assert_eq!(query_text(raw), None, "{raw}");
        }
    }
}
