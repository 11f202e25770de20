//! Numbers as Java writes them, which is how Flink's formats and casts
//! print them: `Double.toString` and `Float.toString`.

/// Formats a float as Java's `Float.toString` does: the shortest digits
/// that read back as the same float, in Java's notation (as
/// [`java_double`]).
pub fn java_float(f: f32) -> String {
    if !f.is_finite() {
        return java_double(f64::from(f));
    }
    java_notation(f64::from(f.abs()), format!("{f:?}"), format!("{f:e}"))
}

/// Formats a double as Java's `Double.toString` (and so Jackson) does:
/// shortest round-trip digits, plain notation for magnitudes in [1e-3, 1e7),
/// otherwise `d.dddE±n`; `NaN`, `Infinity`, `-Infinity`.
pub fn java_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    java_notation(d.abs(), format!("{d:?}"), format!("{d:e}"))
}

/// Java's choice between the plain shortest digits (`plain`, Rust's `{:?}`)
/// and `m.mmmE±n` (from `sci`, Rust's `{:e}`), by magnitude `a`.
fn java_notation(a: f64, plain: String, sci: String) -> String {
    if a == 0.0 || (1e-3..1e7).contains(&a) {
        return plain;
    }
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    format!("{mantissa}E{exp}")
}
