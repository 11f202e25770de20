//! The `SET` keys lowwater applies: one list, read by the planner (which
//! applies them, `plan::settings`) and by the inventory of every option key
//! (`options::documented_keys`, what docs/options.md lists). It imports
//! nothing of this crate.

/// The settings lowwater applies.
pub(crate) const KNOWN_SETTINGS: &[&str] = &[
    "table.exec.source.idle-timeout",
    "pipeline.auto-watermark-interval",
    "parallelism.default",
    "table.local-time-zone",
    "execution.checkpointing.interval",
    "execution.checkpointing.dir",
    "state.checkpoints.dir",
    "execution.checkpointing.timeout",
    "state.checkpoints.num-retained",
    "execution.state-recovery.path",
    "lowwater.window.max-windows-per-record",
    "lowwater.state.max-open-windows",
    "lowwater.state.max-join-rows",
    "lowwater.state.on-limit",
    "pipeline.name",
    "table.exec.sink.require-on-conflict",
];

/// The `SET` keys lowwater reads (docs/options.md lists them).
pub fn known_settings() -> &'static [&'static str] {
    KNOWN_SETTINGS
}
