#!/usr/bin/env bash
# Prints the path of a Python with the client libraries the Avro tests use
# to write and read records as real producers do: confluent-kafka (its
# AvroSerializer / AvroDeserializer and Schema Registry client) and fastavro
# (plain Avro). Made once under $LOWWATER_PYENV (default
# ~/.cache/lowwater/pyenv) with pip from PyPI; pinned versions.
set -euo pipefail
dir="${LOWWATER_PYENV:-$HOME/.cache/lowwater/pyenv}"
want="confluent-kafka[avro,schemaregistry]==2.16.1 fastavro==1.13.1"
if [ ! -x "$dir/bin/python" ] || [ "$(cat "$dir/.installed" 2>/dev/null)" != "$want" ]; then
  python3 -m venv "$dir" >&2
  # shellcheck disable=SC2086
  "$dir/bin/pip" install -q --disable-pip-version-check $want >&2
  echo "$want" > "$dir/.installed"
fi
echo "$dir/bin/python"
