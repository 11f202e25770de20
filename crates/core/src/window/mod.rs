//! Event-time windows: assigning records to windows, aggregating them
//! incrementally, and firing them when the watermark passes their end.

pub mod aggregate;
pub mod assigner;
pub mod batch;
pub mod limit;
pub mod operator;
mod table;
pub mod top;
