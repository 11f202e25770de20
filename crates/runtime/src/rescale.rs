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
//! - **Joins.** Each join key's waiting probe rows, versions, cached rows
//!   and timers go where the join routing now sends the key (a versioned
//!   view's deduplication with its view key, which routes alike); each
//!   port's valve starts over the regrouped source subtasks of its side.
//!   A window after a join starts its channels (the join's subtasks) at
//!   its restored watermark.
//!
//! Flink needs key groups (a fixed `max-parallelism` of hash ranges) for
//! this because its state backends keep a subtask's state in files split
//! by range, which a restore reads without looking at the keys. A lowwater
//! checkpoint is one file holding every key, so the keys are routed again
//! one by one: any parallelism restores, with no upper bound to choose in
//! advance, and the checkpoint format stays as it is.

use std::collections::BTreeMap;

use lowwater_core::assignment::split_owner;
use lowwater_core::source::{SourceSubtask, SplitId};
use lowwater_core::watermark::valve::ChannelValve;
use lowwater_core::window::operator::WindowOperator;
use lowwater_sql::plan::JobPlan;

use crate::checkpoint::JoinPart;
use crate::checkpoint::{JobSnapshot, SourcePart, WindowPart};
use crate::source::exchange::Route;

/// Regroups `snapshot`, taken at another parallelism, into the job's. An
/// error says why it cannot, in words.
pub(crate) fn rescale(snapshot: &mut JobSnapshot, plan: &JobPlan) -> Result<(), String> {
    let p = plan.settings.parallelism;
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
    let subs_of = |snapshot: &JobSnapshot, t: usize| -> Result<Vec<SourceSubtask>, String> {
        let si = tables.iter().position(|&x| x == t);
        let parts = si.and_then(|si| snapshot.sources.get(si)).ok_or_else(|| {
            format!(
                "table {} is not a source of the checkpoint (a bug in lowwater)",
                plan.tables[t].name
            )
        })?;
        Ok(parts.iter().map(|s| s.sub.clone()).collect())
    };
    for (pi, pl) in plan.pipelines.iter().enumerate() {
        let Some(parts) = snapshot.windows.get(pi) else {
            continue;
        };
        let output = parts.iter().map(|w| w.valve.watermark()).min();
        let output = output.unwrap_or(lowwater_core::MIN_WATERMARK);
        let valve = if pl.reads_join() {
            // Its channels are the join's subtasks, at the join's output.
            let active = lowwater_core::watermark::WatermarkStatus::Active;
            ChannelValve::restored(&vec![(output, active); p], output)
        } else {
            SourceSubtask::valve_over(&subs_of(snapshot, pl.first().source)?, output)
        };
        // Moved, not copied: an INSERT's state may be millions of keys.
        let parts = std::mem::take(&mut snapshot.windows[pi]);
        snapshot.windows[pi] = windows(parts, pl, p, &valve)?;
    }
    for (j, which) in crate::joins::joins(plan).into_iter().enumerate() {
        let Some(parts) = snapshot.joins.get_mut(j) else {
            continue;
        };
        let parts = std::mem::take(parts);
        let sides = which.sides(plan);
        let subs = [
            subs_of(snapshot, sides.first.0)?,
            subs_of(snapshot, sides.second.0)?,
        ];
        snapshot.joins[j] = joins(plan, which, parts, p, &subs)?;
    }
    Ok(())
}

/// One join's parts regrouped into `p` subtasks: each key's state where
/// the join routing now sends the key, each port's valve over the
/// regrouped source subtasks of its side (`subs`).
fn joins(
    plan: &JobPlan,
    which: crate::joins::JoinRef,
    parts: Vec<JoinPart>,
    p: usize,
    subs: &[Vec<SourceSubtask>; 2],
) -> Result<Vec<JoinPart>, String> {
    use crate::checkpoint::JoinState;
    use crate::joins::JoinRef;
    use lowwater_core::join::interval_node::IntervalJoinState;
    use lowwater_core::join::node::TemporalJoinState;
    let valve = |port: usize, out: lowwater_core::Timestamp| {
        SourceSubtask::valve_over(subs.get(port).map_or(&[][..], Vec::as_slice), out)
    };
    let (mut late, mut filtered, mut unmatched) = (BTreeMap::new(), 0, 0);
    let (mut temporal, mut interval) = (Vec::new(), Vec::new());
    for part in parts {
        for (split, n) in part.late {
            *late.entry(split).or_insert(0) += n;
        }
        filtered += part.filtered;
        unmatched += part.unmatched;
        match part.state {
            JoinState::Temporal(s) => temporal.push(s),
            JoinState::Interval(s) => interval.push(s),
        }
    }
    let states: Vec<JoinState> = match which {
        JoinRef::Temporal(t) => {
            let jp = &plan.joins[t];
            let positions = jp.route_positions();
            let route = |key: &[lowwater_core::Value]| match &positions {
                Some(ps) => lowwater_core::route::positions_subtask(key, ps, p),
                None => lowwater_core::route::key_subtask(key, p),
            };
            // A view's last rowtimes move by their view key; an upsert
            // table's last rows carry their join key and move by `route`.
            let order = match &jp.view {
                Some(v) => Some(jp.dedup_route_order().ok_or_else(|| {
                    format!(
                        "the view {v} deduplicates by columns that do not make its join key, so \
                         its state cannot move between subtasks: SET 'parallelism.default' back \
                         to the checkpoint's, or start without state with --reset-state"
                    )
                })?),
                None => None,
            };
            let dedup_route = |view_key: &[lowwater_core::Value]| {
                let values: Vec<&lowwater_core::Value> = order
                    .iter()
                    .flatten()
                    .filter_map(|&i| view_key.get(i))
                    .collect();
                lowwater_core::route::key_subtask_of_refs(&values, p)
            };
            TemporalJoinState::regroup(temporal, p, &route, &dedup_route, &valve)
                .into_iter()
                .map(JoinState::Temporal)
                .collect()
        }
        JoinRef::Interval(_) => {
            let route = |key: &[lowwater_core::Value]| lowwater_core::route::key_subtask(key, p);
            IntervalJoinState::regroup(interval, p, &route, &valve)
                .into_iter()
                .map(JoinState::Interval)
                .collect()
        }
    };
    Ok(states
        .into_iter()
        .enumerate()
        .map(|(s, state)| JoinPart {
            state,
            // The job's totals, counted once.
            late: if s == 0 {
                std::mem::take(&mut late)
            } else {
                BTreeMap::new()
            },
            filtered: if s == 0 { filtered } else { 0 },
            unmatched: if s == 0 { unmatched } else { 0 },
        })
        .collect())
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
    valve: &ChannelValve,
) -> Result<Vec<WindowPart>, String> {
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
