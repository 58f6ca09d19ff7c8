#!/usr/bin/env bash
# The browser test (issue 25): the report page as a reader sees it. Ingests data-samples/ (and,
# where the corpus is, Lichess, clocks and OTB files beside them), writes the report page plain
# and with --by source, and loads each in headless Chromium (tests/browser/page.py): no console
# error or warning, every chart's SVG with a non-zero box, nothing clipped at A4 width in print.
# Screenshots for people to look at: target/report-screenshot.png, target/report-by-source.png.
#
# Usage: bash tests/browser/run.sh
#   Chromium is Debian's `chromium` package, installed with apt-get when missing. When it cannot
#   be had (not root, no apt-get): prints `skipped: ...`, exit 0. A failed check: exit 1.
# Environment: THREEFOLD (default target/release/threefold, built when missing),
#   THREEFOLD_CORPUS, THREEFOLD_PYTHON (default .venv/bin/python), THREEFOLD_SKIP_LOG.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/corpus.sh
source "$root/tests/corpus.sh"
py="${THREEFOLD_PYTHON:-$root/.venv/bin/python}"
bin="${THREEFOLD:-$root/target/release/threefold}"

skip() {
  local line="skipped: browser test ($1)"
  echo "$line" >&2
  if [ -n "${THREEFOLD_SKIP_LOG:-}" ]; then echo "$line" >> "$THREEFOLD_SKIP_LOG"; fi
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

status=0
for page in report report-by-source; do
  shot="$root/target/$page.png"
  [ "$page" = report ] && shot="$root/target/report-screenshot.png"
  if result=$(timeout 180 "$py" "$root/tests/browser/page.py" "$out/$page.html" --screenshot "$shot"); then
    echo "browser test: $page.html in Chromium: $result"
  else
    echo "browser test: $page.html in Chromium FAILED: $result"
    status=1
  fi
done
exit $status
