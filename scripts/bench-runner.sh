#!/usr/bin/env bash
# bench-runner.sh — runner overhead ratio (issue 4 benchmark, target <= 1.10;
# issue 11 keeps it at or under 1.05):
# wall time of `dshaudit run` of testdata/plugins/pass over the wall time of
# the same container commands run bare by this script, measured alternately
# in the same session: odd rounds run the bare side first, even rounds
# dshaudit first. It prints each round, the ratio of the totals and the
# median of the rounds' ratios. T1 installs from the npm registry, whose
# time varies by seconds from one install to the next: read several rounds.
#
# The bare sequence does what the run needs and nothing more: npm pack of
# the fixture, the three version queries, then per repetition a fresh
# profile directory and T1–T4, each `podman run` with the flags dshaudit's
# engine uses (runc, limits, ulimits, network, mounts, env), T4 observed
# for 12 s from the moment podman reports the container running, then
# killed. Both sides run 2 repetitions with -w (--t1-workspace-root).
# Like the engine, the bare side never uses `podman run --rm` (whose
# removal can race the exit status): each container is removed with
# `podman rm --force` after it ends. Every wait is bounded; arithmetic is
# awk's (no bc).
#
# Usage: scripts/bench-runner.sh [ROUNDS]   (default 2)
# Image: $DSHAUDIT_E2E_IMAGE or the ref file scripts/setup.sh writes.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-2}
case $ROUNDS in '' | *[!0-9]* | 0) echo "bench-runner: ROUNDS must be a positive integer, got '$ROUNDS'" >&2; exit 2 ;; esac
[ "$ROUNDS" -le 20 ] || { echo "bench-runner: at most 20 rounds" >&2; exit 2; }
CACHE=${DSHAUDIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit}
IMAGE=${DSHAUDIT_E2E_IMAGE:-$(cat "$CACHE/sandbox-image.ref" 2>/dev/null || true)}
[ -n "$IMAGE" ] || { echo "bench-runner: no image: run scripts/setup.sh or set DSHAUDIT_E2E_IMAGE" >&2; exit 1; }
CA=/etc/ssl/certs/ca-certificates.crt

WORK=$(mktemp -d /tmp/dshaudit-bench.XXXXXX)
NAMES=() # the bare side's containers, removed as each ends and on exit
trap cleanup EXIT
go build -o "$WORK/dshaudit" ./cmd/dshaudit
"$WORK/dshaudit" key generate --out-dir "$WORK" --name bench >/dev/null 2>&1

now() { date +%s.%N; }

run_tool() {
	"$WORK/dshaudit" run "$PWD/testdata/plugins/pass" --image "$IMAGE" --signing-key "$WORK/bench.key" \
		--t1-workspace-root --repeat 2 --out "$WORK/b.dshaudit.tar.zst" --json --progress never >"$WORK/tool.json"
}

# Same flags as engine.CLI.runArgs (no --rm: see above).
P=(podman --runtime runc run --pull=never --memory 768m --cpus 1 --pids-limit 256
	--ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --http-proxy=false --unsetenv TERM)

newname() { NAME="bench-$$-${#NAMES[@]}"; NAMES+=("$NAME"); }
rmc() { podman rm --force --ignore --time 0 "$@" >/dev/null 2>&1 || true; }
cleanup() { [ ${#NAMES[@]} -eq 0 ] || rmc "${NAMES[@]}"; rm -rf "$WORK"; }
# prun ARGS...: one podman run under a fresh name, removed afterwards.
prun() {
	local rc=0
	newname
	"${P[@]}" --name "$NAME" "$@" || rc=$?
	rmc "$NAME"
	return "$rc"
}
# calc EXPR: floating-point arithmetic without bc.
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

run_bare() {
	local pk="$WORK/pkgs" img n rep home
	img=$(podman image inspect --format '{{.Id}}' "$IMAGE")
	rm -rf "$pk" && mkdir -p "$pk"
	(cd "$pk" && npm pack --ignore-scripts "$OLDPWD/testdata/plugins/pass" >/dev/null 2>&1)
	local tgz
	tgz=$(basename "$pk"/*.tgz)
	for v in dsh node pnpm; do
		prun --network none --env DSH_HOME=/dsh-home --entrypoint "$v" "$img" --version >/dev/null
	done
	for rep in 1 2; do
		home=$(mktemp -d "$WORK/profile.XXXXXX")
		local M=(--env DSH_HOME=/dsh-home --mount "type=bind,source=$home,destination=/dsh-home"
			--mount "type=bind,source=$pk,destination=/pkgs,readonly=true")
		prun --network host "${M[@]}" \
			--env NODE_EXTRA_CA_CERTS=/etc/dshaudit/host-ca.crt --mount "type=bind,source=$CA,destination=/etc/dshaudit/host-ca.crt,readonly=true" \
			--entrypoint dsh "$img" plugin --profile web add -w "/pkgs/$tgz" >"$WORK/t1.out" 2>&1
		cat "$home/profiles/web/package.json" >/dev/null
		du -sb "$home/profiles/web/node_modules" >/dev/null
		prun --network none "${M[@]}" --entrypoint dsh "$img" plugin --profile web list >"$WORK/t2.out" 2>&1
		prun --network none "${M[@]}" --entrypoint dsh "$img" --profile web --dump-config >"$WORK/t3.out" 2>&1
		newname
		n=$NAME
		"${P[@]}" --name "$n" --network none "${M[@]}" --entrypoint dsh "$img" --profile web >"$WORK/t4.out" 2>&1 &
		local pid=$! tries=0
		# Wait at most 60 s (3000 × 20 ms) for podman to report it running.
		until [ "$(podman container inspect "$n" --format '{{.State.Running}}' 2>/dev/null)" = true ]; do
			tries=$((tries + 1))
			[ "$tries" -le 3000 ] || { echo "bench-runner: T4 container never ran" >&2; kill "$pid" 2>/dev/null; rmc "$n"; return 1; }
			sleep 0.02
		done
		sleep 12
		podman kill --signal KILL "$n" >/dev/null 2>&1 || true
		wait "$pid" || true
		rmc "$n"
		rm -rf "$home"
	done
}

tool_total=0 bare_total=0 ratios=()
for i in $(seq "$ROUNDS"); do
	# Odd rounds run the bare side first, even rounds dshaudit first, so
	# that neither side always gets the warmer registry and page cache.
	if [ $((i % 2)) -eq 1 ]; then
		t0=$(now); run_bare; t1=$(now)
		run_tool || { echo "bench-runner: dshaudit run failed" >&2; exit 1; }
		t2=$(now)
		b=$(calc "$t1 - $t0"); t=$(calc "$t2 - $t1") order="bare first"
	else
		t0=$(now)
		run_tool || { echo "bench-runner: dshaudit run failed" >&2; exit 1; }
		t1=$(now); run_bare; t2=$(now)
		t=$(calc "$t1 - $t0"); b=$(calc "$t2 - $t1") order="dshaudit first"
	fi
	r=$(calc "$t / $b")
	ratios+=("$r")
	printf 'round %d (%s): bare %.1fs  dshaudit run %.1fs  ratio %.3f  (verdict %s)\n' "$i" "$order" "$b" "$t" "$r" \
		"$(sed -n 's/^  "verdict": "\(.*\)",$/\1/p' "$WORK/tool.json")"
	tool_total=$(calc "$tool_total + $t"); bare_total=$(calc "$bare_total + $b")
done
median=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
printf 'total: bare %.1fs  dshaudit run %.1fs  overhead ratio %.3f, median of the rounds %.3f (target <= 1.10, issue 11: <= 1.05)\n' \
	"$bare_total" "$tool_total" "$(calc "$tool_total / $bare_total")" "$median"
