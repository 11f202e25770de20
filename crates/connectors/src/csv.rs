//! Flink's `csv` format (`CsvRowDataDeserializationSchema` and
//! `RowDataToCsvConverters`, checked against Flink 1.20 and 2.1):
//!
//! - a value holds one record; its fields fill the table's physical value
//!   columns by position. Fewer fields is an error ("Row length
//!   mismatch"), more is an error ("Too many entries"), except one empty
//!   trailing field; with `csv.ignore-parse-errors` the missing fields are
//!   NULL and a record with too many is skipped (and counted);
//! - INT, BIGINT and DOUBLE are parsed trimmed (an empty field is an
//!   error); BOOLEAN is true for `true` in any case, else false; STRING is
//!   kept as is (an empty field is the empty string); TIMESTAMP(3) is
//!   `yyyy-MM-dd HH:mm:ss[.f]`, TIMESTAMP_LTZ(3) the same with `Z`; a field
//!   equal to `csv.null-literal` is NULL; a field that does not convert is
//!   an error, NULL with `csv.ignore-parse-errors`;
//! - written records have no line end; NULL is an empty field (or the null
//!   literal); STRING and timestamps are quoted as Jackson's minimal quoting
//!   does (when they hold a character up to the delimiter's or quote's
//!   code, a backslash or the quote), numbers and booleans never.

use lowwater_core::{Row, Value};
use lowwater_sql::formats::CsvFormat;
use lowwater_sql::options::TimestampStandard;
use lowwater_sql::SqlType;

use crate::json::{
    float32, format_flink_timestamp, java_double, java_float, parse_flink_timestamp, Interner,
};

/// What became of one CSV value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsvRead {
    /// A row, with this many fields set NULL for not converting.
    Row(usize),
    /// Skipped: a comment line (`csv.allow-comments`) or, with
    /// `csv.ignore-parse-errors`, a record that does not parse.
    Skipped,
}

/// Decodes CSV values into rows of one table.
#[derive(Debug, Clone)]
pub struct CsvDecoder {
    format: CsvFormat,
    reader: csv_core::Reader,
    /// (row position, type, decoded) of each physical value column, in order.
    columns: Vec<(usize, SqlType, bool)>,
    names: Vec<String>,
    width: usize,
    out: Vec<u8>,
    ends: Vec<usize>,
    strings: Interner,
}

impl CsvDecoder {
    /// A decoder for columns (row position, name, type, decoded) of rows
    /// `width` wide.
    pub fn new(
        format: &CsvFormat,
        columns: Vec<(usize, String, SqlType, bool)>,
        width: usize,
    ) -> Self {
        let mut b = csv_core::ReaderBuilder::new();
        b.delimiter(format.field_delimiter)
            .quoting(format.quote.is_some())
            .escape(format.escape);
        if let Some(q) = format.quote {
            b.quote(q);
        }
        CsvDecoder {
            format: format.clone(),
            reader: b.build(),
            ends: vec![0; columns.len() + 2],
            names: columns.iter().map(|c| c.1.clone()).collect(),
            columns: columns.into_iter().map(|(i, _, t, d)| (i, t, d)).collect(),
            width,
            out: Vec::new(),
            strings: Interner::default(),
        }
    }

    /// Decodes one value into `row`.
    pub fn decode(&mut self, bytes: &[u8], row: &mut Row) -> Result<CsvRead, String> {
        let ignore = self.format.ignore_parse_errors;
        if self.format.allow_comments && bytes.first() == Some(&b'#') {
            return Ok(CsvRead::Skipped);
        }
        let n = self.columns.len();
        let fields = match self.split(bytes) {
            Ok(k) => k,
            Err(_) if ignore => return Ok(CsvRead::Skipped),
            Err(e) => return Err(e),
        };
        // One empty trailing field is allowed (Jackson's trailing comma).
        let fields = if fields == n + 1 && self.field(n).is_empty() {
            n
        } else {
            fields
        };
        if fields > n {
            return match ignore {
                true => Ok(CsvRead::Skipped),
                false => Err(format!(
                    "Too many entries: expected at most {n}, found {fields}"
                )),
            };
        }
        if fields < n && !ignore {
            return Err(format!(
                "Row length mismatch. {n} fields expected but was {fields}."
            ));
        }
        row.clear();
        row.resize(self.width, Value::Null);
        let mut nulled = 0;
        for f in 0..fields {
            let (col, ty, decoded) = self.columns[f];
            if !decoded {
                continue;
            }
            let start = if f == 0 { 0 } else { self.ends[f - 1] };
            let text = std::str::from_utf8(&self.out[start..self.ends[f]])
                .map_err(|e| format!("field '{}' is not UTF-8 ({e})", self.names[f]));
            let v = text.and_then(|t| {
                if self.format.null_literal.as_deref() == Some(t) {
                    return Ok(Value::Null);
                }
                convert(t, ty, &mut self.strings)
                    .map_err(|e| format!("Fail to deserialize at field: {}: {e}", self.names[f]))
            });
            row[col] = match v {
                Ok(v) => v,
                Err(_) if ignore => {
                    nulled += 1;
                    Value::Null
                }
                Err(e) => return Err(e),
            };
        }
        Ok(CsvRead::Row(nulled))
    }

    /// Splits the first record of `bytes` into `self.out` / `self.ends`;
    /// returns the number of fields.
    fn split(&mut self, bytes: &[u8]) -> Result<usize, String> {
        use csv_core::ReadRecordResult as R;
        self.reader.reset();
        self.out.resize(bytes.len() + 1, 0);
        let (mut input, mut out_at, mut ends_at) = (bytes, 0, 0);
        loop {
            let (res, nin, nout, nend) =
                self.reader
                    .read_record(input, &mut self.out[out_at..], &mut self.ends[ends_at..]);
            input = &input[nin..];
            // End positions count from the record's start across calls.
            out_at += nout;
            ends_at += nend;
            match res {
                R::Record => return Ok(ends_at),
                R::InputEmpty => continue,
                R::End if ends_at == 0 => {
                    return Err("the value is empty (No content to map due to end-of-input)".into())
                }
                R::End => return Ok(ends_at),
                R::OutputEndsFull => {
                    return Err(format!(
                        "Too many entries: expected at most {}",
                        self.columns.len()
                    ))
                }
                R::OutputFull => {
                    // Unescaping never grows a field; give room and go on.
                    let len = self.out.len();
                    self.out.resize(len * 2 + 16, 0);
                }
            }
        }
    }

    fn field(&self, f: usize) -> &[u8] {
        let start = if f == 0 { 0 } else { self.ends[f - 1] };
        &self.out[start..self.ends[f]]
    }
}

fn convert(t: &str, ty: SqlType, strings: &mut Interner) -> Result<Value, String> {
    Ok(match ty {
        SqlType::String => strings.get(t),
        SqlType::Boolean => Value::Bool(t.trim().eq_ignore_ascii_case("true")),
        SqlType::TinyInt | SqlType::SmallInt | SqlType::Int | SqlType::BigInt => {
            let s = t.trim();
            let i: i64 = s
                .parse()
                .map_err(|_| format!("NumberFormatException: For input string: \"{s}\""))?;
            // Java's Byte/Short/Integer.parseX refuse what does not fit.
            if ty.wrap(i) != i {
                return Err(format!("{i} does not fit in {}", ty.name()));
            }
            Value::Int(i)
        }
        SqlType::Decimal(p, s) => {
            let d = lowwater_core::decimal::parse(t)
                .ok_or_else(|| format!("NumberFormatException: Character array is missing \"exponent\" mark 'e' or 'E' ({t})"))?;
            Value::decimal(d.0, d.1).coerce_decimal(p, s)
        }
        SqlType::Float => Value::Double(float32(java_parse_double(t.trim())?)),
        SqlType::Double => Value::Double(java_parse_double(t.trim())?),
        SqlType::Timestamp | SqlType::TimestampLtz => Value::Timestamp(parse_flink_timestamp(
            t.trim(),
            ty == SqlType::TimestampLtz,
            TimestampStandard::Sql,
        )?),
        // `java.sql.Date.valueOf`, as Flink's csv format reads a DATE.
        SqlType::Date => Value::Int(lowwater_sql::dates::parse_sql_date(t).ok_or_else(|| {
            format!("expected a date 'yyyy-[m]m-[d]d', found '{t}' (java.sql.Date.valueOf)")
        })?),
    })
}

/// Java's `Double.parseDouble` for the forms data carries: decimal and
/// exponent forms, an optional `d`/`f` suffix, `NaN` and `Infinity`.
fn java_parse_double(s: &str) -> Result<f64, String> {
    let body = s.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(s);
    let (sign, rest) = match body.as_bytes().first() {
        Some(b'-') => (-1.0, &body[1..]),
        Some(b'+') => (1.0, &body[1..]),
        _ => (1.0, body),
    };
    match rest {
        "NaN" => return Ok(f64::NAN),
        "Infinity" => return Ok(sign * f64::INFINITY),
        _ => {}
    }
    let ok = !rest.is_empty()
        && rest
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
        && rest
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_digit() || b == b'.');
    match ok.then(|| rest.parse::<f64>().ok()).flatten() {
        Some(d) => Ok(sign * d),
        None if s.is_empty() => Err("NumberFormatException: empty String".into()),
        None => Err(format!("NumberFormatException: For input string: \"{s}\"")),
    }
}

/// Encodes rows as CSV records.
#[derive(Debug, Clone)]
pub struct CsvEncoder {
    format: CsvFormat,
    types: Vec<SqlType>,
}

impl CsvEncoder {
    /// An encoder for values of these types, in order.
    pub fn new(format: &CsvFormat, types: Vec<SqlType>) -> Self {
        CsvEncoder {
            format: format.clone(),
            types,
        }
    }

    /// One record, without a line end.
    pub fn encode(&self, values: &[Value]) -> Vec<u8> {
        let mut out = String::with_capacity(16 * self.types.len());
        for (i, ty) in self.types.iter().enumerate() {
            if i > 0 {
                out.push(self.format.field_delimiter as char);
            }
            let v = values.get(i).unwrap_or(&Value::Null);
            // A DECIMAL column: the value in its type (NULL when it does
            // not fit), written as Jackson writes Flink's BigDecimal.
            let coerced;
            let v = match *ty {
                SqlType::Decimal(p, s) if !v.is_null() => {
                    coerced = v.coerce_decimal(p, s);
                    match coerced.as_decimal() {
                        Some(d) => {
                            out.push_str(&lowwater_core::decimal::json_text(d));
                            continue;
                        }
                        None => &coerced,
                    }
                }
                _ => v,
            };
            match v {
                Value::Null => {
                    if let Some(l) = &self.format.null_literal {
                        out.push_str(l);
                    }
                }
                Value::Str(s) => self.text(&mut out, s),
                Value::Timestamp(t) => self.text(
                    &mut out,
                    &format_flink_timestamp(*t, ' ', *ty == SqlType::TimestampLtz),
                ),
                Value::Int(d) if *ty == SqlType::Date => {
                    out.push_str(&lowwater_sql::dates::format_date(*d))
                }
                Value::Double(d) if *ty == SqlType::Float => out.push_str(&java_float(*d as f32)),
                // An integer in a FLOAT/DOUBLE column prints as the number it is cast to.
                Value::Int(i) if *ty == SqlType::Float => out.push_str(&java_float(*i as f32)),
                Value::Int(i) if *ty == SqlType::Double => out.push_str(&java_double(*i as f64)),
                Value::Double(d) => out.push_str(&java_double(*d)),
                v => out.push_str(&v.to_string()),
            }
        }
        out.into_bytes()
    }

    /// Appends text, quoted when Jackson's minimal quoting would quote it.
    fn text(&self, out: &mut String, s: &str) {
        let Some(q) = self.format.quote else {
            out.push_str(s);
            return;
        };
        let limit = self.format.field_delimiter.max(q);
        let quote = s.bytes().any(|b| b <= limit || b == b'\\' || b == q);
        if !quote {
            out.push_str(s);
            return;
        }
        let q = q as char;
        out.push(q);
        for c in s.chars() {
            if c == q {
                out.push(q);
            }
            out.push(c);
        }
        out.push(q);
    }
}

#[cfg(test)]
mod tests;
