//! Kafka client properties as Flink jobs write them, for librdkafka.
//!
//! Flink's Kafka connector hands `properties.*` to the Java client; lowwater
//! hands them to librdkafka, which names a few things differently. The
//! settings managed clusters need (SASL and TLS) are translated here, at plan
//! time, so that a job file written for Flink runs unchanged, and what cannot
//! be translated is an error at its option saying what to do:
//! - `sasl.jaas.config`: `PlainLoginModule` and `ScramLoginModule` become
//!   `sasl.username` / `sasl.password` (and `sasl.mechanism` PLAIN when
//!   unset); `OAuthBearerLoginModule` with `unsecuredLoginStringClaim_sub`
//!   becomes librdkafka's unsecured JWT (`sasl.oauthbearer.config`).
//! - `ssl.truststore.location`: a PEM file becomes `ssl.ca.location`; a
//!   PKCS12 or JKS truststore is refused with the command that converts it.
//! - `ssl.keystore.location`: PKCS12 is read by librdkafka as is; JKS is
//!   refused with the conversion command.
//! - `ssl.endpoint.identification.algorithm` = '' (Java's "off") becomes
//!   'none'.
//!
//! Secrets (passwords, the JAAS string) are never shown: [`mask`] hides them
//! wherever properties are printed.

use std::collections::BTreeMap;

use crate::error::{Loc, Result, SqlError};

/// librdkafka properties from a Kafka table's `properties.*` (keys without
/// the prefix); `at` places an error on its option.
pub fn translate(
    mut props: BTreeMap<String, String>,
    at: impl Fn(&str) -> Loc,
) -> Result<BTreeMap<String, String>> {
    if let Some(jaas) = props.remove("sasl.jaas.config") {
        let loc = at("properties.sasl.jaas.config");
        for (k, v) in jaas_settings(&jaas, props.get("sasl.mechanism").map(String::as_str))
            .map_err(|m| SqlError::new(loc, m))?
        {
            props.entry(k).or_insert(v);
        }
    }
    if let Some(loc) = props.remove("ssl.truststore.location") {
        let kind = props
            .remove("ssl.truststore.type")
            .unwrap_or_else(|| "JKS".into());
        props.remove("ssl.truststore.password");
        match kind.to_ascii_uppercase().as_str() {
            "PEM" => {
                props.insert("ssl.ca.location".into(), loc);
            }
            other => {
                return Err(SqlError::new(
                    at("properties.ssl.truststore.location"),
                    format!(
                        "a {other} truststore cannot be read by librdkafka: convert it to PEM \
                         (`keytool -exportcert -rfc -keystore {loc} -alias <alias> -file ca.pem`, or \
                         `openssl pkcs12 -in {loc} -nokeys -out ca.pem` for PKCS12) and set \
                         'properties.ssl.truststore.location' = 'ca.pem', \
                         'properties.ssl.truststore.type' = 'PEM'"
                    ),
                ))
            }
        }
    }
    if props.contains_key("ssl.keystore.location") {
        let kind = props
            .remove("ssl.keystore.type")
            .unwrap_or_else(|| "JKS".into());
        if !kind.eq_ignore_ascii_case("PKCS12") {
            return Err(SqlError::new(
                at("properties.ssl.keystore.location"),
                format!(
                    "a {kind} keystore cannot be read by librdkafka: convert it to PKCS12 \
                     (`keytool -importkeystore -srckeystore <file> -destkeystore keystore.p12 \
                     -deststoretype PKCS12`) and set 'properties.ssl.keystore.type' = 'PKCS12'"
                ),
            ));
        }
    }
    if props
        .get("ssl.endpoint.identification.algorithm")
        .is_some_and(|v| v.trim().is_empty())
    {
        props.insert(
            "ssl.endpoint.identification.algorithm".into(),
            "none".into(),
        );
    }
    Ok(props)
}

/// The librdkafka settings a Java JAAS login string stands for.
fn jaas_settings(
    jaas: &str,
    mechanism: Option<&str>,
) -> std::result::Result<Vec<(String, String)>, String> {
    let module = jaas.split_whitespace().next().unwrap_or_default();
    let options = jaas_options(jaas);
    let get = |k: &str| options.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let login = |mech: Option<&str>| -> std::result::Result<Vec<(String, String)>, String> {
        let (Some(user), Some(password)) = (get("username"), get("password")) else {
            return Err(format!(
                "sasl.jaas.config: {module} needs username=\"...\" and password=\"...\""
            ));
        };
        let mut out = vec![
            ("sasl.username".into(), user),
            ("sasl.password".into(), password),
        ];
        if let Some(m) = mech {
            out.push(("sasl.mechanism".into(), m.into()));
        }
        Ok(out)
    };
    match module.rsplit('.').next().unwrap_or_default() {
        "PlainLoginModule" => login(mechanism.is_none().then_some("PLAIN")),
        "ScramLoginModule" if mechanism.is_some_and(|m| m.starts_with("SCRAM-SHA-")) => login(None),
        "ScramLoginModule" => Err(
            "sasl.jaas.config: ScramLoginModule needs 'properties.sasl.mechanism' = 'SCRAM-SHA-256' \
             or 'SCRAM-SHA-512' (as Flink's Kafka client does)"
                .into(),
        ),
        "OAuthBearerLoginModule" if mechanism.is_some_and(|m| m != "OAUTHBEARER") => Err(format!(
            "sasl.jaas.config: OAuthBearerLoginModule with 'properties.sasl.mechanism' = '{}'; \
             set it to 'OAUTHBEARER' or leave it out",
            mechanism.unwrap_or_default()
        )),
        "OAuthBearerLoginModule" => match get("unsecuredLoginStringClaim_sub") {
            Some(sub) => Ok(vec![
                ("sasl.mechanism".into(), "OAUTHBEARER".into()),
                ("sasl.oauthbearer.config".into(), format!("principal={sub}")),
            ]),
            None => Err(
                "sasl.jaas.config: OAuthBearerLoginModule with an OIDC token endpoint needs \
                 librdkafka's OIDC support, which this lowwater is built without; unsecured \
                 tokens (unsecuredLoginStringClaim_sub=\"...\") work"
                    .into(),
            ),
        },
        other => Err(format!(
            "sasl.jaas.config: login module '{other}' has no librdkafka equivalent here; \
             supported: PlainLoginModule, ScramLoginModule, OAuthBearerLoginModule (unsecured)"
        )),
    }
}

/// The `key="value"` (or `key=value`) options of a JAAS line, after its
/// module name and control flag.
fn jaas_options(jaas: &str) -> Vec<(String, String)> {
    let body = jaas.trim().trim_end_matches(';');
    let mut out = Vec::new();
    let mut rest = body;
    // Skip the module name and the control flag (required, optional, ...).
    for _ in 0..2 {
        rest = rest.trim_start();
        rest = rest.find(char::is_whitespace).map_or("", |i| &rest[i..]);
    }
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim().to_string();
        let after = rest[eq + 1..].trim_start();
        let (value, next) = match after.strip_prefix('"') {
            Some(q) => quoted(q),
            None => {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                (after[..end].to_string(), &after[end..])
            }
        };
        out.push((key, value));
        rest = next;
    }
    out
}

/// A quoted JAAS value up to its closing quote, with `\"` and `\\`
/// unescaped as Kafka's JAAS parser does; returns it and the rest.
fn quoted(q: &str) -> (String, &str) {
    let mut value = String::new();
    let mut chars = q.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, n)) = chars.next() {
                    value.push(n);
                }
            }
            '"' => return (value, &q[i + 1..]),
            c => value.push(c),
        }
    }
    (value, "")
}

/// Whether a property holds a secret (shown as `***` wherever printed).
pub fn is_secret(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    [
        "password",
        "secret",
        "jaas",
        "token",
        "user-info",
        "key.pem",
        "keystore.key",
        "private",
    ]
    .iter()
    .any(|w| k.contains(w))
        || k.ends_with(".key")
}

/// `value`, or `***` when `key` names a secret.
pub fn mask<'a>(key: &str, value: &'a str) -> &'a str {
    if is_secret(key) {
        "***"
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn ok(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        translate(props(pairs), |_| Loc::default()).expect("translates")
    }

    #[test]
    fn flink_jaas_strings_become_librdkafka_credentials() {
        let plain = ok(&[(
            "sasl.jaas.config",
            r#"org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="s3 cr=t";"#,
        )]);
        assert_eq!(
            plain.get("sasl.username").map(String::as_str),
            Some("alice")
        );
        assert_eq!(
            plain.get("sasl.password").map(String::as_str),
            Some("s3 cr=t")
        );
        assert_eq!(
            plain.get("sasl.mechanism").map(String::as_str),
            Some("PLAIN")
        );
        assert!(!plain.contains_key("sasl.jaas.config"));
        let scram = ok(&[
            ("sasl.mechanism", "SCRAM-SHA-512"),
            (
                "sasl.jaas.config",
                r#"org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="pw";"#,
            ),
        ]);
        assert_eq!(
            scram.get("sasl.mechanism").map(String::as_str),
            Some("SCRAM-SHA-512")
        );
        assert_eq!(scram.get("sasl.username").map(String::as_str), Some("bob"));
        let e = translate(
            props(&[("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"b\" password=\"p\";")]),
            |_| Loc::default(),
        )
        .expect_err("needs a mechanism");
        assert!(e.to_string().contains("SCRAM-SHA-256"), "{e}");
    }

    #[test]
    fn quoted_values_keep_spaces_equals_and_escaped_quotes() {
        let p = ok(&[(
            "sasl.jaas.config",
            r#"org.apache.kafka.common.security.plain.PlainLoginModule required username="a b" password="x=\"y\"\\z";"#,
        )]);
        assert_eq!(p.get("sasl.username").map(String::as_str), Some("a b"));
        assert_eq!(
            p.get("sasl.password").map(String::as_str),
            Some("x=\"y\"\\z")
        );
    }

    #[test]
    fn stores_translate_or_say_how_to_convert_them() {
        let pem = ok(&[
            ("ssl.truststore.location", "/etc/ca.pem"),
            ("ssl.truststore.type", "PEM"),
            ("ssl.endpoint.identification.algorithm", ""),
        ]);
        assert_eq!(
            pem.get("ssl.ca.location").map(String::as_str),
            Some("/etc/ca.pem")
        );
        assert_eq!(
            pem.get("ssl.endpoint.identification.algorithm")
                .map(String::as_str),
            Some("none")
        );
        let jks = translate(props(&[("ssl.truststore.location", "/t.jks")]), |_| {
            Loc::default()
        })
        .expect_err("JKS");
        assert!(jks.to_string().contains("keytool -exportcert"), "{jks}");
        let p12 = ok(&[
            ("ssl.keystore.location", "/k.p12"),
            ("ssl.keystore.type", "PKCS12"),
        ]);
        assert_eq!(
            p12.get("ssl.keystore.location").map(String::as_str),
            Some("/k.p12")
        );
    }

    #[test]
    fn secrets_are_masked() {
        assert_eq!(mask("sasl.password", "pw"), "***");
        assert_eq!(mask("sasl.jaas.config", "x"), "***");
        assert_eq!(mask("ssl.keystore.password", "x"), "***");
        assert_eq!(mask("bootstrap.servers", "b:9092"), "b:9092");
    }
}
