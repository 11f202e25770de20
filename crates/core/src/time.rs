//! Event time and processing time as plain milliseconds.
//!
//! lowwater follows Flink's `TIMESTAMP(3)`: every instant is an `i64` count of
//! milliseconds since the Unix epoch. Event time (when something happened, read
//! from the record) and processing time (when lowwater looked at it, read from a
//! [`Clock`](crate::clock::Clock)) share the representation but never mix: event
//! time only ever moves watermarks and windows, processing time only ever drives
//! periodic emission, idleness and lag metrics.
//!
//! `i64::MIN` and `i64::MAX` are sentinels, exactly as in Flink: a watermark of
//! [`MIN_WATERMARK`] means "no event-time progress yet", [`MAX_WATERMARK`] means
//! "end of input, every window may fire".

/// Milliseconds since the Unix epoch (event time) or since an arbitrary origin
/// (processing time in tests and replays).
pub type Timestamp = i64;

/// A span of time in milliseconds.
pub type Millis = i64;

/// The watermark every split, subtask and channel starts at: no progress yet.
pub const MIN_WATERMARK: Timestamp = i64::MIN;

/// The watermark of a finished bounded input: every pending window fires.
pub const MAX_WATERMARK: Timestamp = i64::MAX;

/// `n` milliseconds.
pub const fn millis(n: i64) -> Millis {
    n
}

/// `n` seconds in milliseconds.
pub const fn secs(n: i64) -> Millis {
    n * 1_000
}

/// `n` minutes in milliseconds.
pub const fn mins(n: i64) -> Millis {
    n * 60_000
}

/// `n` hours in milliseconds.
pub const fn hours(n: i64) -> Millis {
    n * 3_600_000
}

/// Renders a timestamp for people: `MIN`, `MAX`, or `HH:MM:SS.mmm` within a day
/// (prefixed by the day number when it is not day 0). Used in diagnostics and
/// examples, where a relative clock is easier to read than an epoch number.
pub fn display_time(ts: Timestamp) -> String {
    match ts {
        MIN_WATERMARK => "MIN".to_string(),
        MAX_WATERMARK => "MAX".to_string(),
        _ => {
            let day = ts.div_euclid(86_400_000);
            let rem = ts.rem_euclid(86_400_000);
            let (h, m, s, ms) = (
                rem / 3_600_000,
                rem / 60_000 % 60,
                rem / 1_000 % 60,
                rem % 1_000,
            );
            let clock = format!("{h:02}:{m:02}:{s:02}.{ms:03}");
            if day == 0 {
                clock
            } else {
                format!("d{day} {clock}")
            }
        }
    }
}

/// Renders a duration for people: `850ms`, `12.5s`, `34m 10s`, `2h 42m`.
pub fn display_duration(d: Millis) -> String {
    if d < 0 {
        return format!("-{}", display_duration(d.saturating_neg()));
    }
    match d {
        0..=999 => format!("{d}ms"),
        1_000..=59_999 => {
            if d % 1_000 == 0 {
                format!("{}s", d / 1_000)
            } else {
                format!("{:.1}s", d as f64 / 1_000.0)
            }
        }
        60_000..=3_599_999 => format!("{}m {}s", d / 60_000, d / 1_000 % 60),
        _ => format!("{}h {}m", d / 3_600_000, d / 60_000 % 60),
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `(year, month, day)` of a day number since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Formats epoch milliseconds as `yyyy-MM-dd{sep}HH:mm:ss.SSS` in UTC
/// (`sep` is `' '` for Flink's SQL format, `'T'` for ISO-8601).
pub fn format_timestamp(ts: Timestamp, sep: char) -> String {
    let days = ts.div_euclid(86_400_000);
    let ms = ts.rem_euclid(86_400_000);
    let (y, mo, d) = civil_from_days(days);
    format!(
        "{y:04}-{mo:02}-{d:02}{sep}{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1_000 % 60,
        ms % 1_000
    )
}

/// Parses `yyyy-MM-dd[ |T]HH:mm[:ss[.fraction]][Z]` as UTC epoch
/// milliseconds (fractions beyond milliseconds are truncated). `None` when
/// the text is not such a timestamp or names an impossible date.
pub fn parse_timestamp(text: &str) -> Option<Timestamp> {
    parse_timestamp_with(text, &mut DateCache::default())
}

/// The last date [`parse_timestamp_with`] read: its ten characters and
/// its first millisecond. Timestamps of a stream mostly share their date,
/// which then is neither validated nor converted again.
#[derive(Debug, Clone, Copy, Default)]
pub struct DateCache(Option<([u8; 10], Timestamp)>);

/// [`parse_timestamp`], with the date taken from `cache` when `text`
/// starts with the cached one (the same result: the date's validity and
/// value depend on its ten characters only).
pub fn parse_timestamp_with(text: &str, cache: &mut DateCache) -> Option<Timestamp> {
    let b = text.trim().as_bytes();
    let date: [u8; 10] = b.get(..10)?.try_into().ok()?;
    let day = match cache.0 {
        Some((d, day)) if d == date => day,
        _ => {
            let day = parse_date(&date)?;
            cache.0 = Some((date, day));
            day
        }
    };
    Some(day + parse_time(b)?)
}

/// The first millisecond of the date `yyyy-MM-dd`, if it is one.
fn parse_date(b: &[u8; 10]) -> Option<Timestamp> {
    let (y, mo, d) = (digits(b, 0..4)?, digits(b, 5..7)?, digits(b, 8..10)?);
    if b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo as u32) {
        return None;
    }
    Some(days_from_civil(y, mo as u32, d as u32) * 86_400_000)
}

/// The milliseconds of the day in what follows a timestamp's date (`b`
/// is the whole text): nothing, or `[ |T]HH:mm[:ss[.fraction]][Z]`.
fn parse_time(b: &[u8]) -> Option<Timestamp> {
    let mut ms = 0;
    let mut i = 10;
    if i < b.len() {
        if b[i] != b' ' && b[i] != b'T' {
            return None;
        }
        let (h, mi) = (digits(b, 11..13)?, digits(b, 14..16)?);
        if b.get(13) != Some(&b':') || h > 23 || mi > 59 {
            return None;
        }
        ms = h * 3_600_000 + mi * 60_000;
        i = 16;
        if b.get(i) == Some(&b':') {
            let s = digits(b, 17..19)?;
            if s > 59 {
                return None;
            }
            ms += s * 1_000;
            i = 19;
            if b.get(i) == Some(&b'.') {
                let places = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                if places == 0 {
                    return None;
                }
                let mut frac = 0;
                for k in 0..3 {
                    frac = frac * 10
                        + b.get(i + 1 + k)
                            .filter(|_| k < places)
                            .map_or(0, |c| i64::from(c - b'0'));
                }
                ms += frac;
                i += 1 + places;
            }
        }
        if b.get(i) == Some(&b'Z') {
            i += 1;
        }
        if i != b.len() {
            return None;
        }
    }
    Some(ms)
}

/// A fixed-width field of decimal digits (read without allocating).
fn digits(b: &[u8], r: std::ops::Range<usize>) -> Option<i64> {
    let part = b.get(r)?;
    if part.is_empty() {
        return None;
    }
    part.iter().try_fold(0i64, |n, c| {
        c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
    })
}

fn days_in_month(y: i64, m: u32) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cached_date_parses_as_without_the_cache() {
        let texts = [
            "2025-09-14 03:20:00.123",
            "2025-09-14 03:20:01",
            "2025-09-14T23:59:59.9999Z",
            "2025-09-14 24:00:00",
            "2025-09-14",
            "2025-09-14 ",
            "2025-09-14x03:20",
            "2025-09-15 00:00:00.5",
            "2025-02-29 00:00:00",
            "2024-02-29 00:00:00",
            "2024-02-29 00:00:0",
            "2025-09-1",
            " 2024-02-29 12:00 ",
            "2025-09-14 03:20:00.123",
        ];
        let mut cache = DateCache::default();
        for t in texts {
            assert_eq!(
                parse_timestamp_with(t, &mut cache),
                parse_timestamp(t),
                "{t}"
            );
        }
        assert_eq!(parse_timestamp("2025-02-29 00:00:00"), None);
        assert_eq!(
            parse_timestamp("2025-09-14 03:20:00.123"),
            Some(1_757_820_000_123)
        );
    }

    #[test]
    fn timestamps_round_trip_through_text() {
        let t = 1_757_820_000_123;
        assert_eq!(format_timestamp(t, ' '), "2025-09-14 03:20:00.123");
        assert_eq!(parse_timestamp("2025-09-14 03:20:00.123"), Some(t));
        assert_eq!(parse_timestamp("2025-09-14T03:20:00.123456Z"), Some(t));
        assert_eq!(parse_timestamp("2025-09-14T03:20"), Some(t - 123));
        assert_eq!(parse_timestamp("1969-12-31 23:59:59.999"), Some(-1));
        assert_eq!(format_timestamp(-1, 'T'), "1969-12-31T23:59:59.999");
        assert_eq!(
            parse_timestamp("2024-02-29"),
            Some(days_from_civil(2024, 2, 29) * 86_400_000)
        );
        for bad in [
            "2023-02-29",
            "2025-13-01",
            "2025-09-14 25:00",
            "yesterday",
            "2025-09-14 03:20:00.",
            "2025-09-14 03:20:00x",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad}");
        }
    }

    #[test]
    fn civil_conversion_is_inverse() {
        for days in [-800_000, -1, 0, 1, 19_000, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }

    #[test]
    fn units_compose() {
        assert_eq!(hours(1), mins(60));
        assert_eq!(mins(1), secs(60));
        assert_eq!(secs(1), millis(1_000));
    }

    #[test]
    fn display_time_handles_sentinels_and_days() {
        assert_eq!(display_time(MIN_WATERMARK), "MIN");
        assert_eq!(display_time(MAX_WATERMARK), "MAX");
        assert_eq!(display_time(hours(3) + mins(37) + secs(28)), "03:37:28.000");
        assert_eq!(display_time(hours(25) + 5), "d1 01:00:00.005");
        assert_eq!(display_time(-1), "d-1 23:59:59.999");
    }

    #[test]
    fn display_duration_picks_a_readable_unit() {
        assert_eq!(display_duration(850), "850ms");
        assert_eq!(display_duration(secs(12) + 500), "12.5s");
        assert_eq!(display_duration(secs(60)), "1m 0s");
        assert_eq!(display_duration(hours(2) + mins(42)), "2h 42m");
        assert_eq!(display_duration(-secs(2)), "-2s");
    }
}
