//! The fast path of the JSON decoder and of topic dumps: one pass over a
//! flat object (no nested object or array, no escape sequence in a name),
//! handing each field's name and value to the caller without building
//! anything. A string value with escapes is handed over still escaped (the
//! JSON decoder leaves it to the general path; a dump's payload is one).
//!
//! It is deliberately narrow. Anything it does not fully check gives up
//! (`None`) and the decoder starts again on its general path (sonic-rs),
//! so a record it accepts is one the general path accepts too, with the
//! same values: a record is never decoded differently for being fast.
//! Strictly valid JSON only: whitespace is JSON's four characters, numbers
//! follow JSON's grammar, strings hold no control character.

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
pub(crate) fn scan<'a>(
    text: &'a str,
    mut field: impl FnMut(&'a str, Token<'a>) -> Option<()>,
) -> Option<()> {
    let mut s = Scanner {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
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
            field(name, s.value()?)?;
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

/// The bytes that end a string's plain run: the closing quote, a
/// backslash (an escape) and control characters.
const STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The length of `bytes`' run before its first quote, backslash or
/// control character (`None`: there is none). Eight bytes at a time: a
/// byte is flagged when it equals `"` or `\\`, or is below 0x20; the
/// lowest flag is exact (a false one can only follow a true one), and
/// bytes are read little-endian, so it is the first such byte.
#[inline(never)]
pub(crate) fn plain_run(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let mut at = 0;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut word = [0; 8];
        word.copy_from_slice(w);
        let v = u64::from_le_bytes(word);
        let stop = zero(v ^ (ONES * u64::from(b'"')))
            | zero(v ^ (ONES * u64::from(b'\\')))
            | (v.wrapping_sub(ONES * 0x20) & !v & HIGH);
        if stop != 0 {
            return Some(at + stop.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let tail = words.remainder();
    tail.iter()
        .position(|&b| STRING_STOP[usize::from(b)])
        .map(|i| at + i)
}

/// The text of an [`Token::Escaped`] string, unescaped (see
/// [`unescape_bytes`]).
pub(crate) fn unescape(text: &str) -> String {
    // The unescaped bytes are UTF-8: escapes of ASCII characters became
    // those characters, the runs between them are copied whole.
    String::from_utf8(unescape_bytes(text)).unwrap_or_default()
}

/// The bytes of an [`Token::Escaped`] string, unescaped. The scanner
/// checked its escapes: each is one of `\" \\ \/ \b \f \n \r \t`, a
/// backslash and an ASCII character, so the runs between them are whole
/// characters and an escape is replaced byte for byte.
pub(crate) fn unescape_bytes(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut at = 0;
    while let Some(run) = backslash(&b[at..]) {
        out.extend_from_slice(&b[at..at + run]);
        let Some(&c) = b.get(at + run + 1) else {
            break;
        };
        out.push(match c {
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            // `"`, `\\` and `/` stand for themselves.
            other => other,
        });
        at += run + 2;
    }
    out.extend_from_slice(&b[at.min(b.len())..]);
    out
}

/// Where the first backslash of `bytes` is, eight bytes at a time (an
/// escaped payload's runs are short: a call to memchr per run costs more
/// than the run).
#[inline]
fn backslash(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut at = 0;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut word = [0; 8];
        word.copy_from_slice(w);
        let v = u64::from_le_bytes(word) ^ (ONES * u64::from(b'\\'));
        // The lowest flag is exact (as in `plain_run`).
        let hit = v.wrapping_sub(ONES) & !v & HIGH;
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

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
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
    /// and whether it holds escape sequences (each a valid one).
    fn string(&mut self) -> Option<(&'a str, bool)> {
        self.expect(b'"')?;
        let start = self.at;
        let mut escaped = false;
        // Plain runs (most strings are one) up to the closing quote, an
        // escape between two, giving up at a control character or an
        // invalid escape (a string of escaped JSON, as a dump's payload,
        // is many short runs: each is skipped eight bytes at a time).
        loop {
            self.at += plain_run(self.bytes.get(self.at..)?)?;
            match self.bytes[self.at] {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    // `\u` (with its surrogate pairs, lone or not) is the
                    // general path's.
                    match self.bytes.get(self.at + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 2,
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        let end = self.at;
        self.at += 1;
        // Quotes are ASCII: both ends lie on character boundaries.
        Some((self.text.get(start..end)?, escaped))
    }

    fn value(&mut self) -> Option<Token<'a>> {
        match self.peek()? {
            b'"' => self.string().map(|(text, escaped)| match escaped {
                false => Token::Str(text),
                true => Token::Escaped(text),
            }),
            b'-' | b'0'..=b'9' => self.number(),
            b'n' => self.literal("null", Token::Null),
            b't' => self.literal("true", Token::Other),
            b'f' => self.literal("false", Token::Other),
            _ => None,
        }
    }

    fn literal(&mut self, word: &str, token: Token<'a>) -> Option<Token<'a>> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word.as_bytes()).then(|| {
            self.at = end;
            token
        })
    }

    /// JSON's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> Option<Token<'a>> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.next()? {
            b'0' => {}
            b'1'..=b'9' => self.digits(),
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
        let text = self.text.get(start..self.at)?;
        // sonic-rs reads `-0` as a double (-0.0), as Jackson does.
        Some(match text.parse::<i64>() {
            Ok(i) if integer && text != "-0" => Token::Int(i),
            _ => Token::Other,
        })
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

    use proptest::prelude::*;

    proptest! {
        /// Eight bytes at a time finds what a byte at a time finds, on
        /// bytes of every value (multi-byte characters included).
        #[test]
        fn plain_run_stops_where_a_byte_scan_does(bytes in prop::collection::vec(any::<u8>(), 0..40), plain in 0usize..30) {
            // Often a long plain run first, so that the stop is past a word.
            let mut v: Vec<u8> = std::iter::repeat_n(b'a', plain).collect();
            v.extend(bytes);
            let expected = v.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            prop_assert_eq!(plain_run(&v), expected);
        }
    }
}
