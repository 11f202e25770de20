//! What the join replay tests share: dumps written from rows, and a
//! sink's payloads.

use std::path::{Path, PathBuf};

use lowwater_connectors::dump::{format_record, DumpRecord};

/// Writes `recs` (arrival offset from 2025-09-14 12:00, partition,
/// payload) as a dump of `topic` in `dir`.
pub fn dump(dir: &Path, topic: &str, recs: &[(i64, i32, String)]) -> Result<PathBuf, String> {
    let mut offsets = [0i64; 4];
    let text: String = recs
        .iter()
        .map(|(at, p, payload)| {
            let o = &mut offsets[*p as usize];
            *o += 1;
            let r = DumpRecord {
                topic: topic.to_string(),
                partition: *p,
                offset: Some(*o - 1),
                ts: 1_757_851_200_000 + at,
                key: None,
                payload: Some(payload.as_bytes().to_vec()),
            };
            format_record(&r) + "\n"
        })
        .collect();
    let path = dir.join(format!("{topic}.jsonl"));
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    Ok(path)
}

/// The payloads the sink `out` received.
pub fn rows(out: &lowwater_replay::Outcome) -> Vec<String> {
    out.outputs
        .get("out")
        .map(|v| {
            v.iter()
                .map(|r| {
                    String::from_utf8_lossy(r.payload.as_deref().unwrap_or_default()).into_owned()
                })
                .collect()
        })
        .unwrap_or_default()
}
