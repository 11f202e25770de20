//! The coordinator's collection of a checkpoint's parts, from the tasks'
//! reports (`crate::mailbox::Inbox`): owned by the coordinator's thread,
//! no lock and no shared state. A task that ended hands in its last state
//! once; it stands for the task in every later checkpoint, as a finished
//! task's does in Flink (FLIP-147), so the others keep checkpointing.

use lowwater_core::checkpoint::CheckpointId;
use lowwater_core::Timestamp;

use crate::checkpoint::JoinPart;
use crate::checkpoint::{SourcePart, WindowPart};
use crate::mailbox::Part;

/// One kind of operator's parts: per operator, per subtask.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Grid<T>(Vec<Vec<Option<T>>>);

impl<T: Clone> Grid<T> {
    fn new(subtasks: &[usize]) -> Self {
        Grid(subtasks.iter().map(|&n| vec![None; n]).collect())
    }

    /// Puts `part` in its slot; whether the slot was empty (an unknown
    /// slot is ignored).
    fn put(&mut self, op: usize, subtask: usize, part: T) -> bool {
        match self.0.get_mut(op).and_then(|s| s.get_mut(subtask)) {
            Some(slot) => slot.replace(part).is_none(),
            None => false,
        }
    }

    fn complete(&self) -> bool {
        self.0.iter().flatten().all(Option::is_some)
    }

    /// Per operator, the subtasks with a part.
    fn filled(&self) -> impl Iterator<Item = Vec<usize>> + '_ {
        self.0.iter().map(|parts| {
            let filled = parts.iter().enumerate().filter(|(_, p)| p.is_some());
            filled.map(|(s, _)| s).collect()
        })
    }

    fn parts(self) -> Vec<Vec<T>> {
        self.0
            .into_iter()
            .map(|s| s.into_iter().flatten().collect())
            .collect()
    }
}

/// A checkpoint whose parts are all in.
pub(crate) struct Completed {
    pub id: CheckpointId,
    /// When it was triggered.
    pub started: Timestamp,
    pub sources: Vec<Vec<SourcePart>>,
    pub windows: Vec<Vec<WindowPart>>,
    pub joins: Vec<Vec<JoinPart>>,
    /// (pipeline, subtask) of window subtasks that had ended (a join's:
    /// (pipelines + join, subtask)): their open part files belong to this
    /// checkpoint.
    pub ended: Vec<(usize, usize)>,
}

/// Every part of one checkpoint, or of the tasks that ended.
#[derive(Clone)]
struct Parts {
    sources: Grid<SourcePart>,
    windows: Grid<WindowPart>,
    joins: Grid<JoinPart>,
}

impl Parts {
    /// Puts `part` in its slot; the (operator, subtask) of a window or join
    /// part that filled an empty slot, numbered as `Completed::ended` is.
    fn put(&mut self, part: Part) -> Option<(usize, usize)> {
        let pipelines = self.windows.0.len();
        match part {
            Part::Source {
                source,
                subtask,
                part,
            } => {
                self.sources.put(source, subtask, part);
                None
            }
            Part::Window {
                pipeline,
                subtask,
                part,
            } => self
                .windows
                .put(pipeline, subtask, part)
                .then_some((pipeline, subtask)),
            Part::Join {
                join,
                subtask,
                part,
            } => self
                .joins
                .put(join, subtask, part)
                .then_some((pipelines + join, subtask)),
        }
    }

    fn complete(&self) -> bool {
        self.sources.complete() && self.windows.complete() && self.joins.complete()
    }
}

struct Pending {
    id: CheckpointId,
    started: Timestamp,
    parts: Parts,
    /// Window (and join) subtasks whose part is their last state (they had
    /// ended): their open part files go with this checkpoint.
    ended: Vec<(usize, usize)>,
}

/// The parts of the checkpoint in flight and the last state of the tasks
/// that ended.
pub(crate) struct Collector {
    pending: Option<Pending>,
    finals: Parts,
}

impl Collector {
    /// A collector for a job with these numbers of subtasks per source,
    /// INSERT and join.
    pub fn new(sources: &[usize], windows: &[usize], joins: &[usize]) -> Self {
        Collector {
            pending: None,
            finals: Parts {
                sources: Grid::new(sources),
                windows: Grid::new(windows),
                joins: Grid::new(joins),
            },
        }
    }

    /// Starts collecting checkpoint `id`: the tasks that ended are in it
    /// already with their last state.
    pub fn begin(&mut self, id: CheckpointId, now: Timestamp) {
        let parts = self.finals.clone();
        let ended = parts
            .windows
            .filled()
            .chain(parts.joins.filled())
            .enumerate()
            .flat_map(|(n, subtasks)| subtasks.into_iter().map(move |s| (n, s)))
            .collect();
        self.pending = Some(Pending {
            id,
            started: now,
            parts,
            ended,
        });
    }

    /// A task's part of checkpoint `id` (ignored unless `id` is the one in
    /// flight: a part of a failed checkpoint that comes late).
    pub fn part(&mut self, id: CheckpointId, part: Part) {
        if let Some(p) = self.pending.as_mut().filter(|p| p.id == id) {
            p.parts.put(part);
        }
    }

    /// A task ended with this last state: in the checkpoint in flight if it
    /// had not taken part yet, and in every later one.
    pub fn last(&mut self, part: Part) {
        if let Some(p) = self.pending.as_mut() {
            if let Some(ended) = p.parts.put(part.clone()) {
                p.ended.push(ended);
            }
        }
        self.finals.put(part);
    }

    /// The checkpoint in flight once every part is in (taken).
    pub fn take_complete(&mut self) -> Option<Completed> {
        if !self.pending.as_ref().is_some_and(|p| p.parts.complete()) {
            return None;
        }
        let p = self.pending.take()?;
        Some(Completed {
            id: p.id,
            started: p.started,
            sources: p.parts.sources.parts(),
            windows: p.parts.windows.parts(),
            joins: p.parts.joins.parts(),
            ended: p.ended,
        })
    }

    /// Drops the checkpoint in flight (failed or timed out).
    pub fn abandon(&mut self) {
        self.pending = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_is_complete_when_every_slot_is_filled_once() {
        let mut g: Grid<u32> = Grid::new(&[2, 1]);
        assert!(!g.complete());
        assert!(g.put(0, 1, 10));
        assert!(!g.put(0, 1, 11), "filled already");
        assert!(!g.put(5, 0, 1), "no such operator");
        assert_eq!(g.filled().collect::<Vec<_>>(), vec![vec![1], vec![]]);
        g.put(0, 0, 1);
        g.put(1, 0, 2);
        assert!(g.complete());
        assert_eq!(g.parts(), vec![vec![1, 11], vec![2]]);
    }
}
