//! What a job is, as far as its state is concerned: stored with every
//! checkpoint, compared on restore.
//!
//! A checkpoint's state only means something for the job that wrote it: its
//! splits, key exchange (parallelism), watermark strategies, windows, group
//! keys and aggregates. The executor describes each of those parts as one
//! normalised line under a name ("parallelism.default", "table clicks",
//! "INSERT INTO dashboard"); connection details (brokers, credentials, the
//! group id) are not part of it, so moving a job to another cluster keeps its
//! state. A restore compares the two descriptions and names every part that
//! changed, instead of restoring state into a job it does not fit.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A job's description for checkpoint compatibility.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobIdentity {
    parts: BTreeMap<String, String>,
}

impl JobIdentity {
    /// An empty description.
    pub fn new() -> Self {
        JobIdentity::default()
    }

    /// The same description with part `name` described by `value`.
    pub fn with(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.parts.insert(name.into(), value.into());
        self
    }

    /// The parts, by name.
    pub fn parts(&self) -> &BTreeMap<String, String> {
        &self.parts
    }

    /// Every part that differs between the job that wrote `stored` and this
    /// one, one line each (empty: the state fits).
    pub fn changes_since(&self, stored: &JobIdentity) -> Vec<String> {
        let mut out = Vec::new();
        for (name, then) in &stored.parts {
            match self.parts.get(name) {
                None => out.push(format!("{name} is no longer in the job")),
                Some(now) if now != then => {
                    out.push(format!("{name} changed: was {then}, now {now}"))
                }
                Some(_) => {}
            }
        }
        for name in self.parts.keys() {
            if !stored.parts.contains_key(name) {
                out.push(format!("{name} is new (not in the checkpoint)"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_changed_removed_and_added_part_is_named() {
        let then = JobIdentity::new()
            .with("parallelism.default", "2")
            .with("table a", "x")
            .with("INSERT INTO s", "tumble 1 min");
        let now = JobIdentity::new()
            .with("parallelism.default", "4")
            .with("INSERT INTO s", "tumble 1 min")
            .with("table b", "y");
        let changes = now.changes_since(&then);
        assert_eq!(
            changes,
            vec![
                "parallelism.default changed: was 2, now 4".to_string(),
                "table a is no longer in the job".to_string(),
                "table b is new (not in the checkpoint)".to_string(),
            ]
        );
        assert!(then.changes_since(&then.clone()).is_empty());
    }
}
