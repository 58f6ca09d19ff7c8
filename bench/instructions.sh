#!/usr/bin/env bash
# Instructions per game of `threefold ingest --threads 1` on fixed slices of the corpus, counted
# by callgrind (machine noise does not count), whole process and per stage (thread).
#
#   bash bench/instructions.sh                    # prints the counts (TSV)
#   bash bench/instructions.sh --check            # and fails if a slice's total or its replay
#                                                 # thread grew by more than 2% per game against
#                                                 # bench/instructions-baseline.tsv, naming the
#                                                 # stages that grew
#   bash bench/instructions.sh --record "REASON"  # rewrites the baseline (commit, date, reason);
#                                                 # say why in docs/performance.md too
# Options: --bin PATH (default target/release/threefold), --corpus DIR, --out FILE (the TSV),
# --tolerance PCT (default 2).
#
# The slices: the first 2 MB of otb/pgnmentor-players.pgn.zst decompressed and the first 2 MB of
# lichess/lichess-2021-10-01-clocks-sample.pgn, each cut before its last `[Event ` line, read as
# plain text. Stages: the whole process ("total"), the replay thread ("replay": scanning, replay,
# the tables' rows), the reading thread ("read"), the other threads ("write": the main thread,
# which encodes and writes the Parquet files, and counts the summary); and within a stage, the
# inclusive counts of a few functions (the replay.* rows: the movetext, SAN to move and play with
# the positions counted, the end of a game with its venue and fingerprint, the batch's columns;
# the write.* rows: the summary's counting, the Parquet writing).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
bin="$root/target/release/threefold"
corpus="${THREEFOLD_CORPUS:-$root/../shared/corpus}"
baseline="$root/bench/instructions-baseline.tsv"
mode=print
reason=""
out=""
tolerance=2
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift ;;
    --corpus) corpus="$2"; shift ;;
    --out) out="$2"; shift ;;
    --check) mode=check ;;
    --record) mode=record; reason="$2"; shift ;;
    --tolerance) tolerance="$2"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "bench/instructions.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
command -v valgrind >/dev/null || { echo "bench/instructions.sh: valgrind is not installed" >&2; exit 3; }
[ -x "$bin" ] || { echo "bench/instructions.sh: no binary at $bin" >&2; exit 2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# slice NAME FILE: the first 2 MB of FILE (decompressed), cut before its last game start.
slice() {
  case "$2" in *.zst) zstd -dcq "$2" | head -c 2000000 > "$tmp/head" || true ;; *) head -c 2000000 "$2" > "$tmp/head" ;; esac
  local last
  last=$(grep -an '^\[Event ' "$tmp/head" | tail -n 1 | cut -d: -f1)
  head -n "$(( ${last:-1} - 1 ))" "$tmp/head" > "$tmp/$1.pgn"
  rm "$tmp/head"
}
slices=(pgnmentor-2MB:otb/pgnmentor-players.pgn.zst clocks-2MB:lichess/lichess-2021-10-01-clocks-sample.pgn)
# Functions counted inclusively within a stage's thread (a name each, STAGE.what, and a pattern
# callgrind_annotate's output lines match: the function's own line, "[binary]" after its name):
# where in a stage a growth is. Only functions the optimizer keeps count; one it inlines reads 0,
# so the script says so, and refuses to record a baseline with such a row.
groups=(
  "replay.mainline:pgn::GameVisitor::replay_mainline ["
  "replay.play_san:engine::replay::Replay<R>::play_san ["
  "replay.game_end:pgn::GameVisitor::finish ["
  "replay.venue:pgn::venue::Venue::infer ["
  "replay.fingerprint:engine::fingerprint::fingerprint ["
  "replay.batch:dataset::schema::BatchBuilder::finish ["
  "write.summary:summary::Keyed as threefold_dataset::partition::Summarizer>::add ["
  "write.parquet:parquet_file::ParallelWriter::write ["
)

result="$tmp/result.tsv"
printf 'slice\tstage\tgames\tinstructions_per_game\n' > "$result"
for s in "${slices[@]}"; do
  name="${s%%:*}"; src="$corpus/${s#*:}"
  [ -f "$src" ] || { echo "bench/instructions.sh: missing $src" >&2; exit 3; }
  slice "$name" "$src"
  games=$(grep -c '^\[Event ' "$tmp/$name.pgn")
  rm -rf "$tmp/ds" "$tmp"/cg.*
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$tmp/cg.out" \
    "$bin" ingest "$tmp/$name.pgn" --out "$tmp/ds" --threads 1 --quiet > /dev/null 2> "$tmp/vg.err" \
    || { echo "bench/instructions.sh: ingest under valgrind failed:" >&2; tail -n 5 "$tmp/vg.err" >&2; exit 1; }
  declare -A n=()
  for f in "$tmp"/cg.out-*; do
    c=$(sed -n 's/^summary: //p' "$f")
    if grep -q 'replay_chunk\|GameVisitor::read_chunk' "$f"; then stage=replay
    elif grep -q 'read_input' "$f"; then stage=read
    else stage=write; fi
    n[$stage]=$(( ${n[$stage]:-0} + c ))
    n[total]=$(( ${n[total]:-0} + c ))
    # From outside the source tree: run in it, callgrind_annotate 3.19 shortens the paths under
    # the current folder and then adds up part of a function's inclusive count (play_san read a
    # fifth of itself).
    (cd / && callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null) > "$tmp/annot"
    for g in "${groups[@]}"; do
      [ "${g%%.*}" = "$stage" ] || continue
      # the largest inclusive count of a line naming the function (its outermost call)
      v=$( (grep -F -- "${g#*:}" "$tmp/annot" || true) | awk '{gsub(",", "", $1); if ($1+0 > m) m = $1+0} END {print m+0}')
      n[${g%%:*}]=$(( ${n[${g%%:*}]:-0} + v ))
    done
  done
  for g in "${groups[@]%%:*}"; do
    if [ "${n[$g]:-0}" = 0 ]; then
      echo "bench/instructions.sh: $name: row $g counted nothing: its function is inlined or renamed; name another" >&2
      dead=1
    fi
  done
  for stage in total replay read write "${groups[@]%%:*}"; do
    printf '%s\t%s\t%s\t%s\n' "$name" "$stage" "$games" \
      "$(awk -v a="${n[$stage]:-0}" -v g="$games" 'BEGIN{printf "%.0f", a/g}')" >> "$result"
  done
  unset n
done
[ -n "$out" ] && cp "$result" "$out"
cat "$result"

case "$mode" in
  record)
    [ -z "${dead:-}" ] || { echo "bench/instructions.sh: not recorded: a row counted nothing (above)" >&2; exit 1; }
    {
      echo "# Instructions per game of threefold ingest --threads 1 (callgrind), written by"
      echo "# bench/instructions.sh --record; the smoke run fails when a slice's total or replay thread"
      echo "# grows by more than 2%. Update it on purpose only, with the reason in docs/performance.md."
      echo "# commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src Cargo.lock || echo ' (with uncommitted changes)')"
      echo "# date: $(date -u +%Y-%m-%d)"
      echo "# valgrind: $(valgrind --version)"
      echo "# reason: $reason"
      cat "$result"
    } > "$baseline"
    echo "bench/instructions.sh: recorded $baseline"
    ;;
  check)
    [ -f "$baseline" ] || { echo "bench/instructions.sh: no baseline at $baseline (record one with --record)" >&2; exit 1; }
    # Checked: each slice's whole-process count and its replay thread's (the per-game work, which
    # a slice's fixed start-up and writer costs would otherwise dilute).
    awk -F'\t' -v tol="$tolerance" -v base_commit="$(sed -n 's/^# commit: //p' "$baseline")" '
      FNR == 1 { file++ }
      /^#/ || $1 == "slice" { next }
      file == 1 { base[$1 "\t" $2] = $4; next }
      { now[$1 "\t" $2] = $4; if ($2 == "total") slices[$1] = 1 }
      END {
        bad = 0
        for (s in slices) {
          grew = 0
          for (i = 1; i <= 2; i++) {
            st = (i == 1 ? "total" : "replay")
            b = base[s "\t" st]; n = now[s "\t" st]
            if (b == "") { printf "instructions: %s: no baseline for %s\n", s, st; bad = 1; continue }
            pct = (n - b) * 100 / b
            printf "instructions: %s %s: %d per game, baseline %d (%+.2f%%, tolerance %s%%)\n", s, st, n, b, pct, tol
            if (pct > tol) grew = 1
          }
          if (!grew) continue
          bad = 1
          t = base[s "\ttotal"]
          for (k in now) {
            split(k, p, "\t")
            if (p[1] != s || p[2] == "total" || !(k in base)) continue
            d = now[k] - base[k]
            # a stage that grew by more than a quarter of the tolerance, in share of the total
            if (d * 100 / t > tol / 4)
              printf "instructions: %s: stage %s grew by %d per game (%+.2f%% of the total; %d -> %d)\n", s, p[2], d, d * 100 / t, base[k], now[k]
          }
        }
        if (bad) printf "instructions: FAILED against the baseline of %s (bench/instructions-baseline.tsv)\n", base_commit
        exit bad
      }' "$baseline" "$result"
    ;;
esac
