"""replay() and explain() from Python equal `lowwater replay` and
`lowwater explain` of the same job and dumps: the report field for field,
the rows row for row, the errors message for message."""

import json

import pytest

from lowwater import LowwaterError, explain, replay

SEED000 = "examples/seed000_heartbeat"


def cli_replay(cli, tmp_path, job, dump, *extra):
    rep, out = tmp_path / "report.json", tmp_path / "dashboard.jsonl"
    code, _, err = cli(
        "replay", job, "--input", f"clickstream={dump}", "--partitions", "clickstream=16",
        "--report", str(rep), "--output", f"dashboard={out}", *extra,
    )
    assert code == 0, err
    rows = [json.loads(json.loads(line)["payload"]) for line in out.read_text().splitlines()]
    return json.loads(rep.read_text()), rows


def test_seed000_replay_names_partition_11_and_equals_the_cli(repo, cli, tmp_path):
    job, dump = f"{SEED000}/job.sql", f"{SEED000}/clickstream.jsonl"
    report = replay(repo / job, inputs={"clickstream": repo / dump}, partitions={"clickstream": 16})

    assert len(report.stalls) == 3
    for stall in report.stalls:
        assert stall.held_by.partition == 11
        assert stall.held_by.subtask == 3
        assert stall.reason.startswith("partition 11 of clickstream (subtask 3) has had no record for")
    assert report.totals.late_records_dropped == 0
    assert report.late() == {p: 0 for p in range(16)}
    assert report.rows["dashboard"][0] == {
        "window_start": "2025-09-14 00:00:00", "window_end": "2025-09-14 00:01:00", "clicks": 17,
    }

    cli_report, cli_rows = cli_replay(cli, tmp_path, job, dump)
    assert report.to_dict() == cli_report
    assert report.rows["dashboard"] == cli_rows


def test_the_fix_and_no_drain_equal_the_cli_too(repo, cli, tmp_path):
    job, dump = f"{SEED000}/job_idle_timeout.sql", f"{SEED000}/clickstream.jsonl"
    report = replay(str(repo / job), {"clickstream": str(repo / dump)}, partitions=16, drain=False)
    assert report.stalls == []
    assert report.replay.drained is False
    cli_report, cli_rows = cli_replay(cli, tmp_path, job, dump, "--no-drain")
    assert report.to_dict() == cli_report
    assert report.rows["dashboard"] == cli_rows
    # Late records after idleness are counted on their partition, as the CLI counts them.
    assert report.late() == {p["partition"]: p["late_records_dropped"] for p in cli_report["partitions"]}


def test_sql_text_works_as_a_job_and_notes_are_returned(repo):
    sql = (repo / SEED000 / "job.sql").read_text() + "\nSET 'table.exec.mini-batch.enabled' = 'true';\n"
    report = replay(sql, {"clickstream": repo / SEED000 / "clickstream.jsonl"})
    assert report.stalls[0].held_by.partition == 11
    assert report.notes == [
        "Flink settings lowwater has no use for, ignored: 'table.exec.mini-batch.enabled' = 'true'"
    ]


def test_explain_equals_the_cli(repo, cli):
    job = f"{SEED000}/job.sql"
    code, out, err = cli("explain", job, "--partitions", "clickstream=16")
    assert code == 0, err
    text = explain(repo / job, partitions={"clickstream": 16})
    assert text == out
    assert "idle-timeout is disabled and it has 16 partitions" in text


def test_errors_carry_the_cli_messages(repo, cli, tmp_path):
    bad = tmp_path / "bad.sql"
    bad.write_text("CREATE TABLE t (a INT) WITH ('connector' = 'nope');\n")
    code, _, err = cli("explain", str(bad))
    assert code == 2
    with pytest.raises(LowwaterError) as e:
        explain(bad)
    assert f"error: {e.value}" == err.strip()

    missing = tmp_path / "missing.jsonl"
    job = str(repo / SEED000 / "job.sql")
    code, _, err = cli("replay", job, "--input", f"clickstream={missing}")
    assert code != 0
    with pytest.raises(LowwaterError) as e:
        replay(job, {"clickstream": missing})
    assert f"error: {e.value}" == err.strip()

    with pytest.raises(LowwaterError, match="partitions names table 'clicks', which the job does not define"):
        replay(job, {"clickstream": missing}, partitions={"clicks": 4})
    with pytest.raises(LowwaterError, match=r"reading .*nowhere\.sql"):
        replay(str(tmp_path / "nowhere.sql"), {})


def test_an_https_schema_registry_is_a_clear_error_in_the_tls_less_package(tmp_path):
    # The package is built without OpenSSL (pip needs only Rust); the CLI reads https registries.
    dump = tmp_path / "clicks.jsonl"
    dump.write_text("")
    sql = """
    CREATE TABLE clicks (`user` STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
    WITH ('connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = '127.0.0.1:9092',
          'format' = 'avro-confluent', 'avro-confluent.url' = 'https://127.0.0.1:8081');
    CREATE TABLE p (n BIGINT) WITH ('connector' = 'print');
    INSERT INTO p SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
    GROUP BY window_start, window_end;
    """
    with pytest.raises(LowwaterError, match="is https, and this build of lowwater has no TLS"):
        replay(sql, {"clicks": dump})
