#!/usr/bin/env bash
# A side-by-side peer benchmark, outside CI: the same Flink SQL job over the same
# input through lowwater and Apache Flink 2.3 (PyFlink, local mini-cluster,
# streaming mode, watermarks), and on the Kafka path also through a Kafka
# Streams application. It prints, for each engine: rows in, wall seconds, CPU
# seconds, rows per CPU-second, peak RSS (MB) and whether the output rows are
# equal; then lowwater's rows per CPU-second over each peer's. It exits 1 if an
# engine's rows differ, 2 if an engine fails. CI never runs it.
#
#   scripts/peer_bench.sh
#   ROWS=20000 PATHS=json,kafka scripts/peer_bench.sh
#
# Paths (PATHS, comma-separated, default json,datagen,kafka; joins and ranked on demand):
#   json     a generated JSON-lines file (user_id of 1,000 users, amount, ts; 100
#            records per second of event time, up to 3 s of disorder) -> 1-minute
#            TUMBLE, global (COUNT, SUM, MIN, MAX per window) and keyed by user_id
#            (the same per user) -> blackhole, timed; before that, an untimed run
#            of each engine into filesystem/json files whose rows must be equal.
#   datagen  the datagen connector (16 keys, event time = the time of generation)
#            -> 1-second TUMBLE COUNT per key -> print (a few rows per second);
#            rows are random, so each engine's COUNTs must sum to the rows in. At
#            PARALLELISM > 1 lowwater's file also sets 'lowwater.partitions' (Flink's
#            datagen has one generator per subtask; lowwater's has one per partition).
#   kafka    a 16-partition topic of the same records (keyed by user_id, plus an
#            end marker per partition) read from the earliest offset up to the
#            offsets at start -> 1-minute TUMBLE COUNT per user_id -> a Kafka
#            topic; Kafka Streams runs bench/peers/kstreams. The three output
#            topics must hold the same (user_id, window start, count) rows. The
#            input topic (peer-bench-events-ROWS) is kept for the next run; the
#            output topics are deleted.
#   ranked   the json path's file -> 1-minute TUMBLE rows ranked: window deduplication
#            (each user's first event per minute, ROW_NUMBER ... ORDER BY ts, rn = 1) and
#            Window Top-N (the 3 largest amounts per minute) -> files (the rows must be
#            equal), then blackhole, timed.
#   joins    generated JSON-lines files of orders (100 currencies, 100 per second of
#            event time, up to 3 s of disorder), a rate of every currency each
#            minute, and one shipment per order 1 s to 10 min after it -> an
#            event-time temporal join of the orders with the rates' deduplicated
#            view, and an interval join of orders and shipments (10 minutes) ->
#            files (the rows must be equal, one per order), then blackhole, timed.
#
# Reading the figures: each engine's figures cover its whole process tree from
# start to exit, so Flink's include JVM start-up, SQL planning and code
# generation (about 11-12 CPU-seconds here, whatever the size) and its Python
# launcher (about 1 s); Kafka Streams' its JVM start-up. Small ROWS measure
# mostly that; the default sizes are meant for comparing throughput.
#
# Environment:
#   ROWS          rows per path (defaults: json 2000000, datagen 20000000, kafka 1000000,
#                 joins 1000000 orders, ranked 2000000); ROWS_JSON, ROWS_DATAGEN, ROWS_KAFKA,
#                 ROWS_JOINS, ROWS_RANKED set one path's
#   PATHS         the paths to run (above)
#   PARALLELISM   parallelism.default of both SQL engines, Kafka Streams' threads (default 1)
#   RUNS          timed runs per engine, alternated (default 1); ratios use the medians
#   JOIN_SHAPES   with PATHS=joins: 'temporal' or 'interval' runs that join only (default both)
#   PEER_BENCH_DIR  work directory: generated inputs (kept), job files, logs
#                   (default /tmp/lowwater-peer-bench)
#   KAFKA_PORT    the broker (default 19092); started with scripts/kafka.sh when it is
#                 not running, and stopped at the end if this script started it
#   LOWWATER_FLINKENV, LOWWATER_FLINK_HOME, LOWWATER_PYENV   as in scripts/flink.sh and
#                 scripts/pyenv.sh (the PyFlink venv, the connector jar's cache, the
#                 Python Kafka client's venv)
#
# Needs: target/release/lowwater (built with cargo, a no-op when up to date), Java 17 and
# Maven (the Kafka connector jar, the Kafka Streams application, the broker),
# python3 with venv. How each engine is measured is in bench/peers/peer_bench.py.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
paths="${PATHS:-json,datagen,kafka}"
venv="${LOWWATER_FLINKENV:-$HOME/.cache/lowwater/flinkenv}"
jars="${LOWWATER_FLINK_HOME:-$HOME/.cache/lowwater/flink}/jars"
kafka_connector=5.0.0-2.2
port="${KAFKA_PORT:-19092}"
kstreams="$root/bench/peers/kstreams"

cd "$root"
cargo build --release -p lowwater --locked  # a no-op when the binary is up to date
command -v java >/dev/null || { echo "peer_bench.sh: Java 17 is needed (Flink, Kafka Streams)" >&2; exit 2; }
if [ -z "${JAVA_HOME:-}" ]; then
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
  export JAVA_HOME
fi
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import pyflink" 2>/dev/null; then
  echo "peer_bench.sh: installing apache-flink==2.3.0 into $venv (pip)" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check apache-flink==2.3.0
fi
export LOWWATER_BIN="${CARGO_TARGET_DIR:-$root/target}/release/lowwater" FLINK_PYTHON="$venv/bin/python"
python="$(bash scripts/pyenv.sh)"  # confluent-kafka: the Kafka path fills and reads topics with it

started_kafka=""
stop_kafka() { if [ -n "$started_kafka" ]; then bash scripts/kafka.sh stop >&2; fi; }
trap stop_kafka EXIT
if [[ ",$paths," == *,kafka,* ]]; then
  jar="$jars/flink-sql-connector-kafka-$kafka_connector.jar"
  if [ ! -f "$jar" ]; then
    mkdir -p "$jars"
    mvn -q -B dependency:copy -Dartifact="org.apache.flink:flink-sql-connector-kafka:$kafka_connector:jar" \
      -DoutputDirectory="$jars" >&2
  fi
  export FLINK_KAFKA_JAR="$jar"
  if [ ! -f "$kstreams/target/kstreams-peer.jar" ] || \
     [ -n "$(find "$kstreams/pom.xml" "$kstreams/src" -newer "$kstreams/target/kstreams-peer.jar")" ]; then
    (cd "$kstreams" && mvn -q -B package >&2)
  fi
  export KSTREAMS_CP="$kstreams/target/kstreams-peer.jar:$kstreams/target/lib/*"
  if ! bash scripts/kafka.sh status >/dev/null; then
    bash scripts/kafka.sh start >&2
    bash scripts/kafka.sh status >/dev/null && started_kafka=1
  fi
  export KAFKA_BOOTSTRAP="127.0.0.1:$port"
fi

"$python" "$root/bench/peers/peer_bench.py"
