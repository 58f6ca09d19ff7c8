#!/usr/bin/env bash
# The tools the test command's parts need beyond cargo and Python, installed when missing, first,
# so that a missing install step fails a CI run in its first minutes instead of after the long
# parts: Debian's chromium (browser test), slurm-wlm and munge (Slurm test), pgn-extract and
# valgrind (benchmark smoke run), binutils' objdump (the wheel's glibc symbols) in one apt-get
# call, and cargo-fuzz (fuzz smoke; cargo install).
# Where a tool cannot be had (not root, no apt-get, an install that fails) it calls `skipped`
# (tests/corpus.sh): a `skipped:` line on a contributor's machine, where the part that needs it
# skips itself later too, and a failure naming the tool under THREEFOLD_REQUIRE_ALL=1 (CI).
#
# Usage: bash tests/tools.sh [--no-fuzz]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=tests/corpus.sh
source "$root/tests/corpus.sh"
export PATH="$PATH:/usr/sbin:/sbin:/usr/games"

# command -> (Debian package, the part that needs it)
declare -A package=([chromium]=chromium [sbatch]=slurm-wlm [slurmctld]=slurm-wlm [slurmd]=slurm-wlm
  [munged]=munge [pgn-extract]=pgn-extract [valgrind]=valgrind [objdump]=binutils)
declare -A part=([chromium]="browser test" [sbatch]="Slurm test" [slurmctld]="Slurm test"
  [slurmd]="Slurm test" [munged]="Slurm test" [pgn-extract]="the bench's pgn-extract rows"
  [valgrind]="the bench's instruction counts" [objdump]="the Python package's glibc check")

missing=()
for c in "${!package[@]}"; do
  command -v "$c" > /dev/null || missing+=("$c")
done
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t packages < <(for c in "${missing[@]}"; do echo "${package[$c]}"; done | sort -u)
  why=""
  if [ "$(id -u)" != 0 ]; then
    why="not root"
  elif ! command -v apt-get > /dev/null; then
    why="no apt-get"
  else
    echo "tools: installing ${packages[*]} (apt-get; missing: ${missing[*]})"
    log="$(mktemp)"
    if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${packages[@]}"; } > "$log" 2>&1; then
      tail -n 20 "$log"
      why="apt-get install ${packages[*]} failed"
    fi
    rm -f "$log"
  fi
  still=()
  for c in "${missing[@]}"; do
    command -v "$c" > /dev/null || still+=("$c (${part[$c]})")
  done
  if [ ${#still[@]} -gt 0 ]; then
    list="$(printf '%s, ' "${still[@]}")"
    skipped "the parts that need ${list%, }" "missing and not installable here: ${why:-not found after apt-get install ${packages[*]}}"
  fi
fi

if [ "${1:-}" != --no-fuzz ] && ! command -v cargo-fuzz > /dev/null; then
  echo "tools: installing cargo-fuzz (cargo install)"
  cargo install --locked --quiet cargo-fuzz@0.13.2 ||
    skipped "fuzz smoke" "cargo-fuzz is missing and cargo install cargo-fuzz failed"
fi
echo "tools: $(for c in chromium sbatch pgn-extract valgrind objdump cargo-fuzz; do command -v "$c" > /dev/null && printf '%s ' "$c"; done)present"
