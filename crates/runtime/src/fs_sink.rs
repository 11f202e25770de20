//! The filesystem sink under checkpoints: part files that become visible
//! only when the checkpoint holding their rows is complete (Flink's
//! `FileSink`: in-progress, pending, finished).
//!
//! Each window subtask writes its own part file (`<subtask>` below numbers
//! the window subtasks of every INSERT writing to the table), so that its
//! barrier closes exactly the rows that came before it:
//! - `.part-<subtask>-<n>.json.inprogress` while rows are written;
//! - at the subtask's barrier of checkpoint `c` the file is synced and
//!   renamed `.part-<subtask>-<n>.json.pending-<c>`; the next rows go to
//!   part `n + 1`;
//! - once checkpoint `c` is complete, every pending file of a checkpoint up
//!   to `c` is renamed `part-<subtask>-<n>.json`: finished, never written
//!   again.
//!
//! On start, pending files of the restored checkpoint (or older) finish
//! (their checkpoint completed, the rename was cut short); every other
//! pending or in-progress file is deleted: its rows come after the restored
//! checkpoint and are written again. So finished files hold every row once,
//! and a crash never leaves a half-written row in one. Readers should skip
//! names starting with a dot, as they do for Flink's.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use lowwater_core::checkpoint::CheckpointId;

struct Open {
    file: BufWriter<File>,
    path: PathBuf,
    n: u64,
}

/// The part files of one filesystem sink table.
pub(crate) struct PartFiles {
    dir: PathBuf,
    open: Vec<Option<Open>>,
    next: Vec<u64>,
}

#[derive(Debug, PartialEq, Eq)]
enum Kind {
    Finished,
    InProgress,
    Pending(CheckpointId),
}

/// (subtask, n, kind) of a part file's name.
fn parse(name: &str) -> Option<(usize, u64, Kind)> {
    let (hidden, rest) = match name.strip_prefix(".part-") {
        Some(r) => (true, r),
        None => (false, name.strip_prefix("part-")?),
    };
    let (stem, tail) = rest.split_once(".json")?;
    let (subtask, n) = stem.split_once('-')?;
    let kind = match (hidden, tail) {
        (false, "") => Kind::Finished,
        (true, ".inprogress") => Kind::InProgress,
        (true, t) => Kind::Pending(t.strip_prefix(".pending-")?.parse().ok()?),
        _ => return None,
    };
    Some((subtask.parse().ok()?, n.parse().ok()?, kind))
}

/// `e` with the file it happened to.
fn at(path: &Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

fn io(path: &Path, e: std::io::Error) -> String {
    format!("{}: {e}", path.display())
}

impl PartFiles {
    /// The sink in `dir` for `subtasks` window subtasks, after a restore of
    /// checkpoint `committed` (0: none): finishes the pending files up to
    /// it, deletes the rest of the unfinished ones.
    pub fn open(dir: &Path, subtasks: usize, committed: CheckpointId) -> Result<Self, String> {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let mut next = vec![0u64; subtasks];
        let entries = std::fs::read_dir(dir).map_err(|e| io(dir, e))?;
        for entry in entries.filter_map(|e| e.ok()) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some((subtask, n, kind)) = parse(&name) else {
                continue;
            };
            let path = entry.path();
            let keep = match kind {
                Kind::Finished => true,
                Kind::Pending(c) if c <= committed => {
                    let done = dir.join(format!("part-{subtask}-{n}.json"));
                    std::fs::rename(&path, &done).map_err(|e| io(&path, e))?;
                    true
                }
                Kind::Pending(_) | Kind::InProgress => {
                    std::fs::remove_file(&path).map_err(|e| io(&path, e))?;
                    false
                }
            };
            if let (true, Some(slot)) = (keep, next.get_mut(subtask)) {
                *slot = (*slot).max(n + 1);
            }
        }
        Ok(PartFiles {
            dir: dir.to_path_buf(),
            open: (0..subtasks).map(|_| None).collect(),
            next,
        })
    }

    /// Writes one line for window subtask `subtask`.
    pub fn write(&mut self, subtask: usize, line: &[u8]) -> std::io::Result<()> {
        if self.open.get(subtask).is_some_and(Option::is_none) {
            let n = self.next[subtask];
            self.next[subtask] += 1;
            let path = self
                .dir
                .join(format!(".part-{subtask}-{n}.json.inprogress"));
            let file = BufWriter::new(File::create(&path).map_err(|e| at(&path, e))?);
            self.open[subtask] = Some(Open { file, path, n });
        }
        match self.open.get_mut(subtask).and_then(Option::as_mut) {
            // A full disk names the file it could not write.
            Some(o) => o
                .file
                .write_all(line)
                .and_then(|_| o.file.write_all(b"\n"))
                .map_err(|e| at(&o.path, e)),
            None => Err(std::io::Error::other(format!(
                "no window subtask {subtask}"
            ))),
        }
    }

    /// Barrier `id` of `subtask`: its open part is synced and pending for
    /// that checkpoint.
    pub fn roll(&mut self, subtask: usize, id: CheckpointId) -> Result<(), String> {
        let Some(mut o) = self.open.get_mut(subtask).and_then(Option::take) else {
            return Ok(());
        };
        o.file.flush().map_err(|e| io(&o.path, e))?;
        o.file.get_ref().sync_all().map_err(|e| io(&o.path, e))?;
        let pending = self
            .dir
            .join(format!(".part-{subtask}-{}.json.pending-{id}", o.n));
        std::fs::rename(&o.path, &pending).map_err(|e| io(&o.path, e))
    }

    /// Checkpoint `id` is complete: every pending part up to it finishes.
    pub fn commit(&mut self, id: CheckpointId) -> Result<(), String> {
        let entries = std::fs::read_dir(&self.dir).map_err(|e| io(&self.dir, e))?;
        for entry in entries.filter_map(|e| e.ok()) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some((subtask, n, Kind::Pending(c))) = parse(&name) {
                if c <= id {
                    let done = self.dir.join(format!("part-{subtask}-{n}.json"));
                    let path = entry.path();
                    std::fs::rename(&path, &done).map_err(|e| io(&path, e))?;
                }
            }
        }
        Ok(())
    }

    /// Flushes the open parts (no sync, no rename): rows are readable in
    /// the in-progress files, not yet committed.
    pub fn flush(&mut self) -> std::io::Result<()> {
        for o in self.open.iter_mut().flatten() {
            o.file.flush()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_to_their_kind() {
        assert_eq!(parse("part-0-3.json"), Some((0, 3, Kind::Finished)));
        assert_eq!(
            parse(".part-1-0.json.inprogress"),
            Some((1, 0, Kind::InProgress))
        );
        assert_eq!(
            parse(".part-2-7.json.pending-42"),
            Some((2, 7, Kind::Pending(42)))
        );
        assert_eq!(parse("part-0.json"), None);
        assert_eq!(parse("notes.txt"), None);
    }

    #[test]
    fn only_committed_parts_finish_and_a_restart_cleans_the_rest() {
        let dir = std::env::temp_dir().join(format!("lowwater-parts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut p = PartFiles::open(&dir, 2, 0).expect("open");
        p.write(0, b"a").expect("write");
        p.write(1, b"b").expect("write");
        p.roll(0, 1).expect("roll");
        p.roll(1, 1).expect("roll");
        p.write(0, b"c").expect("write");
        p.roll(0, 2).expect("roll");
        p.write(0, b"d").expect("write");
        p.commit(1).expect("commit");
        let names = |d: &Path| {
            let mut v: Vec<String> = std::fs::read_dir(d)
                .expect("dir")
                .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            names(&dir),
            vec![
                ".part-0-1.json.pending-2",
                ".part-0-2.json.inprogress",
                "part-0-0.json",
                "part-1-0.json"
            ]
        );
        drop(p);
        // Restart from checkpoint 1: part 1 (checkpoint 2) and part 2 go.
        let p = PartFiles::open(&dir, 2, 1).expect("reopen");
        assert_eq!(names(&dir), vec!["part-0-0.json", "part-1-0.json"]);
        assert_eq!(p.next, vec![1, 1]);
        let text = std::fs::read_to_string(dir.join("part-0-0.json")).expect("read");
        assert_eq!(text, "a\n");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
