#!/usr/bin/env python3
"""Runs lowwater's Flink compatibility cases on real Apache Flink and stores
Flink's rows as the expected output (compat/expected/NAME.jsonl).

  scripts/flink_compat.sh [--root DIR] [--batch N] [NAME ...]   (all cases by default)

`--root DIR` runs another suite of the same layout (DIR/cases, DIR/data,
DIR/expected; default compat/), e.g. compat/generated from
scripts/compat_gen.py. `--batch N` puts up to N cases of the same mode into
one Flink job (a StatementSet; each case's tables renamed NAME_table): each
case is planned alone first (EXPLAIN), and one Flink rejects is stored as
NAME.error; if the job fails, its cases run again one job each.

Each case is compat/cases/NAME.sql: a header (`-- data: D`, `-- partitions:
N`, optionally `-- mode: streaming`), then the sink table and the INSERT. The source table `events` is
compat/data/D.sql, reading compat/data/D.jsonl. `{{events}}` and
`{{results}}` are replaced by the input file and an output directory; a
data file that defines more tables (the joins' `orders` and `rates`) names
each one's input `{{NAME}}`, read from compat/data/NAME.jsonl. Flink
runs in batch mode (every window fires, as lowwater's replay drains at the
end; the data has no late records), parallelism 1, time zone UTC; the rows
its filesystem sink wrote in its json format are sorted and stored. A case
Flink rejects is stored as NAME.error (Flink's message): lowwater must
reject it too.
"""
import argparse
import glob
import os
import re
import shutil
import sys
import tempfile
import time

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


def reason(e):
    """The line of Flink's exception that says why."""
    msg = str(e).strip().splitlines()
    causes = [l.strip() for l in msg if l.strip().startswith("Caused by:")]
    first = causes[-1] if causes else next(
        (l for l in msg if "Exception" in l or "Error" in l), msg[0] if msg else "?")
    return first.strip()


def output_rows(out):
    rows = []
    for f in glob.glob(os.path.join(out, "**"), recursive=True):
        if os.path.isfile(f) and not os.path.basename(f).startswith("."):
            rows.extend(l for l in open(f, encoding="utf-8").read().splitlines() if l)
    rows.sort()
    return rows


def main():
    global ROOT
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=ROOT)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    ROOT = os.path.abspath(args.root)
    os.makedirs(os.path.join(ROOT, "expected"), exist_ok=True)
    names = args.names or sorted(
        os.path.basename(p)[:-4] for p in glob.glob(os.path.join(ROOT, "cases", "*.sql"))
    )
    envs = {}
    started = time.time()

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

    def case_sql(name, out, rename=False):
        text = open(os.path.join(ROOT, "cases", f"{name}.sql")).read()
        data = header(text, "data")
        source = open(os.path.join(ROOT, "data", f"{data}.sql")).read()
        sql = source + "\n" + text
        if rename:  # every table and view of the case gets the case's name
            for t in set(re.findall(r"CREATE\s+(?:TEMPORARY\s+)?(?:TABLE|VIEW)\s+`?(\w+)", sql, re.I)):
                sql = re.sub(rf"(?<![{{\w]){t}(?![}}\w])", f"{name}_{t}", sql)
        sql = sql.replace(
            "{{events}}", os.path.join(ROOT, "data", f"{data}.jsonl")
        ).replace("{{results}}", out)
        sql = re.sub(r"\{\{(\w+)\}\}", lambda m: os.path.join(ROOT, "data", f"{m.group(1)}.jsonl"), sql)
        return text, sql

    def clean(env):
        for v in env.list_views():
            env.execute_sql(f"DROP TEMPORARY VIEW IF EXISTS `{v}`")
            env.execute_sql(f"DROP VIEW IF EXISTS `{v}`")
        for t in env.list_tables():
            env.execute_sql(f"DROP TEMPORARY TABLE IF EXISTS `{t}`")
            env.execute_sql(f"DROP TABLE IF EXISTS `{t}`")

    def store(name, rows=None, error=None):
        expected = os.path.join(ROOT, "expected", name)
        for stale in (expected + ".jsonl", expected + ".error"):
            if os.path.exists(stale):
                os.remove(stale)
        if error is None:
            with open(expected + ".jsonl", "w", encoding="utf-8") as f:
                f.write("".join(r + "\n" for r in rows))
            print(f"{name}: {len(rows)} rows", flush=True)
        else:
            with open(expected + ".error", "w", encoding="utf-8") as f:
                f.write(error + "\n")
            print(f"{name}: Flink rejects it: {error}", flush=True)

    def run_batch(batch, explain=False):
        """Many cases in one job (their tables renamed apart). A case whose
        INSERT Flink refuses is stored as an error at once. If the job
        fails, it runs again with each case planned alone first (EXPLAIN;
        the ones Flink rejects are stored as errors); if it still fails (at
        run time), its halves run again, down to one case, whose error is
        stored. Returns the number of rejected cases."""
        env = environment(header(open(os.path.join(ROOT, "cases", f"{batch[0]}.sql")).read(), "mode", "batch"))
        clean(env)
        stmt_set, outs, rejected = env.create_statement_set(), {}, 0
        t0 = time.time()
        for name in batch:
            out = tempfile.mkdtemp(prefix=f"flink-compat-{name}-")
            _, sql = case_sql(name, out, rename=True)
            stmts = statements(sql)
            try:
                for stmt in stmts[:-1]:
                    env.execute_sql(stmt)
                if explain or len(batch) == 1:
                    env.explain_sql(stmts[-1])
                stmt_set.add_insert_sql(stmts[-1])
                outs[name] = out
            except Exception as e:
                store(name, error=reason(e).replace(f"{name}_", ""))
                shutil.rmtree(out, ignore_errors=True)
                rejected += 1
        try:
            if outs:
                stmt_set.execute().wait()
            for name, out in outs.items():
                store(name, rows=output_rows(out))
            print(f"job of {len(outs)} cases: {time.time() - t0:.1f} s", flush=True)
        except Exception as e:
            names = list(outs)
            if len(names) == 1:
                store(names[0], error=reason(e).replace(f"{names[0]}_", ""))
                return rejected + 1
            print(f"the job of {len(names)} cases failed ({reason(e)[:100]})", flush=True)
            if not explain:
                return rejected + run_batch(names, explain=True)
            half = len(names) // 2
            return rejected + run_batch(names[:half], True) + run_batch(names[half:], True)
        finally:
            for out in outs.values():
                shutil.rmtree(out, ignore_errors=True)
        return rejected

    failed = 0
    alone = names
    if args.batch > 1:
        alone = []
        by_mode = {}
        for name in names:
            text = open(os.path.join(ROOT, "cases", f"{name}.sql")).read()
            by_mode.setdefault(header(text, "mode", "batch"), []).append(name)
        for group in by_mode.values():
            for i in range(0, len(group), args.batch):
                failed += run_batch(group[i:i + args.batch])
    for name in alone:
        out = tempfile.mkdtemp(prefix=f"flink-compat-{name}-")
        text, sql = case_sql(name, out)
        env = environment(header(text, "mode", "batch"))
        clean(env)
        try:
            result = None
            for stmt in statements(sql):
                result = env.execute_sql(stmt)
            if result is not None:
                result.wait()
            store(name, rows=output_rows(out))
        except Exception as e:  # Flink rejected the case: keep its reason
            store(name, error=reason(e))
            failed += 1
        finally:
            shutil.rmtree(out, ignore_errors=True)
    took = time.time() - started
    print(f"{len(names)} cases, {failed} rejected by Flink, {took:.0f} s "
          f"({len(names) / took * 60:.0f} cases/minute)")


if __name__ == "__main__":
    main()
