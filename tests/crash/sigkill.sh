#!/usr/bin/env bash
# Crash safety: kill `threefold ingest` with SIGKILL at random moments of a multi-input job. After
# every kill each Parquet file under the output must open with its footer (nothing truncated
# looks finished); after the last kill a rerun must give exactly the dataset of an uninterrupted
# run. Usage: tests/crash/sigkill.sh [KILLS]   (needs the release build and .venv with pyarrow)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/target/release/threefold"
py="${THREEFOLD_PYTHON:-$root/.venv/bin/python}"
corpus="${THREEFOLD_CORPUS:-$root/../shared/corpus}"
kills="${1:-20}"
inputs=("$corpus/lichess" "$corpus/otb/world-championship-matches.pgn" "$corpus/engine/tcec-cups.pgn.zst")
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT

check_files() {
  "$py" - "$1" <<'PY'
import pathlib, sys
import pyarrow.parquet as pq
bad = []
for f in pathlib.Path(sys.argv[1]).rglob("*.parquet"):
    try:
        pq.ParquetFile(f).metadata
    except Exception as e:
        bad.append(f"{f}: {e}")
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
}

"$bin" ingest "${inputs[@]}" --out "$work/reference" --quiet
killed=0
for i in $(seq 1 "$kills"); do
  "$bin" ingest "${inputs[@]}" --out "$work/crashed" --quiet &
  pid=$!
  sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.02 + (r % 150) / 100 }')"
  if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
  wait "$pid" 2>/dev/null || true
  check_files "$work/crashed" || { echo "kill $i left a truncated Parquet file"; exit 1; }
done
"$bin" ingest "${inputs[@]}" --out "$work/crashed" --quiet
check_files "$work/crashed"
# Same Parquet bytes as the uninterrupted run, and no leftovers of the killed runs.
(cd "$work/reference" && find games events -type f | sort | xargs sha256sum) > "$work/ref.sum"
(cd "$work/crashed" && find games events -type f | sort | xargs sha256sum) > "$work/got.sum"
diff "$work/ref.sum" "$work/got.sum"
echo "crash safety: $killed kills mid-run of $kills; rerun equals an uninterrupted run"
echo "crash safety: 1 passed, 0 failed"
