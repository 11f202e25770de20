//! A file's lines as bytes, for the `filesystem` source: read 64 KiB at a
//! time into one buffer and handed out as slices of it. `BufRead::
//! read_until` copies every line into a buffer of the caller's first; on
//! a file job read at full speed that copy, and the call around it, cost
//! as much as finding the line.

use std::fs::File;
use std::io::Read;

/// Bytes asked of the file at a time.
const CHUNK: usize = 1 << 16;

/// The lines of a file, one at a time.
#[derive(Debug)]
pub struct ByteLines {
    file: File,
    /// Read bytes in `buf[start..filled]` (the vector's length is its
    /// room: it is written by `read`, never resized per read).
    buf: Vec<u8>,
    start: usize,
    filled: usize,
    eof: bool,
}

impl ByteLines {
    /// The lines of `file`, from where it is.
    pub fn new(file: File) -> Self {
        ByteLines {
            file,
            buf: vec![0; CHUNK],
            start: 0,
            filled: 0,
            eof: false,
        }
    }

    /// The next line with its newline (the file's last line may have
    /// none), as `read_until(b'\n')` gives it; `None` at the end.
    pub fn next_line(&mut self) -> std::io::Result<Option<&[u8]>> {
        let mut searched = self.start;
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[searched..self.filled]) {
                let (from, to) = (self.start, searched + i + 1);
                self.start = to;
                return Ok(Some(&self.buf[from..to]));
            }
            if self.eof {
                let from = std::mem::replace(&mut self.start, self.filled);
                return Ok((from < self.filled).then(|| &self.buf[from..self.filled]));
            }
            // The partial line moves to the front; a line longer than the
            // buffer doubles it.
            self.buf.copy_within(self.start..self.filled, 0);
            self.filled -= self.start;
            searched = self.filled;
            self.start = 0;
            if self.buf.len() - self.filled < CHUNK / 2 {
                self.buf.resize(self.buf.len() * 2, 0);
            }
            let n = loop {
                match self.file.read(&mut self.buf[self.filled..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            };
            self.eof = n == 0;
            self.filled += n;
        }
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
