//! Flink's `json` format for lowwater's tables.
//!
//! Decoding follows Flink's `JsonToRowDataConverters`: a missing field is
//! NULL (an error with `json.fail-on-missing-field`); integers and doubles
//! are also read from numeric strings and doubles are truncated into integer
//! columns; a STRING column takes any JSON value's text; BOOLEAN reads `true`
//! (any case) as true; TIMESTAMP(3) is text `yyyy-MM-dd HH:mm:ss[.fff]`
//! (`T` instead of the space with `json.timestamp-format.standard` =
//! 'ISO-8601'), TIMESTAMP_LTZ(3) the same followed by `Z`.
//!
//! Encoding follows `RowDataToJsonConverters`: fields in column order, NULL
//! as `null` (left out with `json.encode.ignore-null-fields`), timestamps in
//! the same text form with the fraction trimmed (`03:37:00`, `03:37:59.999`).

use std::hash::BuildHasher;

use lowwater_core::time::{civil_from_days, parse_timestamp, parse_timestamp_with, DateCache};
use lowwater_core::{Row, Timestamp, Value};
use lowwater_sql::options::{JsonFormat, TimestampStandard};
use lowwater_sql::plan::{ColumnSource, TableDef};
use lowwater_sql::SqlType;
use sonic_rs::{JsonType, JsonValueTrait, LazyValue};

use crate::escape::write_json_str;

pub(crate) mod flat;
use flat::Token;

/// Why a payload could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(pub String);

/// Decodes payloads into rows of one table.
#[derive(Debug, Clone)]
pub struct JsonDecoder {
    /// (JSON field name, row position, type) of the decoded columns (a ROW
    /// column's field is named by its path, `payload.user.id`).
    fields: Vec<(String, usize, SqlType)>,
    /// The object's fields, nested ROW fields under their parents.
    root: Level,
    width: usize,
    format: JsonFormat,
    seen: Vec<bool>,
    strings: Interner,
    /// The fast path's last timestamp date (timestamps of a stream mostly
    /// share it).
    dates: DateCache,
}

/// Recently seen strings, so that a repeated value (a key, a category) is
/// shared instead of allocated per record. Bounded: cleared when full.
#[derive(Debug, Clone, Default)]
pub struct Interner {
    /// Each string's own copy (compared here, on this thread, rather than
    /// the shared value's text) and its shared value.
    table: hashbrown::HashTable<(Box<str>, Value)>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl Interner {
    const CAPACITY: usize = 4_096;

    /// `s` as a string value, shared with a recent equal one.
    pub fn get(&mut self, s: &str) -> Value {
        let hash = self.hasher.hash_one(s);
        if let Some((_, v)) = self
            .table
            .find(hash, |(k, _)| same(k.as_bytes(), s.as_bytes()))
        {
            return v.clone();
        }
        if self.table.len() >= Self::CAPACITY {
            self.table.clear();
        }
        let v = Value::str(s);
        let hasher = &self.hasher;
        self.table
            .insert_unique(hash, (Box::from(s), v.clone()), |(k, _)| {
                hasher.hash_one(&**k)
            });
        v
    }
}

/// Whether `a` and `b` are the same bytes; a short string (a key, a field
/// name) compared in place rather than by a call to `memcmp`.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && if a.len() <= 16 {
            a.iter().zip(b).all(|(x, y)| x == y)
        } else {
            a == b
        }
}

/// One JSON object level: the decoded fields in it (name, index in
/// `fields`) and the ROW fields that nest further.
#[derive(Debug, Clone, Default)]
struct Level {
    fields: Vec<(String, usize)>,
    rows: Vec<(String, Level)>,
}

impl Level {
    fn build(paths: &[Vec<String>]) -> Level {
        let mut root = Level::default();
        for (i, path) in paths.iter().enumerate() {
            let mut level = &mut root;
            for (k, seg) in path.iter().enumerate() {
                if k + 1 == path.len() {
                    level.fields.push((seg.clone(), i));
                } else {
                    let at = match level.rows.iter().position(|(n, _)| n == seg) {
                        Some(at) => at,
                        None => {
                            level.rows.push((seg.clone(), Level::default()));
                            level.rows.len() - 1
                        }
                    };
                    level = &mut level.rows[at].1;
                }
            }
        }
        root
    }

    /// Every decoded field at or under this level.
    fn leaves(&self, out: &mut Vec<usize>) {
        out.extend(self.fields.iter().map(|f| f.1));
        for (_, l) in &self.rows {
            l.leaves(out);
        }
    }
}

impl JsonDecoder {
    /// A decoder for all of `table`'s physical columns.
    pub fn new(table: &TableDef) -> Self {
        Self::projected(table, &vec![true; table.columns.len()])
    }

    /// A decoder for the physical columns of `table` marked in `needed`; the
    /// others stay NULL and are not converted (Flink's projection push-down:
    /// a field the job never reads cannot fail it).
    pub fn projected(table: &TableDef, needed: &[bool]) -> Self {
        let fields: Vec<(String, usize, SqlType)> = table
            .columns
            .iter()
            .enumerate()
            .filter(|(i, c)| {
                c.source == ColumnSource::Physical && needed.get(*i).copied().unwrap_or(true)
            })
            .map(|(i, c)| (c.name.clone(), i, c.ty))
            .collect();
        let paths: Vec<Vec<String>> = fields
            .iter()
            .map(|(_, i, _)| {
                let c = &table.columns[*i];
                if c.path.is_empty() {
                    vec![c.name.clone()]
                } else {
                    c.path.clone()
                }
            })
            .collect();
        JsonDecoder {
            root: Level::build(&paths),
            strings: Interner::default(),
            dates: DateCache::default(),
            seen: vec![false; fields.len()],
            fields,
            width: table.columns.len(),
            format: table.format.unwrap_or(JsonFormat {
                ignore_parse_errors: false,
                fail_on_missing_field: false,
                timestamp_standard: TimestampStandard::Sql,
                ignore_null_fields: false,
            }),
        }
    }

    /// A decoder for the given (JSON field name, row position, type) of
    /// `table`'s rows: a Kafka key's fields, named without their prefix.
    pub fn with_fields(table: &TableDef, fields: Vec<(String, usize, SqlType)>) -> Self {
        let mut d = Self::projected(table, &vec![false; table.columns.len()]);
        d.seen = vec![false; fields.len()];
        let paths: Vec<Vec<String>> = fields.iter().map(|f| vec![f.0.clone()]).collect();
        d.root = Level::build(&paths);
        d.fields = fields;
        d
    }

    /// `s` as a string value, shared with recent equal ones.
    pub fn intern(&mut self, s: &str) -> Value {
        self.strings.get(s)
    }

    /// Whether undecodable records are skipped (and counted) instead of failing.
    pub fn ignores_errors(&self) -> bool {
        self.format.ignore_parse_errors
    }

    /// Decodes `payload` into `row` (resized to the table's width; decoded
    /// columns filled, the others NULL). One pass over the object; every
    /// value is validated, converted only if its column is decoded. With
    /// `json.ignore-parse-errors` a field that does not convert becomes NULL
    /// (as in Flink's `JsonToRowDataConverters`); the number of such fields
    /// is returned, so that the caller can count them.
    pub fn decode(&mut self, payload: &str, row: &mut Row) -> Result<usize, DecodeError> {
        self.reset(row);
        if nests_deeper(payload, MAX_NESTING) {
            return Err(DecodeError(format!(
                "the payload nests JSON deeper than {MAX_NESTING} levels (Jackson's limit, which \
                 Flink's json format has too)"
            )));
        }
        let trimmed = payload.trim_start();
        if !trimmed.starts_with('{') {
            return Err(match sonic_rs::from_str::<sonic_rs::Value>(payload) {
                Err(e) => invalid(&e),
                Ok(_) => DecodeError("payload is not a JSON object".to_string()),
            });
        }
        let mut nulled = 0;
        if !self.root.rows.is_empty() || self.decode_flat::<false>(payload, row).is_none() {
            // The general path, from the start.
            row.iter_mut().for_each(|v| *v = Value::Null);
            self.seen.iter_mut().for_each(|s| *s = false);
            self.decode_general(payload, row, &mut nulled)?;
        }
        self.missing()?;
        Ok(nulled)
    }

    /// [`JsonDecoder::decode`] of quoted text (a dump's payload as written
    /// in its line, see [`crate::payload`]): a flat object is read as it
    /// stands ([`flat::scan_quoted`]); anything else is unescaped and
    /// decoded, with the same values and errors either way.
    pub fn decode_quoted(&mut self, text: &str, row: &mut Row) -> Result<usize, DecodeError> {
        if self.root.rows.is_empty() && text.trim_start().starts_with('{') {
            self.reset(row);
            if self.decode_flat::<true>(text, row).is_some() {
                self.missing()?;
                return Ok(0);
            }
        }
        self.decode(&crate::payload::unquote(text), row)
    }

    /// `row` as wide as the table and all NULL, no field seen yet.
    fn reset(&mut self, row: &mut Row) {
        row.clear();
        row.resize(self.width, Value::Null);
        self.seen.iter_mut().for_each(|s| *s = false);
    }

    /// With `fail-on-missing-field`, the error for a field the record did
    /// not have.
    fn missing(&self) -> Result<(), DecodeError> {
        if self.format.fail_on_missing_field {
            if let Some(f) = self.seen.iter().position(|s| !s) {
                return Err(DecodeError(format!(
                    "field '{}' is missing",
                    self.fields[f].0
                )));
            }
        }
        Ok(())
    }
}

impl JsonDecoder {
    /// The fast path ([`flat`]): a flat object whose decoded fields are
    /// strings, integers, timestamps or null in their plain form. `None`:
    /// something else, for the general path to decode (or refuse) from the
    /// start.
    /// `QUOTED`: `text` is quoted text ([`flat::scan_quoted`]).
    #[inline(always)]
    fn decode_flat<const QUOTED: bool>(&mut self, text: &str, row: &mut Row) -> Option<()> {
        let (fields, level, seen) = (&self.fields, &self.root, &mut self.seen);
        let (strings, standard) = (&mut self.strings, self.format.timestamp_standard);
        let dates = &mut self.dates;
        let field = |name: &str, token| {
            let Some(&(_, f)) = level
                .fields
                .iter()
                .find(|(n, _)| same(n.as_bytes(), name.as_bytes()))
            else {
                return Some(());
            };
            let (_, pos, ty) = &fields[f];
            seen[f] = true;
            // Numbers and times are written into the row's value in place.
            let slot = &mut row[*pos];
            match (*ty, token) {
                (_, Token::Null) => *slot = Value::Null,
                (SqlType::String, Token::Str(s)) => *slot = strings.get(s),
                (SqlType::String, Token::Escaped(s)) => *slot = strings.get(&flat::unescape(s)),
                (t, Token::Int(i)) if t.is_integer() && t.wrap(i) == i => slot.set_int(i),
                (t @ (SqlType::Timestamp | SqlType::TimestampLtz), Token::Str(s)) => {
                    let ltz = t == SqlType::TimestampLtz;
                    slot.set_timestamp(parse_flink_timestamp_with(s, ltz, standard, dates).ok()?);
                }
                _ => return None,
            }
            Some(())
        };
        match QUOTED {
            true => flat::scan_quoted(text, field),
            false => flat::scan(text, field),
        }
    }

    /// The general path: every JSON object, nested ROW fields, every
    /// conversion and its error.
    fn decode_general(
        &mut self,
        payload: &str,
        row: &mut Row,
        nulled: &mut usize,
    ) -> Result<(), DecodeError> {
        let root = std::mem::take(&mut self.root);
        let r = self.decode_object(payload, &root, row, nulled);
        self.root = root;
        r
    }

    /// Decodes the fields of `level` from the JSON object `text`.
    fn decode_object(
        &mut self,
        text: &str,
        level: &Level,
        row: &mut Row,
        nulled: &mut usize,
    ) -> Result<(), DecodeError> {
        for entry in sonic_rs::to_object_iter(text) {
            let (name, v) = entry.map_err(|e| invalid(&e))?;
            if let Some(&(_, f)) = level.fields.iter().find(|(n, _)| *n == name) {
                let (fname, pos, ty) = &self.fields[f];
                self.seen[f] = true;
                let converted = match (ty, v.as_str()) {
                    (SqlType::String, Some(text)) => Ok(self.strings.get(text)),
                    _ => convert(&v, *ty, self.format.timestamp_standard),
                };
                match converted {
                    Ok(value) => row[*pos] = value,
                    Err(_) if self.format.ignore_parse_errors => *nulled += 1,
                    Err(m) => {
                        return Err(DecodeError(format!("field '{fname}' ({}): {m}", ty.name())))
                    }
                }
            } else if let Some((_, nested)) = level.rows.iter().find(|(n, _)| *n == name) {
                // A ROW field: an object, or null (every field NULL).
                match v.get_type() {
                    JsonType::Object => self.decode_object(v.as_raw_str(), nested, row, nulled)?,
                    JsonType::Null => {
                        let mut leaves = Vec::new();
                        nested.leaves(&mut leaves);
                        for f in leaves {
                            self.seen[f] = true;
                        }
                    }
                    _ if self.format.ignore_parse_errors => *nulled += 1,
                    other => {
                        return Err(DecodeError(format!(
                            "field '{name}' (ROW): expected a JSON object, found {}",
                            format!("{other:?}").to_ascii_lowercase()
                        )))
                    }
                }
            }
        }
        Ok(())
    }
}

/// The deepest JSON nesting a record may have: Jackson's default
/// (`StreamReadConstraints.maxNestingDepth`, 1000), so Flink's json format
/// rejects the same records. Deeper documents are an error at their place
/// (skipped and counted with `json.ignore-parse-errors`), never a stack
/// overflow in the parser.
pub const MAX_NESTING: usize = 1000;

pub use lowwater_core::text::nests_deeper;

fn invalid(e: &sonic_rs::Error) -> DecodeError {
    DecodeError(format!(
        "payload is not valid JSON at column {} of the payload: {}",
        e.column(),
        e.to_string().lines().next().unwrap_or("")
    ))
}

/// The value's text as Jackson's `asText()` gives it: strings unquoted,
/// integers as written, other numbers as Java prints a double, anything else
/// as JSON text.
fn text_of(v: &LazyValue<'_>) -> String {
    if let Some(s) = v.as_str() {
        return s.to_string();
    }
    if v.get_type() == JsonType::Number {
        if let Some(i) = v.as_i64() {
            return i.to_string();
        }
        if let Some(d) = v.as_f64() {
            return java_double(d);
        }
    }
    v.as_raw_str().to_string()
}

/// `d` rounded to single precision (a FLOAT value), held as a double.
pub fn float32(d: f64) -> f64 {
    f64::from(d as f32)
}

pub use lowwater_core::text::{java_double, java_float};

fn convert(v: &LazyValue<'_>, ty: SqlType, std: TimestampStandard) -> Result<Value, String> {
    if v.get_type() == JsonType::Null {
        return Ok(Value::Null);
    }
    let number_text = || -> Result<String, String> {
        match v.get_type() {
            JsonType::String | JsonType::Number => Ok(text_of(v).trim().to_string()),
            _ => Err(format!("expected a number, found {}", text_of(v))),
        }
    };
    match ty {
        SqlType::String => Ok(match v.as_str() {
            Some(s) => Value::str(s),
            None => Value::str(&text_of(v)),
        }),
        // The number's exact text (Flink reads JSON floats as BigDecimal),
        // rounded HALF_UP to the scale; NULL when it has too many digits.
        SqlType::Decimal(p, s) => {
            let t = match v.get_type() {
                // The number's own text: not through a double.
                JsonType::Number => v.as_raw_str().trim().to_string(),
                _ => number_text()?,
            };
            if lowwater_core::decimal::parse(&t).is_none() {
                return Err(format!("'{t}' is not a decimal number"));
            }
            Ok(Value::str(&t).coerce_decimal(p, s))
        }
        SqlType::TinyInt | SqlType::SmallInt | SqlType::Int | SqlType::BigInt => {
            let i = if let Some(i) = v.as_i64() {
                i
            } else if let (JsonType::Number, Some(d)) = (v.get_type(), v.as_f64()) {
                d as i64
            } else {
                let t = number_text()?;
                t.parse().map_err(|_| format!("'{t}' is not an integer"))?
            };
            if ty.wrap(i) != i {
                return Err(format!(
                    "{i} does not fit in a{} {}",
                    if ty == SqlType::Int { "n" } else { "" },
                    ty.name()
                ));
            }
            Ok(Value::Int(i))
        }
        SqlType::Float | SqlType::Double => {
            let d = match v.as_f64() {
                Some(d) => d,
                None => {
                    let t = number_text()?;
                    t.parse().map_err(|_| format!("'{t}' is not a number"))?
                }
            };
            Ok(Value::Double(if ty == SqlType::Float {
                float32(d)
            } else {
                d
            }))
        }
        SqlType::Boolean => Ok(Value::Bool(match v.as_bool() {
            Some(b) => b,
            None => text_of(v).trim().eq_ignore_ascii_case("true"),
        })),
        SqlType::Timestamp | SqlType::TimestampLtz => {
            let Some(s) = v.as_str() else {
                let found = text_of(v);
                return Err(if v.as_i64().is_some() {
                    format!(
                        "expected a timestamp string, found {found}; for epoch milliseconds \
                         declare the column BIGINT and the time as a computed column, \
                         `ts AS TO_TIMESTAMP_LTZ(col, 3)`"
                    )
                } else {
                    format!("expected a timestamp string, found {found}")
                });
            };
            parse_flink_timestamp(s, ty == SqlType::TimestampLtz, std).map(Value::Timestamp)
        }
        SqlType::Date => match v.as_str() {
            Some(s) => parse_flink_date(s).map(Value::Int),
            None => Err(format!(
                "expected a date string 'yyyy-MM-dd', found {}",
                text_of(v)
            )),
        },
    }
}

/// The likely fix for timestamp text in another form than the column's.
fn timestamp_fix(s: &str, ltz: bool, std: TimestampStandard) -> &'static str {
    let sep = s.as_bytes().get(10).copied();
    match (std, sep) {
        _ if parse_timestamp(s).is_none() => "",
        (TimestampStandard::Sql, Some(b'T')) => {
            "; for ISO-8601 text set 'json.timestamp-format.standard' = 'ISO-8601' on the table"
        }
        (TimestampStandard::Iso8601, Some(b' ')) => {
            "; for SQL text ('yyyy-MM-dd HH:mm:ss') remove 'json.timestamp-format.standard' \
             (its default is 'SQL')"
        }
        _ if s.ends_with('Z') && !ltz => {
            "; a time with 'Z' is an instant: declare the column TIMESTAMP_LTZ(3)"
        }
        _ if !s.ends_with('Z') && ltz => {
            "; a TIMESTAMP_LTZ(3) column reads instants ending in 'Z': declare it TIMESTAMP(3) \
             for local date-times"
        }
        _ => "",
    }
}

/// A DATE as Flink's json and csv formats read it: `yyyy-MM-dd`
/// (`ISO_LOCAL_DATE`), as days since the epoch.
pub(crate) fn parse_flink_date(text: &str) -> Result<i64, String> {
    let t = text.trim();
    let shaped = t.len() == 10
        && t.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    match shaped.then(|| lowwater_sql::dates::parse_date(t)).flatten() {
        Some(d) => Ok(d),
        None => Err(format!("expected a date 'yyyy-MM-dd', found '{t}'")),
    }
}

pub(crate) fn parse_flink_timestamp(
    s: &str,
    ltz: bool,
    std: TimestampStandard,
) -> Result<Timestamp, String> {
    parse_flink_timestamp_with(s, ltz, std, &mut DateCache::default())
}

/// [`parse_flink_timestamp`], the date read through `dates`.
pub(crate) fn parse_flink_timestamp_with(
    s: &str,
    ltz: bool,
    std: TimestampStandard,
    dates: &mut DateCache,
) -> Result<Timestamp, String> {
    let (sep, example) = match std {
        TimestampStandard::Sql => (b' ', "2025-09-14 03:37:58.000"),
        TimestampStandard::Iso8601 => (b'T', "2025-09-14T03:37:58.000"),
    };
    let zone_ok = s.ends_with('Z') == ltz;
    let sep_ok = s.as_bytes().get(10) == Some(&sep);
    match parse_timestamp_with(s, dates) {
        Some(t) if zone_ok && sep_ok => Ok(t),
        _ => Err(format!(
            "'{s}' is not a timestamp in the {} form, like '{example}{}'{}",
            match std {
                TimestampStandard::Sql => "SQL",
                TimestampStandard::Iso8601 => "ISO-8601",
            },
            if ltz { "Z" } else { "" },
            timestamp_fix(s, ltz, std)
        )),
    }
}

/// Formats a timestamp as Flink's JSON format writes it: date, `sep`, time,
/// the millisecond fraction without trailing zeros (none if zero), and `Z`
/// for TIMESTAMP_LTZ.
pub fn format_flink_timestamp(ts: Timestamp, sep: char, ltz: bool) -> String {
    let days = ts.div_euclid(86_400_000);
    let ms = ts.rem_euclid(86_400_000);
    let (y, mo, d) = civil_from_days(days);
    let mut s = format!(
        "{y:04}-{mo:02}-{d:02}{sep}{:02}:{:02}:{:02}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1_000 % 60
    );
    let frac = ms % 1_000;
    if frac != 0 {
        let f = format!("{frac:03}");
        s.push('.');
        s.push_str(f.trim_end_matches('0'));
    }
    if ltz {
        s.push('Z');
    }
    s
}

/// Encodes rows of a sink table as JSON objects.
#[derive(Debug, Clone)]
pub struct JsonEncoder {
    columns: Vec<(String, SqlType)>,
    format: Option<JsonFormat>,
}

impl JsonEncoder {
    /// An encoder for `table`'s columns.
    pub fn new(table: &TableDef) -> Self {
        JsonEncoder {
            columns: table
                .columns
                .iter()
                .map(|c| (c.name.clone(), c.ty))
                .collect(),
            format: table.format,
        }
    }

    /// An encoder for the columns `cols` of `table`, with `prefix` removed
    /// from their names (a Kafka key with `key.fields-prefix`, say).
    pub fn subset(table: &TableDef, cols: &[usize], prefix: &str) -> Self {
        JsonEncoder {
            columns: cols
                .iter()
                .filter_map(|&i| table.columns.get(i))
                .map(|c| {
                    (
                        c.name.strip_prefix(prefix).unwrap_or(&c.name).to_string(),
                        c.ty,
                    )
                })
                .collect(),
            format: table.format,
        }
    }

    /// Encodes `values` (one per column, in column order) as a JSON object.
    pub fn encode(&self, values: &[Value]) -> String {
        let mut out = String::with_capacity(32 * self.columns.len());
        let (sep, skip_nulls) = match self.format {
            Some(f) => (
                if f.timestamp_standard == TimestampStandard::Iso8601 {
                    'T'
                } else {
                    ' '
                },
                f.ignore_null_fields,
            ),
            None => (' ', false),
        };
        out.push('{');
        let mut first = true;
        for ((name, ty), v) in self.columns.iter().zip(values) {
            if skip_nulls && v.is_null() {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            write_json_str(&mut out, name);
            out.push(':');
            write_value(&mut out, v, *ty, sep);
        }
        out.push('}');
        out
    }
}

fn write_value(out: &mut String, v: &Value, ty: SqlType, sep: char) {
    if let (SqlType::Decimal(p, s), false) = (ty, v.is_null()) {
        // Into the column's DECIMAL (NULL when it does not fit), written as
        // Jackson writes Flink's BigDecimal: trailing zeros stripped.
        match v.coerce_decimal(p, s).as_decimal() {
            Some(d) => out.push_str(&lowwater_core::decimal::json_text(d)),
            None => out.push_str("null"),
        }
        return;
    }
    match v {
        Value::Null => out.push_str("null"),
        Value::Decimal(..) if ty == SqlType::Float => {
            out.push_str(&java_float(v.as_f64().unwrap_or(0.0) as f32))
        }
        Value::Decimal(..) if ty == SqlType::Double => {
            out.push_str(&java_double(v.as_f64().unwrap_or(0.0)))
        }
        Value::Decimal(..) => out.push_str(&v.to_string()),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) if ty == SqlType::Double => out.push_str(&java_double(*i as f64)),
        Value::Int(i) if ty == SqlType::Float => out.push_str(&java_float(*i as f32)),
        Value::Int(d) if ty == SqlType::Date => {
            write_json_str(out, &lowwater_sql::dates::format_date(*d))
        }
        Value::Int(i) => out.push_str(&i.to_string()),
        // FLOAT is written with Java's Float.toString digits.
        Value::Double(d) if ty == SqlType::Float && d.is_finite() => {
            out.push_str(&java_float(*d as f32))
        }
        Value::Double(d) if d.is_finite() => out.push_str(&java_double(*d)),
        // Jackson writes non-finite numbers as strings by default.
        Value::Double(d) => write_json_str(out, &java_double(*d)),
        Value::Str(s) => write_json_str(out, s),
        Value::Timestamp(t) => write_json_str(
            out,
            &format_flink_timestamp(*t, sep, ty == SqlType::TimestampLtz),
        ),
    }
}

/// Renders a row as Flink's `print` connector does: `+I[v1, v2, ...]`, with
/// TIMESTAMP as Java's `LocalDateTime.toString()` (`2025-09-14T03:37`,
/// `...T03:37:59.500`: seconds only when not zero, milliseconds as three
/// digits), TIMESTAMP_LTZ as `Instant.toString()` (`2025-09-14T03:37:00Z`)
/// and doubles as Java prints them.
pub fn print_row(values: &[Value], types: &[SqlType]) -> String {
    let parts: Vec<String> = values
        .iter()
        .zip(types.iter().chain(std::iter::repeat(&SqlType::String)))
        .map(|(v, ty)| match v {
            Value::Null => "null".to_string(),
            Value::Timestamp(t) => java_date_time(*t, *ty == SqlType::TimestampLtz),
            Value::Double(d) => java_double(*d),
            Value::Int(i) if *ty == SqlType::Double => java_double(*i as f64),
            // LocalDate.toString().
            Value::Int(d) if *ty == SqlType::Date => lowwater_sql::dates::format_date(*d),
            other => match ty {
                SqlType::Decimal(p, s) => other.coerce_decimal(*p, *s).to_string(),
                _ => other.to_string(),
            },
        })
        .collect();
    format!("+I[{}]", parts.join(", "))
}

fn java_date_time(t: Timestamp, instant: bool) -> String {
    let days = t.div_euclid(86_400_000);
    let ms = t.rem_euclid(86_400_000);
    let (y, mo, d) = civil_from_days(days);
    let (h, mi, sec, frac) = (
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1_000 % 60,
        ms % 1_000,
    );
    let mut s = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}");
    if instant || sec != 0 || frac != 0 {
        s.push_str(&format!(":{sec:02}"));
    }
    if frac != 0 {
        s.push_str(&format!(".{frac:03}"));
    }
    if instant {
        s.push('Z');
    }
    s
}

#[cfg(test)]
pub(crate) mod tests;
