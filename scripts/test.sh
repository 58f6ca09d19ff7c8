#!/usr/bin/env bash
# The test command: installs what the tests need (a Python venv with the pinned python-chess
# oracle and DuckDB; cargo-fuzz, Chromium, Slurm and pgn-extract when missing), then runs each
# part below, timed, and closes with a table of every part's seconds and the list of what was
# skipped, each with its reason.
#
# The shared corpus (THREEFOLD_CORPUS, else ../shared/corpus) is used where it is. A part that
# cannot run here (no corpus, a tool that cannot be installed) prints a `skipped:` line on a
# contributor's machine; with THREEFOLD_REQUIRE_ALL=1, which .ci/run sets, it fails the run
# (tests/corpus.sh), so that CI is green only when every part ran.
#
# Last, the cargo tests run once more as on a contributor's plain clone, where no corpus is
# beside the project: every test that needs it must skip loudly, with its reason, and pass.
# That is all a clone changes: CI runs this command on a clean clone already, and the build, the
# quick start and the differential test's corpus-free inputs ran above. (By hand,
# scripts/fresh-clone.sh runs this command on a clone of the working tree with nothing beside
# it, THREEFOLD_IN_FRESH_CLONE=1: the build, cargo tests, quick start and corpus-free
# differential test.)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
source tests/corpus.sh
started=$SECONDS
in_clone="${THREEFOLD_IN_FRESH_CLONE:-}"

mkdir -p target
export THREEFOLD_SKIP_LOG="$root/target/skipped.txt"
: > "$THREEFOLD_SKIP_LOG"
timing="$root/target/test-timing.txt"
: > "$timing"
# `part NAME FUNCTION`: one timed part (its seconds go to the closing table). By hand,
# THREEFOLD_PARTS="cargo_tests differential ..." runs only the parts whose functions it names.
part() {
  if [ -n "${THREEFOLD_PARTS:-}" ] && [[ " $THREEFOLD_PARTS " != *" $2 "* ]]; then return 0; fi
  local t0=$SECONDS
  echo "== $1"
  "$2"
  printf '%s\t%s\n' "$1" "$((SECONDS - t0))" >> "$timing"
}

if [ -d "$corpus" ]; then
  echo "test command: corpus at $corpus"
else
  have_corpus "every part's corpus files" || true
fi

setup() {
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
  fi
  local reqs=(-r tests/oracle/requirements.txt)
  [ -f tests/requirements.txt ] && reqs+=(-r tests/requirements.txt)
  .venv/bin/pip install --quiet --disable-pip-version-check "${reqs[@]}"
}
export THREEFOLD_PYTHON="$PWD/.venv/bin/python"

# Style: rustfmt (rustfmt.toml) and clippy with every warning an error (`unreachable_pub` too:
# Cargo.toml's lints), over every crate of the workspace.
style() {
  cargo fmt --all --check
  cargo clippy --workspace --all-targets --locked --quiet -- -D warnings
}

build() { cargo build --release --locked; }
# Every cargo test (three test binaries: engine, cli, report) once, built with the `checked`
# profile (Cargo.toml): release code with threefold's debug assertions (SAN reading and
# resolution, the incremental Zobrist key) and overflow checks on. Its dependencies compile apart
# from the release build's, so one set of tests rather than two is what that costs.
cargo_tests() { cargo test --workspace --profile checked --locked; }

# Fuzz smoke: a fixed seed and number of runs from a fresh corpus folder, the same inputs every
# time (about a minute each), so that a failure is the code's, not the draw's. Long runs are by
# hand: fuzz/run.sh TARGET SECONDS.
fuzz_smoke() {
  if ! command -v cargo-fuzz > /dev/null; then
    skipped "fuzz smoke" "cargo-fuzz is missing (tests/tools.sh installs it)"
    return 0
  fi
  local target runs
  for target in pgn_to_events compressed_input; do
    rm -rf "target/fuzz-corpus-$target"
    runs=3000; [ "$target" = compressed_input ] && runs=20000
    FUZZ_RUNS=$runs FUZZ_SEED=1 FUZZ_CORPUS="$root/target/fuzz-corpus-$target" \
      bash fuzz/run.sh "$target" 60 > "target/fuzz-$target.log" 2>&1 ||
      { tail -n 60 "target/fuzz-$target.log"; echo "fuzz smoke: $target found a crash (fuzz/artifacts/$target/)"; exit 1; }
    echo "fuzz smoke: $target $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "target/fuzz-$target.log" | tail -n 1): 1 passed, 0 failed"
  done
}

# Every game of every corpus file against the python-chess oracle; without the corpus, the rule
# fixtures, data-samples/ and generated games. An input whose records were verified before is
# found in tests/oracle/verified.tsv; the oracle's outputs are also cached by content outside the
# repository (tests/oracle/README.md "Ledger", "Cache").
differential() {
  if [ -d "$corpus" ]; then
    bash tests/oracle/differential.sh --all
  else
    have_corpus "the differential test on corpus files (rule fixtures, samples and generated games only)" || true
    bash tests/oracle/differential.sh
  fi
}

# Benchmark smoke run (the full benchmark is bench/run.sh, not a test).
bench_smoke() {
  local smoke=(--smoke)
  if ! have_corpus "the benchmark smoke run on corpus files (on data-samples/ instead)"; then
    smoke+=(--corpus data-samples)
    export BENCH_FILES="lichess_db_standard_rated_2013-01-first300.pgn tcec-chess960-game35.pgn"
  fi
  bash bench/run.sh "${smoke[@]}" > target/bench-smoke.txt 2>&1 || { cat target/bench-smoke.txt; exit 1; }
  unset BENCH_FILES
  tail -n 1 target/bench-smoke.txt
}

# The README's quick start must run as written on a fresh clone.
quickstart() {
  sed -n '/<!-- quickstart/,/^```$/p' README.md | sed '1,2d;$d' > target/quickstart.sh
  bash -euo pipefail target/quickstart.sh > target/quickstart.out
  # What it prints must be tests/quickstart.expected (the DuckDB and polars tables, the explain
  # text), and its figures must be the dataset's by queries of their own over the Parquet files
  # (tests/quickstart_check.py; not views.sql or summary columns).
  diff tests/quickstart.expected target/quickstart.out ||
    { echo "README quick start: FAILED, its output differs from tests/quickstart.expected"; exit 1; }
  "$THREEFOLD_PYTHON" tests/quickstart_check.py dataset target/quickstart.out > target/quickstart-check.out ||
    { cat target/quickstart-check.out; echo "README quick start: FAILED, its figures are not the dataset's"; exit 1; }
  echo "README quick start: 1 passed, 0 failed"
}

# The Python package (pyproject.toml, python/threefold/): the wheel from the release build above,
# installed into fresh venvs without Rust, the module against the command, and the README's
# Python quick start.
python_package() {
  bash tests/harness/python/run.sh > target/python-package.out 2>&1 || { cat target/python-package.out; exit 1; }
  grep -E '^(python package: (wheel |the wheel.s binary)|notebook: executed)' target/python-package.out
  tail -n 1 target/python-package.out
}

# Reliability: SIGKILL at random moments, and a full disk.
crash() {
  bash tests/harness/crash/sigkill.sh 20
  bash tests/harness/crash/disk_full.sh
  bash tests/harness/crash/resume.sh
}

# Sharded runs (--shard K/N): one after another, N = 3 and 4, against an unsharded run; then for
# real on a single-node Slurm (installed when missing).
shards() { bash tests/harness/shard/sequential.sh; }
slurm() { bash tests/harness/slurm/run.sh; }

# The report page and explain's page with boards in a real browser: headless Chromium (installed
# when missing), no console error, every chart and board drawn, nothing clipped on A4; screenshots
# under target/.
browser() { bash tests/harness/browser/run.sh; }

# The cargo tests with the corpus out of reach (THREEFOLD_CORPUS names a folder that is not
# there, THREEFOLD_REQUIRE_ALL unset): the compiled tests of the part above, run again, so
# nothing is built. Passes when they pass and every skip names its reason.
without_corpus() {
  local log="$root/target/without-corpus.log"
  env -u THREEFOLD_REQUIRE_ALL THREEFOLD_CORPUS="$root/target/no-corpus-here" THREEFOLD_SKIP_LOG= \
    cargo test --workspace --profile checked --locked > "$log" 2>&1 ||
    { tail -n 60 "$log"; echo "without the corpus: the cargo tests failed (log: $log)"; exit 1; }
  if grep -q 'Compiling threefold' "$log"; then
    echo "without the corpus: note: cargo compiled threefold again, which this part should not need"
  fi
  local skips
  skips=$(grep -o 'corpus not found at [^;]*no-corpus-here; set THREEFOLD_CORPUS' "$log" | wc -l)
  [ "$skips" -gt 0 ] || { echo "without the corpus: no test said it skipped"; exit 1; }
  echo "without the corpus: $(grep '^test result:' "$log" | awk '{ p += $4; f += $6 } END { print p " passed, " f " failed" }'), $skips skip lines, each naming the corpus it could not find"
}

tools() { bash tests/tools.sh; }

part "setup (venv)" setup
if [ "$in_clone" = 1 ]; then
  part "build" build
  part "cargo test" cargo_tests
  part "README quick start" quickstart
  part "differential (no corpus)" differential
  echo "fresh clone: style, fuzzing, the benchmark smoke run, the Python package, crash, shard, Slurm and browser tests are not run here (by hand: scripts/test.sh in the tree)"
else
  part "tools (installed when missing)" tools
  part "style (rustfmt, clippy)" style
  part "build" build
  part "cargo test" cargo_tests
  part "fuzz smoke" fuzz_smoke
  part "differential (python-chess)" differential
  part "bench smoke" bench_smoke
  part "README quick start" quickstart
  part "Python package" python_package
  part "crash tests" crash
  part "shard tests" shards
  part "Slurm test" slurm
  part "browser test" browser
  part "cargo test without the corpus" without_corpus
fi

echo
echo "test command: seconds per part"
awk -F'\t' '{ printf "  %-32s %6d\n", $1, $2 }' "$timing"
if [ -s "$THREEFOLD_SKIP_LOG" ]; then
  echo "skipped here (each with its reason; in CI, THREEFOLD_REQUIRE_ALL=1, any of these fails the run):"
  sed 's/^skipped: /  - /' "$THREEFOLD_SKIP_LOG" | sort -u
fi
[ -z "${THREEFOLD_PARTS:-}" ] || echo "test command: only the parts $THREEFOLD_PARTS (THREEFOLD_PARTS)"
echo "test command: passed in $((SECONDS - started)) s"
