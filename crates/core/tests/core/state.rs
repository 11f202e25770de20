//! The estimate of open window state (`WindowOperator::state_bytes`), which
//! `/metrics` reports per INSERT: it grows with the states, counts string
//! keys' bytes, and falls to nothing when the windows fire.

use lowwater_core::window::assigner::WindowAssigner;
use lowwater_core::window::operator::{WindowInput, WindowOperator, WindowSpec};
use lowwater_core::Value;

fn fill(op: &mut WindowOperator, keys: usize, key: impl Fn(usize) -> Value) {
    let mut out = Vec::new();
    for i in 0..keys {
        op.process(
            WindowInput {
                ts: 1_000,
                split: 0,
                key: vec![key(i)],
                row: vec![],
            },
            &mut out,
        )
        .expect("placed");
    }
    assert!(out.is_empty());
}

#[test]
fn the_state_estimate_follows_the_open_states() {
    let spec = WindowSpec::count(WindowAssigner::tumbling(60_000));
    let mut ints = WindowOperator::new(spec.clone()).expect("op");
    fill(&mut ints, 10_000, |i| Value::Int(i as i64));
    let small = ints.state_bytes();
    fill(&mut ints, 90_000, |i| Value::Int(10_000 + i as i64));
    let large = ints.state_bytes();
    assert_eq!(ints.pending(), 100_000);
    let per_state = large / 100_000;
    // A hash slot (key and accumulator vectors), the key's value and the
    // COUNT: about 100 to 250 bytes with the table's spare capacity.
    assert!(
        (80..400).contains(&per_state),
        "{per_state} bytes per state"
    );
    assert!(large > small * 5, "{small} -> {large}");

    let mut strings = WindowOperator::new(spec).expect("op");
    fill(&mut strings, 100_000, |i| {
        Value::str(&format!("user-{i:0>40}"))
    });
    let with_strings = strings.state_bytes();
    assert!(
        with_strings >= large + 100_000 * 45,
        "string keys: {with_strings}, integer keys: {large}"
    );

    let mut out = Vec::new();
    ints.on_watermark(i64::MAX, &mut out);
    assert_eq!(out.len(), 100_000);
    assert_eq!((ints.pending(), ints.state_bytes()), (0, 0));
}
