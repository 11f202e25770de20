//! Planning: from statements to a [`JobPlan`] the executors run.
//!
//! A plan has the job settings, every table with its row layout (physical,
//! metadata and computed columns, in declaration order, which is also the
//! position of each value in a row), and one [`Pipeline`] per `INSERT`:
//! source -> filter -> window aggregation -> sink. Watermarks are generated
//! at the source, before the filter, as in Flink: a filtered-out record still
//! moves event time.

use std::collections::BTreeMap;

use sqlparser::ast::{
    DateTimeField, Expr as AstExpr, FunctionArg, FunctionArgExpr, FunctionArguments, SelectItem,
    Value as AstValue,
};

use lowwater_core::watermark::generator::{
    WatermarkExpr, WatermarkStrategy, DEFAULT_EMIT_INTERVAL,
};
use lowwater_core::window::aggregate::{AggFunc, AggSpec};
use lowwater_core::window::assigner::WindowAssigner;
use lowwater_core::window::operator::WindowSpec;
use lowwater_core::Millis;

use crate::error::{Loc, Result, SqlError};
use crate::expr::{compile, Expr, Scope};
use crate::options::{self, Connector, JsonFormat};
use crate::parse::{self, expr_loc, ColumnKind, CreateTable, Insert, Statement, TvfKind};
use crate::types::{parse_duration, SqlType};

/// Job-wide settings from `SET` statements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `table.exec.source.idle-timeout` (`None` = disabled, the default).
    pub idle_timeout: Option<Millis>,
    /// `pipeline.auto-watermark-interval` (default 200 ms; 0 = none).
    pub emit_interval: Millis,
    /// `parallelism.default` (default 1).
    pub parallelism: usize,
    /// Settings accepted but without effect yet, to be reported to the user.
    pub inert: Vec<(String, String)>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            idle_timeout: None,
            emit_interval: DEFAULT_EMIT_INTERVAL,
            parallelism: 1,
            inert: Vec::new(),
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
    /// `late-data.sink`.
    pub late_data_sink: Option<usize>,
    /// Kafka key options, when `key.fields` is set.
    pub key: Option<KafkaKey>,
    /// All `WITH` options.
    pub options: BTreeMap<String, String>,
}

impl TableDef {
    /// The watermark strategy of this table's splits under `settings`.
    pub fn strategy(&self, settings: &Settings) -> Option<WatermarkStrategy> {
        self.watermark.map(|w| WatermarkStrategy {
            expr: WatermarkExpr::SqlDelay { delay: w.delay },
            idle_timeout: self.idle_timeout,
            emit_interval: settings.emit_interval,
        })
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

/// One output column.
#[derive(Debug, Clone, PartialEq, Eq)]
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
}

impl JobPlan {
    /// Parses and plans a job file.
    pub fn from_sql(sql: &str) -> Result<JobPlan> {
        plan(&parse::parse_script(sql)?)
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
        for p in self.pipelines.iter().filter(|p| p.source == t) {
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

const INERT: &[&str] = &[
    "execution.checkpointing.interval",
    "execution.checkpointing.mode",
    "pipeline.name",
    "execution.runtime-mode",
    "table.exec.state.ttl",
];

fn settings(stmts: &[Statement]) -> Result<Settings> {
    let mut s = Settings::default();
    for st in stmts {
        let Statement::Set { key, value, loc } = st else {
            continue;
        };
        let dur = || parse_duration(value).map_err(|m| SqlError::new(*loc, format!("{key}: {m}")));
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
            k if INERT.contains(&k) => s.inert.push((key.clone(), value.clone())),
            _ => {
                return Err(SqlError::new(
                    *loc,
                    format!(
                        "unknown setting '{key}'; supported: table.exec.source.idle-timeout, \
                         pipeline.auto-watermark-interval, parallelism.default, \
                         table.local-time-zone ('UTC'), and (recorded, no effect yet) {}",
                        INERT.join(", ")
                    ),
                ))
            }
        }
    }
    Ok(s)
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
    for st in stmts {
        if let Statement::Insert(ins) = st {
            pipelines.push(pipeline(ins, &tables)?);
        }
    }
    if pipelines.is_empty() {
        return Err(SqlError::new(
            Loc { line: 1, column: 1 },
            "the job has no INSERT INTO statement: nothing to run",
        ));
    }
    Ok(JobPlan {
        settings,
        tables,
        pipelines,
    })
}

struct TableScope<'a> {
    columns: &'a [Column],
    visible: usize,
}

impl Scope for TableScope<'_> {
    fn resolve(&self, name: &str) -> Option<(usize, SqlType)> {
        self.columns[..self.visible]
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
            .map(|i| (i, self.columns[i].ty))
    }
    fn names(&self) -> Vec<String> {
        self.columns[..self.visible]
            .iter()
            .map(|c| c.name.clone())
            .collect()
    }
}

fn table(ct: &CreateTable, settings: &Settings) -> Result<(TableDef, Option<(String, Loc)>)> {
    let opts = options::check(&ct.name, ct.loc, &ct.options)?;
    let mut columns: Vec<Column> = Vec::new();
    for c in &ct.columns {
        if columns.iter().any(|x| x.name.eq_ignore_ascii_case(&c.name)) {
            return Err(SqlError::new(
                c.loc,
                format!("column '{}' is defined twice", c.name),
            ));
        }
        let col = match &c.kind {
            ColumnKind::Physical(ty) => Column {
                name: c.name.clone(),
                ty: *ty,
                source: ColumnSource::Physical,
            },
            ColumnKind::Metadata { ty, key } => {
                let (k, expected) = match key.as_str() {
                    "timestamp" => (MetadataKey::Timestamp, SqlType::TimestampLtz),
                    "partition" => (MetadataKey::Partition, SqlType::Int),
                    "offset" => (MetadataKey::Offset, SqlType::BigInt),
                    "topic" => (MetadataKey::Topic, SqlType::String),
                    other => {
                        return Err(SqlError::new(
                            c.loc,
                            format!(
                                "metadata key '{other}' is not supported; supported: timestamp, partition, offset, topic"
                            ),
                        ))
                    }
                };
                if !matches!(opts.connector, Connector::Kafka { .. }) {
                    return Err(SqlError::new(
                        c.loc,
                        "METADATA columns are only available on kafka tables",
                    ));
                }
                if !(*ty == expected
                    || (ty.is_time() && expected.is_time())
                    || (ty.is_integer() && expected.is_integer()))
                {
                    return Err(SqlError::new(
                        c.loc,
                        format!(
                            "metadata '{key}' has type {}, not {}",
                            expected.name(),
                            ty.name()
                        ),
                    ));
                }
                Column {
                    name: c.name.clone(),
                    ty: *ty,
                    source: ColumnSource::Metadata(k),
                }
            }
            ColumnKind::Computed(e) => {
                // Computed columns see the physical and metadata columns
                // declared before them.
                let scope = TableScope {
                    columns: &columns,
                    visible: columns.len(),
                };
                let t = compile(e, &scope, c.loc)?;
                let ty = t.ty.ok_or_else(|| {
                    SqlError::new(c.loc, "a computed column cannot be a bare NULL")
                })?;
                Column {
                    name: c.name.clone(),
                    ty,
                    source: ColumnSource::Computed(t.expr),
                }
            }
        };
        columns.push(col);
    }
    let watermark = match &ct.watermark {
        Some(w) => Some(watermark(w, &columns)?),
        None => None,
    };
    let idle_timeout = match opts.lowwater.idle_timeout {
        Some(own) => own,
        None => settings.idle_timeout,
    };
    let late = opts.lowwater.late_data_sink.clone().map(|n| {
        let loc = ct
            .options
            .iter()
            .find(|(k, _, _)| k == "late-data.sink")
            .map_or(ct.loc, |(_, _, l)| *l);
        (n, loc)
    });
    let key = kafka_key(ct, &columns, &opts.raw)?;
    if let Connector::Datagen(d) = &opts.connector {
        for col in d.fields.keys() {
            if !columns.iter().any(|c| c.name.eq_ignore_ascii_case(col)) {
                let prefix = format!("fields.{col}.");
                let at = ct
                    .options
                    .iter()
                    .find(|(k, _, _)| k.starts_with(&prefix))
                    .map_or(ct.loc, |(_, _, l)| *l);
                return Err(SqlError::new(
                    at,
                    format!(
                        "datagen option fields.{col}.*: table '{}' has no column '{col}'",
                        ct.name
                    ),
                ));
            }
        }
    }
    Ok((
        TableDef {
            name: ct.name.clone(),
            loc: ct.loc,
            columns,
            watermark,
            connector: opts.connector,
            format: opts.format,
            idle_timeout,
            late_data_sink: None,
            key,
            options: opts.raw,
        },
        late,
    ))
}

fn kafka_key(
    ct: &CreateTable,
    columns: &[Column],
    raw: &BTreeMap<String, String>,
) -> Result<Option<KafkaKey>> {
    let at = |k: &str| {
        ct.options
            .iter()
            .find(|(o, _, _)| o == k)
            .map_or(ct.loc, |(_, _, l)| *l)
    };
    let include = raw
        .get("value.fields-include")
        .map(String::as_str)
        .unwrap_or("ALL");
    if include != "ALL" && include != "EXCEPT_KEY" {
        return Err(SqlError::new(
            at("value.fields-include"),
            format!("value.fields-include must be 'ALL' or 'EXCEPT_KEY', got '{include}'"),
        ));
    }
    if let Some(f) = raw.get("key.format") {
        if f != "json" {
            return Err(SqlError::new(
                at("key.format"),
                format!("key.format '{f}' is not supported yet; supported: json"),
            ));
        }
    }
    let Some(fields) = raw.get("key.fields") else {
        for k in ["key.format", "key.fields-prefix"] {
            if raw.contains_key(k) {
                return Err(SqlError::new(at(k), format!("'{k}' needs 'key.fields'")));
            }
        }
        return Ok(None);
    };
    if !raw.contains_key("key.format") {
        return Err(SqlError::new(
            at("key.fields"),
            "'key.fields' needs 'key.format' (supported: json)",
        ));
    }
    let prefix = raw.get("key.fields-prefix").cloned().unwrap_or_default();
    if !prefix.is_empty() && include != "EXCEPT_KEY" {
        return Err(SqlError::new(
            at("key.fields-prefix"),
            "'key.fields-prefix' requires 'value.fields-include' = 'EXCEPT_KEY' (as in Flink)",
        ));
    }
    let mut cols = Vec::new();
    for name in fields.split(';').map(str::trim) {
        let i = columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                SqlError::new(
                    at("key.fields"),
                    format!(
                        "key.fields names '{name}', which is not a column of table '{}'",
                        ct.name
                    ),
                )
            })?;
        if !columns[i].name.starts_with(&prefix) {
            return Err(SqlError::new(
                at("key.fields"),
                format!("key field '{name}' does not start with key.fields-prefix '{prefix}'"),
            ));
        }
        cols.push(i);
    }
    Ok(Some(KafkaKey {
        fields: cols,
        prefix,
        except_key: include == "EXCEPT_KEY",
    }))
}

fn watermark(w: &parse::WatermarkClause, columns: &[Column]) -> Result<WatermarkDef> {
    let col = columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(&w.column))
        .ok_or_else(|| {
            SqlError::new(
                w.loc,
                format!("WATERMARK FOR '{}': no such column", w.column),
            )
        })?;
    if !columns[col].ty.is_time() {
        return Err(SqlError::new(
            w.loc,
            format!(
                "WATERMARK FOR '{}': the rowtime column must be TIMESTAMP(3) or TIMESTAMP_LTZ(3), not {}",
                w.column,
                columns[col].ty.name()
            ),
        ));
    }
    let shape = || {
        SqlError::new(
            expr_loc(&w.expr, w.loc),
            format!(
                "unsupported watermark expression `{}`; supported: `{c}` or `{c} - INTERVAL 'n' unit`",
                w.expr,
                c = w.column
            ),
        )
    };
    let is_col = |e: &AstExpr| matches!(e, AstExpr::Identifier(id) if id.value.eq_ignore_ascii_case(&w.column));
    let delay = match &w.expr {
        e if is_col(e) => 0,
        AstExpr::BinaryOp { left, op, right }
            if is_col(left) && *op == sqlparser::ast::BinaryOperator::Minus =>
        {
            interval(right, w.loc)?
        }
        _ => return Err(shape()),
    };
    if delay < 0 {
        return Err(shape());
    }
    Ok(WatermarkDef { column: col, delay })
}

/// The length of an `INTERVAL 'n' unit` expression in milliseconds.
pub fn interval(e: &AstExpr, loc: Loc) -> Result<Millis> {
    let at = expr_loc(e, loc);
    let AstExpr::Interval(iv) = e else {
        return Err(SqlError::new(
            at,
            format!("expected an INTERVAL like INTERVAL '5' SECOND, found `{e}`"),
        ));
    };
    let text = match iv.value.as_ref() {
        AstExpr::Value(v) => match &v.value {
            AstValue::SingleQuotedString(s) | AstValue::Number(s, _) => s.clone(),
            _ => String::new(),
        },
        _ => String::new(),
    };
    let unit: Option<Millis> = match iv.leading_field.as_ref() {
        None => None,
        Some(DateTimeField::Millisecond | DateTimeField::Milliseconds) => Some(1),
        Some(DateTimeField::Second | DateTimeField::Seconds) => Some(1_000),
        Some(DateTimeField::Minute | DateTimeField::Minutes) => Some(60_000),
        Some(DateTimeField::Hour | DateTimeField::Hours) => Some(3_600_000),
        Some(DateTimeField::Day | DateTimeField::Days) => Some(86_400_000),
        Some(other) => {
            return Err(SqlError::new(
                at,
                format!("INTERVAL unit {other} is not supported; use SECOND, MINUTE, HOUR or DAY"),
            ))
        }
    };
    if iv.last_field.is_some() {
        return Err(SqlError::new(
            at,
            "INTERVAL ranges (e.g. HOUR TO MINUTE) are not supported",
        ));
    }
    let bad = || SqlError::new(at, format!("INTERVAL value '{text}' is not a whole number"));
    match unit {
        Some(u) => text
            .trim()
            .parse::<i64>()
            .map_err(|_| bad())?
            .checked_mul(u)
            .ok_or_else(bad),
        None => parse_duration(&text).map_err(|m| SqlError::new(at, m)),
    }
}

fn check_late_sink(source: &TableDef, sink: &TableDef, loc: Loc) -> Result<()> {
    for c in &sink.columns {
        let Some(i) = source.column(&c.name) else {
            return Err(SqlError::new(
                loc,
                format!(
                    "late-data.sink '{}' has column '{}' that source '{}' does not have; \
                     a late-data sink takes the source's columns by name",
                    sink.name, c.name, source.name
                ),
            ));
        };
        if !c.ty.accepts(source.columns[i].ty) {
            return Err(SqlError::new(
                loc,
                format!(
                    "late-data.sink '{}': column '{}' is {}, the source's is {}",
                    sink.name,
                    c.name,
                    c.ty.name(),
                    source.columns[i].ty.name()
                ),
            ));
        }
    }
    Ok(())
}

fn window_assigner(ins: &Insert) -> Result<WindowAssigner> {
    let tvf = &ins.tvf;
    let mut ms = Vec::new();
    for a in &tvf.args {
        ms.push(interval(a, tvf.loc)?);
    }
    let arity = |n: &[usize], usage: &str| -> Result<()> {
        if n.contains(&ms.len()) {
            Ok(())
        } else {
            Err(SqlError::new(
                tvf.loc,
                format!("wrong number of arguments; usage: {usage}"),
            ))
        }
    };
    let off = |i: usize| ms.get(i).copied().unwrap_or(0);
    let a = match tvf.kind {
        TvfKind::Tumble => {
            arity(&[1, 2], "TUMBLE(TABLE t, DESCRIPTOR(ts), size [, offset])")?;
            WindowAssigner::Tumbling {
                size: ms[0],
                offset: off(1),
            }
        }
        TvfKind::Hop => {
            arity(
                &[2, 3],
                "HOP(TABLE t, DESCRIPTOR(ts), slide, size [, offset])",
            )?;
            WindowAssigner::Hopping {
                slide: ms[0],
                size: ms[1],
                offset: off(2),
            }
        }
        TvfKind::Cumulate => {
            arity(
                &[2, 3],
                "CUMULATE(TABLE t, DESCRIPTOR(ts), step, max_size [, offset])",
            )?;
            WindowAssigner::Cumulate {
                step: ms[0],
                max_size: ms[1],
                offset: off(2),
            }
        }
        TvfKind::Session => {
            arity(
                &[1],
                "SESSION(TABLE t [PARTITION BY k], DESCRIPTOR(ts), gap)",
            )?;
            WindowAssigner::Session { gap: ms[0] }
        }
    };
    a.validate()
        .map_err(|e| SqlError::new(tvf.loc, e.to_string()))?;
    Ok(a)
}

fn ident_name(e: &AstExpr) -> Option<String> {
    match e {
        AstExpr::Identifier(id) => Some(id.value.to_ascii_lowercase()),
        AstExpr::CompoundIdentifier(ids) => ids.last().map(|i| i.value.to_ascii_lowercase()),
        _ => None,
    }
}

fn pipeline(ins: &Insert, tables: &[TableDef]) -> Result<Pipeline> {
    let find = |name: &str, loc: Loc| {
        tables
            .iter()
            .position(|t| t.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| SqlError::new(loc, format!("table '{name}' is not defined in this job")))
    };
    let source = find(&ins.tvf.source, ins.tvf.source_loc)?;
    let sink = find(&ins.sink, ins.loc)?;
    let src = &tables[source];
    let wm = src.watermark.ok_or_else(|| {
        SqlError::new(
            ins.tvf.source_loc,
            format!(
                "table '{}' has no WATERMARK clause; window functions need an event-time column \
                 (add WATERMARK FOR <col> AS <col> - INTERVAL '5' SECOND)",
                src.name
            ),
        )
    })?;
    if src.column(&ins.tvf.time_column) != Some(wm.column) {
        return Err(SqlError::new(
            ins.tvf.time_loc,
            format!(
                "DESCRIPTOR({}) must name the rowtime column '{}' (the column of the WATERMARK clause)",
                ins.tvf.time_column, src.columns[wm.column].name
            ),
        ));
    }
    if src.key.is_some() {
        return Err(SqlError::new(
            ins.tvf.source_loc,
            format!(
                "table '{}' reads columns from the Kafka key ('key.fields'): reading keys is not \
                 supported yet; remove the key options from the source table",
                src.name
            ),
        ));
    }
    if matches!(src.connector, Connector::Print | Connector::Blackhole) {
        return Err(SqlError::new(
            ins.tvf.source_loc,
            format!(
                "'{}' is a {} table and cannot be read",
                src.name,
                src.connector.name()
            ),
        ));
    }
    let assigner = window_assigner(ins)?;
    let scope = TableScope {
        columns: &src.columns,
        visible: src.columns.len(),
    };
    let filter = match &ins.filter {
        Some(f) => {
            let t = compile(f, &scope, ins.loc)?;
            if !matches!(t.ty, None | Some(SqlType::Boolean)) {
                return Err(SqlError::new(
                    expr_loc(f, ins.loc),
                    "WHERE needs a BOOLEAN condition",
                ));
            }
            Some(t.expr)
        }
        None => None,
    };
    // GROUP BY: window_start and window_end, then keys.
    let mut keys: Vec<(String, Expr, SqlType)> = Vec::new();
    let (mut has_start, mut has_end) = (false, false);
    for g in &ins.group_by {
        match ident_name(g).as_deref() {
            Some("window_start") => has_start = true,
            Some("window_end") => has_end = true,
            Some("window_time") => {}
            _ => {
                let t = compile(g, &scope, ins.loc)?;
                let ty = t.ty.unwrap_or(SqlType::String);
                keys.push((g.to_string().to_ascii_lowercase(), t.expr, ty));
            }
        }
    }
    if !(has_start && has_end) {
        return Err(SqlError::new(
            ins.loc,
            "GROUP BY must contain window_start and window_end (lowwater runs window aggregations)",
        ));
    }
    if ins.tvf.kind == TvfKind::Session {
        let mut part: Vec<String> = ins
            .tvf
            .partition_by
            .iter()
            .map(|p| p.to_ascii_lowercase())
            .collect();
        let mut ks: Vec<String> = keys.iter().map(|k| k.0.clone()).collect();
        part.sort();
        ks.sort();
        if part != ks {
            return Err(SqlError::new(
                ins.tvf.loc,
                format!(
                    "SESSION must be partitioned by exactly the GROUP BY keys: write \
                     SESSION(TABLE {} PARTITION BY {}, ...)",
                    src.name,
                    if ks.is_empty() {
                        "<nothing: remove PARTITION BY>".to_string()
                    } else {
                        ks.join(", ")
                    }
                ),
            ));
        }
    }
    let time_ty = src.columns[wm.column].ty;
    let mut outputs = Vec::new();
    let mut aggs = Vec::new();
    let mut agg_args = Vec::new();
    for (i, item) in ins.items.iter().enumerate() {
        let (e, alias) = match item {
            SelectItem::UnnamedExpr(e) => (e, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
            _ => {
                return Err(SqlError::new(
                    ins.loc,
                    "SELECT * is not supported in a window aggregation; list the columns",
                ))
            }
        };
        let (kind, ty) = match ident_name(e).as_deref() {
            Some("window_start") => (OutputKind::WindowStart, SqlType::Timestamp),
            Some("window_end") => (OutputKind::WindowEnd, SqlType::Timestamp),
            Some("window_time") => (OutputKind::WindowTime, time_ty),
            _ => match e {
                AstExpr::Function(f) if aggregate_name(&f.name.to_string()).is_some() => {
                    let (spec, ty) = aggregate(e, f, &scope, ins.loc, &mut agg_args)?;
                    aggs.push(spec);
                    (OutputKind::Agg(aggs.len() - 1), ty)
                }
                _ => {
                    let text = e.to_string().to_ascii_lowercase();
                    match keys.iter().position(|k| k.0 == text) {
                        Some(k) => (OutputKind::Key(k), keys[k].2),
                        None => {
                            return Err(SqlError::new(
                                expr_loc(e, ins.loc),
                                format!(
                                "`{e}` must be window_start, window_end, window_time, a GROUP BY \
                                     key or an aggregate (COUNT, SUM, MIN, MAX, AVG)"
                            ),
                            ))
                        }
                    }
                }
            },
        };
        let name = alias
            .or_else(|| ident_name(e))
            .unwrap_or_else(|| format!("EXPR${i}"));
        outputs.push(Output { name, ty, kind });
    }
    let sink_columns = sink_mapping(ins, &tables[sink], &outputs)?;
    Ok(Pipeline {
        loc: ins.loc,
        source,
        sink,
        filter,
        window: WindowSpec {
            assigner,
            aggregates: aggs,
            allowed_lateness: 0,
            late_side_output: src.late_data_sink.is_some(),
        },
        keys: keys.into_iter().map(|k| k.1).collect(),
        agg_args,
        outputs,
        sink_columns,
    })
}

fn aggregate_name(name: &str) -> Option<AggFunc> {
    match name.to_ascii_uppercase().as_str() {
        "COUNT" => Some(AggFunc::Count),
        "SUM" => Some(AggFunc::Sum),
        "MIN" => Some(AggFunc::Min),
        "MAX" => Some(AggFunc::Max),
        "AVG" => Some(AggFunc::Avg),
        _ => None,
    }
}

fn aggregate(
    e: &AstExpr,
    f: &sqlparser::ast::Function,
    scope: &dyn Scope,
    loc: Loc,
    agg_args: &mut Vec<Expr>,
) -> Result<(AggSpec, SqlType)> {
    let at = expr_loc(e, loc);
    let name = f.name.to_string().to_ascii_uppercase();
    let mut func = aggregate_name(&name).ok_or_else(|| SqlError::new(at, "not an aggregate"))?;
    let FunctionArguments::List(list) = &f.args else {
        return Err(SqlError::new(at, format!("{name} needs an argument")));
    };
    if f.filter.is_some() || f.over.is_some() || !list.clauses.is_empty() {
        return Err(SqlError::new(
            at,
            format!("{name} with FILTER, OVER or ORDER BY is not supported"),
        ));
    }
    let distinct = matches!(
        list.duplicate_treatment,
        Some(sqlparser::ast::DuplicateTreatment::Distinct)
    );
    let arg = match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)]
            if func == AggFunc::Count && !distinct =>
        {
            None
        }
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(AstExpr::Value(v)))]
            if func == AggFunc::Count && !distinct && matches!(v.value, AstValue::Number(_, _)) =>
        {
            None
        }
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))] => Some(x),
        _ => {
            return Err(SqlError::new(
                at,
                format!("{name} takes exactly one argument"),
            ))
        }
    };
    let Some(arg) = arg else {
        return Ok((AggSpec::count_star(), SqlType::BigInt));
    };
    if distinct {
        if func != AggFunc::Count {
            return Err(SqlError::new(
                at,
                format!("{name}(DISTINCT ...) is not supported; only COUNT(DISTINCT ...)"),
            ));
        }
        func = AggFunc::CountDistinct;
    }
    let t = compile(arg, scope, loc)?;
    let arg_ty = t.ty.unwrap_or(SqlType::BigInt);
    let ty = match func {
        AggFunc::Count | AggFunc::CountDistinct | AggFunc::CountStar => SqlType::BigInt,
        AggFunc::Sum | AggFunc::Avg if !arg_ty.is_numeric() => {
            return Err(SqlError::new(
                at,
                format!("{name} needs a numeric argument, found {}", arg_ty.name()),
            ))
        }
        _ => arg_ty,
    };
    agg_args.push(t.expr);
    let spec = AggSpec::on(func, agg_args.len() - 1);
    // Flink's SUM(INT) is an INT that wraps at 32 bits.
    let spec = if func == AggFunc::Sum && arg_ty == SqlType::Int {
        spec.int32()
    } else {
        spec
    };
    Ok((spec, ty))
}

fn sink_mapping(ins: &Insert, sink: &TableDef, outputs: &[Output]) -> Result<Vec<usize>> {
    if matches!(
        sink.connector,
        Connector::Kafka { .. }
            | Connector::Filesystem { .. }
            | Connector::Print
            | Connector::Blackhole
    ) && sink
        .columns
        .iter()
        .any(|c| c.source != ColumnSource::Physical)
    {
        return Err(SqlError::new(
            sink.loc,
            format!(
                "sink '{}' has computed or metadata columns; sinks take physical columns only",
                sink.name
            ),
        ));
    }
    let targets: Vec<usize> = match &ins.sink_columns {
        Some(cols) => cols
            .iter()
            .map(|c| {
                sink.column(c).ok_or_else(|| {
                    SqlError::new(ins.loc, format!("sink '{}' has no column '{c}'", sink.name))
                })
            })
            .collect::<Result<_>>()?,
        None => (0..sink.columns.len()).collect(),
    };
    if targets.len() != outputs.len() {
        return Err(SqlError::new(
            ins.loc,
            format!(
                "INSERT INTO {} writes {} column(s) but the target has {}",
                sink.name,
                outputs.len(),
                targets.len()
            ),
        ));
    }
    if ins.sink_columns.is_some() && targets.len() != sink.columns.len() {
        return Err(SqlError::new(
            ins.loc,
            format!(
                "INSERT INTO {} must write every column of the sink",
                sink.name
            ),
        ));
    }
    for (o, &t) in outputs.iter().zip(&targets) {
        let col = &sink.columns[t];
        if !col.ty.accepts(o.ty) {
            return Err(SqlError::new(
                ins.loc,
                format!(
                    "sink column '{}' of '{}' is {}, but `{}` is {}; add a CAST",
                    col.name,
                    sink.name,
                    col.ty.name(),
                    o.name,
                    o.ty.name()
                ),
            ));
        }
    }
    Ok(targets)
}
