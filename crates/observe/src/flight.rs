//! The flight recorder (issue 37): what held each INSERT's watermark and
//! when, each partition's idle/active flips, and each stall's start and
//! end, kept for the last day, so that "what held the dashboard between
//! 02:00 and 04:00" has an answer after the fact (Flink's per-split gauges
//! hold only the value of now).
//!
//! The monitor hands the recorder what it sees once a second. A hold is
//! recorded when one partition has held an INSERT's watermark still for a
//! quarter of the INSERT's window (a partition that is merely the slowest
//! while the watermark moves is not news), and its release when the
//! watermark moves or another partition holds it. With checkpoints the
//! events are appended to `history.jsonl` beside them (one JSON object a
//! line), read back at the next start, so a restart keeps them; the file is
//! rewritten without the events older than a day when it has twice the
//! lines it keeps. Without checkpoints they are kept in memory only.
//! Served at `/api/v1/history` and by `lowwater status --history`.

use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;

use lowwater_core::{Millis, Timestamp, MIN_WATERMARK};
use serde::{Deserialize, Serialize};

/// How long events are kept.
pub const RETENTION: Millis = 24 * 3_600_000;
/// The most events kept (a bound whatever happens: a partition flipping
/// idle every second for a day is 86,400 events).
const MAX_EVENTS: usize = 100_000;

/// One event of the recorder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlightEvent {
    /// When it happened (epoch ms, processing time).
    pub t: Timestamp,
    /// `held`, `released`, `idle`, `active`, `stalled`, `moving`.
    pub kind: String,
    /// The INSERT's sink table (holds and stalls).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub insert: Option<String>,
    /// The source table (holds and flips).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub table: Option<String>,
    /// Its topic.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub topic: Option<String>,
    /// The partition.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub partition: Option<i32>,
    /// The source subtask reading the partition.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub subtask: Option<usize>,
    /// The INSERT's watermark at the event (`None`: MIN).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub watermark: Option<Timestamp>,
    /// A stall's reason, in the report's words.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
    /// The event in words ([`FlightEvent::words`]), as served (not kept
    /// in the file).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub text: Option<String>,
}

impl FlightEvent {
    fn new(t: Timestamp, kind: &str) -> Self {
        FlightEvent {
            t,
            kind: kind.to_string(),
            insert: None,
            table: None,
            topic: None,
            partition: None,
            subtask: None,
            watermark: None,
            reason: None,
            text: None,
        }
    }

    /// The event in one line of words (`lowwater status --history`).
    pub fn words(&self) -> String {
        let at = |w: Option<Timestamp>| {
            w.map_or("MIN".to_string(), |w| {
                lowwater_core::time::format_timestamp(w, ' ')
            })
        };
        let part = format!(
            "partition {} of {}{}",
            self.partition.map_or("?".to_string(), |p| p.to_string()),
            self.table.as_deref().unwrap_or("?"),
            self.subtask
                .map_or(String::new(), |s| format!(" (subtask {s})"))
        );
        let insert = self.insert.as_deref().unwrap_or("?");
        match self.kind.as_str() {
            "held" => format!(
                "INSERT INTO {insert}: watermark held at {} by {part}",
                at(self.watermark)
            ),
            "released" => format!(
                "INSERT INTO {insert}: {part} no longer holds the watermark (now {})",
                at(self.watermark)
            ),
            "idle" => format!("{part} went idle"),
            "active" => format!("{part} is active again"),
            "stalled" => format!(
                "INSERT INTO {insert}: stalled at {}: {}",
                at(self.watermark),
                self.reason.as_deref().unwrap_or("")
            ),
            "moving" => format!(
                "INSERT INTO {insert}: the stall ended, watermark {}",
                at(self.watermark)
            ),
            other => other.to_string(),
        }
    }
}

/// A partition as the recorder names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The source table.
    pub table: String,
    /// Its topic (a file's name for files).
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// The source subtask reading it.
    pub subtask: usize,
}

/// What the monitor sees of one INSERT at a look.
pub struct InsertSeen {
    /// The INSERT's sink table.
    pub insert: String,
    /// Its watermark.
    pub watermark: Timestamp,
    /// The partition holding it.
    pub holder: Option<Place>,
    /// How long a standstill must last to be a hold (a quarter window).
    pub hold_after: Millis,
    /// The stall going on (its reason), if any.
    pub stall: Option<String>,
}

/// One INSERT's state in the recorder.
#[derive(Debug, Default)]
struct InsertState {
    watermark: Option<Timestamp>,
    /// Since when the watermark stands still.
    still_since: Timestamp,
    /// The partition whose hold was recorded (table, topic, partition).
    held: Option<(String, String, i32)>,
    stalled: bool,
}

/// The recorder.
#[derive(Debug, Default)]
pub struct FlightRecorder {
    events: VecDeque<FlightEvent>,
    file: Option<PathBuf>,
    /// Lines in the file (compacted past twice `MAX_EVENTS`).
    lines: usize,
    inserts: Vec<InsertState>,
    /// Per split id, whether it was idle at the last look.
    idle: Vec<Option<bool>>,
}

impl FlightRecorder {
    /// A recorder keeping its events in `file` (`None`: in memory), with
    /// the events of earlier runs in it that are younger than a day.
    pub fn open(file: Option<PathBuf>, inserts: usize, now: Timestamp) -> Self {
        let mut events = VecDeque::new();
        if let Some(f) = &file {
            if let Ok(text) = std::fs::read_to_string(f) {
                // A line cut short by a crash is skipped.
                events.extend(
                    text.lines()
                        .filter_map(|l| sonic_rs::from_str::<FlightEvent>(l).ok())
                        .filter(|e| e.t >= now - RETENTION),
                );
            }
        }
        while events.len() > MAX_EVENTS {
            events.pop_front();
        }
        let mut r = FlightRecorder {
            lines: 0,
            events,
            file,
            inserts: (0..inserts).map(|_| InsertState::default()).collect(),
            idle: Vec::new(),
        };
        r.rewrite();
        r
    }

    /// The events at or after `since`, oldest first, with their words.
    pub fn since(&self, since: Timestamp) -> Vec<FlightEvent> {
        let mut v: Vec<FlightEvent> = self
            .events
            .iter()
            .filter(|e| e.t >= since)
            .map(|e| FlightEvent {
                text: Some(e.words()),
                ..e.clone()
            })
            .collect();
        // A hold is recorded once it lasted, dated from its start.
        v.sort_by_key(|e| e.t);
        v
    }

    /// One INSERT at `now`: records a hold that began (or changed hands),
    /// a hold released, a stall that began or ended.
    pub fn insert(&mut self, pi: usize, seen: &InsertSeen, now: Timestamp) {
        let Some(st) = self.inserts.get_mut(pi) else {
            return;
        };
        let wm = (seen.watermark > MIN_WATERMARK).then_some(seen.watermark);
        if st.watermark != wm || st.still_since == 0 {
            st.watermark = wm;
            st.still_since = now;
        }
        let still = now - st.still_since >= seen.hold_after.max(1_000);
        let holder = seen
            .holder
            .as_ref()
            .filter(|_| still)
            .map(|h| (h.table.clone(), h.topic.clone(), h.partition));
        let mut out = Vec::new();
        if st.held.is_some() && st.held != holder {
            let (table, topic, p) = st.held.take().unwrap_or_default();
            let mut e = FlightEvent::new(now, "released");
            e.insert = Some(seen.insert.to_string());
            (e.table, e.topic, e.partition, e.watermark) = (Some(table), Some(topic), Some(p), wm);
            out.push(e);
        }
        if let (Some(h), None, Some(place)) = (&holder, &st.held, &seen.holder) {
            let mut e = FlightEvent::new(st.still_since, "held");
            e.insert = Some(seen.insert.to_string());
            (e.table, e.topic, e.partition) = (Some(h.0.clone()), Some(h.1.clone()), Some(h.2));
            (e.subtask, e.watermark) = (Some(place.subtask), wm);
            out.push(e);
            st.held = holder;
        }
        if seen.stall.is_some() != st.stalled {
            st.stalled = seen.stall.is_some();
            let mut e = FlightEvent::new(now, if st.stalled { "stalled" } else { "moving" });
            e.insert = Some(seen.insert.to_string());
            e.watermark = wm;
            e.reason = seen.stall.clone();
            out.push(e);
        }
        for e in out {
            self.push(e);
        }
    }

    /// A partition's idleness at `now` (split `id`): records a flip.
    pub fn partition(&mut self, id: usize, place: &Place, idle: bool, now: Timestamp) {
        if self.idle.len() <= id {
            self.idle.resize(id + 1, None);
        }
        let was = self.idle[id].replace(idle);
        // The first look is the state at the start, not a flip.
        if was.is_some_and(|w| w != idle) {
            let mut e = FlightEvent::new(now, if idle { "idle" } else { "active" });
            (e.table, e.topic) = (Some(place.table.clone()), Some(place.topic.clone()));
            (e.partition, e.subtask) = (Some(place.partition), Some(place.subtask));
            self.push(e);
        }
    }

    fn push(&mut self, e: FlightEvent) {
        if let Some(f) = &self.file {
            let line = sonic_rs::to_string(&e).unwrap_or_default();
            let appended = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(f)
                .and_then(|mut w| writeln!(w, "{line}"));
            if let Err(err) = appended {
                tracing::warn!(
                    "the flight recorder cannot write {} ({err}); its events are kept in memory \
                     only",
                    f.display()
                );
                self.file = None;
            }
            self.lines += 1;
        }
        self.events.push_back(e);
        let horizon = self.events.back().map_or(0, |e| e.t) - RETENTION;
        while self.events.len() > MAX_EVENTS || self.events.front().is_some_and(|e| e.t < horizon) {
            self.events.pop_front();
        }
        if self.lines > 2 * MAX_EVENTS {
            self.rewrite();
        }
    }

    /// Writes the file anew with the events kept (atomically).
    fn rewrite(&mut self) {
        let Some(f) = &self.file else {
            return;
        };
        let tmp = f.with_extension("jsonl.tmp");
        let text: String = self
            .events
            .iter()
            .filter_map(|e| sonic_rs::to_string(e).ok())
            .map(|l| l + "\n")
            .collect();
        let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, f));
        match written {
            Ok(()) => self.lines = self.events.len(),
            Err(err) => {
                tracing::warn!(
                    "the flight recorder cannot write {} ({err}); its events are kept in memory \
                     only",
                    f.display()
                );
                self.file = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(partition: i32) -> Place {
        Place {
            table: "clickstream".into(),
            topic: "clickstream".into(),
            partition,
            subtask: 3,
        }
    }

    fn seen(wm: Timestamp, holder: Option<i32>, stall: Option<&str>) -> InsertSeen {
        InsertSeen {
            insert: "dashboard".into(),
            watermark: wm,
            holder: holder.map(place),
            hold_after: 15_000,
            stall: stall.map(str::to_string),
        }
    }

    #[test]
    fn a_hold_is_recorded_from_when_the_watermark_stood_still_and_survives_a_restart() {
        let dir = std::env::temp_dir().join(format!("lowwater-flight-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("history.jsonl");
        let t0 = 1_757_808_000_000;
        let mut r = FlightRecorder::open(Some(file.clone()), 1, t0);
        // The slowest partition changes while the watermark moves: no hold.
        for (i, p) in [1, 2, 3, 4].into_iter().enumerate() {
            let t = t0 + i as i64 * 1_000;
            r.insert(0, &seen(t - 5_000, Some(p), None), t);
        }
        assert!(r.since(0).is_empty(), "{:?}", r.since(0));
        // Partition 11 holds it still for 20 s, then a stall opens.
        let still = t0 + 10_000 - 5_000;
        for s in 0..=20 {
            r.insert(0, &seen(still, Some(11), None), t0 + 10_000 + s * 1_000);
        }
        r.insert(
            0,
            &seen(still, Some(11), Some("partition 11 ...")),
            t0 + 31_000,
        );
        r.partition(7, &place(11), false, t0 + 31_000);
        r.partition(7, &place(11), true, t0 + 32_000);
        r.insert(0, &seen(still + 30_000, Some(2), None), t0 + 33_000);
        let kinds: Vec<(String, Timestamp)> =
            r.since(0).iter().map(|e| (e.kind.clone(), e.t)).collect();
        assert_eq!(
            kinds,
            vec![
                ("held".to_string(), t0 + 10_000),
                ("stalled".to_string(), t0 + 31_000),
                ("idle".to_string(), t0 + 32_000),
                ("released".to_string(), t0 + 33_000),
                ("moving".to_string(), t0 + 33_000),
            ]
        );
        assert_eq!(
            r.since(0)[0].words(),
            "INSERT INTO dashboard: watermark held at 2025-09-14 00:00:05.000 by partition 11 of \
             clickstream (subtask 3)"
        );
        // A restart reads them back (and a line cut short is skipped).
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .expect("file");
        writeln!(f, "{{\"t\":17578").expect("write");
        let back = FlightRecorder::open(Some(file.clone()), 1, t0 + 60_000);
        assert_eq!(back.since(0), r.since(0));
        assert_eq!(back.since(t0 + 32_000).len(), 3);
        // A day later they are gone.
        let later = FlightRecorder::open(Some(file), 1, t0 + RETENTION + 40_000);
        assert!(later.since(0).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Bounded whatever happens: a partition flipping every second keeps
    /// at most `MAX_EVENTS`, the newest.
    #[test]
    fn the_recorder_keeps_at_most_its_bound() {
        let t0 = 1_757_808_000_000;
        let mut r = FlightRecorder::open(None, 0, t0);
        let flips = MAX_EVENTS as i64 + 10;
        for i in 0..=flips {
            r.partition(0, &place(1), i % 2 == 0, t0 + i);
        }
        let kept = r.since(0);
        assert_eq!(kept.len(), MAX_EVENTS);
        assert_eq!(kept.last().map(|e| e.t), Some(t0 + flips));
    }
}
