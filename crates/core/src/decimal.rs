//! Exact decimal numbers, as Flink's `DECIMAL(p, s)` holds them: an
//! unscaled integer and a scale (the value is `unscaled / 10^scale`), at most
//! 38 digits. Arithmetic rounds HALF_UP, as Java's `BigDecimal` does in
//! Flink; a result that does not fit is `None` (NULL in SQL, as Flink's
//! `DecimalData.fromBigDecimal`).

use std::cmp::Ordering;

/// The most digits a decimal has (Flink's `DecimalType.MAX_PRECISION`).
pub const MAX_PRECISION: u8 = 38;

/// An unscaled value and its scale.
pub type Dec = (i128, u8);

/// 10^n, for n <= 38.
pub fn pow10(n: u8) -> Option<i128> {
    10i128.checked_pow(u32::from(n))
}

/// Whether `v` has at most `precision` digits.
pub fn fits(v: i128, precision: u8) -> bool {
    pow10(precision).is_some_and(|p| v.unsigned_abs() < p.unsigned_abs())
}

/// `v` (at scale `from`) at scale `to`, rounded HALF_UP when digits are
/// dropped; `None` when it overflows.
pub fn rescale(v: i128, from: u8, to: u8) -> Option<i128> {
    match to.cmp(&from) {
        Ordering::Equal => Some(v),
        Ordering::Greater => v.checked_mul(pow10(to - from)?),
        Ordering::Less => {
            let Some(d) = pow10(from - to) else {
                return Some(0);
            };
            Some(div_half_up(v, d))
        }
    }
}

/// `a / b` rounded HALF_UP (away from zero on a half).
fn div_half_up(a: i128, b: i128) -> i128 {
    let (q, r) = (a / b, a % b);
    if r.unsigned_abs() * 2 >= b.unsigned_abs() {
        if (a < 0) != (b < 0) {
            q - 1
        } else {
            q + 1
        }
    } else {
        q
    }
}

/// Parses decimal text (`-12.50`, `1.2E-7`, `5`) exactly; `None` when it
/// is not a number or has more than 38 digits.
pub fn parse(text: &str) -> Option<Dec> {
    let t = text.trim();
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
        None => (t, 0),
    };
    let (neg, digits) = match mantissa.as_bytes().first()? {
        b'-' => (true, &mantissa[1..]),
        b'+' => (false, &mantissa[1..]),
        _ => (false, mantissa),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v: i128 = 0;
    let mut count = 0;
    for c in int.bytes().chain(frac.bytes()) {
        if !c.is_ascii_digit() {
            return None;
        }
        if v != 0 || c != b'0' {
            count += 1;
        }
        v = v.checked_mul(10)?.checked_add(i128::from(c - b'0'))?;
    }
    if count > usize::from(MAX_PRECISION) {
        return None;
    }
    let mut scale = (frac.len() as i64).checked_sub(exp)?;
    if scale < 0 {
        v = v.checked_mul(pow10(u8::try_from(-scale).ok()?)?)?;
        scale = 0;
    }
    // More than 38 digits after the point: rounded HALF_UP to 38 (a tiny
    // number is 0 at any scale a column can have).
    if scale > i64::from(MAX_PRECISION) {
        let drop = scale - i64::from(MAX_PRECISION);
        v = match pow10(u8::try_from(drop).unwrap_or(u8::MAX)) {
            Some(d) => div_half_up(v, d),
            None => 0,
        };
        scale = i64::from(MAX_PRECISION);
    }
    Some((if neg { -v } else { v }, scale as u8))
}

/// The sum of two decimals, at the larger scale.
pub fn add(a: Dec, b: Dec) -> Option<Dec> {
    let s = a.1.max(b.1);
    Some((rescale(a.0, a.1, s)?.checked_add(rescale(b.0, b.1, s)?)?, s))
}

/// The product of two decimals, at the sum of their scales.
pub fn mul(a: Dec, b: Dec) -> Option<Dec> {
    Some((a.0.checked_mul(b.0)?, a.1.checked_add(b.1)?))
}

/// A 256-bit product of two 128-bit magnitudes, as (high, low).
fn wide_mul(a: u128, b: u128) -> (u128, u128) {
    let (a1, a0) = (a >> 64, a & u128::from(u64::MAX));
    let (b1, b0) = (b >> 64, b & u128::from(u64::MAX));
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let mid = (p00 >> 64) + (p01 & u128::from(u64::MAX)) + (p10 & u128::from(u64::MAX));
    let lo = (p00 & u128::from(u64::MAX)) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (hi, lo)
}

/// `(hi, lo) / d` and its remainder, when the quotient fits 128 bits.
fn wide_div(hi: u128, lo: u128, d: u128) -> Option<(u128, u128)> {
    if d == 0 || hi >= d {
        return None;
    }
    let (mut rem, mut q) = (hi, 0u128);
    for i in (0..128).rev() {
        let carry = rem >> 127;
        rem = (rem << 1) | ((lo >> i) & 1);
        q <<= 1;
        if carry == 1 || rem >= d {
            rem = rem.wrapping_sub(d);
            q |= 1;
        }
    }
    Some((q, rem))
}

/// `(hi, lo) / 10^k` rounded HALF_UP, when it fits 128 bits.
fn wide_div_pow10(hi: u128, lo: u128, k: u32) -> Option<u128> {
    if k <= 38 {
        let d = 10u128.pow(k);
        let (q, r) = wide_div(hi, lo, d)?;
        return Some(if r >= d - r { q + 1 } else { q });
    }
    if k > 76 {
        return Some(0);
    }
    // Truncate by 10^38, then round on the last division (exact: 10^m is even).
    let (q1, _) = wide_div(hi, lo, 10u128.pow(38))?;
    let d2 = 10u128.pow(k - 38);
    let (q, r2) = (q1 / d2, q1 % d2);
    Some(if r2 >= d2 - r2 { q + 1 } else { q })
}

fn signed(neg: bool, v: u128) -> Option<i128> {
    let v = i128::try_from(v).ok()?;
    Some(if neg { -v } else { v })
}

/// `a * b` at scale `scale`, rounded HALF_UP, exact even when the full
/// product needs more than 128 bits (DECIMAL(38, 18) * DECIMAL(38, 18)).
pub fn mul_at(a: Dec, b: Dec, scale: u8) -> Option<i128> {
    let s = u32::from(a.1) + u32::from(b.1);
    if let Some(p) = a.0.checked_mul(b.0) {
        if s <= u32::from(u8::MAX) {
            return rescale(p, s as u8, scale);
        }
    }
    let neg = (a.0 < 0) != (b.0 < 0);
    let (hi, lo) = wide_mul(a.0.unsigned_abs(), b.0.unsigned_abs());
    let v = match s.checked_sub(u32::from(scale)) {
        Some(k) => wide_div_pow10(hi, lo, k)?,
        None => return None,
    };
    signed(neg, v)
}

/// `a / b` at scale `scale`, rounded HALF_UP; `None` for a division by zero
/// or an overflow.
pub fn div(a: Dec, b: Dec, scale: u8) -> Option<i128> {
    if b.0 == 0 {
        return None;
    }
    // Trailing zeros only cost digits: 2.5 at scale 30 is 25 at scale 1.
    let (a, b) = (normalized(a), normalized(b));
    // a / b = (a.0 / 10^a.1) / (b.0 / 10^b.1); at `scale`:
    // a.0 * 10^(scale + b.1 - a.1) / b.0.
    let shift = i32::from(scale) + i32::from(b.1) - i32::from(a.1);
    if shift >= 0 {
        let p = pow10(u8::try_from(shift).ok()?)?;
        if let Some(num) = a.0.checked_mul(p) {
            return Some(div_half_up(num, b.0));
        }
        // The scaled numerator needs 256 bits.
        let neg = (a.0 < 0) != (b.0 < 0);
        let (hi, lo) = wide_mul(a.0.unsigned_abs(), p.unsigned_abs());
        let d = b.0.unsigned_abs();
        let (q, r) = wide_div(hi, lo, d)?;
        signed(neg, if r >= d - r { q + 1 } else { q })
    } else {
        let den = b.0.checked_mul(pow10(u8::try_from(-shift).ok()?)?)?;
        Some(div_half_up(a.0, den))
    }
}

/// The numeric order of two decimals.
pub fn cmp(a: Dec, b: Dec) -> Ordering {
    let s = a.1.max(b.1);
    match (rescale(a.0, a.1, s), rescale(b.0, b.1, s)) {
        (Some(x), Some(y)) => x.cmp(&y),
        // Beyond i128 at a common scale: the integer parts differ hugely.
        _ => to_f64(a).total_cmp(&to_f64(b)),
    }
}

/// The nearest double (through the exact text, so correctly rounded).
pub fn to_f64(d: Dec) -> f64 {
    plain(d).parse().unwrap_or(f64::NAN)
}

/// The decimal Flink makes of a double (`BigDecimal.valueOf`: Java's
/// printed digits) at scale `scale`, rounded HALF_UP.
pub fn from_f64(x: f64, scale: u8) -> Option<i128> {
    if !x.is_finite() {
        return None;
    }
    let (v, s) = parse(&crate::text::java_double(x))?;
    rescale(v, s, scale)
}

/// `d` without trailing fraction zeros (`stripTrailingZeros`); the scale
/// may become negative, so it is returned as an `i32`.
fn strip(d: Dec) -> (i128, i32) {
    let (mut v, mut s) = (d.0, i32::from(d.1));
    if v == 0 {
        return (0, 0);
    }
    while v % 10 == 0 {
        v /= 10;
        s -= 1;
    }
    (v, s)
}

/// `d` in canonical form (trailing zeros stripped, scale not below zero),
/// for hashing equal values alike.
pub fn normalized(d: Dec) -> Dec {
    let (v, s) = strip(d);
    if s >= 0 {
        (v, s as u8)
    } else {
        (d.0 / pow10(d.1).unwrap_or(1), 0)
    }
}

/// Java's `BigDecimal.toPlainString()`: `20.00`, `-0.5`, `0.000`.
pub fn plain(d: Dec) -> String {
    let (v, s) = d;
    let digits = v.unsigned_abs().to_string();
    let sign = if v < 0 { "-" } else { "" };
    let s = usize::from(s);
    if s == 0 {
        return format!("{sign}{digits}");
    }
    if digits.len() > s {
        let (i, f) = digits.split_at(digits.len() - s);
        format!("{sign}{i}.{f}")
    } else {
        format!("{sign}0.{}{digits}", "0".repeat(s - digits.len()))
    }
}

/// Java's `BigDecimal.toString()` of `unscaled` at (possibly negative)
/// `scale`: plain unless the scale is negative or the exponent is below
/// -6, then scientific (`2E+1`, `1.2E-7`).
fn java_string(unscaled: i128, scale: i32) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    let adjusted = -i64::from(scale) + digits.len() as i64 - 1;
    if scale >= 0 && adjusted >= -6 {
        return plain((unscaled, scale as u8));
    }
    let (head, tail) = digits.split_at(1);
    let mut out = format!("{sign}{head}");
    if !tail.is_empty() {
        out.push('.');
        out.push_str(tail);
    }
    out.push('E');
    if adjusted >= 0 {
        out.push('+');
    }
    out.push_str(&adjusted.to_string());
    out
}

/// How Flink's json format writes a DECIMAL (Jackson's number node of
/// `stripTrailingZeros()`): `5638.3`, `2E+1`, `0`, `1.2E-7`.
pub fn json_text(d: Dec) -> String {
    let (v, s) = strip(d);
    java_string(v, s)
}

/// How many digits `v` has (at least 1).
pub fn digits(v: i128) -> u8 {
    v.unsigned_abs().checked_ilog10().map_or(1, |n| n as u8 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print_like_java() {
        assert_eq!(parse("-12.50"), Some((-1250, 2)));
        assert_eq!(parse("1.2E-7"), Some((12, 8)));
        assert_eq!(parse("2E+1"), Some((20, 0)));
        assert_eq!(parse(".5"), Some((5, 1)));
        assert_eq!(parse("1.2.3"), None);
        assert_eq!(parse(&"9".repeat(39)), None);
        assert_eq!(plain((2000, 2)), "20.00");
        assert_eq!(plain((-5, 3)), "-0.005");
        assert_eq!(json_text((2000, 2)), "2E+1");
        assert_eq!(json_text((563830, 2)), "5638.3");
        assert_eq!(json_text((0, 2)), "0");
        assert_eq!(json_text((12, 8)), "1.2E-7");
        assert_eq!(json_text((1127660000, 4)), "112766");
        assert_eq!(json_text((-125, 2)), "-1.25");
    }

    #[test]
    fn arithmetic_rounds_half_up_and_overflows_to_none() {
        // 5638.30 / 3 at scale 13 (Flink's DECIMAL(21, 13)).
        assert_eq!(
            plain((div((563830, 2), (3, 0), 13).expect("divides"), 13)),
            "1879.4333333333333"
        );
        assert_eq!(
            plain((div((-125, 2), (3, 0), 13).expect("divides"), 13)),
            "-0.4166666666667"
        );
        assert_eq!(rescale(1255, 3, 2), Some(126));
        assert_eq!(rescale(-1255, 3, 2), Some(-126));
        assert_eq!(div((1, 0), (0, 0), 2), None);
        assert_eq!(add((150, 2), (5, 1)), Some((200, 2)));
        assert_eq!(mul((150, 2), (3, 0)), Some((450, 2)));
        assert_eq!(cmp((150, 2), (15, 1)), Ordering::Equal);
        assert_eq!(normalized((1500, 3)), (15, 1));
        assert_eq!(normalized((2000, 2)), (20, 0));
        assert!(fits(99_999, 5) && !fits(100_000, 5));
        assert_eq!(from_f64(0.1 + 0.2, 2), Some(30));
        assert_eq!(digits(0), 1);
        // Beyond 128 bits in the middle of the computation, exact at the end.
        let fourteen = (14 * 10i128.pow(18), 18);
        assert_eq!(mul_at(fourteen, fourteen, 6), Some(196_000_000));
        assert_eq!(mul_at((-fourteen.0, 18), fourteen, 6), Some(-196_000_000));
        assert_eq!(
            div((1000, 0), (25 * 10i128.pow(29), 30), 6),
            Some(400_000_000)
        );
        assert_eq!(
            div((10i128.pow(35), 0), (100_003, 0), 6),
            Some(999_970_000_899_973_000_809_975_700_728_978_131),
            "10^35 * 10^6 needs 256 bits before dividing"
        );
        assert_eq!(div((10i128.pow(37), 0), (3, 0), 6), None, "does not fit");
        assert_eq!(parse("1.5E-2147483648"), Some((0, 38)));
        assert_eq!(parse("1e-50"), Some((0, 38)));
        assert_eq!(
            parse(&format!("0.{}5", "0".repeat(38))),
            Some((1, 38)),
            "HALF_UP at 38"
        );
        assert_eq!(digits(-1000), 4);
    }
}
