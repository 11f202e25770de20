//! Command-line values: durations as lowwater prints them, `-` for
//! standard output, and addresses without their obvious parts.

use lowwater_core::Millis;

use crate::UserError;

/// A duration on the command line: what lowwater prints (`3m 0s`, `1.5s`,
/// `1h 30m`, `500ms`) and the usual forms (`1h30m`, `90 s`, `2 min`,
/// `1 day`). A bare number is refused (Flink's job files read it as
/// milliseconds, which on a command line is rarely what was meant).
pub fn duration(flag: &str, text: &str) -> Result<Millis, UserError> {
    let t = text.trim();
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(UserError(format!(
            "{flag} '{t}': give a unit; did you mean '{t} s'? (or '{t} ms', '{t} min')"
        )));
    }
    let bad = || {
        UserError(format!(
            "{flag} '{text}' is not a duration; write e.g. '30 s', '500 ms', '5 min' or '1h30m'"
        ))
    };
    let mut total: f64 = 0.0;
    let mut rest = t;
    let mut parts = 0;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let n: f64 = rest[..num_len].parse().map_err(|_| bad())?;
        rest = rest[num_len..].trim_start();
        let unit_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let factor = match rest[..unit_len].to_ascii_lowercase().as_str() {
            "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => 1.0,
            "s" | "sec" | "secs" | "second" | "seconds" => 1_000.0,
            "m" | "min" | "mins" | "minute" | "minutes" => 60_000.0,
            "h" | "hour" | "hours" => 3_600_000.0,
            "d" | "day" | "days" => 86_400_000.0,
            _ => return Err(bad()),
        };
        total += n * factor;
        parts += 1;
        rest = rest[unit_len..].trim_start();
    }
    if parts == 0 || !total.is_finite() || total < 0.0 || total > i64::MAX as f64 {
        return Err(bad());
    }
    Ok(total.round() as Millis)
}

/// `--http :PORT` is loopback on that port.
pub fn http_addr(addr: &str) -> String {
    match addr.strip_prefix(':') {
        Some(port) => format!("127.0.0.1:{port}"),
        None => addr.to_string(),
    }
}

/// A job's URL for `status`: `http://` is added when no scheme is given.
pub fn url(u: &str) -> String {
    if u.contains("://") {
        u.to_string()
    } else {
        format!("http://{}", http_addr(u))
    }
}

/// A memory size on the command line: `64MB`, `256 MiB`, `1 GB`, `512kb`
/// (units of 1024, as Flink's memory sizes are) or a number of bytes.
pub fn memory_size(flag: &str, text: &str) -> Result<usize, UserError> {
    let t = text.trim();
    let bad = || {
        UserError(format!(
            "{flag} '{text}' is not a memory size; write e.g. '64 MB', '256 MiB' or '1 GB'"
        ))
    };
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let n: f64 = t[..split].parse().map_err(|_| bad())?;
    let factor: f64 = match t[split..].trim().to_ascii_lowercase().as_str() {
        "" | "b" | "bytes" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => 1024.0 * 1024.0,
        "g" | "gb" | "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    let bytes = n * factor;
    if !bytes.is_finite() || bytes < 1.0 || bytes > usize::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lowwater_core::time::display_duration;

    #[test]
    fn every_duration_lowwater_prints_reads_back() {
        let mut d: Millis = 0;
        while d < 40 * 86_400_000 {
            let shown = display_duration(d);
            let back = duration("--duration", &shown).unwrap_or_else(|e| panic!("{shown}: {e}"));
            assert_eq!(display_duration(back), shown, "{d}");
            d = d * 3 / 2 + 7;
        }
        for (text, ms) in [
            ("1h30m", 5_400_000),
            ("1h 30m", 5_400_000),
            ("90 s", 90_000),
            ("2 min", 120_000),
            ("1.5s", 1_500),
            ("500ms", 500),
            ("1 day", 86_400_000),
            ("3m 0s", 180_000),
        ] {
            assert_eq!(duration("--x", text).map_err(|e| e.0), Ok(ms), "{text}");
        }
        let e = duration("--duration", "5").expect_err("bare");
        assert!(e.0.contains("did you mean '5 s'?"), "{}", e.0);
        assert!(duration("--duration", "5 fortnights").is_err());
        assert!(duration("--duration", "").is_err());
    }

    #[test]
    fn addresses_fill_in_the_obvious() {
        assert_eq!(http_addr(":9250"), "127.0.0.1:9250");
        assert_eq!(http_addr("0.0.0.0:1"), "0.0.0.0:1");
        assert_eq!(url("127.0.0.1:9251"), "http://127.0.0.1:9251");
        assert_eq!(url(":9251"), "http://127.0.0.1:9251");
        assert_eq!(url("https://h:1/x"), "https://h:1/x");
    }

    #[test]
    fn memory_sizes_take_flinks_units() {
        assert_eq!(memory_size("--sort-buffer", "64MB").ok(), Some(64 << 20));
        assert_eq!(memory_size("--sort-buffer", "1 GiB").ok(), Some(1 << 30));
        assert_eq!(memory_size("--sort-buffer", "512kb").ok(), Some(512 << 10));
        assert_eq!(memory_size("--sort-buffer", "4096").ok(), Some(4096));
        for bad in ["", "MB", "-1 MB", "0", "12 parsecs"] {
            let e = memory_size("--sort-buffer", bad).expect_err(bad);
            assert!(e.0.contains("not a memory size"), "{bad}: {}", e.0);
        }
    }
}
