//! Planning INSERTs over event-time temporal joins: the versioned side (a
//! table with a primary key, or a deduplicated view), the key from the ON
//! condition, and Flink's refusals with what to write instead.

use lowwater_sql::plan::JobPlan;

const TABLES: &str = "
CREATE TABLE orders (order_id INT, currency STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', 'path' = 'o.jsonl', 'format' = 'json');
CREATE TABLE rates (currency STRING, rate INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', 'path' = 'r.jsonl', 'format' = 'json');
CREATE TABLE rates_pk (currency STRING, rate INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (currency) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = 'r.jsonl', 'format' = 'json');
CREATE TABLE results (order_id INT, currency STRING, rate INT, ts TIMESTAMP(3)) WITH ('connector' = 'print');
CREATE VIEW versioned_rates AS SELECT currency, rate, ts FROM (SELECT *, ROW_NUMBER() OVER
  (PARTITION BY currency ORDER BY ts DESC) AS rownum FROM rates) WHERE rownum = 1;
";

fn plan(insert: &str) -> Result<JobPlan, String> {
    JobPlan::from_sql(&format!("{TABLES}{insert}")).map_err(|e| e.to_string())
}

fn refused(insert: &str, says: &[&str]) {
    let e = match plan(insert) {
        Ok(_) => panic!("planned: {insert}"),
        Err(e) => e,
    };
    for s in says {
        assert!(e.contains(s), "{e:?} does not say {s:?}");
    }
}

#[test]
fn a_view_and_a_primary_key_table_are_versioned_tables() -> Result<(), String> {
    let p = plan(
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o \
         JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;",
    )?;
    assert!(p.pipelines.is_empty());
    let j = &p.joins[0];
    assert_eq!((j.probe, j.build, j.left), (0, 1, false));
    assert_eq!(j.view.as_deref(), Some("versioned_rates"));
    assert_eq!(j.build_columns, vec![Some(0), Some(1), Some(2)]);
    assert_eq!(j.probe_key.len(), 1);
    assert!(j.residual.is_none());
    let p = plan(
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, r.ts FROM orders o LEFT OUTER \
         JOIN rates_pk FOR SYSTEM_TIME AS OF o.ts r ON r.currency = o.currency AND o.amount > 5;",
    )?;
    let j = &p.joins[0];
    assert_eq!((j.build, j.left, j.view.clone()), (2, true, None));
    assert!(j.residual.is_some(), "the condition beyond the key");
    Ok(())
}

#[test]
fn select_star_over_a_star_view_has_both_sides_and_the_row_number() -> Result<(), String> {
    let p = JobPlan::from_sql(&format!(
        "{TABLES}CREATE TABLE wide (order_id INT, currency STRING, amount INT, ts TIMESTAMP(3), \
         c2 STRING, rate INT, ts2 TIMESTAMP(3), rn BIGINT) WITH ('connector' = 'print');
         CREATE VIEW v2 AS SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency \
         ORDER BY ts DESC) AS rn FROM rates) WHERE rn <= 1;
         INSERT INTO wide SELECT * FROM orders AS o JOIN v2 FOR SYSTEM_TIME AS OF o.ts AS r \
         ON o.currency = r.currency;"
    ))
    .map_err(|e| e.to_string())?;
    let j = &p.joins[0];
    assert_eq!(j.build_columns, vec![Some(0), Some(1), Some(2), None]);
    assert_eq!(j.outputs.len(), 8);
    Ok(())
}

#[test]
fn flinks_refusals_say_what_to_write() {
    refused(
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o JOIN \
         rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;",
        &[
            "line 12",
            "requires primary key",
            "PRIMARY KEY (...) NOT ENFORCED",
        ],
    );
    refused(
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o RIGHT \
         JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;",
        &["INNER or LEFT", "Unknown join type"],
    );
    refused(
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o JOIN \
         versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.amount = r.rate;",
        &["primary key [currency]", "o.<col> = r.currency"],
    );
    refused(
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o JOIN \
         versioned_rates AS r ON o.currency = r.currency;",
        &["is a view", "FOR SYSTEM_TIME AS OF o.<rowtime>"],
    );
    refused(
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o, rates r;",
        &["regular join"],
    );
    refused(
        "INSERT INTO results SELECT o.order_id, currency, r.rate, o.ts FROM orders AS o JOIN \
         versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;",
        &["'currency' is ambiguous", "o.currency or r.currency"],
    );
    refused(
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o JOIN \
         versioned_rates FOR SYSTEM_TIME AS OF r.ts AS r ON o.currency = r.currency;",
        &["AS OF must name the probe side's rowtime, o.ts"],
    );
    refused(
        "CREATE VIEW first_rates AS SELECT currency, rate, ts FROM (SELECT *, ROW_NUMBER() OVER \
         (PARTITION BY currency ORDER BY ts) AS rownum FROM rates) WHERE rownum = 1;
         INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o JOIN \
         first_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;",
        &["not a versioned table", "keeps each key's first row"],
    );
    refused(
        "CREATE VIEW no_time AS SELECT currency, rate FROM (SELECT *, ROW_NUMBER() OVER \
         (PARTITION BY currency ORDER BY ts DESC) AS rownum FROM rates) WHERE rownum = 1;
         INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o JOIN \
         no_time FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;",
        &["no row time attribute", "no_time"],
    );
    refused(
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o JOIN \
         versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.rate;",
        &["compares STRING with INT"],
    );
}

#[test]
fn a_primary_key_is_not_enforced_and_not_on_a_kafka_table() {
    let e = JobPlan::from_sql(
        "CREATE TABLE t (k STRING, ts TIMESTAMP(3), PRIMARY KEY (k)) WITH ('connector' = 'print');",
    )
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("NOT ENFORCED"), "{e}");
    let e = JobPlan::from_sql(
        "CREATE TABLE t (k STRING, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED) WITH \
         ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'x:9092', \
         'format' = 'json', 'scan.startup.mode' = 'earliest-offset');
         CREATE TABLE s (k STRING) WITH ('connector' = 'print');
         INSERT INTO s SELECT k FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND));",
    )
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("upsert-kafka"), "{e}");
}

#[test]
fn parentheses_and_the_row_number_written_either_way_change_nothing() -> Result<(), String> {
    let p = plan(
        "CREATE VIEW v2 AS SELECT currency, rate, ts FROM (SELECT *, ROW_NUMBER() OVER \
         (PARTITION BY currency ORDER BY ts DESC) AS rn FROM rates) WHERE (1 = rn);
         INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o JOIN \
         v2 FOR SYSTEM_TIME AS OF o.ts AS r ON (o.currency = r.currency) AND (o.amount = r.rate);",
    )?;
    let j = &p.joins[0];
    assert_eq!(j.probe_key.len(), 2, "both equalities are the key");
    assert!(j.residual.is_none());
    assert_eq!(
        j.dedup_key,
        vec![0],
        "the view deduplicates by currency alone"
    );
    Ok(())
}

#[test]
fn names_the_sides_share_are_refused_where_flink_refuses_them() {
    refused(
        "INSERT INTO results SELECT o.order_id, o.currency, o.amount, o.ts FROM orders AS o JOIN \
         rates_pk FOR SYSTEM_TIME AS OF o.ts AS o ON o.currency = o.currency;",
        &["both sides of the join are named 'o'"],
    );
    refused(
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o JOIN \
         rates_pk FOR SYSTEM_TIME AS OF o.ts AS r ON currency = r.currency;",
        &["'currency' is ambiguous"],
    );
    refused(
        "CREATE VIEW no_key AS SELECT rate, ts FROM (SELECT *, ROW_NUMBER() OVER \
         (PARTITION BY currency ORDER BY ts DESC) AS rownum FROM rates) WHERE rownum = 1;
         INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o JOIN \
         no_key FOR SYSTEM_TIME AS OF o.ts AS r ON o.amount = r.rate;",
        &["must select its PARTITION BY column 'currency'"],
    );
}

#[test]
fn a_join_reads_only_the_columns_it_needs_and_leaves_proctime_alone() -> Result<(), String> {
    let p = JobPlan::from_sql(
        "CREATE TABLE orders (order_id INT, currency STRING, note STRING, ts TIMESTAMP(3), \
           pt AS PROCTIME(), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', \
           'path' = 'o.jsonl', 'format' = 'json');
         CREATE TABLE rates (currency STRING, rate INT, src STRING, ts TIMESTAMP(3), \
           WATERMARK FOR ts AS ts, PRIMARY KEY (currency) NOT ENFORCED) WITH \
           ('connector' = 'filesystem', 'path' = 'r.jsonl', 'format' = 'json');
         CREATE TABLE out (order_id INT, rate INT) WITH ('connector' = 'print');
         INSERT INTO out SELECT o.order_id, r.rate FROM orders o JOIN rates FOR SYSTEM_TIME AS \
           OF o.ts r ON o.currency = r.currency;",
    )
    .map_err(|e| e.to_string())?;
    assert_eq!(p.needed_columns(0), vec![true, true, false, true, false]);
    assert_eq!(p.needed_columns(1), vec![true, true, false, true]);
    Ok(())
}

#[test]
fn a_late_data_sink_on_a_table_only_a_join_reads_is_refused() {
    let e = JobPlan::from_sql(
        "CREATE TABLE late (order_id INT) WITH ('connector' = 'print');
         CREATE TABLE orders (order_id INT, currency STRING, ts TIMESTAMP(3), WATERMARK FOR ts \
           AS ts) WITH ('connector' = 'filesystem', 'path' = 'o.jsonl', 'format' = 'json', \
           'late-data.sink' = 'late');
         CREATE TABLE rates (currency STRING, rate INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts, \
           PRIMARY KEY (currency) NOT ENFORCED) WITH ('connector' = 'filesystem', \
           'path' = 'r.jsonl', 'format' = 'json');
         CREATE TABLE out (order_id INT, rate INT) WITH ('connector' = 'print');
         INSERT INTO out SELECT o.order_id, r.rate FROM orders o JOIN rates FOR SYSTEM_TIME AS \
           OF o.ts r ON o.currency = r.currency;",
    )
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("they keep late rows"), "{e}");
}
