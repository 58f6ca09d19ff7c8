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
# Usage: tests/crash/sigkill.sh [KILLS]   (needs the release build and .venv with pyarrow)
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
present = {d.name.removeprefix("source=") for t in ("games", "events") if (out / t).is_dir()
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
            for t in ("games", "events") for p in (root / t / f"source={source}").rglob("*") if p.is_file()}
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
"$bin" ingest "${inputs[@]}" --out "$work/crashed" --quiet
check_files "$work/crashed"
check_manifest "$work/crashed"
# Same Parquet bytes as the uninterrupted run, and no leftovers of the killed runs.
(cd "$work/reference" && find games events -type f | sort | xargs sha256sum) > "$work/ref.sum"
(cd "$work/crashed" && find games events -type f | sort | xargs sha256sum) > "$work/got.sum"
diff "$work/ref.sum" "$work/got.sum"
# (The lock files stay: the system releases a lock when its process ends.)
leftovers=$(cd "$work/crashed" && find . -name '.*' ! -name . ! -path './.locks*' | sort)
[ -z "$leftovers" ] || { echo "left over after the rerun: $leftovers"; exit 1; }
# And the manifest of an uninterrupted run (but for the timings).
manifest_without_seconds() {
  "$py" -c 'import json, sys
m = json.load(open(sys.argv[1]))
for e in m["inputs"]:
    e.pop("seconds")
    if e["status"] == "up_to_date": e["status"] = "ok"  # committed before a kill, skipped by the rerun
print(json.dumps(m, indent=1, sort_keys=True))' "$1/_manifest.json"
}
diff <(manifest_without_seconds "$work/reference") <(manifest_without_seconds "$work/crashed")
echo "crash safety: $runs runs killed, $killed while running, $midrun of them leaving unfinished work; every listed partition equals the uninterrupted run's; rerun equals an uninterrupted run"
[ $((2 * midrun)) -ge "$runs" ] || { echo "crash safety: only $midrun of $runs kills landed mid-run (seed $seed)"; exit 1; }
echo "crash safety: 1 passed, 0 failed"
