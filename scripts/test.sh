#!/usr/bin/env bash
# The test command: installs what the tests need (a Python venv with the pinned python-chess
# oracle and DuckDB), then runs the Rust tests, the differential test against python-chess, a
# benchmark smoke run, the README's quick start and the crash tests; last, the same command on a
# fresh clone with nothing beside it (scripts/fresh-clone.sh).
#
# The shared corpus (THREEFOLD_CORPUS, else ../shared/corpus) is used where it is; where it is
# not, the parts that need it are skipped, each with a `skipped:` line, and listed at the end.
# THREEFOLD_REQUIRE_CORPUS=1 (set by .ci/run) makes a missing corpus a failure instead.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
source tests/corpus.sh
started=$SECONDS

mkdir -p target
export THREEFOLD_SKIP_LOG="$root/target/skipped.txt"
: > "$THREEFOLD_SKIP_LOG"
if [ -d "$corpus" ]; then
  echo "test command: corpus at $corpus"
elif [ "${THREEFOLD_REQUIRE_CORPUS:-}" = 1 ]; then
  echo "test command: corpus not found at $corpus and THREEFOLD_REQUIRE_CORPUS=1" >&2; exit 1
else
  echo "test command: corpus not found at $corpus; the parts that need it are skipped (set THREEFOLD_CORPUS)"
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
reqs=(-r tests/oracle/requirements.txt)
[ -f tests/requirements.txt ] && reqs+=(-r tests/requirements.txt)
.venv/bin/pip install --quiet --disable-pip-version-check "${reqs[@]}"
export THREEFOLD_PYTHON="$PWD/.venv/bin/python"

# Style first: rustfmt (rustfmt.toml) and clippy with every warning an error.
cargo fmt --check
cargo clippy --all-targets --locked --quiet -- -D warnings
# The product alone too (without the tests' `internals` feature: nothing left unused there).
cargo clippy --locked --quiet -- -D warnings

cargo build --release --locked
cargo test --release --locked
# The engine's tests once more with debug assertions on (SAN reading and resolution, the
# incremental Zobrist key) and overflow checks: the `checked` profile (Cargo.toml).
cargo test --profile checked --locked --lib --test golden --test property --test san_agrees

# Fuzz smoke: about a minute per target (long runs are by hand: fuzz/run.sh TARGET SECONDS). Run
# once, not again in the fresh clone.
if [ "${THREEFOLD_IN_FRESH_CLONE:-}" = 1 ]; then
  echo "fuzz smoke: ran in the tree this clone was made from"
else
  if ! command -v cargo-fuzz > /dev/null; then
    echo "installing cargo-fuzz (cargo install)"
    cargo install --locked --quiet cargo-fuzz@0.13.2
  fi
  # A fixed seed and number of runs from a fresh corpus folder: the same inputs every time (about
  # a minute each), so that a failure is the code's, not the draw's.
  for target in pgn_to_events compressed_input; do
    rm -rf "target/fuzz-corpus-$target"
    runs=3000; [ "$target" = compressed_input ] && runs=20000
    FUZZ_RUNS=$runs FUZZ_SEED=1 FUZZ_CORPUS="$root/target/fuzz-corpus-$target" \
      bash fuzz/run.sh "$target" 60 > "target/fuzz-$target.log" 2>&1 ||
      { tail -n 60 "target/fuzz-$target.log"; echo "fuzz smoke: $target found a crash (fuzz/artifacts/$target/)"; exit 1; }
    echo "fuzz smoke: $target $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "target/fuzz-$target.log" | tail -n 1): 1 passed, 0 failed"
  done
fi
# Every game of every corpus file against the python-chess oracle (whose output is cached by
# content outside the repository: about 13 minutes the first time, a minute after); without the
# corpus, the rule fixtures and data-samples/.
if [ -d "$corpus" ]; then
  bash tests/oracle/differential.sh --all
else
  bash tests/oracle/differential.sh
fi

# Benchmark smoke run (the full benchmark is bench/run.sh, not a test).
smoke=(--smoke)
if ! have_corpus "the benchmark smoke run on corpus files (on data-samples/ instead)"; then
  smoke+=(--corpus data-samples)
  export BENCH_FILES="lichess_db_standard_rated_2013-01-first300.pgn tcec-chess960-game35.pgn"
fi
bash bench/run.sh "${smoke[@]}" > target/bench-smoke.txt 2>&1 || { cat target/bench-smoke.txt; exit 1; }
unset BENCH_FILES
tail -n 1 target/bench-smoke.txt

# The README's quick start must run as written on a fresh clone.
sed -n '/<!-- quickstart/,/^```$/p' README.md | sed '1,2d;$d' > target/quickstart.sh
bash -euo pipefail target/quickstart.sh > target/quickstart.out
grep -q "karpov_miles_tilburg_1986" target/quickstart.out
echo "README quick start: 1 passed, 0 failed"

# Reliability: SIGKILL at random moments, and a full disk.
bash tests/crash/sigkill.sh 20
bash tests/crash/disk_full.sh
bash tests/crash/resume.sh

# Sharded runs (--shard K/N): one after another, N = 3 and 4, against an unsharded run; then for
# real on a single-node Slurm (installed when missing; it says why when it cannot run: not root,
# no apt). Slurm runs once, not again in the fresh clone.
bash tests/shard/sequential.sh
if [ "${THREEFOLD_IN_FRESH_CLONE:-}" = 1 ]; then
  echo "slurm test: ran in the tree this clone was made from"
else
  bash tests/slurm/run.sh
fi

# The report page in a real browser: headless Chromium (installed when missing), no console error,
# every chart drawn, nothing clipped on A4; screenshots under target/.
bash tests/browser/run.sh

# The same command on a clone with no corpus beside it (not again inside that clone).
if [ "${THREEFOLD_IN_FRESH_CLONE:-}" != 1 ]; then
  bash scripts/fresh-clone.sh
fi

if [ -s "$THREEFOLD_SKIP_LOG" ]; then
  echo "skipped, corpus not found at $corpus (set THREEFOLD_CORPUS to run them):"
  sed 's/^skipped: /  - /; s/ (corpus not found at .*//' "$THREEFOLD_SKIP_LOG" | sort -u
fi
echo "test command: passed in $((SECONDS - started)) s"
