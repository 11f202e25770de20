#!/usr/bin/env bash
# Starts and stops a real Apache Flink 2.3 standalone cluster (one JobManager,
# one TaskManager with 8 slots) and its SQL Gateway on 127.0.0.1, for trying
# lowwater's Flink REST client against the real thing.
#
#   scripts/flink.sh start    make the PyFlink venv and fetch the jars (cached), write the
#                             configuration, start the cluster and the gateway, wait until both answer
#                             (a cluster or gateway already answering on its port is used as it is)
#   scripts/flink.sh stop     stop the JVMs started here (by their PIDs)
#   scripts/flink.sh restart  stop, then start again
#   scripts/flink.sh status   say whether the cluster and the gateway answer
#
# Flink itself comes from PyPI (apache-flink==2.3.0, a venv under
# $LOWWATER_FLINKENV, default ~/.cache/lowwater/flinkenv, the one
# scripts/flink_compat.sh uses); its `pyflink` package directory is FLINK_HOME.
# That package lacks the SQL Gateway, so Maven fetches flink-sql-gateway and
# the Kafka SQL connector. The venv is left as pip made it: the
# configuration, lib/ and opt/ (links to the package's jars plus the fetched
# ones), logs and PID files live under $LOWWATER_FLINK_HOME (default
# ~/.cache/lowwater/flink) and Flink's scripts are pointed there with
# FLINK_CONF_DIR, FLINK_LIB_DIR, FLINK_OPT_DIR, FLINK_LOG_DIR, FLINK_PID_DIR.
#
# Environment: FLINK_REST_PORT (default 8081: REST API and web UI),
# FLINK_GATEWAY_PORT (default 8083: SQL Gateway REST endpoint), FLINK_RPC_PORT
# (default 6123: JobManager RPC; other ports are picked free by Flink),
# LOWWATER_FLINK_HOME, LOWWATER_FLINKENV. Java 17 (JAVA_HOME is taken from
# the `java` on PATH when unset). Kafka for the connector: scripts/kafka.sh.
set -euo pipefail

home="${LOWWATER_FLINK_HOME:-$HOME/.cache/lowwater/flink}"
venv="${LOWWATER_FLINKENV:-$HOME/.cache/lowwater/flinkenv}"
port="${FLINK_REST_PORT:-8081}"
gport="${FLINK_GATEWAY_PORT:-8083}"
rpcport="${FLINK_RPC_PORT:-6123}"
flink_version=2.3.0
kafka_connector=5.0.0-2.2
jars="$home/jars"
log="$home/flink.log"

export FLINK_CONF_DIR="$home/conf"
export FLINK_LIB_DIR="$home/lib"
export FLINK_OPT_DIR="$home/opt"
export FLINK_LOG_DIR="$home/log"
export FLINK_PID_DIR="$home/pid"
export FLINK_IDENT_STRING=lowwater
daemons="standalonesession taskexecutor sql-gateway"

venv_ready() {
  [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import pyflink" 2>/dev/null
}

# The PyFlink venv (Flink's distribution), made once.
install_flink() {
  if venv_ready; then return; fi
  echo "flink.sh: installing apache-flink==$flink_version into $venv (pip)" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check "apache-flink==$flink_version" >&2
}

flink_home() {
  "$venv/bin/python" -c "import os, pyflink; print(os.path.dirname(os.path.abspath(pyflink.__file__)))"
}

# The SQL Gateway and the Kafka SQL connector, fetched once with Maven.
fetch() {
  if [ -f "$jars/.complete" ]; then return; fi
  mkdir -p "$home"
  command -v mvn >/dev/null || { echo "flink.sh: Maven (mvn) is needed to fetch the SQL Gateway and the Kafka connector" >&2; exit 1; }
  mkdir -p "$jars"
  echo "flink.sh: fetching flink-sql-gateway and flink-sql-connector-kafka into $jars" >&2
  local a
  for a in "org.apache.flink:flink-sql-gateway:$flink_version:jar" \
           "org.apache.flink:flink-sql-connector-kafka:$kafka_connector:jar"; do
    if ! mvn -q -B dependency:copy -Dartifact="$a" -DoutputDirectory="$jars" >>"$log" 2>&1; then
      echo "flink.sh: Maven could not fetch $a; last lines of $log:" >&2; tail -n 20 "$log" >&2; exit 1
    fi
  done
  touch "$jars/.complete"
}

# lib/ and opt/ as links, conf/ written anew at every start (idempotent).
layout() {
  local fh="$1" f
  mkdir -p "$FLINK_LIB_DIR" "$FLINK_OPT_DIR" "$FLINK_CONF_DIR" "$FLINK_LOG_DIR" "$FLINK_PID_DIR"
  find "$FLINK_LIB_DIR" "$FLINK_OPT_DIR" -maxdepth 1 -type l -delete
  for f in "$fh"/lib/*.jar; do ln -s "$f" "$FLINK_LIB_DIR/"; done
  for f in "$fh"/opt/*.jar; do ln -s "$f" "$FLINK_OPT_DIR/"; done
  ln -s "$jars/flink-sql-connector-kafka-$kafka_connector.jar" "$FLINK_LIB_DIR/"
  # bin/config.sh looks for flink-sql-gateway*.jar in opt/, not lib/.
  ln -s "$jars/flink-sql-gateway-$flink_version.jar" "$FLINK_OPT_DIR/"
  for f in "$fh"/conf/log4j*.properties "$fh"/conf/logback*.xml; do cp -f "$f" "$FLINK_CONF_DIR/"; done
  local opens
  # The JVM flags Flink needs on Java 17 (--add-opens ...), as the package's config.yaml has them.
  opens="$(sed -n 's/^ *all: *//p' "$fh/conf/config.yaml" | head -n 1)"
  cat > "$FLINK_CONF_DIR/config.yaml" <<YAML
# Written by scripts/flink.sh at every start; edits are lost.
env.java.opts.all: $opens
env.java.opts.sql-gateway: -Xmx512m
jobmanager.rpc.address: 127.0.0.1
jobmanager.rpc.port: $rpcport
jobmanager.bind-host: 127.0.0.1
jobmanager.memory.process.size: 1024m
jobmanager.execution.failover-strategy: region
taskmanager.host: 127.0.0.1
taskmanager.bind-host: 127.0.0.1
taskmanager.numberOfTaskSlots: 8
taskmanager.memory.process.size: 2048m
parallelism.default: 1
rest.address: 127.0.0.1
rest.bind-address: 127.0.0.1
rest.port: $port
sql-gateway.endpoint.rest.address: 127.0.0.1
sql-gateway.endpoint.rest.bind-address: 127.0.0.1
sql-gateway.endpoint.rest.port: $gport
YAML
  echo "127.0.0.1:$port" > "$FLINK_CONF_DIR/masters"
  echo "127.0.0.1" > "$FLINK_CONF_DIR/workers"
}

pids() {
  local d
  for d in $daemons; do
    [ -f "$FLINK_PID_DIR/flink-$FLINK_IDENT_STRING-$d.pid" ] && cat "$FLINK_PID_DIR/flink-$FLINK_IDENT_STRING-$d.pid"
  done
  return 0
}

running() {
  local p any=1
  for p in $(pids); do kill -0 "$p" 2>/dev/null && any=0; done
  return $any
}

# The REST API answers with at least one TaskManager registered.
cluster_answers() {
  curl -sf "http://127.0.0.1:$port/overview" 2>/dev/null | grep -q '"taskmanagers":[1-9]'
}

gateway_answers() {
  curl -sf "http://127.0.0.1:$gport/v1/info" >/dev/null 2>&1
}

wait_for() {
  local what="$1" check="$2" out="$3" _
  for _ in $(seq 1 240); do
    if "$check"; then return 0; fi
    sleep 0.5
  done
  echo "flink.sh: the $what did not answer within 120 s; last lines of $out:" >&2
  tail -n 30 "$out" >&2 || true
  echo "flink.sh: (scripts/flink.sh stop stops what did start)" >&2
  exit 1
}

daemon_running() {
  local f="$FLINK_PID_DIR/flink-$FLINK_IDENT_STRING-$1.pid" p
  [ -f "$f" ] || return 1
  while read -r p; do kill -0 "$p" 2>/dev/null && return 0; done < "$f"
  return 1
}

start() {
  command -v java >/dev/null || { echo "flink.sh: Java 17 is needed to run Apache Flink" >&2; exit 1; }
  command -v curl >/dev/null || { echo "flink.sh: curl is needed" >&2; exit 1; }
  if [ -z "${JAVA_HOME:-}" ]; then
    JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
    export JAVA_HOME
  fi
  install_flink
  fetch
  local fh d
  fh="$(flink_home)"
  mkdir -p "$home" "$FLINK_PID_DIR"
  # PID files of JVMs that are gone would make Flink's scripts number the logs -1, -2, ...
  for d in $daemons; do daemon_running "$d" || rm -f "$FLINK_PID_DIR/flink-$FLINK_IDENT_STRING-$d.pid"; done
  if daemon_running standalonesession && cluster_answers; then
    echo "flink.sh: the cluster is already running (REST 127.0.0.1:$port, pid $(cat "$FLINK_PID_DIR/flink-$FLINK_IDENT_STRING-standalonesession.pid"))"
  elif cluster_answers; then
    echo "flink.sh: a Flink cluster this script did not start already answers on 127.0.0.1:$port; using it as it is (set FLINK_REST_PORT to start one on another port)"
  else
    if running; then
      echo "flink.sh: the cluster started here is only partly up; stopping it to start afresh" >&2
      stop >&2
    fi
    layout "$fh"
    "$fh/bin/start-cluster.sh" >>"$log" 2>&1
    wait_for "Flink cluster (REST 127.0.0.1:$port)" cluster_answers "$FLINK_LOG_DIR"/flink-"$FLINK_IDENT_STRING"-standalonesession-0-*.log
  fi
  if daemon_running sql-gateway && gateway_answers; then
    echo "flink.sh: the SQL Gateway is already running (127.0.0.1:$gport)"
  elif gateway_answers; then
    echo "flink.sh: a SQL Gateway this script did not start already answers on 127.0.0.1:$gport; using it as it is (set FLINK_GATEWAY_PORT to start one on another port)"
  else
    [ -f "$FLINK_CONF_DIR/config.yaml" ] || layout "$fh"
    "$fh/bin/sql-gateway.sh" start -Dsql-gateway.endpoint.rest.address=127.0.0.1 \
      -Dsql-gateway.endpoint.rest.port="$gport" >>"$log" 2>&1
    wait_for "SQL Gateway (127.0.0.1:$gport)" gateway_answers "$FLINK_LOG_DIR"/flink-"$FLINK_IDENT_STRING"-sql-gateway-0-*.log
  fi
  echo "flink.sh: Flink $flink_version up: REST and web UI http://127.0.0.1:$port, SQL Gateway http://127.0.0.1:$gport (pids $(pids | tr '\n' ' ')logs $FLINK_LOG_DIR)"
}

stop() {
  if ! running; then echo "flink.sh: not running"; rm -f "$FLINK_PID_DIR"/*.pid; return; fi
  local p left
  for p in $(pids); do kill "$p" 2>/dev/null || true; done
  for _ in $(seq 1 60); do
    left=""
    for p in $(pids); do kill -0 "$p" 2>/dev/null && left="$left $p"; done
    if [ -z "$left" ]; then rm -f "$FLINK_PID_DIR"/*.pid; echo "flink.sh: stopped"; return; fi
    sleep 0.5
  done
  for p in $left; do kill -9 "$p" 2>/dev/null || true; done
  rm -f "$FLINK_PID_DIR"/*.pid
  echo "flink.sh: killed$left after 30 s"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  status)
    if cluster_answers && gateway_answers; then
      echo "running: REST 127.0.0.1:$port, SQL Gateway 127.0.0.1:$gport"
    else
      echo "not running (REST $(cluster_answers && echo up || echo down), SQL Gateway $(gateway_answers && echo up || echo down))"; exit 1
    fi ;;
  *) echo "usage: scripts/flink.sh start|stop|restart|status" >&2; exit 2 ;;
esac
