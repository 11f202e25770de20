//! Job files that used to abort or hang the process get an error with
//! their place instead: operator chains deeper than the stack, too many
//! statements or INSERTs, and windows that put a record in millions of
//! windows.

use lowwater_sql::plan::JobPlan;

const SRC: &str = "CREATE TABLE events (user_id STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
CREATE TABLE sink (window_start TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
";

const INSERT: &str =
    "INSERT INTO sink SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE events, \
     DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;\n";

fn err(sql: &str) -> String {
    match JobPlan::from_sql(sql) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn an_operator_chain_deeper_than_the_stack_is_an_error_with_its_place() {
    for n in [20_000, 200_000] {
        let chain = vec!["amount"; n].join(" + ");
        let e = err(&format!(
            "{SRC}INSERT INTO sink SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE events, \
             DESCRIPTOR(ts), INTERVAL '1' MINUTE))\nWHERE {chain} > 0 GROUP BY window_start, window_end;"
        ));
        assert!(
            e.starts_with("line 6, column 7:") && e.contains("more than 200 operators deep"),
            "{n}: {e}"
        );
    }
    let e = err(&SRC.replace(
        "ts - INTERVAL '5' SECOND",
        &format!(
            "ts - INTERVAL '5' SECOND{}",
            " + INTERVAL '1' SECOND".repeat(300)
        ),
    ));
    assert!(e.contains("operators deep"), "{e}");
    let shallow = vec!["amount"; 190].join(" + ");
    JobPlan::from_sql(&format!(
        "{SRC}INSERT INTO sink SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE events, \
         DESCRIPTOR(ts), INTERVAL '1' MINUTE)) WHERE {shallow} > 0 GROUP BY window_start, window_end;"
    ))
    .expect("190 terms plan");
}

#[test]
fn too_many_inserts_or_statements_are_refused_at_once() {
    let e = err(&format!("{SRC}{}", INSERT.repeat(201)));
    assert!(
        e.starts_with("line 205, column 1:") && e.contains("at most 200 INSERT"),
        "{e}"
    );
    let t = std::time::Instant::now();
    let e = err(&format!(
        "{SRC}{}",
        "SET 'parallelism.default' = '1';\n".repeat(20_000)
    ));
    assert!(e.contains("at most 10000 statements"), "{e}");
    assert!(t.elapsed().as_secs() < 60, "refused without reading it all");
}

#[test]
fn windows_per_record_are_bounded_when_the_job_is_planned() {
    let hop = INSERT.replace(
        "TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)",
        "HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '0.001' SECOND, INTERVAL '1' DAY)",
    );
    let e = err(&format!("{SRC}{hop}"));
    assert!(
        e.contains("86400000 windows (size / slide)")
            && e.contains("'lowwater.window.max-windows-per-record' = '86400000'"),
        "{e}"
    );
    let cumulate = INSERT.replace(
        "TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE)",
        "CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '1' DAY)",
    );
    let e = err(&format!("{SRC}{cumulate}"));
    assert!(e.contains("86400 windows (max size / step)"), "{e}");
    JobPlan::from_sql(&format!(
        "SET 'lowwater.window.max-windows-per-record' = '86400';\n{SRC}{cumulate}"
    ))
    .expect("allowed when raised");
}
