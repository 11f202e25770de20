//! Flink's `jdbc` connector, as a sink into PostgreSQL: its options, the
//! server and table they name, and how rows are buffered and retried.
//!
//! Flink's names and defaults: `url`, `table-name`, `username`,
//! `password`, `sink.buffer-flush.max-rows` (100), `sink.buffer-flush.interval`
//! (1 s), `sink.max-retries` (3), `connection.max-retry-timeout` (60 s).
//! Only `jdbc:postgresql://` URLs are served; a jdbc table is written, never
//! read (Flink's scan and lookup options are refused).

use std::collections::BTreeMap;

use lowwater_core::Millis;

use crate::error::{Loc, Result, SqlError};
use crate::types::parse_duration;

/// The options a `jdbc` table takes.
pub const OPTIONS: &[&str] = &[
    "connector",
    "url",
    "table-name",
    "driver",
    "username",
    "password",
    "connection.max-retry-timeout",
    "sink.buffer-flush.max-rows",
    "sink.buffer-flush.interval",
    "sink.max-retries",
    "sink.parallelism",
    "lowwater.sink.max-emission-lag",
    "lowwater.sink.max-staleness",
];

/// Flink's options for reading a jdbc table, which lowwater does not do.
const READ_OPTIONS: &[&str] = &[
    "scan.partition.column",
    "scan.partition.num",
    "scan.partition.lower-bound",
    "scan.partition.upper-bound",
    "scan.fetch-size",
    "scan.auto-commit",
    "lookup.cache",
    "lookup.cache.max-rows",
    "lookup.cache.ttl",
    "lookup.cache.caching-missing-key",
    "lookup.partial-cache.max-rows",
    "lookup.partial-cache.expire-after-write",
    "lookup.partial-cache.expire-after-access",
    "lookup.partial-cache.cache-missing-key",
    "lookup.max-retries",
];

/// URL parameters the connection takes (`?name=value&...`).
const URL_PARAMETERS: &[&str] = &[
    "user",
    "password",
    "sslmode",
    "ApplicationName",
    "applicationName",
    "connectTimeout",
];

/// A PostgreSQL table written through the `jdbc` connector.
#[derive(Clone, PartialEq, Eq)]
pub struct Jdbc {
    /// `url` as written (without its password parameter, if it had one).
    pub url: String,
    /// Host, port and database of the URL.
    pub host: String,
    /// The port (PostgreSQL's 5432 when the URL has none).
    pub port: u16,
    /// The database.
    pub database: String,
    /// `table-name` as written (`schema.table`, or a table of the search path).
    pub table_name: String,
    /// The schema, when `table-name` names one (folded as PostgreSQL folds
    /// an unquoted name: to lower case).
    pub schema: Option<String>,
    /// The table (folded likewise).
    pub table: String,
    /// `username` (or the URL's `user`).
    pub username: Option<String>,
    /// `password` (or the URL's): never printed.
    pub password: Option<String>,
    /// `ApplicationName` of the URL (default `lowwater`).
    pub application_name: String,
    /// The URL's `connectTimeout` in seconds (default 10).
    pub connect_timeout_s: u64,
    /// `sink.buffer-flush.max-rows`: a flush when this many rows are
    /// buffered (0: no flush by size).
    pub max_rows: usize,
    /// `sink.buffer-flush.interval`: a flush this often while rows are
    /// buffered (`None`: no flush by time).
    pub flush_interval: Option<Millis>,
    /// `sink.max-retries`: how often a batch the server refused is tried
    /// again before the job fails.
    pub max_retries: u32,
    /// `connection.max-retry-timeout`: how long a lost connection is
    /// re-established before the job fails.
    pub max_retry_timeout: Millis,
}

impl std::fmt::Debug for Jdbc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jdbc")
            .field("url", &self.url)
            .field("table_name", &self.table_name)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .field("max_rows", &self.max_rows)
            .field("flush_interval", &self.flush_interval)
            .field("max_retries", &self.max_retries)
            .field("max_retry_timeout", &self.max_retry_timeout)
            .finish()
    }
}

impl Jdbc {
    /// `host:port/database`, the server named in messages.
    pub fn server(&self) -> String {
        format!("{}:{}/{}", self.host, self.port, self.database)
    }

    /// The table as messages name it (`schema.table`).
    pub fn qualified(&self) -> String {
        match &self.schema {
            Some(s) => format!("{s}.{}", self.table),
            None => self.table.clone(),
        }
    }
}

/// Whether `key` is one of Flink's options for reading a jdbc table
/// (refused with a message of its own).
pub fn is_read_option(key: &str) -> bool {
    READ_OPTIONS.contains(&key)
}

/// Reads the options of a jdbc table (`at`: where each option is written).
pub fn check(raw: &BTreeMap<String, String>, at: &dyn Fn(&str) -> Loc, loc: Loc) -> Result<Jdbc> {
    if let Some(k) = raw.keys().find(|k| READ_OPTIONS.contains(&k.as_str())) {
        return Err(SqlError::new(
            at(k),
            format!(
                "'{k}' is an option for reading a jdbc table; lowwater writes jdbc tables \
                 (PostgreSQL sinks) and does not read them: remove it"
            ),
        ));
    }
    let require = |k: &str| {
        raw.get(k).cloned().ok_or_else(|| {
            SqlError::new(
                loc,
                format!("connector 'jdbc' requires option '{k}' (e.g. 'url' = 'jdbc:postgresql://127.0.0.1:5432/db', 'table-name' = 'schema.table')"),
            )
        })
    };
    let url = require("url")?;
    let table_name = require("table-name")?;
    if let Some(d) = raw.get("driver") {
        if d != "org.postgresql.Driver" {
            return Err(SqlError::new(
                at("driver"),
                format!("driver '{d}' is not supported: lowwater writes PostgreSQL ('org.postgresql.Driver'); remove 'driver' or set it to that"),
            ));
        }
    }
    let parsed = parse_url(&url).map_err(|m| SqlError::new(at("url"), m))?;
    let (schema, table) =
        split_table_name(&table_name).map_err(|m| SqlError::new(at("table-name"), m))?;
    let number = |k: &str, default: u64| -> Result<u64> {
        match raw.get(k) {
            None => Ok(default),
            Some(v) => v.trim().parse::<u64>().map_err(|_| {
                SqlError::new(
                    at(k),
                    format!("{k} must be a whole number of 0 or more, got '{v}'"),
                )
            }),
        }
    };
    let duration = |k: &str, default: Millis| -> Result<Millis> {
        match raw.get(k) {
            None => Ok(default),
            Some(v) => parse_duration(v).map_err(|m| SqlError::new(at(k), format!("{k}: {m}"))),
        }
    };
    let max_rows = number("sink.buffer-flush.max-rows", 100)?;
    let interval = duration("sink.buffer-flush.interval", 1_000)?;
    let max_retries = number("sink.max-retries", 3)?;
    let max_retry_timeout = duration("connection.max-retry-timeout", 60_000)?;
    if max_retry_timeout <= 0 {
        return Err(SqlError::new(
            at("connection.max-retry-timeout"),
            "connection.max-retry-timeout must be a positive duration such as '60 s'",
        ));
    }
    let params = parsed.params;
    Ok(Jdbc {
        url: parsed.shown,
        host: parsed.host,
        port: parsed.port,
        database: parsed.database,
        table_name,
        schema,
        table,
        username: raw.get("username").or(params.get("user")).cloned(),
        password: raw.get("password").or(params.get("password")).cloned(),
        application_name: params
            .get("ApplicationName")
            .or(params.get("applicationName"))
            .cloned()
            .unwrap_or_else(|| "lowwater".into()),
        connect_timeout_s: params
            .get("connectTimeout")
            .and_then(|v| v.parse().ok())
            .unwrap_or(10),
        max_rows: usize::try_from(max_rows).unwrap_or(usize::MAX),
        flush_interval: (interval > 0).then_some(interval),
        max_retries: u32::try_from(max_retries).unwrap_or(u32::MAX),
        max_retry_timeout,
    })
}

struct Url {
    host: String,
    port: u16,
    database: String,
    params: BTreeMap<String, String>,
    /// The URL as shown: its password parameter masked.
    shown: String,
}

/// `url` as messages show it: the value of its `password` parameter
/// masked (a URL with a typo is quoted in the error about it).
pub fn shown_url(url: &str) -> String {
    let Some((head, query)) = url.split_once('?') else {
        return url.to_string();
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
            _ => pair.to_string(),
        })
        .collect();
    format!("{head}?{}", pairs.join("&"))
}

/// `%XX` escapes of a URL parameter decoded, as PgJDBC decodes them.
fn percent_decoded(v: &str) -> std::result::Result<String, String> {
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = v
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(b) = hex else {
                return Err("has a '%' that is not followed by two hex digits".into());
            };
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "decodes to bytes that are not UTF-8".into())
}

/// Reads `jdbc:postgresql://host[:port]/database[?k=v&...]`.
fn parse_url(raw: &str) -> std::result::Result<Url, String> {
    // Every message quotes the URL with its password masked.
    let url = &shown_url(raw);
    let Some(rest) = raw.strip_prefix("jdbc:postgresql://") else {
        let kind = raw
            .strip_prefix("jdbc:")
            .and_then(|r| r.split(':').next())
            .unwrap_or("not a jdbc: URL");
        return Err(format!(
            "url '{url}': lowwater's jdbc sink writes PostgreSQL only \
             ('jdbc:postgresql://HOST:PORT/DATABASE'), not '{kind}'"
        ));
    };
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (authority, database) = path.split_once('/').ok_or_else(|| {
        format!("url '{url}' names no database: write 'jdbc:postgresql://HOST:PORT/DATABASE'")
    })?;
    if database.is_empty() {
        return Err(format!(
            "url '{url}' names no database: write 'jdbc:postgresql://HOST:PORT/DATABASE'"
        ));
    }
    if authority.contains('@') {
        return Err(
            "url: credentials in the host part (user:password@host) are not read; give them as \
             'username' and 'password' (the url is shown without them)"
                .to_string(),
        );
    }
    if authority.contains(',') {
        return Err(format!(
            "url '{url}' names several hosts; lowwater connects to one: name it"
        ));
    }
    // `host`, `host:port`, `[v6]`, `[v6]:port`.
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if h.ends_with(']') || !h.contains(':') => (
            h,
            p.parse::<u16>()
                .map_err(|_| format!("url '{url}': port '{p}' is not a number"))?,
        ),
        _ => (authority, 5432),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err(format!("url '{url}' names no host"));
    }
    let mut params = BTreeMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if !URL_PARAMETERS.contains(&k) {
            return Err(format!(
                "url parameter '{k}' is not supported; lowwater reads {}",
                URL_PARAMETERS.join(", ")
            ));
        }
        let v = percent_decoded(v).map_err(|m| format!("url parameter '{k}' {m}"))?;
        if k == "sslmode" && !["disable", "allow", "prefer"].contains(&v.as_str()) {
            return Err(format!(
                "url parameter sslmode={v} needs TLS to the server, which lowwater's jdbc sink \
                 does not have yet; use sslmode=disable (or prefer) on a trusted network"
            ));
        }
        if k == "connectTimeout" && v.parse::<u64>().is_err() {
            return Err(format!(
                "url parameter connectTimeout={v} must be a number of seconds"
            ));
        }
        params.insert(k.to_string(), v);
    }
    Ok(Url {
        host: host.to_string(),
        port,
        database: database.to_string(),
        params,
        shown: url.to_string(),
    })
}

/// `schema.table` as PostgreSQL reads it: each part's ASCII letters folded
/// to lower case unless double-quoted.
fn split_table_name(name: &str) -> std::result::Result<(Option<String>, String), String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut was_quoted = false;
    let mut chars = name.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            '"' => {
                quoted = !quoted;
                was_quoted = true;
            }
            '.' if !quoted => {
                parts.push(std::mem::take(&mut cur));
                was_quoted = false;
            }
            c if quoted || was_quoted => cur.push(c),
            // PostgreSQL folds the ASCII letters of an unquoted name only.
            c => cur.push(c.to_ascii_lowercase()),
        }
    }
    if quoted {
        return Err(format!("table-name '{name}' has an unclosed double quote"));
    }
    parts.push(cur);
    if parts.iter().any(String::is_empty) {
        return Err(format!(
            "table-name '{name}' is not a table name: write 'table' or 'schema.table'"
        ));
    }
    match parts.len() {
        1 => Ok((None, parts.remove(0))),
        2 => {
            let table = parts.remove(1);
            Ok((Some(parts.remove(0)), table))
        }
        _ => Err(format!(
            "table-name '{name}' has {} parts; write 'schema.table' (the database is the url's)",
            parts.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn read(pairs: &[(&str, &str)]) -> std::result::Result<Jdbc, String> {
        check(&opts(pairs), &|_| Loc::default(), Loc::default()).map_err(|e| e.message)
    }

    #[test]
    fn flink_defaults_and_names() {
        let j = read(&[
            ("url", "jdbc:postgresql://127.0.0.1:15432/lowwater"),
            ("table-name", "Gold.Stock_Out_Alerts"),
            ("username", "lowwater"),
            ("password", "hunter2"),
        ])
        .expect("valid");
        assert_eq!((j.host.as_str(), j.port), ("127.0.0.1", 15432));
        assert_eq!(j.database, "lowwater");
        assert_eq!(j.schema.as_deref(), Some("gold"));
        assert_eq!(j.table, "stock_out_alerts");
        assert_eq!(j.max_rows, 100);
        assert_eq!(j.flush_interval, Some(1_000));
        assert_eq!(j.max_retries, 3);
        assert_eq!(j.max_retry_timeout, 60_000);
        assert!(!format!("{j:?}").contains("hunter2"));
    }

    #[test]
    fn quoted_names_keep_their_case() {
        assert_eq!(
            split_table_name(r#""Gold"."My ""T""#),
            Ok((Some("Gold".into()), "My \"T".into()))
        );
        assert!(split_table_name("a.b.c").is_err());
        assert!(split_table_name("a.").is_err());
    }

    #[test]
    fn url_password_is_masked_and_other_databases_refused() {
        let j = read(&[
            (
                "url",
                "jdbc:postgresql://db:5433/x?user=u&password=p4ss&sslmode=disable",
            ),
            ("table-name", "t"),
        ])
        .expect("valid");
        assert_eq!(j.password.as_deref(), Some("p4ss"));
        assert_eq!(j.username.as_deref(), Some("u"));
        assert!(!j.url.contains("p4ss"), "{}", j.url);
        let mysql = read(&[("url", "jdbc:mysql://h/db"), ("table-name", "t")]);
        assert!(mysql.is_err_and(|m| m.contains("PostgreSQL only") && m.contains("'mysql'")));
        let tls = read(&[
            ("url", "jdbc:postgresql://h/db?sslmode=require"),
            ("table-name", "t"),
        ]);
        assert!(tls.is_err_and(|m| m.contains("TLS")));
        let scan = read(&[
            ("url", "jdbc:postgresql://h/db"),
            ("table-name", "t"),
            ("scan.fetch-size", "10"),
        ]);
        assert!(scan.is_err_and(|m| m.contains("does not read them")));
    }

    #[test]
    fn a_url_with_a_typo_is_quoted_without_its_password() {
        let typo = read(&[
            ("url", "jdbc:postgres://h/db?user=u&password=s3cret"),
            ("table-name", "t"),
        ]);
        assert!(typo.is_err_and(|m| m.contains("password=***") && !m.contains("s3cret")));
        let port = read(&[
            ("url", "jdbc:postgresql://h:x/db?password=s3cret"),
            ("table-name", "t"),
        ]);
        assert!(port.is_err_and(|m| m.contains("port 'x'") && !m.contains("s3cret")));
        let inline = read(&[
            ("url", "jdbc:postgresql://u:s3cret@h/db"),
            ("table-name", "t"),
        ]);
        assert!(inline.is_err_and(|m| m.contains("credentials") && !m.contains("s3cret")));
        let encoded = read(&[
            ("url", "jdbc:postgresql://[::1]:6543/db?password=p%40ss"),
            ("table-name", "t"),
        ])
        .expect("valid");
        assert_eq!((encoded.host.as_str(), encoded.port), ("::1", 6543));
        assert_eq!(encoded.password.as_deref(), Some("p@ss"));
        let v6 = read(&[("url", "jdbc:postgresql://[::1]/db"), ("table-name", "t")]).expect("v6");
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 5432));
    }

    #[test]
    fn flush_options_turn_off_with_zero() {
        let j = read(&[
            ("url", "jdbc:postgresql://h/db"),
            ("table-name", "t"),
            ("sink.buffer-flush.max-rows", "0"),
            ("sink.buffer-flush.interval", "0"),
        ])
        .expect("valid");
        assert_eq!((j.max_rows, j.flush_interval, j.port), (0, None, 5432));
        let bad = read(&[
            ("url", "jdbc:postgresql://h/db"),
            ("table-name", "t"),
            ("sink.max-retries", "-1"),
        ]);
        assert!(bad.is_err_and(|m| m.contains("whole number")));
    }
}
