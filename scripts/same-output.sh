#!/usr/bin/env bash
# Whether the working tree's threefold writes exactly what REV's writes: the check a structural
# or speed commit must pass ("behaviour unchanged").
#
#   bash scripts/same-output.sh --against REV [--corpus DIR] [--quick]
#
# Builds REV (in a temporary worktree, its target seeded from ours) and the working tree, then
#   - ingests the whole corpus folder as one dataset at --threads 1 and at --threads 2 with each
#     and compares every Parquet file byte for byte (and views.sql);
#   - compares `dump` of every corpus file, `report` (text and --json, from the summary and
#     with --scan from the games) of the dataset, and
#     `explain` (text and --html) of a few games, among them a variant game.
# --quick: only the smaller corpus folders (no pgnmentor, no TCEC cups). Prints each difference
# and exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
corpus="${THREEFOLD_CORPUS:-$root/../shared/corpus}"
against="" quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --against) against="$2"; shift ;;
    --corpus) corpus="$2"; shift ;;
    --quick) quick=1 ;;
    *) echo "same-output: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$against" ] || { echo "same-output: --against REV is required" >&2; exit 2; }
[ -d "$corpus" ] || { echo "same-output: no corpus at $corpus" >&2; exit 2; }
rev=$(git rev-parse --verify "$against^{commit}")

work=$(mktemp -d /tmp/same-output.XXXXXX)
trap 'git worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add --detach -q "$work/old" "$rev"
mkdir -p "$work/old/target"
[ -d target/release ] && cp -a target/release "$work/old/target/" 2>/dev/null || true
echo "same-output: building $rev and the working tree" >&2
(cd "$work/old" && cargo build --release --quiet --bin threefold)
cargo build --release --quiet --bin threefold
old="$work/old/target/release/threefold" new="$root/target/release/threefold"

input="$work/corpus"
mkdir -p "$input"
for f in "$corpus"/*/*.pgn "$corpus"/*/*.pgn.zst; do
  case "$f" in
    */pgnmentor-players.pgn.zst|*/tcec-cups.pgn.zst) [ "$quick" = 1 ] && continue ;;
  esac
  # One flat folder of links: the whole corpus as one dataset, sources named by file.
  ln -s "$f" "$input/$(basename "$(dirname "$f")")-$(basename "$f")"
done

differ=0
same() { # label, file A, file B
  if ! cmp -s "$2" "$3"; then echo "DIFFERS: $1" >&2; differ=1; fi
}
# Text that names the dataset's folder: compared with each side's folder written as DIR.
same_text() { # label, file A, file B
  sed "s#$work/old#$work/SIDE#g" "$2" >"$work/a.txt"
  sed "s#$work/new#$work/SIDE#g" "$3" >"$work/b.txt"
  same "$1" "$work/a.txt" "$work/b.txt"
}
for threads in 1 2; do
  for side in old new; do
    bin=${!side}
    "$bin" ingest "$input" --out "$work/$side-t$threads" --threads "$threads" --quiet 2>"$work/$side-t$threads.err" \
      || echo "same-output: $side ingest --threads $threads exited $? (compared anyway)" >&2
  done
  n=0
  while IFS= read -r -d '' p; do
    rel=${p#"$work/old-t$threads/"}
    if [ -f "$work/new-t$threads/$rel" ]; then same "t$threads $rel" "$p" "$work/new-t$threads/$rel"
    else echo "DIFFERS: t$threads $rel missing in the working tree's" >&2; differ=1; fi
    n=$((n + 1))
  done < <(find "$work/old-t$threads" -name '*.parquet' -print0)
  m=$(find "$work/new-t$threads" -name '*.parquet' | wc -l)
  [ "$n" = "$m" ] || { echo "DIFFERS: t$threads $n Parquet files against $m" >&2; differ=1; }
  same_text "t$threads views.sql" "$work/old-t$threads/views.sql" "$work/new-t$threads/views.sql"
  echo "same-output: --threads $threads: $n Parquet files compared" >&2
done

for f in "$input"/*; do
  for side in old new; do "${!side}" dump "$f" >"$work/$side.dump" 2>&1 || true; done
  same "dump $(basename "$f")" "$work/old.dump" "$work/new.dump"
done
mkdir -p "$work/old-page" "$work/new-page"
# --scan: the same figures counted from the games, not the summary.
for args in "" "--json" "--by source --json" "--scan --json" "--scan --by venue --json" "--html $work/SIDE-page/report.html"; do
  for side in old new; do
    status=0
    # shellcheck disable=SC2086 # the arguments are words
    "${!side}" report "$work/$side-t1" ${args//SIDE/$side} >"$work/$side.report" 2>&1 || status=$?
    echo "exit status $status" >>"$work/$side.report"
  done
  same_text "report $args" "$work/old.report" "$work/new.report"
  # Both sides failing alike would compare as identical: every report here must succeed.
  [ "$(tail -n 1 "$work/new.report")" = "exit status 0" ] \
    || { echo "DIFFERS: report $args failed: $(tail -n 2 "$work/new.report" | head -n 1)" >&2; differ=1; }
  case "$args" in
    --html*)
      same_text "report --html page" "$work/old-page/report.html" "$work/new-page/report.html"
      for p in "$work"/old-page/report-games/*.html; do
        same_text "report --html $(basename "$p")" "$p" "$work/new-page/report-games/$(basename "$p")"
      done ;;
  esac
done
explain() { # file, game
  for side in old new; do
    "${!side}" explain "$1" --game "$2" >"$work/$side.explain" 2>&1 || true
    rm -f "$work/$side.html"
    "${!side}" explain "$1" --game "$2" --html "$work/$side.html" >/dev/null 2>&1 || true
  done
  same "explain $(basename "$1") $2" "$work/old.explain" "$work/new.explain"
  grep -q . "$work/new.html" 2>/dev/null || { echo "DIFFERS: explain $(basename "$1") $2 wrote no page" >&2; differ=1; }
  same "explain --html $(basename "$1") $2" "$work/old.html" "$work/new.html"
}
explain "$corpus/otb/karpov_miles_tilburg_1986.pgn" 1021
# The first game with events of each of these sources (its key from the events table).
for source in edge-3fold variants-zh variants-atomic variants-antichess-programfox; do
  game=$("${PYTHON:-.venv/bin/python}" -c '
import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1], columns=["frame_offset", "byte_offset"])
print(min(zip(t["frame_offset"].to_pylist(), t["byte_offset"].to_pylist()), default=(0, 0))[1])' \
    "$work/old-t1/events/source=$source")
  explain "$input/$source.pgn" "$game"
done

if [ "$differ" = 0 ]; then echo "same-output: identical to $rev" >&2; else echo "same-output: differs from $rev" >&2; exit 1; fi
