//! The channel valve of every operator with several inputs.
//!
//! Flink's `StatusWatermarkValve`: each input channel (one per upstream
//! subtask) has a watermark, a status and an "aligned" flag.
//! - All channels start at `MIN`, ACTIVE and aligned. The output is the
//!   minimum over aligned channels, emitted only when strictly greater than
//!   the last output.
//! - A watermark on an IDLE channel, or while the whole valve is IDLE, is
//!   ignored; so is one not greater than the channel's last.
//! - A channel going IDLE stops being aligned. When no channel is active any
//!   more, the maximum over all channels is flushed (if greater) and the valve
//!   emits IDLE, whatever the order in which channels went idle.
//! - A channel going ACTIVE again is aligned only once its watermark has
//!   caught up with the last output: the output never goes backwards.
//!
//! Flink keeps the aligned channels in a heap; lowwater scans them, which is
//! as fast for the channel counts of a single node (tens) and simpler.

use crate::time::{Timestamp, MIN_WATERMARK};
use serde::{Deserialize, Serialize};

use super::{Progress, WatermarkStatus};

/// One input channel's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelState {
    /// The channel's last accepted watermark.
    pub watermark: Timestamp,
    /// Whether the channel is idle.
    pub status: WatermarkStatus,
    /// Whether the channel takes part in the minimum.
    pub aligned: bool,
}

/// The min-over-active-inputs combinator of a downstream operator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelValve {
    channels: Vec<ChannelState>,
    last_output: Timestamp,
    last_status: WatermarkStatus,
}

impl ChannelValve {
    /// A valve over `n` channels, all at `MIN`, active and aligned.
    pub fn new(n: usize) -> Self {
        ChannelValve {
            channels: vec![
                ChannelState {
                    watermark: MIN_WATERMARK,
                    status: WatermarkStatus::Active,
                    aligned: true,
                };
                n
            ],
            last_output: MIN_WATERMARK,
            last_status: WatermarkStatus::Active,
        }
    }

    /// A valve whose channels are upstream subtasks restored at another
    /// parallelism: each channel at its subtask's restored watermark and
    /// status, the output at `output` (the operator's restored watermark,
    /// which never goes back). Every active channel takes part in the
    /// minimum at once, also one below the output: a subtask behind (a
    /// partition added late, still catching up) holds the output where it
    /// is until it catches up, as it did before the restore, instead of
    /// being left out while the others move the watermark past its records.
    pub fn restored(channels: &[(Timestamp, WatermarkStatus)], output: Timestamp) -> Self {
        let channels: Vec<ChannelState> = channels
            .iter()
            .map(|&(watermark, status)| ChannelState {
                watermark,
                status,
                aligned: status == WatermarkStatus::Active,
            })
            .collect();
        let all_idle =
            !channels.is_empty() && channels.iter().all(|c| c.status == WatermarkStatus::Idle);
        ChannelValve {
            channels,
            last_output: output,
            last_status: match all_idle {
                true => WatermarkStatus::Idle,
                false => WatermarkStatus::Active,
            },
        }
    }

    /// A watermark arrives on channel `ch`.
    pub fn input_watermark(&mut self, ch: usize, wm: Timestamp) -> Progress {
        if self.last_status == WatermarkStatus::Idle {
            return Progress::NONE;
        }
        let last_output = self.last_output;
        debug_assert!(ch < self.channels.len(), "channel {ch} does not exist");
        let Some(c) = self.channels.get_mut(ch) else {
            return Progress::NONE;
        };
        if c.status == WatermarkStatus::Idle || wm <= c.watermark {
            return Progress::NONE;
        }
        c.watermark = wm;
        if !c.aligned && wm >= last_output {
            c.aligned = true;
        }
        self.output_new_min()
    }

    /// A status change arrives on channel `ch`.
    pub fn input_status(&mut self, ch: usize, status: WatermarkStatus) -> Progress {
        let last_output = self.last_output;
        debug_assert!(ch < self.channels.len(), "channel {ch} does not exist");
        let Some(c) = self.channels.get_mut(ch) else {
            return Progress::NONE;
        };
        match (status, c.status) {
            (WatermarkStatus::Idle, WatermarkStatus::Active) => {
                c.status = WatermarkStatus::Idle;
                c.aligned = false;
                let was_at_min = c.watermark == last_output;
                if self
                    .channels
                    .iter()
                    .all(|c| c.status == WatermarkStatus::Idle)
                {
                    let flushed = self.output_max();
                    self.last_status = WatermarkStatus::Idle;
                    Progress {
                        became_idle: true,
                        ..flushed
                    }
                } else if was_at_min {
                    self.output_new_min()
                } else {
                    Progress::NONE
                }
            }
            (WatermarkStatus::Active, WatermarkStatus::Idle) => {
                c.status = WatermarkStatus::Active;
                if c.watermark >= last_output {
                    c.aligned = true;
                }
                if self.last_status == WatermarkStatus::Idle {
                    self.last_status = WatermarkStatus::Active;
                    Progress {
                        became_active: true,
                        ..Progress::NONE
                    }
                } else {
                    Progress::NONE
                }
            }
            _ => Progress::NONE,
        }
    }

    /// Applies a whole [`Progress`] from channel `ch` in its order (active,
    /// watermark, idle) and returns the valve's combined progress.
    pub fn input(&mut self, ch: usize, p: Progress) -> Vec<Progress> {
        let mut out = Vec::new();
        if p.became_active {
            out.push(self.input_status(ch, WatermarkStatus::Active));
        }
        if let Some(wm) = p.watermark {
            out.push(self.input_watermark(ch, wm));
        }
        if p.became_idle {
            out.push(self.input_status(ch, WatermarkStatus::Idle));
        }
        out.retain(|p| !p.is_empty());
        out
    }

    /// The last watermark the valve emitted.
    pub fn watermark(&self) -> Timestamp {
        self.last_output
    }

    /// Whether the valve last emitted IDLE.
    pub fn is_idle(&self) -> bool {
        self.last_status == WatermarkStatus::Idle
    }

    /// The state of channel `ch`.
    pub fn channel(&self, ch: usize) -> Option<ChannelState> {
        self.channels.get(ch).copied()
    }

    /// Number of channels.
    pub fn len(&self) -> usize {
        self.channels.len()
    }

    /// Whether the valve has no channels.
    pub fn is_empty(&self) -> bool {
        self.channels.is_empty()
    }

    /// The aligned channel with the lowest watermark (ties: lowest index):
    /// the input holding this operator back.
    pub fn holding_channel(&self) -> Option<usize> {
        self.channels
            .iter()
            .enumerate()
            .filter(|(_, c)| c.aligned && c.status == WatermarkStatus::Active)
            .min_by_key(|(i, c)| (c.watermark, *i))
            .map(|(i, _)| i)
    }

    fn output_new_min(&mut self) -> Progress {
        let min = self
            .channels
            .iter()
            .filter(|c| c.aligned)
            .map(|c| c.watermark)
            .min();
        match min {
            Some(m) if m > self.last_output => {
                self.last_output = m;
                Progress {
                    watermark: Some(m),
                    ..Progress::NONE
                }
            }
            _ => Progress::NONE,
        }
    }

    fn output_max(&mut self) -> Progress {
        let max = self
            .channels
            .iter()
            .map(|c| c.watermark)
            .max()
            .unwrap_or(MIN_WATERMARK);
        if max > self.last_output {
            self.last_output = max;
            Progress {
                watermark: Some(max),
                ..Progress::NONE
            }
        } else {
            Progress::NONE
        }
    }
}
