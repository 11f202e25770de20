//! The watcher on answers recorded from a real Flink 2.3 cluster (seed 000's
//! shape: topic `clickstream`, 16 partitions, parallelism 8, partition 11
//! silent; `tests/data/`), driven on a manual clock: the job graph read,
//! the stall opened past the threshold and explained by partition and
//! subtask in lowwater's words, resolved when the watermark moves, idle
//! partitions left out as Flink leaves them out, and the live view.

use std::collections::BTreeMap;

use lowwater_core::MIN_WATERMARK;
use lowwater_flink::model::{self, split_metric, Job, SplitQuantity};
use lowwater_flink::poll::split_samples;
use lowwater_flink::view::{live, Origin};
use lowwater_flink::watch::{default_threshold, Event, JobSettings, Poll, SinkSample, Watcher};

fn data(name: &str) -> sonic_rs::Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    sonic_rs::from_str(&text).expect("JSON")
}

fn job() -> Job {
    model::parse_job(&data("job.json"), "/jobs/x").expect("a job")
}

/// Flink's Kafka enumerator's assignment, as the subtasks' metric lists
/// showed it (partitions 3 and 11 on subtask 3).
fn owner() -> BTreeMap<(String, i32), usize> {
    (0..16)
        .map(|p| (("clickstream".to_string(), p), (p % 8) as usize))
        .collect()
}

/// The recorded source metrics with every offset moved by `moved` (but
/// partition 11's, which never had a record).
fn source(name: &str, moved: i64) -> Vec<lowwater_flink::watch::SplitSample> {
    let values: BTreeMap<String, f64> = model::metric_values(&data(name), "min")
        .into_iter()
        .map(|(id, v)| {
            let bump = split_metric(&id)
                .is_some_and(|m| m.kind == SplitQuantity::CurrentOffset && v >= 0.0);
            (id, if bump { v + moved as f64 } else { v })
        })
        .collect();
    split_samples("clickstream", &owner(), &values)
}

fn window(wm: i64) -> SinkSample {
    SinkSample {
        vertex: "c27dcf7b54ef6bfd6cff02ca8870b681".into(),
        watermark: Some(wm),
        late_dropped: 0,
        rows: vec![("dashboard".into(), 18)],
    }
}

fn poll(name: &str, moved: i64, wm: i64) -> Poll {
    Poll {
        job: job(),
        splits: source(name, moved),
        sinks: vec![window(wm)],
    }
}

const T0: i64 = 1_796_161_831_448;

/// A watcher of `j` from T0, 30 s threshold, the idle timeout known to be
/// disabled, 1-minute windows over a 5 s delay (seed 000's job file).
fn watcher(j: &Job) -> Watcher {
    let known = JobSettings {
        idle_timeout_known: true,
        window: Some(60_000),
        delay: Some(5_000),
        ..JobSettings::default()
    };
    Watcher::new(j, known, 30_000, T0).expect("watchable")
}

/// Polls `poll(k)` every 2 s from T0 (k = 0..=20) and returns the stall
/// that opened last, if any.
fn last_stall(w: &mut Watcher, poll: impl Fn(i64) -> Poll) -> Option<lowwater_report::StallReport> {
    let mut stall = None;
    for k in 0..=20 {
        for e in w.observe(&poll(k), T0 + k * 2_000) {
            if let Event::Stalled(r) = e {
                stall = Some(r);
            }
        }
    }
    stall
}

#[test]
fn the_job_graph_names_the_kafka_source_the_sink_and_the_window() {
    let j = job();
    assert_eq!(j.summary.state, "RUNNING");
    assert_eq!(j.vertices.len(), 2);
    let (src, win) = (&j.vertices[0], &j.vertices[1]);
    assert_eq!(src.kafka_table().as_deref(), Some("clickstream"));
    assert_eq!((src.parallelism, win.parallelism), (8, 1));
    assert!(src.sinks().is_empty());
    assert_eq!(win.sinks(), vec!["dashboard".to_string()]);
    assert_eq!(win.inputs, vec![src.id.clone()]);
    assert_eq!(win.window_size(), Some(10_000));
    // 3 x the 10 s window, and at least twice (poll + Flink's refresh).
    assert_eq!(default_threshold(&j, 5_000, 10_000), 30_000);
    assert_eq!(default_threshold(&j, 20_000, 10_000), 60_000);
}

#[test]
fn split_metric_ids_are_read_for_topics_with_dots_and_dashes() {
    let m = split_metric("Src.split.my.topic-v2-11.watermark.currentWatermark").expect("split");
    assert_eq!(
        (m.topic.as_str(), m.partition, m.kind),
        ("my.topic-v2", 11, SplitQuantity::Watermark)
    );
    let o = split_metric("Src.KafkaSourceReader.topic.a.partition.b.partition.7.currentOffset")
        .expect("offset");
    assert_eq!((o.topic.as_str(), o.partition), ("a.partition.b", 7));
    assert_eq!(
        split_metric("Src.KafkaSourceReader.topic.t.partition.7.committedOffset"),
        None
    );
    assert_eq!(
        split_metric("Src.split.t-1.watermark.accumulatedIdleTimeMs"),
        None
    );
    // Aggregates are doubles: Long.MIN_VALUE comes back as -9.223372036854776e18.
    assert_eq!(model::watermark_value(-9.223372036854776e18), MIN_WATERMARK);
}

#[test]
fn recorded_metrics_give_every_partition_its_watermark_offset_and_idleness() {
    let s = source("source-metrics.json", 0);
    assert_eq!(s.len(), 16);
    let p11 = s.iter().find(|x| x.partition == 11).expect("11");
    assert_eq!(
        (p11.subtask, p11.watermark, p11.offset),
        (3, Some(MIN_WATERMARK), Some(-1))
    );
    assert_eq!(
        p11.idle_ms_per_s,
        Some(0.0),
        "no idle timeout: active, at MIN"
    );
    let p3 = s.iter().find(|x| x.partition == 3).expect("3");
    assert!(p3.watermark.is_some_and(|w| w > 1_700_000_000_000));
    assert_eq!(p3.offset, Some(510));
    let idle = source("source-metrics-idle.json", 0);
    let i11 = idle.iter().find(|x| x.partition == 11).expect("11");
    assert_eq!(
        i11.idle_ms_per_s,
        Some(1000.0),
        "with the idle timeout: idle"
    );
}

#[test]
fn heartbeat_partition_stall_on_flink_is_named_with_lowwaters_reason_and_resolves() {
    let j = job();
    let mut w = watcher(&j);
    assert!(w
        .observe(&poll("source-metrics.json", 0, MIN_WATERMARK), T0)
        .is_empty());
    // Records keep arriving on 15 partitions; the watermark stays at MIN.
    let mut opened = None;
    for k in 1..=20 {
        let t = T0 + k * 2_000;
        for e in w.observe(&poll("source-metrics.json", k * 10, MIN_WATERMARK), t) {
            if let Event::Stalled(r) = e {
                opened.get_or_insert((t, r));
            }
        }
    }
    let (at, r) = opened.expect("a stall opened");
    // Records first arrived at T0 + 2 s: 30 s later, at the first poll after.
    assert_eq!(at, T0 + 34_000);
    let held = r.held_by.as_ref().expect("held");
    assert_eq!(
        (held.topic.as_deref(), held.partition, held.subtask),
        (Some("clickstream"), Some(11), 3)
    );
    assert!(held.never_had_record);
    assert_eq!(
        r.reason,
        "partition 11 of clickstream (subtask 3) has had no record since the job started and \
         idle-timeout is disabled, so it holds the watermark at MIN; SET \
         'table.exec.source.idle-timeout' = '15 s' releases it (it has had no record; chosen \
         from the windows, every 1m 0s; a record of it that comes after more than 15 s of \
         silence, with an event time over 5s behind the other partitions', is then late and \
         counted per partition)"
    );
    assert_eq!(
        (r.sink.as_str(), r.source.as_str(), r.watermark),
        ("dashboard", "clickstream", None)
    );
    assert!(lowwater_report::stalled_line(&r, at).starts_with(
        "watermark stalled: INSERT INTO dashboard has been stuck at MIN for 34s while records arrive"
    ));
    // The watermark moves (partition 11 had its heartbeat): resolved.
    let t = T0 + 42_000;
    let ev = w.observe(&poll("source-metrics.json", 300, T0), t);
    let Some(Event::Resolved(done, _)) = ev.first() else {
        panic!("resolved: {ev:?}");
    };
    assert!(done.resolved);
    assert_eq!((done.from_ts, done.to_ts), (T0, t));
    assert_eq!(w.current(t), vec![None]);
    assert_eq!(w.past().len(), 1);
}

#[test]
fn an_idle_partition_holds_nothing_as_in_flink() {
    let j = job();
    let mut w = Watcher::new(&j, JobSettings::default(), 30_000, T0).expect("watchable");
    w.observe(&poll("source-metrics-idle.json", 0, MIN_WATERMARK), T0);
    let subtasks = w.subtasks("clickstream");
    assert_eq!(subtasks.len(), 8);
    let (wm3, idle3) = subtasks[&3];
    assert!(!idle3, "subtask 3 still reads partition 3");
    assert!(
        wm3.is_some_and(|w| w > 1_700_000_000_000),
        "partition 11 (idle) is left out of its minimum"
    );
    let view = live(&w, &origin(), T0);
    let p11 = view
        .partitions
        .iter()
        .find(|p| p.report.partition == 11)
        .expect("11");
    assert!(p11.report.idle && !p11.holding);
    assert_eq!(view.partitions.iter().filter(|p| p.holding).count(), 1);
}

fn origin() -> Origin {
    Origin {
        url: "http://127.0.0.1:8081".into(),
        job_id: "cf8adc15dd93fead06bd4093bac330a9".into(),
        job_name: "insert-into_default_catalog.default_database.dashboard".into(),
        poll_interval_ms: 2_000,
        requests_per_poll: 4,
    }
}

#[test]
fn the_live_view_is_lowwaters_shape_with_the_flink_job_named() {
    let j = job();
    let mut w = Watcher::new(&j, JobSettings::default(), 30_000, T0).expect("watchable");
    for k in 0..=20 {
        w.observe(
            &poll("source-metrics.json", k * 10, MIN_WATERMARK),
            T0 + k * 2_000,
        );
    }
    let now = T0 + 40_000;
    let v = live(&w, &origin(), now);
    assert_eq!(v.partitions.len(), 16);
    let holders: Vec<i32> = v
        .partitions
        .iter()
        .filter(|p| p.holding)
        .map(|p| p.report.partition)
        .collect();
    assert_eq!(holders, vec![11]);
    assert_eq!(v.inserts.len(), 1);
    let stall = v.inserts[0].stall.as_ref().expect("stalled");
    assert!(
        stall
            .reason
            .contains("(the job's idle timeout could not be read from Flink"),
        "{}",
        stall.reason
    );
    assert_eq!(v.stalls.len(), 1);
    // Records since the watch began: 15 partitions x 200 offsets.
    assert_eq!(v.totals.records_in, 15 * 200);
    assert_eq!(v.sinks[0].report.rows, 18);
    let watched = v.watched.as_ref().expect("watched");
    assert_eq!(
        (watched.engine.as_str(), watched.state.as_str()),
        ("flink", "RUNNING")
    );
    // Subtasks: 8 source subtasks, then the window vertex.
    assert_eq!(v.subtasks.len(), 9);
    assert_eq!(v.subtasks[8].operator, "window:dashboard");
    let metrics = lowwater_observe::metrics::live_metrics(&v);
    assert!(metrics.contains("lowwater_partition_holding{table=\"clickstream\",topic=\"clickstream\",partition=\"11\",subtask=\"3\"} 1"), "{metrics}");
}

#[test]
fn a_job_without_kafka_sources_is_a_clear_error() {
    let mut v = data("job.json");
    let text = sonic_rs::to_string(&v).expect("json").replace(
        "Source: KafkaSource-default_catalog.default_database.clickstream",
        "Source: datagen[1]",
    );
    v = sonic_rs::from_str(&text).expect("json");
    let j = model::parse_job(&v, "/jobs/x").expect("job");
    let e = Watcher::new(&j, JobSettings::default(), 30_000, T0).expect_err("no Kafka");
    assert!(
        e.contains("reads no Kafka topic: lowwater watch explains the watermarks of Kafka sources"),
        "{e}"
    );
    assert!(e.contains("Source: datagen[1]"), "{e}");
}

#[test]
fn without_per_split_watermarks_the_holder_is_inferred_from_offsets_and_said_to_be() {
    // Flink 2.0: offsets only. Partition 11 never moves, the others do.
    let strip = |moved: i64| -> Poll {
        let mut p = poll("source-metrics.json", moved, MIN_WATERMARK);
        for s in &mut p.splits {
            s.watermark = None;
            s.idle_ms_per_s = None;
        }
        p
    };
    let j = job();
    let mut w = Watcher::new(&j, JobSettings::default(), 30_000, T0).expect("watchable");
    let r = last_stall(&mut w, |k| strip(k * 10)).expect("a stall");
    let held = r.held_by.as_ref().expect("held");
    assert_eq!((held.partition, held.subtask), (Some(11), 3));
    assert!(
        r.reason.contains("(inferred from the readers' offsets: this Flink shows no per-partition watermarks, which Flink 2.1 added)"),
        "{}",
        r.reason
    );
}

#[test]
fn a_restart_that_drops_the_watermark_ends_the_stall_instead_of_opening_a_false_one() {
    let j = job();
    let mut w = Watcher::new(&j, JobSettings::default(), 30_000, T0).expect("watchable");
    w.observe(&poll("source-metrics.json", 0, T0), T0);
    // The watermark stands at T0 while records arrive: a stall opens.
    for k in 1..=20 {
        w.observe(&poll("source-metrics.json", k * 10, T0), T0 + k * 2_000);
    }
    assert!(
        w.current(T0 + 40_000)[0].is_some(),
        "stalled before the restart"
    );
    // Flink restarts the job from MIN and climbs back while re-reading.
    let t = T0 + 42_000;
    assert!(w
        .observe(&poll("source-metrics.json", 0, MIN_WATERMARK), t)
        .is_empty());
    assert_eq!(
        w.current(t),
        vec![None],
        "the old stall ended with the restart"
    );
    assert_eq!(w.past().len(), 1);
    assert!(!w.past()[0].resolved, "it ended unresolved");
    // Re-reading moves the watermark up again: no stall 'stuck at T0'.
    let mut opened = false;
    for k in 1..=10 {
        let ev = w.observe(
            &poll("source-metrics.json", k * 10, T0 - 60_000 + k * 5_000),
            t + k * 2_000,
        );
        opened |= ev.iter().any(|e| matches!(e, Event::Stalled(_)));
    }
    assert!(!opened, "a watermark climbing back is not a stall");
}

#[test]
fn a_reader_without_partitions_holds_min_and_is_named_as_in_lowwater() {
    // 4 partitions on 8 readers: subtasks 4..7 read nothing.
    let j = job();
    let mut w = watcher(&j);
    let cut = |moved: i64| -> Poll {
        let mut p = poll("source-metrics.json", moved, MIN_WATERMARK);
        p.splits.retain(|s| s.partition < 4);
        p
    };
    let r = last_stall(&mut w, |k| cut(k * 10)).expect("stalled");
    let held = r.held_by.as_ref().unwrap_or_else(|| panic!("held: {r:?}"));
    assert_eq!((held.partition, held.subtask), (None, 4));
    assert!(
        r.reason.starts_with(
            "subtask 4 of clickstream reads no partition (parallelism 8 > 4 partitions)"
        ),
        "{}",
        r.reason
    );
    // With an idle timeout such readers are idle and hold nothing.
    let mut idle = Watcher::new(
        &j,
        JobSettings {
            idle_timeout: Some(5_000),
            idle_timeout_known: true,
            ..JobSettings::default()
        },
        30_000,
        T0,
    )
    .expect("watchable");
    idle.observe(&cut(0), T0);
    assert_eq!(
        idle.subtasks("clickstream")[&5],
        (Some(MIN_WATERMARK), true)
    );
}

#[test]
fn a_partition_seen_after_the_watch_began_is_silent_only_since_then() {
    let j = job();
    let mut w = watcher(&j);
    let without_11 = |moved: i64| -> Poll {
        let mut p = poll("source-metrics.json", moved, MIN_WATERMARK);
        p.splits.retain(|s| s.partition != 11);
        p
    };
    // Partition 11 appears at T0 + 10 s (added to the topic), with no record.
    let r = last_stall(&mut w, |k| {
        if k < 5 {
            without_11(k * 10)
        } else {
            poll("source-metrics.json", k * 10, MIN_WATERMARK)
        }
    })
    .expect("stalled");
    let held = r.held_by.as_ref().expect("held");
    assert_eq!(held.partition, Some(11));
    assert_eq!(
        held.silent_ms,
        34_000 - 10_000,
        "silent since it was first seen, not the job's age"
    );
}

/// A temporal join's job graph, as Flink 2.3 ran one (the vertex names
/// read off the real cluster): orders and rates from Kafka, the rates
/// deduplicated, `TemporalJoin[23]` chained with the sink. Rates partitions
/// 2 and 3 never had a record: the join is held by its versioned side, and
/// the per-table idle-timeout of rates is what releases it.
#[test]
fn a_temporal_join_is_held_by_its_versioned_side_and_named_so() {
    use lowwater_flink::model::{JobSummary, Vertex};
    use lowwater_flink::watch::SplitSample;
    let v = |id: &str, name: &str, inputs: &[&str]| Vertex {
        id: id.into(),
        name: name.into(),
        parallelism: 2,
        inputs: inputs.iter().map(|i| i.to_string()).collect(),
        description: String::new(),
    };
    let job =
        Job {
            summary: JobSummary {
                id: "j".into(),
                name: "insert-into_default_catalog.default_database.dashboard".into(),
                state: "RUNNING".into(),
                start_time: T0 - 60_000,
            },
            vertices: vec![
            v("o", "Source: KafkaSource-default_catalog.default_database.orders", &[]),
            v("r", "Source: KafkaSource-default_catalog.default_database.rates", &[]),
            v("d", "Deduplicate[21]", &["r"]),
            v(
                "j",
                "TemporalJoin[23] -> Calc[24] -> dashboard[25]: Writer -> dashboard[25]: Committer",
                &["o", "d"],
            ),
        ],
        };
    let split = |table: &str, partition: i32, wm: i64, offset: i64| SplitSample {
        table: table.into(),
        topic: table.into(),
        partition,
        subtask: (partition % 2) as usize,
        watermark: Some(wm),
        idle_ms_per_s: Some(0.0),
        offset: Some(offset),
    };
    let poll = |k: i64| Poll {
        job: job.clone(),
        splits: vec![
            split("orders", 0, T0 + k * 2_000, 10 + k),
            split("orders", 1, T0 + k * 2_000, 10 + k),
            split("rates", 0, T0 - 60_000, 0),
            split("rates", 1, T0 - 60_000, 0),
            split("rates", 2, MIN_WATERMARK, -1),
            split("rates", 3, MIN_WATERMARK, -1),
        ],
        sinks: vec![SinkSample {
            vertex: "j".into(),
            watermark: Some(MIN_WATERMARK),
            late_dropped: 0,
            rows: vec![("dashboard".into(), 0)],
        }],
    };
    let mut w = watcher(&job);
    let stall = last_stall(&mut w, poll).expect("the join stalls");
    let held = stall.held_by.as_ref().expect("a holder");
    assert_eq!(held.topic.as_deref(), Some("rates"));
    assert_eq!(held.partition, Some(2));
    assert!(held.never_had_record);
    assert_eq!(stall.source, "rates");
    assert!(
        stall
            .reason
            .starts_with("the temporal join waits for its versioned side, table rates: partition 2 of rates (subtask 0) has had no record")
            && stall.reason.contains("'scan.watermark.idle-timeout' on table rates"),
        "{}",
        stall.reason
    );
    let view = live(&w, &origin(), T0 + 40_000);
    assert_eq!(view.inserts[0].source, "orders JOIN rates");
}

/// A Flink job reading a partition whose producer writes seconds: its
/// FLIP-513 watermark is in January 1970 while its offset moves. The watch
/// says so once, in lowwater's words, though nothing stalls.
#[test]
fn a_watermark_of_seconds_read_as_milliseconds_is_named_once() {
    use lowwater_flink::watch::SplitSample;
    let j = job();
    let seconds = |k: i64| SplitSample {
        table: "clickstream".into(),
        topic: "clickstream".into(),
        partition: 5,
        subtask: 5,
        watermark: Some((T0 + k * 2_000) / 1_000 - 5_000),
        idle_ms_per_s: Some(0.0),
        offset: Some(100 + k),
    };
    let mut w = watcher(&j);
    let mut named = Vec::new();
    for k in 0..5 {
        let p = Poll {
            job: j.clone(),
            splits: vec![seconds(k)],
            sinks: vec![window(T0 - 60_000)],
        };
        for e in w.observe(&p, T0 + k * 2_000) {
            if let Event::Implausible(line) = e {
                named.push(line);
            }
        }
    }
    let [line] = named.as_slice() else {
        panic!("named once: {named:?}");
    };
    assert!(
        line.starts_with("partition 5 of clickstream: its watermark is 1970-01-")
            && line
                .contains("its producer writes seconds where table clickstream reads milliseconds"),
        "{line}"
    );
}

/// Issue 37 item 9: a partition whose last record came before the watch
/// began is silent for at least the watch's time, not exactly that: the
/// reason says "at least" and the report marks the figure as a lower bound.
#[test]
fn a_silence_that_began_before_the_watch_is_a_lower_bound() {
    let j = job();
    let poll = |k: i64| {
        let splits = (0..16)
            .map(|p| lowwater_flink::watch::SplitSample {
                table: "clickstream".into(),
                topic: "clickstream".into(),
                partition: p,
                subtask: (p % 8) as usize,
                // Partition 3 read 10 records before the watch and none
                // since; the others move on.
                watermark: Some(if p == 3 { T0 - 60_000 } else { T0 + k * 2_000 }),
                idle_ms_per_s: Some(0.0),
                offset: Some(if p == 3 { 9 } else { 100 + k * 50 }),
            })
            .collect();
        Poll {
            job: job(),
            splits,
            sinks: vec![window(T0 - 60_000)],
        }
    };
    let mut w = watcher(&j);
    let r = last_stall(&mut w, poll).expect("a stall");
    let held = r.held_by.as_ref().expect("held");
    assert_eq!(held.partition, Some(3));
    assert!(held.silent_at_least && !held.never_had_record, "{held:?}");
    assert!(
        r.reason
            .contains("partition 3 of clickstream (subtask 3) has had no record for at least "),
        "{}",
        r.reason
    );
}
