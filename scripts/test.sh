#!/usr/bin/env bash
# The test command: installs what the tests need (a Python venv with the pinned python-chess
# oracle and DuckDB), then runs the Rust tests and the differential test against python-chess.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
reqs=(-r tests/oracle/requirements.txt)
[ -f tests/requirements.txt ] && reqs+=(-r tests/requirements.txt)
.venv/bin/pip install --quiet --disable-pip-version-check "${reqs[@]}"
export THREEFOLD_PYTHON="$PWD/.venv/bin/python"

cargo build --release --locked
cargo test --release --locked
bash tests/oracle/differential.sh
