#!/usr/bin/env bash
# `report` from the summary against `report --scan` (every game read), side by side, on the
# 150-source dataset of bench/many_sources.sh (built when OUT_DIR/dataset is missing) or on any
# dataset given as DATASET.
#
#   bash bench/summary.sh OUT_DIR [RUNS]       # RUNS: timed runs of each, the best kept (default 3)
#   DATASET=DIR bash bench/summary.sh OUT_DIR  # another dataset (e.g. a Lichess mirror's)
#
# Prints one line per report: its arguments, the best wall time from the summary and with
# --scan, and their ratio; and checks that both give the same --json. Environment: THREEFOLD
# (default target/release/threefold), THREEFOLD_CORPUS (for bench/many_sources.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: bash bench/summary.sh OUT_DIR [RUNS]}"
runs="${2:-3}"
bin="${THREEFOLD:-$root/target/release/threefold}"
[ -x "$bin" ] || (cd "$root" && cargo build --release --locked --quiet)
dataset="${DATASET:-$out/dataset}"
[ -n "${DATASET:-}" ] || [ -f "$dataset/_manifest.json" ] || bash "$root/bench/many_sources.sh" "$out"

# The best of RUNS wall times of `threefold report DATASET ARGS... --json`, in seconds.
best() {
  local i t s=""
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f %e -o "$out/time" "$bin" report "$dataset" --json "$@" > /dev/null 2> /dev/null
    s="$s $(cat "$out/time")"
  done
  tr ' ' '\n' <<< "$s" | grep . | sort -n | head -1
}

printf '%-52s %10s %10s %8s\n' "report" "summary s" "--scan s" "ratio"
while IFS= read -r line; do
  read -r -a args <<< "$line"
  cmp -s <("$bin" report "$dataset" --json "${args[@]}" 2> /dev/null) \
    <("$bin" report "$dataset" --json --scan "${args[@]}" 2> /dev/null) ||
    { echo "bench/summary.sh: ${args[*]}: the summary's figures differ from --scan's" >&2; exit 1; }
  a=$(best "${args[@]}")
  b=$(best --scan "${args[@]}")
  printf '%-52s %10s %10s %7.1fx\n' "${line:-(all games)}" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print (a > 0 ? b / a : 0) }')"
done << 'EOF'

--by source
--by month
--since 2014-01 --until 2016-12 --by rating-band
--time-class blitz --min-elo 1500 --max-elo 1999
EOF
