#!/usr/bin/env bash
# The report and the queries over a Lichess mirror, side by side in one run:
#   1. `report` answered from the summary against `report --scan` (every game read), for a few
#      filters and groupings and for `--by year --html`; target: the summary at least 20x faster;
#   2. `report --scan` on one thread and on two; target: two at least 1.8x faster; beside it the
#      machine's own ceiling: two processes, each on half the sources, at once against in turn;
#   3. each of queries/summary/*.sql in DuckDB over the summary view, against its twin in
#      queries/ over the games; target: each twin at most 1 s.
# Each report pair is also checked to give the same --json. By default the dataset is the 60 M
# game synthetic mirror of bench/mirror.sh (built under OUT_DIR/mirror when missing, about a
# minute, 1.5 GB).
#
#   bash bench/summary.sh OUT_DIR [RUNS]       # RUNS: timed runs of each, the best kept (default 3)
#   DATASET=DIR bash bench/summary.sh OUT_DIR  # another dataset (a real mirror's, or
#                                              # bench/many_sources.sh's small one)
#
# Environment: THREEFOLD (default target/release/threefold), THREEFOLD_CORPUS, THREEFOLD_PYTHON
# (with duckdb and pyarrow; default .venv/bin/python), BENCH_SKIP_QUERIES=1 (no step 3).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: bash bench/summary.sh OUT_DIR [RUNS]}"
runs="${2:-3}"
bin="${THREEFOLD:-$root/target/release/threefold}"
python="${THREEFOLD_PYTHON:-$root/.venv/bin/python}"
[ -x "$bin" ] || (cd "$root" && cargo build --release --locked --quiet)
mkdir -p "$out"
if [ -z "${DATASET:-}" ]; then
  bash "$root/bench/mirror.sh" "$out/mirror"
  dataset="$out/mirror/dataset"
else
  dataset="$DATASET"
fi
cores=$(nproc)
echo "dataset: $dataset ($(grep -m1 '"games"' "$dataset/_manifest.json" | tr -dc 0-9) games), $cores cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# The best of RUNS wall times of `threefold report DATASET ARGS...`, in seconds (output dropped).
best() {
  local i t s=""
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f %e -o "$out/time" "$bin" report "$dataset" "$@" > /dev/null 2> /dev/null
    s="$s $(cat "$out/time")"
  done
  tr ' ' '\n' <<< "$s" | grep . | sort -n | head -1
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (a > 0 ? b / a : 0) }'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { print (r >= t ? "ok" : "BELOW") }'; }

echo
echo "1. report from the summary against --scan (target: >= 20x)"
printf '%-58s %10s %10s %8s\n' "report" "summary s" "--scan s" "ratio"
while IFS= read -r line; do
  read -r -a args <<< "$line"
  cmp -s <("$bin" report "$dataset" --json "${args[@]}" 2> /dev/null) \
    <("$bin" report "$dataset" --json --scan "${args[@]}" 2> /dev/null) ||
    { echo "bench/summary.sh: ${args[*]}: the summary's figures differ from --scan's" >&2; exit 1; }
  html=()
  [ "${args[0]:-}" != "--html-page" ] || { args=("${args[@]:1}"); html=(--html "$out/page.html"); }
  a=$(best "${args[@]}" "${html[@]}")
  b=$(best --scan "${args[@]}" "${html[@]}")
  r=$(ratio "$a" "$b")
  printf '%-58s %10s %10s %7sx %s\n' "${line:-(all games)}" "$a" "$b" "$r" "$(verdict "$r" 20)"
done << 'EOF'

--by source
--by month
--html-page --by year
--since 2013-01 --until 2016-12 --by rating-band
--time-class blitz --min-elo 1500 --max-elo 1999
EOF

echo
echo "2. report --scan on 1 and on $cores threads (target: >= 1.8x on 2)"
a=$(best --scan --threads 1)
b=$(best --scan --threads "$cores")
r=$(ratio "$b" "$a")
printf '%-58s %10s %10s %7sx %s\n' "--scan: --threads 1, --threads $cores" "$a" "$b" "$r" "$(verdict "$r" 1.8)"
# What this machine gives two independent processes on this work: each half of the sources read
# by its own `--scan --threads 1`, one after the other, then both at once (the best of RUNS).
# A second thread cannot beat this ceiling, whatever the report does.
mapfile -t sources < <(ls "$dataset/games" | sed -n 's/^source=//p')
half=$((${#sources[@]} / 2))
first=() second=()
for s in "${sources[@]:0:half}"; do first+=(--source "$s"); done
for s in "${sources[@]:half}"; do second+=(--source "$s"); done
if [ "$half" -gt 0 ]; then
  seq_best="" par_best=""
  for ((i = 0; i < runs; i++)); do
    t0=$(date +%s.%N)
    "$bin" report "$dataset" --scan --threads 1 "${first[@]}" > /dev/null 2>&1
    "$bin" report "$dataset" --scan --threads 1 "${second[@]}" > /dev/null 2>&1
    t1=$(date +%s.%N)
    "$bin" report "$dataset" --scan --threads 1 "${first[@]}" > /dev/null 2>&1 &
    "$bin" report "$dataset" --scan --threads 1 "${second[@]}" > /dev/null 2>&1
    wait
    t2=$(date +%s.%N)
    seq_best=$(awk -v b="$seq_best" -v t="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 'BEGIN { print (b == "" || t < b) ? t : b }')
    par_best=$(awk -v b="$par_best" -v t="$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')" 'BEGIN { print (b == "" || t < b) ? t : b }')
  done
  printf '%-58s %10.2f %10.2f %7sx %s\n' "ceiling: two processes on halves, in turn / at once" "$seq_best" "$par_best" \
    "$(ratio "$par_best" "$seq_best")" "(the machine's)"
fi

[ -z "${BENCH_SKIP_QUERIES:-}" ] || exit 0
echo
echo "3. queries/summary/*.sql over the summary view against queries/*.sql over the games (target: <= 1 s)"
"$python" - "$dataset" "$root/queries" << 'EOF'
import duckdb, glob, os, sys, time

dataset, queries = sys.argv[1:]
views = open(os.path.join(dataset, "views.sql")).read()


def timed(path):
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute(views)
    t = time.perf_counter()
    con.sql(open(path).read()).fetchall()
    return time.perf_counter() - t


print(f"{'query':36s} {'summary s':>10s} {'games s':>10s} {'ratio':>8s}")
for twin in sorted(glob.glob(os.path.join(queries, "summary", "*.sql"))):
    name = os.path.basename(twin)
    a, b = timed(twin), timed(os.path.join(queries, name))
    print(f"{name:36s} {a:10.3f} {b:10.2f} {b / a:7.0f}x {'ok' if a <= 1 else 'ABOVE'}")
EOF
