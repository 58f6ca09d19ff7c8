#!/usr/bin/env bash
# A dataset of 150 monthly sources, as a Lichess mirror is: the corpus's Lichess 2013 sample cut
# into 150 files named like the monthly dumps (lichess_db_standard_rated_YYYY-MM.pgn, consecutive
# months from 2013-01), about 37 games each, ingested as 150 sources. For `report --by source`
# (and the browser test) at a scale where groups no longer fit side by side.
#
#   bash bench/many_sources.sh OUT_DIR [SOURCES]
#
# Writes OUT_DIR/pgn/*.pgn and the dataset OUT_DIR/dataset. SOURCES: how many files (default
# 150). Environment: THREEFOLD (default target/release/threefold, built when missing),
# THREEFOLD_CORPUS (default ../shared/corpus). Needs zstd.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: bash bench/many_sources.sh OUT_DIR [SOURCES]}"
sources="${2:-150}"
corpus="${THREEFOLD_CORPUS:-$root/../shared/corpus}"
bin="${THREEFOLD:-$root/target/release/threefold}"
sample="$corpus/lichess/lichess_db_standard_rated_2013-01-sample.pgn.zst"
[ -f "$sample" ] || { echo "bench/many_sources.sh: no $sample" >&2; exit 2; }
[ -x "$bin" ] || (cd "$root" && cargo build --release --locked --quiet)

rm -rf "$out/pgn" "$out/dataset"
mkdir -p "$out/pgn"
games=$(zstd -dc "$sample" | grep -c '^\[Event ')
# Game k (from 0) goes to file k * SOURCES / games: every file gets its share, in order.
zstd -dc "$sample" | awk -v n="$sources" -v games="$games" -v dir="$out/pgn" '
  /^\[Event / { file = int(k * n / games); k++
                y = 2013 + int(file / 12); m = file % 12 + 1
                name = sprintf("%s/lichess_db_standard_rated_%04d-%02d.pgn", dir, y, m)
                if (name != open) { if (open != "") close(open); open = name } }
  { print > open }'
"$bin" ingest --quiet --out "$out/dataset" "$out/pgn"
echo "bench/many_sources.sh: $games games in $(ls "$out/pgn" | wc -l) sources: $out/dataset"
