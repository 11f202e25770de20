"""Runs a Flink SQL job file on Apache Flink (PyFlink, local mini-cluster,
streaming mode) and waits for it to end: the Flink side of
scripts/peer_bench.sh, which gives lowwater the same file.

  python flink_job.py JOB.sql [JAR ...]

Statements are split at a ';' that ends a line; `SET 'k' = 'v';` lines set
the table configuration (as the SQL client does), every other statement goes
to execute_sql, and the last one (the INSERT) is waited for. The JARs (the
Kafka SQL connector) are added with pipeline.jars. The JVM that runs the
mini-cluster is this process's child; the bench measures it.
"""
import os
import re
import sys

from pyflink.table import EnvironmentSettings, TableEnvironment

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from flink_compat import statements  # noqa: E402  (the compatibility suite's splitter)

SET = re.compile(r"^\s*SET\s+'([^']+)'\s*=\s*'([^']*)'\s*$", re.IGNORECASE | re.DOTALL)


def main():
    job, jars = sys.argv[1], sys.argv[2:]
    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    if jars:
        env.get_config().set("pipeline.jars", ";".join("file://" + j for j in jars))
    result = None
    for stmt in statements(open(job, encoding="utf-8").read()):
        m = SET.match(stmt)
        if m:
            env.get_config().set(m.group(1), m.group(2))
        else:
            result = env.execute_sql(stmt)
    result.wait()


if __name__ == "__main__":
    main()
