//! Time functions with Flink's result types: `TIMESTAMP '...'` literals,
//! `EXTRACT(unit FROM ts)` and `YEAR(ts)`, `MONTH(ts)`, ..., `FLOOR(ts TO
//! unit)`, `CEIL(ts TO unit)` and `DATE_FORMAT(ts, 'pattern')`.
//!
//! Everything is UTC (lowwater's `table.local-time-zone`). Before 1970
//! lowwater follows the calendar where Flink's EXTRACT truncates toward zero
//! (`EXTRACT(HOUR FROM TIMESTAMP '1969-12-31 21:00:00')` is -3 in Flink, 21
//! here; SEMANTICS.md); FLOOR, CEIL and DATE_FORMAT agree with Flink.
//!
//! Here: the functions, the calendar and their evaluation (compiling them
//! from SQL is `compile_temporal`'s).

use std::sync::Arc;

use lowwater_core::time::{civil_from_days, days_from_civil};
use lowwater_core::Value;

const DAY: i64 = 86_400_000;

/// A calendar unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// YEAR.
    Year,
    /// QUARTER (1-4).
    Quarter,
    /// MONTH (1-12).
    Month,
    /// WEEK: the ISO-8601 week of the year (1-53).
    Week,
    /// DOY: day of the year (1-366).
    DayOfYear,
    /// DOW: day of the week, Sunday = 1 to Saturday = 7.
    DayOfWeek,
    /// DAY of the month.
    Day,
    /// HOUR (0-23).
    Hour,
    /// MINUTE (0-59).
    Minute,
    /// SECOND (0-59).
    Second,
    /// MILLISECOND (0-999, within the second).
    Millisecond,
}

/// A time function.
#[derive(Debug, Clone, PartialEq)]
pub enum TimeFn {
    /// `EXTRACT(unit FROM ts)`, a BIGINT.
    Extract(Unit),
    /// `FLOOR(ts TO unit)`.
    Floor(Unit),
    /// `CEIL(ts TO unit)`.
    Ceil(Unit),
    /// `DATE_FORMAT(ts, pattern)`.
    Format(Arc<[Piece]>),
}

/// One element of a `DATE_FORMAT` pattern.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Text copied as it is.
    Text(String),
    /// A pattern letter repeated `n` times (`yyyy`, `MM`, `SSS`, ...).
    Field(char, usize),
}

/// Splits a Java `DateTimeFormatter` pattern into pieces. The letters
/// supported are the ones timestamps need: y M d H h m s S E a D.
pub(crate) fn pattern_pieces(p: &str) -> std::result::Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let chars: Vec<char> = p.chars().collect();
    let mut i = 0;
    let mut text = String::new();
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            // 'quoted text'; '' is a quote.
            if chars.get(i + 1) == Some(&'\'') {
                text.push('\'');
                i += 2;
                continue;
            }
            let mut j = i + 1;
            loop {
                match chars.get(j) {
                    None => return Err(format!("unterminated quote in '{p}'")),
                    Some('\'') if chars.get(j + 1) == Some(&'\'') => {
                        text.push('\'');
                        j += 2;
                    }
                    Some('\'') => break,
                    Some(&ch) => {
                        text.push(ch);
                        j += 1;
                    }
                }
            }
            i = j + 1;
        } else if c.is_ascii_alphabetic() {
            if !"yMdHhmsSEaD".contains(c) {
                return Err(format!(
                    "pattern letter '{c}' is not supported (supported: y M d H h m s S E a D)"
                ));
            }
            let n = chars[i..].iter().take_while(|&&x| x == c).count();
            if !text.is_empty() {
                out.push(Piece::Text(std::mem::take(&mut text)));
            }
            out.push(Piece::Field(c, n));
            i += n;
        } else {
            text.push(c);
            i += 1;
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// The calendar fields of a timestamp.
struct Civil {
    days: i64,
    year: i64,
    month: u32,
    day: u32,
    ms_of_day: i64,
}

fn civil(ts: i64) -> Civil {
    let days = ts.div_euclid(DAY);
    let (year, month, day) = civil_from_days(days);
    Civil {
        days,
        year,
        month,
        day,
        ms_of_day: ts.rem_euclid(DAY),
    }
}

/// Monday = 0 ... Sunday = 6 (1970-01-01 was a Thursday).
fn weekday(days: i64) -> i64 {
    (days + 3).rem_euclid(7)
}

/// The ISO-8601 week of the year.
fn iso_week(c: &Civil) -> i64 {
    let doy = c.days - days_from_civil(c.year, 1, 1);
    let w = (doy - weekday(c.days) + 10) / 7;
    let weeks_in = |y: i64| {
        let jan1 = weekday(days_from_civil(y, 1, 1));
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        if jan1 == 3 || (leap && jan1 == 2) {
            53
        } else {
            52
        }
    };
    if w < 1 {
        weeks_in(c.year - 1)
    } else if w > weeks_in(c.year) {
        1
    } else {
        w
    }
}

fn extract(u: Unit, ts: i64) -> i64 {
    let c = civil(ts);
    match u {
        Unit::Year => c.year,
        Unit::Quarter => i64::from((c.month - 1) / 3 + 1),
        Unit::Month => i64::from(c.month),
        Unit::Week => iso_week(&c),
        Unit::DayOfYear => c.days - days_from_civil(c.year, 1, 1) + 1,
        Unit::DayOfWeek => (weekday(c.days) + 1) % 7 + 1,
        Unit::Day => i64::from(c.day),
        Unit::Hour => c.ms_of_day / 3_600_000,
        Unit::Minute => c.ms_of_day / 60_000 % 60,
        Unit::Second => c.ms_of_day / 1_000 % 60,
        Unit::Millisecond => c.ms_of_day % 1_000,
    }
}

fn floor(u: Unit, ts: i64) -> i64 {
    let fixed = |n: i64| ts - ts.rem_euclid(n);
    let c = civil(ts);
    match u {
        Unit::Millisecond => ts,
        Unit::Second => fixed(1_000),
        Unit::Minute => fixed(60_000),
        Unit::Hour => fixed(3_600_000),
        Unit::Day | Unit::DayOfYear | Unit::DayOfWeek => fixed(DAY),
        // Weeks start on Sunday (Calcite's floor).
        Unit::Week => (c.days - (weekday(c.days) + 1) % 7) * DAY,
        Unit::Month => days_from_civil(c.year, c.month, 1) * DAY,
        Unit::Quarter => days_from_civil(c.year, (c.month - 1) / 3 * 3 + 1, 1) * DAY,
        Unit::Year => days_from_civil(c.year, 1, 1) * DAY,
    }
}

fn ceil(u: Unit, ts: i64) -> i64 {
    let f = floor(u, ts);
    if f == ts {
        return ts;
    }
    // The next boundary: the floor of a time past this unit.
    let c = civil(f);
    match u {
        Unit::Millisecond => ts,
        Unit::Second => f.saturating_add(1_000),
        Unit::Minute => f.saturating_add(60_000),
        Unit::Hour => f.saturating_add(3_600_000),
        Unit::Day | Unit::DayOfYear | Unit::DayOfWeek => f.saturating_add(DAY),
        Unit::Week => f.saturating_add(7 * DAY),
        Unit::Month | Unit::Quarter | Unit::Year => {
            let months = match u {
                Unit::Month => 1,
                Unit::Quarter => 3,
                _ => 12,
            };
            let m0 = c.year * 12 + i64::from(c.month - 1) + months;
            days_from_civil(m0.div_euclid(12), (m0.rem_euclid(12) + 1) as u32, 1)
                .saturating_mul(DAY)
        }
    }
}

fn format(pieces: &[Piece], ts: i64) -> String {
    let c = civil(ts);
    let mut out = String::new();
    let num = |out: &mut String, v: i64, n: usize| {
        out.push_str(&format!("{v:0n$}"));
    };
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Field(ch, n) => {
                let n = *n;
                match ch {
                    'y' if n == 2 => num(&mut out, c.year.rem_euclid(100), 2),
                    // Year of era: 1 BC is year 1.
                    'y' => num(&mut out, if c.year > 0 { c.year } else { 1 - c.year }, n),
                    'M' if n >= 4 => out.push_str(MONTHS[c.month as usize - 1]),
                    'M' if n == 3 => out.push_str(&MONTHS[c.month as usize - 1][..3]),
                    'M' => num(&mut out, i64::from(c.month), n),
                    'd' => num(&mut out, i64::from(c.day), n),
                    'D' => num(&mut out, c.days - days_from_civil(c.year, 1, 1) + 1, n),
                    'H' => num(&mut out, c.ms_of_day / 3_600_000, n),
                    'h' => num(&mut out, (c.ms_of_day / 3_600_000 + 11) % 12 + 1, n),
                    'm' => num(&mut out, c.ms_of_day / 60_000 % 60, n),
                    's' => num(&mut out, c.ms_of_day / 1_000 % 60, n),
                    'S' => {
                        // A fraction of the second, n digits.
                        let ms = format!("{:03}", c.ms_of_day % 1_000);
                        let digits: String =
                            ms.chars().chain(std::iter::repeat('0')).take(n).collect();
                        out.push_str(&digits);
                    }
                    'E' if n >= 4 => out.push_str(WEEKDAYS[weekday(c.days) as usize]),
                    'E' => out.push_str(&WEEKDAYS[weekday(c.days) as usize][..3]),
                    'a' => out.push_str(if c.ms_of_day < 12 * 3_600_000 {
                        "AM"
                    } else {
                        "PM"
                    }),
                    _ => {}
                }
            }
        }
    }
    out
}

/// Evaluates `f` over its argument (NULL in, NULL out).
pub fn eval(f: &TimeFn, x: Value) -> Value {
    let Value::Timestamp(ts) = x else {
        return Value::Null;
    };
    match f {
        TimeFn::Extract(u) => Value::Int(extract(*u, ts)),
        TimeFn::Floor(u) => Value::Timestamp(floor(*u, ts)),
        TimeFn::Ceil(u) => Value::Timestamp(ceil(*u, ts)),
        TimeFn::Format(p) => Value::str(&format(p, ts)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lowwater_core::time::parse_timestamp;

    fn ts(s: &str) -> i64 {
        parse_timestamp(s).expect("timestamp")
    }

    #[test]
    fn extract_follows_the_calendar_before_1970() {
        let t = ts("1969-12-31 21:00:00");
        assert_eq!(extract(Unit::Hour, t), 21);
        assert_eq!(extract(Unit::Year, t), 1969);
        assert_eq!(extract(Unit::DayOfWeek, t), 4, "a Wednesday");
        assert_eq!(extract(Unit::Week, ts("2021-01-03 00:00:00")), 53);
        assert_eq!(extract(Unit::Week, ts("2024-12-30 00:00:00")), 1);
        assert_eq!(extract(Unit::DayOfYear, ts("2024-12-31 10:00:00")), 366);
    }

    #[test]
    fn floor_and_ceil_to_units() {
        let t = ts("2025-09-14 12:34:56.789");
        assert_eq!(floor(Unit::Hour, t), ts("2025-09-14 12:00:00"));
        assert_eq!(ceil(Unit::Hour, t), ts("2025-09-14 13:00:00"));
        assert_eq!(floor(Unit::Week, t), ts("2025-09-14 00:00:00"), "a Sunday");
        assert_eq!(ceil(Unit::Month, t), ts("2025-10-01 00:00:00"));
        assert_eq!(
            ceil(Unit::Year, ts("2025-01-01 00:00:00")),
            ts("2025-01-01 00:00:00")
        );
        assert_eq!(floor(Unit::Quarter, t), ts("2025-07-01 00:00:00"));
        assert_eq!(
            floor(Unit::Minute, ts("1969-12-31 23:59:59.500")),
            ts("1969-12-31 23:59:00")
        );
    }

    #[test]
    fn date_format_patterns() {
        let p = pattern_pieces("yyyy-MM-dd'T'HH:mm:ss.SSS EEE MMM a ''").expect("pattern");
        assert_eq!(
            format(&p, ts("2025-09-14 15:04:05.007")),
            "2025-09-14T15:04:05.007 Sun Sep PM '"
        );
        assert!(pattern_pieces("yyyy-QQ").is_err());
        assert!(pattern_pieces("'open").is_err());
    }
}
