//! The DATE type: a day of the calendar without a time, held as the
//! number of days since 1970-01-01 (a [`Value::Int`], as Flink holds a
//! DATE as an `int`), its SQL type saying what the number is. Its text is
//! `yyyy-MM-dd`, the form Flink's formats read and write and `CAST(d AS
//! STRING)` gives.
//!
//! The conversions that need to know a value is a date (the others are an
//! integer's) are functions compiled where the types are known: `CAST` to
//! and from DATE, the DATE literal, `TO_DATE`, and a DATE where a time
//! function takes a TIMESTAMP (its midnight).

use lowwater_core::time::{civil_from_days, days_from_civil};
use lowwater_core::Value;

/// Milliseconds in a day.
const DAY_MS: i64 = 86_400_000;

/// A conversion to or from DATE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DateFn {
    /// TIMESTAMP or TIMESTAMP_LTZ to DATE: the day it is in (UTC, the
    /// session's time zone).
    FromTimestamp,
    /// DATE to TIMESTAMP: its midnight.
    ToTimestamp,
    /// DATE to STRING: `yyyy-MM-dd`.
    ToText,
    /// STRING to DATE (`CAST`, `TO_DATE(s)`): `yyyy-[M]M-[d]d`, trimmed; a
    /// time after it is read and dropped, as Flink's cast does. Text that
    /// is not a date fails.
    FromText,
    /// `TO_DATE(s)`: as [`DateFn::FromText`], NULL where the text is not
    /// a date.
    ToDate,
    /// `TO_DATE(s, pattern)`: text in a Java date pattern (`yyyyMMdd`,
    /// `dd/MM/yyyy`: the letters y, M and d and literal characters), read
    /// leniently as Java's `SimpleDateFormat` does (month 13 is January of
    /// the next year, April 31 is May 1); NULL when the text does not
    /// match the pattern (where Flink 2.3 returns a day some 1.7 million
    /// years ahead: its parse failure, `Long.MIN_VALUE`, cut to an `int`).
    FromPattern(Box<str>),
}

/// Evaluates `f` over `v` (NULL gives NULL).
pub fn eval(f: &DateFn, v: Value) -> Result<Value, String> {
    Ok(match (f, v) {
        (_, Value::Null) => Value::Null,
        (DateFn::FromTimestamp, Value::Timestamp(t)) => Value::Int(t.div_euclid(DAY_MS)),
        (DateFn::ToTimestamp, Value::Int(d)) => match d.checked_mul(DAY_MS) {
            Some(t) => Value::Timestamp(t),
            None => return Err(format!("the date of day {d} has no timestamp")),
        },
        (DateFn::ToText, Value::Int(d)) => Value::str(&format_date(d)),
        (DateFn::FromText, Value::Str(s)) => match parse_date(&s) {
            Some(d) => Value::Int(d),
            None => return Err(format!("cannot CAST '{s}' to DATE (write yyyy-MM-dd)")),
        },
        (DateFn::ToDate, Value::Str(s)) => parse_date(&s).map_or(Value::Null, Value::Int),
        (DateFn::FromPattern(p), Value::Str(s)) => {
            parse_pattern(&s, p).map_or(Value::Null, Value::Int)
        }
        (f, v) => return Err(format!("{f:?} cannot take {v}")),
    })
}

/// A day as `yyyy-MM-dd` (years before 1000 padded to four digits; before
/// year 1 and after 9999 with their sign, as Java's `LocalDate` writes).
pub fn format_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    if (0..=9999).contains(&y) {
        format!("{y:04}-{m:02}-{d:02}")
    } else if y > 9999 {
        format!("+{y}-{m:02}-{d:02}")
    } else {
        format!("-{:04}-{m:02}-{d:02}", -y)
    }
}

/// Reads a date as Flink's `DateTimeUtils.parseDate` does (`CAST(s AS
/// DATE)`, `TO_DATE(s)`): the text up to its first space (after the
/// first character), split at `-` into year, month and day, each trimmed
/// and read as Java's `Integer.parseInt` reads it; a missing month or day
/// is 1 (`2025-09` is 2025-09-01, `2025` is 2025-01-01); the year 0 to
/// 9999 and the day within its month. `None` otherwise.
pub fn parse_date(text: &str) -> Option<i64> {
    let s = match text.find(' ') {
        Some(ws) if ws > 0 => &text[..ws],
        _ => text,
    };
    let int = |p: &str| p.trim_matches(|c: char| c <= ' ').parse::<i32>().ok();
    let mut parts = s.splitn(3, '-');
    let y = int(parts.next()?)?;
    let m = parts.next().map_or(Some(1), int)?;
    let d = parts.next().map_or(Some(1), int)?;
    let (y, m, d) = (i64::from(y), u32::try_from(m).ok()?, u32::try_from(d).ok()?);
    ((0..=9999).contains(&y) && valid(y, m, d)).then(|| days_from_civil(y, m, d))
}

/// Reads a date as Java's `java.sql.Date.valueOf` does (Flink's csv
/// format): `yyyy-[m]m-[d]d` exactly, month 1 to 12 and day 1 to 31, a day
/// past the month's end rolling into the next (`2025-02-30` is March 2).
pub fn parse_sql_date(text: &str) -> Option<i64> {
    let (y, rest) = text.split_once('-')?;
    let (m, d) = rest.split_once('-')?;
    if y.len() != 4 || !(1..=2).contains(&m.len()) || !(1..=2).contains(&d.len()) {
        return None;
    }
    let (y, m, d): (i64, u32, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some(days_from_civil(y, m, 1) + d - 1)
}

fn valid(y: i64, m: u32, d: u32) -> bool {
    if !(1..=12).contains(&m) || d == 0 {
        return false;
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    d <= days[m as usize - 1]
}

/// Checks a `TO_DATE` pattern: the letters y, M and d, and other
/// characters taken literally.
pub fn check_pattern(p: &str) -> Result<(), String> {
    match p
        .chars()
        .find(|c| c.is_ascii_alphabetic() && !matches!(c, 'y' | 'M' | 'd'))
    {
        Some(c) => Err(format!(
            "the pattern letter '{c}' in '{p}' is not read by TO_DATE here: use y, M and d \
             (yyyy-MM-dd, yyyyMMdd, dd/MM/yyyy)"
        )),
        None if !p.contains('y') || !p.contains('M') || !p.contains('d') => Err(format!(
            "the pattern '{p}' needs a year (y), a month (M) and a day (d)"
        )),
        // Java reads a two-letter year in a century that depends on the
        // day the job runs.
        None if p.contains("yy") && !p.contains("yyy") => Err(format!(
            "the two-digit year 'yy' in '{p}' is read by Java in the century around the current \
             date, which lowwater does not follow: write 'yyyy'"
        )),
        None => Ok(()),
    }
}

/// `text` read with pattern `p` (see [`check_pattern`]): each run of a
/// letter reads that many digits (a run of one, up to two; a year's run of
/// four or fewer, up to four), the rest must match; `None` otherwise.
fn parse_pattern(text: &str, p: &str) -> Option<i64> {
    let (mut y, mut m, mut d) = (None, None, None);
    let t = text.as_bytes();
    let pb = p.as_bytes();
    let (mut i, mut at) = (0, 0);
    while i < pb.len() {
        let c = pb[i];
        let run = pb[i..].iter().take_while(|&&x| x == c).count();
        if matches!(c, b'y' | b'M' | b'd') {
            // Adjacent numeric fields read exactly their width.
            let next_numeric = pb.get(i + run).is_some_and(u8::is_ascii_alphabetic);
            // A field not followed by another reads all its digits, as
            // Java's parser does.
            let max = if next_numeric { run } else { usize::MAX };
            let n = t[at..]
                .iter()
                .take(max)
                .take_while(|b| b.is_ascii_digit())
                .count();
            if n == 0 || (next_numeric && n != run) {
                return None;
            }
            let v: i64 = std::str::from_utf8(&t[at..at + n]).ok()?.parse().ok()?;
            if c == b'y' && v > 9999 {
                return None;
            }
            match c {
                b'y' => y = Some(v),
                b'M' => m = Some(u32::try_from(v).ok()?),
                _ => d = Some(u32::try_from(v).ok()?),
            }
            at += n;
        } else {
            for _ in 0..run {
                if t.get(at) != Some(&c) {
                    return None;
                }
                at += 1;
            }
        }
        i += run;
    }
    // Text after the pattern is not read (`DateFormat.parse`).
    let (y, m, d) = (y?, i64::from(m?), i64::from(d?));
    // Lenient: months past 12 and days past the month's end roll over.
    let months = y.checked_mul(12)?.checked_add(m - 1)?;
    let first = days_from_civil(months.div_euclid(12), (months.rem_euclid(12) + 1) as u32, 1);
    first.checked_add(d - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_both_ways() {
        assert_eq!(parse_date("2025-09-14"), Some(20345));
        assert_eq!(format_date(20345), "2025-09-14");
        assert_eq!(parse_date(" 2025-9-4 "), parse_date("2025-09-04"));
        assert_eq!(parse_date("2025-09"), parse_date("2025-09-01"));
        assert_eq!(parse_date("2025"), parse_date("2025-01-01"));
        assert_eq!(parse_date("02025-09-14"), Some(20345));
        assert_eq!(parse_date("2025-09-14 junk"), Some(20345));
        assert_eq!(parse_date("2025-09-14T10:00:00"), None);
        assert_eq!(parse_date("10000-01-01"), None);
        assert_eq!(parse_sql_date("2025-9-4"), parse_date("2025-09-04"));
        assert_eq!(parse_sql_date("2025-02-30"), parse_date("2025-03-02"));
        assert_eq!(parse_sql_date("2025-13-01"), None);
        assert_eq!(parse_sql_date(" 2025-09-14"), None);
        assert_eq!(parse_date("1969-12-31"), Some(-1));
        assert_eq!(format_date(-1), "1969-12-31");
        assert_eq!(parse_date("2024-02-29"), Some(19782));
        assert_eq!(parse_date("2025-02-29"), None);
        assert_eq!(parse_date("2025-09-14 12:30:00"), Some(20345));
        assert_eq!(parse_date("14.09.2025"), None);
        assert_eq!(format_date(days_from_civil(7, 1, 2)), "0007-01-02");
    }

    #[test]
    fn casts_and_midnights() {
        let ms = 1_757_851_200_000; // 2025-09-14 12:00:00 UTC
        assert_eq!(
            eval(&DateFn::FromTimestamp, Value::Timestamp(ms)),
            Ok(Value::Int(20345))
        );
        assert_eq!(
            eval(&DateFn::FromTimestamp, Value::Timestamp(-1)),
            Ok(Value::Int(-1)),
            "before 1970 the day is the one before"
        );
        assert_eq!(
            eval(&DateFn::ToTimestamp, Value::Int(20345)),
            Ok(Value::Timestamp(1_757_808_000_000))
        );
        assert_eq!(
            eval(&DateFn::ToText, Value::Int(20345)),
            Ok(Value::str("2025-09-14"))
        );
        assert!(eval(&DateFn::FromText, Value::str("soon")).is_err());
        assert_eq!(eval(&DateFn::ToText, Value::Null), Ok(Value::Null));
    }

    #[test]
    fn patterns() {
        let p = |text: &str, pattern: &str| {
            check_pattern(pattern).expect("pattern");
            eval(&DateFn::FromPattern(pattern.into()), Value::str(text)).expect("eval")
        };
        assert_eq!(p("20250914", "yyyyMMdd"), Value::Int(20345));
        assert_eq!(p("14/09/2025", "dd/MM/yyyy"), Value::Int(20345));
        assert_eq!(p("2025-9-14", "yyyy-M-d"), Value::Int(20345));
        assert_eq!(p("2025-13-14", "yyyy-MM-dd"), p("2026-01-14", "yyyy-MM-dd"));
        assert_eq!(p("20250431", "yyyyMMdd"), p("20250501", "yyyyMMdd"));
        assert_eq!(p("2025091", "yyyyMMdd"), p("20250901", "yyyyMMdd"));
        assert_eq!(p("abc", "yyyyMMdd"), Value::Null);
        assert_eq!(p("2025-09-14 10:00", "yyyy-MM-dd"), Value::Int(20345));
        assert_eq!(p("2025-009-14", "yyyy-MM-dd"), Value::Int(20345));
        assert_eq!(p("99999999999999999-01-01", "yyyy-MM-dd"), Value::Null);
        assert!(check_pattern("dd/MM/yy").is_err());
        assert!(check_pattern("yyyy-MM-dd HH").is_err());
        assert!(check_pattern("MM-dd").is_err());
    }
}
