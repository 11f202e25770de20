//! The HTTP server of a live view: `/` (the web page), `/metrics`,
//! `/healthz`, `/ready` and `/api/v1/watermarks`, for anything that can
//! describe itself as a [`Live`] value: a running lowwater job, or a Flink
//! job that `lowwater watch --flink` reads from Flink's REST API. The
//! server only reads the view when a client asks; it is never on the record
//! path.

use std::path::PathBuf;
use std::sync::Arc;

use crate::live::Live;

/// What the stop ended with, in words (`Ok`: stopped as asked).
pub type StopReply = Result<String, String>;

/// A request to stop the job, with where to put its savepoint.
#[derive(Debug)]
pub struct StopRequest {
    /// The savepoint's directory (`None`: stop with the final checkpoint
    /// in the job's own directory, as SIGTERM does).
    pub savepoint: Option<PathBuf>,
    /// Where the answer goes.
    pub reply: tokio::sync::oneshot::Sender<StopReply>,
}

impl StopRequest {
    /// Answers the request (a requester that gave up is not an error).
    pub fn answer(self, reply: StopReply) {
        let _ = self.reply.send(reply);
    }
}

/// What the server serves.
pub trait LiveView: Send + Sync + 'static {
    /// The state now (`/api/v1/watermarks`, `/healthz`, and the input of
    /// [`LiveView::metrics`]).
    fn live(&self) -> Live;
    /// `live` as OpenMetrics text (by default the families `live` holds;
    /// an executor adds what only it counts).
    fn metrics(&self, live: &Live) -> String {
        crate::metrics::live_metrics(live)
    }
    /// Whether it is ready (`/ready`: 503 once it stops or fails).
    fn ready(&self) -> bool;
    /// The flight recorder's events at or after `since` (`crate::flight`);
    /// a view without one has none.
    fn history(&self, since: lowwater_core::Timestamp) -> Vec<crate::flight::FlightEvent> {
        let _ = since;
        Vec::new()
    }
    /// Takes a stop asked for with `POST /api/v1/stop` (`crate::control`);
    /// answered through the request. A view that cannot be stopped says so.
    fn stop(&self, req: StopRequest) -> Result<(), String> {
        drop(req);
        Err("this view watches a job it does not run: stop it where it runs".into())
    }
}

/// `/api/v1/history[?since=MS]`: the flight recorder's events at or after
/// `since` (epoch ms; all kept by default), oldest first.
async fn history(
    axum::extract::State(c): axum::extract::State<Ctx>,
    uri: axum::http::Uri,
) -> impl axum::response::IntoResponse {
    let since = uri
        .query()
        .unwrap_or_default()
        .split('&')
        .find_map(|kv| kv.strip_prefix("since=")?.parse::<i64>().ok())
        .unwrap_or(i64::MIN);
    let body = sonic_rs::to_string(&std::collections::BTreeMap::from([(
        "events",
        c.history(since),
    )]))
    .unwrap_or_else(|_| "{\"events\":[]}".to_string());
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
}

/// The address a request came from (the control endpoint answers loopback
/// only).
#[derive(Debug, Clone, Copy)]
struct Peer(std::net::SocketAddr);

/// How long `POST /api/v1/stop` waits for the final checkpoint (and the
/// savepoint) before answering that it is still being taken.
const STOP_WAIT: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// `POST /api/v1/stop`, body `{"savepoint": "DIR"}` or `{}`: stops the
/// job with its final checkpoint (copied into DIR as a savepoint), and
/// answers once it is written. Loopback clients only, with a JSON body and
/// no `Origin` (a web page in a browser on the same machine cannot send
/// it).
async fn stop(
    axum::extract::State(c): axum::extract::State<Ctx>,
    axum::Extension(Peer(peer)): axum::Extension<Peer>,
    headers: axum::http::HeaderMap,
    body: String,
) -> (
    axum::http::StatusCode,
    [(axum::http::HeaderName, &'static str); 1],
    String,
) {
    use axum::http::StatusCode;
    let json = [(axum::http::header::CONTENT_TYPE, "application/json")];
    let answer = |code: StatusCode, ok: bool, text: &str| {
        let key = if ok { "stopped" } else { "error" };
        let body = sonic_rs::to_string(&std::collections::BTreeMap::from([(key, text)]))
            .unwrap_or_default();
        (code, json.clone(), body)
    };
    if !peer.ip().to_canonical().is_loopback() {
        return answer(
            StatusCode::FORBIDDEN,
            false,
            &format!("a job is stopped from its own machine only (this request came from {peer})"),
        );
    }
    let json_body = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if headers.contains_key(axum::http::header::ORIGIN) || !json_body {
        return answer(
            StatusCode::FORBIDDEN,
            false,
            "a stop is sent with Content-Type: application/json and without Origin (as `lowwater \
             stop` sends it), never by a web page",
        );
    }
    let savepoint = match body.trim() {
        "" => None,
        text => match sonic_rs::from_str::<std::collections::BTreeMap<String, String>>(text) {
            Ok(m) => m.get("savepoint").map(std::path::PathBuf::from),
            Err(e) => {
                return answer(
                    StatusCode::BAD_REQUEST,
                    false,
                    &format!("the body is not {{\"savepoint\": \"DIR\"}} ({e})"),
                )
            }
        },
    };
    let (reply, answered) = tokio::sync::oneshot::channel();
    if let Err(e) = c.stop(StopRequest { savepoint, reply }) {
        return answer(StatusCode::CONFLICT, false, &e);
    }
    match tokio::time::timeout(STOP_WAIT, answered).await {
        Ok(Ok(Ok(text))) => answer(StatusCode::OK, true, &text),
        Ok(Ok(Err(text))) => answer(StatusCode::CONFLICT, false, &text),
        Ok(Err(_)) => answer(
            StatusCode::INTERNAL_SERVER_ERROR,
            false,
            "the job ended before its final checkpoint was written (its log says why)",
        ),
        Err(_) => answer(
            StatusCode::GATEWAY_TIMEOUT,
            false,
            "the final checkpoint is still being taken after 15 min; the job stops once it is",
        ),
    }
}

type Ctx = Arc<dyn LiveView>;

/// The web page.
const PAGE: &str = include_str!("web/index.html");

/// The HTTP server of a running job, on its own thread.
pub struct Server {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: std::sync::mpsc::Receiver<()>,
}

impl Server {
    /// Serves on `listener` until [`Server::stop`].
    pub fn start(listener: std::net::TcpListener, view: Arc<dyn LiveView>) -> Result<Self, String> {
        use axum::http::header;
        use axum::routing::get;
        let addr = listener.local_addr().map_err(|e| format!("--http: {e}"))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("--http: {e}"))?;
        let ctx = view;
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
                    |axum::extract::State(c): axum::extract::State<Ctx>| async move {
                        let live = c.live();
                        (
                            [(
                                header::CONTENT_TYPE,
                                "application/openmetrics-text; version=1.0.0; charset=utf-8",
                            )],
                            c.metrics(&live),
                        )
                    },
                ),
            )
            .route(
                "/healthz",
                get(
                    |axum::extract::State(c): axum::extract::State<Ctx>| async move {
                        let live = c.live();
                        let text = [(header::CONTENT_TYPE, "text/plain; charset=utf-8")];
                        match live.inserts.iter().find_map(|i| i.stall.as_ref()) {
                            // The past-side guard: event times in 1970
                            // move the watermark, but nothing is right.
                            None if !live.implausible_times.is_empty() => (
                                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                                text,
                                format!(
                                    "implausible event times: {}\n",
                                    live.implausible_times.join("; ")
                                ),
                            ),
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
                    |axum::extract::State(c): axum::extract::State<Ctx>| async move {
                        if !c.ready() {
                            (axum::http::StatusCode::SERVICE_UNAVAILABLE, "stopping\n")
                        } else {
                            (axum::http::StatusCode::OK, "ready\n")
                        }
                    },
                ),
            )
            .route("/api/v1/stop", axum::routing::post(stop))
            .route("/api/v1/history", get(history))
            .route("/api", get(api_index))
            .route("/api/", get(api_index))
            .route("/api/v1", get(api_index))
            .route("/api/v1/", get(api_index))
            .route(
                "/api/v1/watermarks",
                get(
                    |axum::extract::State(c): axum::extract::State<Ctx>| async move {
                        let live = c.live();
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
        let (stream, peer) = tokio::select! {
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
        let app = app.clone().layer(axum::Extension(Peer(peer)));
        let service = hyper_util::service::TowerToHyperService::new(app);
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

/// `/api` and `/api/v1`: what this server answers, instead of an empty 404.
async fn api_index() -> impl axum::response::IntoResponse {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        r#"{"endpoints":{"/api/v1/watermarks":"the live state: partitions, inserts, joins, stalls, recurring holds, checkpoints (JSON)","/metrics":"Prometheus / OpenMetrics","/healthz":"200 ok, or 503 naming the stall or a partition's implausible event times","/ready":"200 while the job runs, 503 while it stops","/api/v1/history":"what held each INSERT's watermark and when, idle/active flips, stalls: the last day (?since=epoch ms)","POST /api/v1/stop":"stops the job with its final checkpoint; body {\"savepoint\":\"DIR\"} copies it into DIR (loopback only)","/":"the web page"}}"#,
    )
}
