//! Values as PostgreSQL reads them in its text format: each parameter is
//! sent as text and parsed by the server as its column's type, so every
//! value lands exactly as psql would write it (DECIMAL digits unrounded,
//! timestamps to the millisecond).

use std::error::Error;

use lowwater_core::Value;
use postgres::types::{to_sql_checked, Format, IsNull, ToSql, Type};

/// How a column's values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Anything whose text is the value's own (numbers, strings, booleans).
    Plain,
    /// `timestamp without time zone`: `yyyy-MM-dd HH:mm:ss.SSS`.
    Timestamp,
    /// `timestamp with time zone`: the same in UTC, marked `+00`.
    TimestampTz,
    /// `date`: a DATE's days as `yyyy-MM-dd`.
    Date,
}

/// A value's text, `None` for NULL.
pub fn render(v: &Value, shape: Shape) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => if *b { "t" } else { "f" }.to_string(),
        Value::Int(d) if shape == Shape::Date => {
            // The first day of `timestamp_text`, which writes years as
            // PostgreSQL does.
            let text = timestamp_text(d.saturating_mul(86_400_000));
            let day = text.split(' ').next().unwrap_or(&text);
            match text.ends_with(" BC") {
                true => format!("{day} BC"),
                false => day.to_string(),
            }
        }
        Value::Int(i) => i.to_string(),
        Value::Double(d) if d.is_nan() => "NaN".into(),
        Value::Double(d) if d.is_infinite() => {
            if *d > 0.0 { "Infinity" } else { "-Infinity" }.into()
        }
        Value::Double(d) => format!("{d:?}"),
        Value::Str(s) => s.to_string(),
        Value::Timestamp(t) => {
            let mut text = timestamp_text(*t);
            if shape == Shape::TimestampTz {
                text.push_str("+00");
            }
            text
        }
        Value::Decimal(..) => v.to_string(),
    })
}

/// `yyyy-MM-dd HH:mm:ss.SSS`; a year before 1 AD in PostgreSQL's
/// notation (year 0 is 1 BC, year -1 is 2 BC).
fn timestamp_text(t: lowwater_core::Timestamp) -> String {
    let text = lowwater_core::time::format_timestamp(t, ' ');
    let negative = text.starts_with('-');
    let body = if negative { &text[1..] } else { &text[..] };
    let Some((year, rest)) = body.split_once('-') else {
        return text;
    };
    let year: i64 = year.parse().unwrap_or(1);
    let year = if negative { -year } else { year };
    if year >= 1 {
        return text;
    }
    format!("{:04}-{rest} BC", 1 - year)
}

/// One parameter, sent in the text format whatever the column's type.
#[derive(Debug)]
pub struct Text<'a>(pub Option<&'a str>);

impl ToSql for Text<'_> {
    fn to_sql(
        &self,
        _ty: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        match self.0 {
            None => Ok(IsNull::Yes),
            Some(s) => {
                out.extend_from_slice(s.as_bytes());
                Ok(IsNull::No)
            }
        }
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }

    fn encode_format(&self, _ty: &Type) -> Format {
        Format::Text
    }

    to_sql_checked!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_as_postgres_reads_them() {
        assert_eq!(render(&Value::Null, Shape::Plain), None);
        assert_eq!(
            render(&Value::Bool(true), Shape::Plain).as_deref(),
            Some("t")
        );
        assert_eq!(
            render(&Value::Double(0.1), Shape::Plain).as_deref(),
            Some("0.1")
        );
        assert_eq!(
            render(&Value::Double(f64::NEG_INFINITY), Shape::Plain).as_deref(),
            Some("-Infinity")
        );
        assert_eq!(
            render(&Value::Timestamp(1_700_000_000_123), Shape::Timestamp).as_deref(),
            Some("2023-11-14 22:13:20.123")
        );
        assert_eq!(
            render(&Value::Timestamp(0), Shape::TimestampTz).as_deref(),
            Some("1970-01-01 00:00:00.000+00")
        );
        let d = Value::decimal(-12345, 3);
        assert_eq!(render(&d, Shape::Plain).as_deref(), Some("-12.345"));
    }

    #[test]
    fn years_before_one_are_bc() {
        // 0000-01-01 is 1 BC.
        let t = -62_167_219_200_000;
        assert_eq!(
            render(&Value::Timestamp(t), Shape::Timestamp).as_deref(),
            Some("0001-01-01 00:00:00.000 BC")
        );
    }

    #[test]
    fn dates_as_postgresql_reads_them() {
        assert_eq!(
            render(&Value::Int(20_345), Shape::Date).as_deref(),
            Some("2025-09-14")
        );
        // Year 0 is 1 BC in PostgreSQL's notation.
        let year_zero = lowwater_core::time::days_from_civil(0, 6, 15);
        assert_eq!(
            render(&Value::Int(year_zero), Shape::Date).as_deref(),
            Some("0001-06-15 BC")
        );
    }
}
