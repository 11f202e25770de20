//! The harness scenarios shared with the Python package
//! (`data/harness_cases.json`): the Rust harness must give exactly what the
//! file expects, and `crates/python/tests/test_cases.py` checks the Python
//! `Harness` against the same file, so the two give the same results.

use lowwater_core::harness::{Event, Harness};
use lowwater_core::window::aggregate::{AggFunc, AggSpec, Narrow};
use lowwater_core::window::assigner::WindowAssigner;
use lowwater_core::{Value, MIN_WATERMARK};
use sonic_rs::{JsonContainerTrait, JsonValueTrait, Value as Json};

fn ms(v: &Json) -> i64 {
    (v.as_f64().expect("a number of seconds") * 1000.0).round() as i64
}

fn opt_ms(c: &Json, k: &str) -> Option<i64> {
    c.get(k).filter(|v| !v.is_null()).map(ms)
}

fn json_value(v: &Json) -> Value {
    if let Some(s) = v.as_str() {
        Value::from(s)
    } else if let Some(n) = v.as_i64() {
        Value::Int(n)
    } else {
        Value::Double(v.as_f64().expect("a string or a number"))
    }
}

fn harness(c: &Json) -> Harness {
    let size = ms(&c["window_seconds"]);
    let slide = opt_ms(c, "slide_seconds");
    let assigner = match c.get("window").and_then(|w| w.as_str()).unwrap_or("tumble") {
        "tumble" => WindowAssigner::tumbling(size),
        "hop" => WindowAssigner::hopping(size, slide.expect("slide")),
        "cumulate" => WindowAssigner::cumulate(slide.expect("step"), size),
        "session" => WindowAssigner::session(size),
        w => panic!("window {w}"),
    };
    let delay = opt_ms(c, "watermark_delay").unwrap_or(0);
    let mut h = Harness::new(assigner);
    h = if c.get("watermark").and_then(|w| w.as_str()) == Some("sql") {
        h.sql_watermark(delay)
    } else {
        h.out_of_orderness(delay)
    };
    let count = |k: &str| c.get(k).and_then(|v| v.as_u64()).unwrap_or(1) as usize;
    h = h
        .partitions(count("partitions"))
        .parallelism(count("parallelism"))
        .idle_timeout(opt_ms(c, "idle_timeout"))
        .allowed_lateness(opt_ms(c, "allowed_lateness").unwrap_or(0));
    let aggs = c.get("aggregates").and_then(|a| a.as_array());
    for name in aggs.into_iter().flat_map(|a| a.iter()) {
        let func = match name.as_str().expect("an aggregate name") {
            "count" => {
                h = h.aggregate(AggSpec::count_star());
                continue;
            }
            "sum" => AggFunc::Sum,
            "max" => AggFunc::Max,
            "min" => AggFunc::Min,
            other => panic!("aggregate {other}"),
        };
        h = h.aggregate(AggSpec {
            func,
            column: Some(0),
            narrow: Narrow::None,
        });
    }
    h
}

fn seconds(ms: i64) -> String {
    if ms % 1000 == 0 {
        (ms / 1000).to_string()
    } else {
        format!("{}", ms as f64 / 1000.0)
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::Str(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// The case's results as the file writes them (a compact JSON text).
fn run(case: &Json) -> String {
    let mut h = harness(&case["config"]);
    for step in case["steps"].as_array().expect("steps") {
        let op = step[0].as_str().expect("an operation");
        match op {
            "process" => {
                let mut e = Event::new(json_value(&step[1]), ms(&step[2]))
                    .partition(step[3].as_i64().expect("a partition") as i32);
                if let Some(v) = step.get(4) {
                    e = e.value(json_value(v));
                }
                h.try_process(e).expect("a valid record");
            }
            "advance" => h.advance_processing_time(ms(&step[1])),
            other => panic!("step {other}"),
        }
    }
    let rows: Vec<String> = h
        .output()
        .iter()
        .map(|f| {
            let mut cols = vec![seconds(f.window.start), seconds(f.window.end)];
            cols.extend(f.key.iter().map(value_text));
            cols.extend(f.values.iter().map(value_text));
            cols.push(seconds(f.emitted_at));
            format!("[{}]", cols.join(","))
        })
        .collect();
    let late: Vec<String> = h
        .late()
        .dropped
        .iter()
        .map(|(p, n)| format!("\"{p}\":{n}"))
        .collect();
    let held = h.held_by().map_or("null".to_string(), |x| {
        format!("[{},{}]", x.partition.expect("a partition"), x.subtask)
    });
    let wm = h.watermark();
    let wm = if wm == MIN_WATERMARK {
        "null".to_string()
    } else {
        seconds(wm)
    };
    format!(
        "{{\"output\":[{}],\"late\":{{{}}},\"held_by\":{held},\"watermark\":{wm}}}",
        rows.join(","),
        late.join(",")
    )
}

#[test]
fn every_shared_harness_case_gives_what_the_file_expects() {
    let text = include_str!("data/harness_cases.json");
    let doc: Json = sonic_rs::from_str(text).expect("valid JSON");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 6);
    let mut wrong = Vec::new();
    for case in cases.iter() {
        let got: Json = sonic_rs::from_str(&run(case)).expect("JSON results");
        if got != case["expect"] {
            wrong.push(format!(
                "{}:\n  got    {}\n  expect {}",
                case["name"].as_str().unwrap_or("?"),
                sonic_rs::to_string(&got).unwrap_or_default(),
                sonic_rs::to_string(&case["expect"]).unwrap_or_default()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn held_by_explained_says_why_in_each_case() {
    use lowwater_core::secs;
    let feed = |idle: Option<i64>, parallelism: usize| {
        let mut h = Harness::tumbling(secs(60))
            .out_of_orderness(secs(30))
            .partitions(2)
            .parallelism(parallelism)
            .idle_timeout(idle);
        for t in [0, 30, 90, 150] {
            h.try_process(Event::new("k0", secs(t)).partition(0))
                .expect("a valid record");
        }
        h
    };
    // Never a record, no idleness: held at MIN for good.
    let mut h = feed(None, 1);
    h.advance_processing_time(secs(300));
    let (holder, why) = h.held_by_explained().expect("held");
    assert_eq!(holder.partition, Some(1));
    assert!(
        why.starts_with(
            "partition 1 (subtask 0) has had no record since the start and idleness is disabled"
        ),
        "{why}"
    );
    // A partition that had records and went quiet, no idleness.
    let mut h = feed(None, 1);
    h.try_process(Event::new("k0", secs(10)).partition(1))
        .expect("a valid record");
    h.advance_processing_time(secs(300));
    let (_, why) = h.held_by_explained().expect("held");
    assert!(
        why.contains("has had no record for 5m") && why.contains("withIdleness"),
        "{why}"
    );
    // With an idle timeout, before it passes: not idle yet.
    let mut h = feed(Some(secs(60)), 1);
    h.try_process(Event::new("k0", secs(10)).partition(1))
        .expect("a valid record");
    h.advance_processing_time(secs(30));
    let (_, why) = h.held_by_explained().expect("held");
    assert!(
        why.contains("not longer than the idle timeout of 1m"),
        "{why}"
    );
    // A subtask with no partition (parallelism 3 > 2 partitions).
    let mut h = feed(None, 3);
    h.try_process(Event::new("k0", secs(150)).partition(1))
        .expect("a valid record");
    h.advance_processing_time(secs(10));
    let (holder, why) = h.held_by_explained().expect("held");
    assert_eq!(holder.partition, None);
    assert!(
        why.contains("reads no partition (parallelism 3 > 2 partitions)"),
        "{why}"
    );
    // Past the timeout everything is idle: nothing holds the watermark.
    let mut h = feed(Some(secs(60)), 1);
    h.advance_processing_time(secs(300));
    assert!(h.held_by_explained().is_none());
    // A partition that does not exist is an error, not a panic.
    let err = h.try_process(Event::new("k0", secs(1)).partition(7));
    assert!(err.is_err_and(|e| e.to_string().contains("partition 7 does not exist")));
}
