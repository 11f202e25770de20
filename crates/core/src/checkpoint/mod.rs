//! Checkpoints: the job's state, made durable so that a restart continues
//! exactly where a checkpoint left it.
//!
//! What a checkpoint holds is this crate's own state: every split's watermark
//! generator and idleness timer ([`crate::source::SourceSubtask`]), every
//! operator's channel valve and window state with its accumulators, sessions
//! and late counters ([`crate::window::operator::WindowOperator`]). Those
//! types derive `serde`'s traits; the executors (replay, the live runtime)
//! put them in a snapshot of their own shape, next to their read positions,
//! and this module gives the rest, all of it pure:
//! - [`format`]: the bytes of a checkpoint file, with a checksum, so that a
//!   corrupt or truncated file is detected, never half-restored;
//! - [`identity`]: what the job is, so that a changed job refuses a state it
//!   cannot use and says what changed;
//! - [`barrier`]: aligning barriers at an operator with several inputs
//!   (Flink's aligned checkpoints: a channel whose barrier arrived is held
//!   until every channel's has);
//! - [`trigger`]: when the next checkpoint is due, on an injected clock;
//! - [`store`]: where checkpoints live, behind a small trait, and which one a
//!   restart restores (the newest that reads back whole).

pub mod barrier;
pub mod commit;
pub mod format;
pub mod identity;
pub mod store;
pub mod trigger;

/// A checkpoint's number: 1, 2, ... in the order they were taken; a restored
/// job continues the numbering.
pub type CheckpointId = u64;

pub use format::{decode, encode, CheckpointError};
pub use identity::{Difference, JobIdentity};
