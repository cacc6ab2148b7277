#!/usr/bin/env bash
# A one-node Slurm on localhost for `dshaudit batch --on slurm` and its
# end-to-end test (docs/batch.md, /work/shared/SLURM.md):
#
#   scripts/setup-slurm.sh start   install slurm-wlm and munge when missing,
#                                  write a one-node slurm.conf (the real CPU
#                                  count, tasks use -c 1), start munged,
#                                  slurmctld and slurmd directly (there is
#                                  no systemd), wait until the node is idle
#   scripts/setup-slurm.sh stop    stop what `start` started (nothing when
#                                  the daemons were already running)
#
# Needs root. Idempotent: a running Slurm is left as it is.
set -euo pipefail

conf=/etc/slurm/slurm.conf
marker=/run/dshaudit-slurm.started
mark='# written by dshaudit scripts/setup-slurm.sh'

log() { echo "setup-slurm: $*" >&2; }

install_packages() {
	if command -v sbatch >/dev/null && command -v slurmctld >/dev/null &&
		command -v slurmd >/dev/null && command -v munged >/dev/null; then
		return
	fi
	log "installing slurmctld slurmd slurm-client munge from Debian"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		slurmctld slurmd slurm-client munge >/dev/null
}

write_conf() {
	if [[ -f $conf ]] && ! grep -qF "$mark" "$conf"; then
		log "keeping the existing $conf (not ours)"
		return
	fi
	local cpus mem
	cpus=$(nproc --all)
	# slurmd drains a node that has less memory than configured: stay
	# below what the machine has.
	mem=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 - 1024))
	install -d /etc/slurm
	cat >"$conf" <<EOF
$mark
ClusterName=local
SlurmctldHost=localhost
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SchedulerType=sched/backfill
ReturnToService=2
# a cancelled dshaudit run gets this long after SIGTERM to remove its
# containers and temporary files before SIGKILL
KillWait=30
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

node_state() { sinfo -h -N -o '%T' 2>/dev/null | head -n1; }

start() {
	if [[ $(id -u) != 0 ]]; then
		log "needs root (munged, slurmctld and slurmd are started directly)"
		exit 3
	fi
	install_packages
	if scontrol ping 2>/dev/null | grep -q 'is UP' && [[ $(node_state) == idle* || $(node_state) == mixed* || $(node_state) == allocated* ]]; then
		log "slurm already running: $(sinfo -h -N -o '%N %T %c CPUs')"
		return
	fi
	write_conf
	: >"$marker"
	if [[ ! -S /run/munge/munge.socket.2 ]] || ! munge -n >/dev/null 2>&1; then
		install -d -o munge -g munge -m 755 /run/munge
		[[ -f /etc/munge/munge.key ]] || { mungekey --create >/dev/null 2>&1 || /usr/sbin/mungekey -c; chown munge:munge /etc/munge/munge.key; }
		runuser -u munge -- /usr/sbin/munged
		echo munged >>"$marker"
	fi
	install -d -o slurm -g slurm /var/lib/slurm/slurmctld
	install -d /var/lib/slurm/slurmd /var/log/slurm
	if ! scontrol ping 2>/dev/null | grep -q 'is UP'; then
		/usr/sbin/slurmctld
		echo slurmctld >>"$marker"
	fi
	if ! pgrep -x slurmd >/dev/null; then
		/usr/sbin/slurmd -N localhost
		echo slurmd >>"$marker"
	fi
	for _ in $(seq 1 100); do
		case $(node_state) in
		idle* | mixed* | allocated*)
			log "slurm up: $(sinfo -h -N -o '%N %T %c CPUs')"
			return
			;;
		esac
		sleep 0.2
	done
	log "the node did not become idle in 20 s: $(sinfo -N 2>&1 | tail -n +2)"
	tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
	exit 3
}

stop() {
	[[ -f $marker ]] || return 0
	if grep -qx 'slurmctld' "$marker" || grep -qx 'slurmd' "$marker"; then
		scontrol shutdown >/dev/null 2>&1 || true
		for _ in $(seq 1 50); do
			pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null || break
			sleep 0.2
		done
	fi
	if grep -qx munged "$marker" && [[ -f /run/munge/munged.pid ]]; then
		local pid
		pid=$(cat /run/munge/munged.pid)
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	rm -f "$marker"
	log "stopped"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac
