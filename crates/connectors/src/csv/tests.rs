//! Cases from runs of Flink's csv format (1.20 and 2.1) on the same text.

use super::*;

fn format() -> CsvFormat {
    CsvFormat {
        field_delimiter: b',',
        quote: Some(b'"'),
        allow_comments: false,
        ignore_parse_errors: false,
        escape: None,
        null_literal: None,
    }
}

const TYPES: [SqlType; 5] = [
    SqlType::Int,
    SqlType::String,
    SqlType::Double,
    SqlType::Boolean,
    SqlType::Timestamp,
];

fn decoder(f: &CsvFormat) -> CsvDecoder {
    let cols = TYPES
        .iter()
        .enumerate()
        .map(|(i, t)| (i, format!("c{i}"), *t, true))
        .collect();
    CsvDecoder::new(f, cols, TYPES.len())
}

fn read(f: &CsvFormat, text: &str) -> Result<(CsvRead, Row), String> {
    let mut row = Row::new();
    let r = decoder(f).decode(text.as_bytes(), &mut row)?;
    Ok((r, row))
}

#[test]
fn fields_by_position_with_flink_conversions() {
    let (r, row) = read(
        &format(),
        " +7 ,\" he,l\"\"lo \", 1e3 ,TRUE ,2024-01-01 00:00:00.5\n",
    )
    .expect("reads");
    assert_eq!(r, CsvRead::Row(0));
    assert_eq!(row[0], Value::Int(7));
    assert_eq!(row[1], Value::str(" he,l\"lo "));
    assert_eq!(row[2], Value::Double(1000.0));
    assert_eq!(row[3], Value::Bool(true));
    assert_eq!(row[4], Value::Timestamp(1_704_067_200_500));
    // Booleans never fail; an empty STRING is empty, not NULL; one trailing
    // empty field is allowed.
    let (_, row) = read(&format(), "1,,NaN,yes,2024-01-01 00:00:00,").expect("reads");
    assert_eq!(
        (row[1].clone(), row[3].clone()),
        (Value::str(""), Value::Bool(false))
    );
    assert!(matches!(row[2], Value::Double(d) if d.is_nan()));
}

#[test]
fn errors_read_like_flinks() {
    for (text, want) in [
        ("1,a", "Row length mismatch. 5 fields expected but was 2."),
        ("1,a,1,true,2024-01-01 00:00:00,extra", "Too many entries"),
        (
            ",a,1,true,2024-01-01 00:00:00",
            "c0: NumberFormatException: For input string: \"\"",
        ),
        (
            "1,a,,true,2024-01-01 00:00:00",
            "c2: NumberFormatException: empty String",
        ),
        (
            "1.0,a,1,true,2024-01-01 00:00:00",
            "For input string: \"1.0\"",
        ),
        ("null,a,1,true,2024-01-01 00:00:00", "c0"),
        ("1,a,1,true,2024-01-01T00:00:00", "c4"),
        ("1,a,1,true,2024-01-01 00:00:00Z", "c4"),
        (
            "3000000000,a,1,true,2024-01-01 00:00:00",
            "does not fit in INT",
        ),
        ("", "No content"),
    ] {
        let e = read(&format(), text).expect_err(text);
        assert!(e.contains(want), "{text}: {e}");
    }
}

#[test]
fn ignore_parse_errors_nulls_fields_and_skips_long_records() {
    let f = CsvFormat {
        ignore_parse_errors: true,
        ..format()
    };
    let (r, row) = read(&f, "x,a").expect("kept");
    assert_eq!(r, CsvRead::Row(1));
    assert_eq!(
        &row[..],
        &[
            Value::Null,
            Value::str("a"),
            Value::Null,
            Value::Null,
            Value::Null
        ]
    );
    assert_eq!(
        read(&f, "1,a,1,true,2024-01-01 00:00:00,x,y")
            .expect("skip")
            .0,
        CsvRead::Skipped
    );
    assert_eq!(read(&f, "").expect("skip").0, CsvRead::Skipped);
}

#[test]
fn null_literal_comments_and_delimiters() {
    let f = CsvFormat {
        null_literal: Some("NULL".into()),
        allow_comments: true,
        field_delimiter: b'|',
        ..format()
    };
    let (_, row) = read(&f, "NULL|\"NULL\"|2|true|2024-01-01 00:00:00").expect("reads");
    assert_eq!((row[0].clone(), row[1].clone()), (Value::Null, Value::Null));
    assert_eq!(read(&f, "# a comment").expect("skip").0, CsvRead::Skipped);
}

#[test]
fn writes_like_jacksons_csv_generator() {
    let enc = CsvEncoder::new(&format(), TYPES.to_vec());
    let row = [
        Value::Int(1),
        Value::str("say \"hi\""),
        Value::Double(1e20),
        Value::Bool(true),
        Value::Timestamp(1_704_067_200_120),
    ];
    assert_eq!(
        String::from_utf8(enc.encode(&row)).expect("utf8"),
        r#"1,"say ""hi""",1.0E20,true,"2024-01-01 00:00:00.12""#
    );
    for (s, want) in [
        ("abc", "abc"),
        ("a-b", "a-b"),
        ("x/y", "x/y"),
        ("é", "é"),
        ("", ""),
        ("a,b", "\"a,b\""),
        (" lead", "\" lead\""),
        ("it's", "\"it's\""),
        ("a\\b", "\"a\\b\""),
    ] {
        let out = enc.encode(&[Value::Null, Value::str(s)]);
        assert_eq!(
            String::from_utf8(out).expect("utf8"),
            format!(",{want},,,"),
            "{s}"
        );
    }
    let nulls = CsvEncoder::new(
        &CsvFormat {
            null_literal: Some("NULL".into()),
            ..format()
        },
        vec![SqlType::Int, SqlType::String],
    );
    assert_eq!(nulls.encode(&[Value::Null, Value::Null]), b"NULL,NULL");
    // Round trip through the decoder.
    let (_, back) = read(
        &format(),
        std::str::from_utf8(&enc.encode(&row)).expect("utf8"),
    )
    .expect("reads back");
    assert_eq!(&back[..], &row[..]);
}

#[test]
fn decimals_read_half_up_and_write_as_flinks_csv_does() {
    // Flink 2.3 read "1.005,2E+1,-3.14159" into DECIMAL(10, 2), (10, 2),
    // (4, 2) as 1.01, 20.00, -3.14, and wrote 20.00, 5638.30, 0.00000012, 0
    // as "2E+1,5638.3,1.2E-7,0".
    let types = [
        SqlType::Decimal(10, 2),
        SqlType::Decimal(10, 2),
        SqlType::Decimal(4, 2),
    ];
    let cols = types
        .iter()
        .enumerate()
        .map(|(i, t)| (i, format!("c{i}"), *t, true))
        .collect();
    let mut row = Row::new();
    CsvDecoder::new(&format(), cols, 3)
        .decode(b"1.005,2E+1,-3.14159", &mut row)
        .expect("reads");
    assert_eq!(
        row,
        [
            Value::decimal(101, 2),
            Value::decimal(2000, 2),
            Value::decimal(-314, 2)
        ]
    );
    let enc = CsvEncoder::new(
        &format(),
        vec![
            SqlType::Decimal(10, 2),
            SqlType::Decimal(10, 2),
            SqlType::Decimal(10, 8),
            SqlType::Decimal(10, 2),
            SqlType::Decimal(3, 1),
        ],
    );
    let out = enc.encode(&[
        Value::decimal(2000, 2),
        Value::decimal(563830, 2),
        Value::decimal(12, 8),
        Value::Int(0),
        Value::decimal(12345, 1),
    ]);
    assert_eq!(String::from_utf8_lossy(&out), "2E+1,5638.3,1.2E-7,0,");
}
