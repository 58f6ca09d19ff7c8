# Where the shared corpus is, for the shell parts of the test command (sourced, after setting
# $root to the project's folder): $THREEFOLD_CORPUS, else ../shared/corpus beside the project.
# `have_corpus WHAT` is true when it is there; when it is not, it prints one `skipped:` line
# naming WHAT (and appends it to $THREEFOLD_SKIP_LOG, if set) and is false, or with
# THREEFOLD_REQUIRE_CORPUS=1 (our CI) it fails the run, so that a skip never hides a red test.
# The Rust tests do the same (tests/common/mod.rs).
corpus="${THREEFOLD_CORPUS:-$root/../shared/corpus}"

have_corpus() {
  [ -d "$corpus" ] && return 0
  if [ "${THREEFOLD_REQUIRE_CORPUS:-}" = 1 ]; then
    echo "corpus not found at $corpus and THREEFOLD_REQUIRE_CORPUS=1: $1 cannot be skipped" >&2
    exit 1
  fi
  local line="skipped: $1 (corpus not found at $corpus; set THREEFOLD_CORPUS)"
  echo "$line" >&2
  if [ -n "${THREEFOLD_SKIP_LOG:-}" ]; then echo "$line" >> "$THREEFOLD_SKIP_LOG"; fi
  return 1
}
