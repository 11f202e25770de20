//! A file's lines read 64 KiB at a time into one buffer and handed out as
//! slices of it. `BufRead::read_until` copies every line into a buffer of
//! the caller's first; on a file read at full speed that copy, and the
//! call around it, cost as much as finding the line.
//!
//! [`WholeLines`] reads a file in pieces that end at a line's end; the
//! `filesystem` source's [`ByteLines`] and the dumps' reader (which checks
//! each piece as UTF-8 at once) split those pieces into lines.

use std::fs::File;
use std::io::Read;

/// Bytes asked of the file at a time.
const CHUNK: usize = 1 << 16;

/// A file read in pieces of whole lines.
#[derive(Debug)]
pub(crate) struct WholeLines {
    file: File,
    /// Bytes read after the last whole line handed out: the start of the
    /// next piece.
    rest: Vec<u8>,
    /// Whether the file is read to its end.
    eof: bool,
}

impl WholeLines {
    pub(crate) fn new(file: File) -> Self {
        WholeLines {
            file,
            rest: Vec::new(),
            eof: false,
        }
    }

    /// Replaces `buf`'s bytes (its room is kept) with the file's next
    /// whole lines: up to and with the last newline read, or at the end of
    /// the file what is left. `false` when nothing is left.
    pub(crate) fn fill(&mut self, buf: &mut Vec<u8>) -> std::io::Result<bool> {
        buf.clear();
        buf.append(&mut self.rest);
        // Until the buffer holds a newline, or the file ends (a line
        // longer than a read grows the buffer).
        while !self.eof {
            let have = buf.len();
            buf.resize(have + CHUNK, 0);
            let n = loop {
                match self.file.read(&mut buf[have..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        // Nothing is lost: a read that is tried again
                        // starts where this one did.
                        buf.truncate(have);
                        self.unread(std::mem::take(buf));
                        return Err(e);
                    }
                }
            };
            buf.truncate(have + n);
            if n == 0 {
                self.eof = true;
            } else if memchr::memchr(b'\n', &buf[have..]).is_some() {
                break;
            }
        }
        if !self.eof {
            let cut = memchr::memrchr(b'\n', buf).map_or(0, |i| i + 1);
            self.rest.extend_from_slice(&buf[cut..]);
            buf.truncate(cut);
        }
        Ok(!buf.is_empty())
    }

    /// Puts `bytes` back before what is still to be read.
    pub(crate) fn unread(&mut self, mut bytes: Vec<u8>) {
        bytes.append(&mut self.rest);
        self.rest = bytes;
    }

    /// Reads nothing more.
    pub(crate) fn end(&mut self) {
        self.rest.clear();
        self.eof = true;
    }
}

/// The lines of a file, one at a time.
#[derive(Debug)]
pub struct ByteLines {
    whole: WholeLines,
    /// Whole lines read, and where the next one starts.
    buf: Vec<u8>,
    next: usize,
}

impl ByteLines {
    /// The lines of `file`, from where it is.
    pub fn new(file: File) -> Self {
        ByteLines {
            whole: WholeLines::new(file),
            buf: Vec::new(),
            next: 0,
        }
    }

    /// The next line with its newline (the file's last line may have
    /// none), as `read_until(b'\n')` gives it; `None` at the end.
    pub fn next_line(&mut self) -> std::io::Result<Option<&[u8]>> {
        if self.next >= self.buf.len() {
            self.next = 0;
            if !self.whole.fill(&mut self.buf)? {
                return Ok(None);
            }
        }
        let from = self.next;
        self.next =
            memchr::memchr(b'\n', &self.buf[from..]).map_or(self.buf.len(), |i| from + i + 1);
        Ok(Some(&self.buf[from..self.next]))
    }
}

#[cfg(test)]
mod tests {
    use std::io::BufRead;

    use super::*;

    #[test]
    fn lines_are_what_read_until_gives() {
        let mut text = Vec::new();
        for i in 0..3_000usize {
            text.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, (i * 613) % 900));
            text.extend_from_slice(if i % 7 == 0 { b"\r\n" } else { b"\n" });
            if i % 11 == 0 {
                text.push(b'\n');
            }
        }
        text.extend(std::iter::repeat_n(b'z', 5 * CHUNK));
        text.extend_from_slice("\nend é".as_bytes());
        for bytes in [&text[..], b"", b"\n", b"no newline", b"two\nlines\n"] {
            let dir = tempfile::tempdir().expect("dir");
            let path = dir.path().join("part-0.json");
            std::fs::write(&path, bytes).expect("write");
            let mut expected = Vec::new();
            let mut reader = std::io::BufReader::new(File::open(&path).expect("open"));
            loop {
                let mut line = Vec::new();
                if reader.read_until(b'\n', &mut line).expect("read") == 0 {
                    break;
                }
                expected.push(line);
            }
            let mut lines = ByteLines::new(File::open(&path).expect("open"));
            let mut got = Vec::new();
            while let Some(line) = lines.next_line().expect("read") {
                got.push(line.to_vec());
            }
            assert_eq!(got.len(), expected.len());
            assert!(got == expected);
            assert_eq!(lines.next_line().expect("at the end"), None);
        }
    }
}
