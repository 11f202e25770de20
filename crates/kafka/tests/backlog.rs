//! `PartitionReader::backlog` against the real broker (`scripts/kafka.sh`,
//! 127.0.0.1 and `KAFKA_PORT`, default 19092): the figure lag-aware idleness decides on. A partition
//! with records not handed out yet is behind by exactly that many offsets;
//! one read to its end, or empty, is caught up; before the broker has
//! answered it is unknown (which counts as behind).

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::{broker, BOOTSTRAP};
use lowwater_kafka::{Backlog, PartitionReader};
use rdkafka::config::ClientConfig;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

/// Polls `reader` (handing out records) until `done` says so, for at most
/// 20 s; returns the records handed out.
fn poll_until(
    reader: &mut PartitionReader,
    mut done: impl FnMut(&PartitionReader, u64) -> bool,
) -> u64 {
    let started = Instant::now();
    let mut n = 0;
    while !done(reader, n) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "gave up after 20 s with {n} records"
        );
        if reader
            .poll(Duration::from_millis(50))
            .expect("poll")
            .is_some()
        {
            n += 1;
        }
    }
    n
}

#[test]
fn backlog_is_what_the_broker_has_and_the_reader_has_not_handed_out() {
    broker();
    let topic = format!("backlog-reader-{}", std::process::id());
    lowwater_kafka::create_topic(&BOOTSTRAP, &topic, 2).expect("topic");
    let p: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .set("batch.size", "4000")
        .create()
        .expect("producer");
    // At least four batches (a flush every 250 records), about 16 KB: more
    // than one fetch of at most 4,000 bytes (or one batch) below.
    for i in 0..1_000 {
        p.send(
            BaseRecord::<(), str>::to(&topic)
                .partition(0)
                .payload(&format!("{{\"i\":{i}}}")),
        )
        .expect("send");
        p.poll(Duration::ZERO);
        if i % 250 == 249 {
            p.flush(Duration::from_secs(10)).expect("flush");
        }
    }

    let mut props = BTreeMap::new();
    props.insert("bootstrap.servers".to_string(), BOOTSTRAP.to_string());
    props.insert("statistics.interval.ms".to_string(), "100".to_string());
    // Small fetches that the broker holds for 300 ms each: statistics
    // (every 100 ms) travel in the same queue as the records, so a partition
    // fetched faster than that would be handed out whole before the first
    // statistics arrive. The broker answers a fetch once it has
    // `fetch.min.bytes` or after `fetch.wait.max.ms`; a fetch is capped at
    // 4,000 bytes, so it never has the minimum and always waits, however
    // fast this machine drains the queue. (Pacing by librdkafka's
    // `fetch.queue.backoff.ms` raced: a reader that drained the queue before
    // the next fetch was decided never backed off.)
    for (k, v) in [
        ("max.partition.fetch.bytes", "4000"),
        ("fetch.max.bytes", "4000"),
        ("message.max.bytes", "4000"),
        ("fetch.min.bytes", "1000000"),
        ("fetch.wait.max.ms", "300"),
    ] {
        props.insert(k.to_string(), v.to_string());
    }
    let mut options = BTreeMap::new();
    options.insert(
        "scan.startup.mode".to_string(),
        "earliest-offset".to_string(),
    );
    let parts = [(topic.clone(), 0), (topic.clone(), 1)];
    let mut reader = PartitionReader::new(&props, &options, &parts, true).expect("reader");
    // Nothing known before the broker answered and statistics came.
    assert_eq!(reader.backlog(&topic, 0), Backlog::Unknown);
    assert_eq!(reader.backlog("no-such-topic", 0), Backlog::Unknown);

    // While handing out records, partition 0 is behind by exactly the
    // offsets not handed out yet.
    let mut handed = poll_until(&mut reader, |r, n| {
        n > 0 && matches!(r.backlog(&topic, 0), Backlog::Behind(_))
    });
    assert!(handed < 1_000);
    assert_eq!(
        reader.backlog(&topic, 0),
        Backlog::Behind(1_000 - handed as i64)
    );
    // Read to the end: caught up. The empty partition is caught up too.
    handed += poll_until(&mut reader, |r, n| {
        handed + n >= 1_000 && r.backlog(&topic, 0) == Backlog::CaughtUp
    });
    assert_eq!(handed, 1_000);
    poll_until(&mut reader, |r, _| {
        r.backlog(&topic, 1) == Backlog::CaughtUp
    });
}
