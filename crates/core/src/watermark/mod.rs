//! Watermarks: how event-time progress is generated per split, combined per
//! source subtask, and merged again in every downstream operator.
//!
//! The chain, each step a pure state machine with `now` passed in:
//!
//! ```text
//! split:     WatermarkGenerator (+ idleness)     -> watermark or IDLE per split
//! subtask:   SplitCombiner (min over active)     -> watermark/status per subtask
//! operator:  ChannelValve (min over active)      -> watermark/status per operator
//! ```
//!
//! Each step only ever emits a watermark strictly greater than its last one,
//! and a minimum over inputs can be held back by one input forever: that is the
//! failure lowwater exists to expose. Alignment ([`alignment`]) decides which
//! sources to pause when they run too far ahead.

pub mod alignment;
pub mod combiner;
pub mod generator;
pub mod idleness;
pub mod valve;

use crate::time::Timestamp;
use serde::{Deserialize, Serialize};

/// Whether an input currently counts towards a minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WatermarkStatus {
    /// The input's watermark takes part in the minimum.
    Active,
    /// The input is excluded from the minimum until it becomes active again.
    Idle,
}

/// What a combinator tells its downstream after one input. The three parts are
/// applied in field order: first the stream becomes active (if it was idle),
/// then the new watermark, then the stream becomes idle. A default `Progress`
/// means "nothing to send".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// The stream switched from IDLE to ACTIVE.
    pub became_active: bool,
    /// A new watermark, strictly greater than every earlier one.
    pub watermark: Option<Timestamp>,
    /// The stream switched from ACTIVE to IDLE.
    pub became_idle: bool,
}

impl Progress {
    /// Nothing to send.
    pub const NONE: Progress = Progress {
        became_active: false,
        watermark: None,
        became_idle: false,
    };

    /// Whether there is nothing to send.
    pub fn is_empty(&self) -> bool {
        *self == Progress::NONE
    }
}
