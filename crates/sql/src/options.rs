//! Connector and format options, checked as Flink checks them: every key
//! must be known to the connector (or be a pass-through `properties.*`),
//! required keys must be there, and values must parse. An unknown option is
//! an error that lists the supported ones.

use std::collections::BTreeMap;

use lowwater_core::Millis;

use crate::error::{Loc, Result, SqlError};
use crate::formats::ValueFormat;
use crate::types::parse_duration;

/// Where a table reads from or writes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Connector {
    /// Apache Kafka.
    Kafka {
        /// Topics (`'topic' = 'a;b'`).
        topics: Vec<String>,
        /// `properties.*` passed to the client, without the prefix.
        properties: BTreeMap<String, String>,
        /// `scan.startup.mode` (default `group-offsets`).
        startup_mode: String,
    },
    /// Files of JSON lines.
    Filesystem {
        /// `path`.
        path: String,
    },
    /// Rows printed to stdout.
    Print,
    /// Rows discarded.
    Blackhole,
    /// Generated rows (Flink's `datagen`, plus lowwater's per-partition
    /// behaviours that reproduce the seed incidents live).
    Datagen(Datagen),
    /// A PostgreSQL table written through Flink's `jdbc` connector.
    Jdbc(Box<crate::jdbc::Jdbc>),
}

/// How one datagen partition behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionBehaviour {
    /// Never produces a record (a retired producer).
    Never,
    /// One record every this many ms, stamped with the current time (a heartbeat).
    Every(Millis),
    /// Produces normally except between these offsets from the start (ms).
    Quiet {
        /// Start of the quiet period, from the job start.
        from: Millis,
        /// End of the quiet period, from the job start.
        to: Millis,
    },
}

/// The `datagen` connector's options.
#[derive(Debug, Clone, PartialEq)]
pub struct Datagen {
    /// `rows-per-second` (over the whole table; default 10000).
    pub rows_per_second: f64,
    /// `number-of-rows`: a bounded source of this many rows.
    pub number_of_rows: Option<u64>,
    /// `lowwater.partitions` (default 1).
    pub partitions: i32,
    /// `lowwater.max-out-of-orderness`: event times lag the clock by up to this.
    pub max_out_of_orderness: Millis,
    /// `lowwater.partition.<n>.never|every|quiet`.
    pub behaviours: BTreeMap<i32, PartitionBehaviour>,
    /// `fields.<column>.<option>`.
    pub fields: BTreeMap<String, BTreeMap<String, String>>,
}

impl Connector {
    /// The `'connector'` value.
    pub fn name(&self) -> &'static str {
        match self {
            Connector::Kafka { .. } => "kafka",
            Connector::Filesystem { .. } => "filesystem",
            Connector::Print => "print",
            Connector::Blackhole => "blackhole",
            Connector::Datagen(_) => "datagen",
            Connector::Jdbc(_) => "jdbc",
        }
    }

    /// Whether tables of this connector are written only (a job cannot
    /// read them).
    pub fn write_only(&self) -> bool {
        matches!(
            self,
            Connector::Print | Connector::Blackhole | Connector::Jdbc(_)
        )
    }
}

/// How JSON timestamps are written and read (`json.timestamp-format.standard`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimestampStandard {
    /// `yyyy-MM-dd HH:mm:ss.SSS` (Flink's default).
    Sql,
    /// `yyyy-MM-ddTHH:mm:ss.SSS`.
    Iso8601,
}

/// The `json` format's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonFormat {
    /// Skip (and count) records that do not parse, instead of failing.
    pub ignore_parse_errors: bool,
    /// Fail when a field is missing instead of reading NULL.
    pub fail_on_missing_field: bool,
    /// Timestamp text format.
    pub timestamp_standard: TimestampStandard,
    /// Leave NULL fields out of written objects.
    pub ignore_null_fields: bool,
}

/// Options lowwater understands beyond Flink's.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LowwaterOptions {
    /// `scan.watermark.idle-timeout` (overrides the job-wide setting).
    pub idle_timeout: Option<Option<Millis>>,
    /// `late-data.sink`: a table that receives late rows.
    pub late_data_sink: Option<String>,
    /// `scan.watermark.idle-mode` = 'caught-up': a partition goes idle only
    /// when it is quiet and read up to the broker's end offset.
    pub caught_up: bool,
    /// `scan.topic-partition-discovery.interval` (Kafka): how often new
    /// partitions are looked for; `None`: never. Flink's default, 5 minutes,
    /// when unset; '0' turns it off.
    pub discovery_interval: Option<Millis>,
    /// `lowwater.sink.max-emission-lag` (sinks): a window row emitted later
    /// than this after its window ended breaks the SLO (WARN + metric).
    pub max_emission_lag: Option<Millis>,
    /// `lowwater.sink.max-staleness` (sinks): no row for longer than this
    /// breaks the SLO (WARN + metric).
    pub max_staleness: Option<Millis>,
}

/// The checked options of one table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableOptions {
    /// The connector.
    pub connector: Connector,
    /// The format, for connectors that have one.
    pub format: Option<JsonFormat>,
    /// The value format (`'format'` / `'value.format'`).
    pub value_format: ValueFormat,
    /// lowwater's own options.
    pub lowwater: LowwaterOptions,
    /// All options as written.
    pub raw: BTreeMap<String, String>,
}

const KAFKA: &[&str] = &[
    "connector",
    "topic",
    "format",
    "value.format",
    "key.format",
    "key.fields",
    "key.fields-prefix",
    "value.fields-include",
    "scan.startup.mode",
    "scan.startup.specific-offsets",
    "scan.startup.timestamp-millis",
    "scan.bounded.mode",
    "scan.topic-partition-discovery.interval",
    "scan.watermark.idle-timeout",
    "scan.watermark.emit.strategy",
    "scan.watermark.emit.on-event.gap",
    "scan.watermark.alignment.group",
    "scan.watermark.alignment.max-drift",
    "scan.watermark.alignment.update-interval",
    "scan.watermark.idle-mode",
    "sink.partitioner",
    "sink.delivery-guarantee",
    "sink.transactional-id-prefix",
    "late-data.sink",
    "lowwater.watermark.max-future",
    "lowwater.sink.max-emission-lag",
    "lowwater.sink.max-staleness",
];
/// Flink's `upsert-kafka`: a table of versions keyed by the record key (its
/// PRIMARY KEY). As a source it is read from the earliest offset, a
/// tombstone deleting its key; as a sink each row is written under its
/// key. No `format`, `key.fields` or `scan.startup.*`: Flink has none of
/// them on this connector.
const UPSERT_KAFKA: &[&str] = &[
    "connector",
    "topic",
    "value.format",
    "key.format",
    "key.fields-prefix",
    "value.fields-include",
    "scan.bounded.mode",
    "scan.topic-partition-discovery.interval",
    "scan.watermark.idle-timeout",
    "scan.watermark.emit.strategy",
    "scan.watermark.emit.on-event.gap",
    "scan.watermark.alignment.group",
    "scan.watermark.alignment.max-drift",
    "scan.watermark.alignment.update-interval",
    "scan.watermark.idle-mode",
    "lowwater.watermark.max-future",
    "sink.delivery-guarantee",
    "sink.transactional-id-prefix",
    "sink.buffer-flush.max-rows",
    "sink.buffer-flush.interval",
    "lowwater.sink.max-emission-lag",
    "lowwater.sink.max-staleness",
];
const FILESYSTEM: &[&str] = &[
    "connector",
    "path",
    "format",
    "scan.watermark.idle-timeout",
    "scan.watermark.emit.strategy",
    "scan.watermark.emit.on-event.gap",
    "scan.watermark.alignment.group",
    "scan.watermark.alignment.max-drift",
    "scan.watermark.alignment.update-interval",
    "late-data.sink",
    "lowwater.watermark.max-future",
    "lowwater.sink.max-emission-lag",
    "lowwater.sink.max-staleness",
];
const PRINT: &[&str] = &[
    "connector",
    "print-identifier",
    "standard-error",
    "sink.parallelism",
    "lowwater.sink.max-emission-lag",
    "lowwater.sink.max-staleness",
];
const BLACKHOLE: &[&str] = &[
    "connector",
    "lowwater.sink.max-emission-lag",
    "lowwater.sink.max-staleness",
];
const DATAGEN: &[&str] = &[
    "connector",
    "rows-per-second",
    "number-of-rows",
    "lowwater.partitions",
    "lowwater.max-out-of-orderness",
    "scan.watermark.idle-timeout",
    "scan.watermark.emit.strategy",
    "scan.watermark.emit.on-event.gap",
    "scan.watermark.alignment.group",
    "scan.watermark.alignment.max-drift",
    "scan.watermark.alignment.update-interval",
    "late-data.sink",
    "lowwater.watermark.max-future",
];
/// `fields.<column>.<option>` options of datagen.
pub const DATAGEN_FIELD_OPTIONS: &[&str] = &[
    "kind",
    "min",
    "max",
    "length",
    "start",
    "end",
    "max-past",
    "null-rate",
];
const JSON: &[&str] = &[
    "json.ignore-parse-errors",
    "json.fail-on-missing-field",
    "json.timestamp-format.standard",
    "json.map-null-key.mode",
    "json.map-null-key.literal",
    "json.encode.decimal-as-plain-number",
    "json.encode.ignore-null-fields",
];
const STARTUP_MODES: &[&str] = &[
    "earliest-offset",
    "latest-offset",
    "group-offsets",
    "timestamp",
    "specific-offsets",
];

/// Checks the `WITH` options of table `table` (defined at `loc`).
pub fn check(table: &str, loc: Loc, options: &[(String, String, Loc)]) -> Result<TableOptions> {
    let mut raw = BTreeMap::new();
    let mut locs = BTreeMap::new();
    // With 'value.format', Flink prefixes the value format's options too
    // ('value.avro-confluent.url', 'value.json.ignore-parse-errors'): they
    // are read as the unprefixed ones.
    let value_format = options.iter().any(|(k, _, _)| k == "value.format");
    for (k, v, at) in options {
        let k = match k.strip_prefix("value.") {
            Some(rest)
                if value_format
                    && ["json.", "csv.", "avro.", "avro-confluent.", "raw."]
                        .iter()
                        .any(|f| rest.starts_with(f)) =>
            {
                rest.to_string()
            }
            _ => k.clone(),
        };
        let k = &k;
        if raw.insert(k.clone(), v.clone()).is_some() {
            return Err(SqlError::new(*at, format!("option '{k}' is set twice")));
        }
        locs.insert(k.clone(), *at);
    }
    let at = |k: &str| locs.get(k).copied().unwrap_or(loc);
    let name = raw.get("connector").cloned().ok_or_else(|| {
        SqlError::new(
            loc,
            format!(
                "table '{table}' has no 'connector' option; supported: kafka, filesystem, print, blackhole"
            ),
        )
    })?;
    let allowed: &[&str] = match name.as_str() {
        "kafka" => KAFKA,
        "upsert-kafka" => UPSERT_KAFKA,
        "filesystem" => FILESYSTEM,
        "print" => PRINT,
        "blackhole" => BLACKHOLE,
        "datagen" => DATAGEN,
        "jdbc" => crate::jdbc::OPTIONS,
        other => {
            return Err(SqlError::new(
                at("connector"),
                format!(
                    "connector '{other}' is not supported; supported: kafka, upsert-kafka, filesystem, print, blackhole, datagen, jdbc"
                ),
            ))
        }
    };
    let format_key = if raw.contains_key("value.format") {
        "value.format"
    } else {
        "format"
    };
    let upsert = name == "upsert-kafka";
    let kafka = name == "kafka" || upsert;
    let has_format = allowed.contains(&"format") || upsert;
    let format_name = raw.get(format_key).cloned();
    let value_format = match format_name.as_deref() {
        Some(f) if has_format && f != "json" => {
            let at_format = |k: &str| if k == "format" { at(format_key) } else { at(k) };
            crate::formats::check(f, &name, &raw, &at_format)?
        }
        _ => ValueFormat::Json,
    };
    let raw_format = value_format == ValueFormat::Raw;
    let format_options = crate::formats::options_of(value_format.name());
    let unknown: Vec<&String> = raw
        .keys()
        .filter(|k| {
            !(allowed.contains(&k.as_str())
                || (kafka && k.starts_with("properties."))
                || (name == "datagen" && datagen_key(k))
                || (name == "jdbc" && crate::jdbc::is_read_option(k))
                || (has_format
                    && JSON.contains(&k.as_str())
                    && (value_format == ValueFormat::Json
                        || raw.get("key.format").is_some_and(|f| f == "json")))
                || (raw_format && (*k == "raw.charset" || *k == "raw.endianness"))
                || format_options.contains(&k.as_str()))
        })
        .collect();
    if let Some(first) = unknown.first() {
        let mut supported: Vec<&str> = allowed.to_vec();
        if has_format {
            supported.extend_from_slice(JSON);
            supported.extend_from_slice(format_options);
        }
        if kafka {
            supported.push("properties.*");
        }
        let listed = unknown
            .iter()
            .map(|k| format!("'{k}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let plural = if unknown.len() > 1 { "s" } else { "" };
        let message = match crate::suggest::closest(first, supported.iter().copied()) {
            Some(near) => format!(
                "unsupported option{plural} for connector '{name}': {listed}; did you mean '{near}'?"
            ),
            None => format!(
                "unsupported option{plural} for connector '{name}': {listed}; supported options: {}",
                supported.join(", ")
            ),
        };
        return Err(SqlError::new(at(first), message));
    }
    let require = |k: &str| -> Result<String> {
        raw.get(k).cloned().ok_or_else(|| {
            // A present key close to the missing one is its misspelling
            // (`properties.*` keys pass the unknown-option check): point
            // at it.
            let near = raw
                .keys()
                .find(|present| crate::suggest::closest(present, [k]).is_some());
            match near {
                Some(present) => SqlError::new(
                    at(present),
                    format!(
                        "table '{table}': connector '{name}' requires option '{k}', and '{present}' \
                         is here: did you mean '{k}'?"
                    ),
                ),
                None => SqlError::new(
                    loc,
                    format!("table '{table}': connector '{name}' requires option '{k}'"),
                ),
            }
        })
    };
    if upsert {
        // Flink's upsert-kafka requires both formats: the key's columns
        // are the PRIMARY KEY, read from the record key.
        require("key.format")?;
        require("value.format")?;
    }
    let connector = match name.as_str() {
        "kafka" | "upsert-kafka" => {
            let topics: Vec<String> = require("topic")?
                .split(';')
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .collect();
            require("properties.bootstrap.servers")?;
            // upsert-kafka reads every version from the start of the topic.
            let startup_mode = match raw.get("scan.startup.mode") {
                _ if upsert => "earliest-offset".to_string(),
                Some(m) => m.clone(),
                None => "group-offsets".to_string(),
            };
            if !STARTUP_MODES.contains(&startup_mode.as_str()) {
                let near = crate::suggest::closest(&startup_mode, STARTUP_MODES.iter().copied())
                    .or_else(|| {
                        // 'earliest', 'latest': the mode's first word.
                        STARTUP_MODES
                            .iter()
                            .copied()
                            .find(|m| m.split('-').next() == Some(startup_mode.as_str()))
                    })
                    .map_or(String::new(), |n| format!("; did you mean '{n}'?"));
                return Err(SqlError::new(
                    at("scan.startup.mode"),
                    format!(
                        "scan.startup.mode '{startup_mode}' is not one of {}{near}",
                        STARTUP_MODES.join(", ")
                    ),
                ));
            }
            let properties = crate::kafka_props::translate(
                raw.iter()
                    .filter_map(|(k, v)| {
                        k.strip_prefix("properties.")
                            .map(|p| (p.to_string(), v.clone()))
                    })
                    .collect(),
                at,
            )?;
            Connector::Kafka {
                topics,
                properties,
                startup_mode,
            }
        }
        "filesystem" => Connector::Filesystem {
            path: require("path")?,
        },
        "print" => Connector::Print,
        "datagen" => Connector::Datagen(datagen(&raw, &at)?),
        "jdbc" => Connector::Jdbc(Box::new(crate::jdbc::check(&raw, &at, loc)?)),
        _ => Connector::Blackhole,
    };
    let format = if has_format {
        if format_name.is_none() {
            return Err(SqlError::new(
                loc,
                format!("table '{table}': connector '{name}' requires option 'format' (supported: json, csv, avro, avro-confluent, raw)"),
            ));
        }
        Some(json_format(&raw, &at)?)
    } else {
        None
    };
    let idle_timeout = match raw.get("scan.watermark.idle-timeout") {
        Some(v) => {
            let d = parse_duration(v)
                .map_err(|m| SqlError::new(at("scan.watermark.idle-timeout"), m))?;
            Some((d > 0).then_some(d))
        }
        None => None,
    };
    // Options lowwater knows but does not implement yet are errors, not
    // silently ignored settings.
    let unsupported = |k: &str, ok: &[&str], why: &str| -> Result<()> {
        match raw.get(k) {
            Some(v) if !ok.contains(&v.as_str()) => Err(SqlError::new(
                at(k),
                format!("{k} = '{v}' is not supported yet: {why}"),
            )),
            _ => Ok(()),
        }
    };
    unsupported(
        "sink.delivery-guarantee",
        &["exactly-once", "at-least-once", "none"],
        "Flink's Kafka sink knows 'exactly-once', 'at-least-once' and 'none'",
    )?;
    let exactly_once = raw
        .get("sink.delivery-guarantee")
        .is_some_and(|v| v == "exactly-once");
    match raw.get("sink.transactional-id-prefix") {
        None if exactly_once => return Err(SqlError::new(
            at("sink.delivery-guarantee"),
            "sink.delivery-guarantee 'exactly-once' needs 'sink.transactional-id-prefix' (as in \
                 Flink): a name unique to this job on the cluster, e.g. 'dashboard-job'; it fences \
                 an older instance of the job and aborts what it left uncommitted",
        )),
        Some(v) if v.trim().is_empty() => {
            return Err(SqlError::new(
                at("sink.transactional-id-prefix"),
                "sink.transactional-id-prefix must not be empty",
            ))
        }
        _ => {}
    }
    // Flink's upsert-kafka sink buffers rows and keeps each key's last one
    // when both are set; off (0) by default.
    // (The jdbc sink buffers: its options are its own.)
    for k in ["sink.buffer-flush.max-rows", "sink.buffer-flush.interval"] {
        if name == "jdbc" {
            break;
        }
        let off = |v: &str| v.trim().parse::<u64>() == Ok(0) || parse_duration(v) == Ok(0);
        if raw.get(k).is_some_and(|v| !off(v)) {
            return Err(SqlError::new(
                at(k),
                format!(
                    "{k} is not supported yet: lowwater writes each row when it is emitted (Flink's \
                     default, with both options at 0); remove it"
                ),
            ));
        }
    }
    unsupported(
        "sink.partitioner",
        &["default", "fixed", "round-robin"],
        "lowwater has 'default' (the Kafka client's: by key, sticky without one), 'fixed' (sink \
         subtask i writes to partition i % partitions) and 'round-robin'; custom partitioner \
         classes do not exist here",
    )?;
    let slo = |k: &str| -> Result<Option<Millis>> {
        raw.get(k)
            .map(|v| {
                let d = parse_duration(v).map_err(|m| SqlError::new(at(k), m))?;
                if d <= 0 {
                    return Err(SqlError::new(
                        at(k),
                        format!("{k} must be a positive duration such as '30 s', got '{v}'"),
                    ));
                }
                Ok(d)
            })
            .transpose()
    };
    let max_emission_lag = slo("lowwater.sink.max-emission-lag")?;
    let max_staleness = slo("lowwater.sink.max-staleness")?;
    let discovery_interval = match raw.get("scan.topic-partition-discovery.interval") {
        Some(v) => {
            let d = parse_duration(v)
                .map_err(|m| SqlError::new(at("scan.topic-partition-discovery.interval"), m))?;
            (d > 0).then_some(d)
        }
        None => Some(5 * 60_000),
    };
    if let Some(mode) = raw.get("scan.bounded.mode") {
        if mode != "unbounded" && mode != "latest-offset" {
            return Err(SqlError::new(
                at("scan.bounded.mode"),
                format!("scan.bounded.mode '{mode}' is not supported yet; supported: unbounded, latest-offset"),
            ));
        }
    }
    let caught_up = match raw.get("scan.watermark.idle-mode").map(String::as_str) {
        None | Some("timeout") => false,
        Some("caught-up") => {
            if raw
                .get("properties.statistics.interval.ms")
                .is_some_and(|v| v.trim() == "0")
            {
                return Err(SqlError::new(
                    at("properties.statistics.interval.ms"),
                    "scan.watermark.idle-mode 'caught-up' reads the end offsets from librdkafka's \
                     statistics, which 'properties.statistics.interval.ms' = '0' turns off (no \
                     partition could ever count as caught up); remove it or set e.g. '500'",
                ));
            }
            true
        }
        Some(mode) => {
            return Err(SqlError::new(
                at("scan.watermark.idle-mode"),
                format!(
                    "scan.watermark.idle-mode '{mode}' is not known; use 'timeout' (idle after \
                     the idle-timeout without records, Flink's rule) or 'caught-up' (idle only \
                     when also read up to the broker's end offset)"
                ),
            ))
        }
    };
    Ok(TableOptions {
        connector,
        format,
        value_format,
        lowwater: LowwaterOptions {
            idle_timeout,
            late_data_sink: raw.get("late-data.sink").cloned(),
            caught_up,
            discovery_interval,
            max_emission_lag,
            max_staleness,
        },
        raw,
    })
}

fn datagen_key(k: &str) -> bool {
    if let Some(rest) = k.strip_prefix("fields.") {
        return rest
            .rsplit_once('.')
            .is_some_and(|(col, opt)| !col.is_empty() && DATAGEN_FIELD_OPTIONS.contains(&opt));
    }
    if let Some(rest) = k.strip_prefix("lowwater.partition.") {
        return rest.split_once('.').is_some_and(|(n, opt)| {
            n.parse::<i32>().is_ok() && ["never", "every", "quiet"].contains(&opt)
        });
    }
    false
}

fn datagen(raw: &BTreeMap<String, String>, at: &dyn Fn(&str) -> Loc) -> Result<Datagen> {
    let dur =
        |k: &str, v: &str| parse_duration(v).map_err(|m| SqlError::new(at(k), format!("{k}: {m}")));
    let num = |k: &str| -> Result<Option<f64>> {
        raw.get(k)
            .map(|v| {
                v.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| {
                        SqlError::new(
                            at(k),
                            format!("{k} must be a non-negative number, got '{v}'"),
                        )
                    })
            })
            .transpose()
    };
    let partitions = num("lowwater.partitions")?.unwrap_or(1.0);
    if !(1.0..=100_000.0).contains(&partitions) || partitions.fract() != 0.0 {
        return Err(SqlError::new(
            at("lowwater.partitions"),
            "lowwater.partitions must be a whole number from 1 to 100000",
        ));
    }
    let partitions = partitions as i32;
    let mut behaviours = BTreeMap::new();
    let mut fields: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (k, v) in raw {
        if let Some((col, opt)) = k.strip_prefix("fields.").and_then(|r| r.rsplit_once('.')) {
            let ok = match opt {
                "kind" => v == "random" || v == "sequence",
                "min" | "max" => v.trim().parse::<f64>().is_ok(),
                "start" | "end" | "length" => v
                    .trim()
                    .parse::<i64>()
                    .is_ok_and(|n| opt != "length" || n >= 0),
                "null-rate" => v
                    .trim()
                    .parse::<f64>()
                    .is_ok_and(|r| (0.0..=1.0).contains(&r)),
                _ => parse_duration(v).is_ok(),
            };
            if !ok {
                return Err(SqlError::new(
                    at(k),
                    format!(
                        "{k} = '{v}' is not valid: kind is 'random' or 'sequence'; min/max are numbers; \
                         start/end/length whole numbers; null-rate between 0 and 1; max-past a duration"
                    ),
                ));
            }
            fields
                .entry(col.to_string())
                .or_default()
                .insert(opt.to_string(), v.clone());
        }
        let Some((n, opt)) = k
            .strip_prefix("lowwater.partition.")
            .and_then(|r| r.split_once('.'))
        else {
            continue;
        };
        let p: i32 = n.parse().unwrap_or(-1);
        if !(0..partitions).contains(&p) {
            return Err(SqlError::new(
                at(k),
                format!("{k}: partition {n} does not exist (lowwater.partitions = {partitions})"),
            ));
        }
        let b = match opt {
            "never" if v == "true" => PartitionBehaviour::Never,
            "never" => continue,
            "every" => PartitionBehaviour::Every(dur(k, v)?.max(1)),
            _ => {
                let (from, to) = v.split_once("..").ok_or_else(|| {
                    SqlError::new(
                        at(k),
                        format!(
                            "{k} must be 'FROM..TO' (durations from the start, e.g. '10 s..40 s')"
                        ),
                    )
                })?;
                let (from, to) = (dur(k, from)?, dur(k, to)?);
                if from >= to {
                    return Err(SqlError::new(
                        at(k),
                        format!("{k}: the quiet period must end after it starts"),
                    ));
                }
                PartitionBehaviour::Quiet { from, to }
            }
        };
        behaviours.insert(p, b);
    }
    Ok(Datagen {
        rows_per_second: num("rows-per-second")?.unwrap_or(10_000.0),
        number_of_rows: match num("number-of-rows")? {
            Some(n) if n.fract() != 0.0 => {
                return Err(SqlError::new(
                    at("number-of-rows"),
                    "number-of-rows must be a whole number",
                ))
            }
            n => n.map(|n| n as u64),
        },
        partitions,
        max_out_of_orderness: match raw.get("lowwater.max-out-of-orderness") {
            Some(v) => dur("lowwater.max-out-of-orderness", v)?,
            None => 0,
        },
        behaviours,
        fields,
    })
}

fn json_format(raw: &BTreeMap<String, String>, at: &dyn Fn(&str) -> Loc) -> Result<JsonFormat> {
    let flag = |k: &str| crate::formats::flag(raw, at, k);
    let ignore_parse_errors = flag("json.ignore-parse-errors")?;
    let fail_on_missing_field = flag("json.fail-on-missing-field")?;
    if ignore_parse_errors && fail_on_missing_field {
        return Err(SqlError::new(
            at("json.fail-on-missing-field"),
            "json.fail-on-missing-field and json.ignore-parse-errors cannot both be true",
        ));
    }
    let timestamp_standard = match raw
        .get("json.timestamp-format.standard")
        .map(String::as_str)
    {
        None | Some("SQL") => TimestampStandard::Sql,
        Some("ISO-8601") => TimestampStandard::Iso8601,
        Some(other) => {
            return Err(SqlError::new(
                at("json.timestamp-format.standard"),
                format!(
                    "json.timestamp-format.standard must be 'SQL' or 'ISO-8601', got '{other}'"
                ),
            ))
        }
    };
    Ok(JsonFormat {
        ignore_parse_errors,
        fail_on_missing_field,
        timestamp_standard,
        ignore_null_fields: flag("json.encode.ignore-null-fields")?,
    })
}

/// Every option key lowwater reads, by kind (settings, each connector's,
/// each format's): what docs/options.md must list (a test checks it).
pub fn documented_keys() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    v.extend(crate::setting_keys::known_settings());
    for list in [KAFKA, FILESYSTEM, PRINT, BLACKHOLE, DATAGEN, JSON] {
        v.extend(list);
    }
    v.extend(crate::formats::CSV);
    v.extend(crate::formats::AVRO);
    v.extend(crate::formats::AVRO_CONFLUENT);
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(kv: &[(&str, &str)]) -> Vec<(String, String, Loc)> {
        kv.iter()
            .enumerate()
            .map(|(i, (k, v))| {
                (
                    k.to_string(),
                    v.to_string(),
                    Loc {
                        line: i as u64 + 1,
                        column: 3,
                    },
                )
            })
            .collect()
    }

    #[test]
    fn unknown_option_is_an_error_listing_supported_ones() {
        let e = check(
            "t",
            Loc::default(),
            &opts(&[
                ("connector", "filesystem"),
                ("path", "x"),
                ("format", "json"),
                ("scan.bogus", "1"),
            ]),
        )
        .expect_err("unknown");
        assert_eq!(e.loc.line, 4);
        assert!(
            e.message.contains("'scan.bogus'")
                && e.message.contains("supported options: connector")
        );
    }

    #[test]
    fn kafka_requires_topic_bootstrap_and_format() {
        let e = check(
            "t",
            Loc::default(),
            &opts(&[("connector", "kafka"), ("format", "json")]),
        )
        .expect_err("topic");
        assert!(e.message.contains("'topic'"));
        let ok = check(
            "t",
            Loc::default(),
            &opts(&[
                ("connector", "kafka"),
                ("topic", "a;b"),
                ("properties.bootstrap.servers", "127.0.0.1:9092"),
                ("value.format", "json"),
                ("scan.watermark.idle-timeout", "1 min"),
            ]),
        )
        .expect("valid");
        assert!(matches!(&ok.connector, Connector::Kafka { topics, .. } if topics == &["a", "b"]));
        assert_eq!(ok.lowwater.idle_timeout, Some(Some(60_000)));
        let fs = |format: &str, extra: (&str, &str)| {
            check(
                "t",
                Loc::default(),
                &opts(&[
                    ("connector", "filesystem"),
                    ("path", "p"),
                    ("format", format),
                    extra,
                ]),
            )
        };
        let csv = fs("csv", ("csv.field-delimiter", ";")).expect("csv files");
        assert!(matches!(&csv.value_format, ValueFormat::Csv(f) if f.field_delimiter == b';'));
        let avro = fs("avro", ("csv.null-literal", "x"));
        assert!(avro.is_err_and(|e| e.message.contains("container files")));
        let stray = fs("csv", ("json.ignore-parse-errors", "true"));
        assert!(stray.is_err_and(|e| e.message.contains("'json.ignore-parse-errors'")));
        let prefixed = check(
            "t",
            Loc::default(),
            &opts(&[
                ("connector", "kafka"),
                ("topic", "a"),
                ("properties.bootstrap.servers", "127.0.0.1:9092"),
                ("value.format", "avro-confluent"),
                ("value.avro-confluent.url", "http://127.0.0.1:8081"),
            ]),
        )
        .expect("Flink's prefixed value format options");
        assert!(
            matches!(&prefixed.value_format, ValueFormat::AvroConfluent(r) if r.url == "http://127.0.0.1:8081")
        );
        let unknown = fs("protobuf", ("csv.null-literal", "x"));
        assert!(unknown.is_err_and(|e| e.message.contains("format 'protobuf' is not supported")));
    }
}
