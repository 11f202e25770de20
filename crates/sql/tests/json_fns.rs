//! Planning `JSON_VALUE` and `JSON_EXISTS`: the types they give, and what
//! is refused when the job is planned (RETURNING types Flink's code
//! generation refuses, paths that are not literals or that lowwater does
//! not read).

use lowwater_sql::plan::JobPlan;

fn plan(select: &str) -> Result<JobPlan, String> {
    JobPlan::from_sql(&format!(
        "CREATE TABLE events (id BIGINT, payload STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'e.jsonl', 'format' = 'json');
CREATE TABLE out (v STRING, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT {select}, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, {select};"
    ))
    .map_err(|e| e.to_string())
}

#[test]
fn json_functions_plan_with_flinks_types() -> Result<(), String> {
    plan("JSON_VALUE(payload, '$.user.id')")?;
    plan("JSON_VALUE(payload, 'strict $.items[-1]' RETURNING STRING)")?;
    plan("CAST(JSON_VALUE(payload, '$.n' RETURNING INT) AS STRING)")?;
    plan("CAST(JSON_EXISTS(payload, '$.amount') AS STRING)")?;
    Ok(())
}

#[test]
fn what_flink_refuses_or_lowwater_does_not_read_is_an_error_at_plan_time() {
    for (select, says) in [
        (
            "CAST(JSON_VALUE(payload, '$.big' RETURNING BIGINT) AS STRING)",
            "Unsupported type 'BIGINT' for RETURNING in JSON_VALUE()",
        ),
        (
            "JSON_VALUE(payload, '$.a' RETURNING VARCHAR(3))",
            "use RETURNING STRING",
        ),
        (
            "JSON_VALUE(payload, CONCAT('$.', 'a'))",
            "must be a string literal",
        ),
        ("JSON_VALUE(payload, '$.items[*]')", "does not read"),
        ("JSON_VALUE(id, '$.a')", "reads JSON text: a STRING"),
    ] {
        let e = plan(select).err().unwrap_or_default();
        assert!(e.contains(says), "{select}: {e}");
    }
}
