#!/usr/bin/env bash
# Starts and stops a real PostgreSQL server on 127.0.0.1 for lowwater's JDBC
# sink tests and for trying the sink locally (Debian's `postgresql` package,
# installed when missing).
#
#   scripts/postgres.sh start    install if needed, initialise once, start, wait until it answers
#                                (a server already answering on the port is used as it is)
#   scripts/postgres.sh stop     stop the server started here (fast shutdown: sessions are cut)
#   scripts/postgres.sh restart  stop, then start with the same data
#   scripts/postgres.sh status   say whether it runs
#   scripts/postgres.sh psql [ARGS...]
#                                psql as the user lowwater on the database lowwater
#   scripts/postgres.sh url      print the JDBC URL ('url' option of a jdbc table)
#
# The server has a database `lowwater` owned by the user `lowwater`, password
# `lowwater-secret` (password authentication, scram-sha-256, over TCP), and a
# superuser `postgres` without a password, reachable only through the data
# directory's socket.
#
# Environment: PG_PORT (default 15432), LOWWATER_PG_HOME (default
# ~/.cache/lowwater/postgres, /var/tmp/lowwater-postgres as root: data, log).
set -euo pipefail

port="${PG_PORT:-15432}"
# As root the server runs as `postgres`, which cannot enter /root: its files
# are kept under /var/tmp then.
if [ "$(id -u)" = 0 ]; then default_home=/var/tmp/lowwater-postgres; else default_home="$HOME/.cache/lowwater/postgres"; fi
home="${LOWWATER_PG_HOME:-$default_home}"
data="$home/data-$port"
sock="$home/sock-$port"
log="$home/server-$port.log"

bindir() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/pg_ctl" ]; then echo "$d"; return; fi
  done
  if command -v pg_ctl >/dev/null; then dirname "$(command -v pg_ctl)"; return; fi
  return 1
}

install() {
  if bindir >/dev/null; then return; fi
  echo "postgres.sh: installing PostgreSQL (Debian package postgresql)" >&2
  local sudo_cmd=""
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq postgresql >/dev/null
  # The package starts its own cluster on 5432; ours is separate.
  bindir >/dev/null || { echo "postgres.sh: PostgreSQL's binaries were not found after the install" >&2; exit 1; }
}

# PostgreSQL refuses to run as root: as root, the server runs as `postgres`.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

answers() {
  "$(bindir)/pg_isready" -q -h 127.0.0.1 -p "$port" >/dev/null 2>&1
}

running() {
  [ -f "$data/postmaster.pid" ] && as_owner "$(bindir)/pg_ctl" -D "$data" status >/dev/null 2>&1
}

init() {
  if [ -f "$data/PG_VERSION" ]; then return; fi
  mkdir -p "$home"
  if [ "$(id -u)" = 0 ]; then chown postgres "$home"; chmod 755 "$home"; fi
  # The superuser has no password: it can only come through the data
  # directory's socket (trust), never over TCP (scram-sha-256).
  as_owner "$(bindir)/initdb" -D "$data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 >>"$log" 2>&1 || {
    echo "postgres.sh: initdb failed; see $log" >&2; exit 1; }
  cat >>"$data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$sock'
fsync = on
max_connections = 100
CONF
  }

start() {
  install
  if running; then echo "postgres.sh: already running on 127.0.0.1:$port"; return; fi
  if answers; then
    echo "postgres.sh: something this script did not start answers on 127.0.0.1:$port; using it as it is (set PG_PORT to start one on another port)"
    return
  fi
  init
  mkdir -p "$sock"
  if [ "$(id -u)" = 0 ]; then chown postgres "$sock" "$log" 2>/dev/null || true; fi
  touch "$log"
  if [ "$(id -u)" = 0 ]; then chown postgres "$log"; fi
  as_owner "$(bindir)/pg_ctl" -D "$data" -l "$log" -w -t 120 start >/dev/null || {
    echo "postgres.sh: the server did not start; last lines of $log:" >&2; tail -n 20 "$log" >&2; exit 1; }
  # The user and database, made when missing (every start: a start that
  # failed half way is mended by the next).
  as_owner "$(bindir)/psql" -q -h "$sock" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 >>"$log" 2>&1 <<'SQL' || {
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'lowwater') THEN
    CREATE ROLE lowwater LOGIN PASSWORD 'lowwater-secret';
  END IF;
END $$;
SELECT 'CREATE DATABASE lowwater OWNER lowwater'
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'lowwater') \gexec
SQL
    echo "postgres.sh: could not create the user and database; see $log" >&2; exit 1; }
  echo "postgres.sh: up on 127.0.0.1:$port (database lowwater, user lowwater; log $log)"
}

stop() {
  if ! running; then echo "postgres.sh: not running"; return; fi
  as_owner "$(bindir)/pg_ctl" -D "$data" -m fast -w -t 60 stop >/dev/null
  echo "postgres.sh: stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  status) if answers; then echo "running on 127.0.0.1:$port"; else echo "not running"; exit 1; fi ;;
  psql)
    shift
    PGPASSWORD=lowwater-secret "$(bindir)/psql" -h 127.0.0.1 -p "$port" -U lowwater -d lowwater "$@" ;;
  url) echo "jdbc:postgresql://127.0.0.1:$port/lowwater" ;;
  *) echo "usage: scripts/postgres.sh start|stop|restart|status|psql [ARGS]|url" >&2; exit 2 ;;
esac
