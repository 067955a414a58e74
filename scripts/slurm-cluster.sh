#!/usr/bin/env bash
# A real Slurm cluster of two nodes on this machine, for the tests of training under Slurm (issue #64):
# munged, slurmctld and two slurmd from Debian's packages. Debian builds slurmd without
# --enable-multiple-slurmd, so each node is a network namespace of its own (an address, a host name in a UTS
# namespace, a hosts file that names every node, bound over /etc/hosts in a mount namespace of its own),
# joined by a bridge to a third namespace that holds the
# controller and the programs that use the cluster (the tests, sbatch, srun). Each daemon has its own key,
# socket, spool and state in one temporary folder: nothing of the machine's own Slurm, munge or network is
# touched, and the cluster's traffic stays between its own namespaces. Source it, then:
#
#   slurm_cluster_start       starts the daemons and waits until both nodes take jobs; exports SLURM_CONF
#   slurm_cluster_run CMD...  runs CMD where the cluster's programs run (the controller's namespace)
#   slurm_cluster_stop        stops the daemons, deletes the namespaces and the folder (a trap calls it on
#                             every exit path; a cluster whose script was killed outright is stopped when
#                             the next one starts)
#
# Needs root (namespaces; slurmd starts each job's tasks as the user who submitted it) and iproute2.
# slurm_cluster_unavailable says why not in one line ("" when it can run here).
slurm_cluster_nodes=(wbn1 wbn2)

slurm_cluster_unavailable() {
  if [ "$(id -u)" != 0 ]; then echo "a Slurm node (slurmd) and its network namespace need root"; return; fi
  for program in munged slurmctld slurmd srun sbatch ip unshare nsenter; do
    if ! command -v "$program" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$program" ]; then
      echo "$program is not installed (Debian: slurm-wlm, munge, iproute2; scripts/install-deps.sh)"
      return
    fi
  done
  local probe="wbs-probe-$$"
  if ! ip netns add "$probe" 2>/dev/null; then
    echo "network namespaces cannot be made here (ip netns add failed)"
    return
  fi
  ip netns del "$probe"
}

# The cluster's names, from the folder's own suffix: two clusters on one machine do not meet.
_slurm_ns() { echo "wbs-${SLURM_CLUSTER_ID}-$1"; }

# CMD in the namespace NAME (ctl or a node), under the host name NAME with the cluster's hosts file as
# /etc/hosts. Not `ip netns exec`: it mounts a sysfs of its own, without the cgroup filesystem slurmd needs.
_slurm_in() {
  local name=$1
  shift
  nsenter --net="/run/netns/$(_slurm_ns "$name")" unshare --mount --uts -- \
    sh -c 'mount --bind "$1" /etc/hosts && hostname "$2" && shift 2 && exec "$@"' \
    sh "$SLURM_CLUSTER_DIR/hosts" "$name" "$@"
}

slurm_cluster_run() { _slurm_in ctl "$@"; }

slurm_cluster_stop() {
  local dir=${SLURM_CLUSTER_DIR:-}
  [ -n "$dir" ] && [ -n "${SLURM_CLUSTER_ID:-}" ] || return 0
  local pidfile pid ns
  local pidfiles=("$dir"/slurmd-*.pid "$dir"/slurmctld.pid "$dir"/munged.pid)
  for pidfile in "${pidfiles[@]}"; do
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  # Their jobs' tasks go with slurmd (proctrack/linuxproc kills the steps it tracks); wait for the daemons.
  for _ in $(seq 50); do
    local alive=0
    for pidfile in "${pidfiles[@]}"; do
      pid=$(cat "$pidfile" 2>/dev/null || true)
      [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && alive=1
    done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  # Whatever is left in a namespace (a daemon that would not stop, a task it lost) goes with it.
  for ns in ctl "${slurm_cluster_nodes[@]}"; do
    for pid in $(ip netns pids "$(_slurm_ns "$ns")" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$(_slurm_ns "$ns")" 2>/dev/null || true
  done
  pid=$(cat "$dir/munged.pid" 2>/dev/null || true)
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  rm -rf "$dir"
  unset SLURM_CLUSTER_DIR SLURM_CLUSTER_ID SLURM_CONF
}

# A cluster whose script was killed (SIGKILL runs no trap): its folder names the shell that started it. Stopped
# the next time a cluster starts, so that its daemons and namespaces do not outlive it for long.
_slurm_cluster_reap() {
  local old owner
  for old in /tmp/wb-slurm.*; do
    [ -d "$old" ] || continue
    owner=$(cat "$old/owner" 2>/dev/null || true)
    if [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; then
      (SLURM_CLUSTER_DIR=$old SLURM_CLUSTER_ID=${old##*.} slurm_cluster_stop)
    fi
  done
}

slurm_cluster_start() {
  _slurm_cluster_reap
  local dir
  dir=$(mktemp -d /tmp/wb-slurm.XXXXXX)
  chmod 755 "$dir"
  echo $$ > "$dir/owner"
  export SLURM_CLUSTER_DIR=$dir
  export SLURM_CLUSTER_ID=${dir##*.}
  mkdir -p "$dir/state"
  # The network: a bridge in the controller's namespace, each node's namespace on it; 10.214.0.0/16 is a
  # private range nothing else here uses (the link tests' hosts use 10.213).
  local subnet=$((10 + $$ % 240)) ctl i=2 node ns
  ctl=$(_slurm_ns ctl)
  local hosts="127.0.0.1 localhost
10.214.$subnet.1 ctl"
  for node in "${slurm_cluster_nodes[@]}"; do
    hosts+=$'\n'"10.214.$subnet.$i $node"
    i=$((i + 1))
  done
  echo "$hosts" > "$dir/hosts"
  ip netns add "$ctl" || return 1
  ip -n "$ctl" link set lo up
  ip -n "$ctl" link add br0 type bridge
  ip -n "$ctl" addr add "10.214.$subnet.1/24" dev br0
  ip -n "$ctl" link set br0 up
  i=2
  for node in "${slurm_cluster_nodes[@]}"; do
    ns=$(_slurm_ns "$node")
    ip netns add "$ns" || return 1
    mkdir -p "$dir/spool-$node"
    ip -n "$ns" link set lo up
    ip -n "$ns" link add eth0 type veth peer name "p$i" netns "$ctl" || return 1
    ip -n "$ctl" link set "p$i" master br0
    ip -n "$ctl" link set "p$i" up
    ip -n "$ns" addr add "10.214.$subnet.$i/24" dev eth0
    ip -n "$ns" link set eth0 up
    i=$((i + 1))
  done
  # munge: a key of this cluster's own, on a socket of its own (a path: every namespace reaches it).
  head -c 1024 /dev/urandom > "$dir/munge.key"
  chmod 400 "$dir/munge.key"
  /usr/sbin/munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge.seed"
  local port=17000 cpus nodelines=""
  cpus=$(getconf _NPROCESSORS_ONLN)
  i=2
  for node in "${slurm_cluster_nodes[@]}"; do
    nodelines+="NodeName=$node NodeAddr=10.214.$subnet.$i CPUs=$cpus State=UNKNOWN"$'\n'
    i=$((i + 1))
  done
  cat > "$dir/slurm.conf" <<EOF
ClusterName=wbtest
SlurmctldHost=ctl(10.214.$subnet.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
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
${nodelines}PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
  export SLURM_CONF=$dir/slurm.conf
  slurm_cluster_run /usr/sbin/slurmctld -f "$SLURM_CONF"
  for node in "${slurm_cluster_nodes[@]}"; do
    # A host name of its own, as a real node has (its tasks' run.json names it).
    _slurm_in "$node" /usr/sbin/slurmd -f "$SLURM_CONF" -N "$node"
  done
  for _ in $(seq 150); do
    # Every node idle, not idle* (registered, not yet responding): a step sent then waits for the node.
    if [ "$(slurm_cluster_run sinfo -h -N -o %t 2>/dev/null | grep -cxE 'idle|mix|alloc')" = \
         "${#slurm_cluster_nodes[@]}" ]; then
      return 0
    fi
    sleep 0.2
  done
  echo "slurm-cluster: the nodes did not come up; slurmctld.log and the slurmd logs say:" >&2
  tail -5 "$dir"/slurm*.log >&2 || true
  return 1
}
