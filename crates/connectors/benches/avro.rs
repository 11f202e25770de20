//! Avro decoding, side by side in one run: lowwater's reader (compiled per
//! writer schema, straight into the row) against Apache Avro's Rust library
//! (`from_avro_datum` into its value tree, then into the same row), on the
//! same 500,000 clickstream records written with Flink's derived schema.
//! Alternated, best of 3; prints records per second and the ratio.
//!
//! `cargo bench -p lowwater-connectors --bench avro` (RECORDS=n to change).

use std::time::Instant;

use apache_avro::types::Value as AV;
use lowwater_connectors::avro::{derived_schema, AvroReader, AvroWriter, Registration};
use lowwater_core::{Row, Value};
use lowwater_sql::formats::ValueFormat;
use lowwater_sql::SqlType;

fn main() {
    let n: usize = std::env::var("RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500_000);
    let cols = vec![
        ("user_id".to_string(), SqlType::String, false),
        ("url".to_string(), SqlType::String, false),
        ("event_time".to_string(), SqlType::Timestamp, false),
    ];
    let mut w =
        AvroWriter::new(&ValueFormat::Avro, &cols, &[], Registration::Register).expect("writer");
    let records: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            w.write(&[
                Value::str(&format!("u{}", i % 5_000)),
                Value::str(&format!("/p/{}", i % 97)),
                Value::Timestamp(1_757_808_000_000 + i as i64 * 3),
            ])
            .expect("writes")
        })
        .collect();
    let read_cols: Vec<(String, usize, SqlType)> = cols
        .iter()
        .enumerate()
        .map(|(i, (c, t, _))| (c.clone(), i, *t))
        .collect();
    let schema =
        apache_avro::Schema::parse_str(&derived_schema(&cols).expect("derives")).expect("schema");
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let mut r =
            AvroReader::new(&ValueFormat::Avro, read_cols.clone(), &cols, 3).expect("reader");
        let mut row = Row::new();
        let t = Instant::now();
        let mut check = 0i64;
        for rec in &records {
            r.read(rec, &mut row).expect("reads");
            if let Value::Timestamp(ts) = row[2] {
                check = check.wrapping_add(ts);
            }
        }
        ours.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let mut check2 = 0i64;
        for rec in &records {
            let v = apache_avro::from_avro_datum(&schema, &mut &rec[..], None).expect("reads");
            let AV::Record(fields) = v else {
                panic!("not a record")
            };
            row.clear();
            for (_, f) in fields {
                row.push(match f {
                    AV::Union(_, b) => match *b {
                        AV::String(s) => Value::str(&s),
                        AV::TimestampMillis(t) => Value::Timestamp(t),
                        _ => Value::Null,
                    },
                    _ => Value::Null,
                });
            }
            if let Value::Timestamp(ts) = row[2] {
                check2 = check2.wrapping_add(ts);
            }
        }
        theirs.push(t.elapsed().as_secs_f64());
        assert_eq!(check, check2, "both read the same timestamps");
    }
    let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (a, b) = (best(&ours), best(&theirs));
    println!("avro decode bench: {n} records (user_id, url, event_time), best of 3, same run");
    println!("  lowwater reader:        {:>10.0} records/s", n as f64 / a);
    println!("  apache-avro from_datum: {:>10.0} records/s", n as f64 / b);
    println!("  ratio: lowwater {:.2}x apache-avro", b / a);
}
