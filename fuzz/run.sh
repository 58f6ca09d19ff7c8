#!/usr/bin/env bash
# Runs one fuzz target, seeded from the shared corpus's parser-torture files (without the
# corpus, from the rule fixtures and the sample data).
# Usage: fuzz/run.sh pgn_to_events|compressed_input SECONDS
#   FUZZ_RUNS=N FUZZ_SEED=S: exactly N runs from seed S instead (the test command's smoke run: the
#   same inputs every time, from a fresh corpus folder FUZZ_CORPUS, so that it fails only when
#   the code does).
# Needs cargo-fuzz (`cargo install cargo-fuzz`); RUSTC_BOOTSTRAP lets the stable toolchain accept
# the sanitizer flags cargo-fuzz passes. Fuzz builds keep debug assertions on (SAN reading and
# resolution, the incremental Zobrist key). Crashes land in fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
target="$1"; seconds="${2:-60}"
edge="${THREEFOLD_CORPUS:-$PWD/../../shared/corpus}/edge"
seeds="${FUZZ_CORPUS:-corpus/$target}"
mkdir -p "$seeds"
if [ -d "$edge" ]; then sources=("$edge"/*.pgn); else sources=(../tests/oracle/rules/*.pgn ../data-samples/*.pgn); fi
for f in "${sources[@]}"; do
  name="$(basename "$f")"
  case "$target" in
    pgn_to_events) cp "$f" "$seeds/$name" ;;
    compressed_input)
      head -c 4000 "$f" > "$seeds/$name"
      head -c 4000 "$f" | zstd -q -c > "$seeds/$name.zst"
      head -c 4000 "$f" | gzip -c > "$seeds/$name.gz"
      head -c 4000 "$f" | bzip2 -c > "$seeds/$name.bz2" ;;
  esac
done
if [ -n "${FUZZ_RUNS:-}" ]; then limit=(-runs="$FUZZ_RUNS" -seed="${FUZZ_SEED:-1}"); else limit=(-max_total_time="$seconds"); fi
RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" "$seeds" -- "${limit[@]}" -rss_limit_mb=2048 -max_len=200000
