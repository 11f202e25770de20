//! `lowwater status --url URL`: a running job's watermarks in the terminal,
//! from its `/api/v1/watermarks` (the same table as the web page); and
//! `lowwater stop --url URL [--savepoint DIR]`, through its
//! `POST /api/v1/stop`.

use anyhow::{Context, Result};
use lowwater_core::time::{display_duration, format_timestamp};
use sonic_rs::{JsonContainerTrait, JsonValueTrait, Value};

use crate::UserError;

fn ts(v: &Value) -> String {
    v.as_i64()
        .map_or_else(|| "-".to_string(), |t| format_timestamp(t, ' '))
}

fn wm(v: &Value) -> String {
    v.as_i64()
        .map_or_else(|| "MIN".to_string(), |t| format_timestamp(t, ' '))
}

fn dur(v: &Value) -> String {
    v.as_i64().map_or_else(|| "-".to_string(), display_duration)
}

fn text(v: &Value) -> String {
    if let Some(s) = v.as_str() {
        return s.to_string();
    }
    v.as_i64()
        .map_or_else(|| "-".to_string(), |n| n.to_string())
}

/// Fetches `url`'s live watermarks and prints them (the table, or the JSON
/// as served), waiting at most `timeout` for the answer (a server that
/// never answers is an error, not a hang). Returns whether an INSERT is
/// stalled now.
pub fn status(url: &str, timeout: std::time::Duration, json: bool) -> Result<bool> {
    let url = crate::args::url(url);
    let api = format!("{}/api/v1/watermarks", url.trim_end_matches('/'));
    let body = get(&api, timeout)?;
    let live: Value = sonic_rs::from_str(&body)
        .map_err(|e| UserError(format!("{api} did not answer lowwater's JSON ({e})")))?;
    let text = if json {
        format!("{}\n", body.trim_end())
    } else {
        render(&live)
    };
    crate::write_out(std::path::Path::new("-"), text.as_bytes())?;
    let stalled = live["inserts"]
        .as_array()
        .is_some_and(|a| a.iter().any(|i| !i["stall"].is_null()));
    Ok(stalled)
}

/// The terminal table of a `/api/v1/watermarks` answer.
pub fn render(live: &Value) -> String {
    let now = live["now"].as_i64().unwrap_or(0);
    let mut out = format!("lowwater at {}\n", format_timestamp(now, ' '));
    for i in live["inserts"].as_array().into_iter().flatten() {
        let lag = i["watermark"].as_i64().map_or_else(String::new, |w| {
            format!(" (lag {})", display_duration(now - w))
        });
        out.push_str(&format!(
            "INSERT INTO {}: watermark {}{lag}\n",
            text(&i["sink"]),
            wm(&i["watermark"])
        ));
        let stall = &i["stall"];
        if stall.is_object() {
            out.push_str(&format!(
                "  STALLED for {}: {}\n",
                dur(&stall["duration_ms"]),
                text(&stall["reason"])
            ));
        }
    }
    out.push_str(&checkpoint_line(&live["checkpoints"], now));
    let header = [
        "TABLE",
        "TOPIC",
        "PARTITION",
        "SUBTASK",
        "LAST EVENT",
        "WATERMARK",
        "IDLE",
        "SILENT FOR",
        "RECORDS",
        "LATE",
        "LAG",
        "",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
    for p in live["partitions"].as_array().into_iter().flatten() {
        rows.push(vec![
            text(&p["table"]),
            text(&p["topic"]),
            text(&p["partition"]),
            text(&p["subtask"]),
            ts(&p["last_event_time"]),
            wm(&p["watermark"]),
            if p["idle"].as_bool() == Some(true) {
                "idle".into()
            } else {
                "active".into()
            },
            match p["silent_at_least"].as_bool() {
                Some(true) => format!(">={}", dur(&p["silent_ms"])),
                _ => dur(&p["silent_ms"]),
            },
            text(&p["records"]),
            text(&p["late_records_dropped"]),
            text(&p["consumer_lag"]),
            if p["holding"].as_bool() == Some(true) {
                "<- holds the watermark".into()
            } else {
                String::new()
            },
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    for s in live["sinks"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "sink {}: {} rows, last {}, freshness {}, max emission lag {}{}\n",
            text(&s["table"]),
            text(&s["rows"]),
            ts(&s["last_emit"]),
            dur(&s["freshness_ms"]),
            dur(&s["max_emission_lag_ms"]),
            if s["stale"].as_bool() == Some(true) {
                " STALE"
            } else {
                ""
            }
        ));
    }
    out
}

/// One line on checkpoints: the last one's id, age, duration and size, and
/// failures (the last one's reason).
fn checkpoint_line(c: &Value, now: i64) -> String {
    if c["enabled"].as_bool() != Some(true) {
        return "checkpoints: off (a restart loses the open windows)\n".to_string();
    }
    let last = match c["last_id"].as_u64() {
        Some(id) => format!(
            "last {id}, {} ago, took {}, {} bytes",
            display_duration(now - c["last_at"].as_i64().unwrap_or(now)),
            dur(&c["last_duration_ms"]),
            c["last_size_bytes"].as_u64().unwrap_or(0)
        ),
        None => "none completed yet".to_string(),
    };
    let failed = c["failed"].as_u64().unwrap_or(0);
    let failure = match (failed, c["last_failure"].as_str()) {
        (0, _) | (_, None) => String::new(),
        (_, Some(why)) => format!(" (last: {why})"),
    };
    format!(
        "checkpoints: {} completed, {failed} failed{failure}; {last}\n",
        c["completed"].as_u64().unwrap_or(0)
    )
}

/// Stops the job at `url` with its final checkpoint, copied into
/// `savepoint` if given, waiting at most `timeout`: the job's answer.
pub fn stop(
    url: &str,
    savepoint: Option<&std::path::Path>,
    timeout: std::time::Duration,
) -> Result<String> {
    let url = crate::args::url(url);
    let api = format!("{}/api/v1/stop", url.trim_end_matches('/'));
    let body = match savepoint {
        Some(dir) => {
            // The job writes the savepoint: a relative path is this shell's.
            let dir = std::path::absolute(dir)
                .with_context(|| format!("--savepoint {}", dir.display()))?;
            let m = std::collections::BTreeMap::from([("savepoint", dir.display().to_string())]);
            sonic_rs::to_string(&m).context("encoding the request")?
        }
        None => "{}".to_string(),
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into();
    let mut response = agent
        .post(&api)
        .header("Content-Type", "application/json")
        .send(body)
        .map_err(|e| {
            UserError(format!(
                "no answer from {api} within {} ({e}): if a job runs with --http at that address, \
             it may still be taking its final checkpoint (its log says when it stops)",
                display_duration(timeout.as_millis() as i64)
            ))
        })?;
    let ok = response.status().is_success();
    let text = response
        .body_mut()
        .read_to_string()
        .with_context(|| format!("reading the answer of {api}"))?;
    let answer: Value = sonic_rs::from_str(&text).map_err(|e| {
        UserError(format!(
            "{api} did not answer lowwater's JSON ({e}): {text}"
        ))
    })?;
    match (ok, answer.get("stopped").and_then(|v| v.as_str())) {
        (true, Some(said)) => Ok(said.to_string()),
        _ => {
            let why = answer
                .get("error")
                .and_then(|v| v.as_str())
                .unwrap_or(&text);
            Err(UserError(format!("the job at {url} was not stopped: {why}")).into())
        }
    }
}

/// Prints the flight recorder of the job at `url`: its events since
/// `since` (a time, UTC, or a duration ago; all kept by default), one a
/// line, oldest first.
pub fn history(url: &str, since: Option<&str>, timeout: std::time::Duration) -> Result<()> {
    let from = match since {
        None => None,
        Some(text) => Some(since_ms(text)?),
    };
    let url = crate::args::url(url);
    let api = format!(
        "{}/api/v1/history{}",
        url.trim_end_matches('/'),
        from.map_or(String::new(), |t| format!("?since={t}"))
    );
    let body = get(&api, timeout)?;
    type Events = std::collections::BTreeMap<String, Vec<lowwater_observe::flight::FlightEvent>>;
    let mut got: Events = sonic_rs::from_str(&body)
        .map_err(|e| UserError(format!("{api} did not answer lowwater's JSON ({e})")))?;
    let events = got.remove("events").unwrap_or_default();
    let mut out = String::new();
    if events.is_empty() {
        let when = from.map_or("in the last day".to_string(), |t| {
            format!("since {}", format_timestamp(t, ' '))
        });
        out.push_str(&format!(
            "no watermark held, partition idle or active, or stall recorded {when}\n"
        ));
    }
    for e in &events {
        out.push_str(&format!("{}  {}\n", format_timestamp(e.t, ' '), e.words()));
    }
    std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes()).context("writing")?;
    Ok(())
}

/// `--since`: a time (UTC) or how long ago.
fn since_ms(text: &str) -> Result<i64> {
    if let Some(t) = lowwater_core::time::parse_timestamp(text.trim()) {
        return Ok(t);
    }
    let ago = crate::args::duration("--since", text).map_err(|_| {
        UserError(format!(
            "--since '{text}' is neither a time ('2025-09-14 02:00:00', UTC) nor a duration \
             ago ('2 h', '30 min')"
        ))
    })?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    Ok(now - ago)
}

/// The body of `GET api`, within `timeout` (a server that never answers is
/// an error, not a hang).
fn get(api: &str, timeout: std::time::Duration) -> Result<String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .build()
        .into();
    let body = agent
        .get(api)
        .call()
        .map_err(|e| {
            UserError(format!(
                "cannot read {api} within {} ({e}); is a job running with --http at that address?",
                display_duration(timeout.as_millis() as i64)
            ))
        })?
        .body_mut()
        .read_to_string()
        .with_context(|| format!("reading the answer of {api}"))?;
    Ok(body)
}
