#!/usr/bin/env bash
# Crash safety: kill `threefold ingest` with SIGKILL at random moments of a multi-input job. After
# every kill each Parquet file under the output must open with its footer (nothing truncated
# looks finished) and the manifest must list the partitions present, but for those whose commit
# record is still there (the next run finishes such a commit and writes its entry); after the
# last kill a rerun must give exactly the dataset and manifest of an uninterrupted run, and leave
# no record or temporary folder.
# Usage: tests/crash/sigkill.sh [KILLS]   (needs the release build and .venv with pyarrow)
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
listed = {e["source"] for e in inputs if e["status"] == "ok"}
missing = sorted(s for s in present - listed if not list(out.glob(f".commit-source={s}-*.json")))
if missing:
    print(f"partitions without a manifest entry or a commit record: {missing}"); sys.exit(1)
PY
}

# Starts the job into $1, kills it at a random moment, checks what it left.
kill_run() {
  "$bin" ingest "${inputs[@]}" --out "$1" --quiet &
  pid=$!
  sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.02 + (r % 150) / 100 }')"
  if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
  wait "$pid" 2>/dev/null || true
  check_files "$1" || { echo "kill $i left a truncated Parquet file"; exit 1; }
  check_manifest "$1" || { echo "kill $i left partitions the manifest does not list"; exit 1; }
}

"$bin" ingest "${inputs[@]}" --out "$work/reference" --quiet
killed=0
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
leftovers=$(cd "$work/crashed" && find . -name '.*' ! -name . | sort)
[ -z "$leftovers" ] || { echo "left over after the rerun: $leftovers"; exit 1; }
# And the manifest of an uninterrupted run (but for the timings).
manifest_without_seconds() {
  "$py" -c 'import json, sys
m = json.load(open(sys.argv[1]))
for e in m["inputs"]: e.pop("seconds")
print(json.dumps(m, indent=1, sort_keys=True))' "$1/_manifest.json"
}
diff <(manifest_without_seconds "$work/reference") <(manifest_without_seconds "$work/crashed")
echo "crash safety: $killed kills mid-run of $((kills + (kills + 1) / 2)); manifest follows the partitions; rerun equals an uninterrupted run"
echo "crash safety: 1 passed, 0 failed"
