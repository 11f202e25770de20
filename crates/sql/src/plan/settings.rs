//! The job's `SET` statements: the settings lowwater applies, Flink's
//! settings it has no use for (accepted, so that a Flink job file runs
//! unchanged, and named in one warning), and the error with its nearest
//! known key for anything else.

use crate::ast::Statement;
use crate::error::{Loc, Result, SqlError};
use crate::setting_keys::KNOWN_SETTINGS;
use crate::types::parse_duration;

use super::{OnOpenLimit, Settings};

/// Flink settings lowwater has no use for: a key, or a key and everything
/// under it (`table.optimizer` is also `table.optimizer.agg-phase-strategy`).
/// Settings that change a result (`table.exec.emit.*`, time zones) are not
/// here: they are refused unless lowwater does what they ask.
const FLINK_IGNORED: &[&str] = &[
    "execution.checkpointing.mode",
    "execution.checkpointing.min-pause",
    "execution.checkpointing.max-concurrent-checkpoints",
    "execution.checkpointing.externalized-checkpoint-retention",
    "execution.checkpointing.tolerable-failed-checkpoints",
    "execution.checkpointing.unaligned",
    "execution.checkpointing.aligned-checkpoint-timeout",
    "execution.runtime-mode",
    "table.exec.state.ttl",
    "table.exec.mini-batch",
    "table.optimizer",
    "table.exec.resource",
    "table.exec.async-lookup",
    "table.exec.spill-compression",
    "table.exec.window-agg",
    "table.exec.disabled-operators",
    "table.exec.legacy-cast-behaviour",
    "table.dynamic-table-options.enabled",
    "table.exec.sink.upsert-materialize",
    "table.exec.sink.keyed-shuffle",
    "table.display",
    "table.generated-code",
    "state.backend",
    "state.savepoints.dir",
    "restart-strategy",
    "taskmanager",
    "jobmanager",
    "rest",
    "metrics",
    "sql-client",
    "python",
    "pipeline.max-parallelism",
    "pipeline.operator-chaining",
    "pipeline.object-reuse",
    "pipeline.jars",
    "pipeline.classpaths",
];

/// Whether `key` is a Flink setting lowwater has no use for.
fn flink_ignored(key: &str) -> bool {
    FLINK_IGNORED.iter().any(|k| {
        key == *k
            || key
                .strip_prefix(k)
                .is_some_and(|rest| rest.starts_with('.'))
    })
}

impl Settings {
    /// The warning that names the Flink settings lowwater ignores, if any.
    pub fn ignored_note(&self) -> Option<String> {
        if self.inert.is_empty() {
            return None;
        }
        let list: Vec<String> = self
            .inert
            .iter()
            .map(|(k, v)| format!("'{k}' = '{v}'"))
            .collect();
        // Flink's two-phase aggregation and its buffer decide how a
        // window's floating-point sums and LISTAGG(DISTINCT)'s order come
        // out; lowwater aggregates in one phase whatever they say.
        let phases = self.inert.iter().any(|(k, _)| {
            k.starts_with("table.optimizer") || k.starts_with("table.exec.window-agg")
        });
        Some(format!(
            "Flink settings lowwater has no use for, ignored: {}{}",
            list.join(", "),
            if phases {
                " (lowwater aggregates a window in one phase, as Flink's ONE_PHASE does: \
                 floating-point sums and LISTAGG(DISTINCT)'s order may differ from a two-phase \
                 Flink job's; see docs/sql.md, known differences)"
            } else {
                ""
            }
        ))
    }
}

pub(super) fn settings(stmts: &[Statement]) -> Result<Settings> {
    let mut s = Settings::default();
    for st in stmts {
        let Statement::Set { key, value, loc } = st else {
            continue;
        };
        let dur = || parse_duration(value).map_err(|m| SqlError::new(*loc, format!("{key}: {m}")));
        // A count of 1 or more.
        let count = |what: &str| -> Result<u64> {
            value
                .trim()
                .parse()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| {
                    SqlError::new(
                        *loc,
                        format!("{key} must be a whole number of {what}, 1 or more; got '{value}'"),
                    )
                })
        };
        match key.as_str() {
            "table.exec.source.idle-timeout" => s.idle_timeout = Some(dur()?).filter(|d| *d > 0),
            "pipeline.auto-watermark-interval" => s.emit_interval = dur()?,
            "parallelism.default" => {
                s.parallelism = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|p| (1..=1024).contains(p))
                    .ok_or_else(|| {
                        SqlError::new(
                            *loc,
                            format!("parallelism.default must be 1..1024, got '{value}'"),
                        )
                    })?
            }
            "table.exec.sink.require-on-conflict" => {
                s.require_on_conflict = match value.trim().to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(SqlError::new(
                            *loc,
                            format!("{key} is 'true' or 'false', got '{value}'"),
                        ))
                    }
                }
            }
            "table.local-time-zone" if value == "UTC" => {}
            "table.local-time-zone" => {
                return Err(SqlError::new(
                    *loc,
                    format!(
                    "table.local-time-zone '{value}' is not supported yet: lowwater runs in UTC"
                ),
                ))
            }
            "execution.runtime-mode" if value != "streaming" => {
                return Err(SqlError::new(
                    *loc,
                    "lowwater runs in execution.runtime-mode 'streaming' only",
                ))
            }
            "execution.checkpointing.interval" => {
                s.checkpoints.interval = Some(dur()?).filter(|d| *d > 0)
            }
            "execution.checkpointing.dir" | "state.checkpoints.dir" => {
                s.checkpoints.dir = Some(local_path(key, value, *loc)?)
            }
            "execution.state-recovery.path" => {
                s.checkpoints.recovery_path = Some(local_path(key, value, *loc)?)
            }
            "execution.checkpointing.timeout" => s.checkpoints.timeout = dur()?.max(1),
            "state.checkpoints.num-retained" => {
                s.checkpoints.retained = count("checkpoints")? as usize
            }
            "lowwater.window.max-windows-per-record" => {
                s.max_windows_per_record = count("windows")?
            }
            "lowwater.state.max-open-windows" => s.max_open_windows = count("windows")?,
            "lowwater.state.max-join-rows" => s.max_join_rows = count("rows")?,
            "lowwater.state.on-limit" => {
                s.on_open_limit = match value.trim().to_ascii_lowercase().as_str() {
                    "fail" => OnOpenLimit::Fail,
                    "fire-oldest" => OnOpenLimit::FireOldest,
                    other => {
                        return Err(SqlError::new(
                            *loc,
                            format!(
                                "lowwater.state.on-limit '{other}' is not known; use 'fail' (stop \
                                 the job, the default) or 'fire-oldest' (fire the oldest windows \
                                 early, their rows marked in a lowwater_incomplete column)"
                            ),
                        ))
                    }
                }
            }
            "pipeline.name" => {
                let name = value.trim();
                if name.is_empty() || name == "." || name == ".." {
                    return Err(SqlError::new(
                        *loc,
                        format!(
                            "pipeline.name '{name}' cannot name the directory the job's \
                             checkpoints are kept in: give the job a name"
                        ),
                    ));
                }
                s.name = Some(name.to_string());
            }
            k if flink_ignored(k) => s.inert.push((key.clone(), value.clone())),
            _ => {
                let message = match crate::suggest::closest(key, KNOWN_SETTINGS.iter().copied()) {
                    Some(near) => format!("unknown setting '{key}'; did you mean '{near}'?"),
                    None => format!(
                        "unknown setting '{key}'; lowwater takes {}, and accepts (and ignores) \
                         Flink's settings it has no use for: {}",
                        KNOWN_SETTINGS.join(", "),
                        FLINK_IGNORED.join(", ")
                    ),
                };
                return Err(SqlError::new(*loc, message));
            }
        }
    }
    if s.checkpoints.interval.is_some() && s.checkpoints.dir.is_none() {
        let loc = stmts
            .iter()
            .find_map(|st| match st {
                Statement::Set { key, loc, .. } if key == "execution.checkpointing.interval" => {
                    Some(*loc)
                }
                _ => None,
            })
            .unwrap_or_default();
        return Err(SqlError::new(
            loc,
            "execution.checkpointing.interval needs a place to keep the checkpoints, so that a \
             restart finds them: add SET 'execution.checkpointing.dir' = 'file:///var/lib/lowwater/checkpoints' \
             (any local directory)",
        ));
    }
    Ok(s)
}

/// A local directory or file from a `file://` URI or a plain path; other
/// schemes are refused with the reason.
fn local_path(key: &str, value: &str, loc: Loc) -> Result<String> {
    let v = value.trim();
    if let Some(path) = v.strip_prefix("file://") {
        return Ok(path.to_string());
    }
    match v.split_once("://") {
        Some((scheme, _)) => Err(SqlError::new(
            loc,
            format!(
                "{key} = '{v}': lowwater keeps checkpoints on a local or mounted file system only \
                 (file:// or a path), not {scheme}://"
            ),
        )),
        None if v.is_empty() => Err(SqlError::new(loc, format!("{key} must not be empty"))),
        None => Ok(v.to_string()),
    }
}
