//! What a source subtask sends to the window subtasks of each INSERT
//! reading it: records keyed to their subtask in batches, watermarks and
//! statuses to all, and rows for the late-data sink.

use std::sync::mpsc::SyncSender;

use lowwater_connectors::row::RecordError;
use lowwater_core::source::SplitId;
use lowwater_core::watermark::Progress;
use lowwater_core::window::batch::InputBatch;
use lowwater_core::{Row, Timestamp, Value};
use lowwater_sql::expr::truth;
use lowwater_sql::plan::graph::{window_distribution, Distribution};
use lowwater_sql::plan::{JobPlan, LateRow};

use super::SourceTask;
use crate::envelope::{Envelope, Msg};
use crate::error::RunError;

/// What `run` cannot run yet of a plan that replay runs: cascading window
/// aggregations whose later aggregation needs records of other subtasks
/// (other keys, at a parallelism above 1), and, over Kafka without
/// checkpoints, any cascade (a restart would lose the open windows of the
/// aggregations after the first: offsets are committed as the first one's
/// windows fire); a join over Kafka (not read from a dump: `dumped`)
/// without checkpoints.
pub(crate) fn refuse_unsupported(
    plan: &JobPlan,
    dumped: &std::collections::BTreeSet<usize>,
) -> Result<(), String> {
    let p = plan.settings.parallelism;
    for which in crate::joins::joins(plan) {
        let (kind, line) = match which {
            crate::joins::JoinRef::Temporal(j) => ("temporal", plan.joins[j].loc.line),
            crate::joins::JoinRef::Interval(j) => ("interval", plan.intervals[j].loc.line),
        };
        let sides = which.sides(plan);
        let at = format!("INSERT INTO {} (line {line})", plan.tables[sides.sink].name);
        let kafka = [sides.first.0, sides.second.0].into_iter().find(|&t| {
            !dumped.contains(&t)
                && matches!(
                    plan.tables[t].connector,
                    lowwater_sql::options::Connector::Kafka { .. }
                )
        });
        if let (Some(t), None) = (kafka, plan.settings.checkpoints.interval) {
            return Err(format!(
                "{at}: an event-time {kind} join over Kafka (table {}) keeps the rows it waits \
                 with in checkpoints: without them a restart would lose them, or read their \
                 records twice. SET 'execution.checkpointing.interval' = '10 s' and \
                 'execution.checkpointing.dir'",
                plan.tables[t].name
            ));
        }
    }
    for pl in plan.pipelines.iter().filter(|pl| pl.input.is_some()) {
        let sink = &plan.tables[pl.sink].name;
        let at = format!("INSERT INTO {sink} (line {})", pl.loc.line);
        let stages = pl.stages();
        for pair in stages.windows(2) {
            let d = lowwater_sql::plan::graph::chain_distribution(pair[0], pair[1]);
            if p > 1 && d != Distribution::Forward {
                return Err(format!(
                    "{at}: this cascading window aggregation groups by other keys than the \
                     aggregation it reads, so its rows would move between subtasks, which \
                     `lowwater run` does not do yet at a parallelism above 1: group by the \
                     same keys in the same order, or SET 'parallelism.default' = '1' (`lowwater \
                     replay` runs it at any parallelism)"
                ));
            }
        }
        let kafka = matches!(
            plan.tables[pl.source].connector,
            lowwater_sql::options::Connector::Kafka { .. }
        );
        if kafka && plan.settings.checkpoints.interval.is_none() {
            return Err(format!(
                "{at}: cascading window aggregations over Kafka keep their state in checkpoints: \
                 without them a restart would lose the open windows of the aggregations after \
                 the first (offsets are committed as the first one's windows fire). SET \
                 'execution.checkpointing.interval' = '10 s' and 'execution.checkpointing.dir'"
            ));
        }
    }
    Ok(())
}

/// One pipeline reading this source: its exchange.
pub(crate) struct PipeOut {
    pub(crate) pipeline: usize,
    pub(crate) senders: Vec<SyncSender<Envelope>>,
    pub(crate) batches: Vec<InputBatch>,
    pub(crate) late: Option<LateRow>,
    /// The record being routed: its key and aggregate arguments (moved
    /// into a batch, their capacity kept).
    key: Vec<Value>,
    args: Vec<Value>,
    /// Key and argument values per record: a new batch's room.
    widths: (usize, usize),
    /// Which window subtask a record goes to (the plan graph's
    /// distribution of the edge into the window operator).
    route: Route,
    /// Per key, whether the last INSERT reading the row moves it out of
    /// the row ([`lowwater_sql::plan::Pipeline::movable_keys`]); `None`
    /// when no key may move.
    moves: Option<Vec<bool>>,
}

/// How a record's window subtask is chosen (and, on a restore at another
/// parallelism, which subtask a key's state goes to: `crate::rescale`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    /// Always the first (one subtask, a global aggregate or Top-N).
    First,
    /// A hash of the whole key.
    Key,
    /// A hash of these key positions (a Top-N partition's).
    Positions(Vec<usize>),
}

impl Route {
    pub(crate) fn of(pl: &lowwater_sql::plan::Pipeline, subtasks: usize) -> Route {
        match window_distribution(pl) {
            _ if subtasks == 1 => Route::First,
            Distribution::Single | Distribution::Forward => Route::First,
            Distribution::Hash(keys) if keys.iter().copied().eq(0..pl.keys.len()) => Route::Key,
            Distribution::Hash(keys) => Route::Positions(keys),
        }
    }

    /// The subtask (of `n`) of a record or state with group key `key`. A
    /// slice and a vector of references to the same values hash alike: a
    /// key's subtask is the same either way.
    pub(crate) fn subtask(&self, key: &[Value], n: usize) -> usize {
        match self {
            Route::First => 0,
            Route::Key => lowwater_core::route::key_subtask(key, n),
            Route::Positions(ps) => lowwater_core::route::positions_subtask(key, ps, n),
        }
    }
}

impl PipeOut {
    pub fn new(plan: &JobPlan, pipeline: usize, senders: Vec<SyncSender<Envelope>>) -> Self {
        // The aggregation reading the records (the first of cascading windows).
        let pl = plan.pipelines[pipeline].first();
        // Late rows need the source columns of the late-data sink; they
        // travel after the aggregate arguments, which aggregates ignore.
        let late = plan.late_row(pl.source);
        let carried = late.as_ref().map(|l| l.columns()).unwrap_or_default();
        let moves =
            Some(pl.movable_keys(&plan.tables[pl.source], &carried)).filter(|m| m.contains(&true));
        PipeOut {
            route: Route::of(pl, senders.len()),
            moves,
            pipeline,
            batches: senders.iter().map(|_| InputBatch::default()).collect(),
            senders,
            late,
            key: Vec::new(),
            args: Vec::new(),
            widths: (pl.keys.len(), pl.agg_args.len()),
        }
    }
}

impl SourceTask {
    pub(crate) fn route(
        &mut self,
        k: usize,
        id: SplitId,
        ts: Timestamp,
        row: &mut Row,
    ) -> Result<(), RecordError> {
        let pl = self.plan.pipelines[self.outs[k].pipeline].first();
        if let Some(f) = &pl.filter {
            let keep = truth(
                &f.eval(row)
                    .map_err(|m| RecordError::other(format!("WHERE: {m}")))?,
            );
            if keep != Some(true) {
                self.unpublished.1 += 1;
                self.filtered_count += 1;
                return Ok(());
            }
        }
        let last = k + 1 == self.outs.len();
        let out = &mut self.outs[k];
        let n = out.senders.len() as u64;
        // The window subtask, when the key does not choose it: one
        // subtask, a global aggregate, or a global Top-N (a rank
        // partition's rows fire in one subtask).
        let fixed = out.route == Route::First;
        // The record's key, then its aggregate arguments and the columns
        // its late row needs (which aggregates ignore).
        let late = &out.late;
        // The row's last reader takes its keys (the next record's row is
        // built anew); any other copies them.
        let moves = out.moves.as_deref().filter(|_| last);
        let mut fill = |key: &mut Vec<Value>, args: &mut Vec<Value>| {
            match moves {
                Some(m) => pl.append_window_input_taking(row, m, key, args)?,
                None => pl.append_window_input(row, key, args)?,
            }
            if let Some(late) = late {
                args.extend(late.carried(row));
            }
            Ok::<(), String>(())
        };
        let w = if fixed {
            // Written straight into the batch.
            out.batches[0]
                .push_with(ts, id, fill)
                .map_err(RecordError::other)?;
            0
        } else {
            let (key, args) = (&mut out.key, &mut out.args);
            key.clear();
            args.clear();
            fill(key, args).map_err(RecordError::other)?;
            let w = out.route.subtask(key, n as usize);
            out.batches[w].push(ts, id, key, args);
            w
        };
        if out.batches[w].len() >= self.batch {
            let fresh = self.shared.batch_pools[out.pipeline].take(self.batch, out.widths);
            let batch = std::mem::replace(&mut out.batches[w], fresh);
            if out.senders[w]
                .send(Envelope {
                    from: self.subtask,
                    msg: Msg::Records(Box::new(batch)),
                })
                .is_err()
            {
                self.shared.fail(RunError::Usage(
                    "a window subtask ended unexpectedly".into(),
                ));
            }
        }
        Ok(())
    }

    /// Sends a row for the late-data sink to a window subtask of the
    /// source's first INSERT, which writes it (in order with the records,
    /// so a checkpoint holds it exactly when it holds the record's offset).
    pub(crate) fn send_late(&mut self, id: SplitId, values: Vec<Value>) {
        let Some(out) = self.outs.first() else {
            return;
        };
        let w = id as usize % out.senders.len().max(1);
        let sent = out.senders.get(w).map(|s| {
            s.send(Envelope {
                from: self.subtask,
                msg: Msg::Late(values),
            })
        });
        if matches!(sent, Some(Err(_))) {
            self.shared.fail(RunError::Usage(
                "a window subtask ended unexpectedly".into(),
            ));
        }
    }

    pub(crate) fn flush_all(&mut self) {
        let capacity = self.batch;
        for out in &mut self.outs {
            let pool = &self.shared.batch_pools[out.pipeline];
            for (w, b) in out.batches.iter_mut().enumerate() {
                if !b.is_empty() {
                    let batch = std::mem::replace(b, pool.take(capacity, out.widths));
                    let sent = out.senders[w].send(Envelope {
                        from: self.subtask,
                        msg: Msg::Records(Box::new(batch)),
                    });
                    if sent.is_err() {
                        self.shared.fail(RunError::Usage(
                            "a window subtask ended unexpectedly".into(),
                        ));
                    }
                }
            }
        }
        self.flush_joins();
    }

    /// Sends a watermark/status change to every window and join subtask,
    /// after the records before it (callers flush first).
    pub(crate) fn broadcast(&self, p: Progress) {
        if p.is_empty() {
            return;
        }
        self.send_all(|| Msg::Progress(p));
    }
}

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    use lowwater_core::route::StableState;
    use lowwater_core::Value;

    /// The exchange hashes a whole key as a slice and a Top-N partition's
    /// keys as a vector of references: the same values go to the same
    /// subtask either way (a checkpoint's keys stay in their subtask).
    #[test]
    fn a_key_hashes_alike_as_a_slice_and_as_references() {
        let state = StableState;
        let key = [Value::from("page"), Value::Int(7)];
        let refs: Vec<&Value> = key.iter().collect();
        assert_eq!(state.hash_one(&key[..]), state.hash_one(refs));
    }
}
