#!/usr/bin/env bash
# bench-verify.sh — the verifier's speed and memory table (issue 11), in one
# run: for each bundle, the median wall time of `dshaudit verify` (whole
# process) over RUNS runs, the median of `zstd -dc | sha256sum` on the same
# file, their ratio, and the peak RSS of `dshaudit verify` (/usr/bin/time
# -v, the largest of the runs). Then verify.All in process on 1 and 2 CPUs
# (BenchmarkVerifyMany) and the start-up cost (GODEBUG=inittrace=1).
#
# The bundles are not committed: internal/vectorgen -bench writes them from
# the real dsh captures and signs them with the vectors' key: the runner's
# pass bundle (as testdata/vectors/pass) and the pass bundle with its T1
# log or its T3 dump grown to 1 MiB and 50 MiB of stage evidence.
#
# Targets (issue 11): pass bundle <= 20 ms; large logs <= 1.25x the
# pipeline; peak RSS <= 128 MiB; verify.All >= 1000 bundles/s and >= 1.8x
# on 2 CPUs over 1. On a shared machine, read the load average printed
# with the table.
#
# Usage: scripts/bench-verify.sh [RUNS]   (default 5)
# Needs: zstd, sha256sum, /usr/bin/time (apt-get install zstd time).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
for tool in zstd sha256sum /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench-verify: $tool is missing (apt-get install zstd time)" >&2; exit 3; }
done
WORK=$(mktemp -d /tmp/dshaudit-bench-verify.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
go build -o "$WORK/dshaudit" ./cmd/dshaudit
go run ./internal/vectorgen -evidence testdata/dsh-evidence -out testdata/vectors -bench "$WORK/b"
KEY=testdata/vectors/keys/signer.pub
BIN=$WORK/dshaudit

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# wall seconds of one run of "$@", output discarded
wall() {
	local s e
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	e=$(date +%s%N)
	echo "scale=6; ($e - $s) / 1000000000" | bc
}
pipeline() { zstd -dc <"$1" | sha256sum; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)   CPUs: $(nproc)   binary: $(stat -c %s "$BIN") bytes"
printf '| %-28s | %9s | %12s | %12s | %7s | %13s |\n' bundle "file" "dshaudit verify" "zstd -dc | sha256sum" ratio "peak RSS"
printf '|%s|%s|%s|%s|%s|%s|\n' ------------------------------ ----------- -------------- -------------- --------- ---------------
for b in pass t1log-1MiB t1log-50MiB t3dump-1MiB t3dump-50MiB; do
	f=$WORK/b/$b.dshaudit.tar.zst
	"$BIN" verify "$f" --key "$KEY" >"$WORK/out.txt" 2>&1 || true
	result=$(grep '^RESULT:' "$WORK/out.txt" | cut -d' ' -f2-)
	v=$(for _ in $(seq "$RUNS"); do wall "$BIN" verify "$f" --key "$KEY"; done | median)
	export -f pipeline
	p=$(for _ in $(seq "$RUNS"); do wall bash -c 'pipeline "$0"' "$f"; done | median)
	rss=$(for _ in $(seq "$RUNS"); do
		/usr/bin/time -v "$BIN" verify "$f" --key "$KEY" 2>&1 >/dev/null | awk '/Maximum resident/ {print $6}'
	done | sort -n | tail -1)
	printf '| %-28s | %9s | %12.1f ms | %12.1f ms | %6.2fx | %9.1f MiB |  %s\n' "$b" "$(stat -c %s "$f")" \
		"$(echo "$v * 1000" | bc)" "$(echo "$p * 1000" | bc)" "$(echo "scale=3; $v / $p" | bc)" "$(echo "scale=1; $rss / 1024" | bc)" "$result"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "== start-up: package initialisation of dshaudit verify on the pass bundle (median of $RUNS)"
for _ in $(seq "$RUNS"); do
	GODEBUG=inittrace=1 "$BIN" verify "$WORK/b/pass.dshaudit.tar.zst" --key "$KEY" 2>&1 >/dev/null |
		awk '/^init / {s += $5; n++} END {print s, n}'
done | sort -n | awk '{a[NR]=$0} END {split(a[int((NR+1)/2)], m, " "); printf "init: %.2f ms in %d packages\n", m[1], m[2]}'

echo
echo "== in process: verify.All over the valid vectors, 1 and 2 CPUs"
go test ./verify/ -run '^$' -bench '^BenchmarkVerifyMany$' -benchtime 3s -count 3 -cpu 1,2 | tee "$WORK/many.txt" | grep Benchmark
awk '/BenchmarkVerifyMany/ {n = ($1 ~ /-2$/) ? 2 : 1; for (i = 1; i <= NF; i++) if ($(i+1) == "bundles/s") v[n] = v[n] " " $i}
	END {print "bundles/s 1 CPU:" v[1] "   2 CPUs:" v[2]}' "$WORK/many.txt"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
