//! Fuzz targets for everything lowwater reads from a user: job files, dump
//! lines, record payloads in every format, and whole dumps replayed through
//! a job. Inputs are valid seeds (the golden cases and the compatibility
//! suite) mutated byte by byte and token by token, so that they reach deep
//! into the parser, the planner and the decoders. Each target checks that
//! nothing panics or aborts and that every error says where.
//!
//! CI runs a short form (`LOWWATER_FUZZ_CASES`, default 1,000 cases per
//! target); the long form is `LOWWATER_FUZZ_CASES=200000 cargo test --release
//! -p lowwater-replay --test fuzz`. A failure prints the shrunk input, and
//! proptest keeps it in `fuzz.proptest-regressions` so it is replayed first
//! from then on.

use std::path::{Path, PathBuf};

use lowwater_connectors::avro::{AvroWriter, Registration};
use lowwater_connectors::dump::{format_record, parse_line, DumpRecord};
use lowwater_connectors::payload::PayloadRef;
use lowwater_connectors::row::{Built, RecordRef, RowBuilder};
use lowwater_core::Value;
use lowwater_replay::{replay, ReplayArgs, ReplayError};
use lowwater_sql::formats::ValueFormat;
use lowwater_sql::plan::JobPlan;
use proptest::prelude::*;
use proptest::sample::Index;

fn cases(scale: u32) -> ProptestConfig {
    let n: u32 = std::env::var("LOWWATER_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    ProptestConfig {
        cases: (n / scale).max(1),
        max_shrink_iters: 2_000,
        ..ProptestConfig::default()
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One edit of an input.
#[derive(Debug, Clone)]
enum Edit {
    Delete(Index, u8),
    Insert(Index, Index),
    Duplicate(Index, u8, Index),
    Byte(Index, u8),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        (any::<Index>(), 1u8..40).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<Index>(), 1u8..60, any::<Index>()).prop_map(|(a, n, b)| Edit::Duplicate(a, n, b)),
        (any::<Index>(), any::<u8>()).prop_map(|(a, b)| Edit::Byte(a, b)),
    ];
    proptest::collection::vec(edit, 1..4)
}

/// `seed` with `edits` applied; inserted text comes from `tokens`.
fn mutate(seed: &[u8], edits: &[Edit], tokens: &[&str]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for e in edits {
        let at = |i: &Index, len: usize| i.index(len + 1);
        match e {
            Edit::Delete(a, n) => {
                let s = at(a, b.len());
                let end = (s + *n as usize).min(b.len());
                b.drain(s..end);
            }
            Edit::Insert(a, t) => {
                let s = at(a, b.len());
                let tok = tokens[t.index(tokens.len())].as_bytes();
                b.splice(s..s, tok.iter().copied());
            }
            Edit::Duplicate(a, n, to) => {
                let s = at(a, b.len());
                let end = (s + *n as usize).min(b.len());
                let piece = b[s..end].to_vec();
                let to = at(to, b.len());
                b.splice(to..to, piece);
            }
            Edit::Byte(a, v) if !b.is_empty() => {
                let s = a.index(b.len());
                b[s] = *v;
            }
            Edit::Byte(..) => {}
        }
    }
    b
}

/// `seed` with `edits` applied to whole words (runs of text between
/// spaces), so that most results still tokenize and reach the planner.
fn mutate_words(seed: &str, edits: &[Edit], tokens: &[&str]) -> String {
    let mut w: Vec<&str> = seed.split_inclusive(char::is_whitespace).collect();
    for e in edits {
        let at = |i: &Index, len: usize| i.index(len + 1);
        match e {
            Edit::Delete(a, n) => {
                let s = at(a, w.len());
                let end = (s + 1 + *n as usize % 3).min(w.len());
                w.drain(s..end);
            }
            Edit::Insert(a, t) => {
                let s = at(a, w.len());
                w.insert(s, tokens[t.index(tokens.len())]);
            }
            Edit::Duplicate(a, _, to) if !w.is_empty() => {
                let word = w[a.index(w.len())];
                let to = at(to, w.len());
                w.insert(to, word);
            }
            Edit::Byte(a, v) if !w.is_empty() => {
                let s = a.index(w.len());
                w[s] = tokens[*v as usize % tokens.len()];
            }
            Edit::Duplicate(..) | Edit::Byte(..) => {}
        }
    }
    w.concat()
}

const SQL_TOKENS: &[&str] = &[
    "(",
    ")",
    ",",
    ";",
    "'",
    "\"",
    "`",
    "--",
    "/*",
    "*/",
    "\n",
    "\u{0}",
    "é",
    "🦀",
    " SELECT ",
    " FROM ",
    " WHERE ",
    " GROUP BY ",
    " HAVING ",
    " OVER ",
    " PARTITION BY ",
    " ORDER BY ",
    " TABLE ",
    " DESCRIPTOR(ts) ",
    " INTERVAL '1' SECOND ",
    " INTERVAL '0' DAY ",
    " INTERVAL '0.001' SECOND ",
    " CAST(",
    " AS ",
    " DECIMAL(38, 18) ",
    " TINYINT ",
    " NULL ",
    " 9223372036854775808 ",
    " -1 ",
    " 1e308 ",
    " 0.0000000000000000001 ",
    " / 0 ",
    " % 0 ",
    " CASE WHEN ",
    " THEN ",
    " ELSE ",
    " END ",
    " ROW_NUMBER() ",
    " TUMBLE(",
    " HOP(",
    " SESSION(",
    " CUMULATE(",
    " SET ",
    " DISTINCT ",
    " FILTER (WHERE ",
    " ROW<",
    ">",
    " ARRAY[",
    "]",
    " => ",
    " SIZE => ",
    " window_start ",
    " window_end ",
    " COUNT(*) ",
    " SUM(",
    " LISTAGG(",
    " FIRST_VALUE(",
    " STDDEV_POP(",
    " TRY_CAST(",
    " REGEXP_EXTRACT(",
    " 'lowwater.state.max-open-windows' = '0' ",
    " 'lowwater.watermark.max-future' = '-1 s' ",
    " 'scan.watermark.emit.on-event.gap' = '0' ",
    " 'properties.bootstrap.servers' ",
    " CREATE VIEW v AS ",
    " INSERT INTO ",
    " WITH ",
    " WATERMARK FOR ",
    " PROCTIME() ",
];

/// The golden cases' jobs and the compatibility suite's cases.
fn job_corpus() -> Vec<String> {
    let mut jobs = Vec::new();
    let golden = root().join("crates/replay/tests/golden/cases");
    let mut dirs: Vec<_> = std::fs::read_dir(&golden)
        .expect("golden cases")
        .map(|e| e.expect("entry").path())
        .collect();
    dirs.sort();
    for d in dirs {
        jobs.push(std::fs::read_to_string(d.join("job.sql")).expect("job.sql"));
    }
    let compat = root().join("compat");
    let mut files: Vec<_> = std::fs::read_dir(compat.join("cases"))
        .expect("compat cases")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("case");
        let data = text
            .lines()
            .find_map(|l| l.strip_prefix("-- data:"))
            .map_or("clicks", str::trim)
            .to_string();
        let source = std::fs::read_to_string(compat.join(format!("data/{data}.sql")))
            .expect("compat source");
        jobs.push(format!("{source}\n{text}"));
    }
    jobs
}

proptest! {
    #![proptest_config(cases(1))]

    /// A mutated job file plans or gets an error at a place inside the file;
    /// a job that plans can be explained.
    #[test]
    fn job_files(pick in any::<Index>(), words in any::<bool>(), e in edits()) {
        let corpus = job_corpus_cached();
        let seed = &corpus[pick.index(corpus.len())];
        let text = if words {
            mutate_words(seed, &e, SQL_TOKENS)
        } else {
            String::from_utf8_lossy(&mutate(seed.as_bytes(), &e, SQL_TOKENS)).into_owned()
        };
        match JobPlan::from_sql(&text) {
            Ok(plan) => {
                let shown = lowwater_sql::explain::explain(&plan, &Default::default());
                prop_assert!(!shown.is_empty());
            }
            Err(err) => {
                let lines = text.lines().count() as u64 + 1;
                prop_assert!(err.loc.line <= lines, "{err} is past the file's {lines} lines");
                prop_assert!(!err.message.trim().is_empty(), "an error without a message");
            }
        }
    }
}

fn job_corpus_cached() -> &'static [String] {
    static CORPUS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(job_corpus)
}

const JSON_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "null",
    "true",
    "false",
    "-0",
    "1e999",
    "-1e999",
    "9223372036854775808",
    "-9223372036854775809",
    "0.1",
    "1E-400",
    "\\u0000",
    "\\ud800",
    "\\\"",
    "\"2025-09-14 12:00:00.000\"",
    "\"9999-12-31 23:59:59.999\"",
    "\"2025-09-14T12:00:00Z\"",
    "\"2025-02-30 00:00:00\"",
    "\"99999999999999999999.99\"",
    "\"user_id\":",
    "\"amount\":",
    "\"ts\":",
    "\"p\":{\"c\":{\"id\":",
    "é",
    "🦀",
    "\u{0}",
];

fn dump_seeds() -> Vec<String> {
    let text = std::fs::read_to_string(
        root().join("crates/replay/tests/golden/cases/tumble_keyed/events.jsonl"),
    )
    .expect("dump");
    let mut seeds: Vec<String> = text.lines().take(20).map(str::to_string).collect();
    seeds.push(format_record(&DumpRecord {
        topic: "t\"\\\n".into(),
        partition: 2_147_483_647,
        offset: Some(i64::MAX),
        ts: i64::MIN,
        key: Some(vec![0, 255, 1]),
        payload: Some(vec![0xc3, 0x28, b'{']),
    }));
    seeds
}

proptest! {
    #![proptest_config(cases(1))]

    /// A mutated dump line is a record or an error; a record written back
    /// reads as the same record.
    #[test]
    fn dump_lines(pick in any::<Index>(), e in edits()) {
        let seeds = dump_seeds();
        let seed = &seeds[pick.index(seeds.len())];
        let line = String::from_utf8_lossy(&mutate(seed.as_bytes(), &e, JSON_TOKENS)).into_owned();
        match parse_line(&line) {
            Ok(rec) => {
                let again = parse_line(&format_record(&rec));
                prop_assert_eq!(again.as_ref(), Ok(&rec), "{}", line);
            }
            Err(err) => prop_assert!(!err.to_string().trim().is_empty()),
        }
    }
}

/// A job reading every column type in `format`.
fn record_job(format: &str, ignore: bool) -> JobPlan {
    let row = if format == "json" {
        "p ROW<c ROW<id STRING>, n INT>,"
    } else {
        ""
    };
    let reads_row = if format == "json" {
        ", MAX(p.c.id), SUM(p.n)"
    } else {
        ""
    };
    let ignore = match (format, ignore) {
        ("json" | "csv", true) => format!(", '{format}.ignore-parse-errors' = 'true'"),
        _ => String::new(),
    };
    // Avro has no DECIMAL yet.
    let price = if format == "avro" {
        "DOUBLE"
    } else {
        "DECIMAL(10, 2)"
    };
    let sql = format!(
        "CREATE TABLE events (user_id STRING, amount INT, small TINYINT, big BIGINT,
           price {price}, ratio DOUBLE, f FLOAT, ok BOOLEAN, {row} ts TIMESTAMP(3),
           lt TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
         ) WITH ('connector' = 'kafka', 'topic' = 'events',
           'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = '{format}'{ignore});
         CREATE TABLE out (w TIMESTAMP(3), u STRING, a INT, s TINYINT, b BIGINT,
           p {}, r DOUBLE, f FLOAT, n BIGINT, l TIMESTAMP_LTZ(3){}) WITH ('connector' = 'blackhole');
         INSERT INTO out SELECT window_start, user_id, SUM(amount), SUM(small), MAX(big),
           SUM(price), AVG(ratio), MAX(f), COUNT(ok), MAX(lt){reads_row}
         FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
         GROUP BY window_start, window_end, user_id;",
        if format == "avro" { "DOUBLE" } else { "DECIMAL(38, 2)" },
        if format == "json" { ", i STRING, j INT" } else { "" }
    );
    JobPlan::from_sql(&sql).unwrap_or_else(|e| panic!("{format}: {e}"))
}

fn payload_seeds(plan: &JobPlan, format: &str) -> Vec<Vec<u8>> {
    match format {
        "json" => vec![
            br#"{"user_id":"a","amount":7,"small":3,"big":9,"price":"12.50","ratio":0.5,"f":1.5,"ok":true,"p":{"c":{"id":"x"},"n":4},"ts":"2025-09-14 12:00:00.000","lt":"2025-09-14 12:00:00.000Z"}"#.to_vec(),
            br#"{"user_id":null,"amount":-2147483648,"price":12.5,"ts":"2025-09-14T12:00:00.001","p":null}"#.to_vec(),
        ],
        "csv" => vec![
            b"a,7,3,9,12.50,0.5,1.5,true,2025-09-14 12:00:00.000,2025-09-14 12:00:00.000Z".to_vec(),
            b"\"b,\"\"q\"\"\",,-128,,,NaN,-0.0,false,2025-09-14 12:00:00,".to_vec(),
        ],
        _ => {
            let t = &plan.tables[0];
            let fields = t.fields(&t.value_columns());
            let mut w = AvroWriter::new(&ValueFormat::Avro, &fields, &[], Registration::Register)
                .expect("avro writer");
            let rows = [
                vec![
                    Value::Str("a".into()), Value::Int(7), Value::Int(3), Value::Int(9),
                    Value::Double(12.5), Value::Double(0.5), Value::Double(1.5),
                    Value::Bool(true), Value::Timestamp(1_757_851_200_000),
                    Value::Timestamp(1_757_851_200_000),
                ],
                vec![Value::Null; fields.len()],
            ];
            rows.iter().map(|r| w.write(r).expect("avro record")).collect()
        }
    }
}

const BYTE_TOKENS: &[&str] = &[
    "\u{0}",
    "\u{1}",
    "\u{7f}",
    "\u{2}\u{0}",
    ",",
    "\"",
    "\n",
    "\r\n",
    "#",
    "NaN",
    "1e999",
    "2025-09-14 12:00:00.000",
    "-9223372036854775809",
    "true",
    "é",
];

proptest! {
    #![proptest_config(cases(1))]

    /// A mutated payload in json, csv or avro gives a row, a skip or an
    /// error; with ignore-parse-errors no decoding error gets through.
    #[test]
    fn payloads(format in 0usize..3, ignore in any::<bool>(), pick in any::<Index>(), e in edits()) {
        let format = ["json", "csv", "avro"][format];
        let plan = record_job(format, ignore);
        let seeds = payload_seeds(&plan, format);
        let seed = &seeds[pick.index(seeds.len())];
        let tokens = if format == "json" { JSON_TOKENS } else { BYTE_TOKENS };
        let payload = mutate(seed, &e, tokens);
        let mut rows = RowBuilder::new(&plan, 0).expect("row builder");
        let mut row = Vec::new();
        let mut nulled = 0;
        let rec = RecordRef {
            topic: "events",
            partition: 0,
            offset: Some(3),
            ts: 1_757_851_200_000,
            payload: Some(PayloadRef::from(&payload[..])),
            key: None,
        };
        let built = rows.build(rec, &mut row, &mut nulled);
        match &built {
            Ok(Built::Row(_)) => prop_assert_eq!(row.len(), plan.tables[0].columns.len()),
            Ok(Built::Skipped) => {}
            Ok(Built::Delete(_)) => prop_assert!(false, "a tombstone of a table that is not upsert-kafka"),
            Err(err) => {
                prop_assert!(!err.message.trim().is_empty());
                let skips = ignore && format != "avro";
                prop_assert!(!(skips && err.decode), "{format} ignores parse errors, yet: {}", err.message);
            }
        }
        // The same payload as a dump line writes it, when its only escapes
        // are quotes, read as it stands: the same row, skip or error.
        let written = std::str::from_utf8(&payload).ok().map(|p| {
            let s = sonic_rs::to_string(p).expect("a string");
            s[1..s.len() - 1].to_string()
        });
        if let Some(quoted) = written.as_deref().and_then(PayloadRef::quoted) {
            let (mut quoted_row, mut quoted_nulled) = (Vec::new(), 0);
            let rec = RecordRef { payload: Some(quoted), ..rec };
            let quoted = rows.build(rec, &mut quoted_row, &mut quoted_nulled);
            prop_assert_eq!(format!("{quoted:?}"), format!("{built:?}"), "{:?}", written);
            prop_assert_eq!(quoted_row, row);
            prop_assert_eq!(quoted_nulled, nulled);
        }
    }
}

/// How far a mutated record's arrival time moves.
fn shifts() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(0),
        Just(-1),
        Just(86_400_000),
        Just(-86_400_000),
        Just(i64::MAX / 2),
        Just(i64::MIN / 2),
    ]
}

/// A dump line edited as a whole (`how` 0: it may stop being a record), in
/// its payload (1) or only in its arrival time (2), so that most edited
/// records reach the engine.
fn edit_line(line: &str, how: u8, e: &[Edit], shift: i64) -> String {
    match parse_line(line) {
        Ok(mut rec) if how > 0 => {
            if how == 1 {
                rec.payload = rec.payload.map(|p| mutate(&p, e, JSON_TOKENS));
            }
            rec.ts = rec.ts.saturating_add(shift);
            format_record(&rec)
        }
        _ => String::from_utf8_lossy(&mutate(line.as_bytes(), e, JSON_TOKENS)).replace('\n', " "),
    }
}

proptest! {
    #![proptest_config(cases(10))]

    /// A golden case's dump with mutated lines replays or stops with an
    /// error naming a line of the file.
    #[test]
    fn replays(
        case in any::<Index>(),
        lines in proptest::collection::vec((any::<Index>(), 0u8..3, edits(), shifts()), 1..6),
    ) {
        let golden = root().join("crates/replay/tests/golden/cases");
        let mut names: Vec<_> = std::fs::read_dir(&golden)
            .expect("golden")
            .map(|e| e.expect("entry").file_name().into_string().expect("name"))
            .collect();
        names.sort();
        let dir = golden.join(&names[case.index(names.len())]);
        let plan = JobPlan::from_sql(&std::fs::read_to_string(dir.join("job.sql")).expect("job"))
            .expect("golden job plans");
        // The case's own inputs and partitions; its first input is mutated.
        let args_text = std::fs::read_to_string(dir.join("args")).expect("args");
        let words: Vec<&str> = args_text.split_whitespace().collect();
        let mut args = ReplayArgs::default();
        let scratch = std::env::temp_dir().join(format!("lowwater-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).expect("scratch dir");
        let mut total = 0;
        let mut mutated = None;
        for w in words.windows(2) {
            let Some((table, value)) = w[1].split_once('=') else { continue };
            match w[0] {
                "--input" => {
                    let text = std::fs::read_to_string(dir.join(value)).expect("input");
                    let mut dump: Vec<String> = text.lines().map(str::to_string).collect();
                    if mutated.is_none() {
                        for (at, whole, e, shift) in &lines {
                            let i = at.index(dump.len());
                            dump[i] = edit_line(&dump[i], *whole, e, *shift);
                        }
                        mutated = Some(dump.len());
                    }
                    total += dump.len() as u64;
                    let path = scratch.join(format!("{}.jsonl", args.inputs.len()));
                    std::fs::write(&path, dump.join("\n") + "\n").expect("write the dump");
                    args.inputs.push((table.to_string(), path));
                }
                "--partitions" => args.partitions.push((table.to_string(), value.parse().expect("n"))),
                _ => {}
            }
        }
        let result = replay(&plan, &args);
        let _ = std::fs::remove_dir_all(&scratch);
        let lines_in_file = mutated.expect("the case has an input");
        match result {
            Ok(out) => prop_assert!(out.report.totals.records_in <= total),
            Err(ReplayError::Dump { line, .. }) => prop_assert!((1..=lines_in_file).contains(&line)),
            Err(ReplayError::Record(f)) => {
                prop_assert!((1..=lines_in_file).contains(&f.line), "{f}");
                prop_assert!(!f.message.trim().is_empty());
            }
            Err(other) => prop_assert!(!other.to_string().trim().is_empty()),
        }
    }
}
