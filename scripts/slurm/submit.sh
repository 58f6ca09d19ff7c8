#!/usr/bin/env bash
# Submits a sharded `threefold ingest` to Slurm: a job array of N tasks (ingest.sbatch, task K
# runs `--shard K/N`) and the finishing job (finish.sbatch, `--finish`), which waits for every
# task to end, failed or not (--dependency=afterany), and fails when a shard is missing. Prints
# both job ids as `array_job=ID` and `finish_job=ID`; the finish job's exit status is the run's.
#
# Usage: scripts/slurm/submit.sh N INGEST_ARGUMENTS... --out DIR
#   N                  number of shards (array tasks 0..N-1)
#   INGEST_ARGUMENTS   inputs and any other `threefold ingest` options (e.g. --source NAME),
#                      passed as they are (quoting kept); --shard, --threads and --quiet are added
#   --out DIR          the dataset folder, on a file system that every node mounts at that path
#                      (relative paths are from the folder sbatch is run in, as are the logs)
# Environment:
#   THREEFOLD    the binary the jobs run (default: threefold on the nodes' PATH)
#   LOG_DIR      folder for the jobs' logs, threefold-ingest-<array>_<K>.out and
#                threefold-finish-<id>.out (default: the folder sbatch is run in; created)
#   SBATCH_ARGS  more sbatch options for both jobs, split at white space
#                (e.g. "-p big --cpus-per-task=32"); sbatch's own SBATCH_* variables
#                (SBATCH_PARTITION, SBATCH_ACCOUNT, ...) work too
# Example:
#   scripts/slurm/submit.sh 16 /shared/lichess --out /shared/threefold
set -euo pipefail

usage() { echo "usage: $0 N INPUT... [INGEST OPTIONS] --out DIR   (see the header of $0)" >&2; exit 2; }
[ $# -ge 1 ] || usage
shards="$1"; shift
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: N must be a positive number, not '$shards'" >&2; usage; }

out=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || usage; out="$2"; shift 2 ;;
    --out=*) out="${1#--out=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
[ -n "$out" ] || { echo "submit.sh: --out DIR is missing" >&2; usage; }
[ ${#args[@]} -gt 0 ] || { echo "submit.sh: no inputs" >&2; usage; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# SBATCH_ARGS is a list of options: split on purpose.
# shellcheck disable=SC2206
extra=(${SBATCH_ARGS:-})
# The jobs take OUT, SHARDS and THREEFOLD from this environment (--export=ALL); the inputs go as
# the array script's arguments, so that paths with spaces survive.
export OUT="$out" SHARDS="$shards"
[ -z "${THREEFOLD:-}" ] || export THREEFOLD
unset INPUTS
array_log=() finish_log=()
if [ -n "${LOG_DIR:-}" ]; then
  mkdir -p "$LOG_DIR" # Slurm does not create it: a task whose log it cannot open fails
  array_log=(--output="$LOG_DIR/threefold-ingest-%A_%a.out")
  finish_log=(--output="$LOG_DIR/threefold-finish-%j.out")
fi

array=$(sbatch --parsable --export=ALL --array="0-$((shards - 1))" "${array_log[@]}" "${extra[@]}" \
  "$here/ingest.sbatch" "${args[@]}")
array="${array%%;*}" # --parsable prints "id;cluster" on a multi-cluster setup
echo "array_job=$array"
finish=$(sbatch --parsable --export=ALL --dependency="afterany:$array" "${finish_log[@]}" "${extra[@]}" \
  "$here/finish.sbatch") ||
  { echo "submit.sh: the finish job could not be submitted; the array $array runs without it: submit $here/finish.sbatch with --dependency=afterany:$array" >&2; exit 1; }
finish="${finish%%;*}"
echo "finish_job=$finish"
echo "submit.sh: $shards shards of ${args[*]} into $out: array job $array (tasks 0-$((shards - 1))), then finish job $finish (afterany:$array)" >&2
