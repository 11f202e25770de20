//! Window assigners: which windows a record with event time `ts` belongs to.
//!
//! Formulas follow Flink (`TimeWindow.getWindowStartWithOffset`,
//! `TumblingEventTimeWindows`, `SlidingEventTimeWindows`, Flink SQL's
//! `CumulativeSliceAssigner`, `EventTimeSessionWindows`):
//! - start = `ts - ((ts - offset) mod size)` with the remainder taken so that
//!   negative timestamps land in the window below them;
//! - a window `[start, end)` has `max_timestamp = end - 1` and fires once the
//!   watermark reaches `end - 1`;
//! - a timestamp of `MIN` (a missing time) is an error, never a window.

use crate::error::{Error, Result};
use crate::time::{Millis, Timestamp, MIN_WATERMARK};
use serde::{Deserialize, Serialize};

/// A time window `[start, end)`. Ordered by end, then start: the order in
/// which windows fire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Window {
    /// Inclusive start.
    pub start: Timestamp,
    /// Exclusive end.
    pub end: Timestamp,
}

impl Window {
    /// `[start, end)`.
    pub const fn new(start: Timestamp, end: Timestamp) -> Self {
        Window { start, end }
    }

    /// The last event time inside the window, `end - 1`: the watermark at
    /// which it fires and the timestamp its results carry (`window_time`).
    pub const fn max_timestamp(&self) -> Timestamp {
        self.end.saturating_sub(1)
    }

    /// Whether two windows overlap or touch (Flink's `TimeWindow.intersects`,
    /// which is what session merging uses).
    pub fn intersects(&self, other: &Window) -> bool {
        self.start <= other.end && self.end >= other.start
    }

    /// The smallest window covering both.
    pub fn cover(&self, other: &Window) -> Window {
        Window::new(self.start.min(other.start), self.end.max(other.end))
    }
}

impl Ord for Window {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.end, self.start).cmp(&(other.end, other.start))
    }
}

impl PartialOrd for Window {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Flink's `TimeWindow.getWindowStartWithOffset`, correct for negative
/// times. `None` when the start is not representable (a timestamp within one
/// window of `MIN`) or `size` is not positive.
pub fn window_start(ts: Timestamp, offset: Millis, size: Millis) -> Option<Timestamp> {
    if size <= 0 {
        return None;
    }
    let r = ts.checked_sub(offset)? % size;
    if r < 0 {
        ts.checked_sub(r + size)
    } else {
        ts.checked_sub(r)
    }
}

/// The kinds of event-time windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WindowAssigner {
    /// `TUMBLE(size[, offset])`: fixed, non-overlapping windows.
    Tumbling {
        /// Window length.
        size: Millis,
        /// Shift of window starts from the epoch; `|offset| < size`.
        offset: Millis,
    },
    /// `HOP(slide, size[, offset])`: windows of `size` starting every `slide`;
    /// as in Flink SQL, `size` must be a multiple of `slide`, so that every
    /// record belongs to at least one window.
    Hopping {
        /// Window length.
        size: Millis,
        /// Distance between window starts.
        slide: Millis,
        /// Shift of window starts; `|offset| < slide`.
        offset: Millis,
    },
    /// `CUMULATE(step, max_size[, offset])`: windows that grow by `step` from a
    /// common start until they reach `max_size`.
    Cumulate {
        /// Growth step; `max_size` must be a multiple of it.
        step: Millis,
        /// Length of the largest window.
        max_size: Millis,
        /// Shift of window starts; `|offset| < max_size`.
        offset: Millis,
    },
    /// `SESSION(gap)`: `[ts, ts + gap)` per record, merged while they touch.
    Session {
        /// Inactivity gap that closes a session.
        gap: Millis,
    },
}

impl WindowAssigner {
    /// Tumbling windows of `size` without offset.
    pub fn tumbling(size: Millis) -> Self {
        WindowAssigner::Tumbling { size, offset: 0 }
    }

    /// Hopping windows of `size` every `slide`, without offset.
    pub fn hopping(size: Millis, slide: Millis) -> Self {
        WindowAssigner::Hopping {
            size,
            slide,
            offset: 0,
        }
    }

    /// Cumulating windows growing by `step` up to `max_size`, without offset.
    pub fn cumulate(step: Millis, max_size: Millis) -> Self {
        WindowAssigner::Cumulate {
            step,
            max_size,
            offset: 0,
        }
    }

    /// Session windows closed by `gap` of inactivity.
    pub fn session(gap: Millis) -> Self {
        WindowAssigner::Session { gap }
    }

    /// How Flink slices a HOP or CUMULATE window to share its slices: the
    /// slice size (a HOP's `gcd(size, slide)`, a CUMULATE's step), the
    /// offset the slices are aligned to, and whether a window merges its
    /// slices from the last back to the first (HOP) or forward (CUMULATE).
    /// `None` for windows Flink does not share (TUMBLE, SESSION), and for
    /// windows of more than [`MAX_SLICES`] slices: lowwater keeps a window
    /// per (window, key), so their slices would cost the square of their
    /// number; those accumulate per window (their last bits may differ).
    pub fn slicing(&self) -> Option<(Millis, Millis, bool)> {
        let (slice, offset, from_last, size) = match *self {
            WindowAssigner::Hopping {
                size,
                slide,
                offset,
            } => (gcd(size, slide), offset, true, size),
            WindowAssigner::Cumulate {
                step,
                max_size,
                offset,
            } => (step, offset, false, max_size),
            _ => return None,
        };
        (size / slice <= MAX_SLICES).then_some((slice, offset, from_last))
    }

    /// Whether windows merge (sessions).
    pub fn is_merging(&self) -> bool {
        matches!(self, WindowAssigner::Session { .. })
    }

    /// The longest window this assigner produces before merging.
    pub fn max_size(&self) -> Millis {
        match *self {
            WindowAssigner::Tumbling { size, .. } | WindowAssigner::Hopping { size, .. } => size,
            WindowAssigner::Cumulate { max_size, .. } => max_size,
            WindowAssigner::Session { gap } => gap,
        }
    }

    /// Checks the parameters as Flink does.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidWindow(m));
        match *self {
            WindowAssigner::Tumbling { size, offset } => {
                if size <= 0 {
                    return bad(format!("TUMBLE size must be positive, got {size} ms"));
                }
                if offset.unsigned_abs() >= size.unsigned_abs() {
                    return bad(format!(
                        "TUMBLE offset must be smaller than the size in absolute value \
                         (|{offset}| < {size} ms)"
                    ));
                }
            }
            WindowAssigner::Hopping {
                size,
                slide,
                offset,
            } => {
                if size <= 0 || slide <= 0 {
                    return bad(format!(
                        "HOP size and slide must be positive, got size {size} ms, slide {slide} ms"
                    ));
                }
                if size % slide != 0 {
                    return bad(format!(
                        "HOP size must be an integral multiple of the slide, \
                         got size {size} ms, slide {slide} ms"
                    ));
                }
                if offset.unsigned_abs() >= slide.unsigned_abs() {
                    return bad(format!(
                        "HOP offset must be smaller than the slide in absolute value \
                         (|{offset}| < {slide} ms)"
                    ));
                }
            }
            WindowAssigner::Cumulate {
                step,
                max_size,
                offset,
            } => {
                if step <= 0 || max_size <= 0 || max_size % step != 0 {
                    return bad(format!(
                        "CUMULATE needs a positive step that divides the max size, \
                         got step {step} ms, max size {max_size} ms"
                    ));
                }
                if offset.unsigned_abs() >= max_size.unsigned_abs() {
                    return bad(format!(
                        "CUMULATE offset must be smaller than the max size in absolute value \
                         (|{offset}| < {max_size} ms)"
                    ));
                }
            }
            WindowAssigner::Session { gap } => {
                if gap <= 0 {
                    return bad(format!("SESSION gap must be positive, got {gap} ms"));
                }
            }
        }
        Ok(())
    }

    /// Whether a record at `ts` can be placed in a window: the same
    /// checks as [`Self::assign`], without building the windows. Sources
    /// call it so that an absurd event time is an error at the record's
    /// place (or a skipped, counted record), not one deep in an operator.
    pub fn check(&self, ts: Timestamp) -> Result<()> {
        let out_of_range = || Error::TimestampOutOfRange { ts };
        let unit = match *self {
            WindowAssigner::Tumbling { size, offset } => Some((size, offset)),
            WindowAssigner::Hopping { slide, offset, .. } => Some((slide, offset)),
            WindowAssigner::Cumulate { step, offset, .. } => Some((step, offset)),
            WindowAssigner::Session { gap } if gap > 0 => None,
            WindowAssigner::Session { .. } => return Err(out_of_range()),
        };
        if ts == MIN_WATERMARK {
            return Err(out_of_range());
        }
        if let WindowAssigner::Cumulate {
            max_size, offset, ..
        } = *self
        {
            window_start(ts, offset, max_size).ok_or_else(out_of_range)?;
        }
        match unit {
            Some((size, offset)) => window_start(ts, offset, size)
                .map(|_| ())
                .ok_or_else(out_of_range),
            None => Ok(()),
        }
    }

    /// Every event time above this can be placed ([`Self::check`] needs to
    /// run only at or below it, near MIN, where window starts overflow).
    pub fn placeable_above(&self) -> Timestamp {
        let (unit, offset) = match *self {
            WindowAssigner::Tumbling { size, offset } => (size, offset),
            WindowAssigner::Hopping { size, offset, .. } => (size, offset),
            WindowAssigner::Cumulate {
                max_size, offset, ..
            } => (max_size, offset),
            WindowAssigner::Session { gap } => (gap, 0),
        };
        MIN_WATERMARK
            .saturating_add(unit.saturating_abs())
            .saturating_add(offset.saturating_abs())
    }

    /// Appends the windows `ts` belongs to, in firing order, to `out`.
    pub fn assign(&self, ts: Timestamp, out: &mut Vec<Window>) -> Result<()> {
        let out_of_range = || Error::TimestampOutOfRange { ts };
        if ts == MIN_WATERMARK {
            return Err(out_of_range());
        }
        match *self {
            WindowAssigner::Tumbling { size, offset } => {
                let start = window_start(ts, offset, size).ok_or_else(out_of_range)?;
                out.push(Window::new(start, start.saturating_add(size)));
            }
            WindowAssigner::Hopping {
                size,
                slide,
                offset,
            } => {
                let last_start = window_start(ts, offset, slide).ok_or_else(out_of_range)?;
                let first = out.len();
                let mut start = last_start;
                while start > ts.saturating_sub(size) {
                    out.push(Window::new(start, start.saturating_add(size)));
                    match start.checked_sub(slide) {
                        Some(s) => start = s,
                        None => break,
                    }
                }
                out[first..].reverse();
            }
            WindowAssigner::Cumulate {
                step,
                max_size,
                offset,
            } => {
                let start = window_start(ts, offset, max_size).ok_or_else(out_of_range)?;
                let first_end = window_start(ts, offset, step)
                    .ok_or_else(out_of_range)?
                    .saturating_add(step);
                let last_end = start.saturating_add(max_size);
                let mut end = first_end;
                while end <= last_end {
                    out.push(Window::new(start, end));
                    match end.checked_add(step) {
                        Some(e) => end = e,
                        None => break,
                    }
                }
            }
            WindowAssigner::Session { gap } => {
                if gap <= 0 {
                    return Err(out_of_range());
                }
                out.push(Window::new(ts, ts.saturating_add(gap)));
            }
        }
        Ok(())
    }
}

/// The most slices a HOP or CUMULATE window is kept in (see
/// [`WindowAssigner::slicing`]).
pub const MAX_SLICES: i64 = 32;

/// The greatest common divisor of two positive durations.
fn gcd(a: Millis, b: Millis) -> Millis {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn windows(a: WindowAssigner, ts: Timestamp) -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        a.assign(ts, &mut out).expect("assignable");
        out.iter().map(|w| (w.start, w.end)).collect()
    }

    #[test]
    fn check_agrees_with_assign_at_the_edges() {
        let kinds = [
            WindowAssigner::tumbling(1_000),
            WindowAssigner::Tumbling {
                size: 1_000,
                offset: 300,
            },
            WindowAssigner::hopping(10_000, 5_000),
            WindowAssigner::cumulate(1_000, 5_000),
            WindowAssigner::session(500),
        ];
        for a in kinds {
            for ts in [
                i64::MIN,
                i64::MIN + 1,
                i64::MIN + 299,
                i64::MIN + 5_000,
                -1,
                0,
                i64::MAX,
            ] {
                let mut out = Vec::new();
                assert_eq!(
                    a.check(ts).is_ok(),
                    a.assign(ts, &mut out).is_ok(),
                    "{a:?} at {ts}"
                );
            }
            let above = a.placeable_above();
            for ts in [above + 1, above + 17, above + 12_345] {
                assert!(a.check(ts).is_ok(), "{a:?} at {ts}, above {above}");
            }
        }
    }

    #[test]
    fn hopping_windows_in_firing_order() {
        let hop = WindowAssigner::hopping(10_000, 5_000);
        assert_eq!(windows(hop, 3_000), [(-5_000, 5_000), (0, 10_000)]);
        assert_eq!(windows(hop, 5_000), [(0, 10_000), (5_000, 15_000)]);
        let offset = WindowAssigner::Hopping {
            size: 10,
            slide: 5,
            offset: 2,
        };
        assert_eq!(windows(offset, 2), [(-3, 7), (2, 12)]);
    }

    #[test]
    fn cumulate_windows_share_a_start_and_grow() {
        let c = WindowAssigner::cumulate(1_000, 3_000);
        assert_eq!(windows(c, 0), [(0, 1_000), (0, 2_000), (0, 3_000)]);
        assert_eq!(windows(c, 1_500), [(0, 2_000), (0, 3_000)]);
        assert_eq!(windows(c, 2_999), [(0, 3_000)]);
        assert_eq!(windows(c, -1), [(-3_000, 0)]);
    }

    #[test]
    fn invalid_parameters_name_the_rule() {
        let e = WindowAssigner::cumulate(700, 1_000).validate();
        assert!(matches!(e, Err(Error::InvalidWindow(m)) if m.contains("divides")));
        assert!(WindowAssigner::hopping(10, 5).validate().is_ok());
        assert!(WindowAssigner::hopping(10, 4).validate().is_err()); // Flink SQL's rule
        assert!(WindowAssigner::hopping(2, 5).validate().is_err());
        assert!(WindowAssigner::Hopping {
            size: 10,
            slide: 5,
            offset: 5
        }
        .validate()
        .is_err());
        assert!(WindowAssigner::session(0).validate().is_err());
        assert!(WindowAssigner::tumbling(0).validate().is_err());
    }

    #[test]
    fn timestamps_near_min_are_an_error_not_a_panic() {
        let mut out = Vec::new();
        for a in [
            WindowAssigner::tumbling(10_000),
            WindowAssigner::hopping(10_000, 5_000),
            WindowAssigner::cumulate(1_000, 3_000),
            WindowAssigner::Tumbling { size: 0, offset: 0 },
        ] {
            assert!(a.assign(i64::MIN + 1, &mut out).is_err(), "{a:?}");
            // Near MIN a start may or may not be representable; never a panic.
            for ts in i64::MIN..i64::MIN + 20_000 {
                let _ = a.assign(ts, &mut out);
            }
        }
        assert!(WindowAssigner::tumbling(10)
            .assign(i64::MAX, &mut out)
            .is_ok());
    }

    #[test]
    fn windows_order_by_end_then_start() {
        let mut ws = vec![Window::new(0, 10), Window::new(-5, 5), Window::new(5, 10)];
        ws.sort();
        assert_eq!(
            ws,
            [Window::new(-5, 5), Window::new(0, 10), Window::new(5, 10)]
        );
        assert!(Window::new(0, 10).intersects(&Window::new(10, 20)));
        assert!(!Window::new(0, 10).intersects(&Window::new(11, 20)));
    }
}
