//! A job's inputs: the splits of each source table with their readers,
//! moved to a checkpoint's positions on a restore.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc::SyncSender;
use std::sync::Arc;

use lowwater_connectors::datagen::DatagenTable;
use lowwater_connectors::row::RowBuilder;
use lowwater_core::assignment::split_owner;
use lowwater_core::checkpoint::CheckpointId;
use lowwater_core::source::{SourceSubtask, SplitId};
use lowwater_core::Timestamp;
use lowwater_sql::options::Connector;
use lowwater_sql::plan::JobPlan;

use crate::checkpoint::{JobSnapshot, SplitKey};
use crate::envelope::Envelope;
use crate::error::{RunArgs, RunError};
use crate::shared::{Shared, SplitMeta};
use crate::source::exchange::PipeOut;
use crate::source::{Input, SourceTask};

/// Each source's inputs, per source subtask: (split id, reader).
pub(crate) type Inputs = Vec<Vec<Vec<(SplitId, Input)>>>;

/// Every split of the job with its reader, numbered: a restored job keeps
/// the checkpoint's ids (new partitions follow) and its readers start at
/// the checkpoint's positions.
pub(crate) fn number_splits(
    plan: &JobPlan,
    sources: &[usize],
    dumps: &BTreeMap<usize, PathBuf>,
    start: Timestamp,
    snapshot: Option<&JobSnapshot>,
) -> Result<(Vec<SplitMeta>, Inputs), RunError> {
    let p = plan.settings.parallelism;
    let key = |t: usize, topic: &str, partition: i32| SplitKey {
        table: plan.tables[t].name.clone(),
        topic: topic.to_string(),
        partition,
    };
    let mut all = Vec::new();
    for (si, &t) in sources.iter().enumerate() {
        let mut list = source_inputs(plan, t, dumps.get(&t), start)?;
        list.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        all.extend(
            list.into_iter()
                .map(|(topic, part, input)| (si, t, topic, part, input)),
        );
    }
    if let Some(snap) = snapshot {
        let keys: Vec<SplitKey> = all.iter().map(|(_, t, tp, p, _)| key(*t, tp, *p)).collect();
        let order = crate::restore::split_order(snap, &keys)?;
        let mut slots: Vec<Option<_>> = all.into_iter().map(Some).collect();
        all = order.into_iter().filter_map(|i| slots[i].take()).collect();
    }
    let positions = snapshot.map(JobSnapshot::positions).unwrap_or_default();
    let mut splits = Vec::new();
    let mut inputs: Inputs = sources
        .iter()
        .map(|_| (0..p).map(|_| Vec::new()).collect())
        .collect();
    for (si, t, topic, partition, mut input) in all {
        let subtask =
            split_owner(&topic, partition, p).map_err(|e| RunError::Usage(e.to_string()))?;
        if let Some(&pos) = positions.get(&key(t, &topic, partition)) {
            skip_to(&mut input, pos)?;
        }
        let id = splits.len() as SplitId;
        splits.push(SplitMeta {
            table: t,
            topic,
            partition,
            subtask,
        });
        inputs[si][subtask].push((id, input));
    }
    Ok((splits, inputs))
}

/// What building the source subtasks needs.
pub(crate) struct SourceBuild<'a> {
    pub plan: &'a Arc<JobPlan>,
    pub shared: &'a Arc<Shared>,
    pub dumps: &'a BTreeMap<usize, PathBuf>,
    pub senders: &'a [Vec<SyncSender<Envelope>>],
    /// Per join, the channels of its subtasks.
    pub join_senders: &'a [[Vec<crate::envelope::PortSender>; 2]],
    pub snapshot: Option<&'a JobSnapshot>,
    pub restored_id: Option<CheckpointId>,
    pub args: &'a RunArgs,
    /// Per source table without checkpoints, how far the last run wrote
    /// its windows (`crate::written`).
    pub written: &'a BTreeMap<usize, crate::written::Written>,
}

impl SourceBuild<'_> {
    /// Every source subtask of the job, restored from the snapshot.
    pub fn tasks(
        &self,
        sources: &[usize],
        mut inputs: Inputs,
    ) -> Result<Vec<SourceTask>, RunError> {
        let mut tasks = Vec::new();
        for (si, &t) in sources.iter().enumerate() {
            for (s, own) in std::mem::take(&mut inputs[si]).into_iter().enumerate() {
                tasks.push(self.task(si, t, s, own)?);
            }
        }
        Ok(tasks)
    }

    /// Source subtask `s` of source `si` (table `t`) with its inputs.
    fn task(
        &self,
        si: usize,
        t: usize,
        s: usize,
        inputs: Vec<(SplitId, Input)>,
    ) -> Result<SourceTask, RunError> {
        let (plan, shared, table) = (self.plan, self.shared, &self.plan.tables[t]);
        let part = self.snapshot.and_then(|snap| snap.sources.get(si)?.get(s));
        let strategy = table
            .strategy(&plan.settings)
            .ok_or_else(|| RunError::Usage(format!("table {} has no watermark", table.name)))?;
        let mut sub = match part {
            Some(part) => {
                let mut sub = part.sub.clone();
                // The delay, idle timeout and emission are the job's now:
                // they hold no state (`crate::evolve`).
                sub.reconfigure(&strategy);
                sub
            }
            None => SourceSubtask::new(strategy).map_err(|e| RunError::Usage(e.to_string()))?,
        };
        for (id, _) in &inputs {
            if sub.split(*id).is_none() {
                sub.add_split(*id)
                    .map_err(|e| RunError::Usage(e.to_string()))?;
            }
        }
        let names: Vec<(String, i32)> = {
            let all = shared.splits.read().map_err(|_| {
                RunError::Usage("the split table is poisoned (a bug in lowwater)".into())
            })?;
            inputs
                .iter()
                .map(|(id, _)| (all[*id as usize].topic.clone(), all[*id as usize].partition))
                .collect()
        };
        // librdkafka's statistics (end offsets, parsed on the source
        // thread) feed lag-aware idleness, the consumer lag metric and the
        // monitor's "reads nothing while records wait" WARN: always on.
        let statistics = true;
        let dumped = self.dumps.contains_key(&t);
        let kafka = match (&table.connector, dumped) {
            (Connector::Kafka { .. }, false) if !inputs.is_empty() => {
                Some(self.reader(t, &names, statistics)?)
            }
            _ => None,
        };
        if !inputs.is_empty() {
            shared.sources[si].reading.fetch_add(1, Ordering::SeqCst);
        }
        let outs = plan
            .pipelines
            .iter()
            .enumerate()
            .filter(|(_, pl)| pl.reads_table(t))
            .map(|(pi, _)| PipeOut::new(plan, pi, self.senders[pi].clone()))
            .collect();
        let join_outs = crate::source::join_out::join_outs(plan, t, s, self.join_senders);
        let align = crate::source::align::SourceAlign::new(
            plan,
            &shared.alignment,
            t,
            inputs.len(),
            shared.start,
        );
        let mut task = SourceTask {
            source: si,
            subtask: s,
            plan: plan.clone(),
            sub,
            inputs,
            names,
            rows: RowBuilder::new(plan, t).map_err(RunError::Usage)?,
            outs,
            join_outs,
            shared: shared.clone(),
            batch: self.args.batch.max(1),
            bounded: dumped || bounded(table),
            kafka,
            kafka_current: None,
            kafka_record: Default::default(),
            kafka_pending: false,
            caught_up: table.caught_up && !dumped,
            kafka_warned: None,
            kafka_statistics: statistics,
            waits_for_siblings: dumped,
            checkpointing: plan.settings.checkpoints.interval.is_some(),
            checkpoint_seen: self.restored_id.unwrap_or(0),
            link: crate::mailbox::Link::detached(),
            commits: VecDeque::new(),
            records_read: part.map_or(0, |p| p.records),
            filtered_count: part.map_or(0, |p| p.filtered),
            unpublished: (0, 0),
            release_after: crate::written::release_after(plan, t),
            written: self.written.get(&t).cloned(),
            rewritten: 0,
            fingerprint: crate::written::fingerprint(plan, t),
            windows_buf: Vec::new(),
            trackers: Vec::new(),
            covers_floor: lowwater_core::MIN_WATERMARK,
            placeable_above: plan
                .pipelines
                .iter()
                .filter(|p| p.reads_table(t))
                .map(|p| p.window.assigner.placeable_above())
                .max()
                .unwrap_or(i64::MAX),
            mark: 1,
            align,
        };
        if let Some(part) = part {
            task.resume_tracking(part);
        }
        Ok(task)
    }

    /// The Kafka consumer of `parts` of table `t`: at the checkpoint's
    /// offsets when restoring, else where `scan.startup.mode` says.
    fn reader(
        &self,
        t: usize,
        parts: &[(String, i32)],
        statistics: bool,
    ) -> Result<lowwater_kafka::PartitionReader, RunError> {
        let table = &self.plan.tables[t];
        let Connector::Kafka { properties, .. } = &table.connector else {
            return Err(RunError::Usage(format!(
                "source '{}' is not read from Kafka",
                table.name
            )));
        };
        let reader = match self.snapshot {
            Some(snap) => {
                let offsets = kafka_offsets(&snap.positions(), &table.name, parts);
                lowwater_kafka::PartitionReader::restored(
                    properties,
                    &table.options,
                    parts,
                    statistics,
                    &offsets,
                )
            }
            None => {
                lowwater_kafka::PartitionReader::new(properties, &table.options, parts, statistics)
            }
        };
        reader.map_err(|e| RunError::Usage(format!("source '{}': {e}", table.name)))
    }
}

/// Whether a source table ends by itself (files, dumps, datagen with
/// 'number-of-rows', Kafka with 'scan.bounded.mode' = 'latest-offset').
fn bounded(table: &lowwater_sql::plan::TableDef) -> bool {
    match &table.connector {
        Connector::Datagen(d) => DatagenTable::new(table, d).bounded(),
        Connector::Kafka { .. } => table
            .options
            .get("scan.bounded.mode")
            .is_some_and(|m| m == "latest-offset"),
        _ => true,
    }
}

/// Moves a file or dump input to a checkpoint's position (lines or records
/// already read); Kafka and datagen inputs position themselves.
fn skip_to(input: &mut Input, pos: i64) -> Result<(), RunError> {
    match input {
        Input::Lines { path, reader, line } => {
            while (*line as i64) < pos {
                let read = reader
                    .next_line()
                    .map_err(|e| RunError::Io(format!("{}: {e}", path.display())))?;
                if read.is_none() {
                    return Err(RunError::Usage(format!(
                        "{}: the checkpoint read {pos} lines of it, but it has only {line} now; \
                         was the file replaced? Start without state with --reset-state",
                        path.display()
                    )));
                }
                *line += 1;
            }
        }
        Input::Dump { recs, read, .. } => {
            let n = usize::try_from(pos).unwrap_or(0).min(recs.len());
            recs.drain(..n);
            *read = n as i64;
        }
        Input::Gen(_) | Input::Kafka => {}
    }
    Ok(())
}

/// The Kafka offsets a checkpoint holds for `parts` of table `table`.
fn kafka_offsets(
    positions: &BTreeMap<&SplitKey, i64>,
    table: &str,
    parts: &[(String, i32)],
) -> BTreeMap<(String, i32), i64> {
    parts
        .iter()
        .filter_map(|(topic, p)| {
            let key = SplitKey {
                table: table.to_string(),
                topic: topic.clone(),
                partition: *p,
            };
            Some(((topic.clone(), *p), *positions.get(&key)?))
        })
        .collect()
}

/// The report counters a checkpoint carries (records read and filtered,
/// skipped records, nulled fields).
pub(crate) fn restore_counters(shared: &Shared, snap: &crate::checkpoint::JobSnapshot) {
    for (si, parts) in snap.sources.iter().enumerate() {
        let Some(src) = shared.sources.get(si) else {
            continue;
        };
        src.records
            .store(parts.iter().map(|p| p.records).sum(), Ordering::Relaxed);
        src.filtered
            .store(parts.iter().map(|p| p.filtered).sum(), Ordering::Relaxed);
        for (s, part) in parts.iter().enumerate() {
            if let Some(Ok(mut v)) = src.subtasks.get(s).map(|m| m.lock()) {
                v.skipped.clone_from(&part.skipped);
                v.nulled.clone_from(&part.nulled);
            }
        }
    }
}

/// Without checkpoints, Kafka offsets are committed behind the windows
/// written (at least once): say once per table what a restart then does.
pub(crate) fn warn_offsets_without_checkpoints(plan: &JobPlan, dumps: &BTreeMap<usize, PathBuf>) {
    let mut told = Vec::new();
    for pl in &plan.pipelines {
        let t = &plan.tables[pl.source];
        let Connector::Kafka { properties, .. } = &t.connector else {
            continue;
        };
        let Some(group) = properties.get("group.id") else {
            continue;
        };
        if dumps.contains_key(&pl.source) || told.contains(&pl.source) {
            continue;
        }
        told.push(pl.source);
        match crate::written::release_after(plan, pl.source) {
            Some(_) => tracing::warn!(
                "source '{}': no checkpoints, so offsets are committed to group '{group}' only \
                 behind records whose windows were written (and acknowledged by the sinks' \
                 brokers), with the watermark up to which they were: a restart from group \
                 offsets reads again the records of windows still open (none is lost), skips \
                 those of windows written, and writes again, complete, the windows that fired \
                 after the last commit (at least once, never a partial row). SET \
                 'execution.checkpointing.interval' and 'execution.checkpointing.dir' for \
                 exactly once",
                t.name
            ),
            None => tracing::warn!(
                "source '{}': no checkpoints and session windows, whose end is never known in \
                 advance: offsets are not committed to group '{group}' while the job runs (a \
                 restart reads from the last committed ones). SET 'execution.checkpointing.interval' \
                 and 'execution.checkpointing.dir' for exact restarts",
                t.name
            ),
        }
    }
}

/// The inputs of one source table: splits with their readers.
fn source_inputs(
    plan: &JobPlan,
    t: usize,
    dump: Option<&PathBuf>,
    start: Timestamp,
) -> Result<Vec<(String, i32, Input)>, RunError> {
    let table = &plan.tables[t];
    if let Some(path) = dump {
        let loaded = lowwater_connectors::input::load(&[(t, path.clone())])
            .map_err(|e| RunError::Usage(e.to_string()))?;
        let mut by_split: BTreeMap<(u32, i32), VecDeque<lowwater_connectors::input::Loaded>> =
            BTreeMap::new();
        for l in loaded.records {
            by_split
                .entry((l.topic, l.partition))
                .or_default()
                .push_back(l);
        }
        return Ok(by_split
            .into_iter()
            .map(|((topic, p), recs)| {
                (
                    loaded.topics[topic as usize].clone(),
                    p,
                    Input::Dump {
                        path: path.clone(),
                        recs,
                        read: 0,
                    },
                )
            })
            .collect());
    }
    match &table.connector {
        Connector::Datagen(d) => {
            let g = DatagenTable::new(table, d);
            Ok((0..g.partitions())
                .map(|p| {
                    (
                        table.name.clone(),
                        p,
                        Input::Gen(Box::new(g.partition(p, start))),
                    )
                })
                .collect())
        }
        Connector::Kafka {
            topics, properties, ..
        } => {
            let mut inputs = Vec::new();
            for topic in topics {
                for p in lowwater_kafka::partitions(properties, topic)
                    .map_err(|e| RunError::Usage(format!("source '{}': {e}", table.name)))?
                {
                    inputs.push((topic.clone(), p, Input::Kafka));
                }
            }
            Ok(inputs)
        }
        Connector::Filesystem { path } => {
            let root = PathBuf::from(path);
            let mut files: Vec<PathBuf> = if root.is_dir() {
                std::fs::read_dir(&root)
                    .map_err(|e| RunError::Io(format!("{}: {e}", root.display())))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_file())
                    .collect()
            } else {
                vec![root.clone()]
            };
            files.sort();
            let mut inputs = Vec::new();
            for (i, f) in files.into_iter().enumerate() {
                let file = std::fs::File::open(&f)
                    .map_err(|e| RunError::Io(format!("{}: {e}", f.display())))?;
                inputs.push((
                    table.name.clone(),
                    i as i32,
                    Input::Lines {
                        path: f,
                        reader: lowwater_connectors::lines::ByteLines::new(file),
                        line: 0,
                    },
                ));
            }
            Ok(inputs)
        }
        other => Err(RunError::Usage(format!(
            "source '{}' uses connector '{}', which `lowwater run` cannot read yet; \
             use --input {}=DUMP to read a topic dump (kcat -J lines) in its place",
            table.name,
            other.name(),
            table.name
        ))),
    }
}
