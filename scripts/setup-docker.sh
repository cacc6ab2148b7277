#!/bin/sh
# setup-docker.sh — a docker daemon of its own for dshaudit's docker tests
# on a machine without systemd (as root, Debian bookworm).
#
#   . scripts/setup-docker.sh; docker_start; …; docker_stop
#   sh scripts/setup-docker.sh start|stop|status
#
# docker_start installs Debian's docker.io when dockerd is missing
# (apt-get update at most once), starts dockerd on its own socket, data
# root, exec root and pidfile (nothing shared with a system docker), waits
# until the daemon answers, and exports DOCKER_HOST. It is idempotent: a
# daemon already answering on the socket is reused. docker_stop stops the
# daemon this script started (by its pidfile) and waits for it to exit.
#
# Paths (override before calling): DSHAUDIT_DOCKER_SOCK, _PID, _DATA,
# _EXEC, _LOG.
set -eu

DSHAUDIT_DOCKER_SOCK=${DSHAUDIT_DOCKER_SOCK:-/run/dshaudit-docker.sock}
DSHAUDIT_DOCKER_PID=${DSHAUDIT_DOCKER_PID:-/run/dshaudit-docker.pid}
DSHAUDIT_DOCKER_DATA=${DSHAUDIT_DOCKER_DATA:-/var/lib/dshaudit-docker}
DSHAUDIT_DOCKER_EXEC=${DSHAUDIT_DOCKER_EXEC:-/run/dshaudit-docker}
DSHAUDIT_DOCKER_LOG=${DSHAUDIT_DOCKER_LOG:-/var/log/dshaudit-docker.log}

docker_say() { printf 'setup-docker: %s\n' "$*" >&2; }

docker_ready() {
	DOCKER_HOST=unix://$DSHAUDIT_DOCKER_SOCK docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

docker_start() {
	if ! command -v dockerd >/dev/null 2>&1; then
		docker_say "apt-get install -y --no-install-recommends docker.io"
		DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends docker.io >&2
	fi
	export DOCKER_HOST=unix://$DSHAUDIT_DOCKER_SOCK
	if docker_ready; then
		docker_say "dockerd already answers on $DSHAUDIT_DOCKER_SOCK"
		return 0
	fi
	mkdir -p "$DSHAUDIT_DOCKER_DATA" "$DSHAUDIT_DOCKER_EXEC" "$(dirname "$DSHAUDIT_DOCKER_LOG")"
	docker_say "starting dockerd on $DSHAUDIT_DOCKER_SOCK (data root $DSHAUDIT_DOCKER_DATA, log $DSHAUDIT_DOCKER_LOG)"
	# No systemd here: dockerd runs directly, detached from this shell.
	# --bridge none: containers get host or no networking only, which is
	# all dshaudit uses, and no iptables rules are written.
	setsid dockerd --host "unix://$DSHAUDIT_DOCKER_SOCK" --pidfile "$DSHAUDIT_DOCKER_PID" \
		--data-root "$DSHAUDIT_DOCKER_DATA" --exec-root "$DSHAUDIT_DOCKER_EXEC" \
		--bridge none --iptables=false --ip-masq=false \
		>>"$DSHAUDIT_DOCKER_LOG" 2>&1 </dev/null &
	i=0
	until docker_ready; do
		i=$((i + 1))
		if [ "$i" -gt 120 ]; then
			docker_say "dockerd did not answer within 60 s; last log lines:"
			tail -n 20 "$DSHAUDIT_DOCKER_LOG" >&2
			return 1
		fi
		sleep 0.5
	done
	docker_say "dockerd $(docker version --format '{{.Server.Version}}') ready (client $(docker version --format '{{.Client.Version}}'), API $(docker version --format '{{.Server.APIVersion}}'))"
}

docker_stop() {
	[ -f "$DSHAUDIT_DOCKER_PID" ] || return 0
	pid=$(cat "$DSHAUDIT_DOCKER_PID")
	docker_say "stopping dockerd (pid $pid)"
	kill "$pid" 2>/dev/null || true
	i=0
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -gt 60 ] && { kill -9 "$pid" 2>/dev/null || true; break; }
		sleep 0.5
	done
	rm -f "$DSHAUDIT_DOCKER_PID"
}

# Run as a script: start, stop or status.
case "$(basename -- "$0")" in
setup-docker.sh)
	case "${1:-start}" in
	start) docker_start; printf 'DOCKER_HOST=%s\n' "$DOCKER_HOST" ;;
	stop) docker_stop ;;
	status) docker_ready && echo running || { echo stopped; exit 1; } ;;
	*) docker_say "usage: $0 start|stop|status"; exit 2 ;;
	esac
	;;
esac
