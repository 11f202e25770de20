//! Without checkpoints: a restart does not write a window again with part
//! of its records, after the complete row it wrote before the stop.
//!
//! Without checkpoints, Kafka offsets are committed behind the oldest
//! record of any window still open (`lowwater_core::checkpoint::commit`),
//! so a restart from the group's offsets reads again every record of every
//! open window: none is lost. It also reads again records of windows that
//! were already written, when they come after such a record. Those windows
//! used to fire again with only the records read again: a second, partial
//! row after the complete one, which a consumer keeping the last row per
//! key (an upsert table, a compacted topic) kept.
//!
//! So each commit carries, as the offsets' metadata, the watermark up to
//! which every window of the source's INSERTs had been written when it was
//! made, the offset below which every record of the partition had been
//! processed (taken by its windows, or counted or written as late), and a
//! fingerprint of those INSERTs. A restart takes the highest such
//! watermark over the source's partitions (every window at or below it was
//! written before one of the commits; every window above it has all its
//! records read again) and
//! - skips, for an INSERT, a record read again (below its partition's
//!   processed offset) whose every window of that INSERT ends at or below
//!   it (counted, and said at the end); a record not read before goes its
//!   way, late if its windows were written;
//! - starts each window operator reading the source at that watermark, so
//!   that a record that is also in a later window (HOP, CUMULATE) does not
//!   open an earlier one again.
//!
//! Not for session windows: a session's end is not known in advance (their
//! offsets are not committed while the job runs).
//!
//! Windows that fired after the last commit are written again, complete:
//! the restart is at least once for them, and never partial. A commit made
//! by another job (other windows, keys, filter, aggregates or sink) is not
//! trusted: a WARN says so, and nothing is skipped.

use std::collections::BTreeMap;
use std::path::PathBuf;

use lowwater_core::{Millis, Timestamp, MIN_WATERMARK};
use lowwater_sql::options::Connector;
use lowwater_sql::plan::JobPlan;

use crate::shared::SplitMeta;

/// The metadata committed with an offset: the watermark up to which the
/// windows were written, the offset below which the partition's records
/// were processed, and the fingerprint of the INSERTs.
pub(crate) fn metadata(written_to: Timestamp, read_to: i64, fingerprint: u64) -> String {
    format!("lowwater written-to {written_to} read-to {read_to} job {fingerprint:016x}")
}

fn parse(m: &str) -> Option<(Timestamp, i64, u64)> {
    let mut words = m.strip_prefix("lowwater written-to ")?.split(' ');
    let wm = words.next()?.parse().ok()?;
    let read_to = match (words.next(), words.next()) {
        (Some("read-to"), Some(o)) => o.parse().ok()?,
        _ => return None,
    };
    let fp = match (words.next(), words.next()) {
        (Some("job"), Some(hex)) => u64::from_str_radix(hex, 16).ok()?,
        _ => return None,
    };
    Some((wm, read_to, fp))
}

/// What a restart knows of a source's last run (see the module).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Written {
    /// Every window of the source's INSERTs at or below it was written.
    pub floor: Timestamp,
    /// Per partition, the offset below which its records were processed.
    pub read_to: BTreeMap<(String, i32), i64>,
}

/// What the windows of the INSERTs reading table `t` are, hashed (FNV-1a,
/// stable across builds): the table's columns and event time, and each
/// INSERT's sink, window, keys, filter and aggregates.
pub(crate) fn fingerprint(plan: &JobPlan, t: usize) -> u64 {
    let table = &plan.tables[t];
    let source = format!(
        "{:?} {:?};",
        table.columns,
        table.watermark.map(|w| w.column)
    );
    let text: String = std::iter::once(source)
        .chain(plan.pipelines.iter().filter(|p| p.reads_table(t)).map(|p| {
            format!(
                "{} {:?} {:?} {:?} {:?};",
                plan.tables[p.sink].name, p.window, p.keys, p.filter, p.agg_args
            ) + &crate::identity::cascade(p)
        }))
        .collect();
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Per Kafka source table read from its group's offsets without
/// checkpoints: the watermark up to which its windows were written before
/// the last stop, from the metadata of the group's commits.
pub(crate) fn floors(
    plan: &JobPlan,
    splits: &[SplitMeta],
    dumps: &BTreeMap<usize, PathBuf>,
) -> BTreeMap<usize, Written> {
    let mut out = BTreeMap::new();
    if plan.settings.checkpoints.interval.is_some() {
        return out;
    }
    for (t, table) in plan.tables.iter().enumerate() {
        let Connector::Kafka {
            properties,
            startup_mode,
            ..
        } = &table.connector
        else {
            continue;
        };
        let from_group = startup_mode == "group-offsets";
        if dumps.contains_key(&t) || !properties.contains_key("group.id") || !from_group {
            continue;
        }
        // No INSERT reads it, or one with session windows does.
        let sessions = release_after(plan, t).is_none();
        if !plan.pipelines.iter().any(|p| p.reads_table(t)) || sessions {
            continue;
        }
        let partitions: Vec<(String, i32)> = splits
            .iter()
            .filter(|m| m.table == t)
            .map(|m| (m.topic.clone(), m.partition))
            .collect();
        let committed = match lowwater_kafka::committed_metadata(properties, &partitions) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(
                    "source '{}': {e}; windows written before the last stop may be written \
                     again, some with part of their records",
                    table.name
                );
                continue;
            }
        };
        let own = fingerprint(plan, t);
        let (mut floor, mut foreign) = (MIN_WATERMARK, 0);
        let mut read_to = BTreeMap::new();
        for (tp, m) in &committed {
            match parse(m) {
                Some((wm, to, fp)) if fp == own => {
                    floor = floor.max(wm);
                    read_to.insert(tp.clone(), to);
                }
                Some(_) => foreign += 1,
                None => {}
            }
        }
        if foreign > 0 {
            tracing::warn!(
                "source '{}': {foreign} partition(s) of group '{}' were committed by a job with \
                 other windows, keys, filter, aggregates or sink: their windows are not known to \
                 be written, and none is skipped",
                table.name,
                properties.get("group.id").map_or("", String::as_str)
            );
        } else if floor > MIN_WATERMARK {
            tracing::info!(
                "source '{}': the windows up to {} were written before the last stop; records \
                 read again for them are skipped, not written again",
                table.name,
                lowwater_core::time::format_timestamp(floor, ' ')
            );
            out.insert(t, Written { floor, read_to });
        }
    }
    out
}

/// Whether every window event time `ts` falls in, of every INSERT in
/// `pipelines`, ends (with its allowed lateness) at or below `floor`.
pub(crate) fn all_written(
    plan: &JobPlan,
    pipelines: impl Iterator<Item = usize>,
    ts: Timestamp,
    floor: Timestamp,
    windows: &mut Vec<lowwater_core::window::assigner::Window>,
) -> bool {
    if ts > floor {
        return false;
    }
    for pi in pipelines {
        let w = &plan.pipelines[pi].window;
        windows.clear();
        if w.assigner.assign(ts, windows).is_err() {
            return false;
        }
        let last = windows
            .iter()
            .map(|x| x.end)
            .max()
            .unwrap_or(Timestamp::MAX);
        if last.saturating_sub(1).saturating_add(w.allowed_lateness) > floor {
            return false;
        }
    }
    true
}

/// How far after a record's event time all its windows have fired, over
/// the INSERTs reading `table`: the longest window minus 1 plus the allowed
/// lateness; `None` for session windows (a session can grow without end).
pub(crate) fn release_after(plan: &JobPlan, table: usize) -> Option<Millis> {
    let mut after = Some(0);
    for pl in plan.pipelines.iter().filter(|p| p.reads_table(table)) {
        let a = &pl.window.assigner;
        if a.is_merging() {
            return None;
        }
        let own = (a.max_size() - 1).saturating_add(pl.window.allowed_lateness);
        after = after.map(|m: Millis| m.max(own));
    }
    after
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_reads_back_and_other_text_is_not_taken_for_it() {
        let m = metadata(1_757_808_000_999, 42, 0xdead_beef_0000_0001);
        assert_eq!(
            parse(&m),
            Some((1_757_808_000_999, 42, 0xdead_beef_0000_0001))
        );
        assert_eq!(parse(&metadata(-5, 0, 1)), Some((-5, 0, 1)));
        assert_eq!(parse(""), None);
        assert_eq!(parse("lowwater written-to 5"), None);
        assert_eq!(parse("lowwater written-to 5 job 0000000000000001"), None);
        assert_eq!(parse("checkpoint 3"), None);
    }

    #[test]
    fn a_record_is_written_only_when_its_every_window_is() {
        let sql = "CREATE TABLE c (u STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) \
                   WITH ('connector' = 'datagen');
                   CREATE TABLE o (s TIMESTAMP(3), n BIGINT) WITH ('connector' = 'blackhole');
                   INSERT INTO o SELECT window_start, COUNT(*) FROM TABLE(HOP(TABLE c, \
                   DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)) \
                   GROUP BY window_start, window_end;";
        let plan = JobPlan::from_sql(sql).expect("plans");
        let mut buf = Vec::new();
        // 1.5 s is in [-1 s, 2 s), [0, 3 s) and [1 s, 4 s): the last ends at 4 s.
        assert!(all_written(&plan, 0..1, 1_500, 3_999, &mut buf));
        assert!(!all_written(&plan, 0..1, 1_500, 3_998, &mut buf));
        assert!(!all_written(&plan, 0..1, 5_000, 4_999, &mut buf));
    }
}
