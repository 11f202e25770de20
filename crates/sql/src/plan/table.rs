//! Planning `CREATE TABLE`: the row layout (physical, metadata and computed
//! columns), the watermark clause, connector and Kafka key options.

use std::collections::BTreeMap;

use sqlparser::ast::{DateTimeField, Expr as AstExpr, Value as AstValue};

use lowwater_core::watermark::generator::EmitStrategy;
use lowwater_core::Millis;

use crate::ast::{expr_loc, ColumnKind, CreateTable, WatermarkClause};
use crate::compile::compile;
use crate::error::{Loc, Result, SqlError};
use crate::expr::Scope;
use crate::options::{self, Connector};
use crate::types::{parse_duration, SqlType};

use super::{Column, ColumnSource, KafkaKey, MetadataKey, Settings, TableDef, WatermarkDef};

pub(super) struct TableScope<'a> {
    pub(super) columns: &'a [Column],
    pub(super) visible: usize,
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

pub(super) fn table(
    ct: &CreateTable,
    settings: &Settings,
) -> Result<(TableDef, Option<(String, Loc)>)> {
    let opts = options::check(&ct.name, ct.loc, &ct.options)?;
    let mut columns: Vec<Column> = Vec::new();
    let mut proctime = None;
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
                not_null: c.not_null,
                path: c.path.clone(),
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
                    not_null: false,
                    path: Vec::new(),
                }
            }
            ColumnKind::Computed(e) if is_proctime(e) => {
                // `proc AS PROCTIME()`: accepted while nothing reads it
                // (checked once the INSERTs are planned).
                proctime = Some((columns.len(), c.loc));
                Column {
                    name: c.name.clone(),
                    ty: SqlType::TimestampLtz,
                    source: ColumnSource::Computed(crate::expr::Expr::Literal(
                        lowwater_core::Value::Null,
                    )),
                    not_null: false,
                    path: Vec::new(),
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
                    not_null: false,
                    path: Vec::new(),
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
    if opts.lowwater.caught_up && idle_timeout.is_none() {
        return Err(SqlError::new(
            option_loc(ct, "scan.watermark.idle-mode"),
            format!(
                "table '{}': scan.watermark.idle-mode 'caught-up' decides when a quiet partition \
                 may go idle, but idleness is off; set 'scan.watermark.idle-timeout' (or SET \
                 'table.exec.source.idle-timeout') too",
                ct.name
            ),
        ));
    }
    let emit = emit_strategy(ct, &opts.raw)?;
    let alignment = super::alignment::alignment(ct, &opts.raw)?;
    let max_future = match opts.raw.get("lowwater.watermark.max-future") {
        Some(v) => Some(parse_duration(v).ok().filter(|d| *d > 0).ok_or_else(|| {
            SqlError::new(
                option_loc(ct, "lowwater.watermark.max-future"),
                format!(
                    "table '{}': lowwater.watermark.max-future '{v}' is not a positive \
                             duration; write e.g. '10 min'",
                    ct.name
                ),
            )
        })?),
        None => None,
    };
    let avro = matches!(
        opts.value_format,
        crate::formats::ValueFormat::Avro | crate::formats::ValueFormat::AvroConfluent(_)
    );
    if let Some(c) = columns
        .iter()
        .find(|c| matches!(c.ty, SqlType::Decimal(..)))
        .filter(|_| avro)
    {
        return Err(SqlError::new(
            ct.loc,
            format!(
                "table '{}': DECIMAL column '{}' is not supported with the {} format yet (it is \
                 with json and csv)",
                ct.name,
                c.name,
                opts.value_format.name()
            ),
        ));
    }
    let json = opts.value_format == crate::formats::ValueFormat::Json
        && !matches!(opts.connector, Connector::Datagen(_));
    if let Some(c) = columns
        .iter()
        .find(|c| !c.path.is_empty())
        .filter(|_| !json)
    {
        return Err(SqlError::new(
            ct.loc,
            format!(
                "table '{}': ROW column '{}' needs the json format (lowwater reads nested \
                 fields from JSON objects)",
                ct.name, c.path[0]
            ),
        ));
    }
    let late = opts
        .lowwater
        .late_data_sink
        .clone()
        .map(|n| (n, option_loc(ct, "late-data.sink")));
    let upsert = opts
        .raw
        .get("connector")
        .is_some_and(|c| c == "upsert-kafka");
    let key = if upsert {
        upsert_key(ct, &columns, &opts.raw)?
    } else {
        let fields = opts.raw.get("key.fields").map(|f| {
            f.split(';')
                .map(|n| n.trim().to_string())
                .collect::<Vec<_>>()
        });
        kafka_key(ct, &columns, &opts.raw, fields)?
    };
    if opts.value_format == crate::formats::ValueFormat::Raw {
        // The value's columns: the physical ones but the key's under
        // 'EXCEPT_KEY' (those come from the record key).
        let from_key: &[usize] = match &key {
            Some(k) if k.except_key => &k.fields,
            _ => &[],
        };
        let physical: Vec<&Column> = columns
            .iter()
            .enumerate()
            .filter(|(i, c)| c.source == ColumnSource::Physical && !from_key.contains(i))
            .map(|(_, c)| c)
            .collect();
        if physical.len() != 1 || physical[0].ty != crate::types::SqlType::String {
            let at = match opts.raw.contains_key("value.format") {
                true => "value.format",
                false => "format",
            };
            return Err(SqlError::new(
                option_loc(ct, at),
                format!(
                    "table '{}': format 'raw' holds the whole record value in one physical STRING \
                     column (metadata and computed columns may come beside it, and key columns \
                     under 'value.fields-include' = 'EXCEPT_KEY'); this table's value has {} \
                     physical column(s)",
                    ct.name,
                    physical.len()
                ),
            ));
        }
    }
    let discovery_interval = match &opts.connector {
        Connector::Kafka { .. } => opts.lowwater.discovery_interval,
        _ => None,
    };
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
    let primary_key = match &ct.primary_key {
        None => None,
        Some((cols, at)) => {
            if let (Connector::Kafka { .. }, false) = (&opts.connector, upsert) {
                return Err(SqlError::new(
                    *at,
                    format!(
                        "the Kafka table '{}' cannot have a PRIMARY KEY (Flink: the 'kafka' \
                         connector \"can't guarantee the semantic of primary key\"); a table \
                         of versions keyed by the record key is 'upsert-kafka' in Flink",
                        ct.name
                    ),
                ));
            }
            let mut key = Vec::new();
            for c in cols {
                let i = columns
                    .iter()
                    .position(|x| x.name.eq_ignore_ascii_case(c))
                    .ok_or_else(|| {
                        SqlError::new(
                            *at,
                            format!("PRIMARY KEY column '{c}' is not a column of '{}'", ct.name),
                        )
                    })?;
                if columns[i].source != ColumnSource::Physical {
                    return Err(SqlError::new(
                        *at,
                        format!(
                            "PRIMARY KEY column '{c}' of '{}' is computed or metadata; a key is \
                             made of physical columns (Flink: \"is not a physical column\")",
                            ct.name
                        ),
                    ));
                }
                if key.contains(&i) {
                    return Err(SqlError::new(*at, format!("PRIMARY KEY names '{c}' twice")));
                }
                key.push(i);
            }
            Some(key)
        }
    };
    let options = masked(&opts.connector, opts.raw);
    Ok((
        TableDef {
            name: ct.name.clone(),
            primary_key,
            loc: ct.loc,
            columns,
            watermark,
            connector: opts.connector,
            format: opts.format,
            idle_timeout,
            emit,
            alignment,
            max_future,
            proctime,
            caught_up: opts.lowwater.caught_up,
            discovery_interval,
            max_emission_lag: opts.lowwater.max_emission_lag,
            max_staleness: opts.lowwater.max_staleness,
            late_data_sink: None,
            key,
            options,
            value_format: opts.value_format,
        },
        late,
    ))
}

/// Where option `key` is written in the table's WITH clause (the table's
/// place if it is not).
pub(super) fn option_loc(ct: &CreateTable, key: &str) -> Loc {
    ct.options
        .iter()
        .find(|(o, _, _)| o == key)
        .map_or(ct.loc, |(_, _, l)| *l)
}

/// The key of an `upsert-kafka` table: its PRIMARY KEY's columns, which
/// Flink reads from the record key (`key.format`, with
/// `key.fields-prefix` under 'EXCEPT_KEY').
fn upsert_key(
    ct: &CreateTable,
    columns: &[Column],
    raw: &BTreeMap<String, String>,
) -> Result<Option<KafkaKey>> {
    let Some((names, at)) = &ct.primary_key else {
        return Err(SqlError::new(
            ct.loc,
            format!(
                "table '{}': 'upsert-kafka' tables require a PRIMARY KEY (...) NOT ENFORCED (as \
                 in Flink): it names the columns read from the record key, and each record \
                 updates the version of its key, a tombstone (a record without a value) \
                 deleting it",
                ct.name
            ),
        ));
    };
    if let Some(c) = names
        .iter()
        .find(|c| !columns.iter().any(|x| x.name.eq_ignore_ascii_case(c)))
    {
        return Err(SqlError::new(
            *at,
            format!("PRIMARY KEY column '{c}' is not a column of '{}'", ct.name),
        ));
    }
    let prefix = raw.get("key.fields-prefix").map_or("", String::as_str);
    if let Some(c) = names.iter().find(|c| !c.starts_with(prefix)) {
        return Err(SqlError::new(
            *at,
            format!(
                "PRIMARY KEY column '{c}' of '{}' does not start with key.fields-prefix \
                 '{prefix}': the key's columns are named with the prefix, which the record key \
                 leaves out",
                ct.name
            ),
        ));
    }
    kafka_key(ct, columns, raw, Some(names.clone()))
}

/// The record key's columns `fields` (a `kafka` table's `key.fields`, an
/// `upsert-kafka` table's PRIMARY KEY) with the key options around them.
fn kafka_key(
    ct: &CreateTable,
    columns: &[Column],
    raw: &BTreeMap<String, String>,
    fields: Option<Vec<String>>,
) -> Result<Option<KafkaKey>> {
    let at = |k: &str| option_loc(ct, k);
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
    let Some(fields) = fields else {
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
    for name in &fields {
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

fn watermark(w: &WatermarkClause, columns: &[Column]) -> Result<WatermarkDef> {
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
    // Seconds take up to three fraction digits (SECOND(3)): '0.5' is 500 ms.
    if let (Some(1_000), Some((whole, frac))) = (unit, text.trim().split_once('.')) {
        let ok = !frac.is_empty() && frac.len() <= 3 && frac.bytes().all(|b| b.is_ascii_digit());
        let w: i64 = if whole.is_empty() {
            Ok(0)
        } else {
            whole.parse()
        }
        .map_err(|_| bad())?;
        if !ok || w < 0 || whole.trim_start().starts_with('-') {
            return Err(SqlError::new(
                at,
                format!("INTERVAL '{text}' SECOND: at most three fraction digits (milliseconds)"),
            ));
        }
        let ms: i64 = format!("{frac:0<3}").parse().map_err(|_| bad())?;
        return w
            .checked_mul(1_000)
            .and_then(|x| x.checked_add(ms))
            .ok_or_else(bad);
    }
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

/// FLIP-296's `scan.watermark.emit.strategy` ('on-periodic', the default,
/// or 'on-event') and `scan.watermark.emit.on-event.gap` (records between
/// two on-event emissions, default 1).
fn emit_strategy(ct: &CreateTable, raw: &BTreeMap<String, String>) -> Result<EmitStrategy> {
    const STRATEGY: &str = "scan.watermark.emit.strategy";
    const GAP: &str = "scan.watermark.emit.on-event.gap";
    let gap = match raw.get(GAP) {
        Some(v) => match v.trim().parse::<u32>() {
            Ok(g) if g >= 1 => g,
            _ => {
                return Err(SqlError::new(
                    option_loc(ct, GAP),
                    format!(
                    "table '{}': {GAP} must be a whole number of records, at least 1; found '{v}'",
                    ct.name
                ),
                ))
            }
        },
        None => 1,
    };
    match raw
        .get(STRATEGY)
        .map(|v| v.trim().to_ascii_lowercase().replace('_', "-"))
    {
        None => Ok(EmitStrategy::Periodic),
        Some(v) if v == "on-periodic" => Ok(EmitStrategy::Periodic),
        Some(v) if v == "on-event" => Ok(EmitStrategy::OnEvent { gap }),
        Some(v) => Err(SqlError::new(
            option_loc(ct, STRATEGY),
            format!(
                "table '{}': {STRATEGY} '{v}' is not known; use 'on-periodic' (every \
                 pipeline.auto-watermark-interval, the default) or 'on-event' (after every \
                 {GAP} records)",
                ct.name
            ),
        )),
    }
}

fn is_proctime(e: &AstExpr) -> bool {
    matches!(e, AstExpr::Function(f) if f.name.to_string().eq_ignore_ascii_case("PROCTIME"))
}

/// A table's options as the plan keeps them: a jdbc table's password
/// masked, and its url without the password parameter (the connector
/// holds them; the plan is printed, compared and stored).
fn masked(connector: &Connector, mut raw: BTreeMap<String, String>) -> BTreeMap<String, String> {
    if let Connector::Jdbc(j) = connector {
        if let Some(p) = raw.get_mut("password") {
            *p = "***".into();
        }
        raw.insert("url".into(), j.url.clone());
    }
    raw
}
