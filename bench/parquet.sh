#!/usr/bin/env bash
# Parquet input against PGN input on the same games: `threefold ingest` of a Lichess month
# written as Hugging Face publishes it (tests/harness/parquet_input/write_lichess.py: Snappy, the
# published column types, 2 files) and of the same games as PGN, plain and as pzstd frames (the
# form of Lichess's PGN dumps). Prints a Markdown table: per input the best wall time of
# BENCH_REPEAT runs (default 3) with the CPU seconds (user + system) of that run, games/s of
# that wall time, and Parquet's games/s over each PGN form's.
#
#   bash bench/parquet.sh [GAMES]     # GAMES per input (default 100000)
#
# Inputs: the corpus's 2021 Lichess sample (a clock after every move) and the 2013 sample of
# data-samples/ (no clocks), each repeated to GAMES games. The Parquet month has row groups of
# 10,000 rows. BENCH_THREADS sets --threads (default: all cores); THREEFOLD_BIN another build
# (default: the release build), to compare two builds on the same machine load, which the
# table's first and last lines give (the 1-minute load average). Needs pzstd, and a Python with
# pyarrow ($THREEFOLD_PYTHON, else .venv).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
games="${1:-100000}"
repeat="${BENCH_REPEAT:-3}"
threads="${BENCH_THREADS:-$(nproc)}"
py="${THREEFOLD_PYTHON:-$root/.venv/bin/python}"
bin="${THREEFOLD_BIN:-$root/target/release/threefold}"
corpus="${THREEFOLD_CORPUS:-$root/../shared/corpus}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT

best() {  # "wall cpu" of the fastest of `repeat` runs of ingest "$@"
  for _ in $(seq "$repeat"); do
    rm -rf "$work/out"
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$bin" ingest "$@" --out "$work/out" --threads "$threads" --quiet
    awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$work/time"
  done | sort -n | head -1
}

load() { cut -d' ' -f1 /proc/loadavg; }
echo "load before: $(load) on $(nproc) cores; $bin"
echo
echo "| input | games | PGN s (CPU s) | PGN .zst s (CPU s) | Parquet s (CPU s) | games/s Parquet | Parquet / PGN, / PGN .zst |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for sample in "$corpus/lichess/lichess-2021-10-01-clocks-sample.pgn" "$root/data-samples/lichess_db_standard_rated_2013-01-first300.pgn"; do
  [ -f "$sample" ] || { echo "bench/parquet.sh: $sample missing: skipped" >&2; continue; }
  name="$(basename "$sample" .pgn)"
  n=$(grep -c '^\[Event ' "$sample")
  pgn="$work/$name.pgn"
  for _ in $(seq $(( (games + n - 1) / n ))); do cat "$sample"; done > "$pgn"
  pzstd -q -p 2 "$pgn" -o "$pgn.zst"
  total=$(grep -c '^\[Event ' "$pgn")
  "$py" tests/harness/parquet_input/write_lichess.py "$pgn" "$work/hf" "$name" 2021 10 2 10000 >/dev/null
  read -r w_pgn c_pgn <<<"$(best "$pgn")"
  read -r w_zst c_zst <<<"$(best "$pgn.zst")"
  read -r w_pq c_pq <<<"$(best "$work/hf/$name/data/year=2021/month=10")"
  awk -v n="$total" -v name="$name" -v wp="$w_pgn" -v cp="$c_pgn" -v wz="$w_zst" -v cz="$c_zst" -v wq="$w_pq" -v cq="$c_pq" 'BEGIN {
    printf "| %s | %d | %.2f (%.2f) | %.2f (%.2f) | %.2f (%.2f) | %.0f | %.2f, %.2f |\n", name, n, wp, cp, wz, cz, wq, cq, n / wq, wp / wq, wz / wq }'
done
echo
echo "load after: $(load)"
