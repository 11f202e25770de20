//! What the bench binaries read of their own process from /proc (CPU time
//! and peak resident memory) and of their environment (sizes). One file,
//! included with `#[path]` by the benches of every crate (each uses part of
//! it).
#![allow(dead_code)]

/// This process's CPU time so far (user + system), seconds.
pub fn cpu_seconds() -> f64 {
    stat_cpu_seconds("/proc/self/stat")
}

/// The calling thread's CPU time so far, seconds.
pub fn thread_cpu_seconds() -> f64 {
    stat_cpu_seconds("/proc/thread-self/stat")
}

/// utime + stime of a /proc stat file: fields 14 and 15, in clock ticks
/// (100 per second on Linux).
fn stat_cpu_seconds(path: &str) -> f64 {
    let stat = std::fs::read_to_string(path).unwrap_or_default();
    // The fields after the command name (which may hold spaces).
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

/// The process's peak resident set (VmHWM), MB.
pub fn peak_rss_mb() -> f64 {
    status_kb("VmHWM:") / 1024.0
}

/// The process's resident set now (VmRSS), bytes.
pub fn rss_bytes() -> f64 {
    status_kb("VmRSS:") * 1024.0
}

/// A `/proc/self/status` line's kB figure (0 when absent).
fn status_kb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// The number in environment variable `name` (a bench's size), or
/// `default` when it is unset or not a number.
pub fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
