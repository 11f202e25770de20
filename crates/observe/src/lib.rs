//! lowwater's observation layer, apart from any executor: the live model
//! of a job ([`live`]), its OpenMetrics text ([`metrics`]), the HTTP server
//! of `/`, `/metrics`, `/healthz`, `/ready` and the JSON API ([`http`]), and
//! the flight recorder ([`flight`]). The live runtime describes its job with
//! it, and `lowwater watch --flink` a Flink job read over Flink's REST API,
//! without the runtime (or librdkafka). Nothing here is on the record path:
//! a view is read when a client asks.

pub mod flight;
pub mod http;
pub mod live;
pub mod metrics;
