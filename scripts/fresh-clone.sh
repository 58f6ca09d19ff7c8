#!/usr/bin/env bash
# The test command on a fresh clone with nothing beside it, as a contributor or a packager gets
# the project: clones this repository (HEAD, plus uncommitted changes to tracked files) into an
# empty temporary folder, where no ../shared/corpus is, and runs `bash scripts/test.sh` there,
# which (THREEFOLD_IN_FRESH_CLONE=1) builds, runs the cargo tests, the quick start and the
# differential test without the corpus, and lists what it skipped.
# Run by scripts/test.sh; by hand: bash scripts/fresh-clone.sh
#
# The clone builds in a target folder of its own (its ./target links to it), seeded with a copy of this tree's compiled
# dependencies, so that only threefold itself is compiled again: a clone must compile its own
# code (paths such as CARGO_MANIFEST_DIR are built into the test binaries), and it must not write
# into this tree's target folder (cargo would take the clone's binaries for this tree's).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
clone="$tmp/threefold"

git clone --quiet "$root" "$clone"
git -C "$root" diff --binary HEAD > "$tmp/changes.diff"
if [ -s "$tmp/changes.diff" ]; then
  echo "fresh clone: with this tree's uncommitted changes to tracked files"
  git -C "$clone" apply --binary "$tmp/changes.diff"
fi
untracked="$(git -C "$root" ls-files --others --exclude-standard)"
[ -z "$untracked" ] || echo "fresh clone: untracked files are not in the clone: $(echo $untracked)"
[ ! -e "$tmp/shared" ] || { echo "fresh clone: $tmp/shared exists" >&2; exit 1; }

# Compiled dependencies: everything in target/release, target/checked and target/debug (clippy)
# but threefold's own units (its library, binary, tests and examples).
own="threefold|$(cd tests && ls -d */main.rs | sed 's|/main\.rs$||' | paste -sd '|')"
for profile in release checked debug; do
  mkdir -p "$tmp/target/$profile"
  if [ -d "target/$profile/deps" ]; then
    (cd "target/$profile" && find deps .fingerprint build -mindepth 1 -maxdepth 1 2>/dev/null |
      grep -Ev "^(deps|\.fingerprint)/(lib)?($own)-" |
      xargs -r cp -a --parents -t "$tmp/target/$profile")
  fi
done

echo "fresh clone: $clone (no corpus beside it); running the test command there"
cd "$clone"
ln -s "$tmp/target" target
env -u THREEFOLD_CORPUS -u THREEFOLD_REQUIRE_ALL -u THREEFOLD_PARTS -u THREEFOLD_PYTHON -u THREEFOLD_SKIP_LOG -u CARGO_TARGET_DIR \
  THREEFOLD_IN_FRESH_CLONE=1 bash scripts/test.sh > "$tmp/test.log" 2>&1 ||
  { tail -n 60 "$tmp/test.log"; echo "fresh clone: the test command failed (whole log above, last 60 lines)"; exit 1; }
sed -n '/^test command: seconds per part/,$p' "$tmp/test.log" | sed 's/^/fresh clone: /'
echo "fresh clone: 1 passed, 0 failed"
