#!/usr/bin/env bash
# Resuming inside an input: a pzstd input of about 400,000 games in parts of 20,000
# (pgnmentor-players recompressed with pzstd; without the corpus, a sample repeated to about the
# same size) is ingested
# once uninterrupted (timed), then again into another dataset and killed with SIGKILL once about
# 70% of its games are in staged parts, then rerun (timed). The rerun must resume after the staged
# parts, entering the file at the frame of the last staged game — its wall time at most half the
# uninterrupted run's (the ratio is printed) — and leave exactly the uninterrupted run's rows
# (tests/harness/shard/compare.py: both tables, EXCEPT ALL both ways).
# Usage: tests/harness/crash/resume.sh   (needs the release build, pzstd, and .venv with pyarrow)
set -euo pipefail
source "$(dirname "$0")/common.sh"
work="$(mktemp -d)"; trap 'kill -9 "${pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
command -v pzstd >/dev/null || { echo "resume: pzstd is missing (Debian package zstd)"; exit 1; }
if have_corpus "resume test on pgnmentor-players (a sample repeated instead)"; then
  zstd -dcq "$corpus/otb/pgnmentor-players.pgn.zst" > "$work/big.pgn"
else
  repeated_sample lichess_db_standard_rated_2013-01-first300.pgn 1300 "$work/big.pgn"
fi
pzstd -q -p 2 --rm "$work/big.pgn" -o "$work/big.pgn.zst"
part=20000
ingest() { "$bin" ingest "$work/big.pgn.zst" --out "$1" --part-games "$part" --quiet; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
begun=$(now_ms)
ingest "$work/reference"
whole_ms=$(( $(now_ms) - begun ))
games=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["games"])' "$work/reference/_manifest.json")
[ "$games" -ge 350000 ] || { echo "resume: only $games games"; exit 1; }

# Killed once the staged parts hold about 70% of the games.
"$bin" ingest "$work/big.pgn.zst" --out "$work/crashed" --part-games "$part" --quiet &
pid=$!
record="$work/crashed/.staging/source=big.json"
staged_games() {
  "$py" -c 'import json,sys
try: print(json.load(open(sys.argv[1]))["counts"]["games"])
except Exception: print(0)' "$record"
}
staged=0
while kill -0 "$pid" 2>/dev/null; do
  staged=$(staged_games)
  if [ "$staged" -ge $(( games * 7 / 10 )) ]; then kill -9 "$pid"; break; fi
  sleep 0.2
done
wait "$pid" 2>/dev/null || true
# What the killed run left staged: it may have staged another part between the poll and the kill.
staged=$(staged_games)
[ "$staged" -ge $(( games * 7 / 10 )) ] || { echo "resume: the run ended before 70% of its games were staged"; exit 1; }
[ ! -e "$work/crashed/games/source=big" ] || { echo "resume: the killed run's partition is in place"; exit 1; }

begun=$(now_ms)
said=$("$bin" ingest "$work/big.pgn.zst" --out "$work/crashed" --part-games "$part" 2>&1)
rerun_ms=$(( $(now_ms) - begun ))
grep -q "resuming after $staged games" <<<"$said" || { echo "resume: the rerun did not resume after $staged games: $said"; exit 1; }
check_files "$work/crashed"
# The same rows (the parts after the resume point may be cut at other games: the rerun enters the
# file at the frame of the last staged game, so its chunks fall elsewhere).
"$py" "$root/tests/harness/shard/compare.py" "$work/reference" "$work/crashed" > "$work/compare.txt" ||
  { cat "$work/compare.txt"; echo "resume: the resumed dataset differs from the uninterrupted run's"; exit 1; }
ratio=$(awk -v r="$rerun_ms" -v w="$whole_ms" 'BEGIN { printf "%.2f", r / w }')
echo "resume: $games games; killed after $staged staged games; uninterrupted $whole_ms ms, rerun $rerun_ms ms: ratio $ratio (at most 0.50); the same rows in both tables"
awk -v r="$ratio" 'BEGIN { exit !(r <= 0.5) }' || { echo "resume: the rerun took more than half an uninterrupted run"; exit 1; }
