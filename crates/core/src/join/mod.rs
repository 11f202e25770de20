//! Event-time joins: operators with two input ports (see
//! [`crate::dataflow`]), driven through an input gate whose combined
//! watermark is the minimum over both sides, so a quiet partition of either
//! side holds the join as it holds a window.

pub mod dedup;
pub mod interval;
pub mod interval_node;
pub mod node;
pub mod temporal;
pub mod window_join;
