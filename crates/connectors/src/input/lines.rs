//! A dump's lines, one at a time: UTF-8 checked, line endings and blank
//! lines dropped, line numbers and bytes read counted. Both passes over a
//! dump read it with this: the scan of its record headers and the parse
//! of its records.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::InputError;

pub(crate) struct Lines {
    path: PathBuf,
    reader: BufReader<File>,
    buf: String,
    end: usize,
    /// The 1-based number of the line last returned.
    pub(crate) line: usize,
    /// Bytes read so far.
    pub(crate) bytes: u64,
}

impl Lines {
    /// Reads `read`, naming `shown` in errors (a pipe's copy is read).
    pub(crate) fn open_as(read: &Path, shown: &Path) -> Result<Self, InputError> {
        let f = File::open(read).map_err(|source| InputError::Io {
            path: shown.to_path_buf(),
            source,
        })?;
        Ok(Lines {
            path: shown.to_path_buf(),
            reader: BufReader::with_capacity(1 << 16, f),
            buf: String::new(),
            end: 0,
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
        let end = loop {
            self.buf.clear();
            let n = match self.reader.read_line(&mut self.buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    self.line += 1;
                    return Err(self.error(
                        1,
                        "the line is not UTF-8 text; a dump is JSON lines (kcat -J)".to_string(),
                    ));
                }
                Err(source) => {
                    return Err(InputError::Io {
                        path: self.path.clone(),
                        source,
                    })
                }
            };
            if n == 0 {
                return Ok(false);
            }
            self.bytes += n as u64;
            self.line += 1;
            let text = self.buf.strip_suffix('\n').unwrap_or(&self.buf);
            let text = text.strip_suffix('\r').unwrap_or(text);
            if !text.trim().is_empty() {
                break text.len();
            }
        };
        self.end = end;
        Ok(true)
    }

    /// The current line, without its line ending.
    pub(crate) fn current(&self) -> &str {
        &self.buf[..self.end]
    }
}
