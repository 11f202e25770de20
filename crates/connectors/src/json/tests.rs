//! Decoding and encoding cases, checked against Flink's json format.

use super::*;
use lowwater_sql::plan::JobPlan;

fn table(cols: &str, extra: &str) -> TableDef {
    let sql = format!(
        "CREATE TABLE t ({cols}, WATERMARK FOR ts AS ts) WITH ('connector'='filesystem','path'='p','format'='json'{extra});
         CREATE TABLE s (n BIGINT) WITH ('connector'='blackhole');
         INSERT INTO s SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end"
    );
    JobPlan::from_sql(&sql).expect("valid job").tables.remove(0)
}

#[test]
fn nesting_deeper_than_jacksons_limit_is_an_error_not_a_crash() {
    let deep = |n: usize| format!("{{\"a\":{}1{}}}", "[".repeat(n), "]".repeat(n));
    assert!(!nests_deeper(&deep(998), MAX_NESTING));
    assert!(nests_deeper(&deep(1000), MAX_NESTING));
    let quoted = format!("{{\"a\":\"{}\"}}", "[".repeat(5_000));
    assert!(
        !nests_deeper(&quoted, MAX_NESTING),
        "brackets in strings do not count"
    );
    let escaped = format!("{{\"a\":\"\\\"{}\"}}", "[".repeat(5_000));
    assert!(
        !nests_deeper(&escaped, MAX_NESTING),
        "nor after an escaped quote"
    );
}

#[test]
fn row_columns_read_nested_objects() {
    let t = table(
        "id INT, p ROW<c ROW<id STRING, tier STRING>, amount DOUBLE>, ts TIMESTAMP(3)",
        "",
    );
    let names: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["id", "p.c.id", "p.c.tier", "p.amount", "ts"]);
    let mut dec = JsonDecoder::new(&t);
    let mut row = Vec::new();
    dec.decode(
        r#"{"id":1,"p":{"amount":"2.5","c":{"tier":"gold","id":"x","more":[1]}},"ts":"2025-09-14 03:37:58"}"#,
        &mut row,
    )
    .expect("decodes");
    assert_eq!(
        row[..4],
        [
            Value::Int(1),
            Value::str("x"),
            Value::str("gold"),
            Value::Double(2.5)
        ]
    );
    dec.decode(
        r#"{"id":2,"p":{"c":null},"ts":"2025-09-14 03:37:58"}"#,
        &mut row,
    )
    .expect("a NULL row is NULL fields");
    assert_eq!(row[1..4], [Value::Null, Value::Null, Value::Null]);
    let e = dec
        .decode(
            r#"{"id":3,"p":{"c":"x"},"ts":"2025-09-14 03:37:58"}"#,
            &mut row,
        )
        .expect_err("not an object");
    assert!(
        e.0.contains("field 'c' (ROW): expected a JSON object, found string"),
        "{e}"
    );
    let strict = table(
        "p ROW<a INT, b INT>, ts TIMESTAMP(3)",
        ", 'json.fail-on-missing-field' = 'true'",
    );
    let e = JsonDecoder::new(&strict)
        .decode(r#"{"p":{"a":1},"ts":"2025-09-14 03:37:58"}"#, &mut row)
        .expect_err("missing nested field");
    assert!(e.0.contains("field 'p.b' is missing"), "{e}");
    let bad = table(
        "p ROW<a INT, b INT>, ts TIMESTAMP(3)",
        ", 'json.ignore-parse-errors' = 'true'",
    );
    let nulled = JsonDecoder::new(&bad)
        .decode(
            r#"{"p":{"a":"x","b":2},"ts":"2025-09-14 03:37:58"}"#,
            &mut row,
        )
        .expect("ignored");
    assert_eq!((nulled, &row[..2]), (1, &[Value::Null, Value::Int(2)][..]));
}

#[test]
fn decodes_with_flink_conversions() {
    let t = table(
        "u STRING, n BIGINT, d DOUBLE, b BOOLEAN, ts TIMESTAMP(3)",
        "",
    );
    let mut dec = JsonDecoder::new(&t);
    let mut row = Vec::new();
    dec.decode(
        r#"{"u":7,"n":"42","d":"1.5","b":"TRUE","ts":"2025-09-14 03:37:58.5","extra":1}"#,
        &mut row,
    )
    .expect("decodes");
    assert_eq!(row[0], Value::str("7"));
    assert_eq!(row[1], Value::Int(42));
    assert_eq!(row[2], Value::Double(1.5));
    assert_eq!(row[3], Value::Bool(true));
    assert_eq!(
        row[4],
        Value::Timestamp(parse_timestamp("2025-09-14 03:37:58.500").unwrap_or(0))
    );
    dec.decode(r#"{"n":2.9}"#, &mut row)
        .expect("missing fields are null");
    assert_eq!(
        (row[0].clone(), row[1].clone()),
        (Value::Null, Value::Int(2))
    );
}

#[test]
fn bad_payloads_say_which_field_and_why() {
    let t = table("n BIGINT, ts TIMESTAMP(3)", "");
    let mut dec = JsonDecoder::new(&t);
    let mut row = Vec::new();
    let e = dec.decode(r#"{"n":"abc"}"#, &mut row).expect_err("bad int");
    assert!(
        e.0.contains("field 'n' (BIGINT)") && e.0.contains("'abc'"),
        "{e}"
    );
    let e = dec
        .decode(r#"{"ts":"2025-09-14T03:37:58"}"#, &mut row)
        .expect_err("iso in sql mode");
    assert!(e.0.contains("SQL form"), "{e}");
    assert!(dec
        .decode("[1]", &mut row)
        .is_err_and(|e| e.0.contains("not a JSON object")));
    assert!(dec
        .decode("{\"n\":", &mut row)
        .is_err_and(|e| e.0.contains("not valid JSON")));
    let strict = table(
        "n BIGINT, ts TIMESTAMP(3)",
        ",'json.fail-on-missing-field'='true'",
    );
    assert!(JsonDecoder::new(&strict).decode("{}", &mut row).is_err());
    // Projection: a field the job does not read is validated as JSON but
    // not converted, so its type cannot fail the record.
    let mut projected = JsonDecoder::projected(&t, &[false, true]);
    projected
        .decode(r#"{"n":"abc","ts":"2025-09-14 03:37:58"}"#, &mut row)
        .expect("n is not read");
    assert_eq!(row[0], Value::Null);
    assert!(
        projected.decode(r#"{"n":[1,}"#, &mut row).is_err(),
        "malformed JSON still fails"
    );
}

#[test]
fn encodes_like_flink() {
    let t = table("u STRING, n BIGINT, d DOUBLE, ts TIMESTAMP(3)", "");
    let enc = JsonEncoder::new(&t);
    let ts = parse_timestamp("2025-09-14 03:37:00").unwrap_or(0);
    let s = enc.encode(&[
        Value::str("a\"b"),
        Value::Null,
        Value::Int(3),
        Value::Timestamp(ts),
    ]);
    assert_eq!(
        s,
        r#"{"u":"a\"b","n":null,"d":3.0,"ts":"2025-09-14 03:37:00"}"#
    );
    assert_eq!(
        format_flink_timestamp(ts + 999, 'T', true),
        "2025-09-14T03:37:00.999Z"
    );
    assert_eq!(
        format_flink_timestamp(ts + 500, ' ', false),
        "2025-09-14 03:37:00.5"
    );
    let types = [
        SqlType::Timestamp,
        SqlType::BigInt,
        SqlType::TimestampLtz,
        SqlType::Double,
    ];
    let row = [
        Value::Timestamp(ts),
        Value::Int(1),
        Value::Timestamp(ts + 1_500),
        Value::Double(1.5e8),
    ];
    assert_eq!(
        print_row(&row, &types),
        "+I[2025-09-14T03:37, 1, 2025-09-14T03:37:01.500Z, 1.5E8]"
    );
    let half = [Value::Timestamp(ts + 500)];
    assert_eq!(
        print_row(&half, &[SqlType::Timestamp]),
        "+I[2025-09-14T03:37:00.500]"
    );
}

#[test]
fn doubles_print_like_java() {
    assert_eq!(java_double(3.0), "3.0");
    assert_eq!(java_double(1234567.0), "1234567.0");
    assert_eq!(java_double(123456795.0), "1.23456795E8");
    assert_eq!(java_double(1e7), "1.0E7");
    assert_eq!(java_double(0.001), "0.001");
    assert_eq!(java_double(0.0001), "1.0E-4");
    assert_eq!(java_double(-2.5e-5), "-2.5E-5");
    assert_eq!(java_double(0.0), "0.0");
    assert_eq!(java_double(f64::NAN), "NaN");
    assert_eq!(java_double(f64::NEG_INFINITY), "-Infinity");
}

#[test]
fn conversions_match_jackson_and_ignore_parse_errors_nulls_fields() {
    let t = table("u STRING, n BIGINT, ts TIMESTAMP(3)", "");
    let mut row = Vec::new();
    JsonDecoder::new(&t)
        .decode(r#"{"u":1.50,"n":3000000000}"#, &mut row)
        .expect("BIGINT takes 3e9");
    assert_eq!(row[0], Value::str("1.5"), "Jackson's asText of a double");
    let int = table("n INT, ts TIMESTAMP(3)", "");
    let e = JsonDecoder::new(&int)
        .decode(r#"{"n":3000000000}"#, &mut row)
        .expect_err("INT overflow");
    assert!(e.0.contains("does not fit in an INT"), "{e}");
    let lenient = table(
        "n INT, ts TIMESTAMP(3)",
        ",'json.ignore-parse-errors'='true'",
    );
    let nulled =
        JsonDecoder::new(&lenient).decode(r#"{"n":"x","ts":"2025-09-14 03:37:58"}"#, &mut row);
    assert_eq!(
        nulled,
        Ok(1),
        "a field that does not convert is NULL and counted"
    );
    assert_eq!(row[0], Value::Null);
}

#[test]
fn decimals_are_read_from_the_numbers_exact_text() {
    let t = table(
        "a DECIMAL(19, 9), b DECIMAL(20, 2), c DECIMAL(5, 2), ts TIMESTAMP(3)",
        "",
    );
    let mut row = Vec::new();
    JsonDecoder::new(&t)
        .decode(
            r#"{"a":1234567890.123456789,"b":12345678901234567.89,"c":"1.005","ts":"2025-09-14 03:37:58"}"#,
            &mut row,
        )
        .expect("decodes");
    assert_eq!(row[0], Value::decimal(1_234_567_890_123_456_789, 9));
    assert_eq!(row[1], Value::decimal(1_234_567_890_123_456_789, 2));
    assert_eq!(row[2], Value::decimal(101, 2), "HALF_UP to the scale");
}

#[test]
fn timestamps_in_another_form_get_the_fix_that_reads_them() {
    let t = table("id INT, ts TIMESTAMP(3)", "");
    let mut dec = JsonDecoder::new(&t);
    let mut row = Vec::new();
    let err = |dec: &mut JsonDecoder, row: &mut Row, payload: &str| {
        dec.decode(payload, row).expect_err("does not read").0
    };
    let e = err(
        &mut dec,
        &mut row,
        r#"{"id":1,"ts":"2025-09-14T12:00:00.000"}"#,
    );
    assert!(
        e.contains("set 'json.timestamp-format.standard' = 'ISO-8601'"),
        "{e}"
    );
    let e = err(&mut dec, &mut row, r#"{"id":1,"ts":1757851200000}"#);
    assert!(
        e.contains("declare the column BIGINT") && e.contains("TO_TIMESTAMP_LTZ(col, 3)"),
        "{e}"
    );
    let e = err(
        &mut dec,
        &mut row,
        r#"{"id":1,"ts":"2025-09-14 12:00:00Z"}"#,
    );
    assert!(e.contains("declare the column TIMESTAMP_LTZ(3)"), "{e}");
    let iso = table(
        "id INT, ts TIMESTAMP(3)",
        ", 'json.timestamp-format.standard' = 'ISO-8601'",
    );
    let mut dec = JsonDecoder::new(&iso);
    let e = err(&mut dec, &mut row, r#"{"id":1,"ts":"2025-09-14 12:00:00"}"#);
    assert!(e.contains("remove 'json.timestamp-format.standard'"), "{e}");
}

pub(crate) mod fast_path {
    use super::*;
    use proptest::prelude::*;

    fn decoder(extra: &str) -> JsonDecoder {
        JsonDecoder::new(&table(
            "s STRING, i INT, b BIGINT, d DOUBLE, f BOOLEAN, ts TIMESTAMP(3)",
            extra,
        ))
    }

    /// The general path alone, as `decode` ran before the fast path.
    fn general(dec: &mut JsonDecoder, payload: &str) -> Result<(Row, usize), DecodeError> {
        let mut row = vec![Value::Null; dec.width];
        dec.seen.iter_mut().for_each(|s| *s = false);
        let mut nulled = 0;
        dec.decode_general(payload, &mut row, &mut nulled)?;
        Ok((row, nulled))
    }

    #[test]
    fn a_plain_record_takes_it_and_others_do_not() {
        let mut dec = decoder("");
        let mut row = Row::new();
        row.resize(dec.width, Value::Null);
        let plain = r#"{"s":"u1","i":7,"b":-3,"ts":"2025-09-14 00:00:01.500","x":[1,{"y":2}]}"#;
        assert_eq!(
            dec.decode_flat::<false>(plain, &mut row),
            None,
            "an array: general"
        );
        let plain = r#"{"s":"u1","i":7,"b":-3,"ts":"2025-09-14 00:00:01.500","x":1.5}"#;
        assert_eq!(dec.decode_flat::<false>(plain, &mut row), Some(()));
        assert_eq!(row[0], Value::str("u1"));
        assert_eq!(row[1], Value::Int(7));
        assert_eq!(row[5], Value::Timestamp(1_757_808_001_500));
        for general_only in [
            r#"{"i":"7"}"#,
            r#"{"i":3000000000}"#,
            r#"{"d":1}"#,
            r#"{"s":"\u0041"}"#,
            r#"{"ts":"2025-09-14\/00:00:01"}"#,
        ] {
            assert_eq!(
                dec.decode_flat::<false>(general_only, &mut row),
                None,
                "{general_only}"
            );
        }
        // A string with simple escapes is unescaped on the fast path.
        let escaped = r#"{"s":"a\"b\\c\/d\te"}"#;
        assert_eq!(dec.decode_flat::<false>(escaped, &mut row), Some(()));
        assert_eq!(row[0], Value::str("a\"b\\c/d\te"));
    }

    #[test]
    fn a_plain_record_as_a_dump_line_writes_it_is_read_as_it_stands() {
        let mut dec = decoder("");
        let mut row = Row::new();
        row.resize(dec.width, Value::Null);
        let quoted =
            r#"{\"s\":\"u1\", \"i\":7,\"b\":-3,\"ts\":\"2025-09-14 00:00:01.500\",\"x\":1.5}"#;
        assert_eq!(dec.decode_flat::<true>(quoted, &mut row), Some(()));
        assert_eq!(row[0], Value::str("u1"));
        assert_eq!(row[1], Value::Int(7));
        assert_eq!(row[5], Value::Timestamp(1_757_808_001_500));
        // Anything else gives up there (and is unescaped and decoded).
        for other in [
            r#"{"s":"u1"}"#,
            r#"{\"s\":"u1"}"#,
            r#"{\"s\":\"u\\\"1\"}"#,
            r#"{\"s\":\"u1\\n\"}"#,
            r#"{\"s\":\"u1}"#,
            r#"{\"s\":\"u1\"}x"#,
        ] {
            assert_eq!(dec.decode_flat::<true>(other, &mut row), None, "{other}");
        }
        // Quoted text the fast path gives up on is unescaped and decoded.
        let mut row2 = Row::new();
        let plain = r#"{"s":"u1","x":[1,{"y":"z"}],"i":7}"#;
        assert_eq!(
            dec.decode_quoted(
                r#"{\"s\":\"u1\",\"x\":[1,{\"y\":\"z\"}],\"i\":7}"#,
                &mut row
            ),
            dec.decode(plain, &mut row2)
        );
        assert_eq!((row[1].clone(), row), (Value::Int(7), row2));
    }

    #[test]
    fn quoted_text_takes_its_quotes_wherever_they_fall_in_a_word() {
        for k in 0..20 {
            let (name, value) = ("n".repeat(k), "v".repeat(k));
            let text = format!(r#"{{\"{name}\":\"{value}\", \"b\":7}}"#);
            let mut got = Vec::new();
            flat::scan_quoted(&text, |n, t| {
                got.push((n.to_string(), t));
                Some(())
            })
            .expect("quoted text");
            assert_eq!(
                got,
                [
                    (name.clone(), Token::Str(&value)),
                    ("b".into(), Token::Int(7))
                ],
                "{text}"
            );
            // A bare quote, an escape of the string's own or no end gives up.
            for bad in [
                format!(r#"{{\"{name}\":"{value}\"}}"#),
                format!(r#"{{\"{name}\":\"{value}"}}"#),
                format!(r#"{{\"{name}\":\"{value}\\n\"}}"#),
                format!(r#"{{\"{name}\":\"{value}"#),
            ] {
                assert_eq!(flat::scan_quoted(&bad, |_, _| Some(())), None, "{bad}");
            }
        }
    }

    /// JSON values of every kind the fast paths meet or give up on (also
    /// the dump fast path's property test's).
    pub(crate) fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z0-9 é:-]{0,8}".prop_map(|s| format!("\"{s}\"")),
            r#"[a-z\\"\n\t]{0,6}"#.prop_map(|s| format!("{s:?}")),
            // Longer strings (the scan reads 8 bytes at a time), with raw
            // quotes, backslashes and control characters.
            "[a-z0-9é\\\\\"\u{1}\u{1f} ]{0,40}".prop_map(|s| format!("\"{s}\"")),
            // Every simple escape (the fast path unescapes them).
            Just(r#""a\nb\"c\\d\/e\tf\rg\bh\fi""#.to_string()),
            // Escapes left to the general path, valid or not.
            Just(r#""\u00e9""#.to_string()),
            Just(r#""\x""#.to_string()),
            any::<i64>().prop_map(|i| i.to_string()),
            (-3000i64..3000).prop_map(|i| i.to_string()),
            Just("3000000000".to_string()),
            Just("99999999999999999999".to_string()),
            Just("-0".to_string()),
            any::<f64>()
                .prop_filter("finite", |d| d.is_finite())
                .prop_map(|d| format!("{d:e}")),
            Just("1.25".to_string()),
            Just("true".to_string()),
            Just("false".to_string()),
            Just("null".to_string()),
            Just("\"2025-09-14 00:00:01.5\"".to_string()),
            Just("\"2025-09-14T00:00:01\"".to_string()),
            Just("\"not a time\"".to_string()),
            Just("{\"a\":1}".to_string()),
            Just("[]".to_string()),
            Just("01".to_string()),
        ]
    }

    fn object() -> impl Strategy<Value = String> {
        let name = prop_oneof![
            Just("s"),
            Just("i"),
            Just("b"),
            Just("d"),
            Just("f"),
            Just("ts"),
            Just("x"),
            Just("s\\n")
        ];
        let ws = prop_oneof![Just(""), Just(" "), Just("\n\t"), Just("\r ")];
        prop::collection::vec((name, value(), ws), 0..8).prop_map(|fields| {
            let body: Vec<String> = fields
                .into_iter()
                .map(|(n, v, w)| format!("{w}\"{n}\"{w}:{w}{v}{w}"))
                .collect();
            format!("{{{}}}", body.join(","))
        })
    }

    proptest! {
        // Enough cases that each (field, value kind) pair comes up.
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        /// Whatever the record, `decode` (fast path first) gives what the
        /// general path alone gives: the same row, NULLed count or error.
        #[test]
        fn decodes_exactly_as_the_general_path(payload in object(), ignore in any::<bool>()) {
            let extra = if ignore { ",'json.ignore-parse-errors'='true'" } else { "" };
            let (mut fast, mut slow) = (decoder(extra), decoder(extra));
            let mut row = Row::new();
            let got = fast.decode(&payload, &mut row).map(|n| (row, n));
            prop_assert_eq!(got, general(&mut slow, &payload), "{}", payload);
        }
    }

    proptest! {
        // About one drawn record in five writes as quoted text.
        #![proptest_config(ProptestConfig {
            cases: 2_000,
            max_global_rejects: 50_000,
            ..ProptestConfig::default()
        })]

        /// A payload as a dump line writes it, when that is quoted text
        /// (its only escapes `\"`), decodes as the payload does.
        #[test]
        fn quoted_text_decodes_as_the_payload(payload in object(), ignore in any::<bool>()) {
            let extra = if ignore { ",'json.ignore-parse-errors'='true'" } else { "" };
            let written = sonic_rs::to_string(&payload).expect("a string");
            let text = &written[1..written.len() - 1];
            prop_assume!(crate::payload::is_quoted(text.as_bytes()));
            let (mut quoted, mut plain) = (decoder(extra), decoder(extra));
            let (mut a, mut b) = (Row::new(), Row::new());
            let got = quoted.decode_quoted(text, &mut a).map(|n| (a, n));
            let want = plain.decode(&payload, &mut b).map(|n| (b, n));
            prop_assert_eq!(got, want, "{}", text);
        }
    }
}

#[test]
fn dates_read_as_flink_reads_them_and_a_bad_one_names_itself() {
    let t = table("id INT, d DATE, ts TIMESTAMP(3)", "");
    let mut dec = JsonDecoder::new(&t);
    let mut row = Vec::new();
    dec.decode(
        r#"{"id":1,"d":"2025-09-14","ts":"2025-09-14 12:00:00"}"#,
        &mut row,
    )
    .expect("reads");
    assert_eq!(row[1], Value::Int(20_345));
    for (bad, says) in [
        (r#""2025-9-14""#, "'2025-9-14'"),
        (r#""2025-02-30""#, "'2025-02-30'"),
        ("20250914", "found 20250914"),
    ] {
        let payload = format!(r#"{{"id":1,"d":{bad},"ts":"2025-09-14 12:00:00"}}"#);
        let e = dec.decode(&payload, &mut row).expect_err("not a date").0;
        assert!(e.contains("yyyy-MM-dd") && e.contains(says), "{e}");
    }
}
