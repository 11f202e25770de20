//! Views, subqueries, named window arguments and FLIP-296 watermark options:
//! what plans, and what is refused with its place and a way out. (Their
//! results are checked against Flink's by the compatibility suite.)

use lowwater_core::watermark::generator::EmitStrategy;
use lowwater_sql::plan::JobPlan;

const SRC: &str = "CREATE TABLE events (user_id STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json'{extra});
CREATE TABLE out (window_start TIMESTAMP(3), user_id STRING, n BIGINT) WITH ('connector' = 'print');
";

fn job(extra: &str, rest: &str) -> String {
    format!("{}{rest}", SRC.replace("{extra}", extra))
}

fn err(sql: &str) -> String {
    match JobPlan::from_sql(sql) {
        Ok(_) => panic!("expected an error for:\n{sql}"),
        Err(e) => e.to_string(),
    }
}

const TVF: &str = "TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))";

#[test]
fn a_query_over_an_aggregation_is_the_aggregation_with_a_having() {
    let plan = JobPlan::from_sql(&job(
        "",
        &format!(
            "INSERT INTO out SELECT window_start, user_id, c * 2 FROM (SELECT window_start, user_id, \
             COUNT(*) AS c FROM {TVF} GROUP BY window_start, window_end, user_id) s WHERE s.c > 1;"
        ),
    ))
    .expect("plans");
    let p = &plan.pipelines[0];
    assert!(p.having.is_some(), "the outer WHERE filters the results");
    assert_eq!(p.window.aggregates.len(), 1, "one COUNT(*), shared");
}

#[test]
fn a_window_over_a_view_reads_the_table_with_the_views_filter() {
    let plan = JobPlan::from_sql(&job(
        "",
        "CREATE VIEW v AS SELECT UPPER(user_id) AS who, ts FROM events WHERE amount > 0;
             INSERT INTO out SELECT window_start, who, COUNT(*) FROM TABLE(TUMBLE(TABLE v, \
             DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, who;",
    ))
    .expect("plans");
    let p = &plan.pipelines[0];
    assert_eq!(plan.tables[p.source].name, "events");
    assert!(p.filter.is_some());
    assert_eq!(p.keys.len(), 1);
}

#[test]
fn views_and_subqueries_that_cannot_run_say_why() {
    let e = err(&job(
        "",
        "CREATE VIEW v AS SELECT user_id, CAST(ts AS STRING) AS t FROM events;
             INSERT INTO out SELECT window_start, user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE v, \
             DESCRIPTOR(t), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, user_id;",
    ));
    assert!(e.contains("time column 't' is computed in view 'v'"), "{e}");
    let e = err(&job(
        "",
        &format!(
            "INSERT INTO out SELECT window_start, user_id, nope FROM (SELECT window_start, \
             user_id, COUNT(*) AS c FROM {TVF} GROUP BY window_start, window_end, user_id);"
        ),
    ));
    assert!(
        e.contains("unknown column 'nope' in the subquery; it has window_start, user_id, c"),
        "{e}"
    );
    let e = err(&job(
        "",
        &format!(
            "INSERT INTO out SELECT window_start, user_id, COUNT(*) FROM (SELECT window_start, \
             user_id, COUNT(*) AS c FROM {TVF} GROUP BY window_start, window_end, user_id) \
             GROUP BY window_start, user_id;"
        ),
    ));
    assert!(
        e.contains("cascading") || e.contains("aggregation of aggregated windows"),
        "{e}"
    );
    let e = err(&job(
        "",
        "CREATE VIEW v AS SELECT * FROM events; CREATE VIEW v AS SELECT * FROM events;",
    ));
    assert!(e.contains("view 'v' is defined twice"), "{e}");
}

#[test]
fn named_window_arguments_in_their_order() {
    let plan = JobPlan::from_sql(&job(
        "",
        "INSERT INTO out SELECT window_start, user_id, COUNT(*) FROM TABLE(HOP(DATA => TABLE \
         events, TIMECOL => DESCRIPTOR(ts), SLIDE => INTERVAL '1' MINUTE, SIZE => INTERVAL '2' \
         MINUTE)) GROUP BY window_start, window_end, user_id;",
    ))
    .expect("plans");
    assert_eq!(
        plan.pipelines[0].window.assigner,
        lowwater_core::window::assigner::WindowAssigner::hopping(120_000, 60_000)
    );
    let e = err(&job(
        "",
        "INSERT INTO out SELECT window_start, user_id, COUNT(*) FROM TABLE(HOP(DATA => TABLE \
         events, TIMECOL => DESCRIPTOR(ts), SIZE => INTERVAL '2' MINUTE, SLIDE => INTERVAL '1' \
         MINUTE)) GROUP BY window_start, window_end, user_id;",
    ));
    assert!(
        e.contains("must follow its parameter order") && e.contains("line "),
        "{e}"
    );
    let e = err(&job(
        "",
        "INSERT INTO out SELECT window_start, user_id, COUNT(*) FROM TABLE(TUMBLE(DATA => TABLE \
         events, TIMECOL => DESCRIPTOR(ts), WIDTH => INTERVAL '2' MINUTE)) GROUP BY \
         window_start, window_end, user_id;",
    ));
    assert!(e.contains("TUMBLE has no parameter WIDTH"), "{e}");
}

#[test]
fn flip_296_emit_strategy_options() {
    let insert = format!(
        "INSERT INTO out SELECT window_start, user_id, COUNT(*) FROM {TVF} GROUP BY window_start, \
         window_end, user_id;"
    );
    let emit = |extra: &str| {
        let plan = JobPlan::from_sql(&job(extra, &insert)).expect("plans");
        plan.tables[0]
            .strategy(&plan.settings)
            .expect("watermark")
            .emit
    };
    assert_eq!(emit(""), EmitStrategy::Periodic);
    assert_eq!(
        emit(", 'scan.watermark.emit.strategy' = 'on-event'"),
        EmitStrategy::OnEvent { gap: 1 }
    );
    assert_eq!(
        emit(", 'scan.watermark.emit.strategy' = 'on-event', 'scan.watermark.emit.on-event.gap' = '100'"),
        EmitStrategy::OnEvent { gap: 100 }
    );
    let e = err(&job(
        ", 'scan.watermark.emit.strategy' = 'sometimes'",
        &insert,
    ));
    assert!(
        e.contains("'on-periodic'") && e.contains("'on-event'"),
        "{e}"
    );
    let e = err(&job(", 'scan.watermark.emit.on-event.gap' = '0'", &insert));
    assert!(e.contains("at least 1"), "{e}");
}

#[test]
fn an_unused_proctime_column_is_accepted_and_a_used_one_refused() {
    let src = "CREATE TABLE e (u STRING, ts TIMESTAMP(3), proc AS PROCTIME(),
      WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'kafka', 'topic' = 'e',
      'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
    CREATE TABLE out (window_start TIMESTAMP(3), u STRING, n BIGINT) WITH ('connector' = 'print');
    ";
    let tvf = "TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '1' MINUTE))";
    JobPlan::from_sql(&format!(
        "{src}INSERT INTO out SELECT window_start, u, COUNT(*) FROM {tvf} GROUP BY window_start, window_end, u;"
    ))
    .expect("an unused PROCTIME() column plans");
    let e = err(&format!(
        "{src}INSERT INTO out SELECT window_start, u, COUNT(*) FROM {tvf} WHERE proc IS NOT NULL \
         GROUP BY window_start, window_end, u;"
    ));
    assert!(
        e.contains("line 1") && e.contains("column 'proc' is PROCTIME()"),
        "{e}"
    );
}

/// Issue 37 item 7: a window over PROCTIME() says what is not supported,
/// not that the table lacks a WATERMARK; CREATE TABLE ... LIKE says what
/// to write instead of a parser error.
#[test]
fn a_processing_time_window_and_create_table_like_are_refused_in_words() {
    let src = "CREATE TABLE e (u STRING, proc AS PROCTIME()) WITH ('connector' = 'datagen');
    CREATE TABLE out (window_start TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
    ";
    let e = err(&format!(
        "{src}INSERT INTO out SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE e, \
         DESCRIPTOR(proc), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;"
    ));
    assert!(
        e.contains("processing-time windows are not supported") && e.contains("DESCRIPTOR(proc)"),
        "{e}"
    );
    let e = err(
        "CREATE TABLE a (k STRING) WITH ('connector' = 'datagen');\n\
         CREATE TABLE b WITH ('connector' = 'print') LIKE a;",
    );
    assert!(
        e.contains("line 2") && e.contains("CREATE TABLE ... LIKE") && e.contains("no column list"),
        "{e}"
    );
    let e = err(
        "CREATE TABLE a (k STRING) WITH ('connector' = 'datagen');\n\
         CREATE TABLE b (k STRING) WITH ('connector' = 'print') LIKE a (EXCLUDING ALL);",
    );
    assert!(
        e.contains("line 2") && e.contains("CREATE TABLE ... LIKE is not supported"),
        "{e}"
    );
}

#[test]
fn row_columns_are_flattened_into_their_fields() {
    let src = |format: &str| {
        format!(
            "CREATE TABLE e (p ROW<c ROW<id STRING>>, ts TIMESTAMP(3),
          WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'kafka', 'topic' = 'e',
          'properties.bootstrap.servers' = 'b:9092', 'format' = '{format}');
        CREATE TABLE out (window_start TIMESTAMP(3), u STRING, n BIGINT) WITH ('connector' = 'print');
        "
        )
    };
    let insert = "INSERT INTO out SELECT window_start, p.c.id, COUNT(*) FROM \
        TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, p.c.id;";
    let plan = JobPlan::from_sql(&format!("{}{insert}", src("json"))).expect("plans");
    assert_eq!(plan.tables[0].columns[0].name, "p.c.id");
    assert_eq!(plan.tables[0].columns[0].path, ["p", "c", "id"]);
    let e = err(&format!("{}{insert}", src("csv")));
    assert!(e.contains("ROW column 'p' needs the json format"), "{e}");
    let e = err(&format!(
        "{}CREATE TABLE s (r ROW<a BIGINT>) WITH ('connector' = 'print');
         INSERT INTO s SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) \
         GROUP BY window_start, window_end;",
        src("json")
    ));
    assert!(e.contains("sink 's' has a ROW column (r)"), "{e}");
}

#[test]
fn what_flink_would_refuse_is_noted_with_its_place() {
    let plan = JobPlan::from_sql(
        "CREATE TABLE events (user_id STRING, `value` INT, ts TIMESTAMP(3),
           WATERMARK FOR ts AS ts - INTERVAL '120' SECOND)
           WITH ('connector' = 'kafka', 'topic' = 'e', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
         CREATE TABLE out (window_start TIMESTAMP(3), user_id STRING, total INT) WITH ('connector' = 'print');
         INSERT INTO out SELECT window_start, user_id, SUM(`value`) AS result
         FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '500' MILLISECOND))
         GROUP BY window_start, window_end, user_id;",
    )
    .expect("lowwater runs it");
    let notes = plan.flink_notes.join("\n");
    assert_eq!(plan.flink_notes.len(), 5, "{notes}");
    assert!(
        notes.contains("line 2, column 46: INTERVAL '120' SECOND"),
        "{notes}"
    );
    assert!(
        notes.contains("the table name out is a reserved word"),
        "{notes}"
    );
    assert!(notes.contains("the alias result"), "{notes}");
    assert!(notes.contains("no MILLISECOND intervals"), "{notes}");
    assert!(!notes.contains("value is a reserved"), "quoted: {notes}");
    let clean = JobPlan::from_sql(&job(
        "",
        &format!(
            "INSERT INTO out SELECT window_start, user_id, COUNT(*) AS n FROM {TVF} GROUP BY \
             window_start, window_end, user_id;"
        ),
    ))
    .expect("plans");
    assert_eq!(clean.flink_notes.len(), 2, "{:?}", clean.flink_notes);
    assert!(clean
        .flink_notes
        .iter()
        .all(|n| n.contains("the table name out")));
}

#[test]
fn explain_lists_the_features_a_job_uses() {
    let plan = JobPlan::from_sql(&job(
        "",
        &format!(
            "INSERT INTO out SELECT window_start, u, n FROM (SELECT *, ROW_NUMBER() OVER \
             (PARTITION BY window_start, window_end ORDER BY n DESC) AS rn FROM (SELECT \
             window_start, window_end, UPPER(user_id) AS u, COUNT(*) AS n FROM {TVF} WHERE \
             amount > 1.5 GROUP BY window_start, window_end, UPPER(user_id) HAVING SUM(amount) > 0)) \
             WHERE rn <= 3;"
        ),
    ))
    .expect("plans");
    let f = lowwater_sql::explain::features(&plan, &plan.pipelines[0]).join(", ");
    assert_eq!(
        f,
        "TUMBLE 1m 0s, GROUP BY 1 key(s), aggregates COUNT(*) SUM, WHERE, HAVING, \
         Window Top-N (0 rank partition key(s)), functions UPPER"
    );
}

#[test]
fn explain_shows_the_future_timestamp_guard_or_suggests_it() {
    let insert = format!(
        "INSERT INTO out SELECT window_start, user_id, COUNT(*) FROM {TVF} GROUP BY window_start, \
         window_end, user_id;"
    );
    let text = |extra: &str| {
        let plan = JobPlan::from_sql(&job(extra, &insert)).expect("plans");
        lowwater_sql::explain::explain(&plan, &Default::default())
    };
    assert!(
        text("").contains("future-timestamp guard: off"),
        "{}",
        text("")
    );
    let on = text(", 'lowwater.watermark.max-future' = '10 min'");
    assert!(
        on.contains("records more than 10m 0s ahead of their arrival"),
        "{on}"
    );
    let e = err(&job(", 'lowwater.watermark.max-future' = 'soon'", &insert));
    assert!(
        e.contains("lowwater.watermark.max-future 'soon' is not a positive duration"),
        "{e}"
    );
}
