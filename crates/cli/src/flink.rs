//! `lowwater watch --flink URL` and `lowwater submit --flink GATEWAY JOB.sql`:
//! a job that runs on Apache Flink, explained as lowwater explains its own
//! (lowwater-flink does the reading and the model; this is the loop, the
//! logs and the HTTP server around it).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use lowwater_core::clock::Clock;
use lowwater_core::time::display_duration;
use lowwater_core::Millis;
use lowwater_flink::poll::{find_job, Poller};
use lowwater_flink::rest::Rest;
use lowwater_flink::view::{Origin, Shared};
use lowwater_flink::watch::{default_threshold, Event, JobSettings, Watcher};
use lowwater_flink::FlinkError;
use lowwater_runtime::clock::SystemClock;

use crate::UserError;

/// Flink's metric store refreshes every 10 s by default
/// (`metrics.fetcher.update-interval`).
const METRIC_REFRESH_MS: Millis = 10_000;

/// Failed polls in a row after which the served view is stale (`/ready`
/// answers 503 until Flink answers again).
const STALE_AFTER: u32 = 3;

/// What `watch` is told.
pub struct WatchOpts {
    /// Flink's REST address.
    pub url: String,
    /// A job id or name.
    pub job: Option<String>,
    /// Poll interval.
    pub poll: Millis,
    /// Stall threshold (default: [`default_threshold`]).
    pub stall_threshold: Option<Millis>,
    /// Stop after this long.
    pub duration: Option<Millis>,
    /// Serve the live view here.
    pub http: Option<String>,
    /// Where to write the report at the end.
    pub report: Option<std::path::PathBuf>,
    /// The job's settings when they are known (from a submitted file).
    pub settings: Option<JobSettings>,
}

fn user(e: FlinkError) -> anyhow::Error {
    match e {
        FlinkError::User(m) => UserError(m).into(),
        FlinkError::Unreachable { .. } => UserError(e.to_string()).into(),
        e => anyhow::Error::new(e),
    }
}

/// Watches a Flink job until it ends, `--duration` passes, or Ctrl-C.
/// Returns whether the job failed.
pub fn watch(o: WatchOpts, stop: Arc<AtomicBool>) -> Result<bool> {
    let rest = Rest::new(&o.url, "Flink's REST API", Duration::from_secs(10));
    rest.check().map_err(user)?;
    let summary = find_job(&rest, o.job.as_deref()).map_err(user)?;
    let mut poller = Poller::new(rest.clone(), &summary.id);
    let clock: Arc<dyn Clock + Send + Sync> = Arc::new(SystemClock::new());
    let start = clock.now();
    let first = poller.poll().map_err(user)?;
    let threshold = o
        .stall_threshold
        .unwrap_or_else(|| default_threshold(&first.job, o.poll, METRIC_REFRESH_MS));
    // A reading can be the poll interval plus Flink's metric refresh old:
    // a shorter stall than twice that can come and go unseen.
    let servable = 2 * (o.poll + METRIC_REFRESH_MS);
    if threshold < servable {
        tracing::warn!(
            "--stall-threshold {} is below what a watch of Flink can serve: a reading can be {}              old (--poll-interval {} plus Flink's {} metric refresh), so stalls shorter than {}              may come and go unseen; use --stall-threshold {} or more",
            display_duration(threshold),
            display_duration(o.poll + METRIC_REFRESH_MS),
            display_duration(o.poll),
            display_duration(METRIC_REFRESH_MS),
            display_duration(servable),
            display_duration(servable)
        );
    }
    let settings = o.settings.clone().unwrap_or_default();
    let mut watcher = Watcher::new(&first.job, settings, threshold, start).map_err(UserError)?;
    watcher.observe(&first, start);
    tracing::info!(
        "watching Flink job {} '{}' ({}) at {}: {} partition(s), polling every {}, stall \
         threshold {}; Flink refreshes its metrics every {} (metrics.fetcher.update-interval), \
         so what lowwater shows can be that much older",
        summary.id,
        summary.name,
        first.job.summary.state,
        rest.base(),
        first.splits.len(),
        display_duration(o.poll),
        display_duration(threshold),
        display_duration(METRIC_REFRESH_MS)
    );
    let mut said_inferring = false;
    let mut say_inferring = |p: &lowwater_flink::watch::Poll| {
        if !said_inferring && !p.splits.is_empty() && p.splits.iter().all(|s| s.watermark.is_none())
        {
            said_inferring = true;
            tracing::warn!(
                "Flink shows no per-partition watermarks (split.*.watermark.currentWatermark, \
                 Flink 2.1 and later): the partition holding the watermark is inferred from the \
                 readers' offsets (the one whose offset stopped while others moved)"
            );
        }
    };
    say_inferring(&first);
    let shared = Arc::new(Shared {
        watcher: Mutex::new(watcher),
        origin: Mutex::new(Origin {
            url: rest.base().to_string(),
            job_id: summary.id.clone(),
            job_name: summary.name.clone(),
            poll_interval_ms: o.poll,
            requests_per_poll: poller.last_requests(),
        }),
        clock: clock.clone(),
        stopped: AtomicBool::new(false),
        stale: AtomicBool::new(false),
    });
    let server = match &o.http {
        Some(addr) => {
            let addr = crate::args::http_addr(addr);
            let l = std::net::TcpListener::bind(&addr).map_err(|e| {
                UserError(format!(
                    "--http {addr}: cannot listen there ({e}); choose another port, or :0 for \
                         a free one"
                ))
            })?;
            Some(lowwater_observe::http::Server::start(l, shared.clone()).map_err(UserError)?)
        }
        None => None,
    };
    let deadline = o.duration.map(|d| start + d);
    let mut failing = 0u32;
    let mut next = start + o.poll;
    let ended = loop {
        // Sleep in small steps, so that Ctrl-C ends the watch at once.
        while clock.now() < next && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
        }
        let now = clock.now();
        if stop.load(Ordering::SeqCst) || deadline.is_some_and(|d| now >= d) {
            break None;
        }
        next = now + o.poll;
        let poll = match poller.poll() {
            Ok(p) => {
                if failing > 0 {
                    tracing::info!("Flink answers again after {failing} failed poll(s)");
                    shared.stale.store(false, Ordering::Relaxed);
                }
                failing = 0;
                p
            }
            Err(FlinkError::User(m)) => break Some(Err(UserError(m).into())),
            Err(e) => {
                if failing == 0 {
                    tracing::warn!("cannot read the job from Flink ({e}); retrying every poll");
                }
                failing += 1;
                if failing == STALE_AFTER {
                    // What is served is old now: /ready says so.
                    shared.stale.store(true, Ordering::Relaxed);
                }
                continue;
            }
        };
        say_inferring(&poll);
        if let Ok(mut origin) = shared.origin.lock() {
            origin.requests_per_poll = poller.last_requests();
        }
        let state = poll.job.summary.state.clone();
        let events = match shared.watcher.lock() {
            Ok(mut w) => w.observe(&poll, now),
            Err(_) => break Some(Err(anyhow::anyhow!("the watcher's state was poisoned"))),
        };
        for e in events {
            match e {
                Event::Stalled(r) => tracing::warn!("{}", lowwater_report::stalled_line(&r, now)),
                Event::Resolved(r, wm) => {
                    tracing::info!("{}", lowwater_report::resolved_line(&r, wm))
                }
                Event::Implausible(line) => tracing::warn!("{line}"),
            }
        }
        if matches!(
            state.as_str(),
            "FINISHED" | "FAILED" | "CANCELED" | "SUSPENDED"
        ) {
            if state == "FAILED" {
                tracing::error!(
                    "Flink job {} failed (its exceptions: {}/#/job/running/{}/exceptions)",
                    summary.id,
                    rest.base(),
                    summary.id
                );
            } else {
                tracing::info!("Flink job {} ended: {state}", summary.id);
            }
            break Some(Ok(()));
        }
    };
    shared.stopped.store(true, Ordering::Relaxed);
    let live = lowwater_observe::http::LiveView::live(shared.as_ref());
    if let Some(s) = server {
        s.stop();
    }
    if let Some(Err(e)) = ended {
        return Err(e);
    }
    // As `--help` says: 1 when the Flink job failed, or when a stall is
    // going on at the end (a script's watch of a stalled job fails).
    let stalled = live.inserts.iter().any(|i| i.stall.is_some());
    let failed = stalled || live.watched.as_ref().is_some_and(|w| w.state == "FAILED");
    let report = live.report();
    if let Some(path) = &o.report {
        let json = sonic_rs::to_string_pretty(&live).context("encoding the report")?;
        crate::write_out(path, format!("{json}\n").as_bytes())?;
    }
    tracing::info!(
        "{}",
        lowwater_report::summary_for(&format!("watch of {}", summary.id), &report).trim_end()
    );
    Ok(failed)
}

/// What `submit` is told.
pub struct SubmitOpts {
    /// The SQL Gateway's address.
    pub gateway: String,
    /// Flink's REST address (to watch the job), default: the gateway's host,
    /// port 8081.
    pub rest: Option<String>,
    /// The job file.
    pub job: std::path::PathBuf,
    /// Submit, then return without watching.
    pub no_watch: bool,
}

/// The settings a job file gives its watermarks, when lowwater can plan
/// it (otherwise only Flink knows them).
fn file_settings(stmts: &[lowwater_sql::ast::Statement]) -> Option<JobSettings> {
    let plan = lowwater_sql::plan::plan(stmts).ok()?;
    // The first INSERT's source: its table option, else the SET.
    // A join job's versioned table: the side a quiet partition holds.
    let src = plan
        .pipelines
        .first()
        .map(|p| p.source)
        .or_else(|| plan.joins.first().map(|j| j.build))
        .map(|t| &plan.tables[t]);
    Some(JobSettings {
        idle_timeout: src.map_or(plan.settings.idle_timeout, |t| t.idle_timeout),
        idle_timeout_known: true,
        own_idle_option: src.is_some_and(|t| t.options.contains_key("scan.watermark.idle-timeout")),
        emit_interval: plan.settings.emit_interval,
        window: (!plan.pipelines.is_empty())
            .then(|| lowwater_sql::explain::StallContext::of(&plan, 0).window)
            .flatten(),
        delay: src.and_then(|t| t.watermark).map(|w| w.delay),
    })
}

/// Submits a job file to the SQL Gateway; returns the job id and the
/// settings read from the file.
pub fn submit(o: &SubmitOpts) -> Result<(String, Option<JobSettings>)> {
    let sql =
        std::fs::read_to_string(&o.job).with_context(|| format!("reading {}", o.job.display()))?;
    let file = o.job.display().to_string();
    // Parsed once: for the differences, and for the settings the watch
    // needs. A file lowwater cannot parse still goes to Flink, which judges.
    let stmts = lowwater_sql::parse::parse_script(&sql).ok();
    if let Some(stmts) = &stmts {
        let diffs = lowwater_sql::target::flink_differences(stmts);
        let refused: Vec<String> = diffs
            .iter()
            .filter(|d| d.refused)
            .map(|d| format!("  - {file}:{}: {}", d.loc.line, d.text()))
            .collect();
        if !refused.is_empty() {
            return Err(UserError(format!(
                "{file} uses options that are lowwater's own, which Flink refuses; remove them \
                 to run it on Flink (lowwater explain --target flink lists them all):\n{}",
                refused.join("\n")
            ))
            .into());
        }
        for d in diffs.iter().filter(|d| !d.refused) {
            tracing::warn!("{file}:{}: {}", d.loc.line, d.text());
        }
    }
    let gw = Rest::new(&o.gateway, "the SQL Gateway", Duration::from_secs(30));
    gw.check().map_err(user)?;
    let statements = lowwater_flink::script::for_gateway(&sql);
    let id = lowwater_flink::gateway::submit(&gw, &statements, |line, st| {
        let head: String = st.lines().next().unwrap_or("").chars().take(70).collect();
        tracing::debug!("{file}:{line}: {head}");
    })
    .map_err(|e| match e {
        FlinkError::User(m) => anyhow::Error::new(UserError(format!("{file}: {m}"))),
        e => user(e),
    })?;
    tracing::info!("submitted {file} to {}: Flink job {id}", gw.base());
    Ok((id, stmts.as_deref().and_then(file_settings)))
}

/// The REST address next to a gateway address: same host, port 8081.
pub fn rest_beside(gateway: &str) -> String {
    let g = crate::args::url(gateway);
    let (scheme, rest) = g.split_once("://").unwrap_or(("http", &g));
    let host = rest.split('/').next().unwrap_or(rest);
    let host = match host.rsplit_once(':') {
        Some((h, _)) => h,
        None => host,
    };
    format!("{scheme}://{host}:8081")
}

/// The options of `watch` (and of `submit`, which watches).
#[derive(clap::Args, Debug)]
pub struct WatchArgs {
    /// The job: its id, or its name (or a part of the one running job's name);
    /// default the only running job.
    #[arg(long)]
    pub job: Option<String>,
    /// How often to read Flink's REST API (Flink refreshes its metrics every 10 s).
    #[arg(long, value_name = "DURATION", default_value = "5 s")]
    pub poll_interval: String,
    /// Warn about stalls longer than this; default 3 x the largest window, at least
    /// 2 x (poll interval + Flink's 10 s metric refresh).
    #[arg(long, value_name = "DURATION")]
    pub stall_threshold: Option<String>,
    /// Stop watching after this long.
    #[arg(long, value_name = "DURATION")]
    pub duration: Option<String>,
    /// Serve /metrics, /api/v1/watermarks and the web page on this address.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Where to write the last live state (JSON) when the watch ends.
    #[arg(long)]
    pub report: Option<PathBuf>,
}

/// `explain --target flink`: the file's lowwater-only options.
pub fn flink_target(job: &Path) -> Result<String> {
    let sql = std::fs::read_to_string(job).with_context(|| format!("reading {}", job.display()))?;
    let stmts = lowwater_sql::parse::parse_script(&sql)
        .map_err(|e| UserError(format!("{}: {e}", job.display())))?;
    let diffs = lowwater_sql::target::flink_differences(&stmts);
    let mut s = String::from("\non Flink 2.3 (lowwater submit --flink):");
    if diffs.is_empty() {
        s.push_str(" runs as written; every option is Flink's\n");
    }
    s.push('\n');
    for d in &diffs {
        s.push_str(&format!("  - {d}\n"));
    }
    if diffs.iter().any(|d| d.refused) {
        s.push_str(
            "  lowwater submit refuses the file until the options Flink refuses are removed\n",
        );
    }
    Ok(s)
}

fn watch_opts(
    url: String,
    w: WatchArgs,
    settings: Option<lowwater_flink::watch::JobSettings>,
) -> Result<WatchOpts> {
    Ok(WatchOpts {
        url,
        job: w.job,
        poll: crate::args::duration("--poll-interval", &w.poll_interval)?.max(100),
        stall_threshold: crate::duration_arg("--stall-threshold", w.stall_threshold)?,
        duration: crate::duration_arg("--duration", w.duration)?,
        http: w.http,
        report: w.report,
        settings,
    })
}

fn exit_of_watch(failed: bool) -> ExitCode {
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `lowwater watch --flink URL`.
pub fn watch_command(url: String, w: WatchArgs, stop: Arc<AtomicBool>) -> Result<ExitCode> {
    let o = watch_opts(url, w, None)?;
    Ok(exit_of_watch(watch(o, stop)?))
}

/// `lowwater submit JOB --flink GATEWAY`: submits, then watches (unless
/// `--no-watch`, which prints the job id).
pub fn submit_command(
    s: SubmitOpts,
    w: WatchArgs,
    stop: impl FnOnce() -> Result<Arc<AtomicBool>>,
) -> Result<ExitCode> {
    let (id, settings) = submit(&s)?;
    if s.no_watch {
        crate::write_out(Path::new("-"), format!("{id}\n").as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    let url = s.rest.clone().unwrap_or_else(|| rest_beside(&s.gateway));
    let mut o = watch_opts(url, w, settings)?;
    o.job = Some(id);
    Ok(exit_of_watch(watch(o, stop()?)?))
}
