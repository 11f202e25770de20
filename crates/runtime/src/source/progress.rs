//! A source subtask's part in keeping progress: checkpoints (its state,
//! positions and barriers) and Kafka offset commits, which follow complete
//! checkpoints, or without checkpoints the windows written (see the core's
//! `CommitTracker`).

use std::sync::atomic::Ordering;

use lowwater_core::checkpoint::commit::CommitTracker;
use lowwater_core::source::SplitId;
use lowwater_core::{Timestamp, MIN_WATERMARK};

use super::{Input, SourceTask};
use crate::checkpoint::SourcePart;
use crate::envelope::{Envelope, Msg, Offsets};
use crate::mailbox::{Inbox, Part};

impl SourceTask {
    /// Takes part in a checkpoint the coordinator asked for: flushes the
    /// batches (they belong before the barrier), hands in the subtask's
    /// state and positions, and sends the barrier on every channel.
    pub(crate) fn take_checkpoint(&mut self) {
        let Some(id) = self.link.trigger() else {
            return;
        };
        if id <= self.checkpoint_seen {
            return;
        }
        self.checkpoint_seen = id;
        self.flush_all();
        let part = self.part();
        if self.kafka.is_some() {
            self.commits.push_back((id, self.offsets(&part)));
        }
        let part = self.reported(part);
        self.link.report(Inbox::Part(id, part));
        self.send_all(|| Msg::Barrier(id));
    }

    /// A part as this subtask's report to the coordinator.
    fn reported(&self, part: SourcePart) -> Part {
        Part::Source {
            source: self.source,
            subtask: self.subtask,
            part,
        }
    }

    /// This subtask's state and positions, as a checkpoint holds them.
    fn part(&mut self) -> SourcePart {
        let (rebuild_from, covers) = self.rebuild_offsets();
        let positions: Vec<(SplitId, Option<i64>)> = self
            .inputs
            .iter()
            .zip(&self.names)
            .map(|((sid, input), (topic, partition))| {
                let pos = match input {
                    Input::Kafka => self
                        .kafka
                        .as_ref()
                        .and_then(|k| k.position(topic, *partition)),
                    Input::Lines { line, .. } => Some(*line as i64),
                    Input::Dump { read, .. } => Some(*read),
                    Input::Gen(_) => None,
                };
                (*sid, pos)
            })
            .collect();
        let (skipped, nulled) = match self.shared.sources[self.source].subtasks[self.subtask].lock()
        {
            Ok(v) => (v.skipped.clone(), v.nulled.clone()),
            Err(_) => Default::default(),
        };
        SourcePart {
            sub: self.sub.clone(),
            positions,
            records: self.records_read,
            filtered: self.filtered_count,
            skipped,
            nulled,
            rebuild_from,
            covers,
        }
    }

    /// Per tracked Kafka split, the first offset a window still open needs
    /// (by the watermark the window subtasks published, at most theirs at
    /// the barrier: reading again from there misses none of its records),
    /// and the event time from which every record is at or after it.
    fn rebuild_offsets(&mut self) -> (Vec<(SplitId, i64)>, Option<Timestamp>) {
        // A split without tracked records read none before its position:
        // its rebuild starts there.
        let Some(after) = self.release_after.filter(|_| self.checkpointing) else {
            return (Vec::new(), None);
        };
        let released = self.released_watermark();
        let mut from = Vec::new();
        for (t, (sid, input)) in self.trackers.iter_mut().zip(&self.inputs) {
            if let (Input::Kafka, Some(o)) = (input, t.committable(released, u64::MAX)) {
                from.push((*sid, o));
            }
        }
        // A record before its split's offset was released: its event time
        // plus `after` is at or below `released`.
        let covers = released.saturating_sub(after).saturating_add(1);
        (from, Some(covers.max(self.covers_floor)))
    }

    /// The watermark of the window subtasks reading this source, as they
    /// last published it (after writing the windows it fired).
    fn released_watermark(&self) -> Timestamp {
        self.outs
            .iter()
            .flat_map(|o| self.shared.windows[o.pipeline].iter())
            .map(|w| w.load(Ordering::SeqCst))
            .min()
            .unwrap_or(MIN_WATERMARK)
    }

    /// The Kafka offsets of a part, to commit once its checkpoint completes.
    fn offsets(&self, part: &SourcePart) -> Offsets {
        self.inputs
            .iter()
            .zip(&self.names)
            .zip(&part.positions)
            .filter(|((i, _), _)| matches!(i.1, Input::Kafka))
            .filter_map(|((_, (t, p)), (_, pos))| pos.map(|o| (t.clone(), *p, o)))
            .collect()
    }

    /// The subtask ended (its input drained, or the job stops): its last
    /// state stands for it in every checkpoint from now on, as a finished
    /// task's does in Flink (FLIP-147), so the others keep checkpointing.
    pub(crate) fn hand_in_final(&mut self) {
        if self.checkpointing {
            let part = self.part();
            let part = self.reported(part);
            self.link.report(Inbox::Final(part));
        }
    }

    /// Commits Kafka offsets: with checkpoints, those of the newest complete
    /// checkpoint this subtask took part in (never beyond what a restore
    /// would read again); without, everything read (at most once for open
    /// windows, as the README says).
    pub(crate) fn commit_offsets(&mut self) {
        let Some(k) = &self.kafka else {
            return;
        };
        if self.shared.failed() {
            return;
        }
        if !self.checkpointing {
            let offsets = self.released_offsets();
            if let Some(k) = &self.kafka {
                if let Err(e) = k.commit_offsets_with(&offsets) {
                    tracing::warn!("Kafka: committing offsets: {e}");
                }
            }
            self.send_mark();
            return;
        }
        let done = self.link.completed();
        let mut newest = None;
        while self.commits.front().is_some_and(|(id, _)| *id <= done) {
            newest = self.commits.pop_front();
        }
        if let Some((id, offsets)) = newest {
            if let Err(e) = k.commit_offsets(&offsets) {
                tracing::warn!("Kafka: committing the offsets of checkpoint {id}: {e}");
            }
        }
    }

    /// Remembers when the windows of the Kafka record at `offset` of input
    /// `i` have all fired (`ts = None`: skipped): without checkpoints, to
    /// commit offsets; with them, for the offsets a rebuild of the open
    /// windows reads again from (not with session windows: a session can
    /// grow without end, so nothing would be released).
    pub(crate) fn track(&mut self, i: usize, offset: i64, ts: Option<Timestamp>) {
        if self.checkpointing && self.release_after.is_none() {
            return;
        }
        let release = match (ts, self.release_after) {
            (None, _) => MIN_WATERMARK,
            (Some(ts), Some(after)) => ts.saturating_add(after),
            (Some(_), None) => Timestamp::MAX,
        };
        if self.trackers.len() < self.inputs.len() {
            self.trackers
                .resize(self.inputs.len(), CommitTracker::new());
        }
        self.trackers[i].on_record(offset, release, self.mark);
        if release <= self.sub.watermark() {
            self.trackers[i].late();
        }
    }

    /// After a restore with checkpoints: each Kafka split's records read
    /// before it, from the checkpoint's rebuild offset on, stay needed
    /// until the watermark passes the split's highest event time by the
    /// longest window, so that the next checkpoint's rebuild offsets reach
    /// back to them.
    pub(crate) fn resume_tracking(&mut self, part: &SourcePart) {
        let Some(after) = self.release_after.filter(|_| self.checkpointing) else {
            return;
        };
        let from: std::collections::BTreeMap<SplitId, i64> =
            part.rebuild_from.iter().copied().collect();
        let at: std::collections::BTreeMap<SplitId, i64> = part
            .positions
            .iter()
            .filter_map(|(id, p)| Some((*id, (*p)?)))
            .collect();
        self.trackers
            .resize(self.inputs.len(), CommitTracker::new());
        // What the checkpoint knew of where its records can be read again
        // holds on; a checkpoint without it (an older format, or a job that
        // did not track) leaves the records before its positions unknown:
        // none at or before a split's highest event time is re-readable.
        let mut floor = part.covers.unwrap_or(MIN_WATERMARK);
        for (t, (sid, input)) in self.trackers.iter_mut().zip(&self.inputs) {
            let (Input::Kafka, Some(&next)) = (input, at.get(sid)) else {
                continue;
            };
            let first = from.get(sid).copied().unwrap_or(next);
            let seen = self.sub.split(*sid).and_then(|v| v.max_event_time);
            let release = seen.map_or(MIN_WATERMARK, |ts| ts.saturating_add(after));
            t.resume(first, release, next);
            if part.covers.is_none() {
                floor = floor.max(seen.map_or(MIN_WATERMARK, |ts| ts.saturating_add(1)));
            }
        }
        self.covers_floor = floor;
    }

    /// Sends mark `n` behind everything sent so far (without checkpoints,
    /// when this subtask reads Kafka).
    fn send_mark(&mut self) {
        if self.trackers.is_empty() {
            return;
        }
        self.flush_all();
        for out in &self.outs {
            for tx in &out.senders {
                let _ = tx.send(Envelope {
                    from: self.subtask,
                    msg: Msg::Mark(self.mark),
                });
            }
        }
        self.mark += 1;
    }

    /// The offsets up to which every record's windows were written, by the
    /// watermark of the window subtasks reading this source; each with the
    /// metadata a restart reads (`crate::written`): that watermark (or the
    /// last run's, when higher) and the offset below which every record was
    /// processed.
    fn released_offsets(&mut self) -> Vec<(String, i32, i64, Option<String>)> {
        let released = self.released_watermark();
        let marked = self
            .outs
            .iter()
            .flat_map(|o| self.shared.marks[o.pipeline].iter())
            .filter_map(|w| w.get(self.subtask))
            .map(|m| m.load(Ordering::SeqCst))
            .min()
            .unwrap_or(0);
        let mut out = Vec::new();
        for ((t, (_, input)), (topic, partition)) in
            self.trackers.iter_mut().zip(&self.inputs).zip(&self.names)
        {
            if !matches!(input, Input::Kafka) {
                continue;
            }
            let Some(o) = t.committable(released, marked) else {
                continue;
            };
            let written_to = released.max(self.written.as_ref().map_or(MIN_WATERMARK, |w| w.floor));
            // Records the last run processed stay processed: the next
            // restart must not take them for new ones (and late) while this
            // run has not read that far again.
            let before = self
                .written
                .as_ref()
                .and_then(|w| w.read_to.get(&(topic.clone(), *partition)).copied());
            let processed = t.processed_to(marked).map(|p| p.max(before.unwrap_or(p)));
            let metadata = match (written_to > MIN_WATERMARK, processed) {
                (true, Some(read_to)) if self.release_after.is_some() => Some(
                    crate::written::metadata(written_to, read_to, self.fingerprint),
                ),
                _ => None,
            };
            out.push((topic.clone(), *partition, o, metadata));
        }
        out
    }
}
