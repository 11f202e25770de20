//! The job's watermark alignment groups (Flink's FLIP-182): shared by the
//! source subtasks of every table in a group, each of which reports its
//! partitions' watermarks to its group (`crate::source::align`).

use std::sync::Mutex;

use lowwater_core::watermark::alignment::AlignmentGroup;
use lowwater_sql::plan::JobPlan;

/// The job's alignment groups: every source subtask of a group reports to
/// its group.
pub(crate) struct Groups {
    names: Vec<String>,
    groups: Vec<Mutex<AlignmentGroup>>,
}

impl Groups {
    pub(crate) fn new(plan: &JobPlan) -> Self {
        let mut names: Vec<String> = Vec::new();
        for t in &plan.tables {
            if let Some(a) = &t.alignment {
                if !names.contains(&a.group) {
                    names.push(a.group.clone());
                }
            }
        }
        Groups {
            groups: names
                .iter()
                .map(|_| Mutex::new(AlignmentGroup::new(0)))
                .collect(),
            names,
        }
    }

    /// Group `i`, locked by whoever reports to it.
    pub(crate) fn group(&self, i: usize) -> Option<&Mutex<AlignmentGroup>> {
        self.groups.get(i)
    }

    pub(crate) fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}
