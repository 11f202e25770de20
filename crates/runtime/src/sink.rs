//! Sink writers: one per sink table, shared by the window subtasks that
//! write to it, with counters readers take without waiting for sink I/O.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use lowwater_connectors::dump::format_record;
use lowwater_connectors::sink::SinkFormat;
use lowwater_core::{Millis, Timestamp, Value};
use lowwater_sql::options::Connector;
use lowwater_sql::plan::JobPlan;

use crate::error::RunError;

/// A sink's counters, behind their own short-held lock: readers (the
/// monitor, the HTTP endpoints) never wait for the sink's I/O, which can
/// block for minutes while a Kafka broker is away.
#[derive(Debug, Clone, Default)]
pub(crate) struct SinkCounters {
    pub rows: u64,
    pub window_rows: u64,
    pub late_rows: u64,
    pub max_lag: Option<Millis>,
    /// When the last row was written, and the emission lag of the last
    /// window row.
    pub last_emit: Option<Timestamp>,
    pub last_lag: Option<Millis>,
    /// Window rows later than `lowwater.sink.max-emission-lag`.
    pub lag_breaches: u64,
    /// Window rows fired early (`lowwater.state.on-limit` = 'fire-oldest').
    pub early_rows: u64,
    /// A jdbc sink's writes: committed, buffered, reconnects, retries.
    pub jdbc: Option<(lowwater_postgres::SinkStats, usize)>,
}

/// Rows after which a writer publishes its counters even before its flush
/// (a long batch, or a sink whose writes block, still shows progress).
const PUBLISH_EVERY: u64 = 4_096;

/// A sink table's writer, shared by the window subtasks writing to it.
pub(crate) struct SinkWriter {
    pub format: SinkFormat,
    pub out: Option<Box<dyn Write + Send>>,
    pub kafka: Option<lowwater_kafka::TopicWriter>,
    /// An exactly-once Kafka sink: rows go into the job's transaction.
    pub txn: Option<crate::txn::TxnSink>,
    /// A filesystem sink under checkpoints: part files per window subtask
    /// (of each INSERT writing to it),
    /// finished when their checkpoint completes.
    pub parts: Option<crate::fs_sink::PartFiles>,
    /// A PostgreSQL table (`jdbc`): rows are buffered and written at its
    /// flushes (rows, interval, checkpoint, end).
    pub jdbc: Option<lowwater_postgres::Sink>,
    pub dump: bool,
    /// Rows written (the offsets of dump output).
    pub written: u64,
    pub counters: Arc<Mutex<SinkCounters>>,
    /// What the rows written since the last flush add to `counters`:
    /// published at the flush (or after `PUBLISH_EVERY` rows), one lock per
    /// batch of rows, not per row.
    pub tally: SinkCounters,
    /// Emission lag of window rows, in seconds.
    pub lag_seconds: prometheus_client::metrics::histogram::Histogram,
    /// `lowwater.sink.max-emission-lag`.
    pub max_emission_lag: Option<Millis>,
    /// Windows that ended before this time (the run's start) are the
    /// catch-up over records older than the run: their rows are late
    /// against the clock by the backlog's age, not by a stall, and are not
    /// counted against `lowwater.sink.max-emission-lag`.
    pub breaches_from: Timestamp,
}

/// A file writer whose errors name the file (a full disk says which).
struct Named<W> {
    w: W,
    name: String,
}

impl<W: Write> Write for Named<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.w.write(buf).map_err(|e| self.err(e))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush().map_err(|e| self.err(e))
    }
}

impl<W> Named<W> {
    fn err(&self, e: std::io::Error) -> std::io::Error {
        std::io::Error::new(e.kind(), format!("{}: {e}", self.name))
    }
}

impl SinkWriter {
    /// Writes one row of window subtask `subtask` (`writer`: that subtask's
    /// number among the window subtasks of every INSERT, for part files).
    pub fn write(
        &mut self,
        values: &[Value],
        now: Timestamp,
        lag: Option<Millis>,
        (subtask, writer): (usize, usize),
    ) -> std::io::Result<()> {
        let offset = self.written as i64;
        self.written += 1;
        let c = &mut self.tally;
        c.rows += 1;
        c.last_emit = Some(now);
        match lag {
            Some(l) => {
                c.window_rows += 1;
                c.max_lag = Some(c.max_lag.map_or(l, |m| m.max(l)));
                c.last_lag = Some(l);
                let live = now.saturating_sub(l) >= self.breaches_from;
                if live && self.max_emission_lag.is_some_and(|m| l > m) {
                    c.lag_breaches += 1;
                }
            }
            None => c.late_rows += 1,
        }
        if let Some(l) = lag {
            self.lag_seconds.observe(l as f64 / 1000.0);
        }
        if self.tally.rows >= PUBLISH_EVERY {
            self.publish();
        }
        if let Some(k) = &mut self.kafka {
            let r = self.format.render(values).map_err(std::io::Error::other)?;
            return k
                .send(r.key.as_deref(), &r.payload, now, subtask)
                .map_err(std::io::Error::other);
        }
        if let Some(t) = &mut self.txn {
            let r = self.format.render(values).map_err(std::io::Error::other)?;
            return t
                .send(r.key.as_deref(), &r.payload, now, subtask)
                .map_err(std::io::Error::other);
        }
        if let Some(p) = &mut self.parts {
            let r = self.format.render(values).map_err(std::io::Error::other)?;
            return p.write(writer, &r.payload);
        }
        if let Some(j) = &mut self.jdbc {
            self.format
                .check_not_null(values)
                .map_err(std::io::Error::other)?;
            return j.push(values).map_err(std::io::Error::other);
        }
        let Some(out) = self.out.as_mut() else {
            return Ok(());
        };
        if self.dump {
            let r = self
                .format
                .dump_record(values, offset, now)
                .map_err(std::io::Error::other)?;
            writeln!(out, "{}", format_record(&r))
        } else {
            let r = self.format.render(values).map_err(std::io::Error::other)?;
            out.write_all(&r.payload)?;
            out.write_all(b"\n")
        }
    }

    /// Adds the tally of the rows written since the last time to the
    /// counters readers see.
    fn publish(&mut self) {
        // A jdbc sink's figures go with the rows' counts, under one lock.
        let jdbc = self.jdbc.as_ref().map(|j| (j.stats(), j.buffered()));
        let t = std::mem::take(&mut self.tally);
        if t.rows == 0 && jdbc.is_none() {
            return;
        }
        if let Ok(mut c) = self.counters.lock() {
            if jdbc.is_some() {
                c.jdbc = jdbc;
            }
            c.rows += t.rows;
            c.window_rows += t.window_rows;
            c.late_rows += t.late_rows;
            c.lag_breaches += t.lag_breaches;
            c.early_rows += t.early_rows;
            c.max_lag = c.max_lag.max(t.max_lag);
            c.last_emit = t.last_emit.or(c.last_emit);
            c.last_lag = t.last_lag.or(c.last_lag);
        }
    }

    /// Publishes the counters of the rows written, then flushes them: a
    /// Kafka sink waits until the broker acknowledged every row (a
    /// checkpoint's barrier and the job's end).
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.flush_emitted()?;
        self.flush_buffered()?;
        match &self.kafka {
            Some(k) => k.flush().map_err(std::io::Error::other),
            None => Ok(()),
        }
    }

    /// After a batch of window rows: publishes the counters and flushes
    /// what a reader waits on (stdout, files). A Kafka producer is not
    /// waited on: its rows leave within its `linger.ms` anyway, a
    /// checkpoint and the job's end wait for every acknowledgement
    /// ([`SinkWriter::flush`]), and a row the broker refused fails the job
    /// at the next row or flush. (Waiting here held a job writing a few
    /// rows per watermark to one broker round trip per watermark.)
    /// Whether every row written so far is in the sink for good: a Kafka
    /// sink's rows acknowledged by the broker (no wait); every other sink's
    /// once written and flushed. An error if the broker refused any.
    pub fn acknowledged(&mut self) -> std::io::Result<bool> {
        if let Some(j) = &self.jdbc {
            return Ok(j.buffered() == 0);
        }
        match &mut self.kafka {
            Some(k) => k.acknowledged().map_err(std::io::Error::other),
            None => Ok(true),
        }
    }

    /// The interval flush of a jdbc sink (`sink.buffer-flush.interval`):
    /// its buffered rows written now.
    pub fn flush_buffered(&mut self) -> std::io::Result<()> {
        let Some(j) = &mut self.jdbc else {
            return Ok(());
        };
        if j.buffered() == 0 {
            return Ok(());
        }
        // Readers see the rows waiting while the flush runs (through a
        // server's outage, for up to its retry timeout), then the outcome.
        self.publish_jdbc();
        let flushed = self
            .jdbc
            .as_mut()
            .map_or(Ok(()), |j| j.flush().map_err(std::io::Error::other));
        self.publish_jdbc();
        flushed
    }

    /// A jdbc sink's figures, to the counters readers see.
    fn publish_jdbc(&mut self) {
        let Some(j) = &self.jdbc else {
            return;
        };
        let figures = (j.stats(), j.buffered());
        if let Ok(mut c) = self.counters.lock() {
            c.jdbc = Some(figures);
        }
    }

    pub fn flush_emitted(&mut self) -> std::io::Result<()> {
        self.publish();
        if let Some(k) = &mut self.kafka {
            k.poll().map_err(std::io::Error::other)?;
        }
        if let Some(p) = &mut self.parts {
            p.flush()?;
        }
        match self.out.as_mut() {
            Some(o) => o.flush(),
            None => Ok(()),
        }
    }
}

/// The writer of sink table `t`: its connector, or a dump file when
/// `--output` names it; Kafka exactly-once sinks write into the job's
/// transaction, filesystem sinks under checkpoints into part files.
#[allow(clippy::too_many_arguments)]
/// The operators whose subtasks write sinks, numbered: the INSERTs' window
/// aggregations, then the joins (`crate::joins::joins`).
pub(crate) fn operators(plan: &JobPlan) -> usize {
    plan.pipelines.len() + crate::joins::joins(plan).len()
}

/// The number of subtask `subtask` of operator `operator` among every
/// writer of a filesystem sink (its own part files).
pub(crate) fn writer(plan: &JobPlan, operator: usize, subtask: usize) -> usize {
    operator * plan.settings.parallelism + subtask
}

pub(crate) fn sink_writer(
    plan: &JobPlan,
    t: usize,
    outputs: &[(usize, PathBuf)],
    lag_histograms: &lowwater_observe::live::LagFamily,
    eo: Option<&crate::txn::ExactlyOnce>,
    (restored, start): (Option<lowwater_core::checkpoint::CheckpointId>, Timestamp),
) -> Result<SinkWriter, RunError> {
    let table = &plan.tables[t];
    let format = SinkFormat::new(table, lowwater_connectors::avro::Registration::Register)
        .map_err(RunError::Usage)?;
    let file = |p: &PathBuf| -> Result<Box<dyn Write + Send>, RunError> {
        // `--output TABLE=-`: the dump goes to standard output.
        if p.as_os_str() == "-" {
            return Ok(Box::new(std::io::stdout()));
        }
        let f =
            std::fs::File::create(p).map_err(|e| RunError::Io(format!("{}: {e}", p.display())))?;
        Ok(Box::new(Named {
            w: std::io::BufWriter::new(f),
            name: p.display().to_string(),
        }))
    };
    let mut kafka = None;
    let mut txn = None;
    let mut parts = None;
    let mut jdbc = None;
    let (out, dump): (Option<Box<dyn Write + Send>>, bool) =
        match outputs.iter().find(|(o, _)| *o == t) {
            Some((_, path)) => (Some(file(path)?), true),
            None => match &table.connector {
                Connector::Print => (Some(Box::new(std::io::stdout())), false),
                Connector::Blackhole => (None, false),
                Connector::Filesystem { path } if plan.settings.checkpoints.interval.is_some() => {
                    // One writer per window subtask of every INSERT (a table can
                    // be the sink of several, or a shared late-data sink), and
                    // per join subtask (numbered after them).
                    let writers = writer(plan, operators(plan), 0);
                    parts = Some(
                        crate::fs_sink::PartFiles::open(
                            &PathBuf::from(path),
                            writers,
                            restored.unwrap_or(0),
                        )
                        .map_err(|e| RunError::Io(format!("sink '{}': {e}", table.name)))?,
                    );
                    (None, false)
                }
                Connector::Filesystem { path } => {
                    let dir = PathBuf::from(path);
                    std::fs::create_dir_all(&dir)
                        .map_err(|e| RunError::Io(format!("{}: {e}", dir.display())))?;
                    (Some(file(&dir.join("part-0.json"))?), false)
                }
                Connector::Kafka {
                    topics, properties, ..
                } => {
                    let properties = &upsert_partitioner(table, properties);
                    let topic = topics.first().cloned().unwrap_or_default();
                    let partitioner = table
                        .options
                        .get("sink.partitioner")
                        .and_then(|v| lowwater_kafka::Partitioner::parse(v))
                        .unwrap_or(lowwater_kafka::Partitioner::Default);
                    let fail = |e: String| RunError::Usage(format!("sink '{}': {e}", table.name));
                    // A misspelled topic would be created by a broker that
                    // auto-creates topics, and the rows would go where no
                    // one reads them: the topic must exist, unless the table
                    // opts into the producer's auto-creation.
                    let opted = properties
                        .get("allow.auto.create.topics")
                        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
                    if !opted && !lowwater_kafka::topic_exists(properties, &topic).map_err(fail)? {
                        return Err(RunError::Usage(format!(
                            "sink '{}': topic '{topic}' does not exist on {}: create it (with the \
                             partitions it needs, e.g. `bash scripts/kafka.sh create {topic} 4` on \
                             the local broker), correct 'topic', or set \
                             'properties.allow.auto.create.topics' = 'true' to have the broker \
                             create it",
                            table.name,
                            properties
                                .get("bootstrap.servers")
                                .map_or("the brokers", String::as_str)
                        )));
                    }
                    match eo.filter(|_| table.exactly_once()) {
                        Some(eo) => {
                            txn = Some(
                                crate::txn::TxnSink::new(eo, properties, &topic, partitioner)
                                    .map_err(fail)?,
                            )
                        }
                        None => {
                            kafka = Some(
                                lowwater_kafka::TopicWriter::new(properties, &topic, partitioner)
                                    .map_err(fail)?,
                            )
                        }
                    }
                    (None, false)
                }
                Connector::Jdbc(j) => {
                    let columns: Vec<lowwater_postgres::SinkColumn> = table
                        .columns
                        .iter()
                        .map(|c| lowwater_postgres::SinkColumn {
                            name: c.name.clone(),
                            ty: c.ty,
                        })
                        .collect();
                    jdbc = Some(
                        lowwater_postgres::Sink::open(j, &columns, table.primary_key.as_deref())
                            .map_err(|e| RunError::Usage(format!("sink '{}': {e}", table.name)))?,
                    );
                    (None, false)
                }
                other => {
                    return Err(RunError::Usage(format!(
                        "sink '{}' uses connector '{}', which `lowwater run` cannot write yet; \
                     use --output {}=FILE to write its rows as a topic dump",
                        table.name,
                        other.name(),
                        table.name
                    )))
                }
            },
        };
    Ok(SinkWriter {
        format,
        out,
        kafka,
        txn,
        parts,
        jdbc,
        dump,
        written: 0,
        counters: Arc::new(Mutex::new(SinkCounters::default())),
        tally: SinkCounters::default(),
        lag_seconds: lag_histograms
            .get_or_create(&vec![("sink".to_string(), table.name.clone())])
            .clone(),
        max_emission_lag: table.max_emission_lag,
        breaches_from: start,
    })
}

/// The writers of every sink table, one each.
pub(crate) fn sink_writers(
    plan: &JobPlan,
    outputs: &[(usize, PathBuf)],
    lag_histograms: &lowwater_observe::live::LagFamily,
    (eo, restored): (
        Option<&crate::txn::ExactlyOnce>,
        Option<lowwater_core::checkpoint::CheckpointId>,
    ),
    start: Timestamp,
) -> Result<BTreeMap<usize, Mutex<SinkWriter>>, RunError> {
    let mut sinks = BTreeMap::new();
    let joins = crate::joins::joins(plan);
    let joined = joins.iter().map(|j| j.sides(plan).sink);
    let windowed = plan
        .pipelines
        .iter()
        .flat_map(|pl| std::iter::once(pl.sink).chain(plan.tables[pl.source].late_data_sink));
    for t in windowed.chain(joined) {
        if let std::collections::btree_map::Entry::Vacant(e) = sinks.entry(t) {
            let w = sink_writer(plan, t, outputs, lag_histograms, eo, (restored, start))?;
            e.insert(Mutex::new(w));
        }
    }
    Ok(sinks)
}

/// An `upsert-kafka` sink's keys go where Flink's Java producer puts them
/// (murmur2 of the key bytes, librdkafka's `murmur2_random`), so that a
/// key's rows share one partition with those other Java producers write,
/// as compaction needs; a `properties.partitioner` set by the user wins.
fn upsert_partitioner(
    table: &lowwater_sql::plan::TableDef,
    properties: &std::collections::BTreeMap<String, String>,
) -> std::collections::BTreeMap<String, String> {
    let mut p = properties.clone();
    if table.upsert() {
        p.entry("partitioner".into())
            .or_insert_with(|| "murmur2_random".into());
    }
    p
}
