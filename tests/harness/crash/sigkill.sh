#!/usr/bin/env bash
# Crash safety: kill `threefold ingest` with SIGKILL at random moments of a multi-input job,
# drawn over the measured length of an uninterrupted run. After every kill each Parquet file
# under the output must open with its footer (nothing truncated looks finished), the manifest
# must list the partitions present, but for those whose commit record is still there (the next
# run finishes such a commit and writes its entry), and every partition the manifest lists must
# be byte for byte the uninterrupted run's. At least half the kills must land mid-run, shown by
# unfinished work left behind (a staging folder, a commit record, or sources not yet written).
# After the last kill a rerun must give exactly the dataset and manifest of an uninterrupted run,
# and leave no record or temporary folder.
# Then kills inside a commit, which random moments almost never hit: tests/harness/crash/pause_at.c,
# preloaded into the release binary (the binary has no hook of its own), stops the run right
# after one of a commit's renames — the record in place, the games folder swapped in, the events
# folder too, all three (games, events, summary) swapped (manifest not yet updated) — and the
# run is killed there, at each point once into a
# new folder and once into the reused one (each must be reached: else the test fails). The same
# checks follow each of these kills, and a rerun into the new folder must give the uninterrupted
# run's dataset and manifest.
# Usage: tests/harness/crash/sigkill.sh [KILLS]   (needs the release build, cc, and .venv with pyarrow)
#   SIGKILL_SEED=N  repeats a run's kill moments (each run prints its seed)
set -euo pipefail
source "$(dirname "$0")/common.sh"
kills="${1:-20}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
if have_corpus "SIGKILL during ingest of corpus files (sample data repeated instead)"; then
  inputs=("$corpus/lichess" "$corpus/otb/world-championship-matches.pgn" "$corpus/engine/tcec-cups.pgn.zst")
else
  mkdir "$work/in"
  repeated_sample lichess_db_standard_rated_2013-01-first300.pgn 60 "$work/in/lichess.pgn"
  repeated_sample tcec-chess960-game35.pgn 300 "$work/in/tcec.pgn"
  zstd -q --rm "$work/in/tcec.pgn"
  inputs=("$work/in/lichess.pgn" "$root/data-samples" "$work/in/tcec.pgn.zst")
fi

# The manifest is updated after each source's partition is committed, so it lists every partition
# present, except in one window: from a commit's first swap to that manifest write. The commit's
# record (DIR/.commit-source=NAME-PID.json, with the entry) stays until then, and the next run
# finishes the commit and writes the entry. So a partition may lack its entry only beside its record.
check_manifest() {
  "$py" - "$1" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
present = {d.name.removeprefix("source=") for t in ("games", "events", "summary") if (out / t).is_dir()
           for d in (out / t).iterdir() if d.name.startswith("source=")}
try:
    inputs = json.loads((out / "_manifest.json").read_text())["inputs"]
except FileNotFoundError:
    inputs = []
listed = {e["source"] for e in inputs if e["status"] in ("ok", "up_to_date")}
missing = sorted(s for s in present - listed if not list(out.glob(f".commit-source={s}-*.json")))
if missing:
    print(f"partitions without a manifest entry or a commit record: {missing}"); sys.exit(1)
PY
}

# Every partition the manifest lists holds the uninterrupted run's files, byte for byte. Prints
# "unfinished" when the run left work undone: a staging folder or commit record, or fewer
# sources than the uninterrupted run.
check_partitions() {
  "$py" - "$1" "$work/reference" <<'PY'
import hashlib, json, pathlib, sys
out, ref = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
def files(root, source):
    return {p.relative_to(root): hashlib.sha256(p.read_bytes()).hexdigest()
            for t in ("games", "events", "summary") for p in (root / t / f"source={source}").rglob("*") if p.is_file()}
try:
    inputs = json.loads((out / "_manifest.json").read_text())["inputs"]
except FileNotFoundError:
    inputs = []
listed = sorted(e["source"] for e in inputs if e["status"] in ("ok", "up_to_date"))
for source in listed:
    if files(out, source) != files(ref, source):
        print(f"partition {source} differs from the uninterrupted run's"); sys.exit(1)
all_sources = {e["source"] for e in json.loads((ref / "_manifest.json").read_text())["inputs"]}
staged = [p for p in out.rglob(".*") if p.name.startswith((".tmp-", ".commit-", ".staging"))]
if staged or set(listed) != all_sources:
    print("unfinished")
PY
}

# Starts the job into $1, kills it at a random moment of the uninterrupted run's length, checks
# what it left.
kill_run() {
  local delay state
  delay=$(awk -v r="$RANDOM" -v ms="$run_ms" 'BEGIN { printf "%.3f", (0.05 + 0.9 * (r % 1000) / 1000) * ms / 1000 }')
  # --force: into a dataset that has them, the inputs would be up to date (and the run over at once).
  "$bin" ingest "${inputs[@]}" --out "$1" --quiet --force &
  pid=$!
  sleep "$delay"
  if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
  wait "$pid" 2>/dev/null || true
  check_files "$1" || { echo "kill $i (after $delay s) left a truncated Parquet file"; exit 1; }
  check_manifest "$1" || { echo "kill $i (after $delay s) left partitions the manifest does not list"; exit 1; }
  state=$(check_partitions "$1") || { echo "kill $i (after $delay s): $state"; exit 1; }
  if [ "$state" = unfinished ]; then midrun=$((midrun + 1)); fi
  runs=$((runs + 1))
}

seed="${SIGKILL_SEED:-$(( $(date +%s%N) % 32768 ))}"
RANDOM=$seed
begun=$(date +%s%N)
"$bin" ingest "${inputs[@]}" --out "$work/reference" --quiet
run_ms=$(( ($(date +%s%N) - begun) / 1000000 ))
echo "crash safety: seed $seed (SIGKILL_SEED), uninterrupted run $run_ms ms"
killed=0; midrun=0; runs=0
for i in $(seq 1 "$kills"); do
  kill_run "$work/crashed"
  # In the reused directory, entries of earlier runs hide a missing one; every other time, kill a
  # run into a new directory too, where they cannot.
  if [ $((i % 2)) -eq 1 ]; then rm -rf "$work/fresh"; kill_run "$work/fresh"; fi
done
# rerun_equals DIR: a rerun into DIR gives the uninterrupted run's Parquet bytes and manifest
# (but for the timings), and leaves no record or temporary folder.
manifest_without_seconds() {
  "$py" -c 'import json, sys
m = json.load(open(sys.argv[1]))
for e in m["inputs"]:
    e.pop("seconds")
    if e["status"] == "up_to_date": e["status"] = "ok"  # committed before a kill, skipped by the rerun
print(json.dumps(m, indent=1, sort_keys=True))' "$1/_manifest.json"
}
rerun_equals() {
  local leftovers
  "$bin" ingest "${inputs[@]}" --out "$1" --quiet
  check_files "$1"
  check_manifest "$1"
  # Same Parquet bytes as the uninterrupted run, and no leftovers of the killed runs.
  (cd "$work/reference" && find games events summary -type f | sort | xargs sha256sum) > "$work/ref.sum"
  (cd "$1" && find games events summary -type f | sort | xargs sha256sum) > "$work/got.sum"
  diff "$work/ref.sum" "$work/got.sum"
  # (The lock files stay: the system releases a lock when its process ends.)
  leftovers=$(cd "$1" && find . -name '.*' ! -name . ! -path './.locks*' | sort)
  [ -z "$leftovers" ] || { echo "left over after the rerun: $leftovers"; exit 1; }
  diff <(manifest_without_seconds "$work/reference") <(manifest_without_seconds "$1")
}
rerun_equals "$work/crashed"
echo "crash safety: $runs runs killed, $killed while running, $midrun of them leaving unfinished work; every listed partition equals the uninterrupted run's; rerun equals an uninterrupted run"
[ $((2 * midrun)) -ge "$runs" ] || { echo "crash safety: only $midrun of $runs kills landed mid-run (seed $seed)"; exit 1; }

# Kills inside a commit, at each pause point of pause_at.c, into a new folder and the reused one.
cc -shared -fPIC -O2 -o "$work/pause_at.so" "$root/tests/harness/crash/pause_at.c" -ldl
# pause_kill DIR POINT: runs until a commit reaches POINT (at most a minute), kills it there.
pause_kill() {
  local i
  rm -f "$work/paused"
  LD_PRELOAD="$work/pause_at.so" THREEFOLD_TEST_PAUSE_AT="$2" THREEFOLD_TEST_PAUSE_FILE="$work/paused" \
    "$bin" ingest "${inputs[@]}" --out "$1" --quiet --force &
  pid=$!
  for ((i = 0; i < 600; i++)); do
    [ -s "$work/paused" ] && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  kill -9 "$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  [ -s "$work/paused" ] || { echo "crash safety: no commit reached the pause point $2"; exit 1; }
  # Inside a commit: its record stays until the manifest lists the entry.
  compgen -G "$1/.commit-source=*.json" > /dev/null ||
    { echo "kill at $2 ($(cat "$work/paused")) left no commit record"; exit 1; }
  check_files "$1" || { echo "kill at $2 ($(cat "$work/paused")) left a truncated Parquet file"; exit 1; }
  check_manifest "$1" || { echo "kill at $2 ($(cat "$work/paused")) left partitions the manifest does not list"; exit 1; }
  check_partitions "$1" > "$work/state" || { echo "kill at $2 ($(cat "$work/paused")): $(cat "$work/state")"; exit 1; }
  inside=$((inside + 1))
}
inside=0
for point in record games-swapped events-swapped summary-swapped; do
  rm -rf "$work/fresh"
  pause_kill "$work/fresh" "$point"
  rerun_equals "$work/fresh"
  pause_kill "$work/crashed" "$point"
done
rerun_equals "$work/crashed"
echo "crash safety: $inside runs killed inside a commit (after its record, after the games swap, after the events swap, after all three swaps; each into a new folder and the reused one): every listed partition equals the uninterrupted run's; reruns equal an uninterrupted run"
echo "crash safety: 1 passed, 0 failed"
