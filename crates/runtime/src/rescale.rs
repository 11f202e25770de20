//! A restore at another parallelism (issue 34): the checkpoint's parts,
//! one per subtask at the parallelism it was taken at, regrouped into the
//! job's subtasks before any task is built, so that the rest of the restore
//! is the one at the same parallelism.
//!
//! - **Sources.** Each split goes, with its watermark generator, idleness,
//!   counts and read position, to the subtask the enumerator's rule gives
//!   it at the new parallelism (`split_owner`, Flink's Kafka assignment);
//!   each subtask's watermark is what its splits combine to.
//! - **Window aggregations.** Each open (window, key) state, session and
//!   fired flag goes to the subtask the key exchange sends that key to at
//!   the new parallelism (`Route`: the key's hash, a Top-N partition's, or
//!   the first subtask for a global aggregate), so a key's later records
//!   meet its state. The watermark stays the checkpoint's; each window
//!   subtask's valve starts over the new source subtasks at their
//!   regrouped watermarks.
//!
//! Flink needs key groups (a fixed `max-parallelism` of hash ranges) for
//! this because its state backends keep a subtask's state in files split
//! by range, which a restore reads without looking at the keys. A lowwater
//! checkpoint is one file holding every key, so the keys are routed again
//! one by one: any parallelism restores, with no upper bound to choose in
//! advance, and the checkpoint format stays as it is.
//!
//! Join state is not regrouped yet: a job with a join restores only at the
//! parallelism its checkpoint was taken at, and says so.

use std::collections::BTreeMap;

use lowwater_core::assignment::split_owner;
use lowwater_core::source::{SourceSubtask, SplitId};
use lowwater_core::window::operator::WindowOperator;
use lowwater_sql::plan::JobPlan;

use crate::checkpoint::{JobSnapshot, SourcePart, WindowPart};
use crate::exchange::Route;

/// Regroups `snapshot`, taken at parallelism `from`, into the job's
/// parallelism. An error says why it cannot (a join), in words.
pub(crate) fn rescale(
    snapshot: &mut JobSnapshot,
    plan: &JobPlan,
    from: &str,
) -> Result<(), String> {
    let p = plan.settings.parallelism;
    if !snapshot.joins.is_empty() || !crate::join_task::joins(plan).is_empty() {
        return Err(format!(
            "the checkpoint was taken at parallelism {from} and this job runs at {p}, but it \
             has a join, whose state lowwater does not move between subtasks yet: SET \
             'parallelism.default' = '{from}' to restore it, or start without state with \
             --reset-state"
        ));
    }
    let mut owners = Vec::with_capacity(snapshot.splits.len());
    for s in &snapshot.splits {
        owners.push(split_owner(&s.topic, s.partition, p).map_err(|e| e.to_string())?);
    }
    let owner = |id: SplitId| owners.get(id as usize).copied().unwrap_or(0);
    let mut regrouped = Vec::with_capacity(snapshot.sources.len());
    for parts in std::mem::take(&mut snapshot.sources) {
        regrouped.push(sources(parts, p, owner)?);
    }
    snapshot.sources = regrouped;
    let tables = plan.source_tables();
    for (pi, pl) in plan.pipelines.iter().enumerate() {
        let Some(parts) = snapshot.windows.get_mut(pi) else {
            continue;
        };
        let si = tables.iter().position(|&t| t == pl.first().source);
        let Some(subtasks) = si.and_then(|si| snapshot.sources.get(si)) else {
            return Err(format!(
                "INSERT {} reads no source of the checkpoint (a bug in lowwater)",
                pi + 1
            ));
        };
        let subs: Vec<SourceSubtask> = subtasks.iter().map(|s| s.sub.clone()).collect();
        *parts = windows(std::mem::take(parts), pl, p, &subs)?;
    }
    Ok(())
}

/// One source table's parts regrouped into `p` subtasks.
fn sources(
    parts: Vec<SourcePart>,
    p: usize,
    owner: impl Fn(SplitId) -> usize,
) -> Result<Vec<SourcePart>, String> {
    let (mut positions, mut skipped, mut nulled) =
        (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    let (mut rebuild, mut covers) = (BTreeMap::new(), None);
    let (mut records, mut filtered) = (0, 0);
    let mut subs = Vec::with_capacity(parts.len());
    for part in parts {
        positions.extend(part.positions);
        skipped.extend(part.skipped);
        nulled.extend(part.nulled);
        rebuild.extend(part.rebuild_from);
        // Every part's bound holds for the splits regrouped together.
        covers = match (covers, part.covers) {
            (Some(a), Some(b)) => Some(std::cmp::max::<lowwater_core::Timestamp>(a, b)),
            (a, b) => a.or(b),
        };
        records += part.records;
        filtered += part.filtered;
        subs.push(part.sub);
    }
    let subs = SourceSubtask::regroup(subs, p, owner).map_err(|e| e.to_string())?;
    Ok(subs
        .into_iter()
        .enumerate()
        .map(|(s, sub)| {
            let ids: Vec<SplitId> = sub.splits().map(|v| v.id).collect();
            let mine = |m: &BTreeMap<SplitId, u64>| {
                ids.iter()
                    .filter_map(|id| Some((*id, *m.get(id)?)))
                    .collect()
            };
            SourcePart {
                positions: ids
                    .iter()
                    .map(|id| (*id, positions.get(id).copied().flatten()))
                    .collect(),
                // The table's totals, counted once.
                records: if s == 0 { records } else { 0 },
                filtered: if s == 0 { filtered } else { 0 },
                skipped: mine(&skipped),
                nulled: mine(&nulled),
                rebuild_from: mine_i64(&rebuild, &ids),
                covers,
                sub,
            }
        })
        .collect())
}

/// One INSERT's window parts regrouped into `p` subtasks, each key's state
/// where the exchange now sends the key; `subs` are the regrouped source
/// subtasks its valves read.
fn windows(
    parts: Vec<WindowPart>,
    pl: &lowwater_sql::plan::Pipeline,
    p: usize,
    subs: &[SourceSubtask],
) -> Result<Vec<WindowPart>, String> {
    let output = parts.iter().map(|w| w.valve.watermark()).min();
    let output = output.unwrap_or(lowwater_core::MIN_WATERMARK);
    let stages = pl.stages();
    let mut ops = Vec::with_capacity(parts.len());
    let mut chains: Vec<Vec<WindowOperator>> = stages.iter().skip(1).map(|_| Vec::new()).collect();
    for part in parts {
        ops.push(part.op);
        for (c, op) in part.chain.into_iter().enumerate() {
            if let Some(chain) = chains.get_mut(c) {
                chain.push(op);
            }
        }
    }
    let regroup = |ops: Vec<WindowOperator>, stage: &lowwater_sql::plan::Pipeline| {
        let route = Route::of(stage, p);
        WindowOperator::regroup(ops, p, |key| route.subtask(key, p)).map_err(|e| e.to_string())
    };
    let mut firsts = regroup(ops, stages[0])?.into_iter();
    let mut chained = Vec::with_capacity(chains.len());
    for (c, ops) in chains.into_iter().enumerate() {
        chained.push(regroup(ops, stages[c + 1])?.into_iter());
    }
    let valve = SourceSubtask::valve_over(subs, output);
    let mut out = Vec::with_capacity(p);
    for _ in 0..p {
        let Some(op) = firsts.next() else {
            break;
        };
        out.push(WindowPart {
            valve: valve.clone(),
            op,
            chain: chained.iter_mut().filter_map(Iterator::next).collect(),
        });
    }
    Ok(out)
}

/// The entries of `m` for splits `ids`.
fn mine_i64(m: &BTreeMap<SplitId, i64>, ids: &[SplitId]) -> Vec<(SplitId, i64)> {
    ids.iter()
        .filter_map(|id| Some((*id, *m.get(id)?)))
        .collect()
}
