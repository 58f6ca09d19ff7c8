#!/usr/bin/env bash
# Benchmark of `threefold ingest` against its floor and two references, in one run, on the
# shared corpus. Prints one Markdown table (and the ratios the performance targets name).
#
#   bash bench/run.sh              # full benchmark (minutes); installs pgn-extract if missing
#   bash bench/run.sh --smoke      # tiny inputs, seconds; for the test command: also fails when
#                                  # the instructions per game on fixed slices grew by more than
#                                  # 2% against bench/instructions-baseline.tsv (bench/instructions.sh)
#   bash bench/run.sh --against REV  # REV's ingest against the working tree's, paired runs on one
#                                  # core, and both binaries' instructions per game (callgrind)
#
# Needs what the README's setup gives: cargo, the .venv made by scripts/test.sh (python-chess),
# zstd/pzstd (Debian package zstd), /usr/bin/time. Options and environment:
#   --corpus DIR           corpus folder (default ../shared/corpus, or $THREEFOLD_CORPUS)
#   --py-games N           games per file for python-chess (default 1000; smoke 30)
#   BENCH_FILES="a b"      corpus-relative files instead of the default four
#   BENCH_MIN_BYTES=N      full runs repeat a smaller input to N decompressed bytes (250 MB);
#                          a .zst input is repeated as concatenated frames, so it decompresses
#                          as the original does
#   BENCH_THREADS="1 2"    --threads values for ingest (default: 1 and all cores)
#   BENCH_REPEAT=N         rounds of floor / ingest tN / N floors at once taking turns, and runs
#                          of the other threefold and split rows; the fastest of each is kept
#                          (default 3; smoke 1); python-chess and pgn-extract run once
#
# Rows, per input (each reads the same file; MB/s counts decompressed PGN):
#   floor        examples/floor.rs: pgn-reader + shakmaty playing every mainline move, no output
#   ingest tN    threefold ingest --threads N to Parquet in a temporary folder
#   python-chess tests/oracle/oracle.py --jobs 1 --limit N (the same repetitions, per game),
#                and ingest --threads 1 on those N games repeated (~20,000 games) for its ratio
#   pgn-extract  pgn-extract --repetition on the decompressed file, one process, and ingest
#                --threads 1 on that same decompressed file for its ratio
#   N floors     N floors at once, one per core: the machine's own ceiling for ingest tN / t1
#   one core     ingest --threads 1 held to one core (taskset): its reading and writing
#                threads then take turns with the replay thread, so this is ingest's serial
#                cost, against the floor's, and the base of tN's speedup over a serial run
#   small files  ingest --threads 1 on a folder of 2,000 files of 10 games (the first input's first
#                games) and on the same games in one file: what each input costs beyond its games
#   report       threefold report --json (and grouped by rating band, filtered) on the first
#                input's dataset, against DuckDB running
#                queries/*.sql on it (bench/queries.py, one Python process): at most 2x
# and for the serial stage (examples/split.rs: decompress and cut into chunks, nothing else):
#   split        on each input as ingest reads it, on the decompressed text (splitting alone),
#                and on pzstd-made copies of the first and last inputs with 1 and 2 decoder
#                threads;
# then (full run, if valgrind is installed) callgrind's instruction counts per thread of one
# ingest --threads 8: how many replay threads the reading and the writing thread can feed.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

smoke=0
corpus="${THREEFOLD_CORPUS:-$root/../shared/corpus}"
py_games=""
against=""
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=1 ;;
    --corpus) corpus="$2"; shift ;;
    --py-games) py_games="$2"; shift ;;
    --against) against="$2"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "bench/run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
corpus="$(cd "$corpus" && pwd)"
# `skipped WHAT WHY`: in the smoke run (the test command), a row that cannot run is a skip that
# fails CI (tests/corpus.sh); a full run only says so.
if [ "$smoke" = 1 ]; then
  # shellcheck source=tests/corpus.sh
  # (it sets `corpus` to the shared corpus: --corpus must win)
  given="$corpus"
  source "$root/tests/corpus.sh"
  corpus="$given"
else
  skipped() { echo "bench: $1 skipped ($2)" >&2; }
fi

# --- --against REV: a regression's size, paired ----------------------------------------------------
# REV is built in a temporary worktree with its own target folder (seeded with a copy of this
# tree's, so that only threefold itself compiles), then REV's binary (A) and the working tree's
# (B) take turns in pairs (BENCH_PAIRS pairs, default 7), on one pinned core, on the whole of
# each input (BENCH_FILES; default the pgnmentor file and the clocks sample). Pairs alternate
# which goes first (A B, B A, ...): the second run of a pair is not always the same binary's.
# Per input: the median of the pairs' ratios B wall / A wall, their spread (lowest, highest), and
# a 95% interval of that median (a bootstrap over the pairs, fixed seed): a median can only be
# said to be below 1.00 when its interval is. Turns in pairs share the machine's drift between A
# and B alike; the instruction counts (bench/instructions.sh, callgrind on fixed 2 MB slices) do
# not depend on it at all.
if [ -n "$against" ]; then
  command -v taskset >/dev/null || { echo "bench: --against needs taskset (util-linux)" >&2; exit 1; }
  cpu="$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')"
  work="$(mktemp -d)"
  trap 'git -C "$root" worktree remove --force "$work/rev" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  rev_hash="$(git rev-parse --short "$against^{commit}")"
  git worktree add --detach --quiet "$work/rev" "$rev_hash"
  if [ -d "$root/target/release/deps" ]; then
    mkdir -p "$work/target"
    tar -C "$root/target" --exclude=release/incremental -cf - release | tar -C "$work/target" -xf -
  fi
  echo "bench: building $against ($rev_hash) in $work/rev" >&2
  (cd "$work/rev" && CARGO_TARGET_DIR="$work/target" cargo build --release --quiet --bin threefold)
  cargo build --release --quiet --bin threefold
  a="$work/target/release/threefold"; b="$root/target/release/threefold"
  pairs="${BENCH_PAIRS:-7}"
  echo
  echo "threefold $against ($rev_hash) = A against the working tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src Cargo.lock || echo ', with changes')) = B: $(date -u '+%Y-%m-%d %H:%M') UTC, ingest --threads 1 on CPU $cpu, $pairs pairs (A B, then B A, alternating)"
  echo
  echo "| input | games | A wall s (median) | B wall s (median) | B / A wall (median of pairs) | 95% interval of the median | lowest | highest |"
  echo "|---|---:|---:|---:|---:|---|---:|---:|"
  for f in ${BENCH_FILES:-otb/pgnmentor-players.pgn.zst lichess/lichess-2021-10-01-clocks-sample.pgn}; do
    in="$corpus/$f"
    # A small input is repeated to at least BENCH_AGAINST_BYTES (default 100 MB) on disk, so
    # that a run is seconds of replay, not start-up (the clocks sample alone takes 0.02 s).
    size=$(stat -c %s "$in")
    times=$(( (${BENCH_AGAINST_BYTES:-100000000} + size - 1) / size ))
    if [ "$times" -gt 1 ]; then
      case "$in" in *.zst) ext=.pgn.zst ;; *) ext=.pgn ;; esac
      for ((k = 0; k < times; k++)); do cat "$in"; done > "$work/input$ext"
      in="$work/input$ext"; f="$f ×$times"
    fi
    : > "$work/walls"
    for ((i = 0; i < pairs; i++)); do
      order="a b"; [ $((i % 2)) = 1 ] && order="b a"
      for who in $order; do
        rm -rf "$work/ds"
        exe="$a"; [ "$who" = b ] && exe="$b"
        /usr/bin/time -f '%e' -o "$work/time" taskset -c "$cpu" "$exe" ingest "$in" --out "$work/ds" --threads 1 --quiet
        echo "$who $(tail -n 1 "$work/time")" >> "$work/walls"
      done
    done
    games=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(sum(e.get("games",0) for e in m["inputs"]))' "$work/ds/_manifest.json")
    python3 - "$work/walls" "$f" "$games" <<'PY'
import random, statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
a = [float(w) for who, w in rows if who == "a"]
b = [float(w) for who, w in rows if who == "b"]
r = sorted(y / x for x, y in zip(a, b) if x > 0)
# The median of pairs drawn with replacement, 2,000 times: its 2.5th and 97.5th percentiles.
rng = random.Random(42)
boot = sorted(statistics.median(rng.choices(r, k=len(r))) for _ in range(2000))
low, high = boot[int(0.025 * len(boot))], boot[int(0.975 * len(boot)) - 1]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {statistics.median(a):.2f} | {statistics.median(b):.2f} | {statistics.median(r):.3f} | {low:.3f}–{high:.3f} | {r[0]:.3f} | {r[-1]:.3f} |")
PY
  done
  if command -v valgrind >/dev/null; then
    echo
    echo "Instructions per game (callgrind, ingest --threads 1, bench/instructions.sh's slices):"
    echo
    bash bench/instructions.sh --corpus "$corpus" --bin "$a" --out "$work/a.tsv" > /dev/null
    bash bench/instructions.sh --corpus "$corpus" --bin "$b" --out "$work/b.tsv" > /dev/null
    echo "| slice | stage | A | B | B / A |"
    echo "|---|---|---:|---:|---:|"
    paste "$work/a.tsv" "$work/b.tsv" | awk -F'\t' 'NR > 1 { printf "| %s | %s | %d | %d | %s |\n", $1, $2, $4, $8, ($4 > 0 ? sprintf("%.4f", $8 / $4) : "-") }'
  else
    skipped "the instruction counts of --against" "valgrind is not installed"
  fi
  exit 0
fi
cores="$(nproc)"
threads_list="${BENCH_THREADS:-1 $cores}"
[ "$threads_list" = "1 1" ] && threads_list="1"
if [ "$smoke" = 1 ]; then py_games="${py_games:-30}"; else py_games="${py_games:-1000}"; fi
if [ "$smoke" = 1 ]; then reps="${BENCH_REPEAT:-1}"; else reps="${BENCH_REPEAT:-3}"; fi
files="${BENCH_FILES:-otb/pgnmentor-players.pgn.zst engine/tcec-cups.pgn.zst lichess/lichess_db_standard_rated_2013-01-sample.pgn.zst lichess/lichess-2021-10-01-clocks-sample.pgn}"
# Full runs read each input repeated to at least this many decompressed bytes, so that every
# row is seconds of work, not start-up.
min_bytes="${BENCH_MIN_BYTES:-250000000}"

# --- tools -----------------------------------------------------------------------------------
cargo build --release --quiet --bin threefold --example floor --example split
bin="$root/target/release/threefold"
floor="$root/target/release/examples/floor"
split="$root/target/release/examples/split"
py="${THREEFOLD_PYTHON:-$root/.venv/bin/python}"
if ! [ -x "$py" ] || ! "$py" -c 'import chess' 2>/dev/null; then
  skipped "the bench's python-chess rows" "no python-chess venv at $py: run scripts/test.sh once"
  py=""
fi
# The one-core rows pin to the first CPU this process may run on (a container may not have CPU 0).
taskset="$(command -v taskset || true)"
one_cpu="$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))' 2>/dev/null || true)"
if [ -z "$taskset" ] || [ -z "$one_cpu" ] || ! "$taskset" -c "$one_cpu" true 2>/dev/null; then
  skipped "the bench's one-core rows" "cannot hold a process to one CPU (taskset, from util-linux)"
  taskset=""
fi
pgnx="$(command -v pgn-extract || true)"
[ -z "$pgnx" ] && [ -x /usr/games/pgn-extract ] && pgnx=/usr/games/pgn-extract
if [ -z "$pgnx" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "bench: installing pgn-extract (Debian package)" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgn-extract) >/dev/null 2>&1 || true
  pgnx="$(command -v pgn-extract || true)"
  [ -z "$pgnx" ] && [ -x /usr/games/pgn-extract ] && pgnx=/usr/games/pgn-extract
fi
[ -n "$pgnx" ] || skipped "the bench's pgn-extract rows" "pgn-extract is not installed and cannot be (root and apt-get)"
for tool in zstd pzstd /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is needed (apt-get install zstd time)" >&2; exit 1; }
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# --- inputs ----------------------------------------------------------------------------------
# Each input: the file as threefold reads it ($tmp/in/NAME.*) and its decompressed text
# ($tmp/NAME.pgn). Smoke inputs are the first 1.5 MB of each file, cut at a game start; in a
# full run, an input smaller than $min_bytes is repeated (its label says how many times).
mkdir -p "$tmp/in"
names=()
declare -A label=()
# ingest --threads 1 on each input's decompressed text (games/s), for the serial-stage ratios.
declare -A text_rate_of=()
for f in $files; do
  src="$corpus/$f"
  [ -f "$src" ] || { echo "bench: missing $src" >&2; exit 1; }
  base="$(basename "$f")"; name="${base%%.*}"
  case "$src" in *.zst) zstd -dcq "$src" > "$tmp/$name.pgn" ;; *) cp "$src" "$tmp/$name.pgn" ;; esac
  if [ "$smoke" = 1 ]; then
    head -c 1500000 "$tmp/$name.pgn" > "$tmp/$name.head"
    last=$(grep -an '^\[Event ' "$tmp/$name.head" | tail -n 1 | cut -d: -f1)
    head -n "$(( ${last:-1} - 1 ))" "$tmp/$name.head" > "$tmp/$name.pgn"
    rm "$tmp/$name.head"
    zstd -q -3 "$tmp/$name.pgn" -o "$tmp/in/$name.pgn.zst"
    label[$name]="$name"
  else
    size=$(stat -c %s "$tmp/$name.pgn")
    k=$(( (min_bytes + size - 1) / size ))
    if [ "$k" -gt 1 ]; then
      mv "$tmp/$name.pgn" "$tmp/$name.once"
      for ((i = 0; i < k; i++)); do cat "$tmp/$name.once"; done > "$tmp/$name.pgn"
      case "$src" in
        *.zst) for ((i = 0; i < k; i++)); do cat "$src"; done > "$tmp/in/$base" ;;
        *) ln -s "$tmp/$name.pgn" "$tmp/in/$base" ;;
      esac
      rm "$tmp/$name.once"
      label[$name]="$name ×$k"
    else
      ln -s "$src" "$tmp/in/$base"
      label[$name]="$name"
    fi
  fi
  names+=("$name")
done
input_of() { ls "$tmp/in/$1".* | head -n 1; }

# --- measuring -------------------------------------------------------------------------------
# run LABEL CMD...: times CMD; sets wall, rss_mib, cpu; CMD's stdout goes to $tmp/out.
run() {
  local label="$1"; shift
  if ! /usr/bin/time -f '%e %M %U %S' -o "$tmp/time" "$@" > "$tmp/out" 2> "$tmp/err"; then
    # ingest exits 1 when an input failed: that is a benchmark failure too
    echo "bench: $label failed:" >&2; tail -n 5 "$tmp/err" >&2; exit 1
  fi
  read -r wall rss cpu_u cpu_s < <(tail -n 1 "$tmp/time")
  rss_mib=$(awk -v k="$rss" 'BEGIN{printf "%.0f", k/1024}')
  cpu=$(awk -v u="$cpu_u" -v s="$cpu_s" 'BEGIN{printf "%.2f", u+s}')
  wall=$(awk -v w="$wall" 'BEGIN{printf "%.2f", (w < 0.01 ? 0.01 : w)}')
}
# keep KEY: remembers the last run's figures as KEY's if it was KEY's fastest; use KEY: sets
# wall, rss_mib and cpu to KEY's fastest.
declare -A b_wall=() b_rss=() b_cpu=()
keep() {
  if [ -z "${b_wall[$1]:-}" ] || awk -v a="$wall" -v b="${b_wall[$1]}" 'BEGIN{exit !(a < b)}'; then
    b_wall[$1]=$wall; b_rss[$1]=$rss_mib; b_cpu[$1]=$cpu
  fi
}
use() { wall=${b_wall[$1]}; rss_mib=${b_rss[$1]}; cpu=${b_cpu[$1]}; }
# best N LABEL CMD...: like run, keeping the fastest of N runs (BENCH_REPEAT; the machine is
# shared, and the fastest run is the least disturbed one). Each run starts without $tmp/ds.
best() {
  local n="$1" i; shift
  for ((i = 0; i < n; i++)); do
    rm -rf "$tmp/ds"
    run "$@"
    keep "$1"
  done
  use "$1"
}
rate() { awk -v n="$1" -v w="$2" 'BEGIN{printf "%.0f", n/w}'; }
mbs() { awk -v b="$1" -v w="$2" 'BEGIN{printf "%.1f", b/1e6/w}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else printf "-" }'; }
ok() { awk -v r="$1" -v t="$2" 'BEGIN{ if (r == "-") print "-"; else if (r+0 >= t+0) print "ok"; else print "BELOW" }'; }
manifest_games() {
  python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(sum(e.get("games",0) for e in m["inputs"]))' "$1"
}

rows=()       # table rows
ratios=()     # ratio rows
fail=0
# row INPUT RUN GAMES WALL GAMES/S MB/S RSS CPU: adds games per CPU-second (robust on a busy machine)
row() {
  local per_cpu
  per_cpu=$(awk -v g="${3//[()]/}" -v c="$8" 'BEGIN{ if (c > 0) printf "%.0f", g/c; else printf "-" }')
  rows+=("| $1 | $2 | $3 | $4 | $5 | $6 | $7 | $8 | $per_cpu |")
}

for name in "${names[@]}"; do
  in="$(input_of "$name")"
  text="$tmp/$name.pgn"
  lab="${label[$name]}"
  bytes=$(stat -c %s "$text")

  # The floor, ingest at each thread count and N floors at once take turns, $reps rounds, and
  # the fastest of each is kept: the machine is shared, and taking turns spreads its noise over
  # all of them alike (rather than over whichever ran while a neighbour was busy).
  b_wall=(); b_rss=(); b_cpu=()
  declare -A ing_games=()
  t_max="${threads_list##* }"
  for ((round = 0; round < reps; round++)); do
    run "floor $name" "$floor" "$in"; keep floor
    read -r floor_games _ _ _ < "$tmp/out"
    for t in $threads_list; do
      rm -rf "$tmp/ds"
      run "ingest $name --threads $t" "$bin" ingest "$in" --out "$tmp/ds" --threads "$t" --quiet; keep "t$t"
      ing_games[$t]=$(manifest_games "$tmp/ds/_manifest.json")
    done
    if [ -n "$taskset" ] && [ "$t_max" != 1 ]; then
      rm -rf "$tmp/ds"
      run "ingest $name --threads 1 on one core" "$taskset" -c "$one_cpu" "$bin" ingest "$in" --out "$tmp/ds" --threads 1 --quiet; keep core
      core_games=$(manifest_games "$tmp/ds/_manifest.json")
    fi
    if [ "$t_max" != 1 ]; then
      for k in $(seq "$t_max"); do
        /usr/bin/time -f '%e' -o "$tmp/par.$k" "$floor" "$in" > /dev/null 2>&1 &
      done
      wait
      wall=$(cat "$tmp"/par.* | sort -n | tail -n 1); rss_mib="-"; cpu="-"; rm -f "$tmp"/par.*
      keep floors
    fi
  done

  use floor
  floor_rate=$(rate "$floor_games" "$wall")
  floor_wall="$wall"
  row "$lab" floor "$floor_games" "$wall" "$floor_rate" "$(mbs "$bytes" "$wall")" "$rss_mib" "$cpu"
  declare -A ing_rate=()
  for t in $threads_list; do
    use "t$t"
    g=${ing_games[$t]}
    ing_rate[$t]=$(rate "$g" "$wall")
    row "$lab" "ingest t$t" "$g" "$wall" "${ing_rate[$t]}" "$(mbs "$bytes" "$wall")" "$rss_mib" "$cpu"
    if [ "$smoke" = 1 ] && [ "$g" != "$floor_games" ]; then
      echo "bench: $name: ingest --threads $t read $g games, the floor $floor_games" >&2
      fail=1
    fi
  done
  core_rate=""
  if [ -n "$taskset" ] && [ "$t_max" != 1 ]; then
    use core
    core_rate=$(rate "$core_games" "$wall")
    row "$lab" "ingest t1 on one core (taskset)" "$core_games" "$wall" "$core_rate" "$(mbs "$bytes" "$wall")" "$rss_mib" "$cpu"
    if [ "$smoke" = 1 ] && [ "$core_games" != "$floor_games" ]; then
      echo "bench: $name: ingest on one core read $core_games games, the floor $floor_games" >&2
      fail=1
    fi
  fi

  py_rate=""
  if [ -n "$py" ]; then
    run "python-chess $name" "$py" tests/oracle/oracle.py "$in" --limit "$py_games" --jobs 1
    pg=$(wc -l < "$tmp/out")
    py_rate=$(awk -v n="$pg" -v w="$wall" 'BEGIN{printf "%.1f", n/w}')
    row "$lab" "python-chess (first $pg games)" "$pg" "$wall" "$py_rate" "-" "$rss_mib" "$cpu"
    # ingest --threads 1 on those same games, repeated to about 20,000 games (or 100 MB) so that
    # start-up does not count: the per-game ratio compares like with like.
    python3 - "$text" "$pg" "$tmp/$name.sample.pgn" <<'PY'
import re, sys
text = open(sys.argv[1], 'rb').read()
n = int(sys.argv[2])
starts = [m.start() for m in re.finditer(rb'(?m)^\[Event ', text)]
end = starts[n] if len(starts) > n else len(text)
sample = text[:end].rstrip() + b'\n\n'
reps = max(1, min(-(-20000 // max(n, 1)), -(-100_000_000 // max(len(sample), 1))))
open(sys.argv[3], 'wb').write(sample * reps)
PY
    rm -rf "$tmp/ds"
    best "$reps" "ingest t1 on the python-chess sample $name" "$bin" ingest "$tmp/$name.sample.pgn" --out "$tmp/ds" --threads 1 --quiet
    sg=$(manifest_games "$tmp/ds/_manifest.json")
    sample_rate=$(rate "$sg" "$wall")
    row "$lab" "ingest t1, same $pg games repeated" "$sg" "$wall" "$sample_rate" "$(mbs "$(stat -c %s "$tmp/$name.sample.pgn")" "$wall")" "$rss_mib" "$cpu"
  fi

  px_rate=""; text_rate=""
  if [ -n "$pgnx" ]; then
    run "pgn-extract $name" "$pgnx" -s --quiet --repetition -o /dev/null "$text"
    px_rate=$(rate "$floor_games" "$wall")
    row "$lab" "pgn-extract --repetition" "($floor_games)" "$wall" "$px_rate" "$(mbs "$bytes" "$wall")" "$rss_mib" "$cpu"
    # pgn-extract reads the decompressed text, so ingest is compared on that same file too
    # (a compressed input's ingest rows include its decompression; pgn-extract's does not).
    if [ "$(readlink -f "$in")" = "$(readlink -f "$text")" ]; then
      text_rate="${ing_rate[1]}"
    else
      best "$reps" "ingest t1 $name.pgn" "$bin" ingest "$text" --out "$tmp/ds" --threads 1 --quiet
      tg=$(manifest_games "$tmp/ds/_manifest.json")
      text_rate=$(rate "$tg" "$wall")
      row "$lab" "ingest t1, decompressed text" "$tg" "$wall" "$text_rate" "$(mbs "$bytes" "$wall")" "$rss_mib" "$cpu"
    fi
    text_rate_of[$name]="$text_rate"
  fi

  # The machine's own ceiling for tN / t1: N floors at once on N cores, against one floor.
  ceiling=""
  if [ "$t_max" != 1 ]; then
    use floors
    slowest="$wall"
    ceiling=$(awk -v n="$t_max" -v one="$floor_wall" -v w="$slowest" 'BEGIN{ if (w > 0) printf "%.2f", n*one/w; else printf "-" }')
    row "$lab" "$t_max floors at once (slowest)" "$floor_games" "$slowest" "$(rate "$floor_games" "$slowest")" "$(mbs "$bytes" "$slowest")" "-" "-"
  fi

  r1=$(ratio "${ing_rate[1]}" "$floor_rate")
  ratios+=("| $lab | ingest t1 / floor | $r1 | >= 0.85 | $(ok "$r1" 0.85) |")
  if [ "$t_max" != 1 ]; then
    r2=$(ratio "${ing_rate[$t_max]}" "${ing_rate[1]}")
    want=$(awk -v t="$t_max" 'BEGIN{printf "%.1f", 0.9*t}')
    ratios+=("| $lab | ingest t$t_max / t1 | $r2 | >= $want | $(ok "$r2" "$want") |")
    ratios+=("| $lab | machine ceiling: $t_max floors at once / one floor | $ceiling | | |")
    # With one replay thread the reading and writing threads use part of another core: tN can
    # at best spread t1's CPU seconds over N cores, so tN / t1 <= N x t1 wall / t1 CPU s.
    use t1
    ratios+=("| $lab | bound on t$t_max / t1 from t1's own CPU use: $t_max x t1 wall / t1 CPU s | $(awk -v n="$t_max" -v w="$wall" -v c="$cpu" 'BEGIN{ if (c > 0) printf "%.2f", n*w/c; else printf "-" }') | | |")
    if [ -n "$core_rate" ]; then
      ratios+=("| $lab | ingest t1 on one core / floor (serial cost) | $(ratio "$core_rate" "$floor_rate") | | |")
      ratios+=("| $lab | ingest t$t_max / ingest t1 on one core (speedup over a serial run) | $(ratio "${ing_rate[$t_max]}" "$core_rate") | | |")
    fi
  fi
  if [ -n "$py_rate" ]; then
    r3=$(ratio "$sample_rate" "$py_rate")
    ratios+=("| $lab | ingest t1 / python-chess (games/s, same games) | $r3 | >= 150 | $(ok "$r3" 150) |")
  fi
  if [ -n "$px_rate" ]; then
    r4=$(ratio "$text_rate" "$px_rate")
    ratios+=("| $lab | ingest t1 / pgn-extract, both on the decompressed text | $r4 | >= 5 | $(ok "$r4" 5) |")
    if [ "$text_rate" != "${ing_rate[1]}" ]; then
      r4z=$(ratio "${ing_rate[1]}" "$px_rate")
      ratios+=("| $lab | ingest t1 on the compressed file / pgn-extract | $r4z | | |")
    fi
    if [ "$t_max" != 1 ]; then
      r5=$(ratio "${ing_rate[$t_max]}" "$px_rate")
      ratios+=("| $lab | ingest t$t_max / pgn-extract | $r5 | | |")
    fi
  fi

  # The serial stage: decompress + split as ingest --threads 1 reads this input, then
  # splitting alone on the decompressed text.
  best "$reps" "split $name" "$split" "$in"
  read -r sb _ sg _ < "$tmp/out"
  split_rate=$(rate "$sg" "$wall")
  row "$lab" "split (decompress + chunk)" "$sg" "$wall" "$split_rate" "$(mbs "$sb" "$wall")" "$rss_mib" "$cpu"
  ratios+=("| $lab | split (the reading thread) / ingest t1: workers one reader keeps busy | $(ratio "$split_rate" "${ing_rate[1]}") | >= 25 | $(ok "$(ratio "$split_rate" "${ing_rate[1]}")" 25) |")
  best "$reps" "split $name.pgn" "$split" "$text" --threads 1
  row "$lab" "split, decompressed text" "$sg" "$wall" "$(rate "$sg" "$wall")" "$(mbs "$sb" "$wall")" "$rss_mib" "$cpu"
  # The same text as ingest --threads N reads it from N = 2 on: blocks surveyed on decoder
  # threads, stitched in order on the reading thread, whose own CPU time is the serial stage.
  # The thread that reads the text into blocks (read(2)) is a serial stage too.
  stitch_cpu=""
  block_cpu=""
  for ((i = 0; i < reps; i++)); do
    run "split blocks $name.pgn" "$split" "$text" --threads "$cores"
    keep "split blocks $name.pgn"
    read -r sb _ sg _ tcpu dcpu < "$tmp/out"
    stitch_cpu=$(awk -v a="$tcpu" -v b="${stitch_cpu:-1e9}" 'BEGIN{print (a < b ? a : b)}')
    block_cpu=$(awk -v a="$dcpu" -v b="${block_cpu:-1e9}" 'BEGIN{print (a < b ? a : b)}')
  done
  use "split blocks $name.pgn"
  row "$lab" "split, decompressed text, blocks ($cores threads)" "$sg" "$wall" "$(rate "$sg" "$wall")" "$(mbs "$sb" "$wall")" "$rss_mib" "$cpu"
  if [ -n "${text_rate:-}" ]; then
    stitch_rate=$(awk -v g="$sg" -v c="$stitch_cpu" 'BEGIN{ if (c > 0) printf "%.0f", g/c; else print 0 }')
    r=$(ratio "$stitch_rate" "$text_rate")
    ratios+=("| $lab | stitching thread on the text (games per its CPU s: $stitch_rate) / ingest t1 on the text: workers it keeps busy | $r | >= 25 | $(ok "$r" 25) |")
    block_rate=$(awk -v g="$sg" -v c="$block_cpu" 'BEGIN{ if (c > 0) printf "%.0f", g/c; else print 0 }')
    r=$(ratio "$block_rate" "$text_rate")
    ratios+=("| $lab | block-reading thread on the text (read(2); games per its CPU s: $block_rate) / ingest t1 on the text: workers it keeps busy | $r | >= 25 | $(ok "$r" 25) |")
  fi
done

# --- pzstd: parallel frame decoding ------------------------------------------------------------
# On pzstd-made copies of the first input and of the last (the Lichess dump format).
pz_names=("${names[0]}")
[ "${#names[@]}" -gt 1 ] && pz_names+=("${names[-1]}")
if [ "$smoke" = 1 ]; then level=(-1); else level=(); fi
for first in "${pz_names[@]}"; do
  pzstd -q -p 2 "${level[@]}" "$tmp/$first.pgn" -o "$tmp/$first.pzst.pgn.zst"
  frames=$(zstd -lv "$tmp/$first.pzst.pgn.zst" 2>/dev/null | sed -n 's/^# Zstandard Frames: *//p')
  bytes=$(stat -c %s "$tmp/$first.pgn")
  lab="${label[$first]}"
  hashes=()
  for mode in "--threads 1" "--frames 2 --serial" "--frames 1" "--frames 2"; do
    # The hash of the bytes and game starts first (hashing byte by byte would be timed too).
    # shellcheck disable=SC2086
    run "split pzstd $mode --check" "$split" "$tmp/$first.pzst.pgn.zst" $mode --check
    read -r sb _ sg _ _ _ h < "$tmp/out"
    hashes+=("$sb:$h")
    # shellcheck disable=SC2086
    best "$reps" "split pzstd $mode" "$split" "$tmp/$first.pzst.pgn.zst" $mode
    read -r sb _ sg _ tcpu dcpu < "$tmp/out"
    case "$mode" in
      "--threads 1") label_="split pzstd ($frames frames), streaming" ;;
      *--serial) label_="split pzstd ($frames frames), 2 decoder threads, split on the reading thread" ;;
      *) label_="split pzstd ($frames frames), ${mode#--frames } decoder thread(s) surveying, stitched (reading thread $tcpu CPU s, frame-reading thread $dcpu)" ;;
    esac
    row "$lab" "$label_" "$sg" "$wall" "$(rate "$sg" "$wall")" "$(mbs "$sb" "$wall")" "$rss_mib" "$cpu"
    if [ "$mode" = "--frames 2" ] && [ -n "${text_rate_of[$first]:-}" ]; then
      for pair in "stitching thread:$tcpu" "frame-reading thread:$dcpu"; do
        r=$(awk -v g="$sg" -v c="${pair##*:}" -v t="${text_rate_of[$first]}" 'BEGIN{ if (c > 0 && t > 0) printf "%.2f", g/c/t; else print "-" }')
        ratios+=("| $lab | pzstd copy: ${pair%%:*} (games per its CPU s) / ingest t1 on the text: workers it keeps busy | $r | >= 25 | $(ok "$r" 25) |")
      done
    fi
  done
  for h in "${hashes[@]}"; do
    if [ "$h" != "${hashes[0]}" ]; then
      echo "bench: the pzstd paths gave different bytes or game starts: ${hashes[*]}" >&2; fail=1
    fi
  done
  for t in $threads_list; do
    rm -rf "$tmp/ds"
    best "$reps" "ingest pzstd --threads $t" "$bin" ingest "$tmp/$first.pzst.pgn.zst" --out "$tmp/ds" --threads "$t" --quiet
    g=$(manifest_games "$tmp/ds/_manifest.json")
    row "$lab" "ingest t$t, pzstd input" "$g" "$wall" "$(rate "$g" "$wall")" "$(mbs "$bytes" "$wall")" "$rss_mib" "$cpu"
  done
done
first="${names[0]}"

# --- many small inputs ------------------------------------------------------------------------
# A folder of small files (a per-player or per-week archive): each file is a source of its own,
# with its own partition, files and manifest entry. The first input's first games, 10 to a file,
# in 2,000 files (smoke: 50), against the same games in one file: what each input costs beyond
# its games.
n_small=2000; [ "$smoke" = 1 ] && n_small=50
mkdir -p "$tmp/small"
awk -v dir="$tmp/small" -v per=10 -v files="$n_small" '
  /^\[Event / { if (games % per == 0) { if (out) close(out); if (games / per >= files) exit; out = sprintf("%s/g%05d.pgn", dir, games / per) } games++ }
  out { print > out }' "$tmp/$first.pgn"
cat "$tmp"/small/*.pgn > "$tmp/small.pgn"
small_files=$(ls "$tmp/small" | wc -l)
best "$reps" "ingest one file" "$bin" ingest "$tmp/small.pgn" --out "$tmp/ds" --threads 1 --quiet
one_games=$(manifest_games "$tmp/ds/_manifest.json"); one_wall=$wall
row "${label[$first]}" "ingest t1, first $one_games games in one file" "$one_games" "$wall" "$(rate "$one_games" "$wall")" "-" "$rss_mib" "$cpu"
best "$reps" "ingest small files" "$bin" ingest "$tmp/small" --out "$tmp/ds" --threads 1 --quiet
dir_games=$(manifest_games "$tmp/ds/_manifest.json")
[ "$dir_games" = "$one_games" ] || { echo "bench: $dir_games games from the small files, $one_games from one" >&2; fail=1; }
row "${label[$first]}" "ingest t1, the same games in $small_files files (one source each)" "$dir_games" "$wall" "$(rate "$dir_games" "$wall")" "-" "$rss_mib" "$cpu"
per_input=$(awk -v a="$wall" -v b="$one_wall" -v n="$small_files" 'BEGIN{printf "%.1f", (a - b) * 1000 / n}')
ratios+=("| ${label[$first]} | ingest t1: $small_files small files / the same games in one file (games/s); ms per input beyond its games: $per_input | $(ratio "$one_wall" "$wall") | | |")

# --- report against DuckDB ----------------------------------------------------------------------
# `threefold report` reads the dataset back in bounded memory; DuckDB running queries/*.sql on the
# same dataset computes the same figures. The report should take at most twice DuckDB's time.
if [ -n "$py" ] && "$py" -c 'import duckdb' 2>/dev/null; then
  rm -rf "$tmp/rds"
  "$bin" ingest "$(input_of "$first")" --out "$tmp/rds" --quiet
  report_games=$(manifest_games "$tmp/rds/_manifest.json")
  best "$reps" "report" "$bin" report "$tmp/rds" --json
  report_wall=$wall
  row "${label[$first]}" "threefold report --json" "$report_games" "$wall" "$(rate "$report_games" "$wall")" "-" "$rss_mib" "$cpu"
  # Every figure per rating band too, with a filter: what `--by` and the filters cost.
  best "$reps" "report grouped" "$bin" report "$tmp/rds" --by rating-band --min-elo 1000 --json
  row "${label[$first]}" "threefold report --by rating-band --min-elo 1000 --json" "$report_games" "$wall" "$(rate "$report_games" "$wall")" "-" "$rss_mib" "$cpu"
  best "$reps" "duckdb queries" "$py" "$root/bench/queries.py" "$tmp/rds" "$root/queries"
  row "${label[$first]}" "DuckDB: queries/*.sql on the same dataset" "$report_games" "$wall" "$(rate "$report_games" "$wall")" "-" "$rss_mib" "$cpu"
  r=$(ratio "$report_wall" "$wall")
  ratios+=("| ${label[$first]} | report / DuckDB on queries/*.sql (wall time, lower is better) | $r | <= 2 | $(awk -v r="$r" 'BEGIN{ print (r != "-" && r+0 <= 2) ? "ok" : "ABOVE" }') |")
fi

# --- serial stages: instructions per thread (callgrind; machine noise does not count) -----------
# ingest --threads 8 on the first 20 MB of the first input (valgrind runs one thread at a time,
# so the count per thread does not depend on the cores): how many replay threads one reading
# thread (decompress + split) and the one in-order writing thread can each keep busy. With 8
# or more threads the columns are encoded on a pool of threads/4 (below, by the writing thread).
serial=()
# per_thread INPUT STAGE=PATTERN...: callgrind's instructions per thread of one ingest --threads 8
# on INPUT into instr[STAGE], summed over the threads whose profile holds PATTERN (the first
# pattern that matches names a thread's stage).
declare -A instr=()
per_thread() {
  local input="$1" f n pair; shift
  instr=()
  rm -rf "$tmp/ds" "$tmp"/cg.out*
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$tmp/cg.out" \
    "$bin" ingest "$input" --out "$tmp/ds" --threads 8 --quiet > /dev/null 2>&1
  for f in "$tmp"/cg.out-*; do
    n=$(sed -n 's/^summary: //p' "$f")
    for pair in "$@"; do
      if grep -q "${pair#*=}" "$f"; then instr[${pair%%=*}]=$((${instr[${pair%%=*}]:-0} + n)); break; fi
    done
  done
}
# serial_row LABEL STAGE: a row of the serial-stage table from instr.
serial_row() {
  serial+=("| $1 | ${instr[$2]:-?} | ${instr[replay]:-?} | $(ratio "${instr[replay]:-0}" "${instr[$2]:-0}") |")
}
if [ "$smoke" = 0 ] && command -v valgrind >/dev/null; then
  head -c 20000000 "$tmp/$first.pgn" > "$tmp/cg.head"
  last=$(grep -an '^\[Event ' "$tmp/cg.head" | tail -n 1 | cut -d: -f1)
  head -n "$(( ${last:-1} - 1 ))" "$tmp/cg.head" > "$tmp/cg.pgn"
  zstd -q -3 "$tmp/cg.pgn" -o "$tmp/cg.pgn.zst"
  per_thread "$tmp/cg.pgn.zst" replay=replay_chunk read=read_input 'write=fn=.*cli::main' encode=ArrowColumnWriter
  serial_row "$first (20 MB, zstd) | read thread" read
  serial_row "$first (20 MB, zstd) | write thread" write
  serial_row "$first (20 MB, zstd) | column encoding (1 thread per 4 replay threads)" encode
  # The same 20 MB as plain text: read in blocks that decoder threads survey; the reading thread
  # only stitches (its copies count one instruction per byte: pessimistic).
  per_thread "$tmp/cg.pgn" replay=replay_chunk stitch=Stitcher survey=Survey dispatch=dispatch_at
  serial_row "$first (20 MB, plain text) | reading thread (stitching surveyed blocks)" stitch
  serial_row "$first (20 MB, plain text) | dispatcher (hands out block numbers; each decoder thread reads its blocks)" dispatch
  serial_row "$first (20 MB, plain text) | reading blocks (pread) and surveying them (4 decoder threads, in parallel)" survey
fi

# --- report ----------------------------------------------------------------------------------
echo
echo "threefold benchmark$([ "$smoke" = 1 ] && echo " (smoke: first 1.5 MB of each file)"): $(date -u +%Y-%m-%d), $cores cores ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)), load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| input | run | games | wall s | games/s | MB/s | peak RSS MiB | CPU s | games/CPU-s |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
echo "| input | ratio | value | target | |"
echo "|---|---|---:|---|---|"
printf '%s\n' "${ratios[@]}"
if [ "${#serial[@]}" -gt 0 ]; then
  echo
  echo "| input | serial stage | instructions | all replay threads' instructions | replay threads one such thread feeds |"
  echo "|---|---|---:|---:|---:|"
  printf '%s\n' "${serial[@]}"
fi
# The guard against a regression landing unseen: instructions per game on fixed slices
# (bench/instructions.sh --check) against the recorded baseline, within 2%.
if [ "$smoke" = 1 ]; then
  if ! command -v valgrind >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "bench: installing valgrind (Debian package)" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind) >/dev/null 2>&1 || true
  fi
  if ! command -v valgrind >/dev/null; then
    skipped "the bench smoke's instruction counts" "valgrind is not installed and cannot be (root and apt-get)"
  elif ! [ -f "$corpus/otb/pgnmentor-players.pgn.zst" ] || ! [ -f "$corpus/lichess/lichess-2021-10-01-clocks-sample.pgn" ]; then
    skipped "the bench smoke's instruction counts" "the corpus files of its slices are not in $corpus"
  else
    echo
    t0=$(date +%s)
    bash bench/instructions.sh --check --corpus "$corpus" || fail=1
    echo "instructions: counted in $(( $(date +%s) - t0 )) s"
  fi
fi
if [ "$smoke" = 1 ]; then
  [ "$fail" = 0 ] && echo "bench smoke: 1 passed, 0 failed" || { echo "bench smoke: 0 passed, 1 failed"; exit 1; }
fi
exit "$fail"
