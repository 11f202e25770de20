//! Submitting a job file to Flink's SQL Gateway (its REST endpoint, API v1
//! paths, which Flink 2.3's gateway serves): a session, then each statement
//! of the file in order, each waited for until Flink has run it; the INSERT
//! (or the statement set of all INSERTs) answers with the job id. A
//! statement Flink refuses stops the submission with Flink's root cause
//! and the file's line.

use std::time::{Duration, Instant};

use sonic_rs::{JsonContainerTrait, JsonValueTrait, Value};

use crate::rest::Rest;
use crate::FlinkError;

/// How long one statement may take on the gateway (an INSERT is planned
/// and its job submitted in a few seconds).
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(serde::Serialize)]
struct StatementBody<'a> {
    statement: &'a str,
}

#[derive(serde::Serialize)]
struct SessionBody<'a> {
    #[serde(rename = "sessionName")]
    session_name: &'a str,
}

/// A request body as JSON.
fn json(body: &impl serde::Serialize) -> Result<String, FlinkError> {
    sonic_rs::to_string(body).map_err(|e| FlinkError::Protocol {
        url: "(a request body)".into(),
        message: format!("cannot encode it as JSON: {e}"),
    })
}

fn field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(|x| x.as_str()).map(str::to_string)
}

/// A gateway session.
pub struct Session<'a> {
    gw: &'a Rest,
    handle: String,
}

impl<'a> Session<'a> {
    /// Opens a session on `gw`.
    pub fn open(gw: &'a Rest) -> Result<Self, FlinkError> {
        let body = json(&SessionBody {
            session_name: "lowwater",
        })?;
        let v = gw.post("/v1/sessions", &body)?;
        let handle = field(&v, "sessionHandle").ok_or_else(|| FlinkError::Protocol {
            url: format!("{}/v1/sessions", gw.base()),
            message: "no sessionHandle in the answer".into(),
        })?;
        Ok(Session { gw, handle })
    }

    /// Runs one statement (`line`: where it starts in the file) and
    /// returns the job id it started, if it started one.
    pub fn run(&self, line: usize, statement: &str) -> Result<Option<String>, FlinkError> {
        let body = json(&StatementBody { statement })?;
        let base = format!("/v1/sessions/{}", self.handle);
        let op = self.gw.post(&format!("{base}/statements"), &body)?;
        let op = field(&op, "operationHandle").ok_or_else(|| FlinkError::Protocol {
            url: format!("{}{base}/statements", self.gw.base()),
            message: "no operationHandle in the answer".into(),
        })?;
        let op_path = format!("{base}/operations/{op}");
        let refused = |message: String| {
            let head: String = statement
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(80)
                .collect();
            FlinkError::User(format!(
                "line {line}: Flink refused the statement `{head}`: {message}"
            ))
        };
        let deadline = Instant::now() + STATEMENT_TIMEOUT;
        let mut next = format!("{op_path}/result/0");
        loop {
            let status = self.gw.get(&format!("{op_path}/status"));
            let status = match status {
                Ok(s) => field(&s, "status").unwrap_or_default(),
                Err(FlinkError::Status { message, .. }) => return Err(refused(message)),
                Err(e) => return Err(e),
            };
            match status.as_str() {
                "ERROR" => {
                    // The result of a failed operation is the error.
                    return Err(refused(match self.gw.get(&next) {
                        Err(FlinkError::Status { message, .. }) => message,
                        Err(e) => e.to_string(),
                        Ok(_) => "the operation failed (no reason given)".into(),
                    }));
                }
                "FINISHED" => break,
                "CANCELED" | "CLOSED" | "TIMEOUT" => {
                    return Err(refused(format!("the operation ended {status}")));
                }
                _ => {}
            }
            if Instant::now() > deadline {
                return Err(refused(format!(
                    "no answer within {} s",
                    STATEMENT_TIMEOUT.as_secs()
                )));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        // Results come in pages; the job id is on the first that has data.
        let starts_job = {
            let head = statement.trim_start().to_ascii_uppercase();
            head.starts_with("INSERT") || head.starts_with("EXECUTE")
        };
        loop {
            let r = self.gw.get(&next).map_err(|e| match e {
                FlinkError::Status { message, .. } => refused(message),
                e => e,
            })?;
            if let Some(id) = field(&r, "jobID") {
                return Ok(Some(id));
            }
            let data = r
                .get("results")
                .and_then(|x| x.get("data"))
                .and_then(|d| d.as_array())
                .is_some_and(|d| !d.is_empty());
            match field(&r, "resultType").as_deref() {
                // A statement's own result (SET, CREATE), or its end.
                Some("EOS") | None if !starts_job => return Ok(None),
                Some("PAYLOAD") if data && !starts_job => return Ok(None),
                Some("EOS") | None => {
                    return Err(refused(
                        "the gateway finished the statement without a job id".into(),
                    ))
                }
                _ => {}
            }
            if Instant::now() > deadline {
                return Err(refused(format!(
                    "no job id within {} s",
                    STATEMENT_TIMEOUT.as_secs()
                )));
            }
            match field(&r, "nextResultUri") {
                Some(uri) => next = uri,
                None if starts_job => {
                    return Err(refused("the gateway gave no job id".into()));
                }
                None => return Ok(None),
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Closes the session (the jobs it started keep running).
    pub fn close(self) {
        let _ = self.gw.delete(&format!("/v1/sessions/{}", self.handle));
    }
}

/// Runs every statement (see [`crate::script::for_gateway`]) in one
/// session and returns the job the INSERTs started.
pub fn submit(
    gw: &Rest,
    statements: &[(usize, String)],
    mut each: impl FnMut(usize, &str),
) -> Result<String, FlinkError> {
    let session = Session::open(gw)?;
    let mut job = None;
    for (line, st) in statements {
        each(*line, st);
        match session.run(*line, st) {
            Ok(Some(id)) => job = Some(id),
            Ok(None) => {}
            Err(e) => {
                session.close();
                return Err(e);
            }
        }
    }
    session.close();
    job.ok_or_else(|| {
        FlinkError::User(
            "the job file has no INSERT, so Flink started no job (lowwater submit runs a file \
             that writes a sink)"
                .into(),
        )
    })
}
