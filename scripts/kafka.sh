#!/usr/bin/env bash
# Starts and stops a real single-node Apache Kafka broker (KRaft mode) on
# 127.0.0.1 for lowwater's Kafka tests and for trying lowwater locally.
#
#   scripts/kafka.sh start    fetch the jars with Maven (cached), format, start, wait until it answers
#                             (a broker already answering on the port is used as it is)
#   scripts/kafka.sh stop     stop the broker started here (by its PID)
#   scripts/kafka.sh restart  stop, then start again with the same data (a broker restart);
#                             never one this script did not start
#   scripts/kafka.sh status   say whether it runs
#   scripts/kafka.sh create TOPIC [PARTITIONS]
#                             create a topic (default 1 partition; nothing if it exists): lowwater
#                             refuses to write to a topic that does not exist
#
# Environment: KAFKA_PORT (default 19092; the controller uses +1, a SASL_SSL
# listener +2), LOWWATER_KAFKA_HOME (default ~/.cache/lowwater/kafka: jars,
# data, log, pid, TLS files).
#
# The SASL_SSL listener (127.0.0.1:KAFKA_PORT+2) takes SASL/PLAIN user
# alice / alice-secret and SCRAM-SHA-256 and -512 user bob / bob-secret; its
# self-signed certificate (for 127.0.0.1 and localhost) is made at the first
# start with keytool, and $LOWWATER_KAFKA_HOME/tls/ca.pem is the file a client
# trusts ('properties.ssl.truststore.location', type PEM).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
home="${LOWWATER_KAFKA_HOME:-$HOME/.cache/lowwater/kafka}"
port="${KAFKA_PORT:-19092}"
cport=$((port + 1))
sport=$((port + 2))
tls="$home/tls"
libs="$home/libs"
data="$home/data-$port"
pidfile="$home/broker-$port.pid"
log="$home/broker-$port.log"

fetch() {
  if [ -f "$libs/.complete" ]; then return; fi
  command -v mvn >/dev/null || { echo "kafka.sh: Maven (mvn) is needed to fetch Apache Kafka" >&2; exit 1; }
  mkdir -p "$libs"
  echo "kafka.sh: fetching Apache Kafka jars into $libs" >&2
  (cd "$here/kafka" && mvn -q -B dependency:copy-dependencies -DoutputDirectory="$libs") >&2
  touch "$libs/.complete"
}

running() {
  [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

answers() {
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
}

# A self-signed certificate for the SASL_SSL listener, made once.
certificates() {
  if [ -f "$tls/ca.pem" ]; then return; fi
  mkdir -p "$tls"
  rm -f "$tls/broker.p12"
  keytool -genkeypair -keystore "$tls/broker.p12" -storetype PKCS12 -storepass lowwater \
    -keypass lowwater -alias broker -keyalg RSA -keysize 2048 -validity 3650 \
    -dname "CN=localhost" -ext "SAN=ip:127.0.0.1,dns:localhost" >/dev/null 2>&1
  keytool -exportcert -rfc -keystore "$tls/broker.p12" -storetype PKCS12 -storepass lowwater \
    -alias broker -file "$tls/ca.pem" >/dev/null 2>&1
}

# SCRAM users (idempotent; a restart keeps them).
scram_users() {
  local cp="$libs/*"
  for mech in SCRAM-SHA-256 SCRAM-SHA-512; do
    if ! java -cp "$cp" org.apache.kafka.tools.ConfigCommand --bootstrap-server "127.0.0.1:$port" --alter \
      --add-config "$mech=[password=bob-secret]" --entity-type users --entity-name bob >>"$log" 2>&1; then
      echo "kafka.sh: could not create the SCRAM user bob ($mech); see $log" >&2
    fi
  done
}

start() {
  if running; then echo "kafka.sh: already running on 127.0.0.1:$port (pid $(cat "$pidfile"))"; return; fi
  if answers; then
    echo "kafka.sh: something this script did not start already answers on 127.0.0.1:$port; using it as it is (set KAFKA_PORT to start a broker on another port)"
    return
  fi
  command -v java >/dev/null || { echo "kafka.sh: Java 17+ is needed to run Apache Kafka" >&2; exit 1; }
  fetch
  certificates
  mkdir -p "$data"
  cat > "$home/server-$port.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport,SASL_SSL://127.0.0.1:$sport
advertised.listeners=PLAINTEXT://127.0.0.1:$port,SASL_SSL://127.0.0.1:$sport
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
ssl.keystore.location=$tls/broker.p12
ssl.keystore.type=PKCS12
ssl.keystore.password=lowwater
ssl.key.password=lowwater
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
log.dirs=$data
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
# The brokers look for transactions older than their timeout every second
# (10 s by default), so that the test of an expired transaction is short.
transaction.abort.timed.out.transaction.cleanup.interval.ms=1000
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# Fixtures and benches carry historical record timestamps (2025); time-based
# retention would delete them minutes after they are written.
log.retention.ms=-1
# Client quotas (the throttled-consumer test) are measured over 2 windows of
# 1 s, not 11: a consumer's first burst is then about one second of its
# quota, not eleven, and a throttle lasts about a second, so consumers that
# share a client id take turns instead of one starving the other for the
# length of a short test.
quota.window.num=2
PROPS
  local cp="$libs/*"
  local id
  # Format the storage once; a restart keeps the topics (and the cluster id).
  if [ ! -f "$data/meta.properties" ]; then
    id="$(java -cp "$cp" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)"
    java -cp "$cp" kafka.tools.StorageTool format -t "$id" -c "$home/server-$port.properties" >>"$log" 2>&1
  fi
  nohup java -Xms256m -Xmx768m -cp "$cp" kafka.Kafka "$home/server-$port.properties" >>"$log" 2>&1 &
  echo $! > "$pidfile"
  # A broker on a loaded or cold machine can take well over a minute (the
  # JVM warms up, the SSL listener loads its keystore): wait up to 4 minutes,
  # saying every 30 s what the broker last logged, and on a timeout print its
  # log and a thread dump so that the cause is in the CI output.
  local waited=0
  while [ "$waited" -lt 480 ]; do
    if answers; then
      scram_users
      echo "kafka.sh: broker up on 127.0.0.1:$port, SASL_SSL on $sport (pid $(cat "$pidfile"), log $log, $((waited / 2)) s)"
      return
    fi
    if ! running; then echo "kafka.sh: the broker exited; last lines of $log:" >&2; tail -n 20 "$log" >&2; exit 1; fi
    sleep 0.5
    waited=$((waited + 1))
    if [ $((waited % 60)) = 0 ]; then
      echo "kafka.sh: still waiting for the broker after $((waited / 2)) s; it last logged: $(tail -n 1 "$log" | cut -c1-300)" >&2
    fi
  done
  echo "kafka.sh: the broker did not answer on 127.0.0.1:$port within 240 s; last lines of $log:" >&2
  tail -n 40 "$log" >&2
  if command -v jcmd >/dev/null; then
    echo "kafka.sh: the broker's threads:" >&2
    jcmd "$(cat "$pidfile")" Thread.print 2>&1 | head -n 200 >&2 || true
  fi
  kill -9 "$(cat "$pidfile")" 2>/dev/null || true
  rm -f "$pidfile"
  exit 1
}

stop() {
  if ! running; then echo "kafka.sh: not running"; rm -f "$pidfile"; return; fi
  local pid
  pid="$(cat "$pidfile")"
  kill "$pid"
  for _ in $(seq 1 60); do
    if ! kill -0 "$pid" 2>/dev/null; then rm -f "$pidfile"; echo "kafka.sh: stopped"; return; fi
    sleep 0.5
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$pidfile"
  echo "kafka.sh: killed after 30 s"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart)
    if ! running && answers; then
      echo "kafka.sh: the broker on 127.0.0.1:$port was not started by this script; not restarting it" >&2
      exit 1
    fi
    stop; start ;;
  status) if running && answers; then echo "running on 127.0.0.1:$port"; else echo "not running"; exit 1; fi ;;
  create)
    topic="${2:?usage: scripts/kafka.sh create TOPIC [PARTITIONS]}"
    answers || { echo "kafka.sh: no broker answers on 127.0.0.1:$port (scripts/kafka.sh start)" >&2; exit 1; }
    java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$libs/*" org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$port" \
      --create --if-not-exists --topic "$topic" --partitions "${3:-1}" --replication-factor 1 ;;
  *) echo "usage: scripts/kafka.sh start|stop|restart|status|create TOPIC [PARTITIONS]" >&2; exit 2 ;;
esac
