//! `lowwater explain`: the plan in words, the partition -> subtask map, and
//! warnings about watermark configurations that are known to stall or drop
//! data, before the job runs.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use lowwater_core::assignment::split_owner;
use lowwater_core::time::display_duration;
use lowwater_core::Millis;

pub use crate::advice::idle_advice;
use crate::expr::Expr;
use crate::functions::Func;
use crate::options::Connector;
use crate::plan::{agg_name, ColumnSource, JobPlan, OutputKind, TableDef};
pub use crate::stall::{StallContext, StallHolder};
pub use crate::windows::window_pace;
use crate::windows::window_text;

/// The largest partition count `explain` maps (Kafka topics have at most a
/// few thousand partitions; this keeps a typo from building a huge map).
pub const MAX_PARTITIONS: i32 = 100_000;

fn format_name(t: &TableDef) -> String {
    match &t.value_format {
        // The URL is shown without credentials (they are options of their own).
        crate::formats::ValueFormat::AvroConfluent(r) => {
            format!("avro-confluent (registry {})", r.url)
        }
        f => f.name().to_string(),
    }
}

fn connector_text(t: &TableDef) -> String {
    match &t.connector {
        Connector::Kafka {
            topics, properties, ..
        } => {
            // As librdkafka gets them (translated from Flink's Java names),
            // secrets masked.
            let props: Vec<String> = properties
                .iter()
                .map(|(k, v)| format!("{k}={}", crate::kafka_props::mask(k, v)))
                .collect();
            // The record key's columns, when the table has them.
            let key = t.key.as_ref().map_or(String::new(), |k| {
                let cols: Vec<&str> = k
                    .fields
                    .iter()
                    .filter_map(|&c| t.columns.get(c).map(|c| c.name.as_str()))
                    .collect();
                format!(
                    "; key: {} ({}{}{})",
                    cols.join(", "),
                    t.options.get("key.format").map_or("?", String::as_str),
                    if k.prefix.is_empty() {
                        String::new()
                    } else {
                        format!(", prefix '{}'", k.prefix)
                    },
                    if k.except_key {
                        ", not in the value"
                    } else {
                        ""
                    }
                )
            });
            let kind = match t.upsert() {
                true => "upsert-kafka topic (versions by key, from the earliest offset)",
                false => "kafka topic",
            };
            format!(
                "{kind} {}, {}; {}{key}",
                topics.join(";"),
                format_name(t),
                props.join(", ")
            )
        }
        Connector::Filesystem { path } => format!("filesystem {path}, {}", format_name(t)),
        Connector::Print => "print".into(),
        Connector::Blackhole => "blackhole".into(),
        Connector::Datagen(d) => format!(
            "datagen, {} rows/s over {} partition(s){}",
            d.rows_per_second,
            d.partitions,
            d.number_of_rows
                .map_or(String::new(), |n| format!(", {n} rows"))
        ),
        Connector::Jdbc(j) => {
            let mode = match &t.primary_key {
                Some(pk) => format!(
                    "upsert on ({})",
                    pk.iter()
                        .map(|&c| t.columns[c].name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => "append (no PRIMARY KEY)".into(),
            };
            let flush = match (j.max_rows, j.flush_interval) {
                (0, None) => "flushed at checkpoints and the end".to_string(),
                (0, Some(i)) => format!("flushed every {}", display_duration(i)),
                (n, None) => format!("flushed every {n} rows"),
                (n, Some(i)) => format!("flushed every {n} rows or {}", display_duration(i)),
            };
            format!(
                "jdbc: PostgreSQL table {} on {}, {mode}, {flush}",
                j.qualified(),
                j.server()
            )
        }
    }
}

/// The name of a function call, for the feature list.
fn func_name(f: &Func) -> &'static str {
    use crate::temporal::TimeFn;
    match f {
        Func::Upper => "UPPER",
        Func::Lower => "LOWER",
        Func::CharLength => "CHAR_LENGTH",
        Func::Concat => "CONCAT",
        Func::ConcatWs => "CONCAT_WS",
        Func::Substring => "SUBSTRING",
        Func::Trim(..) => "TRIM",
        Func::Coalesce(_) => "COALESCE",
        Func::If(_) => "IF",
        Func::NullIf => "NULLIF",
        Func::Abs => "ABS",
        Func::Power => "POWER",
        Func::FloatText => "CAST",
        Func::Mod(_) => "MOD",
        Func::Case(..) => "CASE",
        Func::Like(..) => "LIKE",
        Func::In(_) => "IN",
        Func::Between(_) => "BETWEEN",
        Func::DistinctFrom(_) => "IS DISTINCT FROM",
        Func::Time(TimeFn::Extract(_)) => "EXTRACT",
        Func::Time(TimeFn::Floor(_)) => "FLOOR(ts TO unit)",
        Func::Time(TimeFn::Ceil(_)) => "CEIL(ts TO unit)",
        Func::Time(TimeFn::Format(_)) => "DATE_FORMAT",
        Func::Round(crate::numeric::Round::Half) => "ROUND",
        Func::Round(crate::numeric::Round::Floor) => "FLOOR",
        Func::Round(crate::numeric::Round::Ceil) => "CEIL",
        Func::Regex(crate::regex_fns::RegexFn::Matches(_)) => "REGEXP",
        Func::Regex(crate::regex_fns::RegexFn::Extract(_)) => "REGEXP_EXTRACT",
        Func::Regex(crate::regex_fns::RegexFn::Replace(_)) => "REGEXP_REPLACE",
        Func::Try => "TRY_CAST",
        Func::Json(crate::json_fns::JsonFn::Value(..)) => "JSON_VALUE",
        Func::Json(crate::json_fns::JsonFn::Exists(_)) => "JSON_EXISTS",
        Func::Json(crate::json_fns::JsonFn::Query(_)) => "JSON_QUERY",
        Func::Date(crate::dates::DateFn::FromPattern(_) | crate::dates::DateFn::ToDate) => {
            "TO_DATE"
        }
        Func::Date(_) => "CAST (DATE)",
        Func::DecArith(..) => "DECIMAL arithmetic",
    }
}

fn calls(e: &Expr, out: &mut Vec<&'static str>) {
    let mut push = |n: &'static str| {
        if !out.contains(&n) {
            out.push(n);
        }
    };
    match e {
        Expr::Call(f, args) => {
            push(func_name(f));
            for a in args {
                calls(a, out);
            }
        }
        Expr::Cast(a, _) => {
            push("CAST");
            calls(a, out);
        }
        Expr::ToTimestampLtz(a, _) => {
            push("TO_TIMESTAMP_LTZ");
            calls(a, out);
        }
        Expr::ToTimestamp(a) => {
            push("TO_TIMESTAMP");
            calls(a, out);
        }
        Expr::Compare(_, a, b) | Expr::Arith(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            calls(a, out);
            calls(b, out);
        }
        Expr::Narrow(a, _) | Expr::Not(a) | Expr::Neg(a) | Expr::IsNull(a, _) => calls(a, out),
        Expr::Column(_) | Expr::Literal(_) => {}
    }
}

/// The constructs an INSERT uses, in words: what `explain` lists as the
/// job's supported features.
pub fn features(plan: &JobPlan, pl: &crate::plan::Pipeline) -> Vec<String> {
    let mut f = vec![window_text(&pl.window.assigner)];
    if pl.project {
        f.push("rows tagged with their windows (no GROUP BY)".into());
    } else {
        f.push(format!("GROUP BY {} key(s)", pl.keys.len()));
        let mut aggs: Vec<&str> = pl
            .window
            .aggregates
            .iter()
            .map(|a| agg_name(a.func))
            .collect();
        aggs.dedup();
        if !aggs.is_empty() {
            f.push(format!("aggregates {}", aggs.join(" ")));
        }
    }
    if pl.input.is_some() {
        f.push(format!(
            "cascading window aggregation ({} levels)",
            pl.stages().len()
        ));
    }
    if pl.filter.is_some() {
        f.push("WHERE".into());
    }
    if pl.having.is_some() {
        f.push("HAVING".into());
    }
    if let Some(r) = &pl.rank {
        f.push(format!(
            "Window Top-N ({} rank partition key(s))",
            r.partition.len()
        ));
    }
    if pl.window.late_side_output {
        f.push("late rows to a table".into());
    }
    let src = &plan.tables[pl.source];
    if src.columns.iter().any(|c| !c.path.is_empty()) {
        f.push("ROW fields".into());
    }
    let mut names = Vec::new();
    let exprs = pl
        .filter
        .iter()
        .chain(&pl.keys)
        .chain(&pl.agg_args)
        .chain(&pl.having)
        .chain(pl.outputs.iter().filter_map(|o| match &o.kind {
            OutputKind::Expr(e) => Some(e),
            _ => None,
        }));
    for e in exprs {
        calls(e, &mut names);
    }
    if !names.is_empty() {
        f.push(format!("functions {}", names.join(", ")));
    }
    f
}

/// Subtasks of `t`'s partitions at `parallelism`: subtask -> [(topic, partition)].
pub fn partition_map(
    t: &TableDef,
    partitions: i32,
    parallelism: usize,
) -> BTreeMap<usize, Vec<(String, i32)>> {
    let mut map: BTreeMap<usize, Vec<(String, i32)>> =
        (0..parallelism).map(|s| (s, Vec::new())).collect();
    for topic in t.topics() {
        for p in 0..partitions {
            if let Ok(s) = split_owner(&topic, p, parallelism) {
                map.entry(s).or_default().push((topic.clone(), p));
            }
        }
    }
    map
}

/// Warnings about risky watermark configurations. `partitions` gives the
/// partition count of source tables when known.
pub fn warnings(plan: &JobPlan, partitions: &BTreeMap<String, i32>) -> Vec<String> {
    let mut w = Vec::new();
    let mut seen = Vec::new();
    for pl in &plan.pipelines {
        let t = &plan.tables[pl.source];
        let Some(wm) = t.watermark else { continue };
        if plan.settings.emit_interval <= 0 && !seen.contains(&usize::MAX) {
            seen.push(usize::MAX);
            w.push("pipeline.auto-watermark-interval is 0: watermarks only advance at the end of input, no window fires while the job runs".to_string());
        }
        let size = pl.window.assigner.max_size();
        if size < wm.delay {
            w.push(format!(
                "INSERT INTO {}: the window ({}) is shorter than the watermark delay of {} ({}): every window closes at least one delay after it ends",
                plan.tables[pl.sink].name,
                display_duration(size),
                t.name,
                display_duration(wm.delay)
            ));
        }
        if seen.contains(&pl.source) {
            continue;
        }
        seen.push(pl.source);
        table_warnings(&mut w, plan, pl.source, partitions);
    }
    for j in &plan.intervals {
        for t in [j.left, j.right] {
            if !seen.contains(&t) {
                seen.push(t);
                table_warnings(&mut w, plan, t, partitions);
            }
        }
    }
    for (ji, j) in plan.joins.iter().enumerate() {
        for t in [j.probe, j.build] {
            if plan.settings.emit_interval <= 0 && !seen.contains(&usize::MAX) {
                seen.push(usize::MAX);
                w.push("pipeline.auto-watermark-interval is 0: watermarks only advance at the end of input, no joined row is written while the job runs".to_string());
            }
            if !seen.contains(&t) {
                seen.push(t);
                table_warnings(&mut w, plan, t, partitions);
            }
        }
        let b = &plan.tables[j.build];
        if b.upsert() && !j.normalize {
            let rowtime = b
                .watermark
                .map_or("?", |w| b.columns[w.column].name.as_str());
            w.push(format!(
                "temporal join {} (INSERT INTO {}): tombstones of the upsert table {} delete nothing: the job reads no metadata column of it, so Flink's planner removes its changelog normalization, and its rowtime {rowtime} is read from the record value, which a tombstone has none of (Flink's join then ignores the delete; lowwater counts each such tombstone as skipped); declare `{rowtime} TIMESTAMP(3) METADATA FROM 'timestamp'` (or read any metadata column of it) for a tombstone to delete its key's last version",
                ji + 1,
                plan.tables[j.sink].name,
                b.name
            ));
        }
        if b.idle_timeout.is_none() {
            w.push(format!(
                "temporal join {} (INSERT INTO {}): its versioned table {} has no idle-timeout: a partition of {} that gets no record (versions that change once a day, a compacted topic with fewer keys than partitions) holds every joined row while the probe rows wait in state; set 'scan.watermark.idle-timeout' on {} (the trade: a probe row may be joined before a late version of its time arrives)",
                ji + 1,
                plan.tables[j.sink].name,
                b.name,
                b.name,
                b.name
            ));
        }
    }
    w
}

/// The warnings about one source table's partitions and idleness.
fn table_warnings(
    w: &mut Vec<String>,
    plan: &JobPlan,
    source: usize,
    partitions: &BTreeMap<String, i32>,
) {
    let t = &plan.tables[source];
    let p = plan.settings.parallelism;
    let Some(wm) = t.watermark else { return };
    let n = partition_count(t, partitions);
    let total = n.map(|n| n.clamp(0, MAX_PARTITIONS) * t.topics().len() as i32);
    // A quarter of the fastest windows reading it, as a stall's advice
    // chooses before it has seen the partition's gaps.
    let pace = plan
        .pipelines
        .iter()
        .filter(|p| p.first().source == source)
        .map(|p| window_pace(&p.first().window.assigner))
        .min();
    let timeout = pace.map_or("'1 min'".to_string(), crate::advice::timeout_for_window);
    let why = pace.map_or(String::new(), |p| {
        format!(" (a quarter of its {} windows)", display_duration(p))
    });
    match (t.idle_timeout, total) {
        (None, Some(total)) if total > 1 => w.push(format!(
            "table {}: idle-timeout is disabled and it has {total} partitions: one partition without records holds every window (SET 'table.exec.source.idle-timeout' = {timeout}{why}, or 'scan.watermark.idle-timeout' on the table; `lowwater tune` measures the choice on a dump: how late windows leave, what is dropped)",
            t.name
        )),
        (None, None) => w.push(format!(
            "table {}: idle-timeout is disabled: if it has more than one partition, one partition without records holds every window (SET 'table.exec.source.idle-timeout' = {timeout}{why}; `lowwater tune` measures the choice on a dump)",
            t.name
        )),
        (Some(timeout), _) if timeout < wm.delay => w.push(format!(
            "table {}: the idle-timeout ({}) is shorter than the watermark delay ({}): a partition can go idle while its records are still within the delay, and its next records are then late (`lowwater tune` counts them on a dump)",
            t.name,
            display_duration(timeout),
            display_duration(wm.delay)
        )),
        _ => {}
    }
    if t.idle_timeout.is_some()
        && !t.caught_up
        && matches!(t.connector, crate::options::Connector::Kafka { .. })
    {
        w.push(format!(
            "table {}: a partition that is behind (catching up after a restart, throttled by a quota) \
             can go idle while the broker still has its records, which are then late; \
             'scan.watermark.idle-mode' = 'caught-up' keeps it active until it is read up to the end",
            t.name
        ));
    }
    if let Some(total) = total {
        if (p as i32) > total {
            let empty: Vec<String> = partition_map(t, n.unwrap_or(0), p)
                .into_iter()
                .filter(|(_, ps)| ps.is_empty())
                .map(|(s, _)| s.to_string())
                .collect();
            w.push(format!(
                "table {}: parallelism {p} is greater than its {total} partitions: subtasks {} read nothing{}",
                t.name,
                empty.join(", "),
                if t.idle_timeout.is_none() {
                    " and hold the watermark at MIN because idle-timeout is disabled"
                } else {
                    " and go idle after the idle-timeout"
                }
            ));
        }
    }
}

/// A table's partitions per topic: as `--partitions` says, else a datagen
/// table's own `lowwater.partitions`.
fn partition_count(t: &TableDef, partitions: &BTreeMap<String, i32>) -> Option<i32> {
    partitions
        .get(&t.name.to_ascii_lowercase())
        .copied()
        .or(match &t.connector {
            Connector::Datagen(d) => Some(d.partitions),
            _ => None,
        })
}

/// The description of source table `source`: columns, watermark,
/// idleness, and which subtask reads which partition.
fn source_text(s: &mut String, plan: &JobPlan, source: usize, partitions: &BTreeMap<String, i32>) {
    let t = &plan.tables[source];
    let st = &plan.settings;
    let _ = writeln!(s, "\nsource {} ({})", t.name, connector_text(t));
    let cols: Vec<String> = t
        .columns
        .iter()
        .map(|c| {
            let kind = match &c.source {
                ColumnSource::Physical => "",
                ColumnSource::Metadata(_) => " METADATA",
                ColumnSource::Computed(_) => " computed",
            };
            format!("{} {}{kind}", c.name, c.ty.name())
        })
        .collect();
    let _ = writeln!(s, "  columns: {}", cols.join(", "));
    if let Some(wm) = t.watermark {
        let _ = writeln!(
            s,
            "  watermark: {} - {} per split (SQL form: last row's value, no -1 ms), min over active partitions",
            t.columns[wm.column].name,
            display_duration(wm.delay)
        );
    }
    let _ = writeln!(
        s,
        "  idle-timeout: {}{}",
        t.idle_timeout
            .map_or("disabled".to_string(), display_duration),
        if t.caught_up {
            " (idle-mode caught-up: only once read up to the broker's end offset)"
        } else {
            ""
        }
    );
    if let Some(ls) = t.late_data_sink {
        let _ = writeln!(s, "  late rows go to: {}", plan.tables[ls].name);
    }
    if let Some(a) = &t.alignment {
        let _ = writeln!(
            s,
            "  watermark alignment: group '{}', a partition more than {} ahead of the \
             group's slowest is paused (taken again every {})",
            a.group,
            display_duration(a.max_drift),
            display_duration(a.update_interval)
        );
    }
    match t.max_future {
        Some(m) => {
            let _ = writeln!(
                s,
                "  future-timestamp guard: records more than {} ahead of their arrival \
                 are kept out of the watermark and the windows",
                display_duration(m)
            );
        }
        None if matches!(t.connector, Connector::Kafka { .. }) => {
            let _ = writeln!(
                s,
                "  future-timestamp guard: off; one record from a producer whose clock is \
                 wrong moves the watermark past every later record \
                 ('lowwater.watermark.max-future' = '10 min' keeps it out)"
            );
        }
        None => {}
    }
    match partition_count(t, partitions) {
        Some(n) => {
            let _ = writeln!(
                s,
                "  partitions -> subtasks ({n} per topic, parallelism {}):",
                st.parallelism
            );
            for (sub, ps) in partition_map(t, n, st.parallelism) {
                let list: Vec<String> =
                    ps.iter().map(|(topic, p)| format!("{topic}/{p}")).collect();
                let _ = writeln!(
                    s,
                    "    subtask {sub}: {}",
                    if list.is_empty() {
                        "(none)".to_string()
                    } else {
                        list.join(", ")
                    }
                );
            }
        }
        None => {
            let _ = writeln!(
                s,
                "  partitions -> subtasks: pass --partitions {}=N to see the map",
                t.name
            );
        }
    }
}

/// The whole explanation.
pub fn explain(plan: &JobPlan, partitions: &BTreeMap<String, i32>) -> String {
    let mut s = String::new();
    let st = &plan.settings;
    let _ = writeln!(
        s,
        "settings: parallelism {}, watermark interval {}, idle-timeout {}",
        st.parallelism,
        display_duration(st.emit_interval),
        st.idle_timeout
            .map_or("disabled".to_string(), display_duration)
    );
    if let Some(note) = st.ignored_note() {
        let _ = writeln!(s, "  note: {note}");
    }
    let _ = writeln!(s, "{}", checkpoints_line(plan));
    let mut shown = Vec::new();
    for (i, pl) in plan.pipelines.iter().enumerate() {
        let t = &plan.tables[pl.source];
        let joined = pl.first().join.is_some() || pl.first().interval.is_some();
        if !shown.contains(&pl.source) && !joined {
            shown.push(pl.source);
            source_text(&mut s, plan, pl.source, partitions);
        }
        let sink = &plan.tables[pl.sink];
        let _ = writeln!(
            s,
            "\npipeline {} (line {}): INSERT INTO {} ({})",
            i + 1,
            pl.loc.line,
            sink.name,
            connector_text(sink)
        );
        let slo: Vec<String> = [
            ("max emission lag", sink.max_emission_lag),
            ("max staleness", sink.max_staleness),
        ]
        .into_iter()
        .filter_map(|(what, v)| Some(format!("{what} {}", display_duration(v?))))
        .collect();
        if !slo.is_empty() {
            let _ = writeln!(
                s,
                "  sink SLOs: {} (a WARN, /healthz and lowwater_sink_* metrics when missed)",
                slo.join(", ")
            );
        }
        let _ = writeln!(
            s,
            "  window: {} on {}",
            window_text(&pl.window.assigner),
            match (pl.input.is_some(), pl.first().join, pl.first().interval) {
                (true, _, _) => "the rows of the window aggregation below".to_string(),
                (false, Some(ji), _) => format!("the rows of temporal join {} (below)", ji + 1),
                (false, None, Some(ii)) => format!("the rows of interval join {} (below)", ii + 1),
                (false, None, None) => t.name.clone(),
            }
        );
        // Cascading windows: the aggregations whose rows this one reads.
        let stages = pl.stages();
        for (k, up) in stages[..stages.len() - 1].iter().enumerate().rev() {
            let names: Vec<&str> = up.outputs.iter().map(|o| o.name.as_str()).collect();
            let _ = writeln!(
                s,
                "  {}reads the rows of: {} on {}, {} key(s){} -> ({})",
                "  ".repeat(stages.len() - 2 - k),
                window_text(&up.window.assigner),
                if k == 0 {
                    t.name.as_str()
                } else {
                    "the rows before"
                },
                up.keys.len(),
                if up.filter.is_some() { ", WHERE" } else { "" },
                names.join(", ")
            );
        }
        if pl.first().filter.is_some() {
            let _ = writeln!(
                s,
                "  filter: WHERE clause (evaluated after the watermark is generated)"
            );
        }
        let outs: Vec<String> = pl
            .outputs
            .iter()
            .map(|o| match o.kind {
                OutputKind::Agg(a) => {
                    format!("{} = {}", o.name, agg_name(pl.window.aggregates[a].func))
                }
                _ => o.name.clone(),
            })
            .collect();
        let _ = writeln!(s, "  keys: {}; outputs: {}", pl.keys.len(), outs.join(", "));
        let _ = writeln!(s, "  features: {}", features(plan, pl).join(", "));
    }
    for (ji, j) in plan.joins.iter().enumerate() {
        for t in [j.probe, j.build] {
            if !shown.contains(&t) {
                shown.push(t);
                source_text(&mut s, plan, t, partitions);
            }
        }
        crate::explain_join::join_text(&mut s, plan, ji);
    }
    for j in &plan.intervals {
        for t in [j.left, j.right] {
            if !shown.contains(&t) {
                shown.push(t);
                source_text(&mut s, plan, t, partitions);
            }
        }
    }
    let graph = crate::plan::graph::Graph::of(plan);
    let _ = writeln!(
        s,
        "\ndataflow (operators, their input ports and how records reach them):\n{}",
        graph.text(plan).trim_end()
    );
    let w = warnings(plan, partitions);
    let _ = writeln!(s, "\nwarnings:{}", if w.is_empty() { " none" } else { "" });
    for x in w {
        let _ = writeln!(s, "  - {x}");
    }
    if !plan.flink_notes.is_empty() {
        let _ = writeln!(s, "\nFlink 2.3 would refuse (lowwater runs it):");
        for n in &plan.flink_notes {
            let _ = writeln!(s, "  - {n}");
        }
    }
    s
}

/// The one-line explanation of a stall of pipeline `pi`, the same in replay
/// reports and live warnings. `partitions` is the source's partition count.
/// A holder that had records within the threshold is not silent: its event
/// time trails the others.
pub fn stall_reason(
    plan: &JobPlan,
    pi: usize,
    h: Option<&StallHolder<'_>>,
    partitions: usize,
    threshold: Millis,
) -> String {
    stall_reason_in(&StallContext::of(plan, pi), h, partitions, threshold)
}

/// [`stall_reason`] for a job described by its [`StallContext`].
pub fn stall_reason_in(
    cx: &StallContext,
    h: Option<&StallHolder<'_>>,
    partitions: usize,
    threshold: Millis,
) -> String {
    let setting = if cx.own_idle_option {
        format!("'scan.watermark.idle-timeout' on table {}", cx.source)
    } else {
        "SET 'table.exec.source.idle-timeout'".to_string()
    };
    if cx.emit_interval <= 0 {
        return "pipeline.auto-watermark-interval is 0, so watermarks only move at the end of input; \
                remove it or SET 'pipeline.auto-watermark-interval' = '200 ms'"
            .to_string();
    }
    let Some(h) = h else {
        return "the watermark did not advance while records arrived, and no single input holds it \
                (all inputs idle)"
            .to_string();
    };
    let (Some(topic), Some(partition)) = (h.topic, h.partition) else {
        let n = partitions;
        return match cx.idle_timeout {
            None => format!(
                "subtask {} of {} reads no partition (parallelism {} > {n} partitions) and holds \
                 the watermark at MIN because idle-timeout is disabled; SET 'parallelism.default' \
                 = '{n}' or {setting} = '1 min' releases it",
                h.subtask, cx.source, cx.parallelism
            ),
            Some(t) => format!(
                "subtask {} of {} reads no partition (parallelism {} > {n} partitions) and holds \
                 the watermark at MIN until it goes idle after the idle-timeout of {}; SET \
                 'parallelism.default' = '{n}' removes the wait",
                h.subtask,
                cx.source,
                cx.parallelism,
                display_duration(t)
            ),
        };
    };
    let what = format!("partition {partition} of {topic} (subtask {})", h.subtask);
    if !h.never_had_record && h.silent_ms <= threshold {
        return format!(
            "{what} keeps receiving records (the last {} ago) but its event time trails the other \
             partitions: its producer is behind or its data is old; the job waits for it (watermark \
             alignment or a separate topic keeps one slow producer from holding every window)",
            display_duration(h.silent_ms)
        );
    }
    let (advice, why) = idle_advice(cx, h);
    match cx.idle_timeout {
        None if h.never_had_record => format!(
            "{what} has had no record since the job started and idle-timeout is disabled, so it holds \
             the watermark at MIN; {setting} = {advice} releases it ({why})"
        ),
        None => format!(
            "{what} has had no record for {} and idle-timeout is disabled; {setting} = {advice} \
             releases it ({why})",
            h.silence()
        ),
        Some(t) if h.silent_ms <= t => format!(
            "{what} gets a record at least every {} (last one {} ago), more often than the \
             idle-timeout of {}, so it never goes idle while its event time trails the others; \
             lower the idle-timeout below its record interval or give that producer its own topic",
            display_duration(h.silent_ms),
            display_duration(h.silent_ms),
            display_duration(t)
        ),
        Some(_) if cx.caught_up => format!(
            "{what} has had no record for {} but under scan.watermark.idle-mode 'caught-up' it \
             goes idle only once its reader has read up to the broker's end offset: it is behind \
             (or its end offset is not known yet), so its records exist but are not arriving; \
             check this partition's consumer lag and the brokers",
            h.silence()
        ),
        Some(t) => format!(
            "{what} has had no record for {} but is not idle yet (idle-timeout {}); it goes idle \
             on the next periodic watermark",
            h.silence(),
            display_duration(t)
        ),
    }
}

/// One line on checkpoints: the interval, where they go, which sinks
/// commit with them, or what a restart does without them.
fn checkpoints_line(plan: &JobPlan) -> String {
    let c = &plan.settings.checkpoints;
    let Some(interval) = c.interval else {
        return "checkpoints: off (a restart loses the open windows; Kafka offsets are committed \
                only behind the windows written)"
            .to_string();
    };
    let exactly: Vec<&str> = plan
        .tables
        .iter()
        .filter(|t| t.exactly_once())
        .map(|t| t.name.as_str())
        .collect();
    let sinks = if exactly.is_empty() {
        "sinks at least once".to_string()
    } else {
        format!("exactly-once sinks: {}", exactly.join(", "))
    };
    format!(
        "checkpoints: every {} into {}, newest {} kept; {sinks}",
        display_duration(interval),
        c.dir.as_deref().unwrap_or("-"),
        c.retained
    )
}
