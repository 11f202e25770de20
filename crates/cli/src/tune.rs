//! `lowwater tune`: the command line of `lowwater_replay::tune`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use lowwater_replay::tune::{self, Delay, TuneArgs};
use lowwater_replay::{ReplayArgs, ReplayError};

use crate::{args, load_plan, pairs, partition_counts, progress, write_out, UserError};

/// How `tune` prints its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table and the recommendation.
    Text,
    /// One JSON object (candidates, figures, choice), for scripts.
    Json,
}

/// The options of `lowwater tune`.
pub struct TuneOpts {
    pub job: PathBuf,
    pub inputs: Vec<String>,
    pub partitions: Vec<String>,
    pub idle_timeout: Option<String>,
    pub delay: Option<String>,
    pub max_emission_lag: Option<String>,
    pub max_late: Option<u64>,
    pub format: Format,
    pub stall_threshold: Option<String>,
    pub sort_buffer: String,
    pub threads: Option<usize>,
}

fn items(text: &str) -> impl Iterator<Item = &str> {
    text.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// `--idle-timeout 'disabled,30 s,1 min'`.
pub fn idle_timeouts(text: &str) -> Result<Vec<Option<i64>>, UserError> {
    let v = items(text)
        .map(|t| match t.to_ascii_lowercase().as_str() {
            "disabled" | "off" | "none" => Ok(None),
            _ => args::duration("--idle-timeout", t).map(|d| Some(d).filter(|d| *d > 0)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if v.is_empty() {
        return Err(UserError(format!(
            "--idle-timeout '{text}': give at least one, e.g. 'disabled,30 s,1 min'"
        )));
    }
    Ok(v)
}

/// `--delay 'as written,x2,5 s'`.
pub fn delays(text: &str) -> Result<Vec<Delay>, UserError> {
    let v = items(text)
        .map(|t| {
            let l = t.to_ascii_lowercase();
            match l.as_str() {
                "as written" | "as-written" | "written" | "x1" => Ok(Delay::AsWritten),
                _ if l.starts_with('x') => match l[1..].trim().parse::<u32>() {
                    Ok(k) if k >= 1 => Ok(Delay::Times(k)),
                    _ => Err(UserError(format!(
                        "--delay '{t}': a multiple of the job's delay is x2, x4, ..."
                    ))),
                },
                _ => args::duration("--delay", t).map(Delay::Fixed),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    if v.is_empty() {
        return Err(UserError(format!(
            "--delay '{text}': give at least one, e.g. 'as written,x2,30 s'"
        )));
    }
    Ok(v)
}

/// Runs `lowwater tune`.
pub fn run(o: TuneOpts, quiet: bool, json_logs: bool) -> Result<()> {
    let plan = load_plan(&o.job)?;
    let mut args = TuneArgs {
        replay: ReplayArgs {
            inputs: pairs(&o.inputs, "--input")?
                .into_iter()
                .map(|(t, f)| (t, PathBuf::from(f)))
                .collect(),
            partitions: partition_counts(&o.partitions)?,
            drain: false,
            stall_threshold: match o.stall_threshold {
                Some(s) => Some(args::duration("--stall-threshold", &s)?),
                None => None,
            },
            sort_buffer_bytes: args::memory_size("--sort-buffer", &o.sort_buffer)?,
            spill_dir: std::env::temp_dir(),
            ..ReplayArgs::default()
        },
        max_late: o.max_late,
        threads: o.threads.unwrap_or(0),
        ..TuneArgs::default()
    };
    if let Some(t) = &o.idle_timeout {
        args.idle_timeouts = idle_timeouts(t)?;
    }
    if let Some(d) = &o.delay {
        args.delays = delays(d)?;
    }
    if let Some(m) = &o.max_emission_lag {
        args.max_emission_lag = Some(args::duration("--max-emission-lag", m)?);
    }
    for n in &plan.flink_notes {
        eprintln!("warning: Flink would refuse this job: {n}");
    }
    let mut bar = progress::Bar::new(quiet, json_logs);
    let tuned = tune::tune(&plan, &args, &mut |p| bar.update(p));
    bar.finish();
    let tuned = tuned.map_err(|e| match e {
        // The message names the file and the cause (not twice).
        ReplayError::Io { .. } => anyhow::anyhow!(e.to_string()),
        other => UserError(other.to_string()).into(),
    })?;
    let text = match o.format {
        Format::Text => tune::render(&tuned, &plan),
        Format::Json => {
            let mut j = sonic_rs::to_string_pretty(&tuned).context("serializing the result")?;
            j.push('\n');
            j
        }
    };
    write_out(std::path::Path::new("-"), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_written() {
        assert_eq!(
            idle_timeouts("disabled, 30 s,1 min").expect("a list"),
            vec![None, Some(30_000), Some(60_000)]
        );
        assert_eq!(
            delays("as written,x2, 5 s").expect("a list"),
            vec![Delay::AsWritten, Delay::Times(2), Delay::Fixed(5_000)]
        );
        assert!(idle_timeouts("30")
            .expect_err("refused")
            .0
            .contains("did you mean '30 s'"));
        assert!(delays("x0").expect_err("refused").0.contains("x2, x4"));
        assert!(idle_timeouts(" , ")
            .expect_err("refused")
            .0
            .contains("at least one"));
    }
}
