//! `/metrics`: the live state as OpenMetrics text, under the naming scheme
//! of docs/metrics.md (`lowwater_<entity>_<quantity>_<unit>`). Every value
//! is read from the live model when scraped; nothing is counted
//! twice, and every way a record can be dropped has a counter.

use std::borrow::Cow;

use lowwater_core::Millis;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use crate::live::{
    finite, Labels, LagFamily, Live, LiveInsert, LivePartition, LiveSink, LiveSubtask,
};

/// Encodes a live view that is not a lowwater job of this process (a Flink
/// job watched through its REST API): the same families, without the
/// emission-lag histogram and the WHERE counts, which only the executor of
/// the job knows.
pub fn live_metrics(live: &Live) -> String {
    encode(live, None, Vec::new())
}

/// Encodes `live` as OpenMetrics text, with the sinks' emission-lag
/// histograms and each source table's rows dropped by WHERE when the
/// executor has them.
pub fn encode(live: &Live, lags: Option<&LagFamily>, filtered: Vec<(Labels, u64)>) -> String {
    let mut r = Families::default();
    let secs = |ms: Millis| ms as f64 / 1000.0;
    let gauge = |r: &mut Families, name: &str, help: &str, samples: Vec<(Labels, f64)>| {
        r.add(name, help, Samples::Gauge(samples));
    };
    let counter = |r: &mut Families, name: &str, help: &str, samples: Vec<(Labels, u64)>| {
        r.add(name, help, Samples::Counter(samples));
    };
    let part = |p: &LivePartition| -> Labels {
        vec![
            ("table".into(), p.report.table.clone()),
            ("topic".into(), p.report.topic.clone()),
            ("partition".into(), p.report.partition.to_string()),
            ("subtask".into(), p.report.subtask.to_string()),
        ]
    };
    let ps = &live.partitions;
    // Each partition's labels, made once per scrape.
    let labels: Vec<Labels> = ps.iter().map(part).collect();
    let each = |f: &dyn Fn(&LivePartition) -> Option<f64>| -> Vec<(Labels, f64)> {
        ps.iter()
            .zip(&labels)
            .filter_map(|(p, l)| f(p).map(|v| (l.clone(), v)))
            .collect()
    };
    let each_n = |f: &dyn Fn(&LivePartition) -> u64| -> Vec<(Labels, u64)> {
        ps.iter()
            .zip(&labels)
            .map(|(p, l)| (l.clone(), f(p)))
            .collect()
    };
    gauge(
        &mut r,
        "lowwater_partition_watermark_milliseconds",
        "The partition's watermark, epoch ms (absent before its first)",
        each(&|p| finite(p.watermark).map(|w| w as f64)),
    );
    gauge(
        &mut r,
        "lowwater_partition_last_event_time_milliseconds",
        "The largest event time read from the partition, epoch ms",
        each(&|p| p.report.last_event_time.map(|w| w as f64)),
    );
    gauge(
        &mut r,
        "lowwater_partition_last_arrival_milliseconds",
        "When the partition's last record was read (processing time), epoch ms",
        each(&|p| p.report.last_arrival.map(|w| w as f64)),
    );
    gauge(
        &mut r,
        "lowwater_partition_silence_seconds",
        "How long the partition has had no record (since the job started, if never)",
        each(&|p| Some(secs(p.silent_ms))),
    );
    gauge(
        &mut r,
        "lowwater_partition_idle",
        "1 when the partition is idle (excluded from the watermark minimum)",
        each(&|p| Some(f64::from(u8::from(p.report.idle)))),
    );
    gauge(
        &mut r,
        "lowwater_partition_paused",
        "1 while watermark alignment pauses the partition (it runs ahead of its group's slowest partition)",
        each(&|p| Some(f64::from(u8::from(p.paused)))),
    );
    gauge(
        &mut r,
        "lowwater_partition_paused_seconds",
        "Time watermark alignment has paused the partition so far",
        each(&|p| Some(p.report.paused_ms as f64 / 1000.0)),
    );
    gauge(
        &mut r,
        "lowwater_partition_holding",
        "1 for the partition holding its INSERT's watermark",
        each(&|p| Some(f64::from(u8::from(p.holding)))),
    );
    gauge(
        &mut r,
        "lowwater_partition_implausible_time",
        "1 for a partition whose newest event time is decades behind its records' arrival (a producer writing seconds)",
        each(&|p| Some(f64::from(u8::from(p.implausible_time)))),
    );
    gauge(
        &mut r,
        "lowwater_partition_consumer_lag_records",
        "Kafka offsets of the partition not read yet (absent until known)",
        each(&|p| p.consumer_lag.map(|l| l as f64)),
    );
    counter(
        &mut r,
        "lowwater_partition_records",
        "Records read from the partition",
        each_n(&|p| p.report.records),
    );
    counter(
        &mut r,
        "lowwater_partition_late_dropped",
        "Late records of the partition dropped (counted, not written)",
        each_n(&|p| p.report.late_records_dropped),
    );
    counter(
        &mut r,
        "lowwater_partition_late_routed",
        "Late records of the partition written to the late-data sink",
        each_n(&|p| p.report.late_records_routed),
    );
    counter(
        &mut r,
        "lowwater_partition_skipped",
        "Records of the partition skipped (tombstones, empty, undecodable with json. or csv.ignore-parse-errors)",
        each_n(&|p| p.report.records_skipped),
    );
    counter(
        &mut r,
        "lowwater_partition_future_records",
        "Records of the partition dated beyond lowwater.watermark.max-future, kept out of the watermark and the windows",
        each_n(&|p| p.report.future_records),
    );
    counter(
        &mut r,
        "lowwater_partition_fields_nulled",
        "Fields of the partition's records read as NULL because they did not convert",
        each_n(&|p| p.report.fields_nulled),
    );
    let op = |s: &LiveSubtask| -> Labels {
        vec![
            ("operator".into(), s.operator.clone()),
            ("subtask".into(), s.subtask.to_string()),
        ]
    };
    let subs = &live.subtasks;
    gauge(
        &mut r,
        "lowwater_operator_input_watermark_milliseconds",
        "The watermark an operator subtask has received, epoch ms (Flink's currentInputWatermark)",
        subs.iter()
            .filter_map(|s| finite(s.input_watermark).map(|w| (op(s), w as f64)))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_operator_output_watermark_milliseconds",
        "The watermark an operator subtask has sent on, epoch ms (Flink's currentOutputWatermark)",
        subs.iter()
            .filter_map(|s| finite(s.output_watermark).map(|w| (op(s), w as f64)))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_operator_idle",
        "1 when a source subtask is idle",
        subs.iter()
            .filter_map(|s| s.idle.map(|i| (op(s), f64::from(u8::from(i)))))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_source_watermark_lag_seconds",
        "Now minus the source subtask's watermark (Flink's watermarkLag)",
        subs.iter()
            .filter_map(|s| {
                let table = s.operator.strip_prefix("source:")?;
                let w = finite(s.output_watermark)?;
                Some((
                    vec![
                        ("table".into(), table.to_string()),
                        ("subtask".into(), s.subtask.to_string()),
                    ],
                    secs(live.now - w),
                ))
            })
            .collect(),
    );
    let ins = |i: &LiveInsert| -> Labels { vec![("sink".into(), i.sink.clone())] };
    gauge(
        &mut r,
        "lowwater_job_watermark_milliseconds",
        "The INSERT's watermark (minimum over its window subtasks), epoch ms",
        live.inserts
            .iter()
            .filter_map(|i| finite(i.watermark).map(|w| (ins(i), w as f64)))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_job_watermark_lag_seconds",
        "Now minus the INSERT's watermark",
        live.inserts
            .iter()
            .filter_map(|i| finite(i.watermark).map(|w| (ins(i), secs(live.now - w))))
            .collect(),
    );
    let side = |j: &crate::live::LiveJoin, s: &crate::live::LiveJoinSide| -> Labels {
        vec![
            ("sink".into(), j.sink.clone()),
            ("side".into(), s.side.clone()),
            ("table".into(), s.table.clone()),
        ]
    };
    let sides = || {
        live.joins
            .iter()
            .flat_map(|j| j.sides.iter().map(move |s| (j, s)))
    };
    gauge(
        &mut r,
        "lowwater_join_input_watermark_milliseconds",
        "The watermark a join has from one input (the lowest over its subtasks), epoch ms; the \
         join's is the lower of its two",
        sides()
            .filter_map(|(j, s)| finite(s.watermark).map(|w| (side(j, s), w as f64)))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_join_input_holding",
        "1 for the input that holds the join's watermark",
        sides()
            .map(|(j, s)| (side(j, s), f64::from(u8::from(s.holding))))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_join_waiting_rows",
        "Probe rows a temporal join holds until the watermark passes their time (an interval \
         join: the rows it caches); past 'lowwater.state.max-join-rows' the job stops unless its \
         watermark is moving",
        live.joins
            .iter()
            .map(|j| (vec![("sink".into(), j.sink.clone())], j.waiting_rows as f64))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_join_versions_deleted",
        "Versions of an upsert-kafka versioned table that its tombstones deleted (each from the \
         deleted version's own time on, as Flink's normalized changelog does), since the job's \
         first start",
        live.joins
            .iter()
            .map(|j| {
                (
                    vec![("sink".into(), j.sink.clone())],
                    j.versions_deleted as f64,
                )
            })
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_stall_active",
        "1 while the INSERT's watermark is stalled (stuck longer than the threshold while records arrive)",
        live.inserts
            .iter()
            .map(|i| (ins(i), f64::from(u8::from(i.stall.is_some()))))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_recurring_hold_ratio",
        "The share of the last ten windows' time that one partition held the INSERT's watermark in holds shorter than the stall threshold, while that is at least half (0 otherwise)",
        live.inserts
            .iter()
            .map(|i| {
                let share = i.recurring.as_ref().map_or(0, |h| h.held_percent);
                (ins(i), f64::from(share) / 100.0)
            })
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_stall_duration_seconds",
        "How long the current stall has lasted (0 without one)",
        live.inserts
            .iter()
            .map(|i| {
                (
                    ins(i),
                    i.stall.as_ref().map_or(0.0, |s| secs(s.duration_ms)),
                )
            })
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_job_open_windows",
        "Open (window, key) states of the INSERT (they grow while its watermark is stalled; \
         past 'lowwater.state.max-open-windows' the job stops unless its watermark is moving)",
        live.inserts
            .iter()
            .map(|i| (ins(i), i.open_windows as f64))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_job_state_bytes",
        "Estimated bytes of the INSERT's open window states",
        live.inserts
            .iter()
            .map(|i| (ins(i), i.state_bytes as f64))
            .collect(),
    );
    counter(
        &mut r,
        "lowwater_stalls",
        "Stalls of the INSERT's watermark so far (ended and going on)",
        live.inserts
            .iter()
            .map(|i| {
                let n = live.stalls.iter().filter(|s| s.sink == i.sink).count();
                (ins(i), n as u64)
            })
            .collect(),
    );
    let sink = |s: &LiveSink| -> Labels { vec![("sink".into(), s.report.table.clone())] };
    counter(
        &mut r,
        "lowwater_sink_rows",
        "Rows written to the sink (window results and late rows)",
        live.sinks
            .iter()
            .map(|s| (sink(s), s.report.rows))
            .collect(),
    );
    counter(
        &mut r,
        "lowwater_sink_late_rows",
        "Late rows written to the sink (as a late-data sink)",
        live.sinks
            .iter()
            .map(|s| (sink(s), s.report.late_rows))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_sink_freshness_seconds",
        "Now minus the sink's last row (or the job start)",
        live.sinks
            .iter()
            .map(|s| (sink(s), secs(s.freshness_ms)))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_sink_max_emission_lag_seconds",
        "The sink's emission-lag SLO ('lowwater.sink.max-emission-lag')",
        live.sinks
            .iter()
            .filter_map(|s| s.max_emission_lag_slo_ms.map(|m| (sink(s), secs(m))))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_sink_max_staleness_seconds",
        "The sink's staleness SLO ('lowwater.sink.max-staleness')",
        live.sinks
            .iter()
            .filter_map(|s| s.max_staleness_slo_ms.map(|m| (sink(s), secs(m))))
            .collect(),
    );
    counter(
        &mut r,
        "lowwater_sink_emission_lag_breaches",
        "Window rows emitted later than the sink's max emission lag",
        live.sinks
            .iter()
            .map(|s| (sink(s), s.emission_lag_breaches))
            .collect(),
    );
    let jdbc: Vec<(&LiveSink, &crate::live::LiveJdbc)> = live
        .sinks
        .iter()
        .filter_map(|s| s.jdbc.as_ref().map(|j| (s, j)))
        .collect();
    counter(
        &mut r,
        "lowwater_sink_jdbc_committed_rows",
        "Rows a jdbc sink's server committed",
        jdbc.iter()
            .map(|(s, j)| (sink(s), j.committed_rows))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_sink_jdbc_buffered_rows",
        "Rows handed to a jdbc sink and not committed yet",
        jdbc.iter()
            .map(|(s, j)| (sink(s), j.buffered_rows as f64))
            .collect(),
    );
    gauge(
        &mut r,
        "lowwater_sink_jdbc_commit_age_seconds",
        "Now minus a jdbc sink's last commit (or the job start)",
        jdbc.iter()
            .map(|(s, j)| (sink(s), secs(j.commit_age_ms)))
            .collect(),
    );
    counter(
        &mut r,
        "lowwater_sink_jdbc_reconnects",
        "Connections a jdbc sink re-established after one was lost",
        jdbc.iter().map(|(s, j)| (sink(s), j.reconnects)).collect(),
    );
    counter(
        &mut r,
        "lowwater_sink_jdbc_retries",
        "Batches a jdbc sink tried again after a transient refusal",
        jdbc.iter().map(|(s, j)| (sink(s), j.retries)).collect(),
    );
    gauge(
        &mut r,
        "lowwater_sink_stale",
        "1 while the sink has written nothing for longer than its max staleness",
        live.sinks
            .iter()
            .filter(|s| s.max_staleness_slo_ms.is_some())
            .map(|s| (sink(s), f64::from(u8::from(s.stale))))
            .collect(),
    );
    if let Some(lags) = lags {
        r.add(
            "lowwater_sink_emission_lag_seconds",
            "Emit time minus window end of each window row written",
            Samples::Histogram(lags.clone()),
        );
    }
    counter(
        &mut r,
        "lowwater_records_in",
        "Records read by the job",
        vec![(Vec::new(), live.totals.records_in)],
    );
    counter(
        &mut r,
        "lowwater_records_filtered",
        "Records a WHERE clause filtered out, per source table",
        filtered,
    );
    checkpoint_metrics(&mut r, live);
    gauge(
        &mut r,
        "lowwater_build_info",
        "1, labelled with the running lowwater's version",
        vec![(
            vec![("version".into(), env!("CARGO_PKG_VERSION").to_string())],
            1.0,
        )],
    );
    let mut registry = Registry::default();
    registry.register_collector(Box::new(r));
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = prometheus_client::encoding::text::encode(&mut out, &registry);
    sorted(&out)
}

/// A family's samples.
#[derive(Debug)]
enum Samples {
    Gauge(Vec<(Labels, f64)>),
    Counter(Vec<(Labels, u64)>),
    Histogram(LagFamily),
}

/// The families of one scrape, in order, encoded by one collector: the
/// samples go straight to the encoder, without a `Family` (a hash map of
/// cloned label sets, SipHashed) built and dropped per family per scrape.
/// The text is the registry's for the same families: each help ends with
/// '.', a family without samples is left out, and samples with equal
/// labels are one (a gauge's last value, a counter's sum), as a `Family`
/// makes them.
#[derive(Debug, Default)]
struct Families(Vec<(String, String, Samples)>);

impl Families {
    fn add(&mut self, name: &str, help: &str, samples: Samples) {
        let samples = match samples {
            Samples::Gauge(v) => Samples::Gauge(merge(v, |_, new| new)),
            Samples::Counter(v) => Samples::Counter(merge(v, |old, new| old.wrapping_add(new))),
            h => h,
        };
        self.0.push((name.to_string(), format!("{help}."), samples));
    }
}

/// `samples` with one per label set, equal ones combined by `join(old,
/// new)` in their order.
fn merge<T: Copy>(mut samples: Vec<(Labels, T)>, join: impl Fn(T, T) -> T) -> Vec<(Labels, T)> {
    samples.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Vec<(Labels, T)> = Vec::with_capacity(samples.len());
    for (l, v) in samples {
        match out.last_mut() {
            Some((last, old)) if *last == l => *old = join(*old, v),
            _ => out.push((l, v)),
        }
    }
    out
}

impl Collector for Families {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        for (name, help, samples) in &self.0 {
            match samples {
                Samples::Gauge(v) if !v.is_empty() => {
                    let mut m = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
                    for (l, x) in v {
                        ConstGauge::new(*x).encode(m.encode_family(l)?)?;
                    }
                }
                Samples::Counter(v) if !v.is_empty() => {
                    let mut m = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
                    for (l, x) in v {
                        ConstCounter::new(*x).encode(m.encode_family(l)?)?;
                    }
                }
                Samples::Histogram(f) if !EncodeMetric::is_empty(f) => {
                    let m = encoder.encode_descriptor(name, help, None, MetricType::Histogram)?;
                    f.encode(m)?;
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The samples of each family in label order, numbers compared as numbers
/// (partition 2 before 10), a histogram's lines of one label set kept
/// together: the encoder writes them in hash order. (Sort keys borrow
/// from the text: a scrape allocates a key per line, not per segment.)
fn sorted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut block: Vec<&str> = Vec::new();
    let flush = |block: &mut Vec<&str>, out: &mut String| {
        let labels: Vec<Cow<'_, str>> = block.iter().map(|l| labels_without_le(l)).collect();
        let keys: Vec<Vec<(&str, u128)>> = labels.iter().map(|l| natural(l)).collect();
        let mut order: Vec<usize> = (0..block.len()).collect();
        // Stable: a histogram's buckets keep the encoder's order.
        order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
        for i in order {
            out.push_str(block[i]);
            out.push('\n');
        }
        block.clear();
    };
    for line in text.lines() {
        if line.starts_with('#') {
            flush(&mut block, &mut out);
            out.push_str(line);
            out.push('\n');
        } else {
            block.push(line);
        }
    }
    flush(&mut block, &mut out);
    out
}

/// A sample line's labels without a histogram bucket's `le`.
fn labels_without_le(line: &str) -> Cow<'_, str> {
    let Some((_, rest)) = line.split_once('{') else {
        return Cow::Borrowed("");
    };
    let labels = rest.split_once('}').map_or(rest, |(l, _)| l);
    if !labels.split(',').any(|kv| kv.starts_with("le=")) {
        return Cow::Borrowed(labels);
    }
    Cow::Owned(
        labels
            .split(',')
            .filter(|kv| !kv.starts_with("le="))
            .collect::<Vec<_>>()
            .join(","),
    )
}

/// A sort key comparing runs of digits as numbers: each run of text with
/// the number that follows it (0 after the last; a number too large for
/// 128 bits is the largest, or 0 at the end).
fn natural(s: &str) -> Vec<(&str, u128)> {
    let b = s.as_bytes();
    let mut key = Vec::new();
    let (mut text, mut i) = (0, 0);
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let digits = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let n = s[digits..i].parse();
        if i == b.len() {
            key.push((&s[text..digits], n.unwrap_or(0)));
            return key;
        }
        key.push((&s[text..digits], n.unwrap_or(u128::MAX)));
        text = i;
    }
    key.push((&s[text..], 0));
    key
}

/// Checkpoints: counts, the last one's duration, size and age (absent
/// while checkpointing is off, or before the first one).
fn checkpoint_metrics(r: &mut Families, live: &Live) {
    let c = &live.checkpoints;
    if !c.enabled {
        return;
    }
    let one = |v: f64| -> Vec<(Labels, f64)> { vec![(Vec::new(), v)] };
    let gauge = |r: &mut Families, name: &str, help: &str, samples: Vec<(Labels, f64)>| {
        r.add(name, help, Samples::Gauge(samples));
    };
    let counter = |r: &mut Families, name: &str, help: &str, v: u64| {
        r.add(name, help, Samples::Counter(vec![(Vec::new(), v)]));
    };
    counter(
        r,
        "lowwater_checkpoints_completed",
        "Checkpoints written whole since the job started",
        c.completed,
    );
    counter(
        r,
        "lowwater_checkpoints_failed",
        "Checkpoints that failed (timed out, a source ended, a write or commit failed)",
        c.failed,
    );
    if let Some(d) = c.last_duration_ms {
        gauge(
            r,
            "lowwater_checkpoint_last_duration_seconds",
            "How long the last completed checkpoint took, trigger to file",
            one(d as f64 / 1000.0),
        );
    }
    if let Some(b) = c.last_size_bytes {
        gauge(
            r,
            "lowwater_checkpoint_last_size_bytes",
            "The size of the last completed checkpoint's file",
            one(b as f64),
        );
    }
    if let Some(at) = c.last_at {
        gauge(
            r,
            "lowwater_checkpoint_last_age_seconds",
            "Now minus when the last completed checkpoint was triggered",
            one((live.now - at) as f64 / 1000.0),
        );
    }
    if let Some(id) = c.last_id {
        gauge(
            r,
            "lowwater_checkpoint_last_id",
            "The id of the last completed checkpoint",
            one(id as f64),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_sort_by_labels_with_numbers_as_numbers() {
        let text = "# TYPE a gauge
a{table=\"t\",partition=\"10\"} 1
a{table=\"t\",partition=\"2\"} 2
a{table=\"s\",partition=\"3\"} 3
# TYPE h histogram
h_bucket{sink=\"b\",le=\"1.0\"} 0
h_bucket{sink=\"b\",le=\"+Inf\"} 1
h_bucket{sink=\"a\",le=\"1.0\"} 2
h_bucket{sink=\"a\",le=\"+Inf\"} 3
# EOF
";
        let out = sorted(text);
        let got: Vec<&str> = out
            .lines()
            .map(|l| l.rsplit(' ').next().unwrap_or(""))
            .collect();
        // s before t, then partition 2 before 10; sink a's buckets, in
        // their order, before sink b's.
        assert_eq!(
            got,
            [
                "gauge",
                "3",
                "2",
                "1",
                "histogram",
                "2",
                "3",
                "0",
                "1",
                "EOF"
            ]
        );
        assert_eq!(natural("p9x10"), [("p", 9), ("x", 10)]);
        assert_eq!(natural("a1b"), [("a", 1), ("b", 0)]);
        assert_eq!(natural(""), [("", 0)]);
        assert!(natural("p99999999999999999999999999999999999999999x") > natural("p1x"));
    }
}
