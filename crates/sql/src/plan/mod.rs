//! Planning: from statements to a [`JobPlan`] the executors run.
//!
//! This module holds the plan's types and the job-level steps; [`table`]
//! plans `CREATE TABLE` (columns, watermark, options), [`pipeline`] plans each
//! `INSERT` (window, keys, aggregates, sink mapping).
//!
//! A plan has the job settings, every table with its row layout (physical,
//! metadata and computed columns, in declaration order, which is also the
//! position of each value in a row), and one [`Pipeline`] per `INSERT`:
//! source -> filter -> window aggregation -> sink. Watermarks are generated
//! at the source, before the filter, as in Flink: a filtered-out record still
//! moves event time.

use std::collections::BTreeMap;

use lowwater_core::watermark::generator::{
    EmitStrategy, WatermarkExpr, WatermarkStrategy, DEFAULT_EMIT_INTERVAL,
};
use lowwater_core::window::aggregate::AggFunc;
use lowwater_core::window::operator::{WindowResult, WindowSpec};
use lowwater_core::Millis;
use lowwater_core::Value;

use crate::ast::Statement;
use crate::error::{Loc, Result, SqlError};
use crate::expr::Expr;
use crate::options::{Connector, JsonFormat};
use crate::parse;
use crate::types::SqlType;

/// Job-wide settings from `SET` statements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `table.exec.source.idle-timeout` (`None` = disabled, the default).
    pub idle_timeout: Option<Millis>,
    /// `pipeline.auto-watermark-interval` (default 200 ms; 0 = none).
    pub emit_interval: Millis,
    /// `parallelism.default` (default 1).
    pub parallelism: usize,
    /// Flink settings lowwater has no use for (mini-batch, optimizer,
    /// resources, state backends...): accepted, so that a Flink job file
    /// runs unchanged, and named in one warning ([`Settings::ignored_note`]).
    pub inert: Vec<(String, String)>,
    /// `pipeline.name`: the name the job's checkpoints are kept under (by
    /// default the job file's name without its extension).
    pub name: Option<String>,
    /// Checkpointing (`execution.checkpointing.*`, `state.checkpoints.*`).
    pub checkpoints: CheckpointSettings,
    /// `lowwater.state.max-open-windows` (default 5,000,000): the most
    /// (window, key) states an INSERT may hold (188 bytes each measured)
    /// before the job stops, naming the stall that keeps them open.
    pub max_open_windows: u64,
    /// `lowwater.state.max-join-rows` (default 5,000,000): the most probe
    /// rows a temporal join may hold waiting for the watermark before the
    /// job stops, naming the stall that holds them.
    pub max_join_rows: u64,
    /// `lowwater.state.on-limit`: what happens past `max_open_windows`.
    pub on_open_limit: OnOpenLimit,
    /// `lowwater.window.max-windows-per-record` (default 10,000): the most
    /// windows a HOP or CUMULATE may put one record in, checked when the
    /// job is planned (a 1 ms step over a day would be 86.4M per record).
    pub max_windows_per_record: u64,
    /// `table.exec.sink.require-on-conflict` (default true, as in Flink
    /// 2.3): an INSERT into a table with a primary key whose rows carry no
    /// such key (every INSERT lowwater runs: its rows are inserts) is
    /// refused unless it is set to false.
    pub require_on_conflict: bool,
}

/// The most INSERT statements one job file may hold.
pub const MAX_INSERTS: usize = 200;

/// What an INSERT does when its open (window, key) states pass
/// `lowwater.state.max-open-windows`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnOpenLimit {
    /// `'fail'` (the default): the job stops, naming the stall.
    #[default]
    Fail,
    /// `'fire-oldest'`: the windows that end first fire early, until 80% of
    /// the limit is left; their rows are incomplete (a sink column
    /// `lowwater_incomplete BOOLEAN` says which), and their later records
    /// are late.
    FireOldest,
}

/// The default of [`Settings::max_open_windows`].
pub const MAX_OPEN_WINDOWS: u64 = 5_000_000;

/// The default of [`Settings::max_windows_per_record`].
pub const MAX_WINDOWS_PER_RECORD: u64 = 10_000;

/// Flink's checkpoint options, as far as lowwater honours them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointSettings {
    /// `execution.checkpointing.interval`; `None`: checkpointing is off.
    pub interval: Option<Millis>,
    /// `execution.checkpointing.dir` (or the older `state.checkpoints.dir`):
    /// a local directory (`file://` URIs accepted).
    pub dir: Option<String>,
    /// `state.checkpoints.num-retained` (lowwater keeps 3 by default, so
    /// that a damaged newest checkpoint leaves an older one to restore).
    pub retained: usize,
    /// `execution.checkpointing.timeout` (Flink's default 10 min).
    pub timeout: Millis,
    /// `execution.state-recovery.path`: restore this checkpoint file (or
    /// the newest in this directory) instead of the job's own.
    pub recovery_path: Option<String>,
}

impl Default for CheckpointSettings {
    fn default() -> Self {
        CheckpointSettings {
            interval: None,
            dir: None,
            retained: 3,
            timeout: 10 * 60 * 1000,
            recovery_path: None,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            idle_timeout: None,
            emit_interval: DEFAULT_EMIT_INTERVAL,
            parallelism: 1,
            inert: Vec::new(),
            name: None,
            checkpoints: CheckpointSettings::default(),
            max_windows_per_record: MAX_WINDOWS_PER_RECORD,
            max_open_windows: MAX_OPEN_WINDOWS,
            max_join_rows: MAX_OPEN_WINDOWS,
            on_open_limit: OnOpenLimit::Fail,
            require_on_conflict: true,
        }
    }
}

/// A Kafka metadata column's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataKey {
    /// `'timestamp'`: the record's timestamp.
    Timestamp,
    /// `'partition'`.
    Partition,
    /// `'offset'`.
    Offset,
    /// `'topic'`.
    Topic,
}

/// Where a column's value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnSource {
    /// The payload field of the same name.
    Physical,
    /// Connector metadata.
    Metadata(MetadataKey),
    /// Computed from the columns before it.
    Computed(Expr),
}

/// One column of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: SqlType,
    /// Where its value comes from.
    pub source: ColumnSource,
    /// Declared `NOT NULL` (Flink's derived Avro schema gives such a
    /// column a plain type instead of a union with null).
    pub not_null: bool,
    /// A `ROW` column's field: its path in the record value (the column is
    /// named `payload.user.id`); empty for a top-level column.
    pub path: Vec<String>,
}

/// The `WATERMARK FOR col AS col - INTERVAL 'd'` of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatermarkDef {
    /// Row position of the rowtime column.
    pub column: usize,
    /// The subtracted interval.
    pub delay: Millis,
}

/// Kafka key options of a table (`key.fields`, `key.fields-prefix`,
/// `value.fields-include`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KafkaKey {
    /// Columns written to the key, in `key.fields` order.
    pub fields: Vec<usize>,
    /// `key.fields-prefix`, removed from the names inside the key.
    pub prefix: String,
    /// `value.fields-include` = 'EXCEPT_KEY': key columns are left out of the value.
    pub except_key: bool,
}

/// A table of the job.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDef {
    /// Name.
    pub name: String,
    /// Where it is defined.
    pub loc: Loc,
    /// Columns; a row holds their values in this order.
    pub columns: Vec<Column>,
    /// The watermark clause.
    pub watermark: Option<WatermarkDef>,
    /// Connector.
    pub connector: Connector,
    /// Format (kafka, filesystem).
    pub format: Option<JsonFormat>,
    /// Effective idle timeout: the table's `scan.watermark.idle-timeout`,
    /// else the job's `table.exec.source.idle-timeout`.
    pub idle_timeout: Option<Millis>,
    /// `scan.watermark.emit.strategy` (and its on-event gap).
    pub emit: EmitStrategy,
    /// Watermark alignment (`scan.watermark.alignment.*`), if set.
    pub alignment: Option<AlignmentDef>,
    /// `lowwater.watermark.max-future`: a record whose event time is more
    /// than this ahead of its arrival is kept out of the watermark and the
    /// windows (counted, and warned about with its place).
    pub max_future: Option<Millis>,
    /// A `PROCTIME()` column (position, where): allowed while unused.
    pub proctime: Option<(usize, Loc)>,
    /// `scan.watermark.idle-mode` = 'caught-up' (Kafka): a partition goes
    /// idle only when it is quiet and caught up with the broker.
    pub caught_up: bool,
    /// `scan.topic-partition-discovery.interval` (Kafka, unbounded reads):
    /// how often partitions added to the topics are looked for (`None`: off).
    pub discovery_interval: Option<Millis>,
    /// Sink SLOs: `lowwater.sink.max-emission-lag`.
    pub max_emission_lag: Option<Millis>,
    /// Sink SLOs: `lowwater.sink.max-staleness`.
    pub max_staleness: Option<Millis>,
    /// `late-data.sink`.
    pub late_data_sink: Option<usize>,
    /// Kafka key options, when `key.fields` is set.
    pub key: Option<KafkaKey>,
    /// `PRIMARY KEY (...) NOT ENFORCED`: its columns (a versioned table's
    /// key for temporal joins; nothing checks it, as in Flink).
    pub primary_key: Option<Vec<usize>>,
    /// All `WITH` options.
    pub options: BTreeMap<String, String>,
    /// The record value's format (`raw`: the table's one physical STRING
    /// column, as is).
    pub value_format: crate::formats::ValueFormat,
}

impl TableDef {
    /// Whether this is an `upsert-kafka` table: a changelog of versions
    /// keyed by its PRIMARY KEY (the record key), a tombstone deleting one.
    pub fn upsert(&self) -> bool {
        self.options
            .get("connector")
            .is_some_and(|c| c == "upsert-kafka")
    }

    /// Whether `needed` (from [`JobPlan::needed_columns`], closed over
    /// computed columns) holds a metadata column of this table.
    pub fn reads_metadata(&self, needed: &[bool]) -> bool {
        self.columns
            .iter()
            .zip(needed)
            .any(|(c, &n)| n && matches!(c.source, ColumnSource::Metadata(_)))
    }

    /// Whether this (Kafka sink) table asks for exactly-once output.
    pub fn exactly_once(&self) -> bool {
        matches!(self.connector, Connector::Kafka { .. })
            && self
                .options
                .get("sink.delivery-guarantee")
                .is_some_and(|v| v == "exactly-once")
    }

    /// `sink.transactional-id-prefix`, if set.
    pub fn transactional_id_prefix(&self) -> Option<&str> {
        self.options
            .get("sink.transactional-id-prefix")
            .map(String::as_str)
    }

    /// The watermark strategy of this table's splits under `settings`.
    pub fn strategy(&self, settings: &Settings) -> Option<WatermarkStrategy> {
        self.watermark.map(|w| WatermarkStrategy {
            expr: WatermarkExpr::SqlDelay { delay: w.delay },
            idle_timeout: self.idle_timeout,
            emit_interval: settings.emit_interval,
            emit: self.emit,
        })
    }

    /// The columns a record value holds, in order: the physical ones,
    /// without the key's under `value.fields-include` = 'EXCEPT_KEY'. CSV
    /// fields and the derived Avro schema follow them.
    pub fn value_columns(&self) -> Vec<usize> {
        let except: &[usize] = match &self.key {
            Some(k) if k.except_key => &k.fields,
            _ => &[],
        };
        (0..self.columns.len())
            .filter(|c| self.columns[*c].source == ColumnSource::Physical && !except.contains(c))
            .collect()
    }

    /// (name, type, NOT NULL) of columns `cols`: the fields of the Avro
    /// schema Flink derives from them.
    pub fn fields(&self, cols: &[usize]) -> Vec<(String, SqlType, bool)> {
        cols.iter()
            .map(|&c| {
                let col = &self.columns[c];
                (col.name.clone(), col.ty, col.not_null)
            })
            .collect()
    }

    /// Kafka topics, or the table name for other connectors (dumps name it).
    pub fn topics(&self) -> Vec<String> {
        match &self.connector {
            Connector::Kafka { topics, .. } => topics.clone(),
            _ => vec![self.name.clone()],
        }
    }

    /// Position of column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }
}

/// What an output column of a pipeline is.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputKind {
    /// `window_start`.
    WindowStart,
    /// `window_end`.
    WindowEnd,
    /// `window_time` (`window_end - 1`).
    WindowTime,
    /// Group key `i`.
    Key(usize),
    /// Aggregate `i`.
    Agg(usize),
    /// An expression over the result row (see [`Pipeline::result_row`]):
    /// arithmetic over aggregates, a CAST of a window bound.
    Expr(Expr),
}

/// One output column.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// Name (alias or derived).
    pub name: String,
    /// Type.
    pub ty: SqlType,
    /// What it holds.
    pub kind: OutputKind,
}

/// One `INSERT INTO sink SELECT ... FROM TABLE(window(...))`.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    /// Where the INSERT starts.
    pub loc: Loc,
    /// Source table index.
    pub source: usize,
    /// Sink table index.
    pub sink: usize,
    /// `WHERE`, over the source row.
    pub filter: Option<Expr>,
    /// Window and aggregates (aggregate columns index [`Pipeline::agg_args`]).
    pub window: WindowSpec,
    /// Group keys, over the source row.
    pub keys: Vec<Expr>,
    /// Aggregate arguments, over the source row.
    pub agg_args: Vec<Expr>,
    /// The select list.
    pub outputs: Vec<Output>,
    /// `outputs[i]` is written to sink column `sink_columns[i]`.
    pub sink_columns: Vec<usize>,
    /// The sink's column types: a value is written in its column's type
    /// (a DECIMAL into a DOUBLE column is a double, any number into a
    /// DECIMAL column is rounded to its scale or NULL).
    pub sink_types: Vec<SqlType>,
    /// `HAVING`, over the result row: a window's row is written only when
    /// it is true.
    pub having: Option<Expr>,
    /// Window Top-N: the rank each row gets (see [`rank`]).
    pub rank: Option<Rank>,
    /// Over the result row with its ranks: which ranked rows are written
    /// (`WHERE rownum <= 3`); `having` decides which rows are ranked.
    pub qualify: Option<Expr>,
    /// A window function without GROUP BY: rows are written at once, one
    /// per window ([`Pipeline::project`]), instead of being aggregated.
    pub project: bool,
    /// The sink's `lowwater_incomplete` BOOLEAN column, when the INSERT
    /// does not write it: true on rows fired early (`lowwater.state.on-limit`
    /// = 'fire-oldest'), false on the others.
    pub incomplete: Option<usize>,
    /// Whether the result row holds the time the row is emitted, after the
    /// ranks (the query reads `CURRENT_TIMESTAMP`, `NOW()`,
    /// `LOCALTIMESTAMP` or `PROCTIME()`).
    pub emitted_at: bool,
    /// Cascading windows: the window aggregation whose result rows this
    /// one's window reads (their rowtime is its `window_time`), in the same
    /// subtask. `filter`, `keys` and `agg_args` are then over its outputs,
    /// in order; `source` is the table its first aggregation reads, and
    /// its `sink` is this one's (it writes none).
    pub input: Option<Box<Pipeline>>,
    /// A window over a temporal join: the join (index in
    /// [`JobPlan::joins`]) whose rows this aggregation reads; `filter`,
    /// `keys` and `agg_args` are over the join's select list, in order, and
    /// `source` is its probe table.
    pub join: Option<usize>,
    /// A window over an interval join: the join (index in
    /// [`JobPlan::intervals`]) whose rows this aggregation reads, as `join`
    /// for a temporal join; `source` is its left table.
    pub interval: Option<usize>,
    /// The INSERT's clauses as written (normalized SQL), one per line:
    /// `window ...`, `select ...`, `WHERE ...`, `GROUP BY ...`, `HAVING
    /// ...`: what a checkpoint's refusal names when they change.
    pub words: String,
}

/// A planned job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobPlan {
    /// Settings.
    pub settings: Settings,
    /// Tables, in definition order.
    pub tables: Vec<TableDef>,
    /// Pipelines, in INSERT order.
    pub pipelines: Vec<Pipeline>,
    /// INSERTs over event-time temporal joins, in INSERT order.
    pub joins: Vec<JoinPlan>,
    /// INSERTs over event-time interval joins, in INSERT order.
    pub intervals: Vec<IntervalPlan>,
    /// What Flink would refuse in the job file, with line and column
    /// (lowwater runs it; see [`crate::portability`]).
    pub flink_notes: Vec<String>,
}

impl JobPlan {
    /// Parses and plans a job file.
    pub fn from_sql(sql: &str) -> Result<JobPlan> {
        plan(&parse::parse_script(sql)?)
    }

    /// The tables the job reads (window aggregations' sources and both
    /// sides of temporal joins), each once, in the order first read.
    pub fn source_tables(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let read = self.pipelines.iter().map(|p| p.source);
        let joined = self.joins.iter().flat_map(|j| [j.probe, j.build]);
        let bounded = self.intervals.iter().flat_map(|j| [j.left, j.right]);
        for t in read.chain(joined).chain(bounded) {
            if !out.contains(&t) {
                out.push(t);
            }
        }
        out
    }

    /// Table index by name.
    pub fn table(&self, name: &str) -> Option<usize> {
        self.tables
            .iter()
            .position(|t| t.name.eq_ignore_ascii_case(name))
    }
}

impl JobPlan {
    /// Which columns of table `t` the job reads: rowtime, filters, keys,
    /// aggregate arguments, late-data sink columns, and what computed
    /// columns among them are computed from. A decoder can leave the others
    /// unread (Flink's projection push-down).
    pub fn needed_columns(&self, t: usize) -> Vec<bool> {
        let table = &self.tables[t];
        let mut cols = Vec::new();
        if let Some(w) = table.watermark {
            cols.push(w.column);
        }
        for j in &self.joins {
            j.columns_read(t, self.tables[j.probe].columns.len(), &mut cols);
        }
        for j in &self.intervals {
            j.columns_read(t, &mut cols);
        }
        for p in self.pipelines.iter().filter(|p| p.source == t) {
            // The aggregation that reads the records (the first of cascading windows).
            let p = p.first();
            for e in p.filter.iter().chain(&p.keys).chain(&p.agg_args) {
                e.columns(&mut cols);
            }
        }
        if let Some(ls) = table.late_data_sink {
            cols.extend(
                self.tables[ls]
                    .columns
                    .iter()
                    .filter_map(|c| table.column(&c.name)),
            );
        }
        let mut needed = vec![false; table.columns.len()];
        // Computed columns only read columns declared before them, so one
        // backwards pass closes the set.
        for c in cols {
            needed[c] = true;
        }
        for i in (0..needed.len()).rev() {
            if let (true, ColumnSource::Computed(e)) = (needed[i], &table.columns[i].source) {
                let mut deps = Vec::new();
                e.columns(&mut deps);
                for d in deps {
                    needed[d] = true;
                }
            }
        }
        needed
    }
}

/// Plans parsed statements.
pub fn plan(stmts: &[Statement]) -> Result<JobPlan> {
    let settings = settings(stmts)?;
    let mut tables: Vec<TableDef> = Vec::new();
    let mut late_names: Vec<Option<(String, Loc)>> = Vec::new();
    for st in stmts {
        if let Statement::CreateTable(ct) = st {
            if tables.iter().any(|t| t.name.eq_ignore_ascii_case(&ct.name)) {
                return Err(SqlError::new(
                    ct.loc,
                    format!("table '{}' is defined twice", ct.name),
                ));
            }
            let (t, late) = table(ct, &settings)?;
            tables.push(t);
            late_names.push(late);
        }
    }
    for (i, late) in late_names.into_iter().enumerate() {
        if let Some((name, loc)) = late {
            let idx = tables
                .iter()
                .position(|t| t.name.eq_ignore_ascii_case(&name))
                .ok_or_else(|| {
                    SqlError::new(
                        loc,
                        format!("late-data.sink '{name}' is not a table of this job"),
                    )
                })?;
            check_late_sink(&tables[i], &tables[idx], loc)?;
            tables[i].late_data_sink = Some(idx);
        }
    }
    let mut pipelines = Vec::new();
    let mut joins = Vec::new();
    let mut intervals = Vec::new();
    for st in stmts {
        if let Statement::IntervalInsert(ins) = st {
            if pipelines.len() + joins.len() + intervals.len() == MAX_INSERTS {
                return Err(SqlError::new(ins.loc, too_many_inserts()));
            }
            intervals.push(match ins.join.windows {
                Some(_) => window_join::window_join(ins, &tables, &settings, None)?,
                None => interval::interval(ins, &tables, 0, None)?,
            });
        }
        if let Statement::JoinInsert(ins) = st {
            if pipelines.len() + joins.len() == MAX_INSERTS {
                return Err(SqlError::new(ins.loc, too_many_inserts()));
            }
            joins.push(join::join(ins, &tables, None)?);
        }
        if let Statement::Insert(ins) = st {
            if pipelines.len() + joins.len() == MAX_INSERTS {
                return Err(SqlError::new(ins.loc, too_many_inserts()));
            }
            let pi = pipelines.len();
            let joins = (&mut joins, &mut intervals);
            pipelines.push(pipeline(ins, &tables, &settings, joins, pi)?);
        }
    }
    if pipelines.is_empty() && joins.is_empty() && intervals.is_empty() {
        return Err(SqlError::new(
            Loc { line: 1, column: 1 },
            "the job has no INSERT INTO statement: nothing to run",
        ));
    }
    let flink_notes = stmts
        .iter()
        .filter_map(|s| match s {
            Statement::FlinkNotes(n) => Some(n),
            _ => None,
        })
        .flatten()
        .map(|(loc, m)| format!("line {}, column {}: {m}", loc.line, loc.column))
        .collect();
    let plan = JobPlan {
        settings,
        tables,
        pipelines,
        joins,
        intervals,
        flink_notes,
    };
    // Flink 2.3 keeps the ChangelogNormalize of an upsert table only when
    // the job reads one of its metadata columns
    // (ChangelogNormalizeRequirementResolver).
    let mut plan = plan;
    for j in 0..plan.joins.len() {
        let b = plan.joins[j].build;
        let metadata = plan.tables[b].reads_metadata(&plan.needed_columns(b));
        plan.joins[j].decide_normalize(metadata);
    }
    for (i, t) in plan.tables.iter().enumerate() {
        if let Some((c, loc)) = t.proctime {
            if plan.needed_columns(i)[c] {
                return Err(SqlError::new(
                    loc,
                    format!(
                        "table '{}': column '{}' is PROCTIME() and the job reads it; lowwater \
                         runs on event time only (the column may stay in the table unused)",
                        t.name, t.columns[c].name
                    ),
                ));
            }
        }
    }
    let JobPlan {
        settings,
        tables,
        pipelines,
        joins,
        intervals,
        flink_notes,
    } = plan;
    if settings.on_open_limit == OnOpenLimit::FireOldest {
        if let Some(pl) = pipelines.iter().find(|p| p.input.is_some()) {
            return Err(SqlError::new(
                pl.loc,
                "lowwater.state.on-limit = 'fire-oldest' does not apply to cascading window \
                 aggregations (a window of the first fired early would reach the second \
                 incomplete, and its later records would be lost to it): use 'fail'",
            ));
        }
    }
    join_scope::late_sinks(&tables, &pipelines, &joins, &intervals)?;
    upsert_uses(&tables, &pipelines, &joins, &intervals)?;
    let conflicts: Vec<(Loc, crate::ast::Conflict, Loc)> = stmts
        .iter()
        .filter_map(|s| match s {
            Statement::OnConflict {
                insert,
                strategy,
                loc,
            } => Some((*insert, *strategy, *loc)),
            _ => None,
        })
        .collect();
    conflict::upsert_sinks(
        &tables,
        (&pipelines, &joins, &intervals),
        &conflicts,
        settings.require_on_conflict,
    )?;
    for t in &tables {
        if t.exactly_once() && settings.checkpoints.interval.is_none() {
            return Err(SqlError::new(
                t.loc,
                format!(
                    "table '{}': sink.delivery-guarantee 'exactly-once' needs checkpoints: its \
                     output is committed once per checkpoint. SET 'execution.checkpointing.interval' \
                     = '10 s' and 'execution.checkpointing.dir'",
                    t.name
                ),
            ));
        }
    }
    Ok(JobPlan {
        settings,
        tables,
        pipelines,
        joins,
        intervals,
        flink_notes,
    })
}

/// An `upsert-kafka` table is read as the versioned side of an event-time
/// temporal join only: Flink refuses its updates and deletes in window
/// aggregations and interval joins too. Any INSERT may write to one (every
/// row lowwater emits is an insert, written under its key).
fn upsert_uses(
    tables: &[TableDef],
    pipelines: &[Pipeline],
    joins: &[JoinPlan],
    intervals: &[IntervalPlan],
) -> Result<()> {
    let refuse = |t: usize, at: Loc, how: &str| -> Result<()> {
        if !tables[t].upsert() {
            return Ok(());
        }
        Err(SqlError::new(
            at,
            format!(
                "table '{}' is an 'upsert-kafka' table (its records update and delete versions \
                 of their key) and this INSERT {how}; lowwater reads such a table as the \
                 versioned side of an event-time temporal join only (`JOIN {} FOR SYSTEM_TIME \
                 AS OF o.rowtime`); Flink too refuses updates and deletes in window \
                 aggregations and interval joins. To read every record as a row, declare the \
                 topic with the 'kafka' connector",
                tables[t].name, tables[t].name
            ),
        ))
    };
    for p in pipelines {
        refuse(p.source, p.loc, "aggregates it in windows")?;
    }
    for j in joins {
        refuse(j.probe, j.loc, "probes it")?;
    }
    for j in intervals {
        refuse(j.left, j.loc, "joins it on an interval or window")?;
        refuse(j.right, j.loc, "joins it on an interval or window")?;
    }
    Ok(())
}

fn too_many_inserts() -> String {
    format!(
        "a job runs at most {MAX_INSERTS} INSERT statements (each is its own operators and \
         threads); split the file into several jobs"
    )
}

impl Pipeline {
    /// The sink row of a window result: each output in its sink column of a
    /// sink `width` columns wide (the rest NULL); `None` when `HAVING`
    /// filters the row out. An expression that cannot be computed (an
    /// integer division by zero) is an error, as in Flink.
    /// `ranks` are the row's ranks from [`Pipeline::ranks`] when the
    /// pipeline ranks.
    pub fn sink_values(
        &self,
        r: &WindowResult,
        ranks: &[i64],
        width: usize,
        emitted: lowwater_core::Timestamp,
    ) -> std::result::Result<Option<Vec<Value>>, String> {
        let mut values = Vec::new();
        Ok(self
            .sink_values_into(r, ranks, width, &mut values, Some(emitted))?
            .then_some(values))
    }

    /// [`Pipeline::sink_values`] into `values` (its old contents replaced,
    /// its buffer reused); returns whether the row is kept (`false`:
    /// `HAVING` filtered it out).
    pub fn sink_values_into(
        &self,
        r: &WindowResult,
        ranks: &[i64],
        width: usize,
        values: &mut Vec<Value>,
        emitted: Option<lowwater_core::Timestamp>,
    ) -> std::result::Result<bool, String> {
        let needs_row = self.having.is_some()
            || self.qualify.is_some()
            || self
                .outputs
                .iter()
                .any(|o| matches!(o.kind, OutputKind::Expr(_)));
        let row = if needs_row {
            self.result_row(r, ranks, emitted)
        } else {
            Vec::new()
        };
        for filter in self.having.iter().chain(&self.qualify) {
            if filter.eval(&row)? != Value::Bool(true) {
                return Ok(false);
            }
        }
        values.clear();
        values.resize(width, Value::Null);
        for (o, &col) in self.outputs.iter().zip(&self.sink_columns) {
            let v = match &o.kind {
                OutputKind::WindowStart => Value::Timestamp(r.window.start),
                OutputKind::WindowEnd => Value::Timestamp(r.window.end),
                OutputKind::WindowTime => Value::Timestamp(r.window.max_timestamp()),
                OutputKind::Key(i) => r.key.get(*i).cloned().unwrap_or(Value::Null),
                OutputKind::Agg(i) => r.values.get(*i).cloned().unwrap_or(Value::Null),
                OutputKind::Expr(e) => e.eval(&row)?,
            };
            values[col] = sink_value(self.sink_types.get(col), v);
        }
        if let Some(c) = self.incomplete {
            values[c] = Value::Bool(r.early);
        }
        Ok(true)
    }
}

impl JobPlan {
    /// How long the watermark may stand still while an INSERT's open
    /// states are over `lowwater.state.max-open-windows` before the limit
    /// acts: five periodic watermarks, at least 1 s. Long enough for a job
    /// that restored (or is reading a backlog) to move its watermark, short
    /// enough that a stall does not grow the states much past the limit.
    pub fn open_limit_grace(&self) -> Millis {
        self.settings.emit_interval.saturating_mul(5).max(1_000)
    }

    /// The default stall threshold: 3 x max(largest window, emit interval,
    /// and with a temporal join 1 minute: a join writes each row as soon as
    /// the watermark passes it, so the gaps between one partition's records
    /// pause it, which is not a stall).
    pub fn default_stall_threshold(&self) -> Millis {
        let window = self
            .pipelines
            .iter()
            .flat_map(|p| p.stages())
            .map(|p| p.window.assigner.max_size())
            .max()
            .unwrap_or(0);
        let joined = !self.joins.is_empty() || !self.intervals.is_empty();
        let join = if joined { 60_000 } else { 0 };
        3 * window.max(join).max(self.settings.emit_interval).max(1)
    }
}

/// The SQL name of an aggregate function (`COUNT(DISTINCT)`), as
/// `explain` and the planner's errors write it.
pub(crate) fn agg_name(f: AggFunc) -> &'static str {
    match f {
        AggFunc::CountStar => "COUNT(*)",
        AggFunc::Count => "COUNT",
        AggFunc::CountDistinct => "COUNT(DISTINCT)",
        AggFunc::Sum => "SUM",
        AggFunc::Min => "MIN",
        AggFunc::Max => "MAX",
        AggFunc::Avg => "AVG",
        AggFunc::SumDistinct => "SUM(DISTINCT)",
        AggFunc::AvgDistinct => "AVG(DISTINCT)",
        AggFunc::FirstValue => "FIRST_VALUE",
        AggFunc::LastValue => "LAST_VALUE",
        AggFunc::ListAgg => "LISTAGG",
        AggFunc::VarPop => "VAR_POP",
        AggFunc::VarSamp => "VAR_SAMP",
        AggFunc::StddevPop => "STDDEV_POP",
        AggFunc::StddevSamp => "STDDEV_SAMP",
        AggFunc::ListAggDistinct => "LISTAGG(DISTINCT)",
        AggFunc::LastValueDistinct => "LAST_VALUE(DISTINCT)",
        AggFunc::VarPopDistinct => "VAR_POP(DISTINCT)",
        AggFunc::VarSampDistinct => "VAR_SAMP(DISTINCT)",
        AggFunc::StddevPopDistinct => "STDDEV_POP(DISTINCT)",
        AggFunc::StddevSampDistinct => "STDDEV_SAMP(DISTINCT)",
        AggFunc::TopRows(t) if t.end == u32::MAX => "rows of a session",
        AggFunc::TopRows(t) if t.last_on_tie => "deduplication (last row)",
        AggFunc::TopRows(_) => "Top-N (ROW_NUMBER)",
    }
}

mod alignment;
pub mod cascade;
mod conflict;
mod emitted;
pub mod graph;
mod interval;
mod join;
mod join_scope;
mod join_view;
mod late;
mod pipeline;
mod project;
pub mod rank;
mod settings;
mod sink;
mod table;
mod top_rows;
mod unmergeable;
mod window_join;

pub use crate::setting_keys::known_settings;
pub use alignment::AlignmentDef;
pub use interval::IntervalPlan;
pub use join::JoinPlan;
use late::check_late_sink;
pub use late::{LateReason, LateRow, REASON_COLUMN};
use pipeline::pipeline;
pub use rank::{OrderTerm, Rank, RankFunc};
use settings::settings;
pub use sink::sink_value;
pub use table::interval;
use table::table;
pub use window_join::WindowSides;
