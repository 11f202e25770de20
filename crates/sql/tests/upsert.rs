//! Planning `upsert-kafka` tables: Flink's options and refusals, the
//! normalization of their changelog before a temporal join (kept when the
//! job reads a metadata column of the table, as Flink's planner keeps its
//! ChangelogNormalize) or none, and the uses lowwater refuses.

use lowwater_sql::plan::JobPlan;

const ORDERS: &str = "
CREATE TABLE orders (order_id INT, currency STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', 'path' = 'o.jsonl', 'format' = 'json');
CREATE TABLE results (order_id INT, currency STRING, rate INT, ts TIMESTAMP(3)) WITH ('connector' = 'print');
";

const JOIN: &str =
    "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o \
    JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;";

/// The rates table with `rowtime` as its rowtime column's definition,
/// `pk` its key clause and `with` options beyond the connector's.
fn rates(rowtime: &str, pk: &str, with: &str) -> String {
    format!(
        "CREATE TABLE rates (currency STRING, rate INT, {rowtime},
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND{pk})
  WITH ('connector' = 'upsert-kafka', 'topic' = 'rates', 'properties.bootstrap.servers' = '127.0.0.1:9092'{with});\n"
    )
}

const META: &str = "update_time TIMESTAMP(3) METADATA FROM 'timestamp'";
const VALUE: &str = "update_time TIMESTAMP(3)";
const PK: &str = ", PRIMARY KEY (currency) NOT ENFORCED";
const FORMATS: &str = ", 'key.format' = 'json', 'value.format' = 'json'";

fn plan(tables: &str, insert: &str) -> Result<JobPlan, String> {
    JobPlan::from_sql(&format!("{ORDERS}{tables}{insert}")).map_err(|e| e.to_string())
}

fn refused(tables: &str, insert: &str, says: &[&str]) {
    let e = match plan(tables, insert) {
        Ok(_) => panic!("planned: {tables}{insert}"),
        Err(e) => e,
    };
    for s in says {
        assert!(e.contains(s), "{e:?} does not say {s:?}");
    }
}

#[test]
fn reading_a_metadata_column_normalizes_by_the_primary_key_and_reading_none_does_not(
) -> Result<(), String> {
    let p = plan(&rates(META, PK, FORMATS), JOIN)?;
    let t = &p.tables[2];
    assert!(t.upsert());
    let key = t.key.as_ref().ok_or("the key columns")?;
    assert_eq!((key.fields.clone(), key.except_key), (vec![0], false));
    let j = &p.joins[0];
    assert!(j.normalize);
    assert_eq!(
        j.dedup_key,
        vec![0],
        "the primary key's place in the build row"
    );
    assert_eq!(j.route_positions(), None, "the join key is the primary key");
    assert_eq!(j.dedup_route_order(), Some(vec![0]));
    let p = plan(&rates(VALUE, PK, FORMATS), JOIN)?;
    assert!(!p.joins[0].normalize);
    assert!(p.joins[0].dedup_key.is_empty());
    // A value rowtime, but the job reads the partition: normalized.
    let with_part = format!("{VALUE}, part INT METADATA FROM 'partition' VIRTUAL");
    let reads_part = "INSERT INTO results SELECT o.order_id, o.currency, r.part, o.ts FROM orders \
        AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;";
    assert!(plan(&rates(&with_part, PK, FORMATS), reads_part)?.joins[0].normalize);
    // Declared but not read: not normalized (projection leaves it out).
    assert!(!plan(&rates(&with_part, PK, FORMATS), JOIN)?.joins[0].normalize);
    // A rowtime computed from metadata has a time in a tombstone too.
    let computed = "ms TIMESTAMP(3) METADATA FROM 'timestamp', update_time AS ms";
    let p = plan(&rates(computed, PK, FORMATS), JOIN)?;
    assert!(p.joins[0].normalize);
    Ok(())
}

#[test]
fn a_finer_join_key_routes_by_the_primary_key() -> Result<(), String> {
    let tables = format!(
        "{}CREATE TABLE orders2 (order_id INT, currency STRING, rate INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', 'path' = 'o.jsonl', 'format' = 'json');\n",
        rates(META, PK, FORMATS)
    );
    let p = plan(
        &tables,
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders2 AS o \
         JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.rate = r.rate AND o.currency = r.currency;",
    )?;
    let j = &p.joins[0];
    assert_eq!(j.route_positions(), Some(vec![1]), "currency, not the rate");
    Ok(())
}

#[test]
fn a_key_cast_to_the_probe_type_still_routes_by_the_primary_key() -> Result<(), String> {
    let tables = format!(
        "{}CREATE TABLE orders3 (order_id INT, currency STRING, rate BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', 'path' = 'o.jsonl', 'format' = 'json');\n",
        "CREATE TABLE rates (currency STRING, rate INT,
  update_time TIMESTAMP(3) METADATA FROM 'timestamp',
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND, PRIMARY KEY (rate) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = 'rates', 'properties.bootstrap.servers' = 'b:9092',
  'key.format' = 'json', 'value.format' = 'json');\n"
    );
    // The INT key is cast to the probe's BIGINT; the join key is finer.
    let p = plan(
        &tables,
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders3 AS o \
         JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency AND o.rate = r.rate;",
    )?;
    let j = &p.joins[0];
    assert!(j.normalize);
    assert_eq!(j.route_positions(), Some(vec![1]), "the rate, cast or not");
    Ok(())
}

#[test]
fn raw_values_beside_a_key_from_the_record_key() -> Result<(), String> {
    let t = "CREATE TABLE rates (currency STRING, body STRING,
  update_time TIMESTAMP(3) METADATA FROM 'timestamp',
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND, PRIMARY KEY (currency) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = 'rates', 'properties.bootstrap.servers' = 'b:9092',
  'key.format' = 'json', 'value.format' = 'raw', 'value.fields-include' = 'EXCEPT_KEY');\n";
    let p = plan(
        t,
        "INSERT INTO results SELECT o.order_id, r.body, 1, o.ts FROM orders AS o \
         JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;",
    )?;
    assert_eq!(p.tables[2].value_columns(), vec![1]);
    // With 'ALL' the raw value would have to hold the key too: refused.
    let all = t.replace(", 'value.fields-include' = 'EXCEPT_KEY'", "");
    refused(
        &all,
        JOIN,
        &["format 'raw'", "value has 2 physical column(s)"],
    );
    Ok(())
}

#[test]
fn the_key_prefix_reads_the_key_columns_from_the_record_key_only() -> Result<(), String> {
    let t = "CREATE TABLE rates (k_currency STRING, rate INT,
  update_time TIMESTAMP(3) METADATA FROM 'timestamp',
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND, PRIMARY KEY (k_currency) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = 'rates', 'properties.bootstrap.servers' = 'b:9092',
  'key.format' = 'json', 'value.format' = 'json', 'key.fields-prefix' = 'k_',
  'value.fields-include' = 'EXCEPT_KEY');\n";
    let p = plan(
        t,
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o \
         JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.k_currency;",
    )?;
    let key = p.tables[2].key.as_ref().ok_or("the key")?;
    assert_eq!((key.prefix.as_str(), key.except_key), ("k_", true));
    assert_eq!(
        p.tables[2].value_columns(),
        vec![1],
        "the value holds the rate only"
    );
    Ok(())
}

#[test]
fn flinks_refusals_of_the_connectors_options() {
    refused(
        &rates(META, "", FORMATS),
        JOIN,
        &["require a PRIMARY KEY", "tombstone"],
    );
    refused(
        &rates(META, PK, ", 'value.format' = 'json'"),
        JOIN,
        &["requires option 'key.format'"],
    );
    refused(
        &rates(META, PK, ", 'key.format' = 'json'"),
        JOIN,
        &["requires option 'value.format'"],
    );
    for (option, says) in [
        (", 'format' = 'json'", "'format'"),
        (
            ", 'scan.startup.mode' = 'earliest-offset'",
            "'scan.startup.mode'",
        ),
        (", 'key.fields' = 'currency'", "'key.fields'"),
    ] {
        let with = format!("{FORMATS}{option}");
        refused(&rates(META, PK, &with), JOIN, &["unsupported option", says]);
    }
    refused(
        &rates(META, ", PRIMARY KEY (nope) NOT ENFORCED", FORMATS),
        JOIN,
        &["PRIMARY KEY column 'nope' is not a column of 'rates'"],
    );
    let prefixed =
        format!("{FORMATS}, 'key.fields-prefix' = 'k_', 'value.fields-include' = 'EXCEPT_KEY'");
    refused(
        &rates(META, PK, &prefixed),
        JOIN,
        &["PRIMARY KEY column 'currency' of 'rates' does not start with key.fields-prefix 'k_'"],
    );
}

#[test]
fn an_upsert_table_is_read_as_a_versioned_table_only() {
    let t = rates(META, PK, FORMATS);
    refused(
        &t,
        "INSERT INTO results SELECT CAST(NULL AS INT), currency, rate, window_start FROM \
         TABLE(TUMBLE(TABLE rates, DESCRIPTOR(update_time), INTERVAL '1' MINUTE)) \
         GROUP BY window_start, window_end, currency, rate;",
        &[
            "'upsert-kafka' table",
            "aggregates it in windows",
            "'kafka' connector",
        ],
    );
    let probe = format!(
        "{t}CREATE TABLE pk (currency STRING, rate INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (currency) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = 'r.jsonl', 'format' = 'json');\n"
    );
    refused(
        &probe,
        "INSERT INTO results SELECT 1, r.currency, p.rate, r.update_time FROM rates AS r \
         JOIN pk FOR SYSTEM_TIME AS OF r.update_time AS p ON r.currency = p.currency;",
        &["probes it"],
    );
    let view = format!(
        "{t}CREATE VIEW v AS SELECT currency, rate, update_time FROM (SELECT *, ROW_NUMBER() OVER \
         (PARTITION BY currency ORDER BY update_time DESC) AS rn FROM rates) WHERE rn = 1;\n"
    );
    refused(
        &view,
        "INSERT INTO results SELECT o.order_id, o.currency, r.rate, o.ts FROM orders AS o \
         JOIN v FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;",
        &["versioned view over the 'upsert-kafka' table 'rates'"],
    );
}

#[test]
fn an_insert_writes_to_an_upsert_table_under_its_primary_key() -> Result<(), String> {
    let insert = "INSERT INTO rates SELECT currency, CAST(COUNT(*) AS INT), window_start FROM \
         TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) \
         GROUP BY window_start, window_end, currency;";
    // Flink 2.3 refuses it by default: the rows have no upsert key.
    refused(
        &rates(VALUE, PK, FORMATS),
        insert,
        &[
            "upsert key that differs from the primary key [currency]",
            "'table.exec.sink.require-on-conflict' = 'false'",
        ],
    );
    let off = "SET 'table.exec.sink.require-on-conflict' = 'false';\n";
    let p = plan(&format!("{off}{}", rates(VALUE, PK, FORMATS)), insert)?;
    assert!(!p.settings.require_on_conflict);
    let sink = &p.tables[p.pipelines[0].sink];
    assert!(sink.upsert());
    assert_eq!(sink.key.as_ref().map(|k| k.fields.clone()), Some(vec![0]));
    // Flink's buffer that keeps each key's last row is not built: refused.
    let buffered = format!("{FORMATS}, 'sink.buffer-flush.max-rows' = '100'");
    let e = plan(&rates(VALUE, PK, &buffered), "")
        .err()
        .unwrap_or_default();
    assert!(
        e.contains("sink.buffer-flush.max-rows is not supported yet"),
        "{e}"
    );
    let off = format!("{FORMATS}, 'sink.buffer-flush.interval' = '0'");
    assert!(
        JobPlan::from_sql(&format!("{ORDERS}{}", rates(VALUE, PK, &off)))
            .is_err_and(|e| e.to_string().contains("no INSERT"))
    );
    Ok(())
}
