//! # lowwater-runtime: jobs on real time
//!
//! `lowwater run` executes a planned job on OS threads: `parallelism.default`
//! source subtasks per source table (each owning its splits, generating
//! watermarks with the core's generators on the system clock) and as many
//! window subtasks per INSERT, connected by bounded channels (a full channel
//! blocks its source: backpressure, never an unbounded queue). Records travel
//! in batches, hashed on the GROUP BY key; watermarks and idle/active status
//! travel in-band on the same channels, after the records they follow, and
//! each window subtask merges its inputs with the core's valve. A monitor on
//! the main thread watches every pipeline's watermark and warns, naming the
//! partition, the moment it stalls while records still arrive.
//!
//! With `execution.checkpointing.interval`, barriers travel in-band too: a
//! coordinator thread triggers checkpoints, window subtasks align them, and
//! the job's state goes to a file (`checkpoint.rs`, `coordinator.rs`); a
//! restart restores it (`restore.rs`); exactly-once Kafka sinks commit one
//! transaction per checkpoint (`txn.rs`) and filesystem sinks finish part
//! files with it (`fs_sink.rs`). See docs/checkpoints.md.
//!
//! The semantics are the core's, exactly as in replay; only the clock differs
//! (the system clock here, read only through [`clock::SystemClock`]).

mod align_groups;
mod checkpoint;
pub mod clock;
mod collect;
pub mod control;
mod coordinator;
mod discovery;
mod emit;
mod envelope;
mod error;
mod evolve;
mod fs_sink;
mod identity;
mod inputs;
pub mod job;
mod join_task;
mod join_watch;
mod join_window;
mod joins;
mod live_state;
mod mailbox;
mod monitor;
pub mod observe;
mod rebuild;
mod report;
mod rescale;
mod restore;
mod shared;
mod silence;
mod sink;
mod sink_flush;
mod source;
mod threads;
mod txn;
mod window;
mod written;

pub use error::{RunArgs, RunError, RunOutcome};
pub use job::run;
// The flight recorder and the HTTP server are the observation layer's.
pub(crate) use lowwater_observe::{flight, http};
