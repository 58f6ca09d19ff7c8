# Shared by the crash tests (sourced): where things are, and a check that every Parquet file
# under a folder opens with its footer (a file cut short does not).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
bin="${THREEFOLD:-$root/target/release/threefold}"
py="${THREEFOLD_PYTHON:-$root/.venv/bin/python}"
source "$root/tests/corpus.sh"

# Writes the sample file $1 repeated $2 times to $3 (a larger input where the corpus is not).
repeated_sample() {
  local i
  for ((i = 0; i < $2; i++)); do cat "$root/data-samples/$1"; done > "$3"
}

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
