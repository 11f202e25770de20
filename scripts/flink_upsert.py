#!/usr/bin/env python3
"""Runs Flink's event-time temporal join against an `upsert-kafka` versioned
table (updates and tombstones) on the real Kafka broker and stores Flink's
rows as the expected output of lowwater's replay of the same topics.

  /root/.cache/lowwater/flinkenv/bin/python scripts/flink_upsert.py [CASE ...]

Input: compat/upsert/orders.jsonl and compat/upsert/rates.jsonl, topic dumps
(one record a line: topic, partition, offset, tstype, ts, key, payload;
payload null = a tombstone). Each run creates fresh topics (the logical name
suffixed with the run's time, 2 partitions each; scripts/kafka.sh start must
have been run), produces every dump record to its partition with its key,
value (null for a tombstone) and CreateTime timestamp (a small Java program
on the broker's kafka-clients jar), checks the offsets Kafka gave them, then
runs each case as its own Flink 2.3 streaming job (parallelism 1, time zone
UTC, both sources bounded with 'scan.bounded.mode' = 'latest-offset', so each
source ends with the MAX watermark, which fires every buffered order; the
filesystem json sink's rows are sorted and stored).

Cases (the SQL is written to compat/upsert/CASE.sql, with {{orders}},
{{rates}} and {{results}} standing for the run's topics and output dir):
  a_inner, a_left   rates' rowtime from the Kafka timestamp (METADATA FROM 'timestamp')
  b_inner, b_left   rates' rowtime is the value's field update_time
  c_inner, c_left   as b, plus a metadata column on rates that the query reads
                    (part INT METADATA FROM 'partition' VIRTUAL, selected as the
                    sink's last column rate_partition): Flink keeps the
                    ChangelogNormalize when a metadata column is read
                    (ChangelogNormalizeRequirementResolver.isRequired)
Writes compat/upsert/expected_CASE.jsonl (or expected_CASE.error if Flink
fails the job: its message), CASE.plan.txt (EXPLAIN of the INSERT) and
changelog_a.txt / changelog_b.txt (the changelog Flink makes of the rates
table, SELECT collected with row kinds; a diagnostic: in case B the join reads
the raw upsert stream, without the ChangelogNormalize this SELECT gets).
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from pyflink.table import EnvironmentSettings, TableEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, ".."))
DIR = os.path.join(REPO, "compat", "upsert")
BOOTSTRAP = "127.0.0.1:" + os.environ.get("KAFKA_PORT", "19092")
KAFKA_LIBS = os.path.expanduser(os.environ.get("LOWWATER_KAFKA_HOME", "~/.cache/lowwater/kafka")) + "/libs"
CONNECTOR = os.path.expanduser("~/.cache/lowwater/flink/jars/flink-sql-connector-kafka-5.0.0-2.2.jar")

ORDERS = """CREATE TABLE orders (
  order_id STRING,
  currency STRING,
  amount BIGINT,
  order_time TIMESTAMP(3) METADATA FROM 'timestamp',
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = '{{orders}}', 'properties.bootstrap.servers' = '%s',
  'properties.group.id' = '{{orders}}-{{case}}', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');""" % BOOTSTRAP

RATES_A = """CREATE TABLE rates (
  currency STRING,
  rate BIGINT,
  update_time TIMESTAMP(3) METADATA FROM 'timestamp',
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka', 'topic' = '{{rates}}', 'properties.bootstrap.servers' = '%s',
  'properties.group.id' = '{{rates}}-{{case}}', 'key.format' = 'json', 'value.format' = 'json',
  'scan.bounded.mode' = 'latest-offset');""" % BOOTSTRAP

RATES_B = RATES_A.replace("update_time TIMESTAMP(3) METADATA FROM 'timestamp'", "update_time TIMESTAMP(3)")

RATES_C = RATES_B.replace("  update_time TIMESTAMP(3),\n",
                          "  update_time TIMESTAMP(3),\n  part INT METADATA FROM 'partition' VIRTUAL,\n")
assert RATES_C != RATES_B

SINK = """CREATE TABLE results (
  order_id STRING,
  currency STRING,
  amount BIGINT,
  rate BIGINT,
  order_time TIMESTAMP(3),
  update_time TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = '{{results}}', 'format' = 'json');"""

INSERT = """INSERT INTO results
SELECT o.order_id, o.currency, o.amount, r.rate, o.order_time, r.update_time
FROM orders AS o %s JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;"""

SINK_C = SINK.replace("  update_time TIMESTAMP(3)\n)", "  update_time TIMESTAMP(3),\n  rate_partition INT\n)")
assert SINK_C != SINK

INSERT_C = INSERT.replace("r.update_time\n", "r.update_time, r.part\n")
assert INSERT_C != INSERT

# case -> (rates table, join kind[, sink table, insert])
CASES = {
    "a_inner": (RATES_A, "INNER"),
    "a_left": (RATES_A, "LEFT"),
    "b_inner": (RATES_B, "INNER"),
    "b_left": (RATES_B, "LEFT"),
    "c_inner": (RATES_C, "INNER", SINK_C, INSERT_C),
    "c_left": (RATES_C, "LEFT", SINK_C, INSERT_C),
}

HEADER = """-- Written by scripts/flink_upsert.py (which runs it): {{orders}} and {{rates}}
-- are the run's topics (compat/upsert/orders.jsonl and rates.jsonl produced to
-- fresh 2-partition topics), {{results}} a temporary output directory,
-- {{case}} the case name. Flink 2.3, streaming, parallelism 1, time zone UTC.
"""

PRODUCER = r"""
import java.nio.file.*;
import java.util.*;
import com.fasterxml.jackson.databind.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.serialization.StringSerializer;

public class Producer {
  // args: bootstrap, then DUMPFILE=TOPIC pairs. Prints topic partition offset per record.
  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", args[0]);
    p.put("acks", "all");
    p.put("enable.idempotence", "true");
    p.put("max.in.flight.requests.per.connection", "1");
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    ObjectMapper m = new ObjectMapper();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int i = 1; i < args.length; i++) {
        String[] kv = args[i].split("=", 2);
        for (String line : Files.readAllLines(Paths.get(kv[0]))) {
          if (line.isBlank()) continue;
          JsonNode n = m.readTree(line);
          String key = n.get("key").isNull() ? null : n.get("key").asText();
          String value = n.get("payload").isNull() ? null : n.get("payload").asText();
          RecordMetadata md = producer.send(new ProducerRecord<>(kv[1], n.get("partition").asInt(),
              n.get("ts").asLong(), key, value)).get();
          System.out.println(kv[1] + " " + md.partition() + " " + md.offset() + " " + md.timestamp());
        }
      }
      producer.flush();
    }
  }
}
"""


def load(name):
    return [json.loads(l) for l in open(os.path.join(DIR, f"{name}.jsonl"), encoding="utf-8") if l.strip()]


def produce(topics):
    """Creates the run's topics and produces the dumps to them; checks that
    every record got the partition, offset and timestamp its dump says."""
    for logical, topic in topics.items():
        parts = max(r["partition"] for r in load(logical)) + 1
        subprocess.run(["bash", os.path.join(HERE, "kafka.sh"), "create", topic, str(max(parts, 2))], check=True)
    work = tempfile.mkdtemp(prefix="flink-upsert-producer-")
    try:
        src = os.path.join(work, "Producer.java")
        open(src, "w").write(PRODUCER)
        args = [f"{os.path.join(DIR, logical + '.jsonl')}={topic}" for logical, topic in topics.items()]
        out = subprocess.run(["java", "-cp", KAFKA_LIBS + "/*", src, BOOTSTRAP] + args,
                             check=True, capture_output=True, text=True).stdout.split()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    got = [tuple(out[i:i + 4]) for i in range(0, len(out), 4)]
    want = [(topic, str(r["partition"]), str(r["offset"]), str(r["ts"]))
            for logical, topic in topics.items() for r in load(logical)]
    if got != want:
        sys.exit(f"flink_upsert.py: Kafka stored the records elsewhere than the dumps say:\n{got}\n{want}")
    print(f"produced {len(got)} records to {', '.join(topics.values())}", flush=True)


def reason(e):
    msg = str(e).strip().splitlines()
    causes = [l.strip() for l in msg if l.strip().startswith("Caused by:")]
    return (causes[-1] if causes else next((l for l in msg if "Exception" in l), msg[0] if msg else "?")).strip()


def environment():
    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    env.get_config().set("parallelism.default", "1")
    env.get_config().set("table.local-time-zone", "UTC")
    env.get_config().set("execution.checkpointing.interval", "1 s")
    env.get_config().set("pipeline.jars", "file://" + CONNECTOR)
    return env


def statements(sql):
    out, cur = [], []
    for line in sql.splitlines():
        if line.lstrip().startswith("--"):
            continue
        cur.append(line)
        if line.rstrip().endswith(";"):
            out.append("\n".join(cur).rstrip().rstrip(";"))
            cur = []
    return out


def fill(sql, topics, case, results=""):
    return (sql.replace("{{orders}}", topics["orders"]).replace("{{rates}}", topics["rates"])
            .replace("{{case}}", case).replace("{{results}}", results))


def run_case(case, topics):
    rates, kind, sink, insert = (CASES[case] + (SINK, INSERT))[:4]
    sql = "\n".join([ORDERS, rates, sink, insert % kind])
    with open(os.path.join(DIR, f"{case}.sql"), "w") as f:
        f.write(HEADER + sql + "\n")
    expected = os.path.join(DIR, f"expected_{case}")
    for stale in (expected + ".jsonl", expected + ".error"):
        if os.path.exists(stale):
            os.remove(stale)
    out = tempfile.mkdtemp(prefix=f"flink-upsert-{case}-")
    env = environment()
    t0 = time.time()
    try:
        stmts = statements(fill(sql, topics, case, out))
        for s in stmts[:-1]:
            env.execute_sql(s)
        plan = env.explain_sql(stmts[-1])
        with open(os.path.join(DIR, f"{case}.plan.txt"), "w") as f:
            f.write(plan.replace(topics["orders"], "{{orders}}").replace(topics["rates"], "{{rates}}")
                    .replace(out, "{{results}}") + "\n")
        try:
            env.execute_sql(stmts[-1]).wait()
        except Exception as e:
            with open(expected + ".error", "w") as f:
                f.write(reason(e) + "\n")
            print(f"{case}: Flink fails: {reason(e)}", flush=True)
            return
        rows = []
        for p in glob.glob(os.path.join(out, "**"), recursive=True):
            if os.path.isfile(p) and not os.path.basename(p).startswith("."):
                rows.extend(l for l in open(p, encoding="utf-8").read().splitlines() if l)
        rows.sort()
        with open(expected + ".jsonl", "w") as f:
            f.write("".join(r + "\n" for r in rows))
        print(f"{case}: {len(rows)} rows ({time.time() - t0:.1f} s)", flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def changelog(name, rates, topics):
    """What Flink makes of the upsert topic: SELECT * FROM rates, with row kinds."""
    env = environment()
    path = os.path.join(DIR, f"changelog_{name}.txt")
    try:
        env.execute_sql(fill(rates, topics, "changelog_" + name).rstrip(";"))
        select = "SELECT currency, rate, update_time FROM rates"
        lines = ["-- collected through Flink's collect sink, which takes -U rows, so Flink normalizes the",
                 "-- upsert stream before it (ChangelogNormalize) in both cases; the case B join reads the",
                 "-- raw upsert stream instead (no ChangelogNormalize in b_*.plan.txt)"]
        with env.execute_sql(select).collect() as rows:
            for r in rows:
                lines.append(f"{r.get_row_kind()} {list(r)}")
        text = "\n".join(lines) + "\n"
    except Exception as e:
        text = "ERROR " + reason(e) + "\n"
    with open(path, "w") as f:
        f.write("-- SELECT currency, rate, update_time FROM rates, in the order Flink emitted it\n" + text)
    print(f"changelog_{name}: {text.count(chr(10))} lines", flush=True)


def main():
    cases = sys.argv[1:] or list(CASES)
    suffix = time.strftime("%Y%m%d%H%M%S")
    topics = {"orders": f"upsert-orders-{suffix}", "rates": f"upsert-rates-{suffix}"}
    produce(topics)
    for case in cases:
        run_case(case, topics)
    if not sys.argv[1:]:
        changelog("a", RATES_A, topics)
        changelog("b", RATES_B, topics)


if __name__ == "__main__":
    main()
