"""The side-by-side peer benchmark behind scripts/peer_bench.sh (see its header
for usage and environment): the same Flink SQL job over the same input through
lowwater and Apache Flink 2.3 (PyFlink, local mini-cluster, streaming mode),
and on the Kafka path through a Kafka Streams application as well. For each
engine it prints rows in, wall and CPU seconds, rows per CPU-second, peak RSS
and whether the output rows are equal, then lowwater's rows per CPU-second over
each peer's. Exits 1 when an engine's rows differ, 2 when an engine fails.

Measurement: each engine's command runs as a child of this process, which is a
child subreaper (prctl PR_SET_CHILD_SUBREAPER), so every process the command
starts is reaped here, even the JVM that PyFlink launches and does not wait
for. wait4() gives each one's exact user + system CPU and peak RSS (the kernel's
figures, as /usr/bin/time reports them). CPU is summed over the processes (for
Flink: the JVM and the Python launcher), peak RSS is the largest process's;
wall time runs from the start of the command until its last process exits
(JVM start-up, planning and shutdown included).
"""
import collections
import ctypes
import datetime
import functools
import glob
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.environ.get("PEER_BENCH_DIR", "/tmp/lowwater-peer-bench")
LOWWATER = os.environ["LOWWATER_BIN"]
FLINK_PYTHON = os.environ["FLINK_PYTHON"]
PARALLELISM = int(os.environ.get("PARALLELISM", "1"))
RUNS = int(os.environ.get("RUNS", "1"))
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "127.0.0.1:19092")
KAFKA_PARTITIONS = 16
END_KEY = "~end"  # the Kafka path's end markers (see fill_topic)
BASE_MS = 1757808000000  # 2025-09-14 00:00:00 UTC
DEFAULT_ROWS = {"json": 2_000_000, "datagen": 20_000_000, "kafka": 1_000_000, "joins": 1_000_000,
                "ranked": 2_000_000}


def rows_for(path):
    """ROWS_<PATH>, else ROWS, else the path's default."""
    v = os.environ.get(f"ROWS_{path.upper()}") or os.environ.get("ROWS")
    return int(v) if v else DEFAULT_ROWS[path]


# ---------------------------------------------------------------- measuring

PR_SET_CHILD_SUBREAPER = 36
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("peer_bench: prctl(PR_SET_CHILD_SUBREAPER) failed")


class Run:
    """One measured command: wall, CPU, peak RSS, and each process's share."""

    def __init__(self, wall, procs, out):
        self.wall, self.procs, self.out = wall, procs, out
        self.records_in = None  # lowwater's own count, from its report
        self.cpu = sum(p[1] for p in procs)
        self.rss_mb = max(p[2] for p in procs)


def measure(cmd, name):
    """Runs `cmd` (stdout and stderr to WORK/NAME.out|err) and waits for it and
    every process it starts.

    A shell starts it in the background and exits at once, so the command is
    reparented to this process. That keeps its peak RSS its own: Linux counts,
    in a process's ru_maxrss, the resident memory of the process it was forked
    from (the copied address space it had before exec); this Python process
    grows to hundreds of MB (the rows it compares), the shell is about 1 MB."""
    out, err, pidfile = (os.path.join(WORK, name + ext) for ext in (".out", ".err", ".pid"))
    t0 = time.monotonic()
    with open(out, "wb") as o, open(err, "wb") as e:
        shell = subprocess.Popen(["/bin/sh", "-c", '"$@" & echo $! > "$0"', pidfile, *cmd],
                                 stdout=o, stderr=e, cwd=WORK)
    procs, status = [], {}
    while True:
        try:
            pid = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOWAIT).si_pid
        except ChildProcessError:
            break
        try:  # a zombie's name is still there until it is reaped
            comm = open(f"/proc/{pid}/comm").read().strip()
        except OSError:
            comm = "?"
        _, st, ru = os.wait4(pid, 0)
        status[pid] = os.waitstatus_to_exitcode(st)
        if pid != shell.pid:
            procs.append((comm, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024))
    wall = time.monotonic() - t0
    shell.returncode = status[shell.pid]  # reaped above; Popen must not wait for it again
    rc = status.get(int(open(pidfile).read()))
    os.remove(pidfile)
    if rc != 0:
        sys.stderr.write(f"peer_bench: {' '.join(cmd)} exited {rc}; last lines of {err}:\n")
        sys.stderr.write("".join(open(err, errors="replace").readlines()[-30:]))
        sys.exit(2)
    return Run(wall, procs, out)


def lowwater(job, name):
    report = os.path.join(WORK, name + ".report.json")
    run = measure([LOWWATER, "run", job, "--report", report], "lowwater-" + name)
    totals = json.load(open(report))["totals"]
    run.records_in = totals["records_in"]
    if totals["late_records_dropped"]:
        print(f"  note: lowwater dropped {totals['late_records_dropped']} late records ({name})")
    return run


def flink(job, name, jars=()):
    return measure([FLINK_PYTHON, os.path.join(HERE, "flink_job.py"), job, *jars], "flink-" + name)


# ---------------------------------------------------------------- input

def events(n):
    """(user_id, amount, ts ms) of the input: 1,000 users, 100 records per second
    of event time from 2025-09-14 00:00, each up to 3 s behind its place (small
    disorder, always within the jobs' 5-second watermark delay)."""
    rng = random.Random(20250914)
    for i in range(n):
        yield f"u{rng.randrange(1000)}", rng.randrange(1, 100), BASE_MS + i * 10 - rng.randrange(3000)


@functools.lru_cache(maxsize=16)
def second_text(sec):
    return (datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=sec)).strftime("%Y-%m-%d %H:%M:%S")


def ts_text(ms):
    """Epoch ms as the json format's TIMESTAMP(3) text."""
    return f"{second_text(ms // 1000)}.{ms % 1000:03d}"


def record(user, amount, ts):
    return f'{{"user_id":"{user}","amount":{amount},"ts":"{ts_text(ts)}"}}'


def json_file(n):
    path = os.path.join(WORK, f"events-{n}.jsonl")
    if not os.path.exists(path):
        with open(path + ".tmp", "w") as f:
            for e in events(n):
                f.write(record(*e) + "\n")
        os.rename(path + ".tmp", path)
    return path


# ---------------------------------------------------------------- jobs

SOURCE = """CREATE TABLE events (
  user_id STRING,
  amount INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ({options});
"""
FILE_JOBS = {
    "global": """CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3),
  cnt BIGINT, total INT, lo INT, hi INT) WITH ({sink});
INSERT INTO results SELECT window_start, window_end, COUNT(*), SUM(amount), MIN(amount), MAX(amount)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
""",
    "keyed": """CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING,
  cnt BIGINT, total INT, lo INT, hi INT) WITH ({sink});
INSERT INTO results SELECT window_start, window_end, user_id, COUNT(*), SUM(amount), MIN(amount), MAX(amount)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, user_id;
""",
}
# Window deduplication and Window Top-N over the rows of the same file.
RANKED_JOBS = {
    "dedup": """CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, amount INT, ts TIMESTAMP(3))
  WITH ({sink});
INSERT INTO results SELECT window_start, user_id, amount, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id ORDER BY ts) AS rn
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
) WHERE rn = 1;
""",
    "top3": """CREATE TABLE results (window_start TIMESTAMP(3), user_id STRING, amount INT, rn BIGINT)
  WITH ({sink});
INSERT INTO results SELECT window_start, user_id, amount, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rn
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
) WHERE rn <= 3;
""",
}
DATAGEN_JOB = """CREATE TABLE events (
  k INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '{n}', 'rows-per-second' = '1000000000',
  'fields.k.min' = '0', 'fields.k.max' = '15'{extra});
CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), k INT, cnt BIGINT)
  WITH ('connector' = 'print');
INSERT INTO results SELECT window_start, window_end, k, COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, k;
"""
KAFKA_SINK = """CREATE TABLE results (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING, cnt BIGINT)
  WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json');
INSERT INTO results SELECT window_start, window_end, user_id, COUNT(*)
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, user_id;
"""


def write_job(name, text):
    path = os.path.join(WORK, name + ".sql")
    with open(path, "w") as f:
        f.write(f"SET 'parallelism.default' = '{PARALLELISM}';\n" + text)
    return path


def file_job(name, data, shape, sink):
    source = SOURCE.format(options=f"'connector' = 'filesystem', 'path' = '{data}', 'format' = 'json'")
    return write_job(name, source + FILE_JOBS[shape].format(sink=sink))


# ---------------------------------------------------------------- comparing

def epoch_ms(text):
    """A TIMESTAMP(3) as either engine writes it ('2025-09-14 00:01:00[.000]') in ms."""
    d = datetime.datetime.fromisoformat(text.replace(" ", "T"))
    return (d - datetime.datetime(1970, 1, 1)) // datetime.timedelta(milliseconds=1)


def normalised(row):
    """A JSON row as a comparable tuple: timestamps as epoch ms (the engines may
    format them differently), numbers as numbers."""
    def value(v):
        if isinstance(v, str) and re.fullmatch(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?", v):
            return epoch_ms(v)
        return v
    return tuple(sorted((k, value(v)) for k, v in row.items()))


def file_rows(directory):
    """The rows a filesystem sink wrote (every committed file; hidden files are
    Flink's uncommitted in-progress ones and must not hold rows)."""
    rows = []
    for f in glob.glob(os.path.join(directory, "**"), recursive=True):
        if not os.path.isfile(f):
            continue
        lines = [l for l in open(f, encoding="utf-8").read().splitlines() if l]
        if os.path.basename(f).startswith("."):
            if lines:
                sys.exit(f"peer_bench: {f} holds {len(lines)} uncommitted rows")
            continue
        rows.extend(normalised(json.loads(l)) for l in lines)
    return sorted(rows)


def printed_counts(path):
    """The sum of the last column of the +I[...] rows a print sink wrote."""
    total = 0
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.search(r"\+I\[(.*)\]\s*$", line)
        if m:
            total += int(m.group(1).rsplit(",", 1)[1])
    return total


def difference(a, b):
    """A few rows of each side that the other lacks, for the log."""
    ca, cb = collections.Counter(a), collections.Counter(b)
    only_a, only_b = list((ca - cb).elements()), list((cb - ca).elements())
    return f"{len(only_a)} rows only in the first, {len(only_b)} only in the second; e.g. {only_a[:2]} / {only_b[:2]}"


# ---------------------------------------------------------------- results

RESULTS = []  # (path, job, engine, rows in, Run, equal)
FAILED = []


def result(path, job, engine, rows_in, run, equal):
    """Records and prints one measured run; lowwater's run must also have read
    every row."""
    if run.records_in is not None and run.records_in != rows_in:
        print(f"  {engine} read {run.records_in:,} records, not {rows_in:,}")
        equal = False
    RESULTS.append((path, job, engine, rows_in, run, equal))
    print(f"  {engine:<9} {rows_in:>11,} rows  {run.wall:7.2f} s wall  {run.cpu:7.2f} s CPU  "
          f"{rate(rows_in, run):>12,.0f} rows/CPU-s  {run.rss_mb:7.0f} MB  equal: {'yes' if equal else 'NO'}", flush=True)
    if not equal:
        FAILED.append(f"{path} {job} {engine}")


def rate(rows_in, run):
    """Rows per CPU-second."""
    return rows_in / max(run.cpu, 1e-6)


def order(engines, i):
    """Engines alternated: run i starts with a different one."""
    return engines[i % len(engines):] + engines[:i % len(engines)]


def table():
    print("\npath     job     engine     rows in       wall s    CPU s   rows/CPU-s     peak RSS MB  equal  processes (CPU s / peak MB)")
    for path, job, engine, rows_in, run, equal in RESULTS:
        procs = ", ".join(f"{c} {cpu:.2f}/{rss:.0f}" for c, cpu, rss in run.procs)
        print(f"{path:<8} {job:<7} {engine:<9} {rows_in:>11,} {run.wall:9.2f} {run.cpu:8.2f} {rate(rows_in, run):>12,.0f} "
              f"{run.rss_mb:>13.0f}  {'yes' if equal else 'NO':<5}  {procs}")
    print("\nlowwater / peer, rows per CPU-second (median of the runs):")
    groups = collections.defaultdict(list)
    for path, job, engine, rows_in, run, _ in RESULTS:
        groups[(path, job, engine)].append(rate(rows_in, run))
    for (path, job, engine), rates in groups.items():
        if engine != "lowwater":
            ratio = statistics.median(groups[(path, job, "lowwater")]) / statistics.median(rates)
            print(f"  {path} {job}: lowwater / {engine} = {ratio:.2f}x")


# ---------------------------------------------------------------- paths

def path_json():
    n = rows_for("json")
    data = json_file(n)
    for shape in FILE_JOBS:
        print(f"json -> 1-minute TUMBLE ({shape}) -> sink, {n:,} rows, parallelism {PARALLELISM}", flush=True)
        # The equality run: each engine writes its rows to files.
        rows = {}
        for engine, run_with in (("lowwater", lowwater), ("flink", flink)):
            out = os.path.join(WORK, f"rows-{shape}-{engine}")
            shutil.rmtree(out, ignore_errors=True)
            job = file_job(f"json-{shape}-files", data, shape,
                           f"'connector' = 'filesystem', 'path' = '{out}', 'format' = 'json'")
            run_with(job, f"json-{shape}-files")
            rows[engine] = file_rows(out)
            shutil.rmtree(out)
        counted = sum(dict(r)["cnt"] for r in rows["lowwater"])
        equal = rows["lowwater"] == rows["flink"] and counted == n
        print(f"  into files: lowwater {len(rows['lowwater']):,} rows (COUNTs sum to {counted:,}), "
              f"flink {len(rows['flink']):,} rows: {'equal' if equal else 'DIFFERENT'}")
        if not equal:
            print(f"  {difference(rows['lowwater'], rows['flink'])}")
        # The timed runs: the same job into a blackhole.
        job = file_job(f"json-{shape}", data, shape, "'connector' = 'blackhole'")
        for i in range(RUNS):
            for engine in order(["lowwater", "flink"], i):
                run = lowwater(job, f"json-{shape}") if engine == "lowwater" else flink(job, f"json-{shape}")
                result("json", shape, engine, n, run, equal)


def path_ranked():
    n = rows_for("ranked")
    data = json_file(n)
    for shape, text in RANKED_JOBS.items():
        print(f"json -> 1-minute TUMBLE rows ranked ({shape}) -> sink, {n:,} rows, parallelism {PARALLELISM}", flush=True)
        source = SOURCE.format(options=f"'connector' = 'filesystem', 'path' = '{data}', 'format' = 'json'")
        rows = {}
        for engine, run_with in (("lowwater", lowwater), ("flink", flink)):
            out = os.path.join(WORK, f"rows-{shape}-{engine}")
            shutil.rmtree(out, ignore_errors=True)
            job = write_job(f"ranked-{shape}-files", source + text.format(
                sink=f"'connector' = 'filesystem', 'path' = '{out}', 'format' = 'json'"))
            run_with(job, f"ranked-{shape}-files")
            rows[engine] = file_rows(out)
            shutil.rmtree(out)
        equal = rows["lowwater"] == rows["flink"] and len(rows["lowwater"]) > 0
        print(f"  into files: lowwater {len(rows['lowwater']):,} rows, flink {len(rows['flink']):,} rows: "
              f"{'equal' if equal else 'DIFFERENT'}")
        if not equal:
            print(f"  {difference(rows['lowwater'], rows['flink'])}")
        job = write_job(f"ranked-{shape}", source + text.format(sink="'connector' = 'blackhole'"))
        for i in range(RUNS):
            for engine in order(["lowwater", "flink"], i):
                run = lowwater(job, f"ranked-{shape}") if engine == "lowwater" else flink(job, f"ranked-{shape}")
                result("ranked", shape, engine, n, run, equal)


def path_datagen():
    n = rows_for("datagen")
    print(f"datagen -> 1-second TUMBLE COUNT per key (16 keys) -> print, {n:,} rows, parallelism {PARALLELISM}", flush=True)
    job = {"lowwater": write_job("datagen-lowwater", DATAGEN_JOB.format(
               n=n, extra=f", 'lowwater.partitions' = '{PARALLELISM}'" if PARALLELISM > 1 else "")),
           "flink": write_job("datagen-flink", DATAGEN_JOB.format(n=n, extra=""))}
    for i in range(RUNS):
        for engine in order(["lowwater", "flink"], i):
            run = lowwater(job[engine], "datagen") if engine == "lowwater" else flink(job[engine], "datagen")
            counted = printed_counts(run.out)
            if counted != n:
                print(f"  {engine}: the windows' counts sum to {counted:,}, not {n:,}")
            result("datagen", "keyed", engine, n, run, counted == n)


def topic_records(topic):
    """Records in each partition of `topic` (end minus beginning offsets), or None."""
    c = Consumer({"bootstrap.servers": BOOTSTRAP, "group.id": "peer-bench-reader"})
    try:
        md = c.list_topics(topic, timeout=10).topics[topic]
        if md.error is not None:
            return None
        counts = []
        for p in sorted(md.partitions):
            lo, hi = c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            counts.append(hi - lo)
        return counts
    finally:
        c.close()


def create_topic(topic, partitions):
    admin = AdminClient({"bootstrap.servers": BOOTSTRAP})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result()
    for _ in range(100):  # until every partition has its leader
        try:
            if topic_records(topic) is not None:
                return
        except KafkaException:
            pass
        time.sleep(0.1)
    sys.exit(f"peer_bench: topic {topic} was created but its partitions have no leader after 10 s")


def delete_topic(topic):
    """Deletes `topic` and waits until the broker no longer lists it."""
    admin = AdminClient({"bootstrap.servers": BOOTSTRAP})
    admin.delete_topics([topic])[topic].result()
    for _ in range(100):
        if topic not in admin.list_topics(timeout=10).topics:
            return
        time.sleep(0.1)


def fill_topic(n):
    """The Kafka path's input: the records of events(n) keyed by user_id on 16
    partitions (the client's partitioner: one user, one partition), then one
    end marker per partition (user_id '~end', an hour after the data). Kafka
    Streams closes windows on stream time only, so without the markers it would
    never write the last windows; lowwater and Flink write a row for the markers'
    window, which the comparison leaves out. Kept between runs (same n, same
    records)."""
    topic = f"peer-bench-events-{n}"
    counts = topic_records(topic)
    if counts is not None and sum(counts) == n + KAFKA_PARTITIONS and all(counts):
        return topic
    if counts is not None:
        delete_topic(topic)
    create_topic(topic, KAFKA_PARTITIONS)
    prod = Producer({"bootstrap.servers": BOOTSTRAP, "linger.ms": 20, "queue.buffering.max.messages": 500_000})
    last = 0
    for i, (user, amount, ts) in enumerate(events(n)):
        last = max(last, ts)
        while True:
            try:
                prod.produce(topic, key=user, value=record(user, amount, ts))
                break
            except BufferError:
                prod.poll(0.05)
        if i % 10_000 == 0:
            prod.poll(0)
    prod.flush()
    for p in range(KAFKA_PARTITIONS):
        prod.produce(topic, key=END_KEY, value=record(END_KEY, 0, last + 3_600_000), partition=p)
    prod.flush()
    counts = topic_records(topic)
    if sum(counts) != n + KAFKA_PARTITIONS:
        sys.exit(f"peer_bench: {topic} holds {sum(counts)} records, not {n + KAFKA_PARTITIONS}")
    return topic


def topic_rows(topic, kstreams):
    """(user_id, window start ms, count) of every record in `topic`, without the
    end markers' window: JSON rows from lowwater and Flink; from Kafka Streams
    a windowed key (the user_id's bytes, then the start as a big-endian long) and
    a big-endian long count."""
    c = Consumer({"bootstrap.servers": BOOTSTRAP, "group.id": "peer-bench-reader", "enable.auto.commit": False})
    md = c.list_topics(topic, timeout=10).topics[topic]
    ends = {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in md.partitions}
    c.assign([TopicPartition(topic, p, 0) for p in md.partitions])
    left = {p for p, end in ends.items() if end > 0}
    rows = []
    while left:
        for m in c.consume(10_000, timeout=1.0):
            if m.error():
                sys.exit(f"peer_bench: reading {topic}: {m.error()}")
            if kstreams:
                key = m.key()
                row = (key[:-8].decode(), int.from_bytes(key[-8:], "big", signed=True),
                       int.from_bytes(m.value(), "big", signed=True))
            else:
                v = json.loads(m.value())
                row = (v["user_id"], epoch_ms(v["window_start"]), v["cnt"])
            if row[0] != END_KEY:
                rows.append(row)
            if m.offset() + 1 >= ends[m.partition()]:
                left.discard(m.partition())
    c.close()
    return sorted(rows)


def path_kafka():
    n = rows_for("kafka")
    topic = fill_topic(n)
    rows_in = n + KAFKA_PARTITIONS
    print(f"kafka ({KAFKA_PARTITIONS} partitions) -> 1-minute TUMBLE COUNT per user_id -> kafka, "
          f"{n:,} records + {KAFKA_PARTITIONS} end markers, parallelism {PARALLELISM}", flush=True)
    source = SOURCE.format(options=(
        f"'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{BOOTSTRAP}', "
        "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'"))
    reference = None
    for i in range(RUNS):
        for engine in order(["lowwater", "flink", "kstreams"], i):
            out = f"peer-bench-out-{engine}-{os.getpid()}-{i}"
            create_topic(out, 1)
            try:
                if engine == "kstreams":
                    state = os.path.join(WORK, "kstreams-state")
                    shutil.rmtree(state, ignore_errors=True)
                    run = measure(["java", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp",
                                   os.environ["KSTREAMS_CP"], "dev.lowwater.bench.WindowCount",
                                   BOOTSTRAP, topic, out, str(PARALLELISM), state], "kstreams-kafka")
                    shutil.rmtree(state, ignore_errors=True)
                else:
                    job = write_job(f"kafka-{engine}", source + KAFKA_SINK.format(topic=out, bootstrap=BOOTSTRAP))
                    run = (lowwater(job, "kafka") if engine == "lowwater"
                           else flink(job, "kafka", [os.environ["FLINK_KAFKA_JAR"]]))
                rows = topic_rows(out, engine == "kstreams")
            finally:
                delete_topic(out)
            counted = sum(r[2] for r in rows)
            if reference is None:
                reference = rows
            equal = rows == reference and counted == n
            print(f"  {engine} wrote {len(rows):,} rows (COUNTs sum to {counted:,})")
            if not equal:
                print(f"  {engine}'s rows differ from the first run's: {difference(reference, rows)}")
            result("kafka", "keyed", engine, rows_in, run, equal)


# ---------------------------------------------------------------- joins

CURRENCIES = 100


def join_files(n):
    """The joins path's inputs (kept between runs): n orders (order_id, one of
    100 currencies, amount, ts: 100 per second of event time from 00:00:10,
    each up to 3 s behind its place); every currency's rate each minute from
    00:00 to past the last order; one shipment per order 1 s to 10 min after
    it, written in time order (up to 3 s out of place)."""
    names = {k: os.path.join(WORK, f"{k}-{n}.jsonl") for k in ("orders", "rates", "shipments")}
    if all(os.path.exists(f) for f in names.values()):
        return names
    rng = random.Random(36)
    last = 0
    ships = []
    with open(names["orders"], "w") as f:
        for i in range(n):
            ts = BASE_MS + 10_000 + i * 10 - rng.randrange(3000)
            last = max(last, ts)
            f.write(f'{{"order_id":{i},"currency":"c{rng.randrange(CURRENCIES)}","amount":{rng.randrange(1, 100)},'
                    f'"ts":"{ts_text(ts)}"}}\n')
            at = ts + rng.randrange(1000, 600_000)
            ships.append((at - rng.randrange(3000), at, i))
    ships.sort()
    with open(names["shipments"], "w") as f:
        for k, (_, at, i) in enumerate(ships):
            f.write(f'{{"ship_id":{k},"order_id":{i},"ship_ts":"{ts_text(at)}"}}\n')
    with open(names["rates"], "w") as f:
        for minute in range((last - BASE_MS) // 60_000 + 2):
            for c in range(CURRENCIES):
                f.write(f'{{"currency":"c{c}","rate":{100 + (minute * 7 + c) % 50},'
                        f'"rate_ts":"{ts_text(BASE_MS + minute * 60_000)}"}}\n')
    return names


JOIN_TABLES = """CREATE TABLE orders (order_id BIGINT, currency STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{orders}', 'format' = 'json');
"""
JOINS = {
    "temporal": """CREATE TABLE rates (currency STRING, rate INT, rate_ts TIMESTAMP(3),
  WATERMARK FOR rate_ts AS rate_ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{rates}', 'format' = 'json');
CREATE VIEW versioned_rates AS SELECT currency, rate, rate_ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY rate_ts DESC) AS rownum FROM rates)
WHERE rownum = 1;
CREATE TABLE results (order_id BIGINT, currency STRING, total BIGINT, ts TIMESTAMP(3)) WITH ({sink});
INSERT INTO results SELECT o.order_id, o.currency, CAST(o.amount AS BIGINT) * r.rate, o.ts
FROM orders AS o JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
""",
    "interval": """CREATE TABLE shipments (ship_id BIGINT, order_id BIGINT, ship_ts TIMESTAMP(3),
  WATERMARK FOR ship_ts AS ship_ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{shipments}', 'format' = 'json');
CREATE TABLE results (order_id BIGINT, ship_id BIGINT, ts TIMESTAMP(3), ship_ts TIMESTAMP(3)) WITH ({sink});
INSERT INTO results SELECT o.order_id, s.ship_id, o.ts, CAST(s.ship_ts AS TIMESTAMP(3))
FROM orders AS o JOIN shipments AS s
ON o.order_id = s.order_id AND s.ship_ts BETWEEN o.ts AND o.ts + INTERVAL '10' MINUTE;
""",
}


def path_joins():
    """The temporal join and the interval join, each first into files (the
    rows must be equal, one per order), then timed into a blackhole. (The
    bytes a held row costs are measured by `cargo bench -p lowwater-core
    --bench join`: bounded files end, so neither engine holds them long.)"""
    n = rows_for("joins")
    files = join_files(n)
    lines = {k: sum(1 for _ in open(f)) for k, f in files.items()}
    shapes = [("temporal", "temporal", files["rates"], lines["rates"]),
              ("interval", "interval", files["rates"], lines["shipments"])]
    # JOIN_SHAPES=interval (or temporal) runs one of them.
    only = [s.strip() for s in os.environ.get("JOIN_SHAPES", "").split(",") if s.strip()]
    shapes = [s for s in shapes if not only or s[0] in only]
    for job_name, shape, rates, other in shapes:
        rows_in = n + other
        print(f"joins -> {job_name} join -> sink, {n:,} orders + {other:,} rows, parallelism {PARALLELISM}", flush=True)
        text = lambda sink: JOIN_TABLES.format(orders=files["orders"]) + JOINS[shape].format(
            rates=rates, shipments=files["shipments"], sink=sink)
        rows = {}
        for engine, run_with in (("lowwater", lowwater), ("flink", flink)):
            out = os.path.join(WORK, f"rows-{job_name}-{engine}")
            shutil.rmtree(out, ignore_errors=True)
            job = write_job(f"joins-{job_name}-files", text(f"'connector' = 'filesystem', 'path' = '{out}', 'format' = 'json'"))
            run_with(job, f"joins-{job_name}-files")
            rows[engine] = file_rows(out)
            shutil.rmtree(out)
        equal = rows["lowwater"] == rows["flink"] and len(rows["lowwater"]) == n
        print(f"  into files: lowwater {len(rows['lowwater']):,} rows, flink {len(rows['flink']):,} rows: "
              f"{'equal' if equal else 'DIFFERENT'} (one per order: {len(rows['lowwater']) == n})")
        if not equal:
            print(f"  {difference(rows['lowwater'], rows['flink'])}")
        job = write_job(f"joins-{job_name}", text("'connector' = 'blackhole'"))
        for i in range(RUNS):
            for engine in order(["lowwater", "flink"], i):
                run = lowwater(job, f"joins-{job_name}") if engine == "lowwater" else flink(job, f"joins-{job_name}")
                result("joins", job_name, engine, rows_in, run, equal)


def main():
    os.makedirs(WORK, exist_ok=True)
    runs = {"json": path_json, "datagen": path_datagen, "kafka": path_kafka, "joins": path_joins,
            "ranked": path_ranked}
    paths = [p.strip() for p in os.environ.get("PATHS", "json,datagen,kafka").split(",") if p.strip()]
    for p in paths:
        if p not in runs:
            sys.exit(f"peer_bench: unknown path '{p}' in PATHS (json, datagen, kafka, joins, ranked)")
    for p in paths:
        runs[p]()
    table()
    if FAILED:
        print(f"\npeer_bench: the rows differ: {', '.join(FAILED)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
