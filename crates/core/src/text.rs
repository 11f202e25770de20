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
