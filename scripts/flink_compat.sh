#!/usr/bin/env bash
# Regenerates compat/expected/ from real Apache Flink 2.3 (PyFlink from
# PyPI, Java 17): `scripts/flink_compat.sh [CASE ...]`; another suite of the
# same layout with `--root DIR` (compat/generated, from scripts/compat_gen.py),
# many cases per Flink job with `--batch N`. The venv is made once
# under $LOWWATER_FLINKENV (default ~/.cache/lowwater/flinkenv). CI does not
# run this; it compares lowwater's rows with the stored ones
# (`cargo test -p lowwater-replay --test flink_compat`).
set -euo pipefail
dir="${LOWWATER_FLINKENV:-$HOME/.cache/lowwater/flinkenv}"
if [ ! -x "$dir/bin/python" ] || ! "$dir/bin/python" -c "import pyflink" 2>/dev/null; then
  python3 -m venv "$dir"
  "$dir/bin/pip" install -q --disable-pip-version-check apache-flink==2.3.0
fi
if [ -z "${JAVA_HOME:-}" ]; then
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
  export JAVA_HOME
fi
exec "$dir/bin/python" "$(dirname "$0")/flink_compat.py" "$@" 2> >(grep -v -E '^(WARNING|SLF4J)' >&2)
