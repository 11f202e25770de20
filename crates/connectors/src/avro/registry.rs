//! A client for a Confluent Schema Registry's REST API: the two calls the
//! `avro-confluent` format needs. `GET /schemas/ids/{id}` gives the writer
//! schema of a record; `POST /subjects/{subject}/versions` registers a
//! sink's schema (or finds it registered) and gives its id. Schemas by id
//! never change, so each is fetched once per reader. Credentials go in the
//! `Authorization` header and never into a message.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use lowwater_sql::formats::RegistryFormat;
use sonic_rs::JsonValueTrait;
#[cfg(feature = "registry-tls")]
use ureq::tls::{Certificate, RootCerts, TlsConfig, TlsProvider};

use super::schema::Schema;

/// How long one registry call may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// A registry client with its schema cache.
#[derive(Clone)]
pub struct Registry {
    /// The registry's base URLs (Flink's option takes a comma-separated
    /// list; they are tried in order).
    urls: Vec<String>,
    url: String,
    auth: Option<String>,
    agent: ureq::Agent,
    by_id: HashMap<u32, Arc<Schema>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The credentials are left out.
        f.debug_struct("Registry").field("url", &self.url).finish()
    }
}

/// The HTTP client: with the `registry-tls` feature, https through the
/// system's TLS, trusting `ca_file` (PEM) or the platform's roots.
#[cfg(feature = "registry-tls")]
fn agent(f: &RegistryFormat) -> Result<ureq::Agent, String> {
    let mut tls = TlsConfig::builder().provider(TlsProvider::NativeTls);
    if let Some(path) = &f.ca_file {
        let pem = std::fs::read(path).map_err(|e| {
            format!("avro-confluent.ssl.truststore.location '{path}' cannot be read: {e}")
        })?;
        let certs: Vec<Certificate<'static>> = ureq::tls::parse_pem(&pem)
            .filter_map(|i| match i {
                Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
                _ => None,
            })
            .collect();
        if certs.is_empty() {
            return Err(format!(
                "avro-confluent.ssl.truststore.location '{path}' holds no PEM certificate \
                     (a JKS or PKCS12 store must be converted to PEM first)"
            ));
        }
        tls = tls.root_certs(RootCerts::new_with_certs(&certs));
    } else {
        tls = tls.root_certs(RootCerts::PlatformVerifier);
    }
    Ok(ureq::Agent::config_builder()
        .timeout_global(Some(TIMEOUT))
        .http_status_as_error(false)
        .tls_config(tls.build())
        .build()
        .into())
}

/// The HTTP client of a build without TLS (the Python package, built
/// without OpenSSL): http only, and a clear error for https.
#[cfg(not(feature = "registry-tls"))]
fn agent(f: &RegistryFormat) -> Result<ureq::Agent, String> {
    if f.url
        .split(',')
        .any(|u| u.trim().to_ascii_lowercase().starts_with("https:"))
    {
        return Err(format!(
            "avro-confluent.url '{}' is https, and this build of lowwater has no TLS for the Schema \
             Registry (it was built without the registry-tls feature, as the Python package is); \
             replay with the lowwater CLI, or use an http URL",
            f.url
        ));
    }
    Ok(ureq::Agent::config_builder()
        .timeout_global(Some(TIMEOUT))
        .http_status_as_error(false)
        .build()
        .into())
}

impl Registry {
    /// A client for the registry `f` names.
    pub fn new(f: &RegistryFormat) -> Result<Registry, String> {
        use base64::Engine;
        let agent = agent(f)?;
        let auth = match (&f.basic_auth, &f.bearer_token) {
            (Some(user_info), _) => Some(format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(user_info)
            )),
            (None, Some(token)) => Some(format!("Bearer {token}")),
            (None, None) => None,
        };
        let urls: Vec<String> = f
            .url
            .split(',')
            .map(|u| u.trim().trim_end_matches('/').to_string())
            .filter(|u| !u.is_empty())
            .collect();
        Ok(Registry {
            urls,
            url: f.url.clone(),
            auth,
            agent,
            by_id: HashMap::new(),
        })
    }

    /// The schema with this id (fetched once).
    pub fn schema(&mut self, id: u32) -> Result<Arc<Schema>, String> {
        if let Some(s) = self.by_id.get(&id) {
            return Ok(Arc::clone(s));
        }
        let (status, body) = self.call(&format!("/schemas/ids/{id}"), None)?;
        // 40403 is the registry's "schema not found" (the record is bad);
        // any other 404 (a wrong path prefix, a proxy) is a configuration
        // problem, reported by `ok` below.
        if status == 404 && error_code(&body) == Some(40403) {
            return Err(format!(
                "schema id {id} is not in the registry at {} ({}); the record was written \
                 against another registry, or its schema was deleted",
                self.url,
                message(&body)
            ));
        }
        let text = self.ok(status, &body, &format!("reading schema id {id}"))?;
        let doc: sonic_rs::Value = sonic_rs::from_str(&text)
            .map_err(|e| format!("the registry's answer for id {id} is not JSON: {e}"))?;
        if let Some(t) = doc.get("schemaType").and_then(|t| t.as_str()) {
            if t != "AVRO" {
                return Err(format!(
                    "schema id {id} is a {t} schema; format 'avro-confluent' reads Avro only"
                ));
            }
        }
        let schema_text = doc
            .get("schema")
            .and_then(|s| s.as_str())
            .ok_or_else(|| format!("the registry's answer for id {id} has no \"schema\""))?;
        let schema = Schema::parse(schema_text)
            .map_err(|e| format!("schema id {id} from the registry: {e}"))?;
        let schema = Arc::new(schema);
        self.by_id.insert(id, Arc::clone(&schema));
        Ok(schema)
    }

    /// Registers `schema` (Avro JSON) under `subject`, or finds it already
    /// registered there; returns its id.
    pub fn register(&mut self, subject: &str, schema: &str) -> Result<u32, String> {
        let path = format!("/subjects/{}/versions", encode_path(subject));
        self.post_schema(
            &path,
            schema,
            &format!("registering the schema under '{subject}'"),
        )
    }

    /// The id of `schema` under `subject`, without registering it.
    pub fn look_up(&mut self, subject: &str, schema: &str) -> Result<u32, String> {
        let path = format!("/subjects/{}", encode_path(subject));
        self.post_schema(
            &path,
            schema,
            &format!(
                "looking the schema up under '{subject}' (replay does not register schemas: \
                 register it, or run the job once)"
            ),
        )
    }

    fn post_schema(&mut self, path: &str, schema: &str, what: &str) -> Result<u32, String> {
        let mut body = String::from("{\"schema\":");
        crate::escape::write_json_str(&mut body, schema);
        body.push('}');
        let (status, text) = self.call(path, Some(&body))?;
        let text = self.ok(status, &text, what)?;
        let doc: sonic_rs::Value = sonic_rs::from_str(&text)
            .map_err(|e| format!("the registry's answer while {what} is not JSON: {e}"))?;
        doc.get("id")
            .and_then(|i| i.as_u64())
            .and_then(|i| u32::try_from(i).ok())
            .ok_or_else(|| format!("the registry's answer while {what} has no schema id"))
    }

    /// A GET of `path`, or a POST of `body` to it, to each URL in turn until
    /// one answers.
    fn call(&self, path: &str, body: Option<&str>) -> Result<(u16, String), String> {
        let mut failures = Vec::new();
        for base in &self.urls {
            match self.call_one(base, path, body) {
                Ok(r) => return Ok(r),
                Err(e) => failures.push(e),
            }
        }
        Err(format!(
            "the schema registry cannot be reached ({} {path}): {}",
            if body.is_some() { "POST" } else { "GET" },
            failures.join("; ")
        ))
    }

    /// `r` with the headers every call carries.
    fn headers<B>(&self, r: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        let r = r.header(
            "Accept",
            "application/vnd.schemaregistry.v1+json, application/json",
        );
        match &self.auth {
            Some(a) => r.header("Authorization", a),
            None => r,
        }
    }

    fn call_one(
        &self,
        base: &str,
        path: &str,
        body: Option<&str>,
    ) -> Result<(u16, String), String> {
        let url = format!("{base}{path}");
        let result = match body {
            None => self.headers(self.agent.get(&url)).call(),
            Some(b) => self
                .headers(self.agent.post(&url))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .send(b),
        };
        let mut resp = result.map_err(|e| format!("{base}: {e}"))?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .with_config()
            .limit(16 * 1024 * 1024)
            .read_to_string()
            .map_err(|e| format!("{base}: reading the answer: {e}"))?;
        Ok((status, text))
    }

    fn ok(&self, status: u16, body: &str, what: &str) -> Result<String, String> {
        match status {
            200..=299 => Ok(body.to_string()),
            401 | 403 => Err(format!(
                "the schema registry at {} refused the credentials while {what} (HTTP {status}: {}); \
                 check avro-confluent.basic-auth.user-info or bearer-auth.token",
                self.url,
                message(body)
            )),
            _ => Err(format!(
                "the schema registry at {} answered HTTP {status} while {what}: {}",
                self.url,
                message(body)
            )),
        }
    }
}

/// The registry's `error_code`, if the body is one of its errors.
fn error_code(body: &str) -> Option<u64> {
    sonic_rs::from_str::<sonic_rs::Value>(body)
        .ok()
        .and_then(|v| v.get("error_code").and_then(|c| c.as_u64()))
}

/// The registry's error message (`{"error_code":..,"message":..}`), or the
/// body's start.
fn message(body: &str) -> String {
    sonic_rs::from_str::<sonic_rs::Value>(body)
        .ok()
        .and_then(|v| {
            v.get("message")
                .and_then(|m| m.as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| body.chars().take(200).collect())
}

/// A subject as one path segment.
fn encode_path(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
