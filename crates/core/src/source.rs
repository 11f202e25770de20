//! A source subtask: the splits (Kafka partitions) one reader thread owns,
//! each with its own watermark generator, combined into the subtask's
//! watermark and status.
//!
//! This is where the seeds' failure starts: the subtask's watermark is the
//! minimum over its active splits, so one split that receives nothing holds
//! the subtask, and through every downstream minimum, the whole job. The
//! subtask therefore keeps, per split, what a person needs to see it: records
//! read, last event time, last arrival, watermark and idle flag.

use crate::error::{Error, Result};
use crate::time::{Millis, Timestamp};
use crate::watermark::combiner::{PartialWatermark, SplitCombiner};
use crate::watermark::generator::{Emit, EmitStrategy, WatermarkGenerator, WatermarkStrategy};
use crate::watermark::valve::ChannelValve;
use crate::watermark::{Progress, WatermarkStatus};
use serde::{Deserialize, Serialize};

/// Identifies a split (one Kafka partition of one topic) within a job, for
/// per-partition state and counters. Whoever builds the job numbers its
/// splits and keeps the map back to topic and partition.
pub type SplitId = u32;

/// Where a split comes from: one partition of one topic of one source
/// table, and the source subtask that reads it (replay and the live
/// runtime both name splits so).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMeta {
    /// Source table index.
    pub table: usize,
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Owning source subtask.
    pub subtask: usize,
}

/// What is known about one split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitView {
    /// The split's id.
    pub id: SplitId,
    /// The split's watermark as the combiner holds it (`MIN` before its first).
    pub watermark: Timestamp,
    /// Whether the split is idle.
    pub idle: bool,
    /// Records read from the split.
    pub records: u64,
    /// Largest event time read (`None` before the first record).
    pub max_event_time: Option<Timestamp>,
    /// Processing time of the last record (`None` before the first record).
    pub last_arrival: Option<Timestamp>,
    /// The longest time between two of its records seen since this subtask
    /// started or restored (`None` before its second record): how quiet
    /// the partition is in the normal course, the basis of the idle
    /// timeout a stall's explanation suggests.
    pub max_gap: Option<Millis>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct SourceSplit {
    id: SplitId,
    generator: WatermarkGenerator,
    records: u64,
    max_event_time: Option<Timestamp>,
    last_arrival: Option<Timestamp>,
    /// See [`SplitView::max_gap`]; not checkpointed (the layout of
    /// checkpoints stays as it was), learned again after a restore.
    #[serde(skip)]
    max_gap: Option<Millis>,
}

/// One source subtask: its splits, their generators and the combiner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceSubtask {
    strategy: WatermarkStrategy,
    splits: Vec<SourceSplit>,
    combiner: SplitCombiner,
    /// On-event emission: (split index, watermark) due after the record
    /// just read (between `on_record` and `after_record` only).
    #[serde(skip)]
    due: Option<(usize, Timestamp)>,
}

impl SourceSubtask {
    /// A subtask without splits, generating watermarks with `strategy`.
    pub fn new(strategy: WatermarkStrategy) -> Result<Self> {
        strategy.validate()?;
        Ok(SourceSubtask {
            strategy,
            splits: Vec::new(),
            combiner: SplitCombiner::new(strategy.idle_timeout),
            due: None,
        })
    }

    /// Adds a split, at watermark `MIN` and active. The returned progress
    /// (ACTIVE, if the subtask was idle) goes downstream.
    pub fn add_split(&mut self, id: SplitId) -> Result<Progress> {
        if self.index(id).is_some() {
            return Err(Error::InvalidIndex(format!(
                "split {id} is already assigned to this subtask"
            )));
        }
        self.splits.push(SourceSplit {
            id,
            generator: self.strategy.create_generator(),
            records: 0,
            max_event_time: None,
            last_arrival: None,
            max_gap: None,
        });
        Ok(self.combiner.add_split())
    }

    /// A record with event time `ts` was read from split `id` at processing
    /// time `now`. Send the returned progress downstream before the record.
    #[inline]
    pub fn on_record(&mut self, id: SplitId, ts: Timestamp, now: Timestamp) -> Result<Progress> {
        let i = self.index(id).ok_or_else(|| {
            Error::InvalidIndex(format!("split {id} is not assigned to this subtask"))
        })?;
        let split = &mut self.splits[i];
        split.generator.on_event(ts);
        split.records += 1;
        split.max_event_time = Some(split.max_event_time.map_or(ts, |m| m.max(ts)));
        if let Some(prev) = split.last_arrival {
            let gap = now.saturating_sub(prev);
            split.max_gap = Some(split.max_gap.map_or(gap, |g| g.max(gap)));
        }
        split.last_arrival = Some(now);
        // On-event emission after every `gap`-th record of the split. Flink
        // counts in the generator and starts again after a restore; counting
        // the split's records (which are checkpointed) keeps a restored job
        // on the cadence it had.
        if let EmitStrategy::OnEvent { gap } = self.strategy.emit {
            if split.records.is_multiple_of(u64::from(gap.max(1))) {
                self.due = Some((i, split.generator.current_watermark()));
            }
        }
        Ok(self.combiner.on_split_record(i))
    }

    /// After the record of split `id` went downstream: with on-event
    /// emission, the watermark it made due is combined at once (Flink emits
    /// it on the split's immediate output, after the record). The returned
    /// progress goes downstream; it is empty with periodic emission.
    pub fn after_record(&mut self, id: SplitId, now: Timestamp) -> Progress {
        match self.due.take() {
            Some((i, wm)) if self.splits.get(i).is_some_and(|s| s.id == id) => {
                self.combiner.set_split_watermark(i, wm);
                self.combiner.combine(now)
            }
            _ => Progress::NONE,
        }
    }

    /// Lag-aware idleness: split `id` still has records to read (its
    /// reader is behind the end of the partition). Until the next periodic
    /// emit it counts as active, and an idle split becomes active again at
    /// its last watermark (holding the subtask), so that idleness cannot
    /// let the watermark pass records that exist but were not read yet.
    /// Call it before [`Self::on_periodic_emit`].
    pub fn on_backlog(&mut self, id: SplitId) -> Result<Progress> {
        let i = self.index(id).ok_or_else(|| {
            Error::InvalidIndex(format!("split {id} is not assigned to this subtask"))
        })?;
        self.splits[i].generator.on_backlog();
        if self.combiner.split(i).is_some_and(|p| p.idle) {
            return Ok(self.combiner.on_split_record(i));
        }
        Ok(Progress::NONE)
    }

    /// The periodic emit at `now`: every split's generator runs (idleness
    /// first), then the splits are combined once.
    pub fn on_periodic_emit(&mut self, now: Timestamp) -> Progress {
        for (i, split) in self.splits.iter_mut().enumerate() {
            match split.generator.on_periodic_emit(now) {
                Emit::Watermark(wm) => self.combiner.set_split_watermark(i, wm),
                Emit::Idle => self.combiner.set_split_idle(i),
                Emit::Nothing => {}
            }
        }
        self.combiner.combine(now)
    }

    /// Takes the job's strategy after a restore (its delay, idle timeout
    /// and emission: [`WatermarkGenerator::reconfigure`]).
    pub fn reconfigure(&mut self, strategy: &WatermarkStrategy) {
        self.strategy = *strategy;
        for s in &mut self.splits {
            s.generator.reconfigure(strategy);
        }
    }

    /// The subtasks of one source (as a checkpoint holds them) regrouped
    /// into `n`, each split with its generator, counts and idleness in the
    /// subtask `owner` gives it (the enumerator's rule at the new
    /// parallelism): a restore at another parallelism. Each new subtask's
    /// watermark is what its splits combine to ([`SplitCombiner::regrouped`]).
    /// A split `owner` places beyond `n` is an error.
    pub fn regroup(
        parts: Vec<SourceSubtask>,
        n: usize,
        owner: impl Fn(SplitId) -> usize,
    ) -> Result<Vec<SourceSubtask>> {
        let Some(strategy) = parts.first().map(|p| p.strategy) else {
            return Err(Error::Checkpoint(
                "no source subtask to regroup (a checkpoint without sources)".into(),
            ));
        };
        let mut moved: Vec<Vec<(SourceSplit, PartialWatermark)>> =
            (0..n).map(|_| Vec::new()).collect();
        for part in parts {
            for (i, split) in part.splits.into_iter().enumerate() {
                let partial = part.combiner.split(i).unwrap_or(PartialWatermark {
                    watermark: crate::time::MIN_WATERMARK,
                    idle: false,
                });
                let to = owner(split.id);
                let Some(slot) = moved.get_mut(to) else {
                    return Err(Error::InvalidIndex(format!(
                        "split {} goes to subtask {to} of {n}",
                        split.id
                    )));
                };
                slot.push((split, partial));
            }
        }
        Ok(moved
            .into_iter()
            .map(|mut own| {
                own.sort_by_key(|(s, _)| s.id);
                let (splits, partials): (Vec<_>, Vec<_>) = own.into_iter().unzip();
                SourceSubtask {
                    strategy,
                    splits,
                    combiner: SplitCombiner::regrouped(partials, strategy.idle_timeout),
                    due: None,
                }
            })
            .collect())
    }

    /// The valve of a downstream operator over `subtasks` just regrouped
    /// by [`SourceSubtask::regroup`]: a channel per subtask at its
    /// watermark and status, the output at `output`, the operator's
    /// restored watermark ([`ChannelValve::restored`]).
    pub fn valve_over(subtasks: &[SourceSubtask], output: Timestamp) -> ChannelValve {
        let channels: Vec<(Timestamp, WatermarkStatus)> = subtasks
            .iter()
            .map(|s| match s.is_idle() {
                true => (s.watermark(), WatermarkStatus::Idle),
                false => (s.watermark(), WatermarkStatus::Active),
            })
            .collect();
        ChannelValve::restored(&channels, output)
    }

    /// The bounded input ended: `MAX` goes downstream, idle or not.
    pub fn end_of_input(&mut self) -> Progress {
        self.combiner.end_of_input()
    }

    /// The subtask's last emitted watermark.
    pub fn watermark(&self) -> Timestamp {
        self.combiner.watermark()
    }

    /// Whether the subtask last reported IDLE.
    pub fn is_idle(&self) -> bool {
        self.combiner.is_idle()
    }

    /// The strategy the splits use.
    pub fn strategy(&self) -> &WatermarkStrategy {
        &self.strategy
    }

    /// Every split, in the order they were added.
    pub fn splits(&self) -> impl Iterator<Item = SplitView> + '_ {
        self.splits.iter().enumerate().map(|(i, s)| self.view(i, s))
    }

    /// One split by id.
    pub fn split(&self, id: SplitId) -> Option<SplitView> {
        self.index(id).map(|i| self.view(i, &self.splits[i]))
    }

    /// The watermark split `id`'s generator would emit now (what its
    /// records so far allow; `MIN` before the first): watermark alignment
    /// pauses a split on it as soon as a record moves it past the limit.
    pub fn due_watermark(&self, id: SplitId) -> Option<Timestamp> {
        self.index(id)
            .map(|i| self.splits[i].generator.current_watermark())
    }

    /// The active split with the lowest watermark: the one holding this
    /// subtask's watermark. `None` when every split is idle or there is none.
    pub fn holding_split(&self) -> Option<SplitId> {
        self.combiner.holding_split().map(|i| self.splits[i].id)
    }

    /// Each split's longest gap between records (see
    /// [`SplitView::max_gap`]), which a checkpoint of this subtask leaves
    /// out; a driver that keeps it beside the checkpoint gives it back with
    /// [`SourceSubtask::restore_gaps`].
    pub fn gaps(&self) -> Vec<(SplitId, Millis)> {
        self.splits
            .iter()
            .filter_map(|s| Some((s.id, s.max_gap?)))
            .collect()
    }

    /// Sets the splits' longest gaps from [`SourceSubtask::gaps`].
    pub fn restore_gaps(&mut self, gaps: &[(SplitId, Millis)]) {
        for &(id, g) in gaps {
            if let Some(i) = self.index(id) {
                self.splits[i].max_gap = Some(g);
            }
        }
    }

    fn index(&self, id: SplitId) -> Option<usize> {
        self.splits.iter().position(|s| s.id == id)
    }

    fn view(&self, i: usize, s: &SourceSplit) -> SplitView {
        let partial = self.combiner.split(i);
        SplitView {
            id: s.id,
            watermark: partial.map_or(crate::time::MIN_WATERMARK, |p| p.watermark),
            idle: partial.is_some_and(|p| p.idle),
            records: s.records,
            max_event_time: s.max_event_time,
            last_arrival: s.last_arrival,
            max_gap: s.max_gap,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_event_emission_follows_every_gap_th_record_of_a_split() {
        let mut s = SourceSubtask::new(WatermarkStrategy::sql(10).on_event(2)).expect("strategy");
        s.add_split(0).expect("split");
        s.add_split(1).expect("split");
        for (split, ts) in [(1, 500), (0, 100)] {
            s.on_record(split, ts, 0).expect("record");
            assert!(
                s.after_record(split, 0).is_empty(),
                "first record of the split"
            );
        }
        s.on_record(0, 300, 0).expect("record");
        assert!(
            s.after_record(0, 0).is_empty(),
            "split 1 has not emitted yet: it holds the minimum"
        );
        s.on_record(1, 400, 0).expect("record");
        let p = s.after_record(1, 0);
        assert_eq!(p.watermark, Some(290), "min(300 - 10, 400 - 10), at once");
        assert_eq!(s.on_periodic_emit(200), Progress::NONE, "nothing periodic");
        let mut restored = s.clone();
        let periodic = WatermarkStrategy {
            emit: EmitStrategy::Periodic,
            ..*s.strategy()
        };
        restored.reconfigure(&periodic);
        restored.on_record(0, 900, 0).expect("record");
        assert!(restored.after_record(0, 0).is_empty());
        assert_eq!(restored.on_periodic_emit(200).watermark, Some(390));
    }
}
