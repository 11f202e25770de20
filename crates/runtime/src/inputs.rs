//! A job's inputs: the splits of each source table with their readers,
//! moved to a checkpoint's positions on a restore.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use lowwater_connectors::datagen::DatagenTable;
use lowwater_core::Timestamp;
use lowwater_sql::options::Connector;
use lowwater_sql::plan::JobPlan;

use crate::job::{RunError, Shared};
use crate::source::Input;

/// Moves a file or dump input to a checkpoint's position (lines or records
/// already read); Kafka and datagen inputs position themselves.
pub(crate) fn skip_to(input: &mut Input, pos: i64) -> Result<(), RunError> {
    match input {
        Input::Lines {
            path,
            reader,
            buf,
            line,
        } => {
            use std::io::BufRead;
            while (*line as i64) < pos {
                buf.clear();
                let n = reader
                    .read_until(b'\n', buf)
                    .map_err(|e| RunError::Io(format!("{}: {e}", path.display())))?;
                if n == 0 {
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
pub(crate) fn kafka_offsets(
    snap: &crate::checkpoint::JobSnapshot,
    table: &str,
    parts: &[(String, i32)],
) -> BTreeMap<(String, i32), i64> {
    parts
        .iter()
        .filter_map(|(topic, p)| {
            let key = crate::checkpoint::SplitKey {
                table: table.to_string(),
                topic: topic.clone(),
                partition: *p,
            };
            Some(((topic.clone(), *p), snap.position(&key)?))
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
        match crate::progress::release_after(plan, pl.source) {
            Some(_) => tracing::warn!(
                "source '{}': no checkpoints, so offsets are committed to group '{group}' only \
                 behind records whose windows were written: a restart from group offsets reads \
                 again the records of windows still open (none is lost), and may write again \
                 windows that had fired, some with part of their records. SET \
                 'execution.checkpointing.interval' and 'execution.checkpointing.dir' for exact \
                 restarts",
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
pub(crate) fn source_inputs(
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
                let reader = std::io::BufReader::with_capacity(1 << 16, file);
                inputs.push((
                    table.name.clone(),
                    i as i32,
                    Input::Lines {
                        path: f,
                        reader,
                        buf: Vec::new(),
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
