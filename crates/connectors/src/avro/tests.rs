//! The Avro formats against Apache Avro's own Rust library (records it
//! writes are read here; records written here are read by it) and against
//! bytes Flink's `avro` format wrote.

use apache_avro::types::Value as AV;
use lowwater_core::{Row, Value};
use lowwater_sql::formats::ValueFormat;
use lowwater_sql::SqlType;
use proptest::prelude::*;

use super::decode::ReadPlan;
use super::schema::Schema;
use super::*;

fn cols(spec: &[(&str, SqlType)]) -> Vec<(String, SqlType, bool)> {
    spec.iter()
        .map(|(n, t)| (n.to_string(), *t, false))
        .collect()
}

fn writer(spec: &[(&str, SqlType)]) -> AvroWriter {
    AvroWriter::new(&ValueFormat::Avro, &cols(spec), &[], Registration::Register).expect("writer")
}

fn read_cols(spec: &[(&str, SqlType)]) -> Vec<(String, usize, SqlType)> {
    spec.iter()
        .enumerate()
        .map(|(i, (n, t))| (n.to_string(), i, *t))
        .collect()
}

const FLINK: [(&str, SqlType); 3] = [
    ("i", SqlType::Int),
    ("s", SqlType::String),
    ("ts", SqlType::Timestamp),
];

#[test]
fn writes_the_bytes_flinks_avro_format_writes() {
    // Flink 2.1's `avro` format wrote (1, 'ab', 2024-01-01 00:00:00.123) as
    // these bytes, and a row of NULLs as three zero bytes.
    let mut w = writer(&FLINK);
    let row = [
        Value::Int(1),
        Value::str("ab"),
        Value::Timestamp(1_704_067_200_123),
    ];
    let bytes = w.write(&row).expect("writes");
    assert_eq!(
        bytes,
        [0x02, 0x02, 0x02, 0x04, b'a', b'b', 0x02, 0xf6, 0xd1, 0x8f, 0xa5, 0x98, 0x63]
    );
    assert_eq!(
        w.write(&[Value::Null, Value::Null, Value::Null])
            .expect("nulls"),
        [0, 0, 0]
    );
    // The real library reads them with the derived schema.
    let schema = apache_avro::Schema::parse_str(&derived_schema(&cols(&FLINK)).expect("derives"))
        .expect("parses");
    let v = apache_avro::from_avro_datum(&schema, &mut &bytes[..], None).expect("reads");
    let AV::Record(fields) = v else {
        panic!("not a record: {v:?}")
    };
    assert_eq!(
        fields[1],
        ("s".into(), AV::Union(1, Box::new(AV::String("ab".into()))))
    );
    // And the reader reads them back.
    let mut r =
        AvroReader::new(&ValueFormat::Avro, read_cols(&FLINK), &cols(&FLINK), 3).expect("reader");
    let mut out = Row::new();
    r.read(&bytes, &mut out).expect("reads");
    assert_eq!(&out[..], &row[..]);
}

const EVOLVED: &str = r#"{"type":"record","name":"User","namespace":"com.acme","fields":[
  {"name":"extra","type":"int"},
  {"name":"name","type":"string"},
  {"name":"id","type":"int"},
  {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
  {"name":"tags","type":{"type":"array","items":"string"}},
  {"name":"meta","type":{"type":"map","values":"long"}},
  {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},
  {"name":"inner","type":{"type":"record","name":"Inner","fields":[{"name":"x","type":["null","double"]}]}},
  {"name":"score","type":"float"},
  {"name":"region","type":["null","string"],"default":null}]}"#;

fn evolved_record(schema: &apache_avro::Schema) -> Vec<u8> {
    let mut r = apache_avro::types::Record::new(schema).expect("record schema");
    r.put("extra", AV::Int(9));
    r.put("name", AV::String("bob".into()));
    r.put("id", AV::Int(42));
    r.put("ts", AV::TimestampMicros(1_704_067_200_123_456));
    r.put(
        "tags",
        AV::Array(vec![AV::String("a".into()), AV::String("b".into())]),
    );
    r.put(
        "meta",
        AV::Map([("k".to_string(), AV::Long(-5))].into_iter().collect()),
    );
    r.put("kind", AV::Enum(1, "B".into()));
    r.put(
        "inner",
        AV::Record(vec![("x".into(), AV::Union(1, Box::new(AV::Double(0.5))))]),
    );
    r.put("score", AV::Float(1.5));
    r.put("region", AV::Union(1, Box::new(AV::String("eu".into()))));
    apache_avro::to_avro_datum(schema, r).expect("encodes")
}

#[test]
fn resolves_a_writer_schema_by_field_name() {
    let schema = apache_avro::Schema::parse_str(EVOLVED).expect("parses");
    let bytes = evolved_record(&schema);
    // Columns in another order, one promoted (int to BIGINT, float to
    // DOUBLE), one the writer lacks; the writer's other fields skipped.
    let table = [
        ("id", SqlType::BigInt),
        ("name", SqlType::String),
        ("ts", SqlType::Timestamp),
        ("score", SqlType::Double),
        ("region", SqlType::String),
        ("missing", SqlType::String),
    ];
    let plan = ReadPlan::new(
        Schema::parse(EVOLVED).expect("parses"),
        &read_cols(&table),
        None,
    )
    .expect("compiles");
    let mut row = Row::new();
    plan.read(&bytes, &mut row, table.len(), &mut Default::default())
        .expect("reads");
    assert_eq!(
        &row[..],
        &[
            Value::Int(42),
            Value::str("bob"),
            // Micros are converted (Flink's reader takes them as millis).
            Value::Timestamp(1_704_067_200_123),
            Value::Double(1.5),
            Value::str("eu"),
            Value::Null,
        ]
    );
}

#[test]
fn a_reader_schema_default_fills_a_field_the_writer_lacks() {
    let v1 = r#"{"type":"record","name":"E","fields":[{"name":"id","type":"long"}]}"#;
    let reader = r#"{"type":"record","name":"E","fields":[{"name":"id","type":"long"},
        {"name":"region","type":"string","default":"eu"}]}"#;
    let schema = apache_avro::Schema::parse_str(v1).expect("parses");
    let bytes = apache_avro::to_avro_datum(&schema, AV::Record(vec![("id".into(), AV::Long(7))]))
        .expect("encodes");
    let table = [("id", SqlType::BigInt), ("region", SqlType::String)];
    let reader = Schema::parse(reader).expect("parses");
    let plan = ReadPlan::new(
        Schema::parse(v1).expect("parses"),
        &read_cols(&table),
        Some(&reader),
    )
    .expect("compiles");
    let mut row = Row::new();
    plan.read(&bytes, &mut row, 2, &mut Default::default())
        .expect("reads");
    assert_eq!(&row[..], &[Value::Int(7), Value::str("eu")]);
}

#[test]
fn bad_records_and_mismatched_types_say_which_field() {
    let schema = apache_avro::Schema::parse_str(EVOLVED).expect("parses");
    let bytes = evolved_record(&schema);
    let plan = |spec: &[(&str, SqlType)]| {
        ReadPlan::new(
            Schema::parse(EVOLVED).expect("parses"),
            &read_cols(spec),
            None,
        )
        .expect("compiles")
    };
    let mut row = Row::new();
    let e = plan(&[("name", SqlType::BigInt)])
        .read(&bytes, &mut row, 1, &mut Default::default())
        .expect_err("string into BIGINT");
    assert!(
        e.contains("field 'name'") && e.contains("string cannot be read as BIGINT"),
        "{e}"
    );
    let e = plan(&[("score", SqlType::Int)])
        .read(&bytes, &mut row, 1, &mut Default::default())
        .expect_err("float into INT");
    assert!(e.contains("field 'score'"), "{e}");
    // Every truncation is an error, never a panic.
    let p = plan(&[("id", SqlType::BigInt), ("region", SqlType::String)]);
    for n in 0..bytes.len() {
        assert!(
            p.read(&bytes[..n], &mut row, 2, &mut Default::default())
                .is_err(),
            "{n} bytes"
        );
    }
}

#[test]
fn confluent_framing() {
    assert_eq!(unframe(&[0, 0, 0, 1, 2, 9]), Ok((258, &[9u8][..])));
    assert!(unframe(b"{\"a\":1}")
        .expect_err("an error")
        .contains("magic byte 123"));
    assert!(unframe(&[0, 0])
        .expect_err("an error")
        .contains("too short"));
}

fn row_strategy() -> impl Strategy<Value = Vec<Value>> {
    (
        proptest::option::of(any::<i32>()),
        proptest::option::of("[a-z é\"]{0,12}"),
        proptest::option::of(any::<f64>().prop_filter("not NaN", |d| !d.is_nan())),
        proptest::option::of(any::<bool>()),
        proptest::option::of(-62_135_596_800_000i64..253_402_300_799_999),
        proptest::option::of(any::<i64>()),
    )
        .prop_map(|(i, s, d, b, t, l)| {
            vec![
                i.map_or(Value::Null, |i| Value::Int(i64::from(i))),
                s.map_or(Value::Null, |s| Value::str(&s)),
                d.map_or(Value::Null, Value::Double),
                b.map_or(Value::Null, Value::Bool),
                t.map_or(Value::Null, Value::Timestamp),
                l.map_or(Value::Null, Value::Int),
            ]
        })
}

const ALL: [(&str, SqlType); 6] = [
    ("i", SqlType::Int),
    ("s", SqlType::String),
    ("d", SqlType::Double),
    ("b", SqlType::Boolean),
    ("t", SqlType::TimestampLtz),
    ("l", SqlType::BigInt),
];

fn to_apache(row: &[Value]) -> AV {
    let field = |v: &Value, f: &dyn Fn(&Value) -> AV| match v {
        Value::Null => AV::Union(0, Box::new(AV::Null)),
        v => AV::Union(1, Box::new(f(v))),
    };
    let fields = ALL
        .iter()
        .zip(row)
        .map(|((n, ty), v)| {
            let conv = |v: &Value| match (ty, v) {
                (SqlType::Int, Value::Int(i)) => AV::Int(*i as i32),
                (_, Value::Int(i)) => AV::Long(*i),
                (_, Value::Str(s)) => AV::String(s.to_string()),
                (_, Value::Double(d)) => AV::Double(*d),
                (_, Value::Bool(b)) => AV::Boolean(*b),
                (_, Value::Timestamp(t)) => AV::TimestampMillis(*t),
                _ => AV::Null,
            };
            (n.to_string(), field(v, &conv))
        })
        .collect();
    AV::Record(fields)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Rows written here read back equal through Apache Avro, and records
    /// Apache Avro writes read here into the same rows.
    #[test]
    fn round_trips_with_the_apache_library(row in row_strategy()) {
        let schema_text = derived_schema(&cols(&ALL)).expect("derives");
        let schema = apache_avro::Schema::parse_str(&schema_text).expect("parses");
        let mut w = writer(&ALL);
        let ours = w.write(&row).expect("writes");
        let theirs = apache_avro::to_avro_datum(&schema, to_apache(&row)).expect("encodes");
        prop_assert_eq!(&ours, &theirs);
        let back = apache_avro::from_avro_datum(&schema, &mut &ours[..], None).expect("reads");
        prop_assert_eq!(back, to_apache(&row));
        let mut r = AvroReader::new(&ValueFormat::Avro, read_cols(&ALL), &cols(&ALL), ALL.len())
            .expect("reader");
        let mut out = Row::new();
        r.read(&theirs, &mut out).expect("reads");
        prop_assert_eq!(&out[..], &row[..]);
    }
}

#[test]
fn not_null_columns_are_plain_types_as_in_flinks_schema() {
    let spec = vec![
        ("i".to_string(), SqlType::Int, true),
        ("s".to_string(), SqlType::String, false),
    ];
    let text = derived_schema(&spec).expect("derives");
    assert!(text.contains(r#"{"name":"i","type":"int"}"#), "{text}");
    let mut w =
        AvroWriter::new(&ValueFormat::Avro, &spec, &[], Registration::Register).expect("writer");
    // No union index before the NOT NULL int.
    assert_eq!(
        w.write(&[Value::Int(1), Value::str("ab")]).expect("writes"),
        [0x02, 0x02, 0x04, b'a', b'b']
    );
    let e = w
        .write(&[Value::Null, Value::Null])
        .expect_err("NULL in NOT NULL");
    assert!(e.contains("field 'i'") && e.contains("no null"), "{e}");
    let bad = vec![("user-id".to_string(), SqlType::String, false)];
    assert!(derived_schema(&bad)
        .expect_err("not an Avro name")
        .contains("user-id"));
}

#[test]
fn integers_go_into_double_fields_and_types_are_checked_up_front() {
    // COUNT(*) into a DOUBLE column: the value is an integer.
    let mut w = writer(&[("d", SqlType::Double)]);
    let bytes = w.write(&[Value::Int(3)]).expect("writes");
    assert_eq!(bytes[0], 0x02);
    assert_eq!(&bytes[1..], &3.0f64.to_le_bytes());
    let schema =
        Schema::parse(r#"{"type":"record","name":"r","fields":[{"name":"n","type":"string"}]}"#)
            .expect("parses");
    let e = super::encode::WritePlan::new(schema, &[("n".to_string(), SqlType::BigInt)])
        .expect_err("a string field for a BIGINT column");
    assert!(e.contains("'n'") && e.contains("BIGINT"), "{e}");
}

#[test]
fn logical_types_read_into_integer_columns_and_required_reader_fields_are_checked() {
    let w = r#"{"type":"record","name":"E","fields":[{"name":"ms","type":{"type":"long","logicalType":"timestamp-millis"}},
        {"name":"day","type":{"type":"int","logicalType":"date"}}]}"#;
    let schema = apache_avro::Schema::parse_str(w).expect("parses");
    let bytes = apache_avro::to_avro_datum(
        &schema,
        AV::Record(vec![
            ("ms".into(), AV::TimestampMillis(1_757_808_000_000)),
            ("day".into(), AV::Date(20_345)),
        ]),
    )
    .expect("encodes");
    let table = [("ms", SqlType::BigInt), ("day", SqlType::Int)];
    let plan = ReadPlan::new(Schema::parse(w).expect("parses"), &read_cols(&table), None)
        .expect("compiles");
    let mut row = Row::new();
    plan.read(&bytes, &mut row, 2, &mut Default::default())
        .expect("reads");
    assert_eq!(
        &row[..],
        &[Value::Int(1_757_808_000_000), Value::Int(20_345)]
    );
    let reader = Schema::parse(
        r#"{"type":"record","name":"E","fields":[{"name":"region","type":"string"}]}"#,
    )
    .expect("parses");
    let e = ReadPlan::new(
        Schema::parse(w).expect("parses"),
        &read_cols(&[("region", SqlType::String)]),
        Some(&reader),
    )
    .expect_err("no default");
    assert!(e.contains("missing required field"), "{e}");
}

#[test]
fn hostile_blocks_cost_no_more_than_their_bytes() {
    let w = r#"{"type":"record","name":"E","fields":[{"name":"nulls","type":{"type":"array","items":"null"}},
        {"name":"strs","type":{"type":"array","items":"string"}},{"name":"id","type":"long"}]}"#;
    let plan = ReadPlan::new(
        Schema::parse(w).expect("parses"),
        &read_cols(&[("id", SqlType::BigInt)]),
        None,
    )
    .expect("compiles");
    let mut row = Row::new();
    // 2^40 nulls (no bytes each) are not iterated; then an empty array of
    // strings, then the id.
    let mut b = Vec::new();
    super::binary::put_long(&mut b, 1 << 40);
    b.extend_from_slice(&[0, 0, 14]);
    plan.read(&b, &mut row, 1, &mut Default::default())
        .expect("reads");
    assert_eq!(row[0], Value::Int(7));
    // A block of a million strings in four bytes is refused before reading.
    let mut b = vec![0];
    super::binary::put_long(&mut b, 1_000_000);
    b.extend_from_slice(&[0, 0, 0, 0]);
    let e = plan
        .read(&b, &mut row, 1, &mut Default::default())
        .expect_err("too many items for the bytes");
    assert!(e.contains("1000000 items"), "{e}");
}

/// A DATE column is Avro's `int` with the `date` logical type (Flink's
/// `AvroSchemaConverter`): written as its days, read back by the real
/// library as a date and by lowwater as the same day.
#[test]
fn a_date_column_is_the_date_logical_type() {
    let spec = [("id", SqlType::Int), ("d", SqlType::Date)];
    let derived = derived_schema(&cols(&spec)).expect("derives");
    assert!(derived.contains(r#""logicalType":"date""#), "{derived}");
    let mut w = writer(&spec);
    // 2025-09-14 and 1969-12-31.
    for days in [20_345, -1] {
        let row = [Value::Int(7), Value::Int(days)];
        let bytes = w.write(&row).expect("writes");
        let schema = apache_avro::Schema::parse_str(&derived).expect("parses");
        let v = apache_avro::from_avro_datum(&schema, &mut &bytes[..], None).expect("reads");
        let AV::Record(fields) = v else {
            panic!("not a record: {v:?}")
        };
        assert_eq!(
            fields[1],
            ("d".into(), AV::Union(1, Box::new(AV::Date(days as i32))))
        );
        let mut r =
            AvroReader::new(&ValueFormat::Avro, read_cols(&spec), &cols(&spec), 2).expect("reader");
        let mut out = Row::new();
        r.read(&bytes, &mut out).expect("reads");
        assert_eq!(&out[..], &row[..]);
    }
}
