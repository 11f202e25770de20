//! The fast path of the JSON decoder and of topic dumps: one pass over a
//! flat object (no nested object, no array but one of scalars to skip, no
//! escape sequence in a name), handing each field's name and value to the
//! caller without building anything. A string value with escapes is
//! handed over still escaped (the JSON decoder unescapes it), or unescaped
//! into bytes of its own as it is scanned (a dump's key and payload). A
//! dump's JSON payload kept as its line writes it (quoted text, see
//! [`crate::payload`]) is read as it stands by [`scan_quoted`], its `\"`
//! taken for quotes.
//!
//! It is deliberately narrow. Anything it does not fully check gives up
//! (`None`) and the decoder starts again on its general path (sonic-rs),
//! so a record it accepts is one the general path accepts too, with the
//! same values: a record is never decoded differently for being fast.
//! Strictly valid JSON only: whitespace is JSON's four characters, numbers
//! follow JSON's grammar, strings hold no control character.

use crate::word::{control, zero_bytes, ONES};

/// A field's value, as far as the fast path converts it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Token<'a> {
    /// A string without escapes: its text.
    Str(&'a str),
    /// A string with escape sequences, all of them one of `\" \\ \/ \b \f
    /// \n \r \t`: its text between the quotes, still escaped.
    Escaped(&'a str),
    /// An integer literal that fits in 64 bits.
    Int(i64),
    /// `null`.
    Null,
    /// Any other valid scalar (a fraction or exponent, a larger integer,
    /// `true`, `false`): the general path converts it.
    Other,
}

/// Calls `field` with every (name, value) of the flat JSON object `text`,
/// in order. `None`: `text` is not such an object, or `field` gave up.
#[inline]
pub(crate) fn scan<'a>(
    text: &'a str,
    mut field: impl FnMut(&'a str, Token<'a>) -> Option<()>,
) -> Option<()> {
    scan_with(text, |name, s| field(name, s.value()?))
}

/// [`scan`] of a flat JSON object written inside a JSON string whose only
/// escape sequences are `\"` (a dump's payload as it stands in its line,
/// see [`crate::payload`]): each `\"` is read as a quote, and a string in
/// it holding an escape sequence of its own (written `\\` and more)
/// gives up, as does anything else [`scan`] gives up on. The same fields
/// and tokens as [`scan`] of the text with each `\"` made `"`.
#[inline]
pub(crate) fn scan_quoted<'a>(
    text: &'a str,
    mut field: impl FnMut(&'a str, Token<'a>) -> Option<()>,
) -> Option<()> {
    let s = Scanner::<'a, true> {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    scan_in(s, |name, s| field(name, s.value()?))
}

/// [`scan`], the value left to `field` to read with the scanner it is
/// given (one of [`Scanner::value`], [`Scanner::bytes`], [`Scanner::skip`]), so that a value
/// can be read the way its caller needs it.
#[inline]
pub(crate) fn scan_with<'a>(
    text: &'a str,
    field: impl FnMut(&'a str, &mut Scanner<'a>) -> Option<()>,
) -> Option<()> {
    scan_in(Scanner::at(text, 0), field)
}

#[inline(always)]
fn scan_in<'a, const QUOTED: bool>(
    mut s: Scanner<'a, QUOTED>,
    mut field: impl FnMut(&'a str, &mut Scanner<'a, QUOTED>) -> Option<()>,
) -> Option<()> {
    s.ws();
    s.expect(b'{')?;
    s.ws();
    if s.peek() == Some(b'}') {
        s.at += 1;
    } else {
        loop {
            // A name with escapes: the general path's.
            let (name, false) = s.string()? else {
                return None;
            };
            s.ws();
            s.expect(b':')?;
            s.ws();
            let before = s.at;
            field(name, &mut s)?;
            // A caller that read no value gives up.
            if s.at == before {
                return None;
            }
            s.ws();
            match s.next()? {
                b',' => s.ws(),
                b'}' => break,
                _ => return None,
            }
        }
    }
    s.ws();
    (s.at == s.bytes.len()).then_some(())
}

/// Per byte of the word `v`, its high bit set where a string stops being
/// plain: a quote, a backslash, a control character (below 0x20). Exact
/// for every byte, so that all of a word's stops can be taken in turn.
#[inline(always)]
fn stops(v: u64) -> u64 {
    zero_bytes(v ^ (ONES * u64::from(b'"')))
        | zero_bytes(v ^ (ONES * u64::from(b'\\')))
        | control(v)
}

/// The end of a string of quoted text (see [`scan_quoted`]) whose text
/// starts at `bytes[from]`: the index of the `\"` that closes it. `None`
/// when its first stop is anything else (a quote, another escape, a
/// control character) or there is none.
#[inline]
fn quoted_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    let j = loop {
        let Some(w) = bytes.get(i..i + 8) else {
            let rest = bytes.get(i..)?;
            break i + rest
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
        };
        let mut word = [0; 8];
        word.copy_from_slice(w);
        let stop = stops(u64::from_le_bytes(word));
        if stop != 0 {
            break i + stop.trailing_zeros() as usize / 8;
        }
        i += 8;
    };
    (bytes[j] == b'\\' && bytes.get(j + 1) == Some(&b'"')).then_some(j)
}

/// Whether `c` may follow a backslash on the fast path (`\u`, with its
/// surrogate pairs, lone or not, is the general path's).
#[inline(always)]
fn simple_escape(c: u8) -> bool {
    matches!(c, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
}

/// The end of the string whose text starts at `bytes[from]`: the index of
/// its closing quote, and whether it holds escape sequences (each a
/// simple one). `None`: a control character, another escape, no end.
///
/// Eight bytes at a time, and every stop of a word taken in the word: a
/// string of escaped JSON has an escape every few bytes, so going back to
/// the byte loop, or to a call, per run would cost more than the runs.
#[inline]
pub(crate) fn string_end(bytes: &[u8], from: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    let mut i = from;
    loop {
        let Some(w) = bytes.get(i..i + 8) else {
            // Fewer than eight bytes left: one at a time.
            match *bytes.get(i)? {
                b'"' => return Some((i, escaped)),
                b'\\' if simple_escape(*bytes.get(i + 1)?) => {
                    escaped = true;
                    i += 2;
                }
                c if c < 0x20 || c == b'\\' => return None,
                _ => i += 1,
            }
            continue;
        };
        let mut word = [0; 8];
        word.copy_from_slice(w);
        let mut stop = stops(u64::from_le_bytes(word));
        let mut next = i + 8;
        while stop != 0 {
            let j = i + stop.trailing_zeros() as usize / 8;
            match bytes[j] {
                b'"' => return Some((j, escaped)),
                b'\\' if simple_escape(*bytes.get(j + 1)?) => {
                    escaped = true;
                    // The escaped character is text, not a stop.
                    let past = j + 2 - i;
                    if past >= 8 {
                        next = j + 2;
                        stop = 0;
                    } else {
                        stop &= !0u64 << (8 * past);
                    }
                }
                _ => return None,
            }
        }
        i = next;
    }
}

/// The text of an [`Token::Escaped`] string, unescaped (see
/// [`unescape_bytes`]).
pub(crate) fn unescape(text: &str) -> String {
    // The unescaped bytes are UTF-8: escapes of ASCII characters became
    // those characters, the runs between them are copied whole (were it
    // otherwise, the text would show replacement characters, not vanish).
    match String::from_utf8(unescape_bytes(text)) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// The bytes of an [`Token::Escaped`] string, unescaped. The scanner
/// checked its escapes: each is one of `\" \\ \/ \b \f \n \r \t`, a
/// backslash and an ASCII character, so the runs between them are whole
/// characters and an escape is replaced byte for byte.
fn unescape_bytes(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut at = 0;
    while let Some(run) = backslash(&b[at..]) {
        out.extend_from_slice(&b[at..at + run]);
        let Some(&c) = b.get(at + run + 1) else {
            break;
        };
        // The scanner let only simple escapes through.
        out.push(unescaped(c).unwrap_or(c));
        at += run + 2;
    }
    out.extend_from_slice(&b[at.min(b.len())..]);
    out
}

/// The string whose text starts at `bytes[from]`, unescaped onto `out` as
/// it is scanned: the index of its closing quote. The same strings as
/// [`string_end`] (`None`: a control character, a `\u` or other escape,
/// no end), read in one pass instead of one to find the end and one to
/// unescape. A word without a stop is copied whole; at a stop, the whole
/// word is written and cut back to the bytes before it, so that a run is
/// never copied by a call.
pub(crate) fn unescape_into(bytes: &[u8], from: usize, out: &mut Vec<u8>) -> Option<usize> {
    let mut i = from;
    loop {
        let Some(w) = bytes.get(i..i + 8) else {
            // Fewer than eight bytes left: one at a time.
            match *bytes.get(i)? {
                b'"' => return Some(i),
                b'\\' => {
                    out.push(unescaped(*bytes.get(i + 1)?)?);
                    i += 2;
                }
                c if c < 0x20 => return None,
                c => {
                    out.push(c);
                    i += 1;
                }
            }
            continue;
        };
        let mut word = [0; 8];
        word.copy_from_slice(w);
        let stop = stops(u64::from_le_bytes(word));
        let len = out.len();
        out.extend_from_slice(&word);
        if stop == 0 {
            i += 8;
            continue;
        }
        let run = stop.trailing_zeros() as usize / 8;
        out.truncate(len + run);
        let j = i + run;
        match bytes[j] {
            b'"' => return Some(j),
            b'\\' => {
                out.push(unescaped(*bytes.get(j + 1)?)?);
                i = j + 2;
            }
            _ => return None,
        }
    }
}

/// The byte a simple escape (`\` and `c`) stands for; `None` for any
/// other escape (`\u` is the general path's).
#[inline(always)]
fn unescaped(c: u8) -> Option<u8> {
    Some(match c {
        b'b' => 0x08,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'"' | b'\\' | b'/' => c,
        _ => return None,
    })
}

/// Where the first backslash of `bytes` is, eight bytes at a time (an
/// escaped payload's runs are short: a call to memchr per run costs more
/// than the run).
#[inline]
fn backslash(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut word = [0; 8];
        word.copy_from_slice(w);
        let hit = zero_bytes(u64::from_le_bytes(word) ^ (ONES * u64::from(b'\\')));
        if hit != 0 {
            return Some(at + hit.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&c| c == b'\\')
        .map(|i| at + i)
}

/// An integer as JSON writes one, read as the general path reads it as an
/// integer: an optional minus and digits without leading zeros, that fit
/// in 64 bits; not `+1`, `01`, `1.0` or `-0` (which sonic-rs, as Jackson,
/// reads as a double, -0.0). One pass over the digits.
pub(crate) fn json_int(s: &str) -> Option<i64> {
    let (negative, digits) = match s.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        all => (false, all),
    };
    match digits {
        [] => return None,
        [b'0'] if negative => return None,
        [b'0', _, ..] => return None,
        _ => {}
    }
    // Summed below zero, so that i64::MIN fits.
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_sub(i64::from(d - b'0'))?;
    }
    if negative {
        Some(v)
    } else {
        v.checked_neg()
    }
}

/// A flat object's reader, at a value when [`scan_with`] hands it over.
///
/// `QUOTED`: the object is written inside a JSON string whose only escapes
/// are `\"` (see [`scan_quoted`]), so its strings open and close with
/// `\"` and hold no escape.
pub(crate) struct Scanner<'a, const QUOTED: bool = false> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
    /// A reader of `text` at `at`, for a caller that found the value's
    /// place by other means (a dump line matched by its fixed text).
    #[inline]
    pub(crate) fn at(text: &'a str, at: usize) -> Self {
        Scanner {
            text,
            bytes: text.as_bytes(),
            at,
        }
    }

    /// A key's or payload's bytes: a string unescaped into bytes of its
    /// own (`Some(None)`: null). `None`: another value, or a string the
    /// fast path does not read.
    ///
    /// With `last` (a dump's payload, its line's last field but for a few
    /// bytes) the bytes are sized for the rest of the text and unescaped in
    /// one pass, given back only if more than a quarter went unused;
    /// otherwise (a key, before the payload) the string's end is found
    /// first and the bytes sized to it.
    #[inline(always)]
    pub(crate) fn bytes(&mut self, last: bool) -> Option<Option<Vec<u8>>> {
        match self.peek()? {
            b'n' => self.literal("null", None),
            b'"' => {
                let from = self.at + 1;
                let room = match last {
                    true => self.bytes.len() - from,
                    false => string_end(self.bytes, from)?.0 - from,
                };
                let mut out = Vec::with_capacity(room);
                let end = unescape_into(self.bytes, from, &mut out)?;
                self.at = end + 1;
                if out.capacity() - out.len() > out.len() / 4 + 64 {
                    out.shrink_to_fit();
                }
                Some(Some(out))
            }
            _ => None,
        }
    }
}

impl<'a, const QUOTED: bool> Scanner<'a, QUOTED> {
    /// Where the reader is: just after the value it last read.
    #[inline]
    pub(crate) fn position(&self) -> usize {
        self.at
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    fn expect(&mut self, b: u8) -> Option<()> {
        (self.next()? == b).then_some(())
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// A string without control characters: its text between the quotes,
    /// and whether it holds escape sequences (each a valid one). In quoted
    /// text, a string between `\"` and `\"` that holds none.
    fn string(&mut self) -> Option<(&'a str, bool)> {
        if QUOTED {
            self.expect(b'\\')?;
            self.expect(b'"')?;
            let start = self.at;
            let end = quoted_end(self.bytes, start)?;
            self.at = end + 2;
            return Some((self.text.get(start..end)?, false));
        }
        self.expect(b'"')?;
        let start = self.at;
        let (end, escaped) = string_end(self.bytes, start)?;
        self.at = end + 1;
        // Quotes are ASCII: both ends lie on character boundaries.
        Some((self.text.get(start..end)?, escaped))
    }

    /// Skips the value at the scanner: a scalar, or an array of scalars
    /// (kcat's `headers`: names and values). `None`: anything else, and a
    /// number other than a 64-bit integer (the general path reads one into
    /// a double and refuses it if it overflows, so it decides).
    pub(crate) fn skip(&mut self) -> Option<()> {
        if self.peek() != Some(b'[') {
            return self.plain_scalar();
        }
        self.at += 1;
        self.ws();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Some(());
        }
        loop {
            self.plain_scalar()?;
            self.ws();
            match self.next()? {
                b',' => self.ws(),
                b']' => return Some(()),
                _ => return None,
            }
        }
    }

    /// A scalar read and dropped; `None` for a number that is not a 64-bit
    /// integer (see [`Scanner::skip`]).
    pub(crate) fn plain_scalar(&mut self) -> Option<()> {
        let number = matches!(self.peek()?, b'-' | b'0'..=b'9');
        match self.value()? {
            Token::Other if number => None,
            _ => Some(()),
        }
    }

    /// The value at the scanner, as a [`Token`].
    pub(crate) fn value(&mut self) -> Option<Token<'a>> {
        match self.peek()? {
            b'"' if !QUOTED => self.string().map(|(text, escaped)| match escaped {
                false => Token::Str(text),
                true => Token::Escaped(text),
            }),
            b'\\' if QUOTED => self.string().map(|(text, _)| Token::Str(text)),
            b'-' | b'0'..=b'9' => self.number(),
            b'n' => self.literal("null", Token::Null),
            b't' => self.literal("true", Token::Other),
            b'f' => self.literal("false", Token::Other),
            _ => None,
        }
    }

    fn literal<T>(&mut self, word: &str, token: T) -> Option<T> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word.as_bytes()).then(|| {
            self.at = end;
            token
        })
    }

    /// JSON's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`,
    /// an integer's value read as its digits are (as [`json_int`] reads it).
    fn number(&mut self) -> Option<Token<'a>> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        // Summed below zero, so that i64::MIN fits; `None` once it does not.
        let mut v = Some(0i64);
        match self.next()? {
            b'0' => {}
            d @ b'1'..=b'9' => {
                v = Some(-i64::from(d - b'0'));
                while let Some(d @ b'0'..=b'9') = self.peek() {
                    self.at += 1;
                    v = v.and_then(|v| v.checked_mul(10)?.checked_sub(i64::from(d - b'0')));
                }
            }
            _ => return None,
        }
        let integer = !matches!(self.peek(), Some(b'.' | b'e' | b'E'));
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.some_digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.some_digits()?;
        }
        // `-0` is a double to the general path, as a fraction is.
        let int = match (integer, negative, v) {
            (false, _, _) | (_, true, Some(0)) => None,
            (_, true, v) => v,
            (_, false, v) => v.and_then(i64::checked_neg),
        };
        Some(int.map_or(Token::Other, Token::Int))
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
    }

    fn some_digits(&mut self) -> Option<()> {
        let start = self.at;
        self.digits();
        (self.at > start).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str) -> Option<Vec<(String, Token<'_>)>> {
        let mut out = Vec::new();
        scan(text, |n, t| {
            out.push((n.to_string(), t));
            Some(())
        })?;
        Some(out)
    }

    #[test]
    fn reads_flat_objects() {
        let got = fields(r#" { "a" : "x y", "b":-12,"c":null, "d":1.5e3, "e":true ,"f":false}  "#);
        let got = got.expect("a flat object");
        assert_eq!(got[0], ("a".into(), Token::Str("x y")));
        assert_eq!(got[1], ("b".into(), Token::Int(-12)));
        assert_eq!(got[2], ("c".into(), Token::Null));
        assert_eq!(got[3], ("d".into(), Token::Other));
        assert_eq!(got[4], ("e".into(), Token::Other));
        assert_eq!(got[5], ("f".into(), Token::Other));
        assert_eq!(fields("{}"), Some(vec![]));
        assert_eq!(
            fields(r#"{"n":99999999999999999999,"z":-0}"#),
            Some(vec![("n".into(), Token::Other), ("z".into(), Token::Other)])
        );
        assert_eq!(
            fields(r#"{"é":"ü"}"#),
            Some(vec![("é".into(), Token::Str("ü"))])
        );
    }

    #[test]
    fn gives_up_on_anything_else() {
        for text in [
            r#"{"a":"\u0041"}"#,
            r#"{"a":"\x"}"#,
            r#"{"a\n":1}"#,
            "{\"a\":\"tab\there\"}",
            r#"{"a":{"b":1}}"#,
            r#"{"a":[1]}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":-}"#,
            r#"{"a":1e}"#,
            r#"{"a":+1}"#,
            r#"{"a":nul}"#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{"a":1} x"#,
            r#"{"a":1"#,
            r#"{"a":"x"#,
            "[1]",
            "",
            "\u{feff}{}",
            "{\"a\":1}\u{a0}",
        ] {
            assert_eq!(fields(text), None, "{text:?}");
        }
        // A value with simple escapes is handed over, still escaped.
        assert_eq!(
            fields(r#"{"a":"x\"y\\z\n"}"#),
            Some(vec![("a".into(), Token::Escaped(r#"x\"y\\z\n"#))])
        );
        // The caller giving up stops the scan.
        assert_eq!(
            scan(r#"{"a":1,"b":2}"#, |n, _| (n == "a").then_some(())),
            None
        );
    }

    #[test]
    fn json_int_reads_what_rust_reads_of_json_integers() {
        for text in [
            "0",
            "7",
            "-7",
            "10",
            "9223372036854775807",
            "-9223372036854775808",
            "1757808000000",
        ] {
            assert_eq!(json_int(text), text.parse().ok(), "{text}");
        }
        for text in [
            "",
            "-",
            "-0",
            "01",
            "-01",
            "+1",
            "1.0",
            "1e3",
            " 1",
            "1 ",
            "9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999",
            "1a",
            "--1",
        ] {
            assert_eq!(json_int(text), None, "{text}");
        }
    }

    use proptest::prelude::*;

    proptest! {
        /// Eight bytes at a time ends a string where a byte at a time
        /// does, on bytes of every value (multi-byte characters, every
        /// escape, escapes across words included).
        #[test]
        fn string_end_is_where_a_byte_scan_ends(
            bytes in prop::collection::vec(prop_oneof![
                4 => Just(b'a'), 2 => Just(b'\\'), 2 => Just(b'"'), 1 => Just(b'n'),
                1 => Just(b'u'), 1 => any::<u8>(),
            ], 0..60),
            plain in 0usize..20,
        ) {
            let mut v: Vec<u8> = std::iter::repeat_n(b'a', plain).collect();
            v.extend(bytes);
            let mut expected = None;
            let (mut i, mut escaped) = (0, false);
            while let Some(&c) = v.get(i) {
                match c {
                    b'"' => { expected = Some((i, escaped)); break; }
                    b'\\' => match v.get(i + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            escaped = true;
                            i += 2;
                        }
                        _ => break,
                    },
                    c if c < 0x20 => break,
                    _ => i += 1,
                }
            }
            prop_assert_eq!(string_end(&v, 0), expected);
        }

        /// Unescaping as it scans ends where [`string_end`] ends and
        /// gives what [`unescape_bytes`] gives of the text it found.
        #[test]
        fn unescape_into_is_string_end_then_unescape(
            pieces in prop::collection::vec(prop_oneof![
                6 => "[a-zé]{1,9}",
                4 => r#"\\[\\"/bfnrt]"#,
                1 => r#"\\[ux]"#,
                1 => Just("\"".to_string()),
                1 => Just("\u{1}".to_string()),
            ], 0..12),
            plain in 0usize..20,
        ) {
            let text = format!("{}{}", "a".repeat(plain), pieces.concat());
            let b = text.as_bytes();
            let mut out = vec![b'x'];
            let got = unescape_into(b, 0, &mut out);
            prop_assert_eq!(got, string_end(b, 0).map(|(end, _)| end));
            if let Some(end) = got {
                let mut want = vec![b'x'];
                want.extend(unescape_bytes(&text[..end]));
                prop_assert_eq!(out, want);
            }
        }

        /// A number's token is what [`json_int`] reads of its text, or
        /// `Other` where that reads none.
        #[test]
        fn numbers_read_as_json_int_reads_them(
            text in prop_oneof![
                "-?(0|[1-9][0-9]{0,20})",
                "-?[0-9]{1,3}(\\.[0-9]{1,3})?([eE][+-]?[0-9]{1,2})?",
                any::<i64>().prop_map(|i| i.to_string()),
            ],
        ) {
            let object = format!("{{\"n\":{text}}}");
            let got = fields(&object).map(|f| f[0].1);
            let want = match () {
                // Not JSON (a leading zero): the scan gives up.
                _ if text.trim_start_matches('-').starts_with('0')
                    && text.trim_start_matches('-').len() > 1
                    && text.trim_start_matches('-').as_bytes()[1].is_ascii_digit() => None,
                _ => Some(json_int(&text).map_or(Token::Other, Token::Int)),
            };
            prop_assert_eq!(got, want, "{}", text);
        }
    }
}
