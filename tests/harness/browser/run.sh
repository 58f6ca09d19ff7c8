#!/usr/bin/env bash
# The browser test: the report page as a reader sees it. Ingests data-samples/ (and,
# where the corpus is, Lichess, clocks and OTB files beside them), writes the report page plain
# and with --by source, and loads each in headless Chromium (tests/harness/browser/page.py): no console
# error or warning, every chart's SVG with a non-zero box, nothing clipped at A4 width in print.
# Then the same for `explain --html` on Karpov–Miles, Tilburg 1986 round 13: every board and
# every piece drawn, the lost queenside castling right's squares a8 and e8 marked. Where the
# corpus is, also the page of 150 monthly sources (bench/many_sources.sh) by source: the same
# checks, and printed on A4 in at most 20 pages (the count is printed).
# Screenshots for people to look at: target/report-screenshot.png, target/report-by-source.png,
# target/report-many-sources.png, target/explain-screenshot.png.
#
# Usage: bash tests/harness/browser/run.sh
#   Chromium is Debian's `chromium` package, installed with apt-get when missing. When it cannot
#   be had (not root, no apt-get): prints `skipped: ...`, exit 0
#   (in CI, THREEFOLD_REQUIRE_ALL=1, a failure instead). A failed check: exit 1.
# Environment: THREEFOLD (default target/release/threefold, built when missing),
#   THREEFOLD_CORPUS, THREEFOLD_PYTHON (default .venv/bin/python), THREEFOLD_SKIP_LOG.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# shellcheck source=tests/corpus.sh
source "$root/tests/corpus.sh"
py="${THREEFOLD_PYTHON:-$root/.venv/bin/python}"
bin="${THREEFOLD:-$root/target/release/threefold}"

# Cannot run here: a `skipped:` line on a contributor's machine, a failure in CI (tests/corpus.sh).
skip() {
  skipped "browser test" "$1"
  exit 0
}

if ! command -v chromium > /dev/null; then
  [ "$(id -u)" = 0 ] || skip "no chromium, and not root to install it"
  command -v apt-get > /dev/null || skip "no chromium, and no apt-get to install it"
  echo "browser test: installing chromium (apt-get)"
  apt-get update -qq > /dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null
fi
[ -x "$bin" ] || (cd "$root" && cargo build --release --locked --quiet)

out="$root/target/browser"
rm -rf "$out"
mkdir -p "$out"
inputs=("$root/data-samples")
if have_corpus "browser test on corpus files (runs on data-samples only)"; then
  inputs+=("$corpus/lichess/lichess_db_standard_rated_2013-01-sample.pgn.zst"
           "$corpus/lichess/lichess-2021-10-01-clocks-sample.pgn"
           "$corpus/otb/world-championship-matches.pgn")
fi
"$bin" ingest --quiet --out "$out/dataset" "${inputs[@]}"
"$bin" report "$out/dataset" --html "$out/report.html" > /dev/null
"$bin" report "$out/dataset" --by source --html "$out/report-by-source.html" > /dev/null
"$bin" explain "$root/data-samples/karpov_miles_tilburg_1986.pgn" --game 1021 --html "$out/explain.html" > /dev/null
pages=(report report-by-source)
if have_corpus "browser test of the page of 150 monthly sources"; then
  THREEFOLD="$bin" THREEFOLD_CORPUS="$corpus" bash "$root/bench/many_sources.sh" "$out/many" > /dev/null
  "$bin" report "$out/many/dataset" --by source --html "$out/report-many-sources.html" > /dev/null
  pages+=(report-many-sources)
fi

status=0
for page in "${pages[@]}"; do
  shot="$root/target/$page.png"
  [ "$page" = report ] && shot="$root/target/report-screenshot.png"
  limit=()
  [ "$page" = report-many-sources ] && limit=(--max-pages 20)
  if result=$(timeout 180 "$py" "$root/tests/harness/browser/page.py" "$out/$page.html" --screenshot "$shot" "${limit[@]}"); then
    echo "browser test: $page.html in Chromium: $result"
  else
    echo "browser test: $page.html in Chromium FAILED: $result"
    status=1
  fi
done
if result=$(timeout 180 "$py" "$root/tests/harness/browser/page.py" "$out/explain.html" --marks a8,e8 \
    --screenshot "$root/target/explain-screenshot.png"); then
  echo "browser test: explain.html in Chromium: $result"
else
  echo "browser test: explain.html in Chromium FAILED: $result"
  status=1
fi
exit $status
