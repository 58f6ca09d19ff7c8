# Sourced by the shell parts of the test command (after setting $root to the project's folder).
#
# Where the shared corpus is: $THREEFOLD_CORPUS, else ../shared/corpus beside the project.
#
# `skipped WHAT WHY`: a part of the test command that cannot run here (no corpus, a tool that
# cannot be installed). On a contributor's machine it prints one `skipped:` line with its reason
# (also appended to $THREEFOLD_SKIP_LOG, for the test command's closing list) and returns. With
# THREEFOLD_REQUIRE_ALL=1, which .ci/run sets, it fails the run instead: in CI every part runs,
# so that a missing install step on a fresh machine cannot pass green.
# `have_corpus WHAT` is true when the corpus is there, else `skipped WHAT "corpus not found …"`
# and false. The Rust tests do the same (tests/common/mod.rs).
corpus="${THREEFOLD_CORPUS:-$root/../shared/corpus}"

skipped() {
  if [ "${THREEFOLD_REQUIRE_ALL:-}" = 1 ]; then
    echo "test command: $1 cannot run ($2), and THREEFOLD_REQUIRE_ALL=1 (CI): every part must run" >&2
    exit 1
  fi
  local line="skipped: $1 ($2)"
  echo "$line" >&2
  if [ -n "${THREEFOLD_SKIP_LOG:-}" ]; then echo "$line" >> "$THREEFOLD_SKIP_LOG"; fi
}

have_corpus() {
  [ -d "$corpus" ] && return 0
  skipped "$1" "corpus not found at $corpus; set THREEFOLD_CORPUS"
  return 1
}
