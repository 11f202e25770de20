//! Numbers as Java writes them, which is how Flink's formats and casts
//! print them: `Double.toString` and `Float.toString`, as Java 17 (which
//! Flink runs on) computes them ([`crate::javafmt`]).

/// Formats a float as Java 17's `Float.toString` does.
pub fn java_float(f: f32) -> String {
    crate::javafmt::float_to_string(f)
}

/// Formats a double as Java 17's `Double.toString` (and so Jackson) does:
/// plain notation for magnitudes in [1e-3, 1e7), otherwise `d.dddE±n`;
/// `NaN`, `Infinity`, `-Infinity`.
pub fn java_double(d: f64) -> String {
    crate::javafmt::double_to_string(d)
}

/// Whether `text` opens more than `limit` arrays or objects inside each
/// other (brackets inside strings do not count). A document shorter than
/// `limit` bytes cannot, so most records are not scanned at all.
pub fn nests_deeper(text: &str, limit: usize) -> bool {
    if text.len() <= limit {
        return false;
    }
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in text.as_bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}
