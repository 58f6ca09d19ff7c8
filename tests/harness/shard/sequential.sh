#!/usr/bin/env bash
# Sharded runs one after another, without Slurm: for each kind of input, `threefold
# ingest --shard K/N` for every K into a fresh folder, N = 3 (K in order) and N = 4 (K in reverse
# order), then `--finish`, must give exactly the rows of one unsharded run (tests/harness/shard/compare.py:
# both tables, EXCEPT ALL both ways). The inputs, from the corpus (else from data-samples/):
#   pzstd     otb/pgnmentor-players recompressed with pzstd: frame ranges (32 frames of 8 MiB)
#   plain     its first ~20 MB cut before a game, with a one-game file beside it (so that with
#             N = 4 most shards of that file have no game at all): byte ranges
#   zstd      a folder of single-stream .zst files (pgnmentor-players.pgn.zst as published, and
#             four smaller collections compressed with zstd): whole files
# Each shard of a split input (pzstd, plain) must read between 1/2N and 3/2N of the games (from
# its summary line). Also: `--finish` after the first shard of the pzstd input must exit 1 (its other shards are
# missing) and change nothing; after all shards it exits 0, twice.
# Usage: bash tests/harness/shard/sequential.sh   (needs the release build, zstd/pzstd, .venv with DuckDB)
# Environment: THREEFOLD (default target/release/threefold), THREEFOLD_CORPUS, THREEFOLD_PYTHON.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# shellcheck source=tests/corpus.sh
source "$root/tests/corpus.sh"
# shellcheck source=tests/harness/shard/cache.sh
source "$root/tests/harness/shard/cache.sh"
bin="${THREEFOLD:-$root/target/release/threefold}"
py="${THREEFOLD_PYTHON:-$root/.venv/bin/python}"
[ -x "$bin" ] || { echo "shard test: no threefold binary at $bin (cargo build --release)"; exit 1; }
help="$("$bin" ingest --help)" # not `| grep -q`, which can fail the pipeline (SIGPIPE, pipefail)
grep -q -- '--shard' <<< "$help" || { echo "shard test: $bin has no --shard option (built before sharding landed?)"; exit 1; }
[ -x "$py" ] || { echo "shard test: no Python with DuckDB at $py (set THREEFOLD_PYTHON)"; exit 1; }
command -v pzstd > /dev/null || { echo "shard test: pzstd is missing (Debian package zstd)"; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The inputs.
mkdir -p "$work/in/plain" "$work/in/zstd"
if have_corpus "shard test on corpus files (on data-samples/ instead)"; then
  big="$corpus/otb/pgnmentor-players.pgn.zst"
  cp "$big" "$work/in/zstd/"
  for f in otb/dortmund.pgn otb/kasparov.pgn otb/world-championship-matches.pgn lichess/lichess-2021-10-01-clocks-sample.pgn; do
    zstd -q "$corpus/$f" -o "$work/in/zstd/$(basename "$f").zst"
  done
  slice=20000000
else
  for f in "$root"/data-samples/*.pgn; do zstd -q "$f" -o "$work/in/zstd/$(basename "$f").zst"; done
  slice=5000000
fi
# The pzstd input (and its unsharded dataset, below) from target/shard-cache/, which the Slurm
# test reuses (tests/harness/shard/cache.sh).
pzstd_input="$(shard_cache_input)"
# The slice ends where the first game that starts past $slice bytes begins.
# (awk leaving early ends zstd with SIGPIPE.)
{ zstd -dcq "$pzstd_input" || true; } |
  awk -v max="$slice" '/^\[Event / && n >= max { exit } { n += length($0) + 1; print }' > "$work/in/plain/slice.pgn"
cp "$root/data-samples/karpov_miles_tilburg_1986.pgn" "$work/in/plain/"
frames=$(zstd -l "$pzstd_input" | awk 'NR == 2 { print $1 - $2 }')

passed=0 failed=0
# check NAME N: the sharded dataset $work/NAME-N against $work/NAME-whole.
check() {
  local name="$1" n="$2" said
  if said="$("$py" "$root/tests/harness/shard/compare.py" "$work/$name-whole" "$work/$name-$n" 2>&1)"; then
    echo "shard test: $name N=$n: same rows as an unsharded run ($(awk '/^(games|events): A / { printf "%s%s %s", sep, $3, $1; sep = ", " }' <<< "$said" | tr -d :))"
    passed=$((passed + 1))
  else
    echo "$said"
    echo "shard test: $name N=$n: FAILED, the sharded dataset differs from the unsharded run's"
    failed=$((failed + 1))
  fi
}
# run NAME N ORDER INPUT...: the N shards one after another (ORDER up or down), then --finish.
run() {
  local name="$1" n="$2" order="$3" out k ks
  shift 3
  out="$work/$name-$n"
  if [ "$order" = up ]; then ks=$(seq 0 $((n - 1))); else ks=$(seq $((n - 1)) -1 0); fi
  local -a games=()
  for k in $ks; do
    "$bin" ingest "$@" --out "$out" --shard "$k/$n" 2> "$work/shard.err" ||
      { cat "$work/shard.err"; echo "shard test: $name N=$n: FAILED, shard $k/$n exited $?"; failed=$((failed + 1)); return; }
    # The games this shard read, from its summary (`...; shard K/N: ...; G games (...`).
    games[k]="$(grep -o "shard $k/$n: .*" "$work/shard.err" | grep -o '[0-9]* games (' | head -n 1 | cut -d' ' -f1 || true)"
    [ -n "${games[k]}" ] ||
      { cat "$work/shard.err"; echo "shard test: $name N=$n: FAILED, no game count in shard $k/$n's summary"; failed=$((failed + 1)); return; }
    if [ "$name" = pzstd ] && [ "$k" = "${ks%%$'\n'*}" ]; then
      # Only one shard of the input there: --finish must say a shard is missing, and commit nothing.
      local status=0
      "$bin" ingest --out "$out" --finish > "$work/finish.out" 2>&1 || status=$?
      if [ "$status" != 1 ] || [ -e "$out/games/source=pgnmentor" ]; then
        cat "$work/finish.out"
        echo "shard test: $name N=$n: FAILED, --finish after one shard of $n exited $status (expected 1) or committed the source"
        failed=$((failed + 1)); return
      fi
    fi
  done
  for k in 1 2; do
    "$bin" ingest --out "$out" --finish > "$work/finish.out" 2>&1 ||
      { cat "$work/finish.out"; echo "shard test: $name N=$n: FAILED, --finish ($k) after all shards exited $?"; failed=$((failed + 1)); return; }
  done
  # Each shard does its 1/N of a split input (frames, bytes): within half of it either way.
  local total=0 g
  for g in "${games[@]}"; do total=$((total + g)); done
  echo "shard test: $name N=$n: games per shard ${games[*]} (of $total)"
  if [ "$name" != zstd ]; then
    for g in "${games[@]}"; do
      if [ $((2 * n * g)) -lt "$total" ] || [ $((2 * n * g)) -gt $((3 * total)) ]; then
        echo "shard test: $name N=$n: FAILED, the shards' shares are not about 1/$n each"
        failed=$((failed + 1)); return
      fi
    done
  fi
  check "$name" "$n"
}

for name in pzstd plain zstd; do
  case "$name" in
    pzstd) inputs=("$pzstd_input") ;;
    plain) inputs=("$work/in/plain/slice.pgn" "$work/in/plain/karpov_miles_tilburg_1986.pgn") ;;
    zstd) inputs=("$work/in/zstd") ;;
  esac
  if [ "$name" = pzstd ]; then
    whole="$(shard_cache_reference "$bin" "$pzstd_input")" && ln -s "$whole" "$work/$name-whole" ||
      { echo "shard test: $name: the unsharded run failed"; failed=$((failed + 1)); continue; }
  else
    "$bin" ingest "${inputs[@]}" --out "$work/$name-whole" --quiet ||
      { echo "shard test: $name: the unsharded run failed"; failed=$((failed + 1)); continue; }
  fi
  run "$name" 3 up "${inputs[@]}"
  run "$name" 4 down "${inputs[@]}"
done
echo "shard test: inputs: pzstd with $frames frames; plain $(wc -c < "$work/in/plain/slice.pgn") + $(wc -c < "$work/in/plain/karpov_miles_tilburg_1986.pgn") bytes; $(find "$work/in/zstd" -type f | wc -l) single-stream .zst files"
echo "shard test: $passed passed, $failed failed"
[ "$failed" = 0 ]
