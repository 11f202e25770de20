//! A source subtask thread: reads its splits, builds rows, generates
//! watermarks on the system clock, and sends keyed batches and in-band
//! watermark/status messages to the window subtasks.
//!
//! The task is one type, [`SourceTask`]; its parts live in child modules:
//! reading and building records (`deliver`), routing them to window and
//! join subtasks (`exchange`, `join_out`), watermark alignment (`align`)
//! and checkpoints and offsets (`progress`).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use lowwater_connectors::datagen::DatagenPartition;
use lowwater_connectors::input::Loaded;
use lowwater_connectors::payload::{Payload, PayloadRef};
use lowwater_connectors::row::{RecordError, RecordRef, RowBuilder};
use lowwater_core::checkpoint::CheckpointId;
use lowwater_core::clock::Clock;
use lowwater_core::source::{SourceSubtask, SplitId};
use lowwater_core::{Row, Timestamp};
use lowwater_sql::plan::JobPlan;

use crate::envelope::{Msg, Offsets};
use crate::error::RunError;
use crate::shared::Shared;

pub(crate) mod align;
mod deliver;
pub(crate) mod exchange;
pub(crate) mod join_out;
mod progress;

use exchange::PipeOut;

/// Where a split's records come from.
pub(crate) enum Input {
    /// A topic dump's records for this partition, in order.
    Dump {
        path: PathBuf,
        recs: VecDeque<Loaded>,
        /// Records read (the position a checkpoint keeps).
        read: i64,
    },
    /// JSON lines of a file.
    Lines {
        path: PathBuf,
        reader: lowwater_connectors::lines::ByteLines,
        line: usize,
    },
    /// Generated rows.
    Gen(Box<DatagenPartition>),
    /// A Kafka partition: its records come from the subtask's consumer.
    Kafka,
}

/// A source subtask.
pub(crate) struct SourceTask {
    pub source: usize,
    pub subtask: usize,
    pub plan: Arc<JobPlan>,
    pub sub: SourceSubtask,
    pub inputs: Vec<(SplitId, Input)>,
    /// Topic and partition of each input (parallel to `inputs`).
    pub names: Vec<(String, i32)>,
    pub rows: RowBuilder,
    pub outs: Vec<PipeOut>,
    /// The joins reading this source: a side's exchange each.
    pub join_outs: Vec<join_out::JoinOut>,
    pub shared: Arc<Shared>,
    pub batch: usize,
    /// Whether the source ends by itself (files, dumps, datagen with
    /// 'number-of-rows'): a subtask without splits of a bounded source is
    /// finished at once, as in Flink.
    pub bounded: bool,
    /// Whether a subtask without splits waits for the subtasks with splits
    /// to end before it ends (dump-fed Kafka tables, as in replay).
    pub waits_for_siblings: bool,
    /// The consumer of this subtask's Kafka partitions.
    pub kafka: Option<lowwater_kafka::PartitionReader>,
    /// The Kafka record being processed (for error messages).
    /// (Its topic and partition are its input's, in `names`.)
    pub kafka_current: Option<i64>,
    /// The last polled Kafka record (its buffers reused from record to
    /// record), and whether it waits to be processed by its split's input.
    pub kafka_record: lowwater_kafka::KafkaRecord,
    pub kafka_pending: bool,
    /// `scan.watermark.idle-mode` = 'caught-up': a partition whose reader
    /// is behind the broker's end offset never goes idle.
    pub caught_up: bool,
    /// The last Kafka error logged, and when.
    pub kafka_warned: Option<(String, Timestamp)>,
    /// Whether Kafka readers collect librdkafka's statistics (end offsets).
    pub kafka_statistics: bool,
    /// Whether the job takes checkpoints (then Kafka offsets are committed
    /// only when a checkpoint holding them is complete).
    pub checkpointing: bool,
    /// The newest checkpoint this subtask took part in.
    pub checkpoint_seen: CheckpointId,
    /// Its mailbox (checkpoints asked for and completed, the stop) and the
    /// coordinator's inbox.
    pub link: crate::mailbox::Link,
    /// Kafka offsets of the checkpoints taken part in, until complete.
    pub commits: VecDeque<(CheckpointId, Offsets)>,
    /// Records read and filtered by this subtask (for checkpoints).
    pub records_read: u64,
    pub filtered_count: u64,
    /// Records read and filtered since the shared counters were last
    /// added to (once per read loop, not per record: the counters are
    /// shared by the source's subtasks).
    pub unpublished: (u64, u64),
    /// Without checkpoints: how long after its event time a record's
    /// windows have all fired (`None`: session windows), and per Kafka
    /// split the records whose windows may still be open.
    pub release_after: Option<lowwater_core::Millis>,
    /// Without checkpoints, after a restart: how far the last run wrote
    /// this source's windows and read its partitions (`crate::written`).
    pub written: Option<crate::written::Written>,
    /// Records read again whose windows were all written by the last run.
    pub rewritten: u64,
    /// The fingerprint of the INSERTs reading this source, committed with
    /// its offsets (`crate::written`).
    pub fingerprint: u64,
    /// Scratch for the windows of a record read again.
    pub windows_buf: Vec<lowwater_core::window::assigner::Window>,
    /// (One per input, by input index; empty until a Kafka record is read.)
    pub trackers: Vec<lowwater_core::checkpoint::commit::CommitTracker>,
    /// A lower bound of the event time from which every record of this
    /// subtask's splits is at or after its rebuild offset, carried from
    /// the checkpoint restored (`progress::rebuild_offsets`).
    pub covers_floor: lowwater_core::Timestamp,
    /// Event times above this fit a window of every INSERT reading the
    /// source without a check (only times near MIN can fail).
    pub placeable_above: Timestamp,
    /// The next in-band mark this subtask sends (without checkpoints).
    pub mark: u64,
    /// Watermark alignment, when the table aligns.
    pub align: Option<align::SourceAlign>,
}

pub(crate) enum Read {
    Record,
    Nothing,
    Exhausted,
}

impl SourceTask {
    /// Kafka reported `e` at `now`: one WARN per outage for the whole job
    /// (not per subtask and periodic watermark; librdkafka alternates
    /// "broker transport failure" and "all brokers down" while a broker
    /// restarts), the other errors kept for the INFO that ends it.
    fn kafka_trouble(&mut self, e: String, now: Timestamp) {
        let Ok(mut outage) = self.shared.kafka_outage.lock() else {
            return;
        };
        match outage.as_mut() {
            None => {
                tracing::warn!(
                    "Kafka: {e} (librdkafka retries; records resume when the brokers are back, \
                     and an INFO says so)"
                );
                *outage = Some((vec![e.clone()], now));
            }
            Some((seen, _)) if !seen.contains(&e) && seen.len() < 8 => seen.push(e.clone()),
            Some(_) => {}
        }
        self.kafka_warned = Some((e, now));
    }

    /// This subtask reads records again after a Kafka error: the outage,
    /// if no other subtask said so yet, is over.
    fn kafka_back(&mut self, now: Timestamp) {
        self.kafka_warned = None;
        let Ok(mut outage) = self.shared.kafka_outage.lock() else {
            return;
        };
        if let Some((errors, since)) = outage.take() {
            tracing::info!(
                "Kafka: records arrive again, {} after the first error (errors meanwhile: {})",
                lowwater_core::time::display_duration(now.saturating_sub(since)),
                errors.join("; ")
            );
        }
    }

    /// Runs until the inputs end (returns `true`: drained) or the job stops.
    pub fn run(mut self) -> bool {
        let interval = self.plan.settings.emit_interval;
        let clock_start = self.shared.start;
        let mut next_emit = if interval > 0 {
            clock_start + interval
        } else {
            i64::MAX
        };
        let mut row: Row = Vec::new();
        let mut exhausted = vec![false; self.inputs.len()];
        let drained = loop {
            // Mail before data: a stop or a checkpoint asked for is taken
            // before the next records.
            self.link.take();
            if self.link.stopped() {
                break false;
            }
            if self.checkpointing {
                self.take_checkpoint();
            }
            let now = self.shared.clock.now();
            if now >= next_emit {
                self.flush_all();
                self.take_discovered(&mut exhausted);
                self.check_backlog();
                self.keep_paused_active();
                let p = self.sub.on_periodic_emit(now);
                self.broadcast(p);
                self.align(now, &exhausted);
                self.publish();
                self.commit_offsets();
                if let Some(k) = &mut self.kafka {
                    if let Some(e) = k.take_error() {
                        self.kafka_trouble(e, now);
                    }
                }
                next_emit += interval * ((now - next_emit) / interval + 1);
            }
            let mut got = 0;
            for _ in 0..512 {
                let polled = match &mut self.kafka {
                    Some(k) => k.poll_into(Duration::ZERO, &mut self.kafka_record),
                    None => break,
                };
                match polled {
                    Ok(true) => {
                        let rec = &self.kafka_record;
                        let split = self
                            .names
                            .iter()
                            .position(|(t, p)| *p == rec.partition && *t == rec.topic);
                        let Some(i) = split else {
                            // assign() only delivers this subtask's partitions.
                            self.shared.fail(RunError::Record(format!(
                                "topic {} partition {} offset {}: a record of a partition this \
                                 subtask was not assigned; please report this",
                                rec.topic, rec.partition, rec.offset
                            )));
                            break;
                        };
                        self.kafka_pending = true;
                        match self.read_one(i, now, &mut row) {
                            Ok(_) => got += 1,
                            Err(e) => {
                                self.shared.fail(e);
                                break;
                            }
                        }
                    }
                    Ok(false) => break,
                    Err(e) => {
                        self.shared.fail(RunError::Io(e));
                        break;
                    }
                }
            }
            if got > 0 && self.kafka_warned.is_some() {
                self.kafka_back(now);
            }
            for (i, done) in exhausted.iter_mut().enumerate() {
                if *done || self.is_paused(i) {
                    continue;
                }
                if matches!(self.inputs[i].1, Input::Gen(_) | Input::Lines { .. }) {
                    let (n, read) = self.read_run(i, now, &mut row, 64);
                    got += n;
                    match read {
                        Ok(Read::Exhausted) => *done = true,
                        Ok(_) => {}
                        Err(e) => self.shared.fail(e),
                    }
                    continue;
                }
                for _ in 0..64 {
                    match self.read_one(i, now, &mut row) {
                        Ok(Read::Record) => got += 1,
                        Ok(Read::Nothing) => break,
                        Ok(Read::Exhausted) => {
                            *done = true;
                            break;
                        }
                        Err(e) => {
                            self.shared.fail(e);
                            break;
                        }
                    }
                }
            }
            self.count_records();
            if self.inputs.is_empty() {
                let siblings_done = self.shared.sources[self.source]
                    .reading
                    .load(Ordering::SeqCst)
                    == 0;
                if self.bounded && (!self.waits_for_siblings || siblings_done) {
                    break true;
                }
            } else if exhausted.iter().all(|e| *e) {
                break true;
            }
            if got == 0 {
                self.flush_all();
                let wake = self.next_due().min(next_emit);
                let wait = (wake - self.shared.clock.now()).clamp(1, 50);
                // Idle: a message (a checkpoint, a stop) wakes it at once.
                self.link.wait(Duration::from_millis(wait as u64));
            }
        };
        self.flush_all();
        self.count_records();
        if self.rewritten > 0 {
            tracing::info!(
                "source '{}' (subtask {}): {} records read again were in windows the last run \
                 wrote; they were skipped, not written again",
                self.plan.tables[self.rows.table_index()].name,
                self.subtask,
                self.rewritten
            );
        }
        self.leave_alignment();
        if !self.inputs.is_empty() {
            self.shared.sources[self.source]
                .reading
                .fetch_sub(1, Ordering::SeqCst);
        }
        if drained {
            let p = self.sub.end_of_input();
            self.broadcast(p);
        }
        self.hand_in_final();
        self.publish();
        self.send_all(|| Msg::End);
        drained
    }

    /// Starts reading the partitions partition discovery assigned to this
    /// subtask since the last periodic emit (from their earliest offset).
    fn take_discovered(&mut self, exhausted: &mut Vec<bool>) {
        let new = self.link.take_splits();
        if new.is_empty() {
            return;
        }
        let parts: Vec<(String, i32)> =
            new.iter().map(|s| (s.topic.clone(), s.partition)).collect();
        let table = &self.plan.tables[self.rows.table_index()];
        let added = match (&mut self.kafka, &table.connector) {
            (Some(k), _) => k.add_partitions(&parts),
            (None, lowwater_sql::options::Connector::Kafka { properties, .. }) => {
                let mut options = table.options.clone();
                options.insert("scan.startup.mode".into(), "earliest-offset".into());
                let statistics = self.kafka_statistics;
                lowwater_kafka::PartitionReader::new(properties, &options, &parts, statistics).map(
                    |k| {
                        self.kafka = Some(k);
                    },
                )
            }
            (None, _) => Err("partition discovery on a table that is not read from Kafka".into()),
        };
        if let Err(e) = added {
            self.shared
                .fail(RunError::Io(format!("source '{}': {e}", table.name)));
            return;
        }
        if self.inputs.is_empty() {
            self.shared.sources[self.source]
                .reading
                .fetch_add(1, Ordering::SeqCst);
        }
        for crate::mailbox::NewSplit {
            id,
            topic,
            partition,
        } in new
        {
            match self.sub.add_split(id) {
                Ok(p) => self.broadcast(p),
                Err(e) => {
                    self.shared.fail(RunError::Usage(e.to_string()));
                    return;
                }
            }
            tracing::info!(
                "source '{}': new partition {partition} of {topic} (subtask {}), read from its earliest offset",
                table.name,
                self.subtask
            );
            self.inputs.push((id, Input::Kafka));
            self.names.push((topic, partition));
            exhausted.push(false);
        }
    }

    /// Asks the Kafka reader how far each partition is from its end, keeps
    /// it for the monitor, and under lag-aware idleness keeps a partition
    /// that is behind from going idle.
    fn check_backlog(&mut self) {
        // Without librdkafka's statistics every backlog is unknown.
        let (Some(k), true) = (&self.kafka, self.kafka_statistics) else {
            return;
        };
        let mut backlog = Vec::with_capacity(self.inputs.len());
        for ((id, input), (topic, partition)) in self.inputs.iter().zip(&self.names) {
            if matches!(input, Input::Kafka) {
                backlog.push((*id, k.backlog(topic, *partition)));
            }
        }
        for &(id, b) in &backlog {
            if self.caught_up && b != lowwater_kafka::Backlog::CaughtUp {
                match self.sub.on_backlog(id) {
                    Ok(p) => self.broadcast(p),
                    Err(e) => self.shared.fail(RunError::Usage(e.to_string())),
                }
            }
        }
        if let Ok(mut v) = self.shared.sources[self.source].subtasks[self.subtask].lock() {
            v.backlog.clear();
            v.backlog.extend(backlog);
        }
    }

    fn next_due(&self) -> Timestamp {
        self.inputs
            .iter()
            .filter_map(|(_, input)| match input {
                Input::Gen(g) => g.next_due(),
                _ => None,
            })
            .min()
            .unwrap_or(i64::MAX)
    }

    /// Reads and routes at most one record of input `i`. A dump record is
    /// removed only after it was routed, so that an error names it.
    fn read_one(&mut self, i: usize, now: Timestamp, row: &mut Row) -> Result<Read, RunError> {
        if !matches!(self.inputs[i].1, Input::Dump { .. }) {
            return self.read_current(i, now, row);
        }
        let r = self.read_current(i, now, row);
        if let (Ok(Read::Record), Input::Dump { recs, read, .. }) = (&r, &mut self.inputs[i].1) {
            recs.pop_front();
            *read += 1;
        }
        r
    }

    fn read_current(&mut self, i: usize, now: Timestamp, row: &mut Row) -> Result<Read, RunError> {
        let id = self.inputs[i].0;
        let mut nulled = 0;
        let built = match &mut self.inputs[i].1 {
            Input::Kafka => {
                if !std::mem::take(&mut self.kafka_pending) {
                    let (topic, partition) = &self.names[i];
                    let done = self
                        .kafka
                        .as_ref()
                        .is_some_and(|k| k.finished(topic, *partition));
                    return Ok(if done { Read::Exhausted } else { Read::Nothing });
                }
                let rec = &self.kafka_record;
                self.kafka_current = Some(rec.offset);
                let r = RecordRef {
                    topic: &rec.topic,
                    partition: rec.partition,
                    offset: Some(rec.offset),
                    ts: rec.timestamp.unwrap_or(now),
                    payload: rec.payload.as_deref().map(PayloadRef::from),
                    key: rec.key.as_deref(),
                };
                self.rows.build(r, row, &mut nulled)
            }
            // Generated rows and file lines have their own loop.
            Input::Gen(_) | Input::Lines { .. } => return self.read_run(i, now, row, 1).1,
            Input::Dump { recs, .. } => {
                let Some(l) = recs.front() else {
                    return Ok(Read::Exhausted);
                };
                let rec = RecordRef {
                    topic: &self.names[i].0,
                    partition: l.partition,
                    offset: l.offset,
                    ts: l.ts,
                    payload: l.payload.as_ref().map(Payload::view),
                    key: l.key.as_deref(),
                };
                self.rows.build(rec, row, &mut nulled)
            }
        };
        self.deliver(i, id, built, row, nulled, now)
    }

    /// Adds the records read and filtered since the last call to the
    /// source's shared counters.
    fn count_records(&mut self) {
        let (read, filtered) = std::mem::take(&mut self.unpublished);
        let src = &self.shared.sources[self.source];
        if read > 0 {
            src.records.fetch_add(read, Ordering::Relaxed);
        }
        if filtered > 0 {
            src.filtered.fetch_add(filtered, Ordering::Relaxed);
        }
    }

    /// The error for a record of input `i`, with where it came from
    /// (formatted only when there is an error).
    /// Where the current record of input `i` is, for messages.
    pub(crate) fn place(&self, i: usize) -> String {
        let input = &self.inputs[i].1;
        let table = &self.plan.tables[self.rows.table_index()].name;
        match input {
            Input::Gen(g) => format!("datagen table {table} partition {}", g.partition()),
            Input::Kafka => self.kafka_current.map_or_else(String::new, |o| {
                let (t, p) = &self.names[i];
                format!("topic {t} partition {p} offset {o}")
            }),
            Input::Lines { path, line, .. } => format!("{}:{}", path.display(), line),
            Input::Dump { path, recs, .. } => recs.front().map_or_else(String::new, |l| {
                format!(
                    "{}:{}: topic {} partition {} offset {}",
                    path.display(),
                    l.line,
                    self.names[i].0,
                    l.partition,
                    l.offset.map_or("?".to_string(), |o| o.to_string())
                )
            }),
        }
    }

    pub(crate) fn fail_at(&self, i: usize, e: RecordError) -> RunError {
        let table = &self.plan.tables[self.rows.table_index()].name;
        let place = self.place(i);
        let option = self.rows.table().value_format.skip_option();
        let hint = match option.filter(|_| e.decode) {
            Some(o) => format!(
                " (fix the record, or set '{o}' = 'true' on table {table} to skip and count such records)"
            ),
            None => String::new(),
        };
        RunError::Record(format!("{place}: {}{hint}", e.message))
    }

    pub(crate) fn count(&self, id: SplitId, skipped: u64, nulled: u64) {
        if let Ok(mut v) = self.shared.sources[self.source].subtasks[self.subtask].lock() {
            *v.skipped.entry(id).or_insert(0) += skipped;
            *v.nulled.entry(id).or_insert(0) += nulled;
        }
    }

    /// Publishes the subtask's watermark, status and splits for the
    /// monitor and the HTTP endpoints.
    pub(crate) fn publish(&self) {
        if let Ok(mut v) = self.shared.sources[self.source].subtasks[self.subtask].lock() {
            v.watermark = self.sub.watermark();
            v.idle = self.sub.is_idle();
            v.splits = self.sub.splits().collect();
            if let Some(a) = &self.align {
                let now = self.shared.clock.now();
                for (i, (id, _)) in self.inputs.iter().enumerate() {
                    v.paused.insert(*id, (a.paused(i), a.paused_ms(i, now)));
                }
            }
        }
    }
}
