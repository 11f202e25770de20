//! A window assigner as the explanations speak of it: in words (`TUMBLE
//! 1m 0s`, for `explain` and the dataflow graph's text) and how often its
//! windows end (what a stall's advice and `explain`'s warnings choose an
//! idle timeout from). It imports nothing of this crate.

use lowwater_core::time::display_duration;
use lowwater_core::window::assigner::WindowAssigner;
use lowwater_core::Millis;

/// `a` in words: `TUMBLE 1m 0s`, `HOP size 10m 0s slide 1m 0s`.
pub(crate) fn window_text(a: &WindowAssigner) -> String {
    let d = |m| display_duration(m);
    match *a {
        WindowAssigner::Tumbling { size, offset: 0 } => format!("TUMBLE {}", d(size)),
        WindowAssigner::Tumbling { size, offset } => {
            format!("TUMBLE {} offset {}", d(size), d(offset))
        }
        WindowAssigner::Hopping { size, slide, .. } => {
            format!("HOP size {} slide {}", d(size), d(slide))
        }
        WindowAssigner::Cumulate { step, max_size, .. } => {
            format!("CUMULATE step {} up to {}", d(step), d(max_size))
        }
        WindowAssigner::Session { gap } => format!("SESSION gap {}", d(gap)),
    }
}

/// How often windows of `a` end: a TUMBLE's size, a HOP's slide, a
/// CUMULATE's step, a SESSION's gap.
pub fn window_pace(a: &WindowAssigner) -> Millis {
    match *a {
        WindowAssigner::Tumbling { size, .. } => size,
        WindowAssigner::Hopping { slide, .. } => slide,
        WindowAssigner::Cumulate { step, .. } => step,
        WindowAssigner::Session { gap } => gap,
    }
}
