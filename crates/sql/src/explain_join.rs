//! `explain` for an INSERT over an event-time temporal join: what it
//! joins, on which key, when a joined row is written, and what holds it.

use std::fmt::Write as _;

use lowwater_core::time::display_duration;

use crate::expr::Expr;
use crate::plan::JobPlan;

/// The section of temporal join `ji`.
pub(crate) fn join_text(s: &mut String, plan: &JobPlan, ji: usize) {
    let j = &plan.joins[ji];
    let probe = &plan.tables[j.probe];
    let build = &plan.tables[j.build];
    let sink = &plan.tables[j.sink];
    let _ = match j.into {
        Some(pi) => writeln!(
            s,
            "\ntemporal join {} (line {}): its rows feed the window aggregation of pipeline {} \
             (INSERT INTO {})",
            ji + 1,
            j.loc.line,
            pi + 1,
            sink.name
        ),
        None => writeln!(
            s,
            "\ntemporal join {} (line {}): INSERT INTO {}",
            ji + 1,
            j.loc.line,
            sink.name
        ),
    };
    let rowtime = probe
        .watermark
        .map_or("?".to_string(), |w| probe.columns[w.column].name.clone());
    let versions = match &j.view {
        Some(v) => format!(
            "view {v}: the last row per key of {} on its rowtime (older rows that arrive after \
             a newer one are dropped, as Flink's deduplication does)",
            build.name
        ),
        None if j.normalize => format!(
            "upsert table {} (its PRIMARY KEY, from the record key; the job reads a metadata \
             column of it, so its changelog is normalized as Flink's ChangelogNormalize does: a \
             record equal to its key's last is dropped, a tombstone deletes the key's last \
             version from that version's time on)",
            build.name
        ),
        None if build.upsert() => format!(
            "upsert table {} (its PRIMARY KEY, from the record key; the job reads no metadata \
             column of it, so Flink's planner removes its ChangelogNormalize: each record is a \
             version at its own rowtime, and a tombstone, whose rowtime read from the value is \
             NULL, deletes nothing: skipped and counted, as Flink's join ignores it)",
            build.name
        ),
        None => format!("table {} (its PRIMARY KEY)", build.name),
    };
    let _ = writeln!(
        s,
        "  {} JOIN: each row of {} joins the version valid at its {rowtime} of {versions}",
        if j.left { "LEFT" } else { "INNER" },
        probe.name
    );
    let names = |exprs: &[Expr], cols: &[String]| -> Vec<String> {
        exprs
            .iter()
            .enumerate()
            .map(|(i, e)| match e {
                Expr::Column(c) => cols[*c].clone(),
                _ => format!("expression {}", i + 1),
            })
            .collect()
    };
    let probe_cols: Vec<String> = probe.columns.iter().map(|c| c.name.clone()).collect();
    let build_cols: Vec<String> = j.build_names.iter().map(|c| c.0.clone()).collect();
    let pairs: Vec<String> = names(&j.probe_key, &probe_cols)
        .into_iter()
        .zip(names(&j.build_key, &build_cols))
        .map(|(p, b)| format!("{}.{p} = {b}", probe.name))
        .collect();
    let _ = writeln!(
        s,
        "  key: {}{}",
        pairs.join(" AND "),
        if j.residual.is_some() {
            "; the rest of ON decides between the version and NULLs (LEFT) or no row (INNER)"
        } else {
            ""
        }
    );
    let idle = |t: &crate::plan::TableDef| {
        t.idle_timeout.map_or("no idle-timeout".to_string(), |d| {
            format!("idle-timeout {}", display_duration(d))
        })
    };
    let _ = writeln!(
        s,
        "  written: when the watermark of both {} ({}) and {} ({}) passes a row's time; until \
         then the row waits in state. A partition of either without records holds it; a row \
         whose time is already passed is joined at the next watermark (Flink 2.3 keeps it)",
        probe.name,
        idle(probe),
        build.name,
        idle(build)
    );
    let outs: Vec<&str> = j.outputs.iter().map(|o| o.name.as_str()).collect();
    let _ = writeln!(
        s,
        "  outputs: {}{}",
        outs.join(", "),
        if j.filter.is_some() {
            " (WHERE over the joined row)"
        } else {
            ""
        }
    );
}
