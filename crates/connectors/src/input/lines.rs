//! A dump's lines, one at a time: UTF-8 checked, line endings and blank
//! lines dropped, line numbers and bytes read counted. Both passes over a
//! dump read it with this: the scan of its record headers and the parse
//! of its records.
//!
//! The file is read in pieces of whole lines ([`WholeLines`]), each
//! checked as UTF-8 at once, and its lines are handed out as slices of it:
//! a line is neither copied nor checked on its own (a dump line is a few
//! hundred bytes, so a copy and a check per line cost as much as finding
//! it).

use std::fs::File;
use std::path::{Path, PathBuf};

use super::InputError;
use crate::lines::WholeLines;

pub(crate) struct Lines {
    path: PathBuf,
    whole: WholeLines,
    /// Whole lines read and checked (each ending with its newline, but
    /// the file's last line may have none).
    text: String,
    /// Where the next line starts in `text`.
    next: usize,
    /// The line last returned: its start and end in `text`.
    span: (usize, usize),
    /// Whether the next line to read (the start of what `whole` has
    /// left) is not UTF-8.
    bad: bool,
    /// The 1-based number of the line last returned.
    pub(crate) line: usize,
    /// Bytes read so far.
    pub(crate) bytes: u64,
}

impl Lines {
    /// Reads `read`, naming `shown` in errors (a pipe's copy is read).
    pub(crate) fn open_as(read: &Path, shown: &Path) -> Result<Self, InputError> {
        let file = File::open(read).map_err(|source| InputError::Io {
            path: shown.to_path_buf(),
            source,
        })?;
        Ok(Lines {
            path: shown.to_path_buf(),
            whole: WholeLines::new(file),
            text: String::new(),
            next: 0,
            span: (0, 0),
            bad: false,
            line: 0,
            bytes: 0,
        })
    }

    /// An error at the line last returned.
    pub(crate) fn error(&self, column: usize, message: String) -> InputError {
        InputError::Dump {
            path: self.path.clone(),
            line: self.line,
            column,
            message,
        }
    }

    /// Moves to the next non-blank line; `false` at the end.
    pub(crate) fn advance(&mut self) -> Result<bool, InputError> {
        loop {
            if self.next >= self.text.len() {
                if !self.fill()? {
                    return Ok(false);
                }
                continue;
            }
            let from = self.next;
            let bytes = self.text.as_bytes();
            let newline = memchr::memchr(b'\n', &bytes[from..]).map(|i| from + i);
            let mut end = newline.unwrap_or(bytes.len());
            self.next = newline.map_or(end, |n| n + 1);
            self.bytes += (self.next - from) as u64;
            self.line += 1;
            if end > from && bytes[end - 1] == b'\r' {
                end -= 1;
            }
            if !self.text[from..end].trim().is_empty() {
                self.span = (from, end);
                return Ok(true);
            }
        }
    }

    /// The current line, without its line ending.
    pub(crate) fn current(&self) -> &str {
        &self.text[self.span.0..self.span.1]
    }

    /// Replaces the lines, all handed out, with the next whole lines of
    /// the file (at its end, what is left); `false` when there are none.
    fn fill(&mut self) -> Result<bool, InputError> {
        let mut buf = std::mem::take(&mut self.text).into_bytes();
        (self.next, self.span) = (0, (0, 0));
        if self.bad {
            // Reported once; the reader ends there.
            self.line += 1;
            self.bad = false;
            self.whole.end();
            return Err(self.error(
                1,
                "the line is not UTF-8 text; a dump is JSON lines (kcat -J)".to_string(),
            ));
        }
        let more = self.whole.fill(&mut buf).map_err(|source| InputError::Io {
            path: self.path.clone(),
            source,
        })?;
        self.text = match String::from_utf8(buf) {
            Ok(text) => text,
            Err(e) => {
                // The lines before the one that is not UTF-8 are read
                // first; that line is an error when it is reached.
                let valid = e.utf8_error().valid_up_to();
                let mut buf = e.into_bytes();
                let start = memchr::memrchr(b'\n', &buf[..valid]).map_or(0, |i| i + 1);
                self.whole.unread(buf.split_off(start));
                self.bad = true;
                match String::from_utf8(buf) {
                    // It ends before the first byte that is not UTF-8.
                    Ok(valid) => valid,
                    // Cannot happen; if it did, its first line would be
                    // reported as not UTF-8 rather than lost.
                    Err(e) => {
                        self.whole.unread(e.into_bytes());
                        String::new()
                    }
                }
            }
        };
        Ok(more)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8]) -> (Vec<(usize, String)>, Option<InputError>, u64) {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("dump.jsonl");
        std::fs::write(&path, bytes).expect("write");
        let mut lines = Lines::open_as(&path, &path).expect("open");
        let mut got = Vec::new();
        loop {
            match lines.advance() {
                Ok(true) => got.push((lines.line, lines.current().to_string())),
                Ok(false) => return (got, None, lines.bytes),
                Err(e) => return (got, Some(e), lines.bytes),
            }
        }
    }

    /// The lines as `BufRead::lines` splits them, numbered, blank ones left out.
    fn expected(text: &str) -> Vec<(usize, String)> {
        text.split('\n')
            .enumerate()
            .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l).to_string()))
            .filter(|(_, l)| !l.trim().is_empty())
            .collect()
    }

    #[test]
    fn lines_across_reads_are_whole_numbered_and_counted() {
        // Lines of every length around the read size, one far longer than
        // it, CRLF endings, blank and whitespace-only lines, non-ASCII
        // text split by a read, and a last line without its newline.
        let mut text = String::new();
        for i in 0..400 {
            let len = (i * 997) % 700;
            text.push_str(&format!("{i}:{}é", "x".repeat(len)));
            text.push_str(match i % 5 {
                0 => "\r\n",
                1 => "\n \t\n",
                2 => "\n\n",
                _ => "\n",
            });
        }
        text.push_str(&"y".repeat(3 * (1 << 16) + 17));
        text.push_str("\n\u{a0}\u{2028}\nlast without newline");
        let (got, err, bytes) = read_all(text.as_bytes());
        assert!(err.is_none(), "{err:?}");
        assert_eq!(got, expected(&text));
        assert_eq!(bytes, text.len() as u64);
        let (got, err, bytes) = read_all(b"");
        assert!(got.is_empty() && err.is_none() && bytes == 0);
        let (got, _, _) = read_all(b"\n\n  \n");
        assert!(got.is_empty());
    }

    #[test]
    fn a_line_that_is_not_utf8_is_an_error_at_its_number_after_the_lines_before() {
        for before in [3usize, 900, 2_000] {
            let mut bytes = Vec::new();
            for i in 0..before {
                bytes.extend_from_slice(format!("line {i} {}\n", "z".repeat(i % 90)).as_bytes());
            }
            bytes.extend_from_slice(b"bad \xff\xfe line\nafter\n");
            let (got, err, _) = read_all(&bytes);
            assert_eq!(got.len(), before);
            assert_eq!(got.last().map(|l| l.0), Some(before));
            match err {
                Some(InputError::Dump { line, message, .. }) => {
                    assert_eq!(line, before + 1);
                    assert!(message.contains("not UTF-8"), "{message}");
                }
                other => panic!("expected the UTF-8 error, got {other:?}"),
            }
        }
        // A multi-byte character cut by the end of the file.
        let (got, err, _) = read_all("ok\nends in \u{e9}".as_bytes().split_last().expect("b").1);
        assert_eq!(got, vec![(1, "ok".to_string())]);
        assert!(
            matches!(err, Some(InputError::Dump { line: 2, .. })),
            "{err:?}"
        );
    }
}
