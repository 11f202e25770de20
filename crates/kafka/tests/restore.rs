//! Restoring a `PartitionReader` from a checkpoint, against the real broker
//! (`scripts/kafka.sh`, 127.0.0.1 and `KAFKA_PORT`, default 19092): the position a checkpoint stores
//! is the offset of the next record to hand out, a reader restored from it
//! hands out exactly the records from there, a partition the checkpoint
//! does not name is read from its earliest offset, symbolic starts are
//! numbers before the first record, and offsets committed on checkpoint
//! completion are where group offsets start.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::{block_on, broker, fresh, options, produce, props, BOOTSTRAP};
use lowwater_kafka::{KafkaRecord, PartitionReader};
use rdkafka::admin::{AdminClient, AdminOptions};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::{Offset, TopicPartitionList};

/// Timestamp of the first fixture record; record i has `TS0 + 1000 * i`.
const TS0: i64 = 1_750_000_000_000;

/// Polls `reader` until it handed out `n` records (at most 20 s).
fn read(reader: &mut PartitionReader, n: usize) -> Vec<KafkaRecord> {
    let started = Instant::now();
    let mut out = Vec::new();
    while out.len() < n {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "gave up after 20 s with {} of {n} records",
            out.len()
        );
        if let Some(r) = reader.poll(Duration::from_millis(100)).expect("poll") {
            out.push(r);
        }
    }
    out
}

/// (offset, payload) of the records of one partition, in order.
fn of(records: &[KafkaRecord], partition: i32) -> Vec<(i64, String)> {
    records
        .iter()
        .filter(|r| r.partition == partition)
        .map(|r| {
            let payload = String::from_utf8_lossy(r.payload.as_deref().unwrap_or_default());
            (r.offset, payload.into_owned())
        })
        .collect()
}

fn expected(partition: i32, offsets: std::ops::Range<i64>) -> Vec<(i64, String)> {
    offsets.map(|i| (i, format!("p{partition}-{i}"))).collect()
}

#[test]
fn a_restored_reader_hands_out_exactly_the_records_from_the_position() {
    broker();
    let topic = fresh("restore-position");
    lowwater_kafka::create_topic(&BOOTSTRAP, &topic, 2).expect("topic");
    produce(&topic, 0, 20, "p0", TS0);
    produce(&topic, 1, 5, "p1", TS0);
    let p = props(&[]);
    let earliest = options(&[("scan.startup.mode", "earliest-offset")]);
    let p0 = [(topic.clone(), 0)];

    let mut first = PartitionReader::new(&p, &earliest, &p0, false).expect("reader");
    let handed = read(&mut first, 7);
    assert_eq!(of(&handed, 0), expected(0, 0..7));
    assert_eq!(first.position(&topic, 0), Some(7));
    drop(first);

    // The checkpoint names partition 0 only: partition 1 is new since.
    let mut checkpoint = BTreeMap::new();
    checkpoint.insert((topic.clone(), 0), 7);
    // The startup mode is ignored on restore.
    let latest = options(&[("scan.startup.mode", "latest-offset")]);
    let both = [(topic.clone(), 0), (topic.clone(), 1)];
    let mut restored =
        PartitionReader::restored(&p, &latest, &both, false, &checkpoint).expect("restored");
    assert_eq!(restored.position(&topic, 0), Some(7));
    assert_eq!(restored.position(&topic, 1), Some(0));
    // Records of a partition come in offset order, so the first one of
    // partition 0 being 7 means nothing before it is handed out later.
    let handed = read(&mut restored, 13 + 5);
    assert_eq!(of(&handed, 0), expected(0, 7..20));
    assert_eq!(of(&handed, 1), expected(1, 0..5));
    assert_eq!(restored.position(&topic, 0), Some(20));
    assert_eq!(restored.position(&topic, 1), Some(5));
}

/// Deletes the records of `topic`/`partition` before `offset`, moving its
/// low watermark there.
fn delete_before(topic: &str, partition: i32, offset: i64) {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", BOOTSTRAP)
        .create()
        .expect("admin");
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(topic, partition, Offset::Offset(offset))
        .expect("tpl");
    let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(10)));
    block_on(admin.delete_records(&tpl, &opts)).expect("delete records");
}

/// The position of partition 0 of a reader created with `opts`.
fn start(topic: &str, p: &BTreeMap<String, String>, opts: &[(&str, &str)]) -> Option<i64> {
    let reader =
        PartitionReader::new(p, &options(opts), &[(topic.to_string(), 0)], false).expect("reader");
    reader.position(topic, 0)
}

#[test]
fn before_the_first_record_the_position_is_the_resolved_start() {
    broker();
    let topic = fresh("restore-start");
    lowwater_kafka::create_topic(&BOOTSTRAP, &topic, 1).expect("topic");
    produce(&topic, 0, 10, "p0", TS0);
    delete_before(&topic, 0, 3);
    let p = props(&[]);

    let earliest = start(&topic, &p, &[("scan.startup.mode", "earliest-offset")]);
    assert_eq!(earliest, Some(3), "earliest is the low watermark");
    let latest = start(&topic, &p, &[("scan.startup.mode", "latest-offset")]);
    assert_eq!(latest, Some(10), "latest is the high watermark");
    let specific = start(
        &topic,
        &p,
        &[
            ("scan.startup.mode", "specific-offsets"),
            ("scan.startup.specific-offsets", "partition:0,offset:5"),
        ],
    );
    assert_eq!(specific, Some(5));
    let ts = (TS0 + 4_500).to_string();
    let timestamp = start(
        &topic,
        &p,
        &[
            ("scan.startup.mode", "timestamp"),
            ("scan.startup.timestamp-millis", &ts),
        ],
    );
    assert_eq!(timestamp, Some(5), "the first record at or after the time");
    let ts = (TS0 + 60_000).to_string();
    let too_late = start(
        &topic,
        &p,
        &[
            ("scan.startup.mode", "timestamp"),
            ("scan.startup.timestamp-millis", &ts),
        ],
    );
    assert_eq!(too_late, Some(10), "no record that late: the end");
    // A group without a committed offset: resolved as librdkafka's
    // auto.offset.reset would ('largest' by default), so that a checkpoint
    // before the first record holds a real offset.
    let group = fresh("restore-start-group");
    let grouped = props(&[("group.id", &group)]);
    assert_eq!(
        start(&topic, &grouped, &[]),
        Some(10),
        "the default: the end"
    );
    let earliest = props(&[("group.id", &group), ("auto.offset.reset", "earliest")]);
    assert_eq!(
        start(&topic, &earliest, &[]),
        Some(3),
        "'earliest': the start"
    );
}

#[test]
fn the_first_record_handed_out_is_at_the_resolved_start() {
    broker();
    let topic = fresh("restore-start-read");
    lowwater_kafka::create_topic(&BOOTSTRAP, &topic, 1).expect("topic");
    produce(&topic, 0, 10, "p0", TS0);
    delete_before(&topic, 0, 3);
    let p = props(&[]);
    let parts = [(topic.clone(), 0)];
    let earliest = options(&[("scan.startup.mode", "earliest-offset")]);
    let mut reader = PartitionReader::new(&p, &earliest, &parts, false).expect("reader");
    assert_eq!(of(&read(&mut reader, 7), 0), expected(0, 3..10));
}

#[test]
fn a_bounded_reader_restored_at_the_end_is_finished_without_a_record() {
    broker();
    let topic = fresh("restore-bounded");
    lowwater_kafka::create_topic(&BOOTSTRAP, &topic, 1).expect("topic");
    produce(&topic, 0, 4, "p0", TS0);
    let bounded = options(&[("scan.bounded.mode", "latest-offset")]);
    let parts = [(topic.clone(), 0)];
    let mut at = BTreeMap::new();
    at.insert((topic.clone(), 0), 4);
    let done =
        PartitionReader::restored(&props(&[]), &bounded, &parts, false, &at).expect("restored");
    assert!(done.finished(&topic, 0));
    at.insert((topic.clone(), 0), 2);
    let mut open =
        PartitionReader::restored(&props(&[]), &bounded, &parts, false, &at).expect("restored");
    assert!(!open.finished(&topic, 0));
    assert_eq!(of(&read(&mut open, 2), 0), expected(0, 2..4));
    assert!(open.finished(&topic, 0));
}

#[test]
fn committed_offsets_are_where_group_offsets_start() {
    broker();
    let topic = fresh("restore-commit");
    lowwater_kafka::create_topic(&BOOTSTRAP, &topic, 1).expect("topic");
    produce(&topic, 0, 10, "p0", TS0);
    let group = fresh("restore-commit-group");
    let grouped = props(&[("group.id", &group)]);
    let parts = [(topic.clone(), 0)];
    let earliest = options(&[("scan.startup.mode", "earliest-offset")]);
    let mut reader = PartitionReader::new(&grouped, &earliest, &parts, false).expect("reader");
    // Read past the checkpoint's position: only what is committed counts.
    read(&mut reader, 8);
    reader
        .commit_offsets(&[(topic.clone(), 0, 6)])
        .expect("commit");

    // The commit is asynchronous: ask until a new reader sees it, serving
    // the first reader's events meanwhile.
    let started = Instant::now();
    let mut next = loop {
        let r = PartitionReader::new(&grouped, &BTreeMap::new(), &parts, false).expect("reader");
        if r.position(&topic, 0) == Some(6) {
            break r;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the committed offset 6 did not show within 20 s"
        );
        reader.poll(Duration::from_millis(100)).expect("poll");
        assert_eq!(reader.take_error(), None);
    };
    assert_eq!(of(&read(&mut next, 4), 0), expected(0, 6..10));
}
