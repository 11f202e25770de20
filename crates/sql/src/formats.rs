//! The value formats a table can have besides `json` and their options,
//! named as in Flink: `csv` (`csv.*`), `avro` (`avro.*`) and
//! `avro-confluent` (`avro-confluent.*`, a Confluent Schema Registry).
//! Values are checked here, so that a typo is an error at its place before
//! anything runs.

use std::collections::BTreeMap;

use crate::error::{Loc, Result, SqlError};

/// How a record value is encoded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ValueFormat {
    /// Flink's `json` (options in [`crate::options::JsonFormat`]).
    #[default]
    Json,
    /// `raw`: the value is the one physical STRING column, as is.
    Raw,
    /// `csv`.
    Csv(CsvFormat),
    /// `avro`: Avro binary, written with the schema derived from the table.
    Avro,
    /// `avro-confluent`: Avro binary framed with a Schema Registry id.
    AvroConfluent(RegistryFormat),
}

impl ValueFormat {
    /// The `'format'` value.
    pub fn name(&self) -> &'static str {
        match self {
            ValueFormat::Json => "json",
            ValueFormat::Raw => "raw",
            ValueFormat::Csv(_) => "csv",
            ValueFormat::Avro => "avro",
            ValueFormat::AvroConfluent(_) => "avro-confluent",
        }
    }

    /// The option that skips (and counts) undecodable records, if the
    /// format has one (Flink's Avro formats have none).
    pub fn skip_option(&self) -> Option<&'static str> {
        match self {
            ValueFormat::Json | ValueFormat::Raw => Some("json.ignore-parse-errors"),
            ValueFormat::Csv(_) => Some("csv.ignore-parse-errors"),
            ValueFormat::Avro | ValueFormat::AvroConfluent(_) => None,
        }
    }

    /// Whether values are binary (not text lines).
    pub fn is_binary(&self) -> bool {
        matches!(self, ValueFormat::Avro | ValueFormat::AvroConfluent(_))
    }
}

/// The `csv` format's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvFormat {
    /// `csv.field-delimiter` (default `,`).
    pub field_delimiter: u8,
    /// `csv.quote-character` (default `"`); `None` with
    /// `csv.disable-quote-character`.
    pub quote: Option<u8>,
    /// `csv.allow-comments`: lines starting with `#` are skipped.
    pub allow_comments: bool,
    /// `csv.ignore-parse-errors`: a field that does not convert is NULL and
    /// a record that does not parse is skipped (and counted).
    pub ignore_parse_errors: bool,
    /// `csv.escape-character` (none by default).
    pub escape: Option<u8>,
    /// `csv.null-literal`: this text reads as NULL (and NULL is written so).
    pub null_literal: Option<String>,
}

/// The `avro-confluent` format's options (its `Debug` masks the
/// credentials).
#[derive(Clone, PartialEq, Eq)]
pub struct RegistryFormat {
    /// `avro-confluent.url`: the registry's base URL.
    pub url: String,
    /// `avro-confluent.subject`: the subject a sink registers its schema
    /// under (default `<topic>-value`).
    pub subject: Option<String>,
    /// `avro-confluent.schema`: the Avro schema (reader schema for sources,
    /// written schema for sinks) instead of the one derived from the table.
    pub schema: Option<String>,
    /// `avro-confluent.basic-auth.user-info` (`user:password`) with
    /// `basic-auth.credentials-source` = 'USER_INFO'.
    pub basic_auth: Option<String>,
    /// `avro-confluent.bearer-auth.token` with
    /// `bearer-auth.credentials-source` = 'STATIC_TOKEN'.
    pub bearer_token: Option<String>,
    /// `avro-confluent.ssl.truststore.location`: a PEM file of CA
    /// certificates for an https registry.
    pub ca_file: Option<String>,
}

impl std::fmt::Debug for RegistryFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let masked = |s: &Option<String>| s.as_ref().map(|_| "***");
        f.debug_struct("RegistryFormat")
            .field("url", &self.url)
            .field("subject", &self.subject)
            .field("schema", &self.schema)
            .field("basic_auth", &masked(&self.basic_auth))
            .field("bearer_token", &masked(&self.bearer_token))
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

/// The options of `csv`.
pub const CSV: &[&str] = &[
    "csv.field-delimiter",
    "csv.quote-character",
    "csv.disable-quote-character",
    "csv.allow-comments",
    "csv.ignore-parse-errors",
    "csv.array-element-delimiter",
    "csv.escape-character",
    "csv.null-literal",
    "csv.write-bigdecimal-in-scientific-notation",
];

/// The options of `avro`.
pub const AVRO: &[&str] = &["avro.timestamp_mapping.legacy", "avro.encoding"];

/// The options of `avro-confluent`.
pub const AVRO_CONFLUENT: &[&str] = &[
    "avro-confluent.url",
    "avro-confluent.subject",
    "avro-confluent.schema",
    "avro-confluent.basic-auth.credentials-source",
    "avro-confluent.basic-auth.user-info",
    "avro-confluent.bearer-auth.credentials-source",
    "avro-confluent.bearer-auth.token",
    "avro-confluent.ssl.truststore.location",
    "avro-confluent.ssl.truststore.password",
];

/// The options format `name` adds to its connector's.
pub fn options_of(name: &str) -> &'static [&'static str] {
    match name {
        "csv" => CSV,
        "avro" => AVRO,
        "avro-confluent" => AVRO_CONFLUENT,
        _ => &[],
    }
}

/// Checks the options of value format `name` (not `json`) on a table of
/// `connector`.
pub fn check(
    name: &str,
    connector: &str,
    raw: &BTreeMap<String, String>,
    at: &dyn Fn(&str) -> Loc,
) -> Result<ValueFormat> {
    let f = format(name, raw, at)?;
    if connector == "filesystem" && f.is_binary() {
        return Err(SqlError::new(
            at("format"),
            format!(
                "format '{name}' on a filesystem table is not supported: Flink writes Avro files as \
                 Avro container files, which lowwater does not read or write; filesystem tables \
                 take json, csv or raw lines"
            ),
        ));
    }
    Ok(f)
}

fn format(
    name: &str,
    raw: &BTreeMap<String, String>,
    at: &dyn Fn(&str) -> Loc,
) -> Result<ValueFormat> {
    match name {
        "raw" => {
            if let Some(cs) = raw
                .get("raw.charset")
                .filter(|c| !c.eq_ignore_ascii_case("UTF-8"))
            {
                return Err(SqlError::new(
                    at("raw.charset"),
                    format!("raw.charset '{cs}' is not supported: lowwater reads and writes UTF-8"),
                ));
            }
            Ok(ValueFormat::Raw)
        }
        "csv" => csv(raw, at).map(ValueFormat::Csv),
        "avro" => {
            avro_common(raw, at)?;
            if let Some(e) = raw.get("avro.encoding").filter(|e| *e != "binary") {
                return Err(SqlError::new(
                    at("avro.encoding"),
                    format!("avro.encoding '{e}' is not supported: lowwater reads and writes Avro binary ('binary', the default)"),
                ));
            }
            Ok(ValueFormat::Avro)
        }
        "avro-confluent" => registry(raw, at).map(ValueFormat::AvroConfluent),
        "avro-registry" => Err(SqlError::new(
            at("format"),
            "format 'avro-registry' is Confluent Cloud's own name; lowwater speaks the same wire \
             format as 'avro-confluent': set 'format' = 'avro-confluent' and \
             'avro-confluent.url' to the registry's endpoint (with basic-auth for Confluent Cloud)",
        )),
        other => {
            let known = ["json", "csv", "avro", "avro-confluent", "raw"];
            let near = crate::suggest::closest(other, known)
                .map_or(String::new(), |n| format!("did you mean '{n}'? "));
            Err(SqlError::new(
                at("format"),
                format!(
                    "format '{other}' is not supported; {near}supported: json, csv, avro, \
                     avro-confluent, raw"
                ),
            ))
        }
    }
}

/// A `true`/`false` option (any case); absent is false.
pub(crate) fn flag(
    raw: &BTreeMap<String, String>,
    at: &dyn Fn(&str) -> Loc,
    k: &str,
) -> Result<bool> {
    match raw.get(k).map(|v| v.to_ascii_lowercase()) {
        None => Ok(false),
        Some(v) if v == "true" => Ok(true),
        Some(v) if v == "false" => Ok(false),
        Some(v) => Err(SqlError::new(
            at(k),
            format!("option '{k}' must be true or false, got '{v}'"),
        )),
    }
}

/// One ASCII character (CSV delimiters, quotes and escapes are bytes).
fn one_char(
    raw: &BTreeMap<String, String>,
    at: &dyn Fn(&str) -> Loc,
    k: &str,
) -> Result<Option<u8>> {
    let Some(v) = raw.get(k) else {
        return Ok(None);
    };
    // Flink reads '\t' written as the two characters too.
    let v = if v == "\\t" { "\t" } else { v.as_str() };
    match v.as_bytes() {
        [b] if b.is_ascii() && *b != b'\n' && *b != b'\r' => Ok(Some(*b)),
        _ => Err(SqlError::new(
            at(k),
            format!("option '{k}' must be one ASCII character other than a line break, got '{v}'"),
        )),
    }
}

fn csv(raw: &BTreeMap<String, String>, at: &dyn Fn(&str) -> Loc) -> Result<CsvFormat> {
    let disable_quote = flag(raw, at, "csv.disable-quote-character")?;
    if disable_quote && raw.contains_key("csv.quote-character") {
        return Err(SqlError::new(
            at("csv.quote-character"),
            "csv.quote-character and csv.disable-quote-character cannot both be set (as in Flink)",
        ));
    }
    let f = CsvFormat {
        field_delimiter: one_char(raw, at, "csv.field-delimiter")?.unwrap_or(b','),
        quote: if disable_quote {
            None
        } else {
            Some(one_char(raw, at, "csv.quote-character")?.unwrap_or(b'"'))
        },
        allow_comments: flag(raw, at, "csv.allow-comments")?,
        ignore_parse_errors: flag(raw, at, "csv.ignore-parse-errors")?,
        escape: one_char(raw, at, "csv.escape-character")?,
        null_literal: raw.get("csv.null-literal").cloned(),
    };
    if f.quote == Some(f.field_delimiter) || f.escape == Some(f.field_delimiter) {
        return Err(SqlError::new(
            at("csv.field-delimiter"),
            "csv.field-delimiter must differ from the quote and escape characters",
        ));
    }
    Ok(f)
}

fn avro_common(raw: &BTreeMap<String, String>, at: &dyn Fn(&str) -> Loc) -> Result<()> {
    let k = "avro.timestamp_mapping.legacy".to_string();
    if raw.contains_key(&k) && !flag(raw, at, &k)? {
        // The non-legacy mapping reads TIMESTAMP as local-timestamp; the
        // legacy (default) one is what lowwater implements.
        return Err(SqlError::new(
            at(&k),
            format!(
                "{k} = 'false' is not supported yet: lowwater maps TIMESTAMP(3) and \
                 TIMESTAMP_LTZ(3) to Avro's timestamp-millis, Flink's default (legacy) mapping"
            ),
        ));
    }
    Ok(())
}

fn registry(raw: &BTreeMap<String, String>, at: &dyn Fn(&str) -> Loc) -> Result<RegistryFormat> {
    let url = raw.get("avro-confluent.url").cloned().ok_or_else(|| {
        SqlError::new(
            at("format"),
            "format 'avro-confluent' requires option 'avro-confluent.url' (the Schema \
             Registry's address, e.g. 'http://localhost:8081')",
        )
    })?;
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(SqlError::new(
            at("avro-confluent.url"),
            format!("avro-confluent.url must start with http:// or https://, got '{url}'"),
        ));
    }
    let authority = url
        .split("://")
        .nth(1)
        .unwrap_or("")
        .split('/')
        .next()
        .unwrap_or("");
    if authority.contains('@') {
        return Err(SqlError::new(
            at("avro-confluent.url"),
            "avro-confluent.url holds credentials (user:password@): put them in \
             avro-confluent.basic-auth.user-info with basic-auth.credentials-source 'USER_INFO', \
             where they are masked (value not shown)",
        ));
    }
    let source = |k: &str, want: &str| -> Result<bool> {
        match raw.get(k) {
            None => Ok(false),
            Some(v) if v.eq_ignore_ascii_case(want) => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("URL") && want == "USER_INFO" => Err(SqlError::new(
                at(k),
                "basic-auth.credentials-source 'URL' is not supported: set 'USER_INFO' and the \
                 credentials in avro-confluent.basic-auth.user-info",
            )),
            Some(v) => Err(SqlError::new(
                at(k),
                format!("{k} '{v}' is not supported; supported: {want}"),
            )),
        }
    };
    let user_info = raw.get("avro-confluent.basic-auth.user-info").cloned();
    let basic = source("avro-confluent.basic-auth.credentials-source", "USER_INFO")?;
    if basic && user_info.is_none() {
        return Err(SqlError::new(
            at("avro-confluent.basic-auth.credentials-source"),
            "basic-auth.credentials-source 'USER_INFO' needs avro-confluent.basic-auth.user-info \
             ('user:password', e.g. a Confluent Cloud API key and secret)",
        ));
    }
    if user_info.as_deref().is_some_and(|u| !u.contains(':')) {
        return Err(SqlError::new(
            at("avro-confluent.basic-auth.user-info"),
            "avro-confluent.basic-auth.user-info must be 'user:password' (value masked)",
        ));
    }
    let token = raw.get("avro-confluent.bearer-auth.token").cloned();
    let bearer = source(
        "avro-confluent.bearer-auth.credentials-source",
        "STATIC_TOKEN",
    )?;
    if bearer && token.is_none() {
        return Err(SqlError::new(
            at("avro-confluent.bearer-auth.credentials-source"),
            "bearer-auth.credentials-source 'STATIC_TOKEN' needs avro-confluent.bearer-auth.token",
        ));
    }
    if user_info.is_some() && token.is_some() {
        return Err(SqlError::new(
            at("avro-confluent.bearer-auth.token"),
            "set either basic-auth or bearer-auth for the registry, not both",
        ));
    }
    if raw.contains_key("avro-confluent.ssl.truststore.password") {
        return Err(SqlError::new(
            at("avro-confluent.ssl.truststore.password"),
            "a JKS or PKCS12 truststore is not read here: give avro-confluent.ssl.truststore.location \
             as a PEM file of CA certificates (keytool -exportcert -rfc -keystore STORE -alias CA \
             > ca.pem) and drop the password",
        ));
    }
    Ok(RegistryFormat {
        url: url.trim_end_matches('/').to_string(),
        subject: raw.get("avro-confluent.subject").cloned(),
        schema: raw.get("avro-confluent.schema").cloned(),
        basic_auth: user_info,
        bearer_token: token,
        ca_file: raw.get("avro-confluent.ssl.truststore.location").cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn at(_: &str) -> Loc {
        Loc::default()
    }

    #[test]
    fn csv_options_with_flink_defaults() {
        let f = csv(&opts(&[]), &at).expect("defaults");
        assert_eq!(
            (f.field_delimiter, f.quote, f.escape),
            (b',', Some(b'"'), None)
        );
        let f = csv(
            &opts(&[
                ("csv.field-delimiter", "\\t"),
                ("csv.disable-quote-character", "true"),
                ("csv.null-literal", "n/a"),
            ]),
            &at,
        )
        .expect("tab");
        assert_eq!((f.field_delimiter, f.quote), (b'\t', None));
        assert_eq!(f.null_literal.as_deref(), Some("n/a"));
        let e = csv(&opts(&[("csv.field-delimiter", ";;")]), &at).expect_err("two chars");
        assert!(e.message.contains("one ASCII character"), "{e}");
        let e = csv(&opts(&[("csv.quote-character", ",")]), &at).expect_err("same as delimiter");
        assert!(e.message.contains("differ"), "{e}");
    }

    #[test]
    fn registry_options_are_checked() {
        let e = registry(&opts(&[]), &at).expect_err("no url");
        assert!(e.message.contains("avro-confluent.url"), "{e}");
        let r = registry(
            &opts(&[
                ("avro-confluent.url", "https://sr.example:443/"),
                ("avro-confluent.basic-auth.credentials-source", "USER_INFO"),
                ("avro-confluent.basic-auth.user-info", "key:secret"),
            ]),
            &at,
        )
        .expect("ok");
        assert_eq!(r.url, "https://sr.example:443");
        assert_eq!(r.basic_auth.as_deref(), Some("key:secret"));
        assert!(!format!("{r:?}").contains("secret"), "{r:?}");
        let e = registry(
            &opts(&[
                ("avro-confluent.url", "http://x"),
                ("avro-confluent.basic-auth.credentials-source", "USER_INFO"),
            ]),
            &at,
        )
        .expect_err("no user info");
        assert!(e.message.contains("user-info"), "{e}");
        let e = registry(
            &opts(&[("avro-confluent.url", "https://k:s@sr.example")]),
            &at,
        )
        .expect_err("credentials in the url");
        assert!(
            e.message.contains("user-info") && !e.message.contains("k:s"),
            "{e}"
        );
        let e = registry(&opts(&[("avro-confluent.url", "x:8081")]), &at).expect_err("scheme");
        assert!(e.message.contains("http://"), "{e}");
        assert!(check("avro-registry", "kafka", &opts(&[]), &at).is_err());
    }
}
