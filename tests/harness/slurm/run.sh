#!/usr/bin/env bash
# The Slurm test: brings up a single-node Slurm for real (Debian's slurm-wlm and munge,
# installed with apt-get when missing; all state, keys, sockets, logs under a temporary folder),
# runs scripts/slurm/submit.sh with N = 3 over a pzstd copy of otb/pgnmentor-players.pgn.zst (a
# job array of 3 `--shard K/3` tasks and the afterany `--finish` job). The jobs run the binary
# through a wrapper that records each call (job, task, arguments, start, end, exit status) and
# makes task 1 fail the first time, before it runs the binary. Checked: tasks 0 and 2 completed
# and task 1 failed (exit 3), each task ran `--shard K/3` with its own K, the finish job started
# after every task had ended and exited 1 (shard 1 missing), and nothing was committed. Then
# shard 1 alone again, as docs/nightly.md says (sbatch --array=1 with SHARDS=3, and
# finish.sbatch afterany), both exit 0, the rerun ran `--shard 1/3`, its finish job started after
# it ended, and the dataset equals an unsharded run's (tests/harness/shard/compare.py: EXCEPT ALL both
# ways, games and events). The pzstd input and the unsharded run's dataset come from
# target/shard-cache/ (tests/harness/shard/cache.sh), made by tests/harness/shard/sequential.sh when it ran
# before with the same binary. Stops the daemons it started, by PID, and removes the folder.
# Prints one `slurm test: ...` result line; exit status 1 on a failure.
#
# Usage: bash tests/harness/slurm/run.sh            (as root; takes about a minute and a half, plus the install)
#        SLURM_TEST_DRY=1 bash tests/harness/slurm/run.sh
#   SLURM_TEST_DRY=1 runs the same scripts with a stand-in for the binary that only records its
#   arguments and times (needs no threefold, corpus or DuckDB): it checks that the 3 tasks got
#   shards 0/3, 1/3, 2/3 and that the finish job started after all of them had ended.
# Environment: THREEFOLD (default target/release/threefold, built when missing),
#   THREEFOLD_CORPUS, THREEFOLD_PYTHON (default .venv/bin/python), THREEFOLD_SKIP_LOG,
#   SLURM_TEST_TIMEOUT (seconds to wait for the jobs, default 600).
# Slurm cannot be had (not root, no apt-get, the install fails): prints `skipped: ...`, exit 0
#   (in CI, THREEFOLD_REQUIRE_ALL=1, a failure instead).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# shellcheck source=tests/corpus.sh
source "$root/tests/corpus.sh"
# shellcheck source=tests/harness/shard/cache.sh
source "$root/tests/harness/shard/cache.sh"
export PATH="$PATH:/usr/sbin:/sbin" # slurmctld, slurmd, munged live in sbin
dry="${SLURM_TEST_DRY:-0}"
shards=3
timeout_s="${SLURM_TEST_TIMEOUT:-600}"
py="${THREEFOLD_PYTHON:-$root/.venv/bin/python}"
what="(dry run: stand-in binary)"
[ "$dry" = 1 ] || what="over a pzstd copy of pgnmentor-players"

# Cannot run here: a `skipped:` line on a contributor's machine, a failure in CI (tests/corpus.sh).
skip() {
  skipped "slurm test" "$1"
  exit 0
}
fail() { echo "slurm test: N=$shards array $what failed: $*"; exit 1; }

# Slurm and munge: installed when missing, if this can be done here.
missing=()
for c in sbatch squeue scontrol sinfo scancel slurmctld slurmd munged mungekey; do
  command -v "$c" > /dev/null || missing+=("$c")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || skip "Slurm is not installed (${missing[*]} missing) and installing it needs root"
  command -v apt-get > /dev/null || skip "Slurm is not installed (${missing[*]} missing) and there is no apt-get"
  echo "slurm test: installing slurm-wlm and munge with apt-get (${missing[*]} missing)"
  log="$(mktemp)"
  if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge; } > "$log" 2>&1; then
    tail -n 20 "$log"; rm -f "$log"
    skip "apt-get install slurm-wlm munge failed"
  fi
  rm -f "$log"
fi
# slurmd starts the jobs as their owner, which needs root (and so does the install above).
[ "$(id -u)" = 0 ] || skip "slurmd needs to run as root"

# What the jobs run, and what they are compared with (not in the dry run).
if [ "$dry" != 1 ]; then
  bin="${THREEFOLD:-$root/target/release/threefold}"
  if [ ! -x "$bin" ] && [ -z "${THREEFOLD:-}" ]; then
    (cd "$root" && cargo build --release --locked)
  fi
  [ -x "$bin" ] || fail "no threefold binary at $bin"
  bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" # absolute: the jobs run in another folder
  # Not `| grep -q`: grep leaving early would fail the pipeline (pipefail) when --shard is there.
  help="$("$bin" ingest --help)" || fail "$bin ingest --help failed"
  grep -q -- '--shard' <<< "$help" || fail "$bin has no --shard option (built before sharding landed?)"
  [ -x "$py" ] || fail "no Python with DuckDB at $py (scripts/test.sh makes .venv; or set THREEFOLD_PYTHON)"
  command -v pzstd > /dev/null || fail "pzstd is missing (Debian package zstd)"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/threefold-slurm.XXXXXX")"
# munged wants every folder above its socket searchable by all (mktemp makes it 0700).
chmod 755 "$work"
mkdir -p "$work"/{munge,state,spool,run,log,logs}
# Job steps (slurmstepd) end as orphans that init reaps a little later: wait for that at the end.
steps_before=$(pgrep -xc slurmstepd || true)
pids=() # the daemons this script started, in order: stopped in reverse order on exit
jobs_submitted=()

cleanup() {
  local rc=$? pid i
  trap - EXIT
  if [ ${#jobs_submitted[@]} -gt 0 ] && [ -n "${SLURM_CONF:-}" ]; then
    # Jobs still there (a timeout, a failure): cancel them so that no job step outlives slurmd.
    scancel "${jobs_submitted[@]}" 2> /dev/null || true
    for ((i = 0; i < 30; i++)); do
      [ -z "$(squeue -h -o %i 2> /dev/null)" ] && break
      sleep 1
    done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid="${pids[i]}"
    kill -TERM "$pid" 2> /dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2> /dev/null; then
      echo "slurm test: process $pid did not stop on SIGTERM within 10 s: SIGKILL" >&2
      kill -KILL "$pid" 2> /dev/null || true
    fi
    wait "$pid" 2> /dev/null || true
  done
  # A job step (slurmstepd, started by our slurmd with our SLURM_CONF) left behind by a failure.
  for pid in $(pgrep -x slurmstepd || true); do
    if { tr '\0' '\n' < "/proc/$pid/environ"; } 2> /dev/null | grep -qxF "SLURM_CONF=$work/slurm.conf"; then
      echo "slurm test: a job step of this test's Slurm outlived slurmd: SIGKILL to $pid" >&2
      kill -KILL "$pid" 2> /dev/null || true
    fi
  done
  for ((i = 0; i < 25; i++)); do
    [ "$(pgrep -xc slurmstepd || true)" -le "$steps_before" ] && break
    sleep 0.2
  done
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

show_logs() {
  local f
  for f in "$work"/log/* "$work"/logs/*; do
    [ -f "$f" ] || continue
    echo "--- $f"
    tail -n 40 "$f"
  done
}

# munge, with a fresh key, its socket, pid and seed files here (munged -F logs to stderr).
mungekey --create --keyfile="$work/munge/munge.key"
munged -F --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" 2> "$work/log/munged.log" &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.2; done
[ -S "$work/munge/munge.socket" ] || { show_logs; fail "munged did not create its socket"; }

# Ports of our own, so that a Slurm already running on this machine is not in the way.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
host="$(hostname -s)"
cpus="$(nproc)"
memory_mb=$(awk '/^MemTotal:/ { print int($2 / 1024 * 0.9) }' /proc/meminfo) # below the machine's: else the node is drained
export SLURM_CONF="$work/slurm.conf"
cat > "$SLURM_CONF" << EOF
# A single-node Slurm for tests/harness/slurm/run.sh; everything under $work.
ClusterName=threefoldtest
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Finished jobs stay in scontrol show job (their ExitCode) for 10 minutes.
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

# Both in the foreground (-D) as children of this script: their PIDs are $!.
slurmctld -D -f "$SLURM_CONF" > "$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" > "$work/log/slurmd.out" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 60); do
  state="$(sinfo -h -N -n "$host" -o %T 2> /dev/null || true)"
  [ "$state" = idle ] && break
  sleep 1
done
[ "$state" = idle ] || { show_logs; fail "the node is not idle after 60 s (state: '${state:-no answer}')"; }
echo "slurm test: $(sinfo --version), munge $(munged -V | awk '{print $1; exit}'), node $host ($cpus CPUs, ${memory_mb} MB) idle"

# The input, and the reference dataset from an unsharded run.
cd "$work"
if [ "$dry" = 1 ]; then
  : > "$work/copy.pgn.zst"
  export DRY_DIR="$work/dry"
  mkdir -p "$DRY_DIR"
  bin="$work/threefold-standin"
  # Records what it was called with and when: the finish job after every task, each its shard.
  cat > "$bin" << 'EOF'
#!/usr/bin/env bash
set -euo pipefail
if [[ " $* " == *" --finish "* ]]; then
  { echo "args: $*"; echo "started_ns: $(date +%s%N)"; } > "$DRY_DIR/finish"
else
  sleep 3 # long enough that a finish job not held back by its dependency would start first
  { echo "task: $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT"; echo "args: $*"; echo "ended_ns: $(date +%s%N)"; } > "$DRY_DIR/task-$SLURM_ARRAY_TASK_ID"
fi
EOF
  chmod +x "$bin"
  frames="0 (dry run: an empty file)"
else
  if ! have_corpus "slurm test on pgnmentor-players (a sample repeated instead)"; then
    what="over a pzstd file of data-samples' first300 400 times"
  fi
  # The pzstd input (32 frames of 8 MiB for pgnmentor's 253 MiB, about 10 per shard) and the
  # unsharded run's dataset, shared with tests/harness/shard/sequential.sh.
  input="$(shard_cache_input)"
  ln -s "$input" "$work/copy.pgn.zst"
  frames=$(zstd -l "$input" | awk 'NR == 2 { print $1 - $2 }')
  reference="$(shard_cache_reference "$bin" "$input")" || fail "the unsharded run failed"
  # The jobs run this wrapper: it records each call in calls/JOB (JOB is ARRAY_TASK for an array
  # task), and task 1 of an array fails the first time (exit 3, before running the binary).
  mkdir -p "$work/calls"
  real="$bin"
  bin="$work/threefold-logged"
  cat > "$bin" << EOF
#!/usr/bin/env bash
set -u
f="$work/calls/\${SLURM_ARRAY_JOB_ID:+\${SLURM_ARRAY_JOB_ID}_\${SLURM_ARRAY_TASK_ID}}"
[ "\$f" != "$work/calls/" ] || f="$work/calls/\$SLURM_JOB_ID"
{ echo "task: \${SLURM_ARRAY_TASK_ID:-}"; echo "args: \$*"; echo "started_ns: \$(date +%s%N)"; } > "\$f"
if [ "\${SLURM_ARRAY_TASK_ID:-}" = 1 ] && mkdir "$work/calls/failed-once" 2> /dev/null; then
  echo "threefold-logged: task 1 fails on purpose, the first time" >&2
  rc=3
else
  "$real" "\$@"
  rc=\$?
fi
{ echo "ended_ns: \$(date +%s%N)"; echo "exit: \$rc"; } >> "\$f"
exit "\$rc"
EOF
  chmod +x "$bin"
fi

# The scripts under test, as an operator runs them (one CPU per task: two run at a time here).
submitted="$(LOG_DIR="$work/logs" THREEFOLD="$bin" SBATCH_ARGS="--cpus-per-task=1 --time=00:30:00" \
  bash "$root/scripts/slurm/submit.sh" "$shards" "$work/copy.pgn.zst" --source pgnmentor --out "$work/B")" ||
  { show_logs; fail "submit.sh failed"; }
array="$(sed -n 's/^array_job=//p' <<< "$submitted")"
finish="$(sed -n 's/^finish_job=//p' <<< "$submitted")"
if [ -z "$array" ] || [ -z "$finish" ]; then fail "submit.sh printed no job ids: $submitted"; fi
jobs_submitted=("$array" "$finish")
echo "slurm test: array job $array ($shards tasks), finish job $finish (afterany:$array); input with $frames pzstd frames"

# wait_jobs ID...: until the controller has none of them queued or running.
wait_jobs() {
  local ids queued waited=0
  ids="$(tr ' ' , <<< "$*")"
  while :; do
    queued="$(squeue -h -j "$ids" -o '%i %T')" || { show_logs; fail "squeue failed"; }
    [ -z "$queued" ] && return
    [ "$waited" -lt "$timeout_s" ] || { show_logs; fail "the jobs are not done after $timeout_s s: $(tr '\n' ' ' <<< "$queued")"; }
    sleep 2
    waited=$((waited + 2))
  done
}
# job_states ID...: "ID[_TASK] STATE EXITCODE" per job and array task, as the controller
# remembers them after their end (MinJobAge).
job_states() {
  local id
  for id in "$@"; do scontrol -o show job "$id"; done | awk '{
    id = ""; array = ""; task = ""; st = ""; ec = ""
    for (i = 1; i <= NF; i++) {
      split($i, kv, "=")
      if (kv[1] == "JobId") id = kv[2]; else if (kv[1] == "ArrayJobId") array = kv[2]
      else if (kv[1] == "ArrayTaskId") task = kv[2]
      else if (kv[1] == "JobState") st = kv[2]; else if (kv[1] == "ExitCode") ec = kv[2]
    }
    print (task == "" ? id : array "_" task), st, ec
  }' | sort
}

wait_jobs "$array" "$finish"
summary="$(job_states "$array" "$finish")"
while read -r line; do echo "slurm test: job $line"; done <<< "$summary"
for f in "$work"/logs/*.out; do
  echo "--- job log $(basename "$f")"
  cat "$f"
done
[ "$(wc -l <<< "$summary")" = $((shards + 1)) ] || fail "expected $((shards + 1)) job records, got: $summary"
if [ "$dry" = 1 ]; then
  bad="$(awk '$2 != "COMPLETED" || $3 != "0:0"' <<< "$summary")"
  [ -z "$bad" ] || fail "jobs that did not complete with exit code 0: $(tr '\n' ';' <<< "$bad")"
fi

# call_field JOB FIELD: what the wrapper recorded for a call (real run).
call_field() { sed -n "s/^$2: //p" "$work/calls/$1" 2> /dev/null; }

if [ "$dry" = 1 ]; then
  last_end=0
  for ((k = 0; k < shards; k++)); do
    f="$DRY_DIR/task-$k"
    [ -f "$f" ] || fail "task $k wrote nothing"
    grep -q -- "--out $work/B --shard $k/$shards --threads 1 --quiet" "$f" || fail "task $k's arguments: $(grep args "$f")"
    grep -q -- "$work/copy.pgn.zst --source pgnmentor" "$f" || fail "task $k's arguments lack the inputs: $(grep args "$f")"
    end="$(sed -n 's/^ended_ns: //p' "$f")"
    [ "$end" -le "$last_end" ] || last_end="$end"
  done
  [ "$(find "$DRY_DIR" -name 'task-*' | wc -l)" = "$shards" ] || fail "not $shards task files: $(ls "$DRY_DIR")"
  [ -f "$DRY_DIR/finish" ] || fail "the finish job wrote nothing"
  grep -q -- "args: ingest --out $work/B --finish" "$DRY_DIR/finish" || fail "the finish job's arguments: $(grep args "$DRY_DIR/finish")"
  started="$(sed -n 's/^started_ns: //p' "$DRY_DIR/finish")"
  [ "$started" -gt "$last_end" ] || fail "the finish job started before the last task ended"
  # One shard again, as docs/nightly.md says (SHARDS=3 with an array of 1), and the same without
  # SHARDS, which ingest.sbatch must refuse (its array's size, 1, is not N).
  mkdir -p "$DRY_DIR/rerun"
  rerun="$(sbatch --parsable --array=1 --cpus-per-task=1 --output="$work/logs/rerun-%A_%a.out" \
    --export="ALL,OUT=$work/B,SHARDS=$shards,THREEFOLD=$bin,DRY_DIR=$DRY_DIR/rerun" \
    "$root/scripts/slurm/ingest.sbatch" "$work/copy.pgn.zst")"
  unshard="$(sbatch --parsable --array=1 --cpus-per-task=1 --output="$work/logs/no-shards-%A_%a.out" \
    --export="ALL,OUT=$work/B,THREEFOLD=$bin,DRY_DIR=$DRY_DIR/rerun" \
    "$root/scripts/slurm/ingest.sbatch" "$work/copy.pgn.zst")"
  jobs_submitted+=("$rerun" "$unshard")
  wait_jobs "$rerun" "$unshard"
  states="$(job_states "$rerun" "$unshard")"
  if ! grep -qx "${rerun}_1 COMPLETED 0:0" <<< "$states" || ! grep -q -- "--shard 1/$shards " "$DRY_DIR/rerun/task-1"; then
    fail "the rerun of shard 1 with SHARDS=$shards: $(tr '\n' ';' <<< "$states") $(cat "$DRY_DIR/rerun/task-1" 2> /dev/null)"
  fi
  if ! grep -qx "${unshard}_1 FAILED 2:0" <<< "$states" || ! grep -q "set SHARDS=N" "$work/logs/no-shards-${unshard}_1.out"; then
    fail "an array of 1 without SHARDS was not refused: $(tr '\n' ';' <<< "$states") $(cat "$work/logs/no-shards-${unshard}_1.out")"
  fi
  echo "slurm test: N=$shards array $what passed: tasks got --shard 0/3, 1/3, 2/3; the finish job started $(((started - last_end) / 1000000)) ms after the last task ended; a rerun of shard 1 alone (SHARDS=3) got 1/3, without SHARDS it was refused"
else
  # Task 1 failed on purpose; so the finish job fails (shard 1 missing) and commits nothing.
  expected="$(printf '%s\n' "${array}_0 COMPLETED 0:0" "${array}_1 FAILED 3:0" "${array}_2 COMPLETED 0:0" "$finish FAILED 1:0" | sort)"
  [ "$summary" = "$expected" ] || fail "job states $(tr '\n' ';' <<< "$summary") are not $(tr '\n' ';' <<< "$expected")"
  last_end=0
  for ((k = 0; k < shards; k++)); do
    [ -f "$work/calls/${array}_$k" ] || fail "task $k did not run the binary"
    [ "$(call_field "${array}_$k" task)" = "$k" ] || fail "task $k's call is recorded as task $(call_field "${array}_$k" task)"
    grep -q -- "--shard $k/$shards " <<< "$(call_field "${array}_$k" args) " || fail "task $k ran: $(call_field "${array}_$k" args)"
    end="$(call_field "${array}_$k" ended_ns)"
    [ "$end" -le "$last_end" ] || last_end="$end"
  done
  grep -q -- "--out $work/B --finish" <<< "$(call_field "$finish" args)" || fail "the finish job ran: $(call_field "$finish" args)"
  started="$(call_field "$finish" started_ns)"
  [ "$started" -gt "$last_end" ] || fail "the finish job started before the last task ended"
  [ "$(call_field "$finish" exit)" = 1 ] || fail "the finish job's binary exited $(call_field "$finish" exit), not 1 (shard 1 missing)"
  [ ! -e "$work/B/games/source=pgnmentor" ] || fail "the source was committed with shard 1 missing"
  # Shard 1 alone again, and the finishing step again, as docs/nightly.md tells a user.
  rerun="$(sbatch --parsable --array=1 --cpus-per-task=1 --output="$work/logs/rerun-%A_%a.out" \
    --export="ALL,OUT=$work/B,SHARDS=$shards,THREEFOLD=$bin" \
    "$root/scripts/slurm/ingest.sbatch" "$work/copy.pgn.zst" --source pgnmentor)" || fail "sbatch of the rerun failed"
  refinish="$(sbatch --parsable --dependency="afterany:$rerun" --output="$work/logs/refinish-%j.out" \
    --export="ALL,OUT=$work/B,THREEFOLD=$bin" "$root/scripts/slurm/finish.sbatch")" || fail "sbatch of the second finish failed"
  jobs_submitted+=("$rerun" "$refinish")
  wait_jobs "$rerun" "$refinish"
  states="$(job_states "$rerun" "$refinish")"
  expected="$(printf '%s\n' "${rerun}_1 COMPLETED 0:0" "$refinish COMPLETED 0:0" | sort)"
  [ "$states" = "$expected" ] || { show_logs; fail "rerun job states $(tr '\n' ';' <<< "$states") are not $(tr '\n' ';' <<< "$expected")"; }
  grep -q -- "--shard 1/$shards " <<< "$(call_field "${rerun}_1" args) " || fail "the rerun of shard 1 ran: $(call_field "${rerun}_1" args)"
  [ "$(call_field "$refinish" started_ns)" -gt "$(call_field "${rerun}_1" ended_ns)" ] || fail "the second finish job started before the rerun ended"
  [ "$(call_field "$refinish" exit)" = 0 ] || fail "the second finish job's binary exited $(call_field "$refinish" exit)"
  "$py" "$root/tests/harness/shard/compare.py" "$reference" "$work/B" || fail "the sharded dataset differs from the unsharded run's"
  games="$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["games"])' "$reference/_manifest.json")"
  echo "slurm test: N=$shards array $what ($frames frames, $games games) passed: tasks ran --shard 0/3, 1/3, 2/3; task 1 failed on purpose and the finish job, started $(((started - last_end) / 1000000)) ms after the last task ended, exited 1; shard 1 resubmitted alone (--array=1, SHARDS=3) ran 1/3, the second finish exited 0; the same rows as an unsharded run"
fi
