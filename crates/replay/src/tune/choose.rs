//! The choice: the candidate that meets the emission-lag SLO and the bound
//! on dropped records, the change to make in the job file, and the trade in
//! words.

use lowwater_core::time::display_duration;
use lowwater_core::Millis;
use lowwater_sql::plan::JobPlan;
use serde::Serialize;

use super::{Candidate, CandidateResult, Delay};

/// The recommendation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Choice {
    /// The chosen candidate's index in the results (`None`: none meets both).
    pub candidate: Option<usize>,
    /// The trade in words ("idle-timeout 1 min: windows leave within ...").
    pub summary: String,
    /// What to change in the job file (empty when the job as written is chosen).
    pub change: Vec<Change>,
    /// When none meets both: which constraint binds, and the closest.
    pub binding: Option<String>,
    /// When another candidate is chosen but the job as written meets the
    /// limits too: that, with its trade.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_written: Option<String>,
}

/// One change to the job file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Where: `job` (a SET statement) or the table whose definition changes.
    pub place: String,
    /// The line to write.
    pub line: String,
}

/// Chooses among `results` for the SLO `slo` and the bound `max_late`
/// (`None` when neither is given). Among the candidates that meet both,
/// the one dropping the fewest records, then the one whose windows leave
/// soonest; ties go to the earlier candidate (the job as written first).
/// `span` is how long the dump lasted, for the words.
pub fn choose(
    results: &[CandidateResult],
    slo: Option<Millis>,
    max_late: Option<u64>,
    plan: &JobPlan,
    span: Millis,
) -> Option<Choice> {
    if slo.is_none() && max_late.is_none() {
        return None;
    }
    let lag_ok = |r: &CandidateResult| match (slo, r.worst_lag()) {
        (Some(s), Some(l)) => l <= s,
        _ => true,
    };
    // Late records routed to a late-data sink are late too (kept, but not
    // in their windows): they count against the bound.
    let late = |r: &CandidateResult| r.late_dropped + r.late_routed;
    let late_ok = |r: &CandidateResult| max_late.is_none_or(|m| late(r) <= m);
    // Fewest late, then soonest; `min_by_key` keeps the first of equals.
    let key = |r: &CandidateResult| (late(r), r.worst_lag().unwrap_or(0));
    let best = results
        .iter()
        .enumerate()
        .filter(|(_, r)| lag_ok(r) && late_ok(r))
        .min_by_key(|(_, r)| key(r));
    if let Some((i, r)) = best {
        // The job as written may meet the limits too, if not as well.
        let written = results
            .iter()
            .position(|r| r.candidate.as_written)
            .filter(|&w| w != i && lag_ok(&results[w]) && late_ok(&results[w]))
            .map(|w| {
                format!(
                    "the job as written already meets {} ({})",
                    constraints(slo, max_late),
                    trade(&results[w], plan, span)
                )
            });
        return Some(Choice {
            candidate: Some(i),
            summary: trade(r, plan, span),
            change: r.change.clone(),
            binding: None,
            as_written: written,
        });
    }
    let soonest = |rs: &mut dyn Iterator<Item = &CandidateResult>| {
        rs.min_by_key(|r| (r.worst_lag().unwrap_or(0), r.late_dropped))
            .cloned()
    };
    let fewest =
        |rs: &mut dyn Iterator<Item = &CandidateResult>| rs.min_by_key(|r| key(r)).cloned();
    let slo_text = slo.map(display_duration).unwrap_or_default();
    let late_text = max_late.map(records).unwrap_or_default();
    let mut why = Vec::new();
    match soonest(&mut results.iter().filter(|r| late_ok(r))) {
        Some(r) if max_late.is_some() => why.push(format!(
            "with at most {late_text} dropped, windows leave within {} at best ({}), over the {slo_text} SLO",
            lag_text(&r),
            label(&r.candidate, plan)
        )),
        _ if max_late.is_some() => why.push(format!(
            "every candidate drops more than {late_text}"
        )),
        _ => {}
    }
    match fewest(&mut results.iter().filter(|r| lag_ok(r))) {
        Some(r) if slo.is_some() => why.push(format!(
            "within the {slo_text} SLO, the fewest dropped is {} ({})",
            records(r.late_dropped),
            label(&r.candidate, plan)
        )),
        _ if slo.is_some() => why.push(format!(
            "no candidate's windows leave within {slo_text}: the soonest is {}",
            soonest(&mut results.iter())
                .map(|r| format!("{} ({})", lag_text(&r), label(&r.candidate, plan)))
                .unwrap_or_default()
        )),
        _ => {}
    }
    let binds = match (slo.is_some(), max_late.is_some()) {
        (true, true) => {
            if results.iter().any(lag_ok) && results.iter().any(late_ok) {
                "the SLO and the bound on dropped records cannot both be met".to_string()
            } else if results.iter().any(late_ok) {
                format!("the {slo_text} SLO binds")
            } else {
                format!("the bound of {late_text} dropped binds")
            }
        }
        (true, false) => format!("the {slo_text} SLO binds"),
        _ => format!("the bound of {late_text} dropped binds"),
    };
    Some(Choice {
        candidate: None,
        summary: format!("no candidate meets {}", constraints(slo, max_late)),
        change: Vec::new(),
        binding: Some(format!("{binds}: {}", why.join("; "))),
        as_written: None,
    })
}

fn constraints(slo: Option<Millis>, max_late: Option<u64>) -> String {
    let mut v = Vec::new();
    if let Some(s) = slo {
        v.push(format!("an emission lag within {}", display_duration(s)));
    }
    if let Some(m) = max_late {
        v.push(format!("at most {} late", records(m)));
    }
    v.join(" and ")
}

fn records(n: u64) -> String {
    if n == 1 {
        "1 record".into()
    } else {
        format!("{n} records")
    }
}

/// How late the windows left, in words.
fn lag_text(r: &CandidateResult) -> String {
    match r.worst_lag() {
        None => "no window".into(),
        Some(l) if r.sinks.iter().any(|s| s.open_wait_ms == Some(l)) => {
            format!(
                "{} or more (windows still held when the dump ends)",
                display_duration(l)
            )
        }
        Some(l) => display_duration(l),
    }
}

/// A candidate's name: "idle-timeout 1 min" and the delay when it is not
/// as written.
pub(super) fn label(c: &Candidate, plan: &JobPlan) -> String {
    let idle = match c.idle_timeout_ms {
        None => "idle-timeout disabled".to_string(),
        Some(t) => format!("idle-timeout {}", flink_duration(t)),
    };
    if delay_as_written(c, plan) {
        return idle;
    }
    format!("{idle}, watermark delay {}", delay_text(c))
}

/// A candidate's delay: the duration when it is one, else as asked.
pub(super) fn delay_text(c: &Candidate) -> String {
    let only = (c.delays.len() == 1).then(|| c.delays.values().next().copied());
    match (c.delay, only.flatten()) {
        (_, Some(d)) | (Delay::Fixed(d), None) => flink_duration(d),
        (Delay::Times(k), None) => format!("x{k}"),
        (Delay::AsWritten, None) => "as written".into(),
    }
}

/// Whether candidate `c`'s delays are the job's own.
pub(super) fn delay_as_written(c: &Candidate, plan: &JobPlan) -> bool {
    c.delays
        .iter()
        .all(|(t, d)| written_delay(plan, t) == Some(*d))
}

fn written_delay(plan: &JobPlan, table: &str) -> Option<Millis> {
    plan.table(table)
        .and_then(|t| plan.tables[t].watermark)
        .map(|w| w.delay)
}

/// The trade of candidate `r` in words.
fn trade(r: &CandidateResult, plan: &JobPlan, span: Millis) -> String {
    let lag = match r.worst_lag() {
        None => "no window left".to_string(),
        Some(_) => format!("windows leave within {}", lag_text(r)),
    };
    let one_source = r
        .late
        .iter()
        .all(|p| p.table == r.late[0].table && p.topic == r.late[0].topic);
    let name = |p: &super::PartitionLate| {
        if one_source {
            format!("partition {}", p.partition)
        } else {
            format!("{}/{}", p.topic, p.partition)
        }
    };
    let dropped: Vec<&super::PartitionLate> = r.late.iter().filter(|p| p.dropped > 0).collect();
    let mut late = match dropped.as_slice() {
        [] => "no record would have been dropped".to_string(),
        [p] => format!(
            "{} of {} would have been dropped",
            records(p.dropped),
            name(p)
        ),
        many => format!(
            "{} would have been dropped ({})",
            records(r.late_dropped),
            many.iter()
                .map(|p| format!("{}: {}", name(p), p.dropped))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    if r.late_routed > 0 {
        late.push_str(&format!(
            ", and {} late would have gone to the late-data sink instead of their windows",
            records(r.late_routed)
        ));
    }
    format!(
        "{}: {lag}; {late} over these {}",
        label(&r.candidate, plan),
        span_text(span)
    )
}

/// A dump's length in words: days when it is two or more.
fn span_text(span: Millis) -> String {
    const DAY: Millis = 86_400_000;
    if span >= 2 * DAY {
        format!("{} days", (span + DAY / 2) / DAY)
    } else {
        display_duration(span)
    }
}

/// A duration as a Flink option takes it: '1 min', '30 s', '2 h', '500 ms'.
pub fn flink_duration(ms: Millis) -> String {
    match ms {
        0 => "0 ms".into(),
        _ if ms % 3_600_000 == 0 => format!("{} h", ms / 3_600_000),
        _ if ms % 60_000 == 0 => format!("{} min", ms / 60_000),
        _ if ms % 1_000 == 0 => format!("{} s", ms / 1_000),
        _ => format!("{ms} ms"),
    }
}

/// A delay as a Flink SQL interval literal Flink accepts (at most two
/// digits before the point without a precision).
pub fn interval_sql(ms: Millis) -> String {
    if ms == 0 {
        return "INTERVAL '0' SECOND".into();
    }
    let units = [(3_600_000, "HOUR"), (60_000, "MINUTE"), (1_000, "SECOND")];
    for (size, unit) in units {
        if ms % size == 0 && ms / size <= 99 {
            return format!("INTERVAL '{}' {unit}", ms / size);
        }
    }
    let secs = if ms % 1_000 == 0 {
        format!("{}", ms / 1_000)
    } else {
        format!("{}.{:03}", ms / 1_000, ms % 1_000)
    };
    let digits = (ms / 1_000).max(1).to_string().len();
    if digits <= 2 {
        format!("INTERVAL '{secs}' SECOND")
    } else {
        format!("INTERVAL '{secs}' SECOND({digits})")
    }
}

/// The lines to change in the job file for candidate `c`.
pub(super) fn change(c: &Candidate, plan: &JobPlan) -> Vec<Change> {
    let mut out = Vec::new();
    let idle_text = flink_duration(c.idle_timeout_ms.unwrap_or(0));
    let mut set_line = false;
    // A temporal join's versioned tables take their own option (the
    // setting its stall names), not the job-wide one: as `plan_for` sets it.
    let own = super::per_table(plan, c);
    for (name, delay) in &c.delays {
        let Some(ti) = plan.table(name) else { continue };
        let t = &plan.tables[ti];
        let swept = c.idle_tables.iter().any(|n| n == name);
        if swept && t.idle_timeout != c.idle_timeout_ms {
            if own || t.options.contains_key("scan.watermark.idle-timeout") {
                out.push(Change {
                    place: format!("table {}", t.name),
                    line: format!("'scan.watermark.idle-timeout' = '{idle_text}'"),
                });
            } else {
                set_line = true;
            }
        }
        if let Some(w) = t.watermark.filter(|w| w.delay != *delay) {
            let col = &t.columns[w.column].name;
            out.push(Change {
                place: format!("table {}", t.name),
                line: format!("WATERMARK FOR {col} AS {col} - {}", interval_sql(*delay)),
            });
        }
    }
    if set_line {
        out.insert(
            0,
            Change {
                place: "job".into(),
                line: format!("SET 'table.exec.source.idle-timeout' = '{idle_text}';"),
            },
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_written_as_flink_reads_them() {
        assert_eq!(flink_duration(60_000), "1 min");
        assert_eq!(flink_duration(90_000), "90 s");
        assert_eq!(flink_duration(7_200_000), "2 h");
        assert_eq!(flink_duration(1_500), "1500 ms");
        assert_eq!(interval_sql(30_000), "INTERVAL '30' SECOND");
        assert_eq!(interval_sql(120_000), "INTERVAL '2' MINUTE");
        assert_eq!(interval_sql(150_000), "INTERVAL '150' SECOND(3)");
        assert_eq!(interval_sql(2_500), "INTERVAL '2.500' SECOND");
        assert_eq!(interval_sql(0), "INTERVAL '0' SECOND");
    }

    #[test]
    fn long_dumps_are_counted_in_days() {
        assert_eq!(span_text(21 * 86_400_000 + 3_000), "21 days");
        assert_eq!(span_text(3 * 3_600_000 + 600_000), "3h 10m");
    }
}
