#!/usr/bin/env bash
# Plugins per hour of `dshaudit batch` on this machine (docs/batch.md):
# the same plan of fixture plugins run one after another with plain
# `dshaudit run`, then with `batch --on local --parallel 1` and
# `--parallel 2`, then `batch --on slurm`; and the engine's per-task
# overhead, submit to task start, for the tasks that started at once
# (each task script records its start time, batch its submit time).
#
#   scripts/bench-batch.sh [--repeat N] [SPEC...]
#
# Needs the sandbox image (scripts/setup.sh) and, for slurm, a running
# Slurm (scripts/setup-slurm.sh start). Default plan: four fixtures
# (pass, install-failed, config-failed, not-registered), --repeat 1
# (recorded in each bundle as a deviation).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

repeat=1
if [[ ${1:-} == --repeat ]]; then
	repeat=$2
	shift 2
fi
specs=("$@")
if [[ ${#specs[@]} -eq 0 ]]; then
	for f in pass install-failed config-failed not-registered; do
		specs+=("$root/testdata/plugins/$f")
	done
fi
n=${#specs[@]}

cache=${DSHAUDIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit}
image=$(cat "$cache/sandbox-image.ref")
work=$(mktemp -d /tmp/bench-batch.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/dshaudit" ./cmd/dshaudit
bin=$work/dshaudit
(cd "$work" && "$bin" key generate >/dev/null 2>&1)
key=$work/dshaudit.key
run_flags=(--t1-workspace-root --repeat "$repeat")

now() { date +%s.%N; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%7.1f s  %6.1f plugins/hour", s, n * 3600 / s }'; }

# overhead DIR: mean and max of (task start - submit) over the first wave
# (the tasks that started within 5 s of the first one).
overhead() {
	local state
	for state in "$1"/.dshaudit-batch/*/; do
		local submitted
		submitted=$(cat "$state/submitted")
		cat "$state"/logs/*.start 2>/dev/null | awk -v t0="$submitted" '{ print $NF - t0 }'
	done | sort -n | awk '
		NR == 1 { first = $1 }
		$1 <= first + 5 { s += $1; k++; if ($1 > m) m = $1 }
		END { if (k) printf "submit→start %.2f s mean, %.2f s max over %d task(s)", s / k, m, k; else printf "no task started" }'
}

echo "plan: $n plugin(s), --repeat $repeat, image $image"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

mkdir -p "$work/seq"
t0=$(now)
for s in "${specs[@]}"; do
	# exit 1 (a verdict other than pass) is a result, not a failure
	"$bin" run "$s" --image "$image" --signing-key "$key" --out "$work/seq/$(basename "$s").dshaudit.tar.zst" \
		"${run_flags[@]}" --progress never >/dev/null 2>&1 || true
done
t1=$(now)
seq_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
printf '%-34s %s\n' "one after another (dshaudit run)" "$(rate "$n" "$seq_s")"

bench() {
	local name=$1
	shift
	local out=$work/$name
	local a b s
	a=$(now)
	"$bin" batch "${specs[@]}" --image "$image" --signing-key "$key" --out "$out" "${run_flags[@]}" \
		--retries 0 --poll 500ms "$@" >/dev/null 2>"$work/$name.log" || true
	b=$(now)
	s=$(awk -v a="$a" -v b="$b" 'BEGIN { print b - a }')
	local verdicts
	verdicts=$("$bin" verify "$out" --key "$work/dshaudit.pub" 2>/dev/null | awk '/^  [a-z_]+ +[0-9]+$/ { printf "%s=%s ", $1, $2 }')
	printf '%-34s %s  x%.2f  %s  [%s]\n' "batch $*" "$(rate "$n" "$s")" \
		"$(awk -v q="$seq_s" -v s="$s" 'BEGIN { print q / s }')" "$(overhead "$out")" "${verdicts% }"
}

bench local-1 --on local --parallel 1
bench local-2 --on local --parallel 2
if scontrol ping 2>/dev/null | grep -q 'is UP'; then
	bench slurm --on slurm
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
else
	echo "slurm: not running (scripts/setup-slurm.sh start): skipped" >&2
	exit 3
fi
