//! Avro's binary encoding: zig-zag varints, length-prefixed bytes, blocks
//! of arrays and maps. Every read checks the bytes left, so a truncated or
//! hostile record is an error that says what was being read, never a panic
//! or an allocation the record's size does not justify.

/// A cursor over one record's bytes.
#[derive(Debug)]
pub struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The position (bytes read).
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// A zig-zag varint of at most 10 bytes.
    pub fn long(&mut self) -> Result<i64, String> {
        let mut v: u64 = 0;
        let mut shift = 0;
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(format!(
                    "the record ends inside a number at byte {}",
                    self.pos
                ));
            };
            self.pos += 1;
            if shift == 63 && b > 1 {
                return Err(format!(
                    "a number longer than 64 bits at byte {}",
                    self.pos - 1
                ));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// A zig-zag varint that must fit 32 bits (`int`).
    pub fn int(&mut self) -> Result<i32, String> {
        let at = self.pos;
        let v = self.long()?;
        i32::try_from(v).map_err(|_| format!("an int out of 32-bit range ({v}) at byte {at}"))
    }

    /// `n` raw bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.remaining() {
            return Err(format!(
                "the record ends inside a value at byte {}: {n} bytes announced, {} left",
                self.pos,
                self.remaining()
            ));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// A length-prefixed byte string.
    pub fn bytes(&mut self) -> Result<&'a [u8], String> {
        let at = self.pos;
        let n = self.long()?;
        let n = usize::try_from(n).map_err(|_| format!("a negative length ({n}) at byte {at}"))?;
        self.take(n)
    }

    /// A length-prefixed UTF-8 string.
    pub fn string(&mut self) -> Result<&'a str, String> {
        let at = self.pos;
        let b = self.bytes()?;
        std::str::from_utf8(b).map_err(|e| format!("a string at byte {at} is not UTF-8 ({e})"))
    }

    /// A boolean byte.
    pub fn boolean(&mut self) -> Result<bool, String> {
        let at = self.pos;
        match self.take(1)?.first() {
            Some(0) => Ok(false),
            Some(1) => Ok(true),
            b => Err(format!("a boolean byte {b:?} at byte {at}")),
        }
    }

    /// A little-endian float.
    pub fn float(&mut self) -> Result<f32, String> {
        let b = self.take(4)?;
        Ok(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A little-endian double.
    pub fn double(&mut self) -> Result<f64, String> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }

    /// The item count of the next array or map block (its byte size, when
    /// given, is skipped over: the items are read one by one).
    pub fn block(&mut self) -> Result<u64, String> {
        let at = self.pos;
        let n = self.long()?;
        if n < 0 {
            self.long()?;
        }
        let n = n.unsigned_abs();
        if n > 1 << 40 {
            return Err(format!("a block of {n} items at byte {at}"));
        }
        Ok(n)
    }
}

/// Appends a zig-zag varint.
pub fn put_long(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

/// Appends a length-prefixed byte string.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_long(out, b.len() as i64);
    out.extend_from_slice(b);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_at_the_edges() {
        for v in [
            0,
            -1,
            1,
            63,
            -64,
            64,
            300,
            i64::from(i32::MAX),
            i64::MIN,
            i64::MAX,
        ] {
            let mut out = Vec::new();
            put_long(&mut out, v);
            let mut c = Cursor::new(&out);
            assert_eq!(c.long(), Ok(v));
            assert_eq!(c.remaining(), 0);
        }
        // -1 is 0x01, 1 is 0x02, -64 is 0x7f, 64 is 0x80 0x01 (the spec's table).
        let mut out = Vec::new();
        for v in [-1, 1, -64, 64] {
            put_long(&mut out, v);
        }
        assert_eq!(out, [0x01, 0x02, 0x7f, 0x80, 0x01]);
    }

    #[test]
    fn hostile_bytes_are_errors() {
        assert!(Cursor::new(&[0x80; 11]).long().is_err());
        assert!(Cursor::new(&[0x80])
            .long()
            .expect_err("an error")
            .contains("ends inside"));
        // A string announcing 2^40 bytes with 2 present.
        let mut b = Vec::new();
        put_long(&mut b, 1 << 40);
        b.extend_from_slice(b"ab");
        let e = Cursor::new(&b).bytes().expect_err("too long");
        assert!(e.contains("announced"), "{e}");
        let mut b = Vec::new();
        put_long(&mut b, -5);
        assert!(Cursor::new(&b)
            .bytes()
            .expect_err("an error")
            .contains("negative"));
        assert!(Cursor::new(&[2]).boolean().is_err());
        let mut b = Vec::new();
        put_long(&mut b, i64::from(i32::MAX) + 1);
        assert!(Cursor::new(&b)
            .int()
            .expect_err("an error")
            .contains("32-bit"));
    }
}
