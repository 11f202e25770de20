//! Planning `jdbc` sinks (PostgreSQL): Flink's options, the refusals, and
//! Flink 2.3's rule for a sink with a primary key (an `ON CONFLICT` clause
//! or `table.exec.sink.require-on-conflict` = 'false').

use lowwater_sql::options::Connector;
use lowwater_sql::plan::JobPlan;

const CLICKS: &str = "
CREATE TABLE clicks (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'c.jsonl', 'format' = 'json');
";

const INSERT: &str = "INSERT INTO counts SELECT window_start, user_id, COUNT(*) AS n \
    FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND)) \
    GROUP BY window_start, window_end, user_id";

fn sink(pk: &str, with: &str) -> String {
    format!(
        "CREATE TABLE counts (window_start TIMESTAMP(3), user_id STRING, n BIGINT{pk})
WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:15432/lowwater',
  'table-name' = 'gold.Counts', 'username' = 'lowwater', 'password' = 's3cret'{with});\n"
    )
}

fn plan(sql: &str) -> Result<JobPlan, String> {
    JobPlan::from_sql(sql).map_err(|e| e.to_string())
}

const PK: &str = ", PRIMARY KEY (window_start, user_id) NOT ENFORCED";

#[test]
fn an_append_sink_plans_with_flinks_defaults() -> Result<(), String> {
    let p = plan(&format!("{CLICKS}{}{INSERT};", sink("", "")))?;
    let t = &p.tables[p.pipelines[0].sink];
    let Connector::Jdbc(j) = &t.connector else {
        return Err(format!("not jdbc: {:?}", t.connector));
    };
    assert_eq!(j.qualified(), "gold.counts");
    assert_eq!(
        (j.max_rows, j.flush_interval, j.max_retries),
        (100, Some(1_000), 3)
    );
    let text = lowwater_sql::explain::explain(&p, &Default::default());
    assert!(
        text.contains("jdbc: PostgreSQL table gold.counts on 127.0.0.1:15432/lowwater, append"),
        "{text}"
    );
    assert!(!text.contains("s3cret"), "{text}");
    assert!(!format!("{p:?}").contains("s3cret"));
    Ok(())
}

#[test]
fn a_primary_key_needs_on_conflict_as_in_flink_2_3() -> Result<(), String> {
    let e = plan(&format!("{CLICKS}{}{INSERT};", sink(PK, "")))
        .err()
        .unwrap_or_default();
    assert!(
        e.contains("upsert key that differs from the primary key [window_start, user_id]")
            && e.contains("ON CONFLICT DO DEDUPLICATE"),
        "{e}"
    );
    let p = plan(&format!(
        "{CLICKS}{}{INSERT} ON CONFLICT DO DEDUPLICATE;",
        sink(PK, "")
    ))?;
    let text = lowwater_sql::explain::explain(&p, &Default::default());
    assert!(text.contains("upsert on (window_start, user_id)"), "{text}");
    let off = "SET 'table.exec.sink.require-on-conflict' = 'false';\n";
    plan(&format!("{off}{CLICKS}{}{INSERT};", sink(PK, "")))?;
    for (clause, says) in [
        ("ON CONFLICT DO NOTHING", "DO NOTHING is not supported yet"),
        ("ON CONFLICT DO ERROR", "DO ERROR is not supported yet"),
        ("ON CONFLICT (user_id) DO NOTHING", "no column list"),
        ("ON CONFLICT DO UPDATE", "ON CONFLICT DO DEDUPLICATE"),
    ] {
        let e = plan(&format!("{CLICKS}{}{INSERT} {clause};", sink(PK, "")))
            .err()
            .unwrap_or_default();
        assert!(e.contains(says), "{clause}: {e}");
    }
    // Into an append-only sink the clause is refused, as Flink refuses it.
    let kafka = "CREATE TABLE counts (window_start TIMESTAMP(3), user_id STRING, n BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');\n";
    let e = plan(&format!(
        "{CLICKS}{kafka}{INSERT} ON CONFLICT DO DEDUPLICATE;"
    ))
    .err()
    .unwrap_or_default();
    assert!(e.contains("only allowed for upsert sinks"), "{e}");
    Ok(())
}

#[test]
fn reads_and_other_databases_are_refused() {
    // A jdbc table with a watermark is still not read.
    let watermarked = "CREATE TABLE counts (window_start TIMESTAMP(3), user_id STRING, n BIGINT,
  WATERMARK FOR window_start AS window_start)
WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:15432/lowwater', 'table-name' = 't');\n";
    let read = format!(
        "{watermarked}{CLICKS}CREATE TABLE out (user_id STRING, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE counts, DESCRIPTOR(window_start), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, user_id;"
    );
    let e = plan(&read).err().unwrap_or_default();
    assert!(
        e.contains("'counts' is a jdbc table and cannot be read"),
        "{e}"
    );
    // ON CONFLICT into a jdbc table without a key: append-only, refused.
    let e = plan(&format!(
        "{CLICKS}{}{INSERT} ON CONFLICT DO DEDUPLICATE;",
        sink("", "")
    ))
    .err()
    .unwrap_or_default();
    assert!(e.contains("only allowed for upsert sinks"), "{e}");
    let mysql = sink("", "").replace("jdbc:postgresql://127.0.0.1:15432", "jdbc:mysql://db:3306");
    let e = plan(&format!("{CLICKS}{mysql}{INSERT};"))
        .err()
        .unwrap_or_default();
    assert!(e.contains("PostgreSQL only"), "{e}");
    let lookup = sink("", ", 'lookup.cache' = 'PARTIAL'");
    let e = plan(&format!("{CLICKS}{lookup}{INSERT};"))
        .err()
        .unwrap_or_default();
    assert!(e.contains("does not read them"), "{e}");
    let typo = sink("", ", 'sink.buffer-flush.max-row' = '5'");
    let e = plan(&format!("{CLICKS}{typo}{INSERT};"))
        .err()
        .unwrap_or_default();
    assert!(
        e.contains("did you mean 'sink.buffer-flush.max-rows'"),
        "{e}"
    );
}
