#!/usr/bin/env bash
# Regenerates the README's pictures of the report page (docs/report-answers.png,
# docs/report-charts.png) and of `explain --html`'s boards (docs/explain-boards.png, Karpov–Miles
# Tilburg 1986 round 13, its first event): ingests the Lichess, clocks and OTB files of the corpus the browser test
# uses (data-samples/ without the corpus), writes `threefold report --by source --html`, and takes the
# screenshots in headless Chromium (tests/harness/browser/page.py, which also checks the page).
#
# Usage: bash scripts/screenshot.sh     (needs chromium and the .venv of scripts/test.sh)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source tests/corpus.sh
py="${THREEFOLD_PYTHON:-$root/.venv/bin/python}"
cargo build --release --locked --quiet
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
inputs=(data-samples)
if [ -d "$corpus" ]; then
  inputs=("$corpus/lichess/lichess_db_standard_rated_2013-01-sample.pgn.zst"
           "$corpus/lichess/lichess-2021-10-01-clocks-sample.pgn"
           "$corpus/otb/world-championship-matches.pgn")
fi
bin="$root/target/release/threefold"
"$bin" ingest --quiet --out "$tmp/dataset" "${inputs[@]}"
# From inside the folder: the page names the dataset as given, `dataset`, not a temporary path.
(cd "$tmp" && "$bin" report dataset --by source --html report.html > /dev/null)
"$py" tests/harness/browser/page.py "$tmp/report.html" --width 1000 --clip-height 1250 --screenshot docs/report-answers.png
"$py" tests/harness/browser/page.py "$tmp/report.html" --width 1000 --clip-from threefold_by_time_class --clip-height 1500 \
  --screenshot docs/report-charts.png
"$bin" explain data-samples/karpov_miles_tilburg_1986.pgn --game 1021 --html "$tmp/explain.html" > /dev/null
"$py" tests/harness/browser/page.py "$tmp/explain.html" --width 760 --clip-from event-1 --clip-height 560 --marks a8,e8 \
  --screenshot docs/explain-boards.png
ls -l docs/report-answers.png docs/report-charts.png docs/explain-boards.png
