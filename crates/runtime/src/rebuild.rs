//! `--rebuild-open-windows` (issue 34): a checkpoint whose window state
//! does not fit the changed job (a new aggregate, another key, another
//! WHERE, another window) still gives it every window, none twice.
//!
//! Each checkpoint records, per Kafka partition, the first offset a window
//! still open at the checkpoint needs (`SourcePart::rebuild_from`, from the
//! source's `CommitTracker`), and the event time from which every record is
//! at or after it (`SourcePart::covers`). A rebuild
//! - reads each partition again from that offset, with new watermark
//!   generators and the changed job's window operators, empty;
//! - takes the windows that ended at or below the checkpoint's watermark as
//!   written by the old job: a record read again that only falls in such
//!   windows is skipped (counted, said at the end), and the operators start
//!   at that watermark (`crate::written`, the mechanism of a restart
//!   without checkpoints);
//! - so it writes every window of the changed job that ends after the
//!   checkpoint's watermark, from all of its records.
//!
//! It refuses, saying why, what it cannot rebuild whole: session windows
//! (a session has no bounded end, so no record is ever released), joins
//! and cascading windows (not tracked yet), sources other than Kafka, a
//! checkpoint written by a lowwater without these offsets, windows of the
//! changed job that reach back before the records the checkpoint can give
//! again, and records retention deleted meanwhile.

use std::collections::BTreeMap;

use lowwater_core::checkpoint::CheckpointId;
use lowwater_core::source::SourceSubtask;
use lowwater_core::time::{display_duration, format_timestamp};
use lowwater_core::{Timestamp, MIN_WATERMARK};
use lowwater_sql::options::Connector;
use lowwater_sql::plan::JobPlan;

use crate::checkpoint::{JobSnapshot, SourcePart};
use crate::written::Written;

/// A checkpoint turned into the start of a rebuild: the snapshot to
/// restore (positions at the rebuild offsets, fresh sources, no window
/// state) and, per source table, what the old job wrote.
pub(crate) struct Rebuild {
    pub snapshot: JobSnapshot,
    pub written: BTreeMap<usize, Written>,
    /// Records read again (the rebuild's cost), over every partition.
    pub reread: i64,
}

/// The rebuild of checkpoint `id` for `plan`, or why it cannot be.
pub(crate) fn rebuild(
    plan: &JobPlan,
    old: &JobSnapshot,
    id: CheckpointId,
) -> Result<Rebuild, String> {
    let refuse = |why: String| Err(format!("--rebuild-open-windows: {why}"));
    if !old.joins.is_empty() || !crate::joins::joins(plan).is_empty() {
        return refuse("a job with a join cannot rebuild its open windows yet".into());
    }
    if plan.pipelines.iter().any(|pl| pl.input.is_some())
        || old
            .identity
            .parts()
            .any(|(_, v)| v.contains("; over window "))
    {
        return refuse("cascading window aggregations cannot be rebuilt yet".into());
    }
    let tables = plan.source_tables();
    for &t in &tables {
        let table = &plan.tables[t];
        if !matches!(table.connector, Connector::Kafka { .. }) {
            return refuse(format!(
                "table {} is not read from Kafka; only Kafka partitions can be read again from \
                 an offset",
                table.name
            ));
        }
        if crate::written::release_after(plan, t).is_none() {
            return refuse(format!(
                "a session window reads table {}: a session can grow without end, so no record \
                 is ever known to be done with",
                table.name
            ));
        }
    }
    // The old job's watermark per source table: the lowest of its INSERTs
    // reading it (every window at or below it was written).
    let mut floors: BTreeMap<String, Timestamp> = BTreeMap::new();
    for (pi, parts) in old.windows.iter().enumerate() {
        let head = format!("INSERT {} INTO ", pi + 1);
        let from = old.identity.parts().find_map(|(name, value)| {
            name.starts_with(&head).then_some(())?;
            Some(value.strip_prefix("FROM ")?.split(';').next()?.to_string())
        });
        let wm = parts.iter().map(|w| w.op.watermark()).min();
        if let (Some(table), Some(wm)) = (from, wm) {
            let f = floors.entry(table).or_insert(wm);
            *f = (*f).min(wm);
        }
    }
    let names: Vec<&str> = tables
        .iter()
        .map(|&t| plan.tables[t].name.as_str())
        .collect();
    let mut written = BTreeMap::new();
    let mut positions = BTreeMap::new();
    // Per source, the event time from which the rebuild reads every record
    // again: carried into the rebuilt job's checkpoints as a bound.
    let mut covered = BTreeMap::new();
    let mut reread = 0;
    for (si, parts) in old.sources.iter().enumerate() {
        let Some(&t) = tables.get(si) else {
            return refuse("the checkpoint has more source tables than the job".into());
        };
        let name = names[si];
        let floor = floors.get(name).copied().unwrap_or(MIN_WATERMARK);
        let mut read_to = BTreeMap::new();
        let mut covers = MIN_WATERMARK;
        for part in parts {
            if part.covers.is_none() && part.positions.iter().any(|(_, p)| p.is_some()) {
                return refuse(format!(
                    "checkpoint {id} holds no rebuild offsets for table {name} (it was written \
                     by a lowwater older than this feature, or its job read the table with a \
                     session window)"
                ));
            }
            covers = covers.max(part.covers.unwrap_or(MIN_WATERMARK));
            let from: BTreeMap<_, _> = part.rebuild_from.iter().copied().collect();
            for &(sid, pos) in &part.positions {
                let Some(pos) = pos else {
                    continue;
                };
                let key = old.splits.get(sid as usize).ok_or_else(|| {
                    format!("--rebuild-open-windows: split {sid} is not in checkpoint {id}")
                })?;
                read_to.insert((key.topic.clone(), key.partition), pos);
                let at = from.get(&sid).copied().unwrap_or(pos).min(pos);
                reread += pos - at;
                positions.insert(sid, at);
            }
        }
        for pl in plan.pipelines.iter().filter(|pl| pl.reads_table(t)) {
            let longest = pl.window.assigner.max_size();
            // The earliest window of the changed job that ends after the
            // floor starts at floor + 2 - longest; its records must all be
            // read again.
            let reaches = floor.saturating_add(2).saturating_sub(longest);
            if floor > MIN_WATERMARK && reaches < covers {
                return refuse(format!(
                    "the windows of INSERT INTO {} ({} long) that end after the checkpoint's \
                     watermark {} begin before {}, the earliest event time checkpoint {id} can \
                     read again for table {name}: rebuilding would write them without their \
                     first records. Start without state with --reset-state, or keep windows \
                     no longer than {}",
                    plan.tables[pl.sink].name,
                    display_duration(longest),
                    format_timestamp(floor, ' '),
                    format_timestamp(covers, ' '),
                    display_duration(floor.saturating_add(2).saturating_sub(covers))
                ));
            }
        }
        written.insert(t, Written { floor, read_to });
        covered.insert(si, covers);
    }
    let snapshot = JobSnapshot {
        identity: crate::identity::identity(plan),
        taken_at: old.taken_at,
        splits: old.splits.clone(),
        sources: fresh_sources(plan, old, &positions, &covered)?,
        windows: plan.pipelines.iter().map(|_| Vec::new()).collect(),
        joins: Vec::new(),
    };
    Ok(Rebuild {
        snapshot,
        written,
        reread,
    })
}

/// The source parts a rebuild starts from: each split at its rebuild
/// offset, in a subtask with new watermark generators (the records read
/// again must not be late to the old ones), at the job's parallelism.
fn fresh_sources(
    plan: &JobPlan,
    old: &JobSnapshot,
    positions: &BTreeMap<u32, i64>,
    covered: &BTreeMap<usize, Timestamp>,
) -> Result<Vec<Vec<SourcePart>>, String> {
    let p = plan.settings.parallelism;
    let mut out = Vec::new();
    for (si, &t) in plan.source_tables().iter().enumerate() {
        let table = &plan.tables[t];
        let strategy = table
            .strategy(&plan.settings)
            .ok_or_else(|| format!("table {} has no watermark", table.name))?;
        let mut parts = Vec::with_capacity(p);
        for _ in 0..p {
            parts.push(SourcePart::fresh(
                SourceSubtask::new(strategy).map_err(|e| e.to_string())?,
                covered.get(&si).copied(),
            ));
        }
        let ids = old
            .sources
            .get(si)
            .into_iter()
            .flatten()
            .flat_map(|part| &part.positions);
        for &(sid, _) in ids {
            let Some(key) = old.splits.get(sid as usize) else {
                continue;
            };
            let s = lowwater_core::assignment::split_owner(&key.topic, key.partition, p)
                .map_err(|e| e.to_string())?;
            parts[s].sub.add_split(sid).map_err(|e| e.to_string())?;
            parts[s].positions.push((sid, positions.get(&sid).copied()));
        }
        out.push(parts);
    }
    Ok(out)
}

/// Refuses a rebuild that would read again records retention deleted:
/// names each partition and how many records are gone.
pub(crate) fn check_retention(plan: &JobPlan, snapshot: &JobSnapshot) -> Result<(), String> {
    let positions = snapshot.positions();
    for &t in &plan.source_tables() {
        let table = &plan.tables[t];
        let Connector::Kafka { properties, .. } = &table.connector else {
            continue;
        };
        let wanted: Vec<((String, i32), i64)> = positions
            .iter()
            .filter(|(k, _)| k.table == table.name)
            .map(|(k, &o)| ((k.topic.clone(), k.partition), o))
            .collect();
        let parts: Vec<(String, i32)> = wanted.iter().map(|(k, _)| k.clone()).collect();
        let first = lowwater_kafka::first_offsets(properties, &parts)
            .map_err(|e| format!("--rebuild-open-windows: table {}: {e}", table.name))?;
        let mut gone = Vec::new();
        for ((topic, p), o) in &wanted {
            let Some(&(low, high)) = first.get(&(topic.clone(), *p)) else {
                continue;
            };
            if *o > high {
                return Err(format!(
                    "--rebuild-open-windows: partition {topic}/{p} ends at offset {high}, before \
                     the checkpoint's {o}: the topic was recreated, and its records cannot be \
                     read again"
                ));
            }
            if low > *o {
                gone.push(format!(
                    "{topic}/{p}: {} records ({o} to {})",
                    low - o,
                    low - 1
                ));
            }
        }
        if !gone.is_empty() {
            return Err(format!(
                "--rebuild-open-windows: records the open windows need were deleted by retention \
                 (table {}): {}. The windows open at the checkpoint cannot be rebuilt whole; \
                 start without state with --reset-state (they are dropped)",
                table.name,
                gone.join(", ")
            ));
        }
    }
    Ok(())
}
