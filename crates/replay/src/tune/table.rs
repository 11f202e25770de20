//! `lowwater tune`'s table, as text.

use std::fmt::Write as _;

use lowwater_core::time::{display_duration, format_timestamp};
use lowwater_core::Millis;
use lowwater_sql::plan::JobPlan;

use super::choose::{delay_as_written, delay_text, flink_duration};
use super::{CandidateResult, Tuned};

/// The candidates as a table, then the choice.
pub fn render(t: &Tuned, plan: &JobPlan) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} records from {} to {} ({}), {} candidates, each replayed without draining at the end",
        t.records,
        format_timestamp(t.start_ts, ' '),
        format_timestamp(t.end_ts, ' '),
        display_duration(t.end_ts - t.start_ts),
        t.candidates.len()
    );
    let _ = writeln!(
        out,
        "lag: emission time minus window end; '>=' marks windows still held when the dump ends (their wait so far)\n"
    );
    let sinks: Vec<String> = t
        .candidates
        .first()
        .map(|c| c.sinks.iter().map(|s| s.table.clone()).collect())
        .unwrap_or_default();
    let prefix = |s: &str| {
        if sinks.len() > 1 {
            format!("{s} ")
        } else {
            String::new()
        }
    };
    let mut head = vec![" ".to_string(), "idle-timeout".into(), "delay".into()];
    for s in &sinks {
        head.push(format!("{}windows", prefix(s)));
        head.push(format!("{}max lag", prefix(s)));
        head.push(format!("{}p99 lag", prefix(s)));
    }
    for h in ["stalls", "longest", "held by", "late dropped"] {
        head.push(h.into());
    }
    // Late records a late-data sink takes: a column when there are any.
    let routed = t.candidates.iter().any(|r| r.late_routed > 0);
    if routed {
        head.push("late routed".into());
    }
    let chosen = t.choice.as_ref().and_then(|c| c.candidate);
    let mut rows = vec![head];
    for (i, r) in t.candidates.iter().enumerate() {
        let mut cells = row(r, chosen == Some(i), plan);
        if routed {
            cells.push(r.late_routed.to_string());
        }
        rows.push(cells);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            let _ = write!(line, "{cell:<w$}  ", w = widths[c]);
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out.push('\n');
    match &t.choice {
        None => {
            let _ = writeln!(
                out,
                "give --max-emission-lag (the SLO) and/or --max-late N for a recommendation"
            );
        }
        Some(c) => {
            if let Some(slo) = t.max_emission_lag_ms {
                let from = t.slo_from.as_deref().unwrap_or("--max-emission-lag");
                let _ = writeln!(
                    out,
                    "SLO: windows leave within {} ({from})",
                    display_duration(slo)
                );
            }
            if let Some(m) = t.max_late {
                let _ = writeln!(
                    out,
                    "bound: at most {m} late records (dropped, or routed to a late-data sink)"
                );
            }
            let head = if c.candidate.is_some() {
                "recommended"
            } else {
                "none"
            };
            let _ = writeln!(out, "{head}: {}", c.summary);
            if let Some(b) = &c.binding {
                let _ = writeln!(out, "why: {b}");
            }
            if let Some(w) = &c.as_written {
                let _ = writeln!(out, "note: {w}");
            }
            if c.candidate.is_some() && c.change.is_empty() {
                let _ = writeln!(out, "change: none (the job as written)");
            }
            for ch in &c.change {
                let _ = writeln!(out, "change ({}): {}", ch.place, ch.line);
            }
        }
    }
    out
}

fn lag(ms: Option<Millis>) -> String {
    ms.map_or("-".into(), display_duration)
}

fn row(r: &CandidateResult, chosen: bool, plan: &JobPlan) -> Vec<String> {
    let c = &r.candidate;
    let mut v = vec![if chosen { "*" } else { " " }.to_string()];
    let idle = c
        .idle_timeout_ms
        .map_or("disabled".to_string(), flink_duration);
    v.push(idle);
    let delay = delay_text(c);
    v.push(if delay_as_written(c, plan) && c.delays.len() == 1 {
        format!("{delay} (as written)")
    } else {
        delay
    });
    for s in &r.sinks {
        v.push(s.windows_emitted.to_string());
        let open = s
            .open_wait_ms
            .filter(|w| s.max_emission_lag_ms.is_none_or(|m| *w > m));
        v.push(match open {
            Some(w) => format!(">= {}", display_duration(w)),
            None => lag(s.max_emission_lag_ms),
        });
        v.push(lag(s.p99_emission_lag_ms));
    }
    v.push(r.stalls.count.to_string());
    v.push(lag(r.stalls.longest_ms));
    v.push(r.stalls.held_by.clone().unwrap_or_else(|| "-".into()));
    let parts: Vec<String> = r
        .late
        .iter()
        .filter(|p| p.dropped > 0)
        .map(|p| format!("p{}: {}", p.partition, p.dropped))
        .collect();
    v.push(match parts.len() {
        0 => r.late_dropped.to_string(),
        1..=3 => format!("{} ({})", r.late_dropped, parts.join(", ")),
        n => format!(
            "{} ({}, and {} more)",
            r.late_dropped,
            parts[..3].join(", "),
            n - 3
        ),
    });
    v
}
