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

#[cfg(test)]
mod tests {
    use super::*;

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
