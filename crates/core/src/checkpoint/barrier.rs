//! Barrier alignment at an operator with several input channels (Flink's
//! aligned checkpoints, `SingleCheckpointBarrierHandler` with
//! `WaitingForFirstBarrier` / `CollectingBarriers`).
//!
//! A source subtask takes its snapshot and sends checkpoint barrier `n` on
//! every channel, after the records and watermarks that precede it. The
//! operator must snapshot the state that holds exactly what came before
//! barrier `n` on *every* channel: so once a channel's barrier arrived, that
//! channel is held (the caller queues what it sends) until the barrier has
//! arrived on all of them. Then the operator snapshots, and the held input
//! is released in its order. A channel that has ended counts as arrived.
//!
//! A barrier of a newer checkpoint while an older one is aligning abandons
//! the older one (it can no longer complete consistently); a barrier of a
//! checkpoint that was abandoned or completed is ignored.

use super::CheckpointId;

/// What a barrier did to the alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alignment {
    /// The channel is held until the other channels' barriers arrive.
    Holding,
    /// Every channel has delivered barrier `id`: snapshot now, then release.
    Aligned(CheckpointId),
    /// A barrier of an old checkpoint: nothing changes.
    Ignored,
}

/// The alignment state of one operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BarrierAligner {
    arrived: Vec<bool>,
    ended: Vec<bool>,
    current: Option<CheckpointId>,
    last: CheckpointId,
    abandoned: Vec<CheckpointId>,
}

impl BarrierAligner {
    /// An aligner over `channels` inputs, none held.
    pub fn new(channels: usize) -> Self {
        BarrierAligner {
            arrived: vec![false; channels],
            ended: vec![false; channels],
            current: None,
            last: 0,
            abandoned: Vec::new(),
        }
    }

    /// Barrier `id` arrived on channel `ch`.
    pub fn on_barrier(&mut self, ch: usize, id: CheckpointId) -> Alignment {
        if id <= self.last || ch >= self.arrived.len() {
            return Alignment::Ignored;
        }
        match self.current {
            Some(c) if id < c => return Alignment::Ignored,
            Some(c) if id > c => {
                self.abandoned.push(c);
                self.start(id);
            }
            Some(_) => {}
            None => self.start(id),
        }
        self.arrived[ch] = true;
        self.check()
    }

    /// Channel `ch` will send nothing more. Aligns a checkpoint that only
    /// waited for it.
    pub fn on_end(&mut self, ch: usize) -> Alignment {
        if let Some(e) = self.ended.get_mut(ch) {
            *e = true;
        }
        if self.current.is_some() {
            self.check()
        } else {
            Alignment::Ignored
        }
    }

    /// Gives up the alignment in progress (its held input has grown too
    /// large): every channel is released, and the checkpoint's remaining
    /// barriers are ignored. Returns the checkpoint given up.
    pub fn cancel(&mut self) -> Option<CheckpointId> {
        let id = self.current.take()?;
        self.last = self.last.max(id);
        self.arrived.iter_mut().for_each(|a| *a = false);
        Some(id)
    }

    /// Whether channel `ch` is held: its input waits until the alignment ends.
    pub fn is_held(&self, ch: usize) -> bool {
        self.current.is_some() && self.arrived.get(ch).copied().unwrap_or(false)
    }

    /// Whether a checkpoint is being aligned.
    pub fn aligning(&self) -> Option<CheckpointId> {
        self.current
    }

    /// Checkpoints abandoned because a newer barrier overtook them, taken.
    pub fn take_abandoned(&mut self) -> Vec<CheckpointId> {
        std::mem::take(&mut self.abandoned)
    }

    fn start(&mut self, id: CheckpointId) {
        self.current = Some(id);
        self.arrived.iter_mut().for_each(|a| *a = false);
    }

    fn check(&mut self) -> Alignment {
        let done = self.arrived.iter().zip(&self.ended).all(|(a, e)| *a || *e);
        match (done, self.current) {
            (true, Some(id)) => {
                self.current = None;
                self.last = id;
                self.arrived.iter_mut().for_each(|a| *a = false);
                Alignment::Aligned(id)
            }
            _ => Alignment::Holding,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_only_when_every_channel_delivered_and_early_ones_are_held() {
        let mut a = BarrierAligner::new(3);
        assert_eq!(a.on_barrier(1, 1), Alignment::Holding);
        assert!(a.is_held(1) && !a.is_held(0) && !a.is_held(2));
        assert_eq!(a.on_barrier(0, 1), Alignment::Holding);
        assert_eq!(a.on_barrier(2, 1), Alignment::Aligned(1));
        assert!(!a.is_held(0) && !a.is_held(1) && a.aligning().is_none());
    }

    #[test]
    fn a_single_channel_aligns_at_once() {
        let mut a = BarrierAligner::new(1);
        assert_eq!(a.on_barrier(0, 4), Alignment::Aligned(4));
        assert_eq!(a.on_barrier(0, 4), Alignment::Ignored);
        assert_eq!(a.on_barrier(0, 5), Alignment::Aligned(5));
    }

    #[test]
    fn an_ended_channel_counts_as_arrived() {
        let mut a = BarrierAligner::new(2);
        assert_eq!(a.on_barrier(0, 1), Alignment::Holding);
        assert_eq!(a.on_end(1), Alignment::Aligned(1));
        assert_eq!(a.on_barrier(0, 2), Alignment::Aligned(2));
    }

    #[test]
    fn a_cancelled_alignment_releases_every_channel_and_ignores_its_barriers() {
        let mut a = BarrierAligner::new(2);
        assert_eq!(a.on_barrier(0, 3), Alignment::Holding);
        assert_eq!(a.cancel(), Some(3));
        assert!(!a.is_held(0));
        assert_eq!(a.on_barrier(1, 3), Alignment::Ignored);
        assert_eq!(a.on_barrier(0, 4), Alignment::Holding);
        assert_eq!(a.on_barrier(1, 4), Alignment::Aligned(4));
    }

    #[test]
    fn a_newer_barrier_abandons_the_older_alignment() {
        let mut a = BarrierAligner::new(2);
        assert_eq!(a.on_barrier(0, 1), Alignment::Holding);
        assert_eq!(a.on_barrier(0, 2), Alignment::Holding);
        assert_eq!(a.take_abandoned(), vec![1]);
        assert_eq!(a.on_barrier(1, 1), Alignment::Ignored);
        assert_eq!(a.on_barrier(1, 2), Alignment::Aligned(2));
    }
}
