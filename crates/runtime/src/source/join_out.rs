//! What a source subtask sends to the join subtasks of each join reading
//! its table: rows with their join key, to the subtask a hash of the key
//! chooses (a key's rows of both sides meet there, and its state stays
//! there across a restore: the hasher is the core's stable one), in
//! batches; watermarks, statuses, barriers and the end to every subtask.

use std::sync::Arc;

use lowwater_connectors::row::RecordError;
use lowwater_core::source::SplitId;
use lowwater_core::{Row, Timestamp};
use lowwater_sql::plan::JobPlan;

use super::SourceTask;
use crate::envelope::{Envelope, Msg, PortSender};
use crate::error::RunError;
use crate::joins::{JoinRef, SideRow};

/// Rows per batch to a join subtask (rows are whole rows, heavier than a
/// window's keys and arguments).
const BATCH: usize = 1024;

/// One side of one join reading this source: its exchange.
pub(crate) struct JoinOut {
    which: JoinRef,
    port: usize,
    /// The sender number the join subtasks know this subtask by
    /// (`port × parallelism + subtask`).
    from: usize,
    pub(crate) senders: Vec<PortSender>,
    batches: Vec<Vec<SideRow>>,
    /// The key positions that choose the subtask (`None`: the whole key;
    /// see `JoinPlan::route_positions`).
    route: Option<Vec<usize>>,
}

impl JoinOut {
    pub fn new(
        plan: &JobPlan,
        which: JoinRef,
        port: usize,
        subtask: usize,
        senders: Vec<PortSender>,
    ) -> Self {
        let route = match which {
            JoinRef::Temporal(j) => plan.joins[j].route_positions(),
            JoinRef::Interval(_) => None,
        };
        JoinOut {
            route,
            which,
            port,
            from: port * plan.settings.parallelism + subtask,
            batches: senders.iter().map(|_| Vec::new()).collect(),
            senders,
        }
    }
}

impl SourceTask {
    /// A row of split `id` at event time `ts` into join output `k`
    /// (`delete`: an upsert table's tombstone, which only a temporal
    /// join's build side reads).
    pub(crate) fn route_join(
        &mut self,
        k: usize,
        id: SplitId,
        ts: Timestamp,
        row: &Row,
        delete: bool,
    ) -> Result<(), RecordError> {
        let (which, port) = (self.join_outs[k].which, self.join_outs[k].port);
        let mut side = Vec::new();
        let key = match which {
            JoinRef::Temporal(j) => self.plan.joins[j].side_input(port, row, &mut side),
            JoinRef::Interval(j) if self.plan.intervals[j].window.is_some() => {
                return self.route_windows(k, j, id, ts, row);
            }
            JoinRef::Interval(j) => {
                side.extend_from_slice(row);
                self.plan.intervals[j].side_key(port, row)
            }
        }
        .map_err(RecordError::other)?;
        self.send_side(k, id, ts, key, side, delete);
        Ok(())
    }

    /// [`Self::route_join`] into window join `j`: a row per window the
    /// side's WHERE keeps, at the window's time (the rows it drops are
    /// counted as filtered, as replay counts them).
    fn route_windows(
        &mut self,
        k: usize,
        j: usize,
        id: SplitId,
        ts: Timestamp,
        row: &Row,
    ) -> Result<(), RecordError> {
        let port = self.join_outs[k].port;
        let plan = Arc::clone(&self.plan);
        let jp = &plan.intervals[j];
        let mut rows = Vec::new();
        if let Some(w) = &jp.window {
            let dropped = w
                .side_rows(port, ts, row, &mut rows)
                .map_err(RecordError::other)?;
            self.unpublished.1 += dropped;
            self.filtered_count += dropped;
        }
        // Every window's key first: a record whose key fails is refused
        // whole, not sent to some of its windows.
        let keys = rows
            .iter()
            .map(|(_, r)| jp.side_key(port, r))
            .collect::<Result<Vec<_>, _>>()
            .map_err(RecordError::other)?;
        for ((wt, r), key) in rows.into_iter().zip(keys) {
            self.send_side(k, id, wt, key, r, false);
        }
        Ok(())
    }

    /// A side row of join output `k` (split `id`, time `ts`, join key `key`)
    /// into the batch of the join subtask its key chooses.
    fn send_side(
        &mut self,
        k: usize,
        id: SplitId,
        ts: Timestamp,
        key: Row,
        side: Row,
        delete: bool,
    ) {
        let out = &mut self.join_outs[k];
        let n = out.senders.len();
        let w = match &out.route {
            _ if n == 1 => 0,
            Some(ps) => lowwater_core::route::positions_subtask(&key, ps, n),
            None => lowwater_core::route::key_subtask(&key, n),
        };
        out.batches[w].push(SideRow {
            ts,
            split: id,
            key,
            row: side,
            delete,
        });
        if out.batches[w].len() >= BATCH.min(self.batch) {
            let rows = std::mem::take(&mut out.batches[w]);
            let env = Envelope {
                from: out.from,
                msg: Msg::Rows(rows),
            };
            if out.senders[w].send(env).is_err() {
                self.shared
                    .fail(RunError::Usage("a join subtask ended unexpectedly".into()));
            }
        }
    }

    /// Sends the joins' batched rows.
    pub(crate) fn flush_joins(&mut self) {
        for out in &mut self.join_outs {
            for (w, b) in out.batches.iter_mut().enumerate() {
                if b.is_empty() {
                    continue;
                }
                let env = Envelope {
                    from: out.from,
                    msg: Msg::Rows(std::mem::take(b)),
                };
                if out.senders[w].send(env).is_err() {
                    self.shared
                        .fail(RunError::Usage("a join subtask ended unexpectedly".into()));
                }
            }
        }
    }

    /// Sends `msg()` on every channel out of this subtask: to each window
    /// subtask of each INSERT reading it and to each join subtask of each
    /// join side reading it (after everything sent before: callers flush).
    pub(crate) fn send_all(&self, msg: impl Fn() -> Msg) {
        for out in &self.outs {
            for tx in &out.senders {
                let _ = tx.send(Envelope {
                    from: self.subtask,
                    msg: msg(),
                });
            }
        }
        for out in &self.join_outs {
            for tx in &out.senders {
                let _ = tx.send(Envelope {
                    from: out.from,
                    msg: msg(),
                });
            }
        }
    }
}

/// The sides of the plan's joins that read table `t`, for its source
/// subtask `subtask`.
pub(crate) fn join_outs(
    plan: &JobPlan,
    t: usize,
    subtask: usize,
    senders: &[[Vec<PortSender>; 2]],
) -> Vec<JoinOut> {
    let mut outs = Vec::new();
    for (j, which) in crate::joins::joins(plan).into_iter().enumerate() {
        let sides = which.sides(plan);
        for (port, to) in senders[j].iter().enumerate() {
            if sides.table(port) == t {
                outs.push(JoinOut::new(plan, which, port, subtask, to.clone()));
            }
        }
    }
    outs
}
