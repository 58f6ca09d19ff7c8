#!/usr/bin/env bash
# Differential test: threefold and the python-chess oracle must agree record by record, and the
# Rust records must agree with python-chess's own draw and game-end rules at every ply
# (pychess_rules.py; README.md "python-chess's own rules").
# Usage: tests/oracle/differential.sh [--all]   (after scripts/test.sh has built the venv and the
# binary). Always compares tests/oracle/rules/, data-samples/, generated long games and generated
# Lichess variant games (random_variants.py); with the
# shared corpus (tests/corpus.sh says where), the test command's selection of it too. --all: every
# game of every corpus file (about 13 minutes on 2 cores with a cold cache, nearly all of it the
# oracle's; about 1.5 minutes when the oracle's outputs come from its cache).
# The oracle's outputs are cached by content (README.md "Cache"):
# ${THREEFOLD_ORACLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/threefold-oracle}.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$root/tests/corpus.sh"
py="${THREEFOLD_PYTHON:-$root/.venv/bin/python}"
bin="$root/target/release/threefold"
pgnmentor_games="${PGNMENTOR_GAMES:-20000}"
all=0
case "${1:-}" in
  --all) all=1 ;;
  "") ;;
  *) echo "differential.sh: unknown argument $1 (only --all)" >&2; exit 2 ;;
esac
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# The oracle's and compare.py's unit checks (Chess960 Zobrist keys worked out by hand, strict
# JSON types, tag decoding).
"$py" "$here/oracle.py" --self-test > /dev/null
"$py" "$here/compare.py" --self-test > /dev/null

# file and game limit (0 = all games)
cases=()
for f in "$here"/rules/*.pgn "$root"/data-samples/*.pgn; do cases+=("$f 0"); done
if [ "$all" = 1 ]; then
  [ -d "$corpus" ] || { echo "differential.sh --all: corpus not found at $corpus (set THREEFOLD_CORPUS)" >&2; exit 2; }
  while IFS= read -r f; do cases+=("$f 0"); done < <(find "$corpus" -type f ! -name '*.md' | sort)
elif have_corpus "the differential test on corpus files (edge, Lichess, world championships, TCEC 960, pgnmentor)"; then
  for f in "$corpus"/edge/*.pgn "$corpus"/lichess/*; do cases+=("$f 0"); done
  cases+=("$corpus/otb/world-championship-matches.pgn 0")
  cases+=("$corpus/engine/tcec-chess960.pgn.zst 1000")
  cases+=("$corpus/otb/pgnmentor-players.pgn.zst $pgnmentor_games")
  for f in "$corpus"/variants/*.pgn; do cases+=("$f 0"); done
fi
# Games of 20,000 plies and more (FORMAT.md too_long), made here: no real game is that long.
"$py" - > "$out/too_long.pgn" <<'PY'
shuffle = " ".join(f"{2*i+1}. Nf3 Nf6 {2*i+2}. Ng1 Ng8" for i in range(5000))
for after in ["", "Nf3+ Nf6 1-0", "0000", "1/2-1/2 Nf3 e4"]:
    print(f'[Event "too_long"]\n[Result "*"]\n\n{shuffle} {after}\n')
rooks = " ".join(f"{2*i+1}. Nd3 Nd4 {2*i+2}. Nb4 Nb5" for i in range(5000))
print(f'[Event "too_long"]\n[FEN "r3k2r/8/8/1n6/1N6/8/8/R3K2R w KQkq - 0 1"]\n[SetUp "1"]\n\n{rooks} 0-0 *\n')
PY
cases+=("$out/too_long.pgn 0")
# Random games of every Lichess variant, full of back-and-forth moves (FORMAT.md "Variants"),
# made by python-chess from a fixed seed: VARIANT_GAMES (2,000) per variant, under target/
# (made again only when the script or the number changes: about 2 minutes).
variant_games="${VARIANT_GAMES:-2000}"
stamp=$(cat "$here/random_variants.py" | sha256sum | cut -c1-12)
variants_dir="$root/target/random-variants/$stamp-$variant_games"
if [ ! -f "$variants_dir/done" ]; then
  rm -rf "$root/target/random-variants"
  "$py" "$here/random_variants.py" "$variants_dir" --games "$variant_games"
  touch "$variants_dir/done"
fi
for f in "$variants_dir"/random-*.pgn; do cases+=("$f 0"); done

total=0; bad=0; failed_files=(); cached=0; files=0; verified=0
rule_games=0; rule_plies=0; rule_bad=0; declare -A deliberate=()
for c in "${cases[@]}"; do
  file="${c% *}"; limit="${c##* }"
  name="$(basename "$file")"
  args=(); [ "$limit" != 0 ] && args=(--limit "$limit")
  "$bin" dump "$file" "${args[@]}" > "$out/rust.jsonl"
  files=$((files + 1))
  # The ledger (README.md "Ledger"): these very records were compared before and agreed.
  key=$("$py" "$here/ledger.py" key "$file" "${args[@]}" --records "$out/rust.jsonl")
  if "$py" "$here/ledger.py" get "$key" > "$out/cmp.txt"; then
    verified=$((verified + 1))
  else
    status=$("$py" "$here/oracle.py" "$file" "${args[@]}" --out "$out/oracle.jsonl" \
      --rules-out "$out/rules.jsonl" --cache)
    [ "$status" = "cache hit" ] && cached=$((cached + 1))
    "$py" "$here/compare.py" "$out/rust.jsonl" "$out/oracle.jsonl" --rules "$out/rules.jsonl" \
      --label "$name" --max-show 5 > "$out/cmp.txt" || true
    if tail -n 1 "$out/cmp.txt" | grep -q '^compared [0-9]* games, 0 disagreements$'; then
      "$py" "$here/ledger.py" put "$key" "$name${args[*]:+ ${args[*]}}" "$out/cmp.txt"
    fi
  fi
  line=$(tail -n 1 "$out/cmp.txt")
  n=$(sed -n 's/^compared \([0-9]*\) games, \([0-9]*\) disagreements$/\1/p' <<<"$line")
  d=$(sed -n 's/^compared \([0-9]*\) games, \([0-9]*\) disagreements$/\2/p' <<<"$line")
  if [ -z "$n" ]; then n=0; d=1; fi
  total=$((total + n)); bad=$((bad + d))
  # python-chess rules: checked G games, P plies, D disagreements; deliberate differences skipped: a=1 b=0
  rules_line=$(grep '^python-chess rules: ' "$out/cmp.txt" || true)
  if [[ "$rules_line" =~ checked\ ([0-9]+)\ games,\ ([0-9]+)\ plies,\ ([0-9]+)\ disagreements\;\ deliberate\ differences\ skipped:\ (.*)$ ]]; then
    rule_games=$((rule_games + BASH_REMATCH[1])); rule_plies=$((rule_plies + BASH_REMATCH[2]))
    rule_bad=$((rule_bad + BASH_REMATCH[3]))
    for kv in ${BASH_REMATCH[4]}; do
      deliberate[${kv%=*}]=$(( ${deliberate[${kv%=*}]:-0} + ${kv#*=} ))
    done
  else
    rule_bad=$((rule_bad + 1))
  fi
  printf '%-60s %7s games %5s disagreements\n' "$name" "$n" "$d"
  if [ "$d" != 0 ]; then failed_files+=("$name"); head -n 40 "$out/cmp.txt"; fi
done
skipped=""
for k in $(printf '%s\n' "${!deliberate[@]}" | sort); do skipped+=" $k=${deliberate[$k]}"; done
echo "oracle: $verified of $files inputs verified earlier with these very records (tests/oracle/verified.tsv), $cached of the rest from the oracle's cache"
echo "python-chess rules: checked $rule_games games ($rule_plies plies), $rule_bad games disagree; deliberate differences skipped:${skipped:- none}"
echo "differential against python-chess: compared $total games, $bad disagreements"
echo "oracle: $((total - bad)) passed, $bad failed"
[ "$bad" = 0 ]
