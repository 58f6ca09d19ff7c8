# Shared by tests/harness/shard/sequential.sh and tests/harness/slurm/run.sh (sourced, after tests/corpus.sh with
# $root set): the pzstd input both shard (otb/pgnmentor-players recompressed with pzstd; without
# the corpus, data-samples' first300 400 times) and an unsharded run's dataset over it, kept
# under target/shard-cache/ so that the second test does not make them again. The input is made
# again when its source file changes (size, modification time), the dataset when the binary or
# the input does. Each is made in a temporary name and renamed into place: a killed test leaves
# nothing half made.
shard_cache="$root/target/shard-cache"

# shard_cache_input: prints the path of the pzstd input (source name "pgnmentor"), made when missing.
shard_cache_input() {
  local from stamp dir
  if [ -f "$corpus/otb/pgnmentor-players.pgn.zst" ]; then
    from="$corpus/otb/pgnmentor-players.pgn.zst"
  else
    from="$root/data-samples/lichess_db_standard_rated_2013-01-first300.pgn"
  fi
  stamp="$(stat -c '%n %s %Y' "$from" | sha256sum | cut -c1-16)"
  dir="$shard_cache/input-$stamp"
  if [ ! -f "$dir/pgnmentor.pgn.zst" ]; then
    mkdir -p "$shard_cache"
    rm -rf "$shard_cache"/input-* # an older input's
    mkdir "$dir.tmp"
    if [ "${from%.zst}" != "$from" ]; then
      zstd -dcq "$from" > "$dir.tmp/pgnmentor.pgn"
    else
      for _ in $(seq 400); do cat "$from"; done > "$dir.tmp/pgnmentor.pgn"
    fi
    # pzstd's frames hold 8 MiB of text at its default level (32 frames for pgnmentor's 253 MiB).
    pzstd -q -p 2 --rm "$dir.tmp/pgnmentor.pgn" -o "$dir.tmp/pgnmentor.pgn.zst"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  echo "$dir/pgnmentor.pgn.zst"
}

# shard_cache_reference BIN INPUT: prints the folder of BIN's unsharded dataset of INPUT (a
# shard_cache_input), made when missing; fails when the run fails.
shard_cache_reference() {
  local key dir
  key="$( { sha256sum < "$1"; echo "$2"; } | sha256sum | cut -c1-16)"
  dir="$shard_cache/whole-$key"
  if [ ! -f "$dir/_manifest.json" ]; then
    rm -rf "$shard_cache"/whole-* # an older binary's or input's
    "$1" ingest "$2" --out "$dir.tmp" --quiet >&2 || return 1
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  echo "$dir"
}
