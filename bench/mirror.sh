#!/usr/bin/env bash
# A synthetic Lichess mirror for the report's benchmark: one ingested source's partition written
# again under SOURCES monthly names (lichess_db_standard_rated_YYYY-MM, consecutive months from
# 2013-01), about GAMES_PER_SOURCE × SOURCES games in all (default 400,000 × 150 = 60 M).
#
#   bash bench/mirror.sh OUT_DIR [SOURCES] [COPIES]
#
# The one source is the corpus's Lichess 2013 sample and clocks sample (6,549 games) repeated
# COPIES times (default 61: 399,489 games) and ingested once. Each table's file is then written
# again per monthly name by pyarrow with its `source` column set to that name (the same row
# groups, compression and columns), and the manifest lists every source; only the source differs,
# so the games' dates (2013-01 and 2021-10) are those of the one source in every copy. Writes
# OUT_DIR/dataset; reused when it exists with the same SOURCES and COPIES, by the same binary.
#
# Environment: THREEFOLD (default target/release/threefold), THREEFOLD_CORPUS,
# THREEFOLD_PYTHON (a Python with pyarrow; default .venv/bin/python). Needs zstd.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: bash bench/mirror.sh OUT_DIR [SOURCES] [COPIES]}"
sources="${2:-150}"
copies="${3:-61}"
corpus="${THREEFOLD_CORPUS:-$root/../shared/corpus}"
bin="${THREEFOLD:-$root/target/release/threefold}"
python="${THREEFOLD_PYTHON:-$root/.venv/bin/python}"
[ -x "$bin" ] || (cd "$root" && cargo build --release --locked --quiet)
# Reused only when written by this very binary (a new one may write another schema).
stamp="sources=$sources copies=$copies bin=$(cksum < "$bin" | cut -d' ' -f1)"
if [ -f "$out/dataset/_manifest.json" ] && [ "$(cat "$out/stamp" 2> /dev/null)" = "$stamp" ]; then
  echo "bench/mirror.sh: reusing $out/dataset ($stamp)"
  exit 0
fi

rm -rf "$out/one" "$out/dataset" "$out/stamp"
mkdir -p "$out/one"
one="$out/one/lichess_db_standard_rated_2013-01.pgn"
{
  for ((i = 0; i < copies; i++)); do
    zstd -dc "$corpus/lichess/lichess_db_standard_rated_2013-01-sample.pgn.zst"
    cat "$corpus/lichess/lichess-2021-10-01-clocks-sample.pgn"
  done
} > "$one"
"$bin" ingest --quiet --out "$out/one/dataset" "$one"
rm "$one"

"$python" - "$out/one/dataset" "$out/dataset" "$sources" << 'EOF'
import json, os, sys
import pyarrow as pa, pyarrow.parquet as pq

src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = [f"lichess_db_standard_rated_{2013 + k // 12:04d}-{k % 12 + 1:02d}" for k in range(n)]
manifest = json.load(open(os.path.join(src, "_manifest.json")))
(entry,) = manifest["inputs"]
for table in ("games", "events", "summary"):
    folder = os.path.join(src, table, f"source={entry['source']}")
    for part in sorted(os.listdir(folder)):
        f = pq.ParquetFile(os.path.join(folder, part))
        meta = f.metadata
        data = f.read()
        groups = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
        compression = meta.row_group(0).column(0).compression if meta.num_row_groups else "ZSTD"
        i = data.schema.get_field_index("source")
        for name in names:
            col = pa.array([name] * data.num_rows, type=data.schema.field(i).type)
            out = os.path.join(dst, table, f"source={name}")
            os.makedirs(out, exist_ok=True)
            with pq.ParquetWriter(os.path.join(out, part), data.schema, compression="none" if compression == "UNCOMPRESSED" else compression.lower(),
                                  store_schema=False) as w:
                start = 0
                table_copy = data.set_column(i, data.schema.field(i), col)
                for rows in groups:
                    w.write_table(table_copy.slice(start, rows), row_group_size=rows)
                    start += rows
manifest["inputs"] = [dict(entry, source=name, path=f"/mirror/{name}.pgn") for name in names]
manifest["games"] *= n
manifest["events"] *= n
with open(os.path.join(dst, "_manifest.json"), "w") as f:
    json.dump(manifest, f, indent=2)
with open(os.path.join(dst, "views.sql"), "w") as f:
    for table in ("games", "events", "summary"):
        glob = os.path.join(os.path.abspath(dst), table, "source=*", "*.parquet")
        f.write(f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM read_parquet('{glob}', "
                "hive_partitioning = true, union_by_name = true);\n")
EOF
rm -rf "$out/one"
echo "$stamp" > "$out/stamp"
echo "bench/mirror.sh: $(grep -m1 '"games"' "$out/dataset/_manifest.json" | tr -dc 0-9) games in $sources sources: $out/dataset"
