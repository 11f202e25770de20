//! Figures the bench binaries print alike.

/// The fastest of `runs` (seconds): the run least disturbed by the
/// machine's noise.
pub fn best(runs: &[f64]) -> f64 {
    runs.iter().copied().fold(f64::MAX, f64::min)
}

/// Every run's seconds, for the line under a ratio.
pub fn runs(runs: &[f64]) -> String {
    runs.iter()
        .map(|s| format!("{s:.2}"))
        .collect::<Vec<_>>()
        .join(", ")
}
