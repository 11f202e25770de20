//! The transactional producer of exactly-once sinks against the real broker
//! (`scripts/kafka.sh`, 127.0.0.1 and `KAFKA_PORT`, default 19092): committed rows are visible to
//! `read_committed` consumers with their commit marker, aborted rows and
//! rows of a producer that stopped before its commit are not (though
//! `read_uncommitted` consumers see them); a second producer with the same
//! transactional id fences the first; the last committed marker ignores
//! aborted and open transactions; a transaction timeout without room for
//! the checkpoint interval is refused with the rule and the fix; a row that
//! cannot be written aborts its transaction and the next one goes on.
//!
//! Consumers wait for a sentinel row committed last: once they have it,
//! every row before it in the partition was considered.

mod common;

use std::time::{Duration, Instant};

use common::{block_on, broker, fresh, props, BOOTSTRAP};
use lowwater_kafka::{ensure_state_topic, last_committed_marker, TxnError, TxnProducer};
use rdkafka::admin::{AdminClient, AdminOptions, ResourceSpecifier};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::{Message, Offset, TopicPartitionList};

const TS: i64 = 1_750_000_000_000;
const INTERVAL_MS: i64 = 1_000;

/// A topic with one partition for sink rows.
fn out_topic(name: &str) -> String {
    let topic = fresh(name);
    lowwater_kafka::create_topic(&BOOTSTRAP, &topic, 1).expect("topic");
    topic
}

/// A fresh state topic, created as the job would.
fn state_topic(name: &str) -> String {
    let topic = fresh(name);
    ensure_state_topic(&props(&[]), &topic).expect("state topic");
    topic
}

/// (key, payload) of `topic`'s records read with `isolation` from the
/// beginning until `done` holds for them (at most 30 s).
fn read_until(
    topic: &str,
    isolation: &str,
    done: impl Fn(&[(Option<String>, String)]) -> bool,
) -> Vec<(Option<String>, String)> {
    let c: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .set("group.id", "lowwater-txn-test")
        .set("isolation.level", isolation)
        .create()
        .expect("consumer");
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(topic, 0, Offset::Beginning)
        .expect("tpl");
    c.assign(&tpl).expect("assign");
    let started = Instant::now();
    let mut rows = Vec::new();
    while !done(&rows) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{topic} ({isolation}): gave up after 30 s with {rows:?}"
        );
        if let Some(m) = c.poll(Duration::from_millis(100)) {
            let m = m.expect("record");
            let text = |b: Option<&[u8]>| b.map(|b| String::from_utf8_lossy(b).into_owned());
            rows.push((text(m.key()), text(m.payload()).unwrap_or_default()));
        }
    }
    rows
}

/// The payloads of `rows`.
fn payloads(rows: &[(Option<String>, String)]) -> Vec<&str> {
    rows.iter().map(|(_, p)| p.as_str()).collect()
}

/// Whether `rows` hold a row with this payload.
fn has(payload: &str) -> impl Fn(&[(Option<String>, String)]) -> bool + '_ {
    move |rows| rows.iter().any(|(_, p)| p == payload)
}

fn send(p: &mut TxnProducer, topic: &str, payload: &str) {
    p.send(topic, None, payload.as_bytes(), TS, None)
        .expect("send");
}

#[test]
fn committed_rows_are_visible_with_their_marker_and_aborted_ones_are_not() {
    broker();
    let out = out_topic("txn-visible");
    let state = state_topic("txn-visible-state");
    let mut p = TxnProducer::new(&props(&[]), &fresh("txn-visible"), INTERVAL_MS).expect("txn");
    send(&mut p, &out, "c1");
    send(&mut p, &out, "c2");
    p.commit(&state, "job", b"cp-1").expect("commit 1");
    send(&mut p, &out, "a1");
    send(&mut p, &out, "a2");
    p.abort().expect("abort");
    send(&mut p, &out, "c3");
    p.commit(&state, "job", b"cp-2").expect("commit 2");

    let committed = read_until(&out, "read_committed", has("c3"));
    assert_eq!(payloads(&committed), ["c1", "c2", "c3"]);
    let all = read_until(&out, "read_uncommitted", has("c3"));
    assert_eq!(payloads(&all), ["c1", "c2", "a1", "a2", "c3"]);
    let markers = read_until(&state, "read_committed", has("cp-2"));
    let job = Some("job".to_string());
    assert_eq!(
        markers,
        [(job.clone(), "cp-1".to_string()), (job, "cp-2".to_string())]
    );
}

#[test]
fn rows_of_a_producer_stopped_before_its_commit_never_become_visible() {
    broker();
    let out = out_topic("txn-stopped");
    let state = state_topic("txn-stopped-state");
    let id = fresh("txn-stopped");
    // Killed: its rows reached the broker, no commit, no abort.
    let mut killed = TxnProducer::new(&props(&[]), &id, INTERVAL_MS).expect("txn");
    send(&mut killed, &out, "killed-1");
    read_until(&out, "read_uncommitted", has("killed-1"));
    std::mem::forget(killed);
    // Its successor's start aborts the transaction left open.
    let mut next = TxnProducer::new(&props(&[]), &id, INTERVAL_MS).expect("txn");
    send(&mut next, &out, "next-1");
    next.commit(&state, "job", b"cp-1").expect("commit");
    // Dropped: the open transaction is aborted on drop, so a plain row
    // written afterwards is readable by read_committed consumers at once.
    send(&mut next, &out, "dropped-1");
    read_until(&out, "read_uncommitted", has("dropped-1"));
    drop(next);
    plain(&out, "plain-1");

    let committed = read_until(&out, "read_committed", has("plain-1"));
    assert_eq!(payloads(&committed), ["next-1", "plain-1"]);
    let all = read_until(&out, "read_uncommitted", has("plain-1"));
    assert_eq!(
        payloads(&all),
        ["killed-1", "next-1", "dropped-1", "plain-1"]
    );
}

#[test]
fn a_row_that_cannot_be_written_aborts_its_transaction_and_the_next_one_goes_on() {
    broker();
    let out = out_topic("txn-refused");
    let state = state_topic("txn-refused-state");
    let p = props(&[("message.max.bytes", "2000")]);
    let mut txn = TxnProducer::new(&p, &fresh("txn-refused"), INTERVAL_MS).expect("txn");
    send(&mut txn, &out, "doomed-1");
    let big = "x".repeat(5_000);
    let refused = txn.send(&out, None, big.as_bytes(), TS, None);
    let Err(TxnError::Aborted { detail, .. }) = &refused else {
        panic!("expected the transaction to be aborted, got {refused:?}");
    };
    assert!(detail.contains(&out), "{detail}");
    send(&mut txn, &out, "next-1");
    txn.commit(&state, "job", b"cp-1").expect("commit");
    let committed = read_until(&out, "read_committed", has("next-1"));
    assert_eq!(payloads(&committed), ["next-1"]);
}

/// Writes one row without a transaction.
fn plain(topic: &str, payload: &str) {
    let p: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .create()
        .expect("producer");
    p.send(BaseRecord::<(), str>::to(topic).payload(payload))
        .expect("send");
    p.flush(Duration::from_secs(10)).expect("flush");
}

#[test]
fn a_second_producer_with_the_same_id_fences_the_first() {
    broker();
    let out = out_topic("txn-fenced");
    let state = state_topic("txn-fenced-state");
    let id = fresh("txn-fenced");
    let mut first = TxnProducer::new(&props(&[]), &id, INTERVAL_MS).expect("first");
    send(&mut first, &out, "first-1");
    read_until(&out, "read_uncommitted", has("first-1"));
    let mut second = TxnProducer::new(&props(&[]), &id, INTERVAL_MS).expect("second");

    // The first learns it was fenced when it next talks to the broker: at
    // the latest when it commits.
    let sent = first.send(&out, None, b"first-2", TS, None);
    let committed = first.commit(&state, "job", b"first");
    let fenced = sent.err().unwrap_or_else(|| {
        committed
            .clone()
            .expect_err("the fenced producer must not commit")
    });
    assert!(matches!(fenced, TxnError::Fenced { .. }), "{fenced:?}");
    let m = fenced.to_string();
    assert!(m.contains("took over") && m.contains("stops"), "{m}");
    assert!(matches!(committed, Err(TxnError::Fenced { .. })));
    // And stays fenced.
    let again = first.send(&out, None, b"first-3", TS, None);
    assert!(matches!(again, Err(TxnError::Fenced { .. })), "{again:?}");
    drop(first);

    send(&mut second, &out, "second-1");
    second.commit(&state, "job", b"second").expect("commit");
    let committed = read_until(&out, "read_committed", has("second-1"));
    assert_eq!(payloads(&committed), ["second-1"]);
    let marker = last_committed_marker(&props(&[]), &state, "job").expect("marker");
    assert_eq!(marker.as_deref(), Some(&b"second"[..]));
}

#[test]
fn the_last_committed_marker_ignores_aborted_and_open_transactions() {
    broker();
    let p = props(&[]);
    let missing = fresh("txn-marker-missing");
    assert_eq!(last_committed_marker(&p, &missing, "job"), Ok(None));
    let state = state_topic("txn-marker-state");
    assert_eq!(last_committed_marker(&p, &state, "job"), Ok(None));
    ensure_state_topic(&p, &state).expect("an existing state topic is fine");
    assert_state_topic_config(&state);

    let mut txn = TxnProducer::new(&p, &fresh("txn-marker"), INTERVAL_MS).expect("txn");
    txn.commit(&state, "job", b"cp-1").expect("commit");
    txn.commit(&state, "other-job", b"other").expect("commit");
    txn.send(&state, Some(b"job"), b"cp-2-aborted", TS, None)
        .expect("send");
    txn.abort().expect("abort");
    assert_eq!(
        last_committed_marker(&p, &state, "job").expect("marker"),
        Some(b"cp-1".to_vec())
    );
    // A transaction still open: read up to the last stable offset only.
    txn.send(&state, Some(b"job"), b"cp-3-open", TS, None)
        .expect("send");
    read_until(&state, "read_uncommitted", has("cp-3-open"));
    assert_eq!(
        last_committed_marker(&p, &state, "job").expect("marker"),
        Some(b"cp-1".to_vec())
    );
    txn.commit(&state, "job", b"cp-4").expect("commit");
    assert_eq!(
        last_committed_marker(&p, &state, "job").expect("marker"),
        Some(b"cp-4".to_vec())
    );
}

/// The state topic has one partition and is compacted.
fn assert_state_topic_config(topic: &str) {
    assert_eq!(lowwater_kafka::partitions(&props(&[]), topic), Ok(vec![0]));
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .create()
        .expect("admin");
    let opts = AdminOptions::new().request_timeout(Some(Duration::from_secs(10)));
    let described = block_on(admin.describe_configs(&[ResourceSpecifier::Topic(topic)], &opts))
        .expect("describe");
    let config = described[0].as_ref().expect("topic config");
    let policy = config.get("cleanup.policy").and_then(|e| e.value.clone());
    assert_eq!(policy.as_deref(), Some("compact"));
}

#[test]
fn a_transaction_timeout_without_room_for_the_interval_is_refused() {
    let refused = TxnProducer::new(&props(&[]), "never-started", 60_000);
    let Err(TxnError::Config(m)) = refused else {
        panic!("expected a configuration error");
    };
    assert!(m.contains("2 x checkpoint interval + 10 s"), "{m}");
    assert!(
        m.contains("set 'properties.transaction.timeout.ms' = '130000'")
            || m.contains("Set 'properties.transaction.timeout.ms' = '130000'"),
        "{m}"
    );
}

#[test]
fn a_transaction_timeout_above_the_brokers_maximum_is_refused() {
    broker();
    let p = props(&[("transaction.timeout.ms", "1000000")]);
    let refused = TxnProducer::new(&p, &fresh("txn-above-max"), INTERVAL_MS);
    let Err(TxnError::Config(m)) = refused else {
        panic!("expected a configuration error, got {:?}", refused.err());
    };
    assert!(m.contains("transaction.max.timeout.ms"), "{m}");
    assert!(m.contains("'properties.transaction.timeout.ms'"), "{m}");
}

/// Issue 33 item 4: a transaction no checkpoint committed within
/// `transaction.timeout.ms` is aborted by the brokers, which fence its
/// producer as they do so. No other instance exists: the error says what
/// happened (how long it was open, the timeout), not "another producer took
/// over". (The wait is the real broker's timer: its timeout plus its
/// cleanup interval, 1 s in `scripts/kafka.sh`.)
#[test]
fn a_transaction_the_brokers_abort_for_its_age_is_not_blamed_on_another_instance() {
    broker();
    let out = out_topic("txn-expired");
    let state = state_topic("txn-expired-state");
    let id = fresh("txn-expired");
    let timeout = props(&[("transaction.timeout.ms", "12000")]);
    let mut p = TxnProducer::new(&timeout, &id, INTERVAL_MS).expect("producer");
    assert_eq!(p.timeout_ms(), 12_000);
    send(&mut p, &out, "expired-1");
    while p.open_for() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(200));
    }
    let sent = p.send(&out, None, b"expired-2", TS, None);
    let committed = p.commit(&state, "job", b"expired");
    let e = sent
        .err()
        .unwrap_or_else(|| committed.expect_err("an aborted transaction must not commit"));
    let m = e.to_string();
    assert!(matches!(e, TxnError::Expired { .. }), "{e:?}");
    assert!(
        m.starts_with("the brokers aborted the Kafka transaction")
            && !m.contains("another producer"),
        "{m}"
    );
    assert!(
        m.contains("transaction.timeout.ms (12 s)") && m.contains("no checkpoint committed it"),
        "{m}"
    );
    // Nothing of it is visible; a new producer with the id goes on.
    drop(p);
    let mut next = TxnProducer::new(&timeout, &id, INTERVAL_MS).expect("next");
    send(&mut next, &out, "next-1");
    next.commit(&state, "job", b"next").expect("commit");
    let committed = read_until(&out, "read_committed", has("next-1"));
    assert_eq!(payloads(&committed), ["next-1"]);
}
