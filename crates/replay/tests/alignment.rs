//! Watermark alignment in replay: partition 0 catches up from 400 s behind
//! while partitions 1-3 are live (golden cases `alignment_off` and
//! `alignment_catch_up`). Aligned, the live partitions are paused instead
//! of piling their records into open windows: the rows are the same, the
//! state held at once is smaller, and the pauses are in the report.

use std::path::{Path, PathBuf};

use lowwater_replay::{replay, Outcome, ReplayArgs};
use lowwater_sql::plan::JobPlan;

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/cases")
        .join(name)
}

fn run(name: &str, restarts: Vec<i64>) -> Outcome {
    let dir = case(name);
    let plan = JobPlan::from_sql(&std::fs::read_to_string(dir.join("job.sql")).expect("job"))
        .expect("plans");
    let args = ReplayArgs {
        inputs: vec![("events".into(), dir.join("events.jsonl"))],
        partitions: vec![("events".into(), 4)],
        restarts,
        ..ReplayArgs::default()
    };
    replay(&plan, &args).expect("replays")
}

fn rows(o: &Outcome) -> Vec<String> {
    let mut v: Vec<String> = o.outputs["out"]
        .iter()
        .map(|r| String::from_utf8_lossy(r.payload.as_deref().unwrap_or_default()).into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn aligned_partitions_wait_unread_and_the_rows_do_not_change() {
    let off = run("alignment_off", Vec::new());
    let on = run("alignment_catch_up", Vec::new());
    assert!(!rows(&off).is_empty());
    assert_eq!(rows(&off), rows(&on), "alignment changes no row");
    assert_eq!(on.report.totals.late_records_dropped, 0);
    let (peak_off, peak_on) = (off.peak_open_windows["out"], on.peak_open_windows["out"]);
    assert!(
        peak_on * 3 <= peak_off,
        "open (window, key) states at once: {peak_on} aligned, {peak_off} not"
    );
    let paused: Vec<u64> = on.report.partitions.iter().map(|p| p.paused_ms).collect();
    assert!(paused[1..].iter().all(|&ms| ms > 30_000), "{paused:?}");
    assert!(off.report.partitions.iter().all(|p| p.paused_ms == 0));
    // A restore in the middle of a pause reads what waited as before.
    let t0 = 1_757_851_200_000;
    let restarted = run("alignment_catch_up", vec![t0 + 20_000, t0 + 85_000]);
    assert_eq!(rows(&restarted), rows(&on));
    assert_eq!(restarted.report, on.report);
    assert_eq!(restarted.peak_open_windows, on.peak_open_windows);
}
