#!/usr/bin/env python3
"""Runs lowwater's Flink compatibility cases on real Apache Flink and stores
Flink's rows as the expected output (compat/expected/NAME.jsonl).

  scripts/flink_compat.sh [NAME ...]     (all cases by default)

Each case is compat/cases/NAME.sql: a header (`-- data: D`, `-- partitions:
N`, optionally `-- mode: streaming`), then the sink table and the INSERT. The source table `events` is
compat/data/D.sql, reading compat/data/D.jsonl. `{{events}}` and
`{{results}}` are replaced by the input file and an output directory. Flink
runs in batch mode (every window fires, as lowwater's replay drains at the
end; the data has no late records), parallelism 1, time zone UTC; the rows
its filesystem sink wrote in its json format are sorted and stored. A case
Flink rejects is stored as NAME.error (Flink's message): lowwater must
reject it too.
"""
import glob
import os
import shutil
import sys
import tempfile

from pyflink.table import EnvironmentSettings, TableEnvironment

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compat")


def statements(text):
    """The SQL statements of a case or job file (split on ';' at line ends,
    comment lines left out); bench/peers/flink_job.py uses it too."""
    out, cur = [], []
    for line in text.splitlines():
        if line.lstrip().startswith("--"):
            continue
        cur.append(line)
        if line.rstrip().endswith(";"):
            out.append("\n".join(cur).rstrip().rstrip(";"))
            cur = []
    if "".join(cur).strip():
        out.append("\n".join(cur))
    return out


def header(text, key, default=None):
    for line in text.splitlines():
        if line.startswith(f"-- {key}:"):
            return line.split(":", 1)[1].strip()
    return default


def main():
    names = sys.argv[1:] or sorted(
        os.path.basename(p)[:-4] for p in glob.glob(os.path.join(ROOT, "cases", "*.sql"))
    )
    envs = {}

    def environment(mode):
        # Batch fires every window at the end like replay's drain; session
        # windows are streaming-only in Flink (the bounded source ends with
        # the MAX watermark, which fires them).
        if mode not in envs:
            settings = (EnvironmentSettings.in_streaming_mode() if mode == "streaming"
                        else EnvironmentSettings.in_batch_mode())
            e = TableEnvironment.create(settings)
            e.get_config().set("parallelism.default", "1")
            e.get_config().set("table.local-time-zone", "UTC")
            if mode == "streaming":
                e.get_config().set("execution.checkpointing.interval", "1 s")
            envs[mode] = e
        return envs[mode]

    failed = 0
    for name in names:
        text = open(os.path.join(ROOT, "cases", f"{name}.sql")).read()
        data = header(text, "data")
        source = open(os.path.join(ROOT, "data", f"{data}.sql")).read()
        out = tempfile.mkdtemp(prefix=f"flink-compat-{name}-")
        sql = (source + "\n" + text).replace(
            "{{events}}", os.path.join(ROOT, "data", f"{data}.jsonl")
        ).replace("{{results}}", out)
        env = environment(header(text, "mode", "batch"))
        for v in env.list_views():
            env.execute_sql(f"DROP TEMPORARY VIEW IF EXISTS `{v}`")
            env.execute_sql(f"DROP VIEW IF EXISTS `{v}`")
        for t in env.list_tables():
            env.execute_sql(f"DROP TEMPORARY TABLE IF EXISTS `{t}`")
            env.execute_sql(f"DROP TABLE IF EXISTS `{t}`")
        expected = os.path.join(ROOT, "expected", name)
        for stale in (expected + ".jsonl", expected + ".error"):
            if os.path.exists(stale):
                os.remove(stale)
        try:
            result = None
            for stmt in statements(sql):
                result = env.execute_sql(stmt)
            if result is not None:
                result.wait()
            rows = []
            for f in glob.glob(os.path.join(out, "**"), recursive=True):
                if os.path.isfile(f) and not os.path.basename(f).startswith("."):
                    rows.extend(l for l in open(f, encoding="utf-8").read().splitlines() if l)
            rows.sort()
            with open(expected + ".jsonl", "w", encoding="utf-8") as f:
                f.write("".join(r + "\n" for r in rows))
            print(f"{name}: {len(rows)} rows", flush=True)
        except Exception as e:  # Flink rejected the case: keep its reason
            msg = str(e).strip().splitlines()
            causes = [l.strip() for l in msg if l.strip().startswith("Caused by:")]
            first = causes[-1] if causes else next(
                (l for l in msg if "Exception" in l or "Error" in l), msg[0] if msg else "?")
            with open(expected + ".error", "w", encoding="utf-8") as f:
                f.write(first.strip() + "\n")
            print(f"{name}: Flink rejects it: {first.strip()}", flush=True)
            failed += 1
        finally:
            shutil.rmtree(out, ignore_errors=True)
    print(f"{len(names)} cases, {failed} rejected by Flink")


if __name__ == "__main__":
    main()
