//! The `lowwater` command: a thin shell over the library crates.
//!
//! - `lowwater run JOB.sql [--duration D] [--input T=DUMP ...] [--output T=FILE ...] [--report FILE]`
//! - `lowwater replay JOB.sql --input T=FILE ... [--output T=FILE ...] [--report FILE]`
//! - `lowwater tune JOB.sql --input T=FILE ... [--max-emission-lag D] [--max-late N]`
//! - `lowwater explain JOB.sql [--partitions T=N ...]`
//! - `lowwater dump TOPIC --bootstrap HOST:PORT [--from T] [--to T] [--output FILE]`
//! - `lowwater status --url http://HOST:PORT` (a job run with `--http`)
//!
//! Exit codes: 0 success, 1 a failure while running (reading or writing
//! files, a broker), 2 a problem with the job, its inputs or the command
//! line (the message says where). `status`: 0 healthy, 1 stalled, 2
//! unreachable. A closed pipe (`| head`) ends the command quietly.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use lowwater_connectors::dump::write_records;
use lowwater_replay::{replay_observed, report, ReplayArgs, ReplayError};
use lowwater_sql::plan::JobPlan;

mod args;
mod flink;
mod logging;
mod progress;
mod status;
mod tune;

#[derive(Parser)]
#[command(
    name = "lowwater",
    version,
    about = "Event-time windowed aggregation over Kafka, with watermarks you can see"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// More log detail (-v DEBUG, -vv TRACE); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// Less log detail (-q WARN, -qq ERROR); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    quiet: u8,
    /// Colour the logs: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_enum, default_value = "auto", global = true)]
    color: logging::Color,
    /// Log lines as text or as JSON objects (for log shippers).
    #[arg(long, value_enum, default_value = "text", global = true)]
    log_format: logging::LogFormat,
}

#[derive(Subcommand)]
enum Command {
    /// Run a job on real time until its bounded inputs end (then every window
    /// fires), Ctrl-C / SIGTERM, or --duration (then it stops and flushes).
    Run {
        /// The job file (Flink SQL).
        job: PathBuf,
        /// TABLE=DUMP: read a source table from a topic dump (kcat -J lines) instead of its connector.
        #[arg(long = "input", value_name = "TABLE=DUMP")]
        inputs: Vec<String>,
        /// TABLE=FILE: write a sink table's rows as a topic dump instead of its connector.
        #[arg(long = "output", value_name = "TABLE=FILE")]
        outputs: Vec<String>,
        /// Stop after this long (e.g. '60 s').
        #[arg(long, value_name = "DURATION")]
        duration: Option<String>,
        /// Where to write the JSON report at the end (the replay report's shape).
        #[arg(long)]
        report: Option<PathBuf>,
        /// Warn about stalls longer than this; default 3 x max(window, emit interval).
        #[arg(long, value_name = "DURATION")]
        stall_threshold: Option<String>,
        /// Override the job's 'parallelism.default'.
        #[arg(long, value_name = "N")]
        parallelism: Option<usize>,
        /// Serve /metrics, /api/v1/watermarks and a web page on this address
        /// while the job runs (e.g. 127.0.0.1:9249; port 0 picks a free one).
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// Restore this checkpoint file (or the newest in this directory)
        /// instead of the job's own newest checkpoint.
        #[arg(long, value_name = "PATH", conflicts_with = "reset_state")]
        from_checkpoint: Option<PathBuf>,
        /// Start without the job's checkpoints: reading starts where
        /// scan.startup.mode says (the old checkpoints are retired as new
        /// ones are taken).
        #[arg(long)]
        reset_state: bool,
        /// When the job changed so that its checkpoint's window state does
        /// not fit (an aggregate, key, WHERE or window): rebuild the windows
        /// open at the checkpoint with the changed job, reading their records
        /// again from the checkpoint's offsets; windows the old job wrote
        /// are not written again.
        #[arg(long, conflicts_with = "reset_state")]
        rebuild_open_windows: bool,
    },
    /// Show a running job's partitions and watermarks (from its --http address).
    /// Exit code: 0 healthy, 1 stalled, 2 unreachable.
    Status {
        /// The job's HTTP address, e.g. http://127.0.0.1:9249 (`http://` may be left out).
        #[arg(long)]
        url: String,
        /// How long to wait for the answer (`5 s`, `500 ms`).
        #[arg(long, default_value = "5 s")]
        timeout: String,
        /// Print the job's /api/v1/watermarks JSON instead of the table.
        #[arg(long)]
        json: bool,
        /// Print again every interval (e.g. `2 s`) until interrupted.
        #[arg(long, value_name = "INTERVAL", num_args = 0..=1, default_missing_value = "2 s")]
        watch: Option<String>,
        /// Print the flight recorder instead: what held each INSERT's watermark and when,
        /// partitions going idle and active, stalls (the last day).
        #[arg(long, conflicts_with_all = ["json", "watch"])]
        history: bool,
        /// With --history: from this time (`2025-09-14 02:00:00`, UTC) or this long ago (`2 h`).
        #[arg(long, requires = "history", value_name = "TIME")]
        since: Option<String>,
    },
    /// Stop a running job with its final checkpoint (through its --http address, from the same
    /// machine), optionally copied into a savepoint directory that `run --from-checkpoint` reads.
    Stop {
        /// The job's HTTP address, e.g. http://127.0.0.1:9249 (`http://` may be left out).
        #[arg(long)]
        url: String,
        /// Where to keep the final checkpoint (a directory, created if needed).
        #[arg(long, value_name = "DIR")]
        savepoint: Option<PathBuf>,
        /// How long to wait for the final checkpoint (`2 min`).
        #[arg(long, default_value = "2 min")]
        timeout: String,
    },
    /// Replay a job over topic dumps (kcat -J lines) in virtual processing time.
    Replay {
        /// The job file (Flink SQL).
        job: PathBuf,
        /// TABLE=FILE: a dump that feeds a source table (repeatable).
        #[arg(long = "input", value_name = "TABLE=FILE", required = true)]
        inputs: Vec<String>,
        /// TABLE=FILE: where a sink table's rows are written as a dump (repeatable).
        #[arg(long = "output", value_name = "TABLE=FILE")]
        outputs: Vec<String>,
        /// Where to write the JSON report.
        #[arg(long)]
        report: Option<PathBuf>,
        /// TABLE=N: the table's topic has partitions 0..N-1, even those without records.
        #[arg(long = "partitions", value_name = "TABLE=N")]
        partitions: Vec<String>,
        /// Stop at the end of input without flushing the MAX watermark.
        #[arg(long)]
        no_drain: bool,
        /// Report stalls longer than this (e.g. '5 min'); default 3 x max(window, emit interval).
        #[arg(long, value_name = "DURATION")]
        stall_threshold: Option<String>,
        /// Memory for ordering the dumps by arrival time (e.g. '256 MB'); larger dumps are
        /// sorted in runs written to the temporary directory (TMPDIR) and merged.
        #[arg(long, value_name = "SIZE", default_value = "32 MB")]
        sort_buffer: String,
    },
    /// Choose the idle timeout and watermark delay from a dump: replay it once per
    /// candidate setting and compare how late windows leave and what is dropped.
    Tune {
        /// The job file (Flink SQL).
        job: PathBuf,
        /// TABLE=FILE: a dump that feeds a source table (repeatable).
        #[arg(long = "input", value_name = "TABLE=FILE", required = true)]
        inputs: Vec<String>,
        /// TABLE=N: the table's topic has partitions 0..N-1, even those without records.
        #[arg(long = "partitions", value_name = "TABLE=N")]
        partitions: Vec<String>,
        /// Idle timeouts to try, comma-separated
        /// [default: disabled,10 s,30 s,1 min,2 min,5 min,10 min].
        #[arg(long, value_name = "LIST")]
        idle_timeout: Option<String>,
        /// Watermark delays to try: durations, or multiples of the job's (x2)
        /// [default: as written,x2,x4].
        #[arg(long, value_name = "LIST")]
        delay: Option<String>,
        /// The SLO: windows must leave within this of their end (default: the
        /// sinks' 'lowwater.sink.max-emission-lag', if set).
        #[arg(long, value_name = "DURATION")]
        max_emission_lag: Option<String>,
        /// The most late records that may be dropped over the dump.
        #[arg(long, value_name = "N")]
        max_late: Option<u64>,
        /// Print a table (text) or one JSON object (json).
        #[arg(long, value_enum, default_value = "text")]
        format: tune::Format,
        /// Report stalls longer than this; default 3 x max(window, emit interval).
        #[arg(long, value_name = "DURATION")]
        stall_threshold: Option<String>,
        /// Memory for ordering the dumps by arrival time (see replay).
        #[arg(long, value_name = "SIZE", default_value = "32 MB")]
        sort_buffer: String,
        /// Threads replaying candidates (default: one per core).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
    /// Write a Kafka topic as a topic dump (kcat -J lines) for `lowwater replay`.
    Dump {
        /// The topic.
        topic: String,
        /// Kafka brokers, e.g. 127.0.0.1:9092.
        #[arg(long)]
        bootstrap: String,
        /// Where to write the dump (default: standard output).
        #[arg(long)]
        output: Option<PathBuf>,
        /// A librdkafka property, as kcat's -X (repeatable): `-X security.protocol=SASL_SSL`.
        #[arg(short = 'X', value_name = "KEY=VALUE")]
        properties: Vec<String>,
        /// Start at this record time: epoch milliseconds or 'yyyy-MM-dd HH:mm:ss' (UTC); default the beginning.
        #[arg(long)]
        from: Option<String>,
        /// Stop after this record time (same forms); default the end the topic had when the dump started.
        #[arg(long)]
        to: Option<String>,
    },
    /// Print the plan, the partition -> subtask map and watermark warnings.
    Explain {
        /// The job file (Flink SQL).
        job: PathBuf,
        /// TABLE=N: partitions of the table's topic, for the map and warnings.
        #[arg(long = "partitions", value_name = "TABLE=N")]
        partitions: Vec<String>,
        /// `flink`: also list what in the file is lowwater's own and what
        /// Flink does instead (before `lowwater submit`).
        #[arg(long, value_name = "ENGINE")]
        target: Option<String>,
    },
    /// Watch a job running on Apache Flink: its partitions' watermarks from
    /// Flink's REST API, stalls named by partition and subtask, on the same
    /// logs, /metrics, /api/v1/watermarks and web page as a lowwater job.
    /// Exit code: 0, or 1 when a stall is going on at the end or the Flink
    /// job failed.
    Watch {
        /// Flink's REST address (the JobManager's web UI), e.g. http://127.0.0.1:8081.
        #[arg(long, value_name = "URL")]
        flink: String,
        #[command(flatten)]
        w: flink::WatchArgs,
    },
    /// Submit a job file to Flink's SQL Gateway, then watch it (as `watch`).
    Submit {
        /// The job file (Flink SQL).
        #[arg(value_name = "JOB")]
        file: PathBuf,
        /// The SQL Gateway's address, e.g. http://127.0.0.1:8083.
        #[arg(long, value_name = "URL")]
        flink: String,
        /// Flink's REST address to watch the job at (default: the gateway's host, port 8081).
        #[arg(long, value_name = "URL")]
        rest: Option<String>,
        /// Print the job id and return without watching.
        #[arg(long)]
        no_watch: bool,
        #[command(flatten)]
        w: flink::WatchArgs,
    },
}

/// An error that is the user's to fix (exit code 2).
#[derive(Debug)]
struct UserError(String);

impl std::fmt::Display for UserError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UserError {}

fn pairs(args: &[String], flag: &str) -> Result<Vec<(String, String)>> {
    args.iter()
        .map(|a| match a.split_once('=') {
            Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => Err(UserError(format!("{flag} {a}: expected TABLE=VALUE")).into()),
        })
        .collect()
}

fn partition_counts(args: &[String]) -> Result<Vec<(String, i32)>> {
    pairs(args, "--partitions")?
        .into_iter()
        .map(|(t, n)| match n.parse::<i32>() {
            Ok(n) if n > 0 && n <= lowwater_sql::explain::MAX_PARTITIONS => Ok((t, n)),
            _ => Err(UserError(format!(
                "--partitions {t}={n}: N must be between 1 and {}",
                lowwater_sql::explain::MAX_PARTITIONS
            ))
            .into()),
        })
        .collect()
}

fn stop_flag() -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>> {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::SeqCst))
        .context("installing the Ctrl-C/SIGTERM handler")?;
    Ok(stop)
}

fn load_plan(job: &Path) -> Result<JobPlan> {
    let sql = std::fs::read_to_string(job).with_context(|| format!("reading {}", job.display()))?;
    JobPlan::from_sql(&sql).map_err(|e| UserError(format!("{}: {e}", job.display())).into())
}

fn duration_arg(flag: &str, v: Option<String>) -> Result<Option<i64>> {
    match v {
        Some(s) => Ok(Some(args::duration(flag, &s)?)),
        None => Ok(None),
    }
}

/// Writes `bytes` to `path`, or to standard output for `-`.
fn write_out(path: &Path, bytes: &[u8]) -> Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes).context("writing to standard output")?;
        return out.flush().context("writing to standard output");
    }
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

fn write_report(path: &Option<PathBuf>, report: &lowwater_replay::Report) -> Result<()> {
    if let Some(path) = path {
        let mut json = sonic_rs::to_string_pretty(report).context("serializing the report")?;
        json.push('\n');
        write_out(path, json.as_bytes())?;
    }
    Ok(())
}

/// `explain`: the partition counts not given with `--partitions`, asked
/// of each Kafka source table's brokers (within 3 s, without creating the
/// topic); a table whose brokers do not answer is said on standard error,
/// and explain goes on without its map.
fn ask_partition_counts(
    plan: &JobPlan,
    mut counts: BTreeMap<String, i32>,
) -> BTreeMap<String, i32> {
    for &t in &plan.source_tables() {
        let table = &plan.tables[t];
        let lowwater_sql::options::Connector::Kafka {
            properties, topics, ..
        } = &table.connector
        else {
            continue;
        };
        let name = table.name.to_ascii_lowercase();
        let [topic] = topics.as_slice() else {
            continue;
        };
        if counts.contains_key(&name) {
            continue;
        }
        match lowwater_kafka::partition_count(properties, topic, std::time::Duration::from_secs(3))
        {
            Ok(Some(n)) => {
                counts.insert(name, n);
            }
            Ok(None) => eprintln!(
                "explain: topic '{topic}' (table {}) does not exist on its brokers yet; pass \
                 --partitions {}=N for the partitions it will have",
                table.name, table.name
            ),
            Err(e) => eprintln!(
                "explain: the partitions of topic '{topic}' (table {}) are not known ({e}); pass \
                 --partitions {}=N",
                table.name, table.name
            ),
        }
    }
    counts
}

/// The options of `lowwater run`.
struct RunOpts {
    job: PathBuf,
    inputs: Vec<String>,
    outputs: Vec<String>,
    duration: Option<String>,
    report: Option<PathBuf>,
    stall_threshold: Option<String>,
    parallelism: Option<usize>,
    http: Option<String>,
    from_checkpoint: Option<PathBuf>,
    reset_state: bool,
    rebuild_open_windows: bool,
}

/// The name a job's checkpoints are kept under: `pipeline.name` when the
/// job sets it, else the job file's name without its extension.
fn job_name(plan: &JobPlan, job: &Path) -> String {
    let name = plan
        .settings
        .name
        .clone()
        .or_else(|| job.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "job".to_string());
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn run_job(o: RunOpts) -> Result<()> {
    let RunOpts {
        job,
        inputs,
        outputs,
        duration,
        report: report_path,
        stall_threshold,
        parallelism,
        http,
        from_checkpoint,
        reset_state,
        rebuild_open_windows,
    } = o;
    let (job, inputs, outputs, report_path) = (&job, &inputs, &outputs, &report_path);
    let mut plan = load_plan(job)?;
    if let Some(p) = parallelism {
        if !(1..=1024).contains(&p) {
            bail!(UserError(format!("--parallelism {p}: must be 1..1024")));
        }
        plan.settings.parallelism = p;
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::SeqCst))
        .context("installing the Ctrl-C/SIGTERM handler")?;
    let args = lowwater_runtime::RunArgs {
        inputs: pairs(inputs, "--input")?
            .into_iter()
            .map(|(t, f)| (t, PathBuf::from(f)))
            .collect(),
        outputs: pairs(outputs, "--output")?
            .into_iter()
            .map(|(t, f)| (t, PathBuf::from(f)))
            .collect(),
        duration: duration_arg("--duration", duration)?
            .map(|ms| std::time::Duration::from_millis(ms.max(0) as u64)),
        stall_threshold: duration_arg("--stall-threshold", stall_threshold)?,
        stop,
        http: http.as_deref().map(args::http_addr),
        job_name: job_name(&plan, job),
        from_checkpoint,
        reset_state,
        rebuild_open_windows,
        ..lowwater_runtime::RunArgs::default()
    };
    if let Some(note) = plan.settings.ignored_note() {
        tracing::warn!("{note}");
    }
    for n in &plan.flink_notes {
        tracing::warn!("Flink would refuse this job: {n}");
    }
    tracing::info!(
        "running {} ({} INSERT(s), parallelism {})",
        job.display(),
        // A join into a sink is an INSERT; a join a window reads is part of
        // that window's.
        plan.pipelines.len()
            + plan.joins.iter().filter(|j| j.into.is_none()).count()
            + plan.intervals.iter().filter(|j| j.into.is_none()).count(),
        plan.settings.parallelism
    );
    let outcome = lowwater_runtime::run(&plan, &args).map_err(|e| match e {
        lowwater_runtime::RunError::Io(m) => anyhow::anyhow!(m),
        other => UserError(other.to_string()).into(),
    })?;
    write_report(report_path, &outcome.report)?;
    tracing::info!(
        "{}",
        if outcome.completed {
            "inputs ended: every window fired"
        } else {
            "stopped: emitted rows are flushed, windows still open were not fired"
        }
    );
    logging::summary(&report::summary_for("run", &outcome.report));
    Ok(())
}

fn time_arg(flag: &str, v: Option<String>) -> Result<Option<i64>> {
    match v {
        None => Ok(None),
        Some(t) => match t.trim().parse::<i64>() {
            Ok(ms) => Ok(Some(ms)),
            Err(_) => lowwater_core::time::parse_timestamp(&t)
                .map(Some)
                .ok_or_else(|| {
                    UserError(format!(
                        "{flag} '{t}': expected epoch milliseconds or 'yyyy-MM-dd HH:mm:ss'"
                    ))
                    .into()
                }),
        },
    }
}

fn dump(
    topic: &str,
    bootstrap: &str,
    output: &Option<PathBuf>,
    (from, to): (Option<String>, Option<String>),
    properties: &[String],
) -> Result<()> {
    let (from, to) = (time_arg("--from", from)?, time_arg("--to", to)?);
    let properties = pairs(properties, "-X")?;
    let mut out: Box<dyn Write> = match output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    };
    let mut closed = false;
    let n = lowwater_kafka::dump_topic(bootstrap, topic, from, to, &properties, |r| {
        // Bytes that are not UTF-8 (Avro) go to the dump as base64.
        let rec = lowwater_connectors::dump::DumpRecord {
            topic: r.topic,
            partition: r.partition,
            offset: Some(r.offset),
            ts: r.timestamp.unwrap_or(0),
            key: r.key,
            payload: r.payload,
        };
        writeln!(out, "{}", lowwater_connectors::dump::format_record(&rec)).map_err(|e| {
            closed = e.kind() == std::io::ErrorKind::BrokenPipe;
            e.to_string()
        })
    });
    if closed {
        // The reader went away (`| head`): nothing more to say.
        return Ok(());
    }
    let n = n.map_err(UserError)?;
    out.flush().context("writing the dump")?;
    eprintln!("dump: {n} records of {topic}");
    Ok(())
}

fn run(cli: Cli) -> Result<ExitCode> {
    logging::init(cli.verbose, cli.quiet, cli.color, cli.log_format);
    let (quiet, json_logs) = (cli.quiet, cli.log_format == logging::LogFormat::Json);
    match cli.command {
        Command::Dump {
            topic,
            bootstrap,
            output,
            from,
            to,
            properties,
        } => dump(&topic, &bootstrap, &output, (from, to), &properties).map(|()| ExitCode::SUCCESS),
        Command::Run {
            job,
            inputs,
            outputs,
            duration,
            report,
            stall_threshold,
            parallelism,
            http,
            from_checkpoint,
            reset_state,
            rebuild_open_windows,
        } => run_job(RunOpts {
            job,
            inputs,
            outputs,
            duration,
            report,
            stall_threshold,
            parallelism,
            http,
            from_checkpoint,
            reset_state,
            rebuild_open_windows,
        })
        .map(|()| ExitCode::SUCCESS),
        Command::Status {
            url,
            timeout,
            json,
            watch,
            history,
            since,
        } => {
            let ms = args::duration("--timeout", &timeout)?.max(1);
            let timeout = std::time::Duration::from_millis(ms as u64);
            if history {
                status::history(&url, since.as_deref(), timeout)?;
                return Ok(ExitCode::SUCCESS);
            }
            let Some(every) = watch else {
                let stalled = status::status(&url, timeout, json)?;
                return Ok(ExitCode::from(u8::from(stalled)));
            };
            let every = std::time::Duration::from_millis(
                args::duration("--watch", &every)?.max(100) as u64,
            );
            loop {
                if let Err(e) = status::status(&url, timeout, json) {
                    eprintln!("error: {e:#}");
                }
                std::thread::sleep(every);
            }
        }
        Command::Stop {
            url,
            savepoint,
            timeout,
        } => {
            let ms = args::duration("--timeout", &timeout)?.max(1);
            let timeout = std::time::Duration::from_millis(ms as u64);
            println!("{}", status::stop(&url, savepoint.as_deref(), timeout)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Tune {
            job,
            inputs,
            partitions,
            idle_timeout,
            delay,
            max_emission_lag,
            max_late,
            format,
            stall_threshold,
            sort_buffer,
            threads,
        } => tune::run(
            tune::TuneOpts {
                job,
                inputs,
                partitions,
                idle_timeout,
                delay,
                max_emission_lag,
                max_late,
                format,
                stall_threshold,
                sort_buffer,
                threads,
            },
            quiet > 0,
            json_logs,
        )
        .map(|()| ExitCode::SUCCESS),
        Command::Watch { flink: url, w } => flink::watch_command(url, w, stop_flag()?),
        Command::Submit {
            file,
            flink: gateway,
            rest,
            no_watch,
            w,
        } => flink::submit_command(
            flink::SubmitOpts {
                rest,
                job: file,
                no_watch,
                gateway,
            },
            w,
            stop_flag,
        ),
        Command::Explain {
            job,
            partitions,
            target,
        } => {
            let plan = load_plan(&job)?;
            let counts: BTreeMap<String, i32> = partition_counts(&partitions)?
                .into_iter()
                .map(|(t, n)| (t.to_ascii_lowercase(), n))
                .collect();
            for t in counts.keys() {
                if plan.table(t).is_none() {
                    bail!(UserError(format!(
                        "--partitions names table '{t}', which the job does not define"
                    )));
                }
            }
            let counts = ask_partition_counts(&plan, counts);
            let mut text = lowwater_sql::explain::explain(&plan, &counts);
            match target.as_deref().map(str::to_ascii_lowercase).as_deref() {
                None | Some("lowwater") => {}
                Some("flink") => text.push_str(&flink::flink_target(&job)?),
                Some(other) => bail!(UserError(format!(
                    "--target {other}: lowwater knows 'flink' (what Flink does with this file)"
                ))),
            }
            write_out(Path::new("-"), text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Replay {
            job,
            inputs,
            outputs,
            report: report_path,
            partitions,
            no_drain,
            stall_threshold,
            sort_buffer,
        } => {
            let plan = load_plan(&job)?;
            let stall_threshold = duration_arg("--stall-threshold", stall_threshold)?;
            let args = ReplayArgs {
                inputs: pairs(&inputs, "--input")?
                    .into_iter()
                    .map(|(t, f)| (t, PathBuf::from(f)))
                    .collect(),
                partitions: partition_counts(&partitions)?,
                drain: !no_drain,
                stall_threshold,
                restarts: Vec::new(),
                sort_buffer_bytes: args::memory_size("--sort-buffer", &sort_buffer)?,
                spill_dir: std::env::temp_dir(),
            };
            let outs = pairs(&outputs, "--output")?;
            for (t, _) in &outs {
                if plan.table(t).is_none() {
                    bail!(UserError(format!(
                        "--output names table '{t}', which the job does not define"
                    )));
                }
            }
            if let Some(note) = plan.settings.ignored_note() {
                eprintln!("warning: {note}");
            }
            for n in &plan.flink_notes {
                eprintln!("warning: Flink would refuse this job: {n}");
            }
            let mut bar = progress::Bar::new(quiet > 0, json_logs);
            let outcome = replay_observed(&plan, &args, &mut |p| bar.update(p));
            bar.finish();
            let outcome = outcome.map_err(|e| match e {
                // The message names the file and the cause (not twice).
                ReplayError::Io { .. } => anyhow::anyhow!(e.to_string()),
                other => UserError(other.to_string()).into(),
            })?;
            for (t, path) in &outs {
                let Some(records) = outcome
                    .outputs
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(t))
                    .map(|(_, r)| r)
                else {
                    bail!(UserError(format!("--output {t}: table '{t}' receives no rows in this job (it is not a sink of any INSERT)")));
                };
                let mut bytes = Vec::new();
                write_records(&mut bytes, records).context("rendering the rows")?;
                write_out(Path::new(path), &bytes)?;
            }
            // Print sinks not sent elsewhere print their rows, as in `run`.
            for t in plan.tables.iter().filter(|t| {
                matches!(t.connector, lowwater_sql::options::Connector::Print)
                    && !outs.iter().any(|(o, _)| o.eq_ignore_ascii_case(&t.name))
            }) {
                let Some(records) = outcome.outputs.get(&t.name) else {
                    continue;
                };
                let mut text = Vec::new();
                for r in records {
                    text.extend_from_slice(r.payload.as_deref().unwrap_or_default());
                    text.push(b'\n');
                }
                if t.options.get("standard-error").is_some_and(|v| v == "true") {
                    std::io::stderr()
                        .write_all(&text)
                        .context("writing to standard error")?;
                } else {
                    write_out(Path::new("-"), &text)?;
                }
            }
            // Rows of sinks replay writes nowhere (Kafka, files): a hint,
            // not silence (replay never writes to their connectors).
            for t in plan.tables.iter().filter(|t| {
                !matches!(
                    t.connector,
                    lowwater_sql::options::Connector::Print
                        | lowwater_sql::options::Connector::Blackhole
                ) && !outs.iter().any(|(o, _)| o.eq_ignore_ascii_case(&t.name))
            }) {
                let rows = outcome.outputs.get(&t.name).map_or(0, Vec::len);
                if rows > 0 {
                    eprintln!(
                        "note: sink {} ({}): its {rows} rows were computed and written nowhere \
                         (replay never writes to a sink's connector); add --output {}=FILE to \
                         see them",
                        t.name,
                        t.connector.name(),
                        t.name
                    );
                }
            }
            write_report(&report_path, &outcome.report)?;
            logging::summary(&report::summary(&outcome.report));
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        // The reader of our output went away (`| head`): end quietly.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<UserError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}
