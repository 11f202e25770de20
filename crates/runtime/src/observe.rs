//! Seeing the watermark while a job runs (`lowwater run --http ADDR`):
//! `/metrics` (Prometheus/OpenMetrics text), `/api/v1/watermarks` (the
//! replay report's shape, live, plus what only a running job has) and `/`
//! (a web page built on that JSON). The metric names follow docs/metrics.md.
//!
//! Nothing here is on the record path: every value is read from the job's
//! shared state when a client asks (the counters the threads keep anyway),
//! except the emission-lag histogram, observed once per window row emitted.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use lowwater_core::clock::Clock;
use lowwater_core::diagnose::Holder;
use lowwater_core::{Millis, Timestamp, MAX_WATERMARK};
use lowwater_report::{wm, PartitionReport, Report, SinkReport, StallReport};
use lowwater_sql::plan::JobPlan;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use serde::Serialize;

use crate::job::Shared;

/// Labels of one metric sample.
pub(crate) type Labels = Vec<(String, String)>;

/// The emission-lag histograms, one per sink (label `sink`).
pub(crate) type LagFamily = Family<Labels, Histogram, fn() -> Histogram>;

fn lag_histogram() -> Histogram {
    // 100 ms .. 1 h: a healthy job emits within delay + interval; a stalled
    // one within hours.
    Histogram::new([
        0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0,
    ])
}

/// A new, empty family of emission-lag histograms.
pub(crate) fn lag_family() -> LagFamily {
    Family::new_with_constructor(lag_histogram as fn() -> Histogram)
}

/// One point of the page's chart: each INSERT's watermark and each sink's
/// last emission lag, once a second.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HistoryPoint {
    pub t: Timestamp,
    pub watermarks: Vec<Option<Timestamp>>,
    pub emission_lag_ms: Vec<Option<Millis>>,
}

/// What the monitor publishes for the endpoints.
#[derive(Debug, Default)]
pub(crate) struct LiveState {
    /// Per pipeline: the stall going on, if any (`to_ts` = now).
    pub current: Vec<Option<StallReport>>,
    /// Stalls that ended.
    pub past: Vec<StallReport>,
    /// Per sink (in `Shared::sinks` order): stale under its max-staleness.
    pub stale: Vec<bool>,
    /// The last ten minutes, a point a second.
    pub history: VecDeque<HistoryPoint>,
}

const HISTORY: usize = 600;

impl LiveState {
    pub fn new(pipelines: usize) -> Self {
        LiveState {
            current: vec![None; pipelines],
            ..LiveState::default()
        }
    }

    pub fn push_history(&mut self, p: HistoryPoint) {
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(p);
    }
}

/// A source partition, live.
#[derive(Debug, Clone, Serialize)]
pub struct LivePartition {
    /// The report's fields.
    #[serde(flatten)]
    pub report: PartitionReport,
    /// Its watermark now (`null` before its first).
    pub watermark: Option<Timestamp>,
    /// How long it has had no record (since the job started, if never).
    pub silent_ms: Millis,
    /// Kafka: offsets on the broker not read yet (`null`: not Kafka, or not
    /// known yet).
    pub consumer_lag: Option<i64>,
    /// Whether it holds its INSERT's watermark now.
    pub holding: bool,
    /// Whether watermark alignment pauses it now (it runs ahead of its
    /// group's slowest partition).
    pub paused: bool,
}

/// A sink, live.
#[derive(Debug, Clone, Serialize)]
pub struct LiveSink {
    /// The report's fields.
    #[serde(flatten)]
    pub report: SinkReport,
    /// When it last wrote a row.
    pub last_emit: Option<Timestamp>,
    /// Emission lag of its last window row.
    pub last_emission_lag_ms: Option<Millis>,
    /// Now minus the last row (or the job start).
    pub freshness_ms: Millis,
    /// `lowwater.sink.max-emission-lag`.
    pub max_emission_lag_slo_ms: Option<Millis>,
    /// `lowwater.sink.max-staleness`.
    pub max_staleness_slo_ms: Option<Millis>,
    /// Window rows later than the max emission lag.
    pub emission_lag_breaches: u64,
    /// No row for longer than the max staleness.
    pub stale: bool,
}

/// One INSERT, live.
#[derive(Debug, Clone, Serialize)]
pub struct LiveInsert {
    /// Its sink table.
    pub sink: String,
    /// Its source table.
    pub source: String,
    /// Its watermark (the minimum over its window subtasks; `null`: MIN).
    pub watermark: Option<Timestamp>,
    /// The stall going on, if any.
    pub stall: Option<StallReport>,
    /// Open (window, key) states over its window subtasks.
    pub open_windows: u64,
    /// Their estimated size in bytes.
    pub state_bytes: u64,
}

/// One operator subtask, live (Flink's currentInputWatermark /
/// currentOutputWatermark).
#[derive(Debug, Clone, Serialize)]
pub struct LiveSubtask {
    /// `source:<table>` or `window:<sink>`.
    pub operator: String,
    /// Subtask index.
    pub subtask: usize,
    /// The watermark it has received (`null`: MIN, or a source).
    pub input_watermark: Option<Timestamp>,
    /// The watermark it has sent on (`null`: MIN).
    pub output_watermark: Option<Timestamp>,
    /// Whether it is idle (`null`: not tracked for window subtasks).
    pub idle: Option<bool>,
}

/// `/api/v1/watermarks`: the replay report's shape plus live fields.
#[derive(Debug, Clone, Serialize)]
pub struct Live {
    /// Totals.
    pub totals: lowwater_report::Totals,
    /// Source partitions.
    pub partitions: Vec<LivePartition>,
    /// Sinks.
    pub sinks: Vec<LiveSink>,
    /// Every stall so far (ended ones, then the ones going on).
    pub stalls: Vec<StallReport>,
    /// Run parameters.
    pub replay: lowwater_report::ReplayInfo,
    /// The server's time.
    pub now: Timestamp,
    /// Per INSERT.
    pub inserts: Vec<LiveInsert>,
    /// Per operator subtask.
    pub subtasks: Vec<LiveSubtask>,
    /// The chart's points.
    pub history: Vec<HistoryPoint>,
    /// Checkpoints: whether on, counts, the last one's id, time, duration
    /// and size, the last failure, the checkpoint this run restored.
    pub checkpoints: crate::checkpoint::CheckpointStats,
}

/// A watermark as a metric value: MAX (a drained input) is left out like
/// MIN, as no dashboard can plot 9.2e18.
pub(crate) fn finite(w: Option<Timestamp>) -> Option<Timestamp> {
    w.filter(|w| *w != MAX_WATERMARK)
}

/// The live state of a running job.
pub(crate) fn snapshot(plan: &JobPlan, shared: &Shared, threshold: Millis) -> Live {
    let now = shared.clock.now();
    let (current, past, stale, history) = match shared.live.lock() {
        Ok(l) => (
            l.current.clone(),
            l.past.clone(),
            l.stale.clone(),
            l.history.iter().cloned().collect(),
        ),
        Err(_) => Default::default(),
    };
    // Splits and every source subtask's view, taken once: the holders and
    // the partitions' entries below describe the same moment, so that the
    // holder is never a partition shown as idle.
    let splits = shared.splits.read().map(|s| s.clone()).unwrap_or_default();
    let views = crate::report::views(shared);
    let holders: Vec<Option<Holder>> = (0..plan.pipelines.len())
        .map(|pi| {
            let si = crate::monitor::source_index(plan, shared, pi);
            crate::monitor::holder_of(&views[si], shared.start, now)
        })
        .collect();
    let mut stalls = past;
    stalls.extend(current.iter().flatten().cloned());
    let (
        Report {
            totals,
            partitions,
            sinks,
            replay,
            ..
        },
        ids,
    ) = crate::report::report_from(plan, shared, &splits, &views, Vec::new(), threshold, false);
    let mut live_parts = Vec::with_capacity(partitions.len());
    for (p, id) in partitions.into_iter().zip(ids) {
        let meta = &splits[id as usize];
        let view = shared
            .sources
            .iter()
            .position(|s| s.table == meta.table)
            .and_then(|si| views[si].get(meta.subtask));
        let backlog = view.and_then(|v| v.backlog.get(&id).copied());
        let paused = view.and_then(|v| v.paused.get(&id)).is_some_and(|p| p.0);
        let holding = plan
            .pipelines
            .iter()
            .zip(&holders)
            .any(|(pl, h)| pl.source == meta.table && h.is_some_and(|h| h.split == Some(id)));
        live_parts.push(LivePartition {
            watermark: p.final_watermark,
            silent_ms: now - p.last_arrival.unwrap_or(shared.start),
            consumer_lag: backlog.and_then(|b| match b {
                lowwater_kafka::Backlog::Unknown => None,
                lowwater_kafka::Backlog::CaughtUp => Some(0),
                lowwater_kafka::Backlog::Behind(n) => Some(n),
            }),
            holding,
            paused,
            report: p,
        });
    }
    let mut live_sinks = Vec::with_capacity(sinks.len());
    for (i, ((&t, w), report)) in shared.sink_counters.iter().zip(sinks).enumerate() {
        let Ok(w) = w.lock() else {
            continue;
        };
        live_sinks.push(LiveSink {
            report,
            last_emit: w.last_emit,
            last_emission_lag_ms: w.last_lag,
            freshness_ms: now - w.last_emit.unwrap_or(shared.start),
            max_emission_lag_slo_ms: plan.tables[t].max_emission_lag,
            max_staleness_slo_ms: plan.tables[t].max_staleness,
            emission_lag_breaches: w.lag_breaches,
            stale: stale.get(i).copied().unwrap_or(false),
        });
    }
    let inserts = plan
        .pipelines
        .iter()
        .enumerate()
        .map(|(pi, pl)| LiveInsert {
            sink: plan.tables[pl.sink].name.clone(),
            source: plan.tables[pl.source].name.clone(),
            watermark: shared.windows[pi]
                .iter()
                .map(|w| w.load(Ordering::Relaxed))
                .min()
                .and_then(wm),
            stall: current.get(pi).cloned().flatten(),
            open_windows: shared.open[pi]
                .iter()
                .map(|[n, ..]| n.load(Ordering::Relaxed))
                .sum(),
            state_bytes: shared.open[pi]
                .iter()
                .map(|[_, b, _]| b.load(Ordering::Relaxed))
                .sum(),
        })
        .collect();
    let mut subtasks = Vec::new();
    for src in &shared.sources {
        for (i, v) in src.subtasks.iter().enumerate() {
            let Ok(v) = v.lock() else {
                continue;
            };
            subtasks.push(LiveSubtask {
                operator: format!("source:{}", plan.tables[src.table].name),
                subtask: i,
                input_watermark: None,
                output_watermark: wm(v.watermark),
                idle: Some(v.idle),
            });
        }
    }
    for (pi, pl) in plan.pipelines.iter().enumerate() {
        for (i, w) in shared.windows[pi].iter().enumerate() {
            let w = wm(w.load(Ordering::Relaxed));
            subtasks.push(LiveSubtask {
                operator: format!("window:{}", plan.tables[pl.sink].name),
                subtask: i,
                input_watermark: w,
                // The window operator forwards the watermark it received.
                output_watermark: w,
                idle: None,
            });
        }
    }
    Live {
        totals,
        partitions: live_parts,
        sinks: live_sinks,
        stalls,
        replay,
        now,
        inserts,
        subtasks,
        history,
        checkpoints: shared
            .checkpoints
            .stats
            .lock()
            .map(|c| c.clone())
            .unwrap_or_default(),
    }
}

/// The web page.
const PAGE: &str = include_str!("web/index.html");

/// The HTTP server of a running job, on its own thread.
pub(crate) struct Server {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: std::sync::mpsc::Receiver<()>,
}

struct Ctx {
    plan: Arc<JobPlan>,
    shared: Arc<Shared>,
    threshold: Millis,
}

impl Server {
    /// Serves on `listener` until [`Server::stop`].
    pub fn start(
        listener: std::net::TcpListener,
        plan: Arc<JobPlan>,
        shared: Arc<Shared>,
        threshold: Millis,
    ) -> Result<Self, String> {
        use axum::http::header;
        use axum::routing::get;
        let addr = listener.local_addr().map_err(|e| format!("--http: {e}"))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("--http: {e}"))?;
        let ctx = Arc::new(Ctx {
            plan,
            shared,
            threshold,
        });
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        // Dropped when the server thread ends, however it ends.
        let (done_tx, done) = std::sync::mpsc::channel::<()>();
        let app = axum::Router::new()
            .route(
                "/",
                get(|| async { ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE) }),
            )
            .route(
                "/metrics",
                get(
                    |axum::extract::State(c): axum::extract::State<Arc<Ctx>>| async move {
                        let live = snapshot(&c.plan, &c.shared, c.threshold);
                        (
                            [(
                                header::CONTENT_TYPE,
                                "application/openmetrics-text; version=1.0.0; charset=utf-8",
                            )],
                            crate::metrics::metrics(&live, &c.plan, &c.shared),
                        )
                    },
                ),
            )
            .route(
                "/healthz",
                get(
                    |axum::extract::State(c): axum::extract::State<Arc<Ctx>>| async move {
                        let live = snapshot(&c.plan, &c.shared, c.threshold);
                        let text = [(header::CONTENT_TYPE, "text/plain; charset=utf-8")];
                        match live.inserts.iter().find_map(|i| i.stall.as_ref()) {
                            None => (axum::http::StatusCode::OK, text, "ok\n".to_string()),
                            Some(st) => (
                                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                                text,
                                format!(
                                    "stalled: INSERT INTO {} for {}: {}\n",
                                    st.sink,
                                    lowwater_core::time::display_duration(st.duration_ms),
                                    st.reason
                                ),
                            ),
                        }
                    },
                ),
            )
            .route(
                "/ready",
                get(
                    |axum::extract::State(c): axum::extract::State<Arc<Ctx>>| async move {
                        if c.shared.stop.load(Ordering::Relaxed) || c.shared.failed() {
                            (axum::http::StatusCode::SERVICE_UNAVAILABLE, "stopping\n")
                        } else {
                            (axum::http::StatusCode::OK, "ready\n")
                        }
                    },
                ),
            )
            .route(
                "/api/v1/watermarks",
                get(
                    |axum::extract::State(c): axum::extract::State<Arc<Ctx>>| async move {
                        let live = snapshot(&c.plan, &c.shared, c.threshold);
                        match sonic_rs::to_string(&live) {
                            Ok(body) => (
                                axum::http::StatusCode::OK,
                                [(header::CONTENT_TYPE, "application/json")],
                                body,
                            ),
                            Err(e) => (
                                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                                format!("cannot encode the live state as JSON: {e}"),
                            ),
                        }
                    },
                ),
            )
            .with_state(ctx);
        std::thread::Builder::new()
            .name("http".into())
            .spawn(move || {
                let _done = done_tx;
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        tracing::error!("--http: cannot start the HTTP server: {e}");
                        return;
                    }
                };
                rt.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => l,
                        Err(e) => {
                            tracing::error!("--http: {e}");
                            return;
                        }
                    };
                    serve(listener, app, rx).await;
                });
            })
            .map_err(|e| format!("cannot start the HTTP thread: {e}"))?;
        tracing::info!("serving http://{addr}/ (metrics at /metrics, JSON at /api/v1/watermarks)");
        Ok(Server {
            stop: Some(tx),
            done,
        })
    }

    /// Stops serving: waits up to 2 s for open requests to finish (a client
    /// that never completes its request does not keep the job from ending;
    /// the server thread then ends with the process).
    pub fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        let _ = self.done.recv_timeout(std::time::Duration::from_secs(2));
    }
}

/// How long a connection may sit without sending a request before it is
/// closed: idle clients cannot hold the process's file descriptors.
pub const HTTP_IDLE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Serves `app` on `listener` until `stop`: one request per connection (no
/// keep-alive), a connection that sends no complete request within
/// [`HTTP_IDLE_TIMEOUT`] closed, so that a scraper is answered while
/// thousands of idle clients are connected. Open requests get 2 s to finish
/// when it stops.
async fn serve(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) {
    let open = std::sync::Arc::new(tokio::sync::Semaphore::new(MAX_HTTP_CONNECTIONS));
    let mut failing = false;
    loop {
        let permit = tokio::select! {
            _ = &mut stop => break,
            p = open.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
        };
        let (stream, _) = tokio::select! {
            _ = &mut stop => break,
            a = listener.accept() => match a {
                Ok(a) => {
                    failing = false;
                    a
                }
                Err(e) => {
                    // Out of file descriptors, say: idle connections are
                    // closed after the idle timeout; wait and accept again
                    // (said once per run of failures).
                    if !failing {
                        tracing::warn!(
                            "--http: cannot accept a connection ({e}); retrying while idle \
                             connections time out"
                        );
                        failing = true;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HTTP_IDLE_TIMEOUT)
                .keep_alive(false)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(2),
        open.acquire_many(MAX_HTTP_CONNECTIONS as u32),
    )
    .await;
}

/// The most connections served at once; more wait to be accepted.
const MAX_HTTP_CONNECTIONS: usize = 8_192;
