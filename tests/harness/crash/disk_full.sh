#!/usr/bin/env bash
# Disk full: ingest into a small tmpfs (400 KiB; 120 KiB for the sample data, whose Parquet
# files compress to less). It must fail with a clear message, leave no temporary
# files and no Parquet file that does not open with its footer, and the manifest must list the
# source committed before the disk filled up. Needs root (mount).
set -euo pipefail
source "$(dirname "$0")/common.sh"
made=""; size=400k
# A first input that fits, and a second that does not.
if have_corpus "a full disk during ingest of corpus files (sample data instead)"; then
  small="$corpus/otb/world-championship-matches.pgn"; large="$corpus/engine/tcec-cups.pgn.zst"
else
  small="$root/data-samples/karpov_miles_tilburg_1986.pgn"; large="$(mktemp --suffix=.pgn)"; made="$large"
  # Each copy with Site tags of its own, so that the copies do not compress to nothing.
  for i in $(seq 200); do
    sed "s/^\[Site \"\(.*\)\"\]/[Site \"\1?$i\"]/" "$root/data-samples/lichess_db_standard_rated_2013-01-first300.pgn"
  done > "$large"
  size=120k
fi
mnt="$(mktemp -d)"
if ! mount -t tmpfs -o size="$size" tmpfs "$mnt" 2>/dev/null; then
  echo "disk full: cannot mount a tmpfs here (not root?)"; exit 1
fi
trap 'umount "$mnt"; rmdir "$mnt"; rm -f "$made"' EXIT
set +e
"$bin" ingest "$small" "$large" --out "$mnt/ds" --quiet 2> "$mnt/../disk_full.err"
status=$?
set -e
err="$(cat "$mnt/../disk_full.err")"; rm -f "$mnt/../disk_full.err"
[ "$status" -ne 0 ] || { echo "disk full: ingest exited 0"; exit 1; }
grep -q "No space left on device" <<<"$err" || { echo "disk full: unclear message: $err"; exit 1; }
leftovers="$(find "$mnt" -name '.tmp-*' -o -name '*.tmp*')"
[ -z "$leftovers" ] || { echo "disk full: temporary files left: $leftovers"; exit 1; }
check_files "$mnt"
name="$(basename "$small")"
"$py" - "$mnt" "${name%%.*}" <<'PY'
import json, pathlib, sys
import pyarrow.parquet as pq
# The first input fits and is committed before the second fills the disk: the manifest, updated
# after each source, must list it with its counts, and list no source that has no partition.
out = pathlib.Path(sys.argv[1]) / "ds"
entries = {e["source"]: e for e in json.loads((out / "_manifest.json").read_text())["inputs"]}
present = {t: {d.name.removeprefix("source=") for d in (out / t).iterdir()} for t in ("games", "events", "summary")}
assert present["games"] == present["events"] == present["summary"] == set(entries) == {sys.argv[2]}, (present, entries)
for source, e in entries.items():
    assert e["status"] == "ok", e
    for t, key in (("games", "games"), ("events", "events")):
        rows = pq.ParquetFile(out / t / f"source={source}" / "part-00000.parquet").metadata.num_rows
        assert rows == e[key], (source, t, rows, e[key])
PY
echo "disk full: exit $status, message: ${err#threefold: }"
echo "disk full: 1 passed, 0 failed"
