//! Java 17's `Double.toString` and `Float.toString`, digit for digit.
//!
//! Flink runs on Java 17, whose conversion (`FloatingDecimal`'s
//! binary-to-ASCII) is not always the shortest round-trip: a double that is
//! a whole number below 2^63 prints all its exact digits
//! (`2.08511469954100096E17`), floats print more digits than needed
//! (`9.1932776E15`), and ties between two shortest candidates go to the
//! even digit (`1.0641974401757812E8`). Rust prints the shortest digits, so
//! the same algorithm is reproduced here: the whole-number shortcut, the
//! estimated decimal exponent, and the digit loop in 32-bit, 64-bit (both
//! wrapping exactly as Java's `int` and `long` do) or exact arithmetic,
//! with its stopping tests and final rounding. Checked against 2,000
//! conversions made by Java 17 (`tests/core/javafmt.rs`).

use std::cmp::Ordering;

/// Bits of 5^i (`N_5_BITS`).
const POW5_BITS: [i32; 27] = [
    0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56,
    59, 61,
];

/// Decimal digits that carry no information for a whole number with `i`
/// more binary digits than the mantissa holds.
const INSIGNIFICANT: [i32; 64] = [
    0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9,
    9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16,
    16, 17, 17, 17, 18, 18, 18, 19,
];

fn pow5(n: i32) -> u64 {
    5u64.pow(n as u32)
}

/// Decimal digits `d1 d2 ...` of `0.d1d2... * 10^exp`.
struct Digits {
    digits: Vec<u8>,
    exp: i32,
}

impl Digits {
    fn round_up(&mut self) {
        let mut i = self.digits.len() - 1;
        while self.digits[i] == b'9' && i > 0 {
            self.digits[i] = b'0';
            i -= 1;
        }
        if self.digits[i] == b'9' {
            // Carried out of the first digit.
            self.exp += 1;
            self.digits[0] = b'1';
            return;
        }
        self.digits[i] += 1;
    }
}

/// A non-negative whole number as limbs (little end first), for the
/// conversions whose terms do not fit 64 bits.
#[derive(Clone, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.0.len() > 1 && self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow5(&mut self, mut n: i32) {
        while n > 0 {
            let k = n.min(13);
            self.mul_small(5u32.pow(k as u32));
            n -= k;
        }
    }

    fn shl(&mut self, bits: i32) {
        let (words, rest) = ((bits / 32) as usize, bits % 32);
        if rest > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = (*limb << rest) | carry;
                carry = *limb >> (32 - rest);
                *limb = v;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        if words > 0 {
            let mut v = vec![0; words];
            v.append(&mut self.0);
            self.0 = v;
        }
        self.trim();
    }

    /// `v * 5^p5 * 2^p2`.
    fn of(v: u64, p5: i32, p2: i32) -> Big {
        let mut b = Big::from_u64(v);
        b.mul_pow5(p5);
        b.shl(p2);
        b
    }

    fn cmp(&self, o: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&o.0.len())
            .then_with(|| self.0.iter().rev().cmp(o.0.iter().rev()))
    }

    fn add(&self, o: &Big) -> Big {
        let mut out = Vec::with_capacity(self.0.len().max(o.0.len()) + 1);
        let mut carry = 0u64;
        for i in 0..self.0.len().max(o.0.len()) {
            let v = u64::from(*self.0.get(i).unwrap_or(&0))
                + u64::from(*o.0.get(i).unwrap_or(&0))
                + carry;
            out.push(v as u32);
            carry = v >> 32;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    fn sub(&mut self, o: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let v = i64::from(self.0[i]) - i64::from(*o.0.get(i).unwrap_or(&0)) - borrow;
            borrow = i64::from(v < 0);
            self.0[i] = (v + (borrow << 32)) as u32;
        }
        self.trim();
    }

    /// `self / s` (below 10), leaving `10 * (self % s)`.
    fn quo_rem_times10(&mut self, s: &Big) -> u8 {
        let mut q = 0;
        while self.cmp(s) != Ordering::Less {
            self.sub(s);
            q += 1;
        }
        self.mul_small(10);
        q
    }
}

/// `floor(log10(value))`, estimated as Java does from the binary exponent
/// (with Java's constants: its log10(2) is not `LOG10_2` to the last digit).
#[allow(clippy::approx_constant)]
fn estimate_dec_exp(fract_bits: u64, bin_exp: i32) -> i32 {
    let d2 = f64::from_bits(0x3ff0_0000_0000_0000 | (fract_bits & 0x000f_ffff_ffff_ffff));
    let d = (d2 - 1.5) * 0.289529654 + 0.176091259 + f64::from(bin_exp) * 0.301029995663981;
    d.floor() as i32
}

/// The digits of a whole number `v` (times 10^`exp`), its `insignificant`
/// low digits rounded off, trailing zeros dropped.
fn long_digits(mut v: u64, mut exp: i32, insignificant: i32) -> Digits {
    if insignificant != 0 {
        let p10 = pow5(insignificant) << insignificant;
        let residue = v % p10;
        v /= p10;
        exp += insignificant;
        if residue >= (p10 >> 1) {
            v += 1;
        }
    }
    let text = v.to_string();
    let trimmed = text.trim_end_matches('0');
    Digits {
        digits: trimmed.as_bytes().to_vec(),
        exp: exp + text.len() as i32,
    }
}

/// The digit loop over 32-bit or 64-bit terms, wrapping as Java's `int`
/// and `long` do (its overflow test included).
macro_rules! small_loop {
    ($t:ty, $b:expr, $s:expr, $m:expr, $dec_exp:ident) => {{
        let (mut b, s, mut m): ($t, $t, $t) = ($b, $s, $m);
        let tens = s.wrapping_mul(10);
        let mut digits = Vec::with_capacity(20);
        let mut q = b / s;
        b = (b % s).wrapping_mul(10);
        m = m.wrapping_mul(10);
        let mut low = b < m;
        let mut high = b.wrapping_add(m) > tens;
        if q == 0 && !high {
            $dec_exp -= 1;
        } else {
            digits.push(b'0' + q as u8);
        }
        if !(-3..8).contains(&$dec_exp) {
            high = false;
            low = false;
        }
        while !low && !high {
            q = b / s;
            b = (b % s).wrapping_mul(10);
            m = m.wrapping_mul(10);
            if m > 0 {
                low = b < m;
                high = b.wrapping_add(m) > tens;
            } else {
                low = true;
                high = true;
            }
            digits.push(b'0' + q as u8);
        }
        let diff = b.wrapping_shl(1).wrapping_sub(tens);
        (digits, low, high, diff.cmp(&0))
    }};
}

/// Java's `dtoa` for a value `fract_bits * 2^(bin_exp - 52)` whose
/// mantissa has `sig_bits` significant bits.
fn dtoa(bin_exp: i32, fract_bits: u64, sig_bits: i32) -> Digits {
    let tail_zeros = fract_bits.trailing_zeros() as i32;
    let fract_len = 53 - tail_zeros;
    let tiny_bits = (fract_len - bin_exp - 1).max(0);
    // A whole number that fits a long: its exact digits.
    if (-21..=62).contains(&bin_exp)
        && tiny_bits < 27
        && fract_len + POW5_BITS[tiny_bits as usize] < 64
        && tiny_bits == 0
    {
        let p2 = bin_exp - sig_bits - 1;
        let insignificant = if bin_exp > sig_bits && p2 > 1 && p2 < 64 {
            INSIGNIFICANT[p2 as usize]
        } else {
            0
        };
        let v = if bin_exp >= 52 {
            fract_bits << (bin_exp - 52)
        } else {
            fract_bits >> (52 - bin_exp)
        };
        return long_digits(v, 0, insignificant);
    }
    let mut dec_exp = estimate_dec_exp(fract_bits, bin_exp);
    let b5 = (-dec_exp).max(0);
    let mut b2 = b5 + tiny_bits + bin_exp;
    let s5 = dec_exp.max(0);
    let mut s2 = s5 + tiny_bits;
    let m5 = b5;
    let mut m2 = b2 - sig_bits;
    let fract = fract_bits >> tail_zeros;
    b2 -= fract_len - 1;
    let common = b2.min(s2);
    b2 -= common;
    s2 -= common;
    m2 -= common;
    // Below an exact power of two the next smaller value is half as far.
    if fract_len == 1 {
        m2 -= 1;
    }
    if m2 < 0 {
        b2 -= m2;
        s2 -= m2;
        m2 = 0;
    }
    let bits5 = |n: i32| POW5_BITS.get(n as usize).copied().unwrap_or(n * 3);
    let b_bits = fract_len + b2 + bits5(b5);
    let ten_s_bits = s2 + 1 + bits5(s5 + 1);
    let (digits, low, high, diff) = if b_bits < 32 && ten_s_bits < 32 {
        // Java's shifts take the count modulo the width: wrapping_shl.
        let b = (fract as i32)
            .wrapping_mul(pow5(b5) as i32)
            .wrapping_shl(b2 as u32);
        let s = (pow5(s5) as i32).wrapping_shl(s2 as u32);
        let m = (pow5(m5) as i32).wrapping_shl(m2 as u32);
        small_loop!(i32, b, s, m, dec_exp)
    } else if b_bits < 64 && ten_s_bits < 64 {
        let b = (fract as i64)
            .wrapping_mul(pow5(b5) as i64)
            .wrapping_shl(b2 as u32);
        let s = (pow5(s5) as i64).wrapping_shl(s2 as u32);
        let m = (pow5(m5) as i64).wrapping_shl(m2 as u32);
        small_loop!(i64, b, s, m, dec_exp)
    } else {
        let s = Big::of(1, s5, s2);
        let mut b = Big::of(fract, b5, b2);
        let mut m = Big::of(1, m5 + 1, m2 + 1);
        let ten_s = Big::of(1, s5 + 1, s2 + 1);
        let mut digits = Vec::with_capacity(20);
        let q = b.quo_rem_times10(&s);
        let mut low = b.cmp(&m) == Ordering::Less;
        let mut high = ten_s.cmp(&b.add(&m)) != Ordering::Greater;
        if q == 0 && !high {
            dec_exp -= 1;
        } else {
            digits.push(b'0' + q);
        }
        if !(-3..8).contains(&dec_exp) {
            high = false;
            low = false;
        }
        while !low && !high {
            let q = b.quo_rem_times10(&s);
            m.mul_small(10);
            low = b.cmp(&m) == Ordering::Less;
            high = ten_s.cmp(&b.add(&m)) != Ordering::Greater;
            digits.push(b'0' + q);
        }
        let diff = if high && low {
            let mut twice = b.clone();
            twice.shl(1);
            twice.cmp(&ten_s)
        } else {
            Ordering::Equal
        };
        (digits, low, high, diff)
    };
    let mut d = Digits {
        digits,
        exp: dec_exp + 1,
    };
    if high {
        let up = !low
            || diff == Ordering::Greater
            || (diff == Ordering::Equal && d.digits.last().is_some_and(|c| c % 2 == 1));
        if up {
            d.round_up();
        }
    }
    d
}

/// Java's layout of the digits: `ddd.ddd` for exponents 1 to 7, `0.00ddd`
/// down to -2, else `d.dddE±n`.
fn layout(negative: bool, d: &Digits) -> String {
    let digits = std::str::from_utf8(&d.digits).unwrap_or("0");
    let n = digits.len() as i32;
    let mut out = String::with_capacity(n as usize + 8);
    if negative {
        out.push('-');
    }
    let e = d.exp;
    if e > 0 && e < 8 {
        let int_len = n.min(e) as usize;
        out.push_str(&digits[..int_len]);
        if (int_len as i32) < e {
            out.extend(std::iter::repeat_n('0', (e - int_len as i32) as usize));
            out.push_str(".0");
        } else {
            out.push('.');
            if (int_len as i32) < n {
                out.push_str(&digits[int_len..]);
            } else {
                out.push('0');
            }
        }
    } else if e <= 0 && e > -3 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-e) as usize));
        out.push_str(digits);
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        if n > 1 {
            out.push_str(&digits[1..]);
        } else {
            out.push('0');
        }
        out.push('E');
        out.push_str(&(e - 1).to_string());
    }
    out
}

/// Java 17's `Double.toString(d)`.
pub fn double_to_string(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let bits = d.to_bits();
    let negative = bits >> 63 == 1;
    let mut fract = bits & 0x000f_ffff_ffff_ffff;
    let mut bin_exp = ((bits >> 52) & 0x7ff) as i32;
    if bin_exp == 0 && fract == 0 {
        return if negative { "-0.0" } else { "0.0" }.into();
    }
    let sig_bits;
    if bin_exp == 0 {
        let lz = fract.leading_zeros() as i32;
        let shift = lz - (63 - 52);
        fract <<= shift;
        bin_exp = 1 - shift;
        sig_bits = 64 - lz;
    } else {
        fract |= 1 << 52;
        sig_bits = 53;
    }
    layout(negative, &dtoa(bin_exp - 1023, fract, sig_bits))
}

/// Java 17's `Float.toString(f)`.
pub fn float_to_string(f: f32) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let bits = f.to_bits();
    let negative = bits >> 31 == 1;
    let mut fract = bits & 0x007f_ffff;
    let mut bin_exp = ((bits >> 23) & 0xff) as i32;
    if bin_exp == 0 && fract == 0 {
        return if negative { "-0.0" } else { "0.0" }.into();
    }
    let sig_bits;
    if bin_exp == 0 {
        let lz = fract.leading_zeros() as i32;
        let shift = lz - (31 - 23);
        fract <<= shift;
        bin_exp = 1 - shift;
        sig_bits = 32 - lz;
    } else {
        fract |= 1 << 23;
        sig_bits = 24;
    }
    layout(
        negative,
        &dtoa(bin_exp - 127, u64::from(fract) << (52 - 23), sig_bits),
    )
}
