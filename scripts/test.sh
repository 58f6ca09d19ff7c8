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

# Benchmark smoke run (the full benchmark is bench/run.sh, not a test).
bash bench/run.sh --smoke > target/bench-smoke.txt 2>&1 || { cat target/bench-smoke.txt; exit 1; }
tail -n 1 target/bench-smoke.txt

# The README's quick start must run as written on a fresh clone.
sed -n '/<!-- quickstart/,/^```$/p' README.md | sed '1,2d;$d' > target/quickstart.sh
bash -euo pipefail target/quickstart.sh > target/quickstart.out
grep -q "karpov_miles_tilburg_1986" target/quickstart.out
echo "README quick start: 1 passed, 0 failed"

# Reliability: SIGKILL at random moments, and a full disk.
bash tests/crash/sigkill.sh 20
bash tests/crash/disk_full.sh
