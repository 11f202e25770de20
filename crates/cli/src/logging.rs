//! Logs: `RUST_LOG` (tracing's env filter) or `-v`/`-q`, colour only on a
//! terminal unless asked (`--color`, `NO_COLOR`), and JSON lines for log
//! shippers (`--log-format json`). Logs go to standard error; rows and
//! reports go to standard output or files.

use std::io::IsTerminal;

use clap::ValueEnum;
use tracing_subscriber::EnvFilter;

/// When to colour the logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One readable line per event.
    Text,
    /// One JSON object per line.
    Json,
}

static JSON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Writes the end-of-run summary to standard error: as it is, or as one
/// JSON log event when the logs are JSON (so that every line parses).
pub fn summary(text: &str) {
    if JSON.get().copied().unwrap_or(false) {
        tracing::info!(summary = text.trim_end(), "summary");
    } else {
        eprint!("{text}");
    }
}

/// Installs the logger. `RUST_LOG` wins over `-v`/`-q`; without either the
/// level is INFO (`-v` DEBUG, `-vv` TRACE, `-q` WARN, `-qq` ERROR).
pub fn init(verbose: u8, quiet: u8, color: Color, format: LogFormat) {
    let level = match i16::from(verbose) - i16::from(quiet) {
        i16::MIN..=-2 => "error",
        -1 => "warn",
        0 => "info",
        1 => "debug",
        _ => "trace",
    };
    let filter = match std::env::var("RUST_LOG") {
        Ok(v) if !v.trim().is_empty() => {
            EnvFilter::try_new(v).unwrap_or_else(|_| EnvFilter::new(level))
        }
        _ => EnvFilter::new(level),
    };
    let ansi = match color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => {
            std::io::stderr().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    let _ = JSON.set(format == LogFormat::Json);
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_env_filter(filter);
    let _ = match format {
        LogFormat::Text => builder.with_ansi(ansi).try_init(),
        LogFormat::Json => builder.json().with_ansi(false).try_init(),
    };
}
