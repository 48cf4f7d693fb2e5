#!/usr/bin/env bash
# Checks docs/simulation.md's Slurm recipe on a real, one-node Slurm: brings up Debian's Slurm
# (installed with apt-get when missing) with its own configuration and state in a temporary
# folder, takes the recipe's scripts from the document as they are written (the fenced blocks
# marked `bash file=NAME`), submits them, and compares the merged summary byte for byte with one
# machine's run of the same batch. Fails on any difference, a failed task or a timeout.
#
# Usage: bash tests/slurm/run.sh [sim] [sweep] [failure]   (no argument: all three)
# Needs root (re-runs itself with sudo otherwise). Stops the daemons it started on exit.
# Environment: TEMPO_BIN (the tempo binary; default: the debug build, built if missing),
# TEMPO_SLURM_RUNS (runs per batch, default 1600), TEMPO_SLURM_TIMEOUT (seconds a part may take
# on the cluster, default 300), TEMPO_SLURM_KEEP=1 keeps the temporary folder, TEMPO_SLURM_PORT
# (slurmctld's port, slurmd's is the next; default 6817).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
doc=$repo/docs/simulation.md
runs=${TEMPO_SLURM_RUNS:-1600}
timeout_s=${TEMPO_SLURM_TIMEOUT:-300}

if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "tests/slurm/run.sh: needs root (to install Slurm and start its daemons) or sudo" >&2
    exit 1
  fi
  exec sudo --preserve-env=TEMPO_BIN,TEMPO_SLURM_RUNS,TEMPO_SLURM_TIMEOUT,TEMPO_SLURM_KEEP,TEMPO_SLURM_PORT,CARGO_TARGET_DIR,PATH \
    bash "$0" "$@"
fi

parts=("$@")

[ ${#parts[@]} -gt 0 ] || parts=(sim sweep failure)

say() { printf '== slurm test: %s\n' "$*" >&2; }

# --- the binary -------------------------------------------------------------------------------

tempo_bin=${TEMPO_BIN:-${CARGO_TARGET_DIR:-$repo/target}/debug/tempo}
if [ ! -x "$tempo_bin" ]; then
  cargo build --quiet --bin tempo
fi
tempo_bin=$(realpath "$tempo_bin")

# --- Slurm and munge from Debian ----------------------------------------------------------------

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
  || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  say "installing slurm-wlm and munge with apt-get"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

work=$(mktemp -d /tmp/tempo-slurm.XXXXXX)
chmod 755 "$work"
started_munged=""
ctld_pid=""
slurmd_pid=""
failed=1

show_logs() {
  for log in "$work"/slurmctld.log "$work"/slurmd.log; do
    [ -f "$log" ] || continue
    echo "---- $log (last 60 lines) ----" >&2
    tail -n 60 "$log" >&2
  done
}

# Stops only the daemons this script started (by their ids), after cancelling what is left.
cleanup() {
  local status=$?
  if [ "$failed" -ne 0 ] || [ "$status" -ne 0 ]; then
    say "FAILED"
    show_logs
  fi
  if [ -n "$ctld_pid" ]; then
    squeue -h -o %A 2>/dev/null | xargs -r scancel 2>/dev/null || true
  fi
  for pid in $slurmd_pid $ctld_pid; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in $slurmd_pid $ctld_pid; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ -n "$started_munged" ]; then
    kill "$started_munged" 2>/dev/null || true
  fi
  if [ "${TEMPO_SLURM_KEEP:-0}" = 1 ]; then
    say "kept $work"
  else
    rm -rf "$work"
  fi
  exit "$status"
}
trap cleanup EXIT

start_munge() {
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    return
  fi
  if [ ! -s /etc/munge/munge.key ]; then
    mungekey --create --keyfile=/etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key
    chmod 400 /etc/munge/munge.key
  fi
  mkdir -p /run/munge
  chown munge:munge /run/munge
  runuser -u munge -- munged
  started_munged=$(cat /run/munge/munged.pid)
  munge -n | unmunge >/dev/null
}

# A one-node cluster on this host: its CPUs and memory as slurmd sees them, no cgroups (they need
# not work in a container), the state and logs in $work.
host=$(hostname -s)

write_config() {
  local node
  node=$(slurmd -C | head -n 1 | sed "s/^NodeName=[^ ]*/NodeName=$host/")
  cat >"$work/slurm.conf" <<EOF
ClusterName=tempo-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${TEMPO_SLURM_PORT:-6817}
SlurmdPort=$(( ${TEMPO_SLURM_PORT:-6817} + 1 ))
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=3600
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  mkdir -p "$work/state" "$work/spool"
}

start_cluster() {
  start_munge
  write_config
  export SLURM_CONF=$work/slurm.conf
  slurmctld -D -c -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
  ctld_pid=$!
  slurmd -D -N "$host" -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
  slurmd_pid=$!
  local state=""
  for _ in $(seq 120); do
    state=$(sinfo -h -N -o %T 2>/dev/null || true)
    [ "$state" = idle ] && return
    sleep 0.5
  done
  cat "$work/slurmctld.out" "$work/slurmd.out" >&2 || true
  say "the node is not idle after 60 s (sinfo: '${state}')"
  return 1
}

# --- the recipe, from the document ------------------------------------------------------------

# The text of the fenced block whose info string is `bash file=NAME`; exactly one must exist.
doc_block() {
  local name=$1 text count
  count=$(grep -c "^\`\`\`bash file=$name\$" "$doc" || true)
  if [ "$count" != 1 ]; then
    say "docs/simulation.md has $count blocks marked \`\`\`bash file=$name (expected 1)"
    return 1
  fi
  text=$(awk -v open="\`\`\`bash file=$name" '
    $0 == open { inside = 1; next }
    inside && /^```/ { exit }
    inside { print }' "$doc")
  printf '%s\n' "$text"
}

# Replaces FROM by TO in FILE where it occurs exactly once (a regular expression, sed -E, no |).
substitute_once() {
  local file=$1 from=$2 to=$3 count
  count=$(grep -cE -- "$from" "$file" || true)
  if [ "$count" != 1 ]; then
    say "$(basename "$file"): expected '$from' once, found it on $count lines"
    return 1
  fi
  sed -E -i "s|$from|$to|" "$file"
}

# A folder for one batch with the recipe's files, the job script made small enough for a test:
# fewer runs and one CPU a task. Everything else is the document's text.
prepare() {
  local dir=$1 job=$2 submit=$3
  mkdir -p "$dir/bin"
  ln -s "$repo/rulesets" "$dir/rulesets"
  ln -s "$repo/examples" "$dir/examples"
  ln -s "$tempo_bin" "$dir/bin/tempo"
  doc_block "$job" >"$dir/$job"
  doc_block merge.sh >"$dir/merge.sh"
  doc_block "$submit" >"$dir/$submit"
  substitute_once "$dir/$job" '--runs [0-9]+' "--runs $runs"
  substitute_once "$dir/$job" '^#SBATCH --cpus-per-task=[0-9]+$' '#SBATCH --cpus-per-task=1'
}

# The one-machine command of a job script: its tempo command without --jobs, --shard and the
# redirection, printing JSON.
one_machine_command() {
  sed -e ':a' -e '/\\$/{N;s/\\\n//;ba}' "$1" | grep -E '^tempo ' \
    | sed -E -e 's/ +--jobs +"[^"]*"//' -e 's/ +--shard +"[^"]*"//' -e 's/ *>.*$//' -e 's/ +/ /g' \
    | sed -e 's/$/ --format json/'
}

# Every job the controller knows that was not in $1 (a list of ids), one line each.
new_jobs() {
  scontrol show job -o 2>/dev/null | grep '^JobId=' | while read -r line; do
    id=${line#JobId=}; id=${id%% *}
    grep -qx "$id" <<<"$1" || printf '%s\n' "$line"
  done || true
}

known_jobs() {
  scontrol show job -o 2>/dev/null | grep -o '^JobId=[0-9]*' | cut -d= -f2 || true
}

field() { grep -o " $1=[^ ]*" | head -n 1 | cut -d= -f2; }

# Job lines of `scontrol show job -o`, shortened to what says why a job is where it is.
brief() {
  local line
  while read -r line; do
    printf '  job %s (%s): %s, reason %s, exit code %s, dependency %s\n' \
      "$(field JobId <<<" $line")" "$(field JobName <<<" $line")" "$(field JobState <<<" $line")" \
      "$(field Reason <<<" $line")" "$(field ExitCode <<<" $line")" "$(field Dependency <<<" $line")"
  done
}

# Runs the submit commands in DIR and waits until every job they made has left the queue, at
# most LIMIT seconds (default: TEMPO_SLURM_TIMEOUT).
submit_and_wait() {
  local dir=$1 submit=$2 limit=${3:-$timeout_s} before start
  before=$(known_jobs)
  start=$(date +%s)
  (cd "$dir" && PATH="$dir/bin:$PATH" bash -euo pipefail "$submit")
  while squeue -h -o %A | grep -q .; do
    if [ $(( $(date +%s) - start )) -ge "$limit" ]; then
      say "timeout: jobs still queued after ${limit} s"
      new_jobs "$before" | brief >&2
      return 1
    fi
    sleep 1
  done
  say "$(basename "$dir"): the jobs left the queue after $(( $(date +%s) - start )) s"
  new_jobs "$before" >"$dir/jobs.txt"
}

# Every job of the batch completed with exit code 0.
check_all_completed() {
  local dir=$1 bad=0 line
  while read -r line; do
    local state code name
    state=$(field JobState <<<" $line")
    code=$(field ExitCode <<<" $line")
    name=$(field JobName <<<" $line")
    if [ "$state" != COMPLETED ] || [ "$code" != 0:0 ]; then
      say "job $(field JobId <<<" $line") ($name): $state ($(field Reason <<<" $line")), exit code $code"
      bad=1
    fi
  done <"$dir/jobs.txt"
  if [ "$bad" -ne 0 ]; then
    for log in "$dir"/logs/*; do
      [ -f "$log" ] || continue
      echo "---- $log" >&2
      cat "$log" >&2
    done
    return 1
  fi
  local tasks
  tasks=$(grep -c 'ArrayTaskId=' "$dir/jobs.txt" || true)
  say "$(basename "$dir"): $tasks array tasks and the merge completed"
}

# Runs one batch of the recipe (JOB: sim.sh or sweep.sh) and compares its summary.
run_recipe() {
  local name=$1 job=$2 submit=$3 dir=$work/$1 reference
  say "$name: the recipe from docs/simulation.md ($job, merge.sh, $submit), $runs runs"
  prepare "$dir" "$job" "$submit"
  submit_and_wait "$dir" "$submit"
  check_all_completed "$dir"
  reference=$(one_machine_command "$dir/$job")
  say "$name: one machine: $reference"
  (cd "$dir" && PATH="$dir/bin:$PATH" bash -euo pipefail -c "$reference") >"$dir/one-machine.json"
  if [ ! -s "$dir/summary.json" ] || [ ! -s "$dir/one-machine.json" ]; then
    say "$name: summary.json or one machine's summary is empty"
    return 1
  fi
  if ! cmp "$dir/summary.json" "$dir/one-machine.json"; then
    say "$name: the merged summary differs from one machine's"
    diff "$dir/one-machine.json" "$dir/summary.json" | head -n 40 >&2 || true
    return 1
  fi
  say "$name: summary.json is byte for byte one machine's ($(wc -c <"$dir/summary.json") bytes)"
}

part_sim() { run_recipe sim sim.sh submit.sh; }

part_sweep() { run_recipe sweep sweep.sh submit-sweep.sh; }

# A task that fails (a ruleset path that does not exist) must cancel the merge, not leave it
# pending forever.
part_failure() {
  local dir=$work/failure state reason
  say "failure: the sim recipe with a missing ruleset"
  prepare "$dir" sim.sh submit.sh
  substitute_once "$dir/sim.sh" 'rulesets/frontiers\.rules' 'rulesets/missing.rules'
  # Every task fails within seconds; a merge still queued after a minute waits for nothing.
  submit_and_wait "$dir" submit.sh 60
  local merge
  merge=$(grep ' JobName=tempo-merge ' "$dir/jobs.txt")
  state=$(field JobState <<<" $merge")
  reason=$(field Reason <<<" $merge")
  if [ "$state" != CANCELLED ]; then
    say "failure: the merge job is $state ($reason), expected CANCELLED"
    return 1
  fi
  if grep ' JobName=tempo-sim ' "$dir/jobs.txt" | grep -q ' JobState=COMPLETED '; then
    say "failure: a task with a missing ruleset completed"
    return 1
  fi
  say "failure: the tasks failed and the merge was $state ($reason)"
}

for part in "${parts[@]}"; do
  case $part in
    sim | sweep | failure) ;;
    *) say "unknown part '$part' (sim, sweep, failure)"; exit 2 ;;
  esac
done

begin=$(date +%s)
start_cluster
say "one-node Slurm up ($(sinfo -h -N -o '%N %c CPUs %m MB') ) after $(( $(date +%s) - begin )) s"
for part in "${parts[@]}"; do
  "part_$part"
done
failed=0
say "passed (${parts[*]}) in $(( $(date +%s) - begin )) s"
