#!/usr/bin/env bash
# The test command of README's Quick start. On a fresh machine of the
# Debian kind it sets up what the tests use, then runs every test:
#   - OpenSSL's headers and pkg-config (librdkafka is built with TLS),
#   - Chromium (the web page is tested in a real headless browser),
#   - Prometheus (the alerting rules and dashboard queries run on a real one),
#   - a real Apache Kafka broker (scripts/kafka.sh: Java 17 and Maven),
#   - a real PostgreSQL server (scripts/postgres.sh: Debian's postgresql),
#   - a real Apache Flink 2.3 cluster and its SQL Gateway (scripts/flink.sh:
#     Flink from PyPI, its gateway and Kafka connector jars from Maven),
#   - the Python clients of the format tests (scripts/pyenv.sh, pip).
# Each step is skipped when its part is already there. Before the brokers
# start, it checks that the modules of every crate import no cycle
# (scripts/module_cycles.py). Then every Rust test,
# and the Python package's pytest tests (scripts/python-tests.sh: the package
# built with pip into a virtual environment). Extra arguments go to
# `cargo test` (e.g. `scripts/test.sh -p lowwater-replay`), and then the
# Python tests are left out.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: $* is needed and this machine has no apt-get; install it and run again" >&2
    exit 1
  fi
  local sudo_cmd=""
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then sudo_cmd="sudo"; fi
  echo "== test.sh: installing $* (Debian packages)" >&2
  $sudo_cmd apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$@" >/dev/null
}

command -v cargo >/dev/null 2>&1 || { echo "test.sh: cargo (Rust 1.89 or newer) is needed" >&2; exit 1; }
pkg-config --exists openssl 2>/dev/null || apt_install libssl-dev pkg-config
command -v chromium >/dev/null 2>&1 || apt_install chromium
command -v promtool >/dev/null 2>&1 || apt_install prometheus
command -v curl >/dev/null 2>&1 || apt_install curl   # scripts/flink.sh asks Flink if it is up
for tool in java mvn python3; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "test.sh: $tool is needed (Java 17 and Maven run the Kafka broker; Python makes the format tests' clients)" >&2
    exit 1
  }
done
# The modules of every crate import no cycle (checked first: it takes a
# second, the brokers below take minutes).
for src in crates/*/src; do
  python3 scripts/module_cycles.py "$src" >&2 || {
    echo "test.sh: the modules of $src import each other in a cycle (above); move what the back edge uses into the lower module or a leaf" >&2
    exit 1
  }
done
bash scripts/kafka.sh start >&2
bash scripts/postgres.sh start >&2
bash scripts/flink.sh start >&2
bash scripts/pyenv.sh >/dev/null
cargo test --workspace --locked "$@"
if [ $# -eq 0 ]; then
  bash scripts/python-tests.sh
fi
