#!/usr/bin/env bash
# A real Slurm cluster of one node on this machine, for the tests of training under Slurm (issue #64):
# munged, slurmctld and slurmd from Debian's packages (scripts/install-deps.sh installs them), each with its
# own key, socket, ports, spool and state in one temporary folder, so that nothing of the machine's own
# Slurm or munge is touched. Source it, then:
#
#   slurm_cluster_start       starts the daemons and waits until the node takes jobs; exports SLURM_CONF so
#                             that srun, sbatch, squeue and scancel talk to this cluster
#   slurm_cluster_stop        stops them and removes the folder (a trap calls it on every exit path)
#
# Needs root: slurmd starts each job's tasks as the user who submitted it. slurm_cluster_unavailable says
# why not in one line ("" when it can run here).
slurm_cluster_unavailable() {
  if [ "$(id -u)" != 0 ]; then echo "a Slurm node (slurmd) needs root"; return; fi
  # The node is this machine under its host name, and a job's rank 0 is found by it.
  if ! getent hosts "$(hostname)" >/dev/null; then
    echo "this machine's host name ($(hostname)) does not resolve, and Slurm's node is named by it"
    return
  fi
  for program in munged slurmctld slurmd srun sbatch; do
    if ! command -v "$program" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$program" ]; then
      echo "$program is not installed (Debian: slurm-wlm and munge; scripts/install-deps.sh)"
      return
    fi
  done
}

slurm_cluster_stop() {
  local dir=${SLURM_CLUSTER_DIR:-}
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  local pidfile pid
  for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  # Their jobs' tasks go with slurmd (proctrack/linuxproc kills the steps it tracks); wait for the daemons.
  for _ in $(seq 50); do
    local alive=0
    for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
      pid=$(cat "$pidfile" 2>/dev/null || true)
      [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && alive=1
    done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$dir"
  unset SLURM_CLUSTER_DIR SLURM_CONF
}

slurm_cluster_start() {
  local dir
  dir=$(mktemp -d /tmp/wb-slurm.XXXXXX)
  chmod 755 "$dir"
  export SLURM_CLUSTER_DIR=$dir
  mkdir -p "$dir/spool" "$dir/state"
  # munge: a key of this cluster's own, on a socket of its own.
  head -c 1024 /dev/urandom > "$dir/munge.key"
  chmod 400 "$dir/munge.key"
  /usr/sbin/munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge.seed"
  # Ports from this shell's pid, so that two clusters on one machine do not meet.
  local port=$((17000 + ($$ % 400) * 2)) node
  node=$(hostname)
  cat > "$dir/slurm.conf" <<EOF
ClusterName=wbtest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=300
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(getconf _NPROCESSORS_ONLN) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
  export SLURM_CONF=$dir/slurm.conf
  /usr/sbin/slurmctld -f "$SLURM_CONF"
  /usr/sbin/slurmd -f "$SLURM_CONF"
  for _ in $(seq 100); do
    # idle, not idle* (registered, not yet responding): a step sent then waits for the node.
    if sinfo -h -o %t 2>/dev/null | grep -qxE 'idle|mix|alloc'; then return 0; fi
    sleep 0.2
  done
  echo "slurm-cluster: the node did not come up; slurmctld.log and slurmd.log say:" >&2
  tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
  return 1
}
