//! `lowwater explain`: the plan in words, the partition -> subtask map, and
//! warnings about watermark configurations that are known to stall or drop
//! data, before the job runs.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use lowwater_core::assignment::split_owner;
use lowwater_core::time::display_duration;
use lowwater_core::window::aggregate::AggFunc;
use lowwater_core::window::assigner::WindowAssigner;

use crate::options::Connector;
use crate::plan::{ColumnSource, JobPlan, OutputKind, TableDef};

/// The largest partition count `explain` maps (Kafka topics have at most a
/// few thousand partitions; this keeps a typo from building a huge map).
pub const MAX_PARTITIONS: i32 = 100_000;

fn connector_text(t: &TableDef) -> String {
    match &t.connector {
        Connector::Kafka { topics, .. } => format!("kafka topic {}, json", topics.join(";")),
        Connector::Filesystem { path } => format!("filesystem {path}, json"),
        Connector::Print => "print".into(),
        Connector::Blackhole => "blackhole".into(),
    }
}

fn window_text(a: &WindowAssigner) -> String {
    let d = |m| display_duration(m);
    match *a {
        WindowAssigner::Tumbling { size, offset: 0 } => format!("TUMBLE {}", d(size)),
        WindowAssigner::Tumbling { size, offset } => {
            format!("TUMBLE {} offset {}", d(size), d(offset))
        }
        WindowAssigner::Hopping { size, slide, .. } => {
            format!("HOP size {} slide {}", d(size), d(slide))
        }
        WindowAssigner::Cumulate { step, max_size, .. } => {
            format!("CUMULATE step {} up to {}", d(step), d(max_size))
        }
        WindowAssigner::Session { gap } => format!("SESSION gap {}", d(gap)),
    }
}

fn agg_name(f: AggFunc) -> &'static str {
    match f {
        AggFunc::CountStar => "COUNT(*)",
        AggFunc::Count => "COUNT",
        AggFunc::CountDistinct => "COUNT(DISTINCT)",
        AggFunc::Sum => "SUM",
        AggFunc::Min => "MIN",
        AggFunc::Max => "MAX",
        AggFunc::Avg => "AVG",
    }
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
    let p = plan.settings.parallelism;
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
        let n = partitions.get(&t.name.to_ascii_lowercase()).copied();
        let total = n.map(|n| n.clamp(0, MAX_PARTITIONS) * t.topics().len() as i32);
        match (t.idle_timeout, total) {
            (None, Some(total)) if total > 1 => w.push(format!(
                "table {}: idle-timeout is disabled and it has {total} partitions: one partition without records holds every window (SET 'table.exec.source.idle-timeout' = '1 min', or 'scan.watermark.idle-timeout' on the table)",
                t.name
            )),
            (None, None) => w.push(format!(
                "table {}: idle-timeout is disabled: if it has more than one partition, one partition without records holds every window (SET 'table.exec.source.idle-timeout' = '1 min')",
                t.name
            )),
            (Some(timeout), _) if timeout < wm.delay => w.push(format!(
                "table {}: the idle-timeout ({}) is shorter than the watermark delay ({}): a partition can go idle while its records are still within the delay, and its next records are then late",
                t.name,
                display_duration(timeout),
                display_duration(wm.delay)
            )),
            _ => {}
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
    w
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
    for (k, v) in &st.inert {
        let _ = writeln!(s, "  note: SET '{k}' = '{v}' has no effect in lowwater yet");
    }
    let mut shown = Vec::new();
    for (i, pl) in plan.pipelines.iter().enumerate() {
        let t = &plan.tables[pl.source];
        if !shown.contains(&pl.source) {
            shown.push(pl.source);
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
                "  idle-timeout: {}",
                t.idle_timeout
                    .map_or("disabled".to_string(), display_duration)
            );
            if let Some(ls) = t.late_data_sink {
                let _ = writeln!(s, "  late rows go to: {}", plan.tables[ls].name);
            }
            match partitions.get(&t.name.to_ascii_lowercase()) {
                Some(&n) => {
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
        let sink = &plan.tables[pl.sink];
        let _ = writeln!(
            s,
            "\npipeline {} (line {}): INSERT INTO {} ({})",
            i + 1,
            pl.loc.line,
            sink.name,
            connector_text(sink)
        );
        let _ = writeln!(
            s,
            "  window: {} on {}",
            window_text(&pl.window.assigner),
            t.name
        );
        if pl.filter.is_some() {
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
    }
    let w = warnings(plan, partitions);
    let _ = writeln!(s, "\nwarnings:{}", if w.is_empty() { " none" } else { "" });
    for x in w {
        let _ = writeln!(s, "  - {x}");
    }
    s
}
