#!/usr/bin/env bash
# The Python package's tests: builds the `lowwater` package from crates/python
# with pip (maturin, the build backend, comes from PyPI) into a virtual
# environment made here, then runs its pytest tests, which compare it with
# the CLI ($LOWWATER_BIN, else the debug build wherever cargo puts it:
# $CARGO_TARGET_DIR, or the workspace's target directory).
#
# The package is built with the dev profile, which reuses what `cargo test`
# has compiled (MATURIN_PEP517_ARGS="" builds the release wheel a user gets).
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${LOWWATER_PYTEST_ENV:-$HOME/.cache/lowwater/pytest-env}"
command -v python3 >/dev/null 2>&1 || { echo "python-tests.sh: python3 (3.9 or newer) is needed" >&2; exit 1; }
[ -x "$dir/bin/python" ] || python3 -m venv "$dir"
"$dir/bin/pip" install -q --disable-pip-version-check "pytest==9.2.0"
echo "== python-tests.sh: building the lowwater package into $dir" >&2
MATURIN_PEP517_ARGS="${MATURIN_PEP517_ARGS---profile dev}" \
  "$dir/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps ./crates/python
export LOWWATER_BIN="${LOWWATER_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/lowwater}"
[ -x "$LOWWATER_BIN" ] || cargo build -q -p lowwater
exec "$dir/bin/python" -m pytest -q crates/python/tests "$@"
