//! # lowwater-flink: lowwater beside Apache Flink
//!
//! lowwater's jobs are Flink SQL, so the distributed engine for a job that
//! outgrows one machine is Flink itself. This crate keeps what lowwater
//! gives there:
//!
//! - [`watch`]: a Flink job's watermarks, read from Flink's REST API (the
//!   job graph, each Kafka split's watermark and idleness from FLIP-513's
//!   per-split gauges, the reader's offsets, the window vertices' input
//!   watermarks), turned into lowwater's own model and live view, so that
//!   a stall is named by partition and subtask with the same reason text as
//!   a lowwater job, on the same `/metrics`, `/api/v1/watermarks`, web page
//!   and `lowwater status`;
//! - [`gateway`]: a job file submitted to Flink's SQL Gateway, one
//!   statement at a time, every INSERT in one statement set.
//!
//! The watcher's state machine ([`watch::Watcher`]) is pure: the poller
//! ([`poll`]) does the HTTP and hands it what it read with the time it read
//! it, so the tests drive it with recorded answers on a manual clock.

pub mod gateway;
pub mod model;
pub mod poll;
pub mod rest;
pub mod script;
pub mod view;
pub mod watch;

/// What can go wrong talking to Flink.
#[derive(Debug, thiserror::Error)]
pub enum FlinkError {
    /// Nothing answered (connection refused, timeout): external.
    #[error("cannot reach {what} at {url} ({cause}); is the cluster running (bin/start-cluster.sh{gw}) and is that its address?", gw = if *what == "the SQL Gateway" { ", bin/sql-gateway.sh start" } else { "" })]
    Unreachable {
        /// Which endpoint.
        what: &'static str,
        /// Its base URL.
        url: String,
        /// The client's error.
        cause: String,
    },
    /// It answered with an error status.
    #[error("{what} answered {status} to {url}: {message}")]
    Status {
        /// Which endpoint.
        what: &'static str,
        /// The request.
        url: String,
        /// HTTP status.
        status: u16,
        /// Flink's error, stack traces left out.
        message: String,
    },
    /// It answered something lowwater cannot read (another Flink version?).
    #[error(
        "cannot read Flink's answer to {url}: {message} (lowwater reads Flink 2.x's REST API)"
    )]
    Protocol {
        /// The request.
        url: String,
        /// What was wrong.
        message: String,
    },
    /// The user's to fix: no such job, a job without Kafka sources, a
    /// statement Flink refused.
    #[error("{0}")]
    User(String),
}
