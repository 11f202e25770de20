//! # lowwater-report: what a run or a replay reports
//!
//! The report (JSON) and its human summary, shared by `lowwater replay`,
//! `lowwater run --report` and the live API (`/api/v1/watermarks` is this
//! shape plus live fields), so that both executors build the same thing and
//! neither depends on the other.
//!
//! The shape is a contract (DESIGN.md): `totals`, one entry per source
//! partition, one per sink, and `stalls`, each with the partition and subtask
//! that held the watermark and a one-line reason a person can act on. lowwater
//! adds fields; it never renames or removes one.

use std::fmt::Write as _;

use lowwater_core::diagnose::Stall;
use lowwater_core::source::SplitId;
use lowwater_core::time::{display_duration, format_timestamp};
use lowwater_core::{Millis, Timestamp, MAX_WATERMARK, MIN_WATERMARK};
use lowwater_sql::explain::{stall_reason_in, StallContext, StallHolder};
use lowwater_sql::plan::JobPlan;
use serde::Serialize;

mod join;
mod recurring;
pub use join::{join_stall_report, JoinSides};
pub use recurring::{recurring_report_in, RecurringReport};

/// What to say of a partition whose `what` (its newest event time, or a
/// watcher's view of it: its watermark) `newest` is implausibly old for
/// records arriving at `arrival` (see
/// [`lowwater_core::diagnose::implausibly_old`]), if it is.
pub fn implausible_time(
    (table, topic, partition): (&str, &str, i32),
    what: &str,
    newest: Timestamp,
    arrival: Timestamp,
) -> Option<String> {
    use lowwater_core::diagnose::{implausibly_old, ImplausibleTime};
    let cause = implausibly_old(newest, arrival)?;
    let head = format!(
        "partition {partition} of {topic}: its {what} is {} while its records arrive at {}",
        format_timestamp(newest, ' '),
        format_timestamp(arrival, ' ')
    );
    Some(match cause {
        ImplausibleTime::Seconds => format!(
            "{head}: its producer writes seconds where table {table} reads milliseconds (read a \
             count of seconds with TO_TIMESTAMP_LTZ(ts, 0), or fix the producer); no window of \
             the present fires while its watermark is in 1970"
        ),
        ImplausibleTime::Decades => format!(
            "{head}: decades behind, so no window of the present fires while it holds the \
             watermark; check table {table}'s time column and its unit"
        ),
    })
}

/// The whole report.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    /// Totals over the job.
    pub totals: Totals,
    /// One entry per source partition.
    pub partitions: Vec<PartitionReport>,
    /// One entry per sink table.
    pub sinks: Vec<SinkReport>,
    /// Every stall, in time order per pipeline.
    pub stalls: Vec<StallReport>,
    /// Every recurring hold: a split that held a pipeline's watermark again
    /// and again, each time for less than the stall threshold (absent when
    /// none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recurring_holds: Vec<RecurringReport>,
    /// Replay parameters that decide the result.
    pub replay: ReplayInfo,
}

/// Totals.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Totals {
    /// Records read from the dumps.
    pub records_in: u64,
    /// Rows written to sinks (window results and late rows).
    pub records_out: u64,
    /// Late records dropped (counted, not written).
    pub late_records_dropped: u64,
    /// Late records written to a `late-data.sink`.
    pub late_records_routed: u64,
    /// Records skipped: empty payloads and tombstones (as Flink's json format
    /// skips them), and with `json.ignore-parse-errors` undecodable records.
    pub records_skipped: u64,
    /// Fields read as NULL because they did not convert (`json.ignore-parse-errors`).
    pub fields_nulled: u64,
    /// Records a WHERE clause filtered out (summed over pipelines).
    pub records_filtered: u64,
    /// Records dated further ahead of their arrival than
    /// `lowwater.watermark.max-future` allows, kept out of the watermark and
    /// the windows (absent when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub future_records: u64,
}

/// How far ahead of its arrival a partition's newest event time must be
/// for the summary to name it as a likely cause of late records.
const FUTURE_HINT_MS: i64 = 10 * 60 * 1000;

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One source partition.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PartitionReport {
    /// Source table.
    pub table: String,
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Source subtask reading it.
    pub subtask: usize,
    /// Records read from it (decoded).
    pub records: u64,
    /// Its late records dropped.
    pub late_records_dropped: u64,
    /// Its late records routed to the late-data sink.
    pub late_records_routed: u64,
    /// Its records skipped (empty, tombstones, undecodable with
    /// `json.ignore-parse-errors`).
    pub records_skipped: u64,
    /// Its fields read as NULL because they did not convert.
    pub fields_nulled: u64,
    /// Its records dated too far in the future (absent when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub future_records: u64,
    /// Time it was paused by watermark alignment, ms (absent when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub paused_ms: u64,
    /// Its records that reached a join behind the join's watermark (absent
    /// when 0). A temporal join keeps them, as Flink 2.3 does: a late probe
    /// row is joined at the next advance with the versions still held, a
    /// late version serves later probe rows only (earlier ones may have
    /// joined an older version). An interval join pairs a row whose range
    /// the watermark passed with the rows it still holds, and keeps it no
    /// longer. A window join drops a row for a window the watermark reached
    /// (counted once per such window).
    #[serde(skip_serializing_if = "is_zero")]
    pub late_join_rows: u64,
    /// Its final watermark (`null` if it never had one).
    pub final_watermark: Option<Timestamp>,
    /// Whether it ended idle.
    pub idle: bool,
    /// Largest event time read (`null` if none).
    pub last_event_time: Option<Timestamp>,
    /// Arrival time of its last record (`null` if none).
    pub last_arrival: Option<Timestamp>,
}

/// One sink.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SinkReport {
    /// Sink table.
    pub table: String,
    /// Rows written.
    pub rows: u64,
    /// Window results among them.
    pub window_rows: u64,
    /// Late rows among them.
    pub late_rows: u64,
    /// Largest emit time minus window end (`null` without window results).
    pub max_emission_lag_ms: Option<Millis>,
    /// Window rows fired early to bound the open state
    /// (`lowwater.state.on-limit` = 'fire-oldest'; absent when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub early_rows: u64,
    /// `run`: window rows later than the sink's
    /// `lowwater.sink.max-emission-lag`, of windows that ended after the run
    /// started (the catch-up over older records is not counted; absent
    /// when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub emission_lag_breaches: u64,
}

/// Who held the watermark during a stall.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HeldBy {
    /// Topic (`null` for a subtask without partitions).
    pub topic: Option<String>,
    /// Partition (`null` for a subtask without partitions).
    pub partition: Option<i32>,
    /// Source subtask.
    pub subtask: usize,
    /// How long it had been silent when last seen during the stall.
    pub silent_ms: Millis,
    /// Whether it never had a record.
    pub never_had_record: bool,
    /// The longest time between two of its records before this silence
    /// (absent when fewer than two were seen): what the idle timeout the
    /// reason suggests is chosen from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap_ms: Option<Millis>,
    /// Whether `silent_ms` is a lower bound (`lowwater watch` began after
    /// its last record; absent when exact).
    #[serde(skip_serializing_if = "is_false")]
    pub silent_at_least: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl HeldBy {
    /// The report of holder `h`; `split` gives a split's topic and
    /// partition.
    pub fn of(
        h: &lowwater_core::diagnose::Holder,
        split: impl Fn(SplitId) -> Option<(String, i32)>,
    ) -> Self {
        let (topic, partition) = h.split.and_then(split).unzip();
        HeldBy {
            topic,
            partition,
            subtask: h.subtask,
            silent_ms: h.silent_ms,
            never_had_record: h.never_had_record,
            gap_ms: h.gap_ms,
            silent_at_least: h.silent_at_least,
        }
    }

    /// The holder as the explanations read it.
    pub fn holder(&self) -> StallHolder<'_> {
        StallHolder {
            topic: self.topic.as_deref(),
            partition: self.partition,
            subtask: self.subtask,
            silent_ms: self.silent_ms,
            never_had_record: self.never_had_record,
            gap_ms: self.gap_ms,
            silent_at_least: self.silent_at_least,
        }
    }
}

/// One stall.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StallReport {
    /// The INSERT's sink table (the pipeline whose watermark stalled).
    pub sink: String,
    /// Its source table.
    pub source: String,
    /// When the watermark last advanced (or the replay start).
    pub from_ts: Timestamp,
    /// When it advanced again (or the last record's time).
    pub to_ts: Timestamp,
    /// `to_ts - from_ts`.
    pub duration_ms: Millis,
    /// Whether it ended because the watermark advanced (`false`: the input ended first).
    pub resolved: bool,
    /// The stuck watermark (`null` for MIN: it never had one).
    pub watermark: Option<Timestamp>,
    /// One line a person can act on.
    pub reason: String,
    /// Who held it.
    pub held_by: Option<HeldBy>,
}

/// Replay parameters.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReplayInfo {
    /// First arrival time (t0).
    pub start_ts: Timestamp,
    /// Last arrival time.
    pub end_ts: Timestamp,
    /// Periodic watermark interval.
    pub emit_interval_ms: Millis,
    /// Source parallelism.
    pub parallelism: usize,
    /// Stall threshold.
    pub stall_threshold_ms: Millis,
    /// Whether the end of input flushed MAX.
    pub drained: bool,
}

/// A watermark as the report writes it: `None` (`null`) for MIN, the
/// value a stream has before its first watermark.
pub fn wm(w: Timestamp) -> Option<Timestamp> {
    (w != MIN_WATERMARK).then_some(w)
}

/// A stall as reports show it, for replay and live runs alike. `to` is
/// where an open stall ends (the end of the run); `partitions` is how many
/// partitions the pipeline's source reads; `split` gives a split's topic
/// and partition.
pub fn build_stall_report(
    plan: &JobPlan,
    pi: usize,
    s: &Stall,
    to: Timestamp,
    threshold: Millis,
    partitions: usize,
    split: impl Fn(SplitId) -> Option<(String, i32)>,
) -> StallReport {
    let pl = &plan.pipelines[pi];
    let cx = StallContext::of(plan, pi);
    let sink = &plan.tables[pl.sink].name;
    stall_report_in(&cx, sink, s, to, threshold, partitions, split)
}

/// [`build_stall_report`] for a job described by its [`StallContext`]
/// (a Flink job that `lowwater watch` reads): `sink` is the INSERT's sink.
pub fn stall_report_in(
    cx: &StallContext,
    sink: &str,
    s: &Stall,
    to: Timestamp,
    threshold: Millis,
    partitions: usize,
    split: impl Fn(SplitId) -> Option<(String, i32)>,
) -> StallReport {
    let held_by = s.held_by.map(|h| HeldBy::of(&h, &split));
    let holder = held_by.as_ref().map(HeldBy::holder);
    let reason = stall_reason_in(cx, holder.as_ref(), partitions, threshold);
    StallReport {
        sink: sink.to_string(),
        source: cx.source.clone(),
        from_ts: s.from,
        to_ts: to,
        // Saturating: arrival times may lie near the ends of the range.
        duration_ms: to.saturating_sub(s.from),
        resolved: s.resolved,
        watermark: wm(s.watermark),
        reason,
        held_by,
    }
}

/// The log line when a stall opens, for every executor that watches one
/// live (`lowwater run`, `lowwater watch`).
pub fn stalled_line(r: &StallReport, now: Timestamp) -> String {
    format!(
        "watermark stalled: INSERT INTO {} has been stuck at {} for {} while records arrive: {}",
        r.sink,
        r.watermark
            .map_or("MIN".to_string(), |w| format_timestamp(w, ' ')),
        display_duration(now.saturating_sub(r.from_ts)),
        r.reason
    )
}

/// The log line when a stall ends because the watermark advanced to `wm`.
pub fn resolved_line(r: &StallReport, wm: Timestamp) -> String {
    format!(
        "stall resolved: the watermark of INSERT INTO {} advanced to {} after {}",
        r.sink,
        format_timestamp(wm, ' '),
        display_duration(r.duration_ms)
    )
}

fn when(ts: Timestamp) -> String {
    match ts {
        MIN_WATERMARK => "MIN".into(),
        MAX_WATERMARK => "MAX".into(),
        t => format_timestamp(t, ' '),
    }
}

/// A short human summary of the report.
pub fn summary(r: &Report) -> String {
    summary_for("replay", r)
}

/// A short human summary of the report, headed by `what` (`replay`, `run`).
pub fn summary_for(what: &str, r: &Report) -> String {
    let t = &r.totals;
    let mut s = format!(
        "{what}: {} records in, {} rows out, {} late dropped, {} late routed, {} skipped, {} filtered\n",
        t.records_in, t.records_out, t.late_records_dropped, t.late_records_routed, t.records_skipped, t.records_filtered
    );
    let late_join: u64 = r.partitions.iter().map(|p| p.late_join_rows).sum();
    if late_join > 0 {
        let _ = writeln!(
            s,
            "  {late_join} record(s) reached a temporal join behind its watermark (kept, as Flink \
             2.3 does: a late probe row is joined with the versions still held, a late version \
             serves later probe rows only); per partition in the report"
        );
    }
    if t.future_records > 0 {
        let _ = writeln!(
            s,
            "  {} record(s) dated beyond lowwater.watermark.max-future were kept out of the \
             watermark and the windows",
            t.future_records
        );
    }
    for k in r.sinks.iter().filter(|k| k.early_rows > 0) {
        let _ = writeln!(
            s,
            "  sink {}: {} row(s) fired early, incomplete, because lowwater.state.max-open-windows \
             was reached (lowwater.state.on-limit = 'fire-oldest')",
            k.table, k.early_rows
        );
    }
    let paused: Vec<String> = r
        .partitions
        .iter()
        .filter(|p| p.paused_ms > 0)
        .map(|p| {
            format!(
                "{}/{} {}",
                p.topic,
                p.partition,
                lowwater_core::time::display_duration(p.paused_ms as i64)
            )
        })
        .collect();
    if !paused.is_empty() {
        let _ = writeln!(
            s,
            "  watermark alignment paused (ahead of their group's slowest partition): {}",
            paused.join(", ")
        );
    }
    // Late records and a partition whose newest event time is far ahead of
    // when its records arrived: one record dated in the future (a producer
    // with a wrong clock) can have moved the watermark past the rest.
    if t.late_records_dropped + t.late_records_routed > 0 {
        for p in &r.partitions {
            if let (Some(ev), Some(at)) = (p.last_event_time, p.last_arrival) {
                if ev.saturating_sub(at) > FUTURE_HINT_MS {
                    let _ = writeln!(
                        s,
                        "  partition {} of {} has a record dated {} while its records arrived by \
                         {}: a record from the future moves the watermark past every later record, \
                         which is then late; 'lowwater.watermark.max-future' = '10 min' on table {} \
                         keeps such records out",
                        p.partition,
                        p.topic,
                        when(ev),
                        when(at),
                        p.table
                    );
                }
            }
        }
    }
    // A partition whose newest event time is decades behind its records'
    // arrival: the watermark creeps in 1970 and no window of now fires,
    // with no stall and no late record to say so.
    for p in &r.partitions {
        if let (Some(ev), Some(at)) = (p.last_event_time, p.last_arrival) {
            let place = (p.table.as_str(), p.topic.as_str(), p.partition);
            if let Some(line) = implausible_time(place, "newest event time", ev, at) {
                let _ = writeln!(s, "  {line}");
            }
        }
    }
    for k in &r.sinks {
        let _ = writeln!(
            s,
            "  sink {}: {} rows, max emission lag {}",
            k.table,
            k.rows,
            match k.max_emission_lag_ms {
                None => "-".to_string(),
                // Every window fired by the end of input, before it ended.
                Some(ms) if ms < 0 =>
                    "- (windows fired at the end of input, before their end)".into(),
                Some(ms) => display_duration(ms),
            }
        );
    }
    if r.stalls.is_empty() {
        let _ = writeln!(
            s,
            "  no stalls longer than {}",
            display_duration(r.replay.stall_threshold_ms)
        );
    }
    // Stalls of one sink held by one partition are grouped when they
    // repeat (a heartbeat partition stalls the job again and again).
    let holder = |st: &StallReport| {
        (
            st.sink.clone(),
            st.held_by
                .as_ref()
                .map(|h| (h.topic.clone(), h.partition, h.subtask)),
        )
    };
    let mut groups: Vec<(_, Vec<&StallReport>)> = Vec::new();
    for st in &r.stalls {
        let k = holder(st);
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, v)) => v.push(st),
            None => groups.push((k, vec![st])),
        }
    }
    let mut printed: Vec<usize> = Vec::new();
    for (i, st) in r.stalls.iter().enumerate() {
        let g = groups
            .iter()
            .position(|(k, _)| *k == holder(st))
            .unwrap_or_default();
        let group = &groups[g].1;
        if group.len() <= GROUP_STALLS_FROM {
            let _ = writeln!(
                s,
                "  stall {}: {} -> {} ({}), {} watermark stuck at {}: {}",
                i + 1,
                when(st.from_ts),
                when(st.to_ts),
                display_duration(st.duration_ms),
                st.sink,
                st.watermark.map_or("MIN".to_string(), when),
                st.reason
            );
            continue;
        }
        if printed.contains(&g) {
            continue;
        }
        printed.push(g);
        let longest = group
            .iter()
            .max_by_key(|st| st.duration_ms)
            .copied()
            .unwrap_or(st);
        let held = match &longest.held_by {
            Some(HeldBy {
                topic: Some(t),
                partition: Some(p),
                ..
            }) => format!("partition {p} of {t}"),
            Some(h) => format!("subtask {}", h.subtask),
            None => "no single input".to_string(),
        };
        let _ = writeln!(
            s,
            "  {} stalls of {} held by {held}, {} -> {}, longest {} (from {}): {}",
            group.len(),
            longest.sink,
            when(group[0].from_ts),
            when(group[group.len() - 1].to_ts),
            display_duration(longest.duration_ms),
            when(longest.from_ts),
            longest.reason
        );
    }
    for h in &r.recurring_holds {
        let to = h.to_ts.map_or("now".to_string(), when);
        let _ = writeln!(
            s,
            "  recurring hold: {} -> {}, {} watermark: {}",
            when(h.from_ts),
            to,
            h.sink,
            h.reason
        );
    }
    s
}

/// Stalls of one sink and holder are printed one by one up to this many,
/// and as one line beyond.
const GROUP_STALLS_FROM: usize = 3;
