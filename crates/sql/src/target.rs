//! What in a job file is lowwater's own, for a job that is to run on Apache
//! Flink (`lowwater explain --target flink`, and `lowwater submit`, which
//! refuses what Flink would refuse).
//!
//! lowwater's jobs are Flink SQL, and a few options are lowwater's
//! additions: the late-data sink, caught-up idleness, the bound on future
//! timestamps, emission-lag and staleness SLOs, the partitioned datagen and
//! the bounds on open window state. Flink's connector factories validate
//! their options, so such a table option fails the `CREATE TABLE` there
//! ("Unsupported options found"); a `SET` of a key Flink does not know is
//! accepted and ignored. Each difference says what Flink does instead, so
//! the user knows what the move costs before making it.

use crate::ast::Statement;
use crate::error::Loc;

/// One thing lowwater does that Flink would not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// Where the option is set.
    pub loc: Loc,
    /// The option (and its table, for a table option).
    pub what: String,
    /// What Flink does instead.
    pub on_flink: String,
    /// Whether Flink refuses the statement (a table option its connector
    /// does not know); `false`: Flink accepts and ignores it (a `SET`).
    pub refused: bool,
}

impl Difference {
    /// The difference without its line: "`what` is lowwater's own (...): ...".
    pub fn text(&self) -> String {
        let verdict = if self.refused {
            "Flink refuses the table"
        } else {
            "Flink ignores it"
        };
        format!(
            "{} is lowwater's own ({verdict}): {}",
            self.what, self.on_flink
        )
    }
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.loc.line, self.text())
    }
}

/// What Flink does without a lowwater-only option `key`, or `None` when
/// `key` is Flink's too.
fn instead(key: &str) -> Option<&'static str> {
    Some(match key {
        "late-data.sink" => {
            "a Flink SQL window aggregate drops late rows, counted only by the operator's \
             numLateRecordsDropped; remove the option, and the late rows are lost"
        }
        "scan.watermark.idle-mode" => {
            "Flink has only the idle timeout: a partition goes idle after \
             'scan.watermark.idle-timeout' without records even when it is behind; remove the \
             option"
        }
        "lowwater.watermark.max-future" => {
            "Flink lets a record dated in the future move the watermark, and every later record \
             is then late; remove the option"
        }
        "lowwater.sink.max-emission-lag" | "lowwater.sink.max-staleness" => {
            "Flink has no emission-lag or staleness objective on a sink; remove the option and \
             alert on the sink topic's freshness (lowwater watch --flink shows the watermark)"
        }
        "lowwater.partitions" | "lowwater.max-out-of-orderness" => {
            "Flink's datagen has no partitions or out-of-order timestamps: its rows come from one \
             generator per subtask; remove the option"
        }
        k if k.starts_with("lowwater.partition.") => {
            "Flink's datagen has no partitions, so none can be quiet; remove the option"
        }
        "lowwater.window.max-windows-per-record"
        | "lowwater.state.max-open-windows"
        | "lowwater.state.on-limit" => {
            "Flink bounds no window state: open windows grow in its state backend until their \
             watermark arrives"
        }
        "lowwater.state.max-join-rows" => {
            "Flink bounds no join state: a temporal join's probe rows and versions grow in its \
             state backend until both inputs' watermark passes them"
        }
        k if k.starts_with("lowwater.") => "Flink has no such setting",
        _ => return None,
    })
}

/// Every lowwater-only option of a parsed job file, in file order.
pub fn flink_differences(stmts: &[Statement]) -> Vec<Difference> {
    let mut out = Vec::new();
    for st in stmts {
        match st {
            Statement::Set { key, loc, .. } => {
                if let Some(i) = instead(key) {
                    out.push(Difference {
                        loc: *loc,
                        what: format!("SET '{key}'"),
                        on_flink: i.to_string(),
                        refused: false,
                    });
                }
            }
            Statement::CreateTable(ct) => {
                for (k, _, loc) in &ct.options {
                    if let Some(i) = instead(k) {
                        out.push(Difference {
                            loc: *loc,
                            what: format!("'{k}' on table {}", ct.name),
                            on_flink: i.to_string(),
                            refused: true,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diffs(sql: &str) -> Vec<Difference> {
        flink_differences(&crate::parse::parse_script(sql).expect("parses"))
    }

    #[test]
    fn table_options_of_lowwater_are_refused_sets_ignored_flink_options_kept() {
        let d = diffs(
            "SET 'table.exec.source.idle-timeout' = '1 min';\n\
             SET 'lowwater.state.max-open-windows' = '1000';\n\
             CREATE TABLE s (ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (\n\
               'connector' = 'kafka', 'topic' = 't',\n\
               'scan.watermark.idle-timeout' = '1 min',\n\
               'scan.watermark.idle-mode' = 'caught-up',\n\
               'late-data.sink' = 'late');",
        );
        let what: Vec<(&str, bool, u64)> = d
            .iter()
            .map(|d| (d.what.as_str(), d.refused, d.loc.line))
            .collect();
        assert_eq!(
            what,
            vec![
                ("SET 'lowwater.state.max-open-windows'", false, 2),
                ("'scan.watermark.idle-mode' on table s", true, 6),
                ("'late-data.sink' on table s", true, 7),
            ]
        );
        assert!(d[2].to_string().starts_with(
            "line 7: 'late-data.sink' on table s is lowwater's own (Flink refuses the table): \
             a Flink SQL window aggregate drops late rows"
        ));
    }

    #[test]
    fn a_flink_only_job_has_no_differences() {
        assert!(diffs(
            "SET 'parallelism.default' = '8';\n\
             CREATE TABLE s (ts TIMESTAMP(3)) WITH ('connector' = 'datagen');"
        )
        .is_empty());
    }
}
