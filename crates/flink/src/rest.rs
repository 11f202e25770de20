//! The HTTP side: a small blocking client for Flink's REST API and its SQL
//! Gateway (both JSON over HTTP), with errors that say which address did
//! not answer and what to check. Every request has a deadline, so a
//! cluster that hangs is an error, not a hung `lowwater watch`.

use std::time::Duration;

use sonic_rs::Value;

use crate::FlinkError;

/// Flink's REST server refuses a request line longer than this (netty's
/// default `maxInitialLineLength`), with 413 or a closed connection: metric
/// queries are split to stay under it.
pub const MAX_REQUEST_LINE: usize = 4096;

/// A Flink REST endpoint (the JobManager's, or the SQL Gateway's).
#[derive(Debug, Clone)]
pub struct Rest {
    base: String,
    agent: ureq::Agent,
    what: &'static str,
    /// Requests made (shared by clones), so the cost of a watch is known.
    requests: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Rest {
    /// A client of `url` (`http://` may be left out), `what` naming it in
    /// errors ("Flink's REST API", "the SQL Gateway").
    pub fn new(url: &str, what: &'static str, timeout: Duration) -> Self {
        let url = url.trim().trim_end_matches('/');
        let base = if url.contains("://") {
            url.to_string()
        } else {
            format!("http://{url}")
        };
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .build()
            .into();
        Rest {
            base,
            agent,
            what,
            requests: Default::default(),
        }
    }

    /// Requests made so far by this client and its clones.
    pub fn requests(&self) -> u64 {
        self.requests.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// Refuses an https address: this client speaks plain HTTP (Flink's
    /// REST API and gateway serve HTTP unless `security.ssl.rest.enabled`).
    pub fn check(&self) -> Result<(), FlinkError> {
        if self.base.starts_with("https://") {
            return Err(FlinkError::User(format!(
                "{}: lowwater reads {} over plain HTTP only; reach it through an http address \
                 (a port-forward or a proxy that terminates TLS)",
                self.base, self.what
            )));
        }
        Ok(())
    }

    /// GET `path` (starting with `/`) as JSON.
    pub fn get(&self, path: &str) -> Result<Value, FlinkError> {
        let url = format!("{}{path}", self.base);
        let resp = self.agent.get(&url).call();
        self.answer(&url, resp)
    }

    /// POST `body` (JSON text) to `path`.
    pub fn post(&self, path: &str, body: &str) -> Result<Value, FlinkError> {
        let url = format!("{}{path}", self.base);
        let resp = self
            .agent
            .post(&url)
            .header("content-type", "application/json")
            .send(body);
        self.answer(&url, resp)
    }

    /// DELETE `path` (the answer is not read).
    pub fn delete(&self, path: &str) -> Result<(), FlinkError> {
        let url = format!("{}{path}", self.base);
        self.answer(&url, self.agent.delete(&url).call())
            .map(|_| ())
    }

    fn answer(
        &self,
        url: &str,
        resp: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Value, FlinkError> {
        self.requests
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut resp = resp.map_err(|e| FlinkError::Unreachable {
            what: self.what,
            url: self.base.clone(),
            cause: e.to_string(),
        })?;
        let status = resp.status().as_u16();
        let body = resp
            .body_mut()
            .read_to_string()
            .map_err(|e| FlinkError::Unreachable {
                what: self.what,
                url: self.base.clone(),
                cause: format!("reading the answer of {url}: {e}"),
            })?;
        let json: Option<Value> = sonic_rs::from_str(&body).ok();
        if !(200..300).contains(&status) {
            return Err(FlinkError::Status {
                what: self.what,
                url: url.to_string(),
                status,
                message: json
                    .as_ref()
                    .and_then(errors_of)
                    .unwrap_or_else(|| body.chars().take(300).collect()),
            });
        }
        json.ok_or_else(|| FlinkError::Protocol {
            url: url.to_string(),
            message: format!(
                "the answer is not JSON: {}",
                body.chars().take(200).collect::<String>()
            ),
        })
    }
}

/// Flink's error answer: `{"errors": ["...", "<stack trace>"]}`; the first
/// line of each, the stack traces left out.
fn errors_of(v: &Value) -> Option<String> {
    use sonic_rs::{JsonContainerTrait, JsonValueTrait};
    let errs = v.get("errors")?.as_array()?;
    let lines: Vec<String> = errs
        .iter()
        .filter_map(|e| e.as_str())
        .map(first_cause)
        // The gateway's first entry is a bare "Internal server error.".
        .filter(|e| !e.is_empty() && e != "Internal server error.")
        .collect();
    (!lines.is_empty()).then(|| lines.join("; "))
}

/// The most telling line of a Java stack trace as Flink sends it: the last
/// `Caused by:` (the root cause), else its first line.
pub fn first_cause(trace: &str) -> String {
    let root = trace
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Caused by: "))
        .next_back();
    root.unwrap_or_else(|| trace.lines().next().unwrap_or(""))
        .trim()
        .to_string()
}

/// `s` percent-encoded for a query parameter.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b',') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_cause_of_a_java_trace_is_its_last_caused_by() {
        let t = "org.apache.flink.table.api.ValidationException: Unable to create a source\n\
                 \tat org.apache...\n\
                 Caused by: org.apache.flink.table.api.ValidationException: Unsupported options found for 'kafka'.\n\
                 \tat x";
        assert_eq!(
            first_cause(t),
            "org.apache.flink.table.api.ValidationException: Unsupported options found for 'kafka'."
        );
        assert_eq!(first_cause("one line"), "one line");
    }

    #[test]
    fn query_values_are_percent_encoded_but_commas_and_dots_kept() {
        assert_eq!(
            encode("Calc[2].numRecordsIn,a b"),
            "Calc%5B2%5D.numRecordsIn,a%20b"
        );
    }
}
