//! Client configuration and topic administration: the `properties.*` of a
//! table turned into a librdkafka config, a topic's partitions (the split
//! enumeration of a source), and creating or growing topics for tests,
//! benchmarks and local trials. Everything else in the crate builds its
//! clients through [`config`].

use std::collections::BTreeMap;
use std::time::Duration;

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};

/// How long metadata and offset requests may take before the job fails
/// with a clear error.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// A librdkafka config holding every `properties.*` of a table.
pub(crate) fn config(properties: &BTreeMap<String, String>) -> ClientConfig {
    let mut c = ClientConfig::new();
    for (k, v) in properties {
        c.set(k, v);
    }
    c
}

/// A client that could not be created, without the value of the property
/// at fault (it can be a password or a private key).
pub(crate) fn creation_error(what: &str, e: &rdkafka::error::KafkaError) -> String {
    match e {
        rdkafka::error::KafkaError::ClientConfig(_, desc, key, _) => {
            format!("cannot create a Kafka {what}: property '{key}': {desc}")
        }
        other => format!("cannot create a Kafka {what}: {other}"),
    }
}

/// `bootstrap.servers`, for error messages.
pub(crate) fn bootstrap(properties: &BTreeMap<String, String>) -> String {
    properties
        .get("bootstrap.servers")
        .cloned()
        .unwrap_or_default()
}

/// Keeps the first error librdkafka reports on its own (a failed TLS
/// handshake or SASL authentication, which a request only sees as a
/// "transport failure"), so that the job's error can say what failed.
#[derive(Default)]
pub(crate) struct FirstError(std::sync::Mutex<Option<String>>);

impl rdkafka::ClientContext for FirstError {
    fn error(&self, error: rdkafka::error::KafkaError, reason: &str) {
        if let Ok(mut first) = self.0.lock() {
            first.get_or_insert_with(|| format!("{error}: {reason}"));
        }
    }

    // librdkafka reports a failed SASL authentication or TLS handshake in
    // its log (from its own threads), not as a request error.
    fn log(&self, level: rdkafka::config::RDKafkaLogLevel, fac: &str, log_message: &str) {
        use rdkafka::config::RDKafkaLogLevel as L;
        let failure = matches!(
            level,
            L::Emerg | L::Alert | L::Critical | L::Error | L::Warning
        );
        if failure && (fac.contains("SASL") || fac.contains("SSL") || fac.contains("FAIL")) {
            if let Ok(mut first) = self.0.lock() {
                first.get_or_insert_with(|| log_message.to_string());
            }
        }
    }
}

impl rdkafka::consumer::ConsumerContext for FirstError {}

/// Why a client could not reach the brokers: an authentication or TLS
/// failure named with the mechanism, else the network failure.
pub(crate) fn unreachable(
    properties: &BTreeMap<String, String>,
    what: &str,
    e: &dyn std::fmt::Display,
    first: Option<String>,
) -> String {
    let servers = bootstrap(properties);
    match first {
        Some(reason) if reason.contains("uthenticat") || reason.contains("SASL") => format!(
            "authentication to the Kafka brokers at {servers} failed (SASL mechanism {}): {reason}; \
             check 'properties.sasl.jaas.config' (or sasl.username / sasl.password) and \
             'properties.sasl.mechanism'",
            properties.get("sasl.mechanism").map_or("GSSAPI", String::as_str)
        ),
        Some(reason) if reason.contains("SSL") => format!(
            "the TLS handshake with the Kafka brokers at {servers} failed: {reason}; check \
             'properties.ssl.truststore.location' (a PEM file of the brokers' CA) and \
             'properties.security.protocol'"
        ),
        _ => format!(
            "cannot reach the Kafka brokers at {servers} within {}s to {what} ({e}); check \
             'properties.bootstrap.servers' and that the brokers run",
            REQUEST_TIMEOUT.as_secs()
        ),
    }
}

/// The partitions of `topic`, or an error that says what to check.
pub fn partitions(properties: &BTreeMap<String, String>, topic: &str) -> Result<Vec<i32>, String> {
    let c: BaseConsumer<FirstError> = config(properties)
        .set_log_level(rdkafka::config::RDKafkaLogLevel::Warning)
        .create_with_context(FirstError::default())
        .map_err(|e| crate::config::creation_error("client", &e))?;
    let md = c
        .fetch_metadata(Some(topic), REQUEST_TIMEOUT)
        .map_err(|e| {
            // Errors and logs reach the context when the client is polled.
            for _ in 0..3 {
                let _ = c.poll(Duration::from_millis(50));
            }
            let first = c.context().0.lock().ok().and_then(|f| f.clone());
            unreachable(properties, &format!("read topic '{topic}'"), &e, first)
        })?;
    let t = md
        .topics()
        .iter()
        .find(|t| t.name() == topic)
        .ok_or_else(|| format!("topic '{topic}' not found"))?;
    if t.error().is_some() || t.partitions().is_empty() {
        return Err(format!(
            "topic '{topic}' does not exist on {} (create it, or check 'topic')",
            bootstrap(properties)
        ));
    }
    let mut ps: Vec<i32> = t.partitions().iter().map(|p| p.id()).collect();
    ps.sort_unstable();
    Ok(ps)
}

/// Whether `topic` exists on the brokers, asked without creating it: the
/// metadata of every topic (a request naming the topic would have a broker
/// with `auto.create.topics.enable` create it).
pub fn topic_exists(properties: &BTreeMap<String, String>, topic: &str) -> Result<bool, String> {
    Ok(partition_count(properties, topic, REQUEST_TIMEOUT)?.is_some())
}

/// How many partitions `topic` has (`None`: it does not exist), asked
/// within `timeout` without creating it: the metadata of every topic (a
/// request naming the topic would have a broker with
/// `auto.create.topics.enable` create it).
pub fn partition_count(
    properties: &BTreeMap<String, String>,
    topic: &str,
    timeout: Duration,
) -> Result<Option<i32>, String> {
    let c: BaseConsumer<FirstError> = config(properties)
        .set("allow.auto.create.topics", "false")
        .set_log_level(rdkafka::config::RDKafkaLogLevel::Warning)
        .create_with_context(FirstError::default())
        .map_err(|e| crate::config::creation_error("client", &e))?;
    let md = c.fetch_metadata(None, timeout).map_err(|e| {
        for _ in 0..3 {
            let _ = c.poll(Duration::from_millis(50));
        }
        let first = c.context().0.lock().ok().and_then(|f| f.clone());
        unreachable(properties, "list the topics", &e, first)
    })?;
    Ok(md
        .topics()
        .iter()
        .find(|t| t.name() == topic && t.error().is_none())
        .map(|t| t.partitions().len() as i32))
}

/// The partitions of `topic` that hold no record now (their low and high
/// offsets are equal: never written, or everything deleted by retention).
pub fn empty_partitions(
    properties: &BTreeMap<String, String>,
    topic: &str,
) -> Result<Vec<i32>, String> {
    let c: BaseConsumer<FirstError> = config(properties)
        .set_log_level(rdkafka::config::RDKafkaLogLevel::Warning)
        .create_with_context(FirstError::default())
        .map_err(|e| crate::config::creation_error("client", &e))?;
    let mut empty = Vec::new();
    for p in partitions(properties, topic)? {
        let (low, high) = c
            .fetch_watermarks(topic, p, REQUEST_TIMEOUT)
            .map_err(|e| format!("reading the offsets of partition {p} of '{topic}': {e}"))?;
        if low >= high {
            empty.push(p);
        }
    }
    Ok(empty)
}

/// Whether the brokers can be reached and accept the client's credentials
/// (within [`REQUEST_TIMEOUT`]): sinks check at start, so that a wrong
/// password is a clear error, not rows retried for minutes.
pub fn check_reachable(properties: &BTreeMap<String, String>) -> Result<(), String> {
    let c: BaseConsumer<FirstError> = config(properties)
        .set_log_level(rdkafka::config::RDKafkaLogLevel::Warning)
        .create_with_context(FirstError::default())
        .map_err(|e| crate::config::creation_error("client", &e))?;
    c.fetch_metadata(None, REQUEST_TIMEOUT)
        .map(|_| ())
        .map_err(|e| {
            for _ in 0..3 {
                let _ = c.poll(Duration::from_millis(50));
            }
            let first = c.context().0.lock().ok().and_then(|f| f.clone());
            unreachable(properties, "write", &e, first)
        })
}

/// Creates `topic` with `partitions` partitions (replication 1) on the
/// brokers at `bootstrap`; an existing topic is not an error. For tests,
/// benchmarks and local trials.
pub fn create_topic(bootstrap: &str, topic: &str, partitions: i32) -> Result<(), String> {
    use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
    use rdkafka::client::DefaultClientContext;
    use rdkafka::types::RDKafkaErrorCode;
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()
        .map_err(|e| crate::config::creation_error("admin client", &e))?;
    let new = NewTopic::new(topic, partitions, TopicReplication::Fixed(1));
    let results = block_on(admin.create_topics(
        &[new],
        &AdminOptions::new().request_timeout(Some(REQUEST_TIMEOUT)),
    ))
    .map_err(|e| format!("creating topic '{topic}' failed: {e}"))?;
    for r in results {
        match r {
            Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((t, e)) => return Err(format!("creating topic '{t}' failed: {e}")),
        }
    }
    Ok(())
}

/// Deletes `topics` from the brokers at `bootstrap`; a topic that does not
/// exist is not an error. For tests and benchmarks that clean up after
/// themselves.
pub fn delete_topics(bootstrap: &str, topics: &[&str]) -> Result<(), String> {
    use rdkafka::admin::{AdminClient, AdminOptions};
    use rdkafka::client::DefaultClientContext;
    use rdkafka::types::RDKafkaErrorCode;
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()
        .map_err(|e| crate::config::creation_error("admin client", &e))?;
    let results = block_on(admin.delete_topics(
        topics,
        &AdminOptions::new().request_timeout(Some(REQUEST_TIMEOUT)),
    ))
    .map_err(|e| format!("deleting topics {topics:?} failed: {e}"))?;
    for r in results {
        match r {
            Ok(_) | Err((_, RDKafkaErrorCode::UnknownTopicOrPartition)) => {}
            Err((t, e)) => return Err(format!("deleting topic '{t}' failed: {e}")),
        }
    }
    Ok(())
}

/// Grows `topic` to `total` partitions (for tests and local trials of
/// partition discovery).
pub fn add_topic_partitions(bootstrap: &str, topic: &str, total: usize) -> Result<(), String> {
    use rdkafka::admin::{AdminClient, AdminOptions, NewPartitions};
    use rdkafka::client::DefaultClientContext;
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()
        .map_err(|e| crate::config::creation_error("admin client", &e))?;
    let results = block_on(admin.create_partitions(
        &[NewPartitions::new(topic, total)],
        &AdminOptions::new().request_timeout(Some(REQUEST_TIMEOUT)),
    ))
    .map_err(|e| format!("adding partitions to '{topic}' failed: {e}"))?;
    for r in results {
        if let Err((t, e)) = r {
            return Err(format!("adding partitions to '{t}' failed: {e}"));
        }
    }
    Ok(())
}

/// Runs one of rdkafka's admin futures to completion on this thread (the
/// admin client drives it from its own thread; polling here only waits).
pub(crate) fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
