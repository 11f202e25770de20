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

    /// Every part, by name: (name, description).
    pub fn parts(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.parts.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// Every part that differs between the job that wrote `stored` and this
    /// one, by name (empty: the state fits): what it was (`None`: new) and
    /// what it is (`None`: no longer in the job). Which differences refuse
    /// the checkpoint is the executor's to say.
    pub fn differences<'a>(&'a self, stored: &'a JobIdentity) -> Vec<Difference<'a>> {
        let mut out: Vec<Difference<'a>> = stored
            .parts
            .iter()
            .filter(|(name, then)| self.parts.get(*name) != Some(*then))
            .map(|(name, then)| Difference {
                name,
                was: Some(then),
                now: self.parts.get(name).map(String::as_str),
            })
            .collect();
        out.extend(
            self.parts
                .iter()
                .filter(|(name, _)| !stored.parts.contains_key(*name))
                .map(|(name, now)| Difference {
                    name,
                    was: None,
                    now: Some(now),
                }),
        );
        out
    }
}

/// A part of a job's identity that differs from a checkpoint's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Difference<'a> {
    /// The part's name.
    pub name: &'a str,
    /// Its description in the checkpoint (`None`: a new part).
    pub was: Option<&'a str>,
    /// Its description now (`None`: no longer in the job).
    pub now: Option<&'a str>,
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
        let diff = |name, was, now| Difference { name, was, now };
        assert_eq!(
            now.differences(&then),
            vec![
                diff("parallelism.default", Some("2"), Some("4")),
                diff("table a", Some("x"), None),
                diff("table b", None, Some("y")),
            ]
        );
        assert!(then.differences(&then.clone()).is_empty());
    }
}
