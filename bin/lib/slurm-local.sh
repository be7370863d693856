#!/usr/bin/env bash
# A throwaway one-node Slurm cluster on 127.0.0.1 for tests and for trying 'gluelab sweep submit'
# on one machine: munged, slurmctld and slurmd with a generated config, every file in DIR (no
# systemd, nothing in /etc). Needs root (slurmd) and Debian's slurm-wlm and munge.
#   bin/lib/slurm-local.sh start DIR [CTLD_PORT SLURMD_PORT]   # prints SLURM_CONF=DIR/slurm.conf once the node is idle
#   bin/lib/slurm-local.sh stop DIR                            # stops the daemons it started (by their pid files) and waits for them
set -euo pipefail
cmd="${1:-}"; dir="${2:-}"
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR [CTLD_PORT SLURMD_PORT]" >&2; exit 2; }

stop() {
  local f pid _
  for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -s "$f" ] || continue
    pid="$(cat "$f")"
    kill "$pid" 2>/dev/null || continue
    # slurmctld saves its state as it exits: wait, so DIR can be removed once this returns.
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
}

case "$cmd" in
  stop) stop; exit 0 ;;
  start) ;;
  *) echo "unknown command '$cmd' (start or stop)" >&2; exit 2 ;;
esac

for b in munged mungekey slurmctld slurmd sbatch; do
  command -v "$b" >/dev/null || { echo "$b is not installed (Debian: apt-get install -y slurm-wlm munge)" >&2; exit 3; }
done
[ "$(id -u)" -eq 0 ] || { echo "slurmd needs root" >&2; exit 3; }
ctld_port="${3:-16817}"; slurmd_port="${4:-16818}"
dir="$(mkdir -p "$dir" && cd "$dir" && pwd)"
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chmod 700 "$dir/munge"
# munged checks that the folders above its socket are not writable by others.
chmod go-w "$dir"

mungekey --create --force --keyfile="$dir/munge/munge.key"
chmod 600 "$dir/munge/munge.key"
munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"

cat > "$dir/slurm.conf" <<CONF
ClusterName=gluelab-local
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
KillWait=10
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

export SLURM_CONF="$dir/slurm.conf"
slurmctld -i -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N localhost
# Up to 60 s: the daemons start in a second or two, but a loaded 2-core CI machine can take far longer.
for _ in $(seq 1 120); do
  if [ "$(sinfo -h -N -o %t 2>/dev/null)" = "idle" ]; then echo "SLURM_CONF=$SLURM_CONF"; exit 0; fi
  sleep 0.5
done
echo "the local Slurm node did not come up within 60 s; logs in $dir/log" >&2
tail -n 20 "$dir"/log/*.log >&2 || true
stop
exit 1
