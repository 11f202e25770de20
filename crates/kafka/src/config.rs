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

/// `bootstrap.servers`, for error messages.
pub(crate) fn bootstrap(properties: &BTreeMap<String, String>) -> String {
    properties
        .get("bootstrap.servers")
        .cloned()
        .unwrap_or_default()
}

/// The partitions of `topic`, or an error that says what to check.
pub fn partitions(properties: &BTreeMap<String, String>, topic: &str) -> Result<Vec<i32>, String> {
    let c: BaseConsumer = config(properties)
        .create()
        .map_err(|e| format!("cannot create a Kafka client: {e}"))?;
    let md = c
        .fetch_metadata(Some(topic), REQUEST_TIMEOUT)
        .map_err(|e| {
            format!(
                "cannot reach the Kafka brokers at {} within {}s to read topic '{topic}' ({e}); \
             check 'properties.bootstrap.servers' and that the brokers run",
                bootstrap(properties),
                REQUEST_TIMEOUT.as_secs()
            )
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
        .map_err(|e| format!("cannot create a Kafka admin client: {e}"))?;
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

/// Grows `topic` to `total` partitions (for tests and local trials of
/// partition discovery).
pub fn add_topic_partitions(bootstrap: &str, topic: &str, total: usize) -> Result<(), String> {
    use rdkafka::admin::{AdminClient, AdminOptions, NewPartitions};
    use rdkafka::client::DefaultClientContext;
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()
        .map_err(|e| format!("cannot create a Kafka admin client: {e}"))?;
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
