#!/usr/bin/env bash
# bench-verify.sh — the verifier's speed and memory table (issue 11), in one
# run: for each bundle, the median wall time of `dshaudit verify` (whole
# process) over RUNS runs, the median of `zstd -dc | sha256sum` on the same
# file (runs alternate), their ratio, and the peak RSS of `dshaudit verify`
# (/usr/bin/time's maximum resident set, the largest of the runs); times
# also as CPU time (user + system), which a loaded machine disturbs less.
# Then the start-up cost: `dshaudit --version`, tools/startfloor (a
# program linking only sigstore-go's verifier, the floor of any process
# that verifies with it) and package initialisation
# (GODEBUG=inittrace=1); verify.All in process
# on 1 and 2 CPUs (BenchmarkVerifyMany), and a whole `dshaudit verify DIR`
# process over 270 copies of the valid vectors on one core
# (taskset -c 0) and on two (taskset -c 0,1), beside two 1-core processes
# at once, median of DIR_RUNS, each with its CPU time (the program's share
# of a shortfall from 2x against the host's); and the same over 2,700
# copies, median of LARGE_RUNS, where what a process pays once weighs a
# tenth as much.
#
# The bundles are not committed: tools/vectorgen -bench writes them from
# the real dsh captures and signs them with the vectors' key: the runner's
# pass bundle (as testdata/vectors/pass) and the pass bundle with its T1
# log or its T3 dump grown to 1 MiB and 60 MiB of stage evidence (60 MiB:
# near the default MaxTotal of 64 MiB, the largest a default verifier reads),
# and worst-60MiB: the 60 MiB T1 log with each T3 dump replaced by the YAML
# that costs most memory to parse within the dump limit (a flow list of
# one-character scalars): the most memory a default verifier should need;
# worstpatch-60MiB is worst-60MiB whose patch file is the same kind of YAML
# at the patch limit of T0 (SPEC.md "T0 static check", "Input bounds");
# worstmeta-60MiB is worst-60MiB with 8 of its 60 MiB a package.json at
# the limit of a file read from the tarball, one list of digits, whose name and version the
# verifier reads as T1 installed the package (SPEC.md "What the verifier
# cross-checks", class 6); worstprofile-60MiB has each T1's profile
# package.json (16 MiB each) so; worstdecl-60MiB has an EntryOptions
# declaration of one-character members at the static input bound
# (256 KiB), the largest the verifier parses (a hand-made bundle: the
# runner refuses to record one clause 5.1.6 cannot read);
# worstline-60MiB has each T4 stdout one 15 MiB line of escape bytes;
# worstmanifest-60MiB has a manifest of
# 8 MiB (the manifest limit) of empty warnings on one clause, signed.
#
# Targets (issue 11): pass bundle <= 20 ms; large logs <= 1.25x the
# pipeline; peak RSS <= 128 MiB; verify.All >= 1000 bundles/s; verify DIR
# >= 1.8x on 2 cores over 1. The last line compares with two independent
# 1-core processes, the most the machine gives two verifications at once.
# On a shared machine, read the load average printed with the table. At
# the end it prints each target, met or MISSED, from the medians above.
#
# Usage: scripts/bench-verify.sh [RUNS]   (default 5; DIR_RUNS, default 21,
# is the number of rounds of the 270-bundle verify DIR runs, LARGE_RUNS,
# default 5, of the 2,700-bundle ones)
#        scripts/bench-verify.sh --check   (no timing: writes every bench
# bundle and verifies each once; exits 1 when one cannot be written or
# does not verify. scripts/test.sh runs it, so that the benchmark cannot
# stop working unnoticed; about a minute on an idle 2-core machine)
# Needs: zstd, sha256sum, /usr/bin/time, jq, taskset
# (apt-get install zstd time jq util-linux); --check needs only go.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_BUNDLES=(pass t1log-1MiB t1log-60MiB t3dump-1MiB t3dump-60MiB worst-60MiB worstpatch-60MiB worstmeta-60MiB worstprofile-60MiB worstdecl-60MiB worstline-60MiB worstmanifest-60MiB)
if [[ ${1:-} == --check ]]; then
	WORK=$(mktemp -d /tmp/dshaudit-bench-check.XXXXXX)
	trap 'rm -rf "$WORK"' EXIT
	go build -o "$WORK/dshaudit" ./cmd/dshaudit
	go run ./tools/vectorgen -evidence testdata/dsh-evidence -out testdata/vectors -bench "$WORK/b" ||
		{ echo "bench-verify --check: tools/vectorgen -bench did not write the bench bundles" >&2; exit 1; }
	bad=0
	for b in "${BENCH_BUNDLES[@]}"; do
		f=$WORK/b/$b.dshaudit.tar.zst
		s=${EPOCHREALTIME//[!0-9]/}
		if [[ ! -f $f ]]; then
			echo "bench-verify --check: $b: not written" >&2
			bad=1
		elif "$WORK/dshaudit" verify "$f" --key testdata/vectors/keys/signer.pub >"$WORK/out.txt" 2>&1; then
			echo "$b: $(grep '^RESULT:' "$WORK/out.txt") ($(( (${EPOCHREALTIME//[!0-9]/} - s) / 1000 )) ms, one run, not a measurement)"
		else
			echo "bench-verify --check: $b does not verify:" >&2
			grep -A20 '^findings' "$WORK/out.txt" | cut -c1-400 >&2 || tail -5 "$WORK/out.txt" >&2
			bad=1
		fi
	done
	extra=$(find "$WORK/b" -name '*.dshaudit.tar.zst' | wc -l)
	if [[ $extra -ne ${#BENCH_BUNDLES[@]} ]]; then
		echo "bench-verify --check: vectorgen wrote $extra bundles, this script lists ${#BENCH_BUNDLES[@]}: add the new ones to BENCH_BUNDLES" >&2
		bad=1
	fi
	exit "$bad"
fi
RUNS=${1:-5}
DIR_RUNS=${DIR_RUNS:-21}
LARGE_RUNS=${LARGE_RUNS:-5}
for n in "RUNS=$RUNS" "DIR_RUNS=$DIR_RUNS" "LARGE_RUNS=$LARGE_RUNS"; do
	case ${n#*=} in '' | *[!0-9]* | 0) echo "bench-verify: ${n%%=*} must be a positive integer, got '${n#*=}'" >&2; exit 2 ;; esac
done
for tool in zstd sha256sum /usr/bin/time jq taskset; do
	command -v "$tool" >/dev/null || { echo "bench-verify: $tool is missing (apt-get install zstd time jq util-linux)" >&2; exit 3; }
done
[[ -n ${EPOCHREALTIME:-} ]] || { echo "bench-verify: needs bash 5 or later (EPOCHREALTIME)" >&2; exit 3; }
WORK=$(mktemp -d /tmp/dshaudit-bench-verify.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
go build -o "$WORK/dshaudit" ./cmd/dshaudit
go run ./tools/vectorgen -evidence testdata/dsh-evidence -out testdata/vectors -bench "$WORK/b"
KEY=testdata/vectors/keys/signer.pub
BIN=$WORK/dshaudit

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# wall time in seconds of "$@", from the clock in µs in bash's own
# EPOCHREALTIME (any decimal separator dropped), with no process or
# subshell started inside the interval: a $(date +%s%N) on each side put
# two starts of date, about 2 ms, inside every interval measured.
wall() {
	local s e
	s=${EPOCHREALTIME//[!0-9]/}
	"$@" >/dev/null 2>&1 || true
	e=${EPOCHREALTIME//[!0-9]/}
	echo "scale=6; ($e - $s) / 1000000" | bc
}
# two runs of "$@": "wall_s cpu_s maxrss_kib". Wall from wall, of a run
# with nothing around it; then, of a second run, CPU is perf's
# task-clock (user + system of the process and its children, µs) when perf
# is installed, else /usr/bin/time's (10 ms resolution), and peak RSS is
# /usr/bin/time's maximum resident set (its last line: for a command that
# exits non-zero, such as a bundle that does not verify, it writes a
# status line first).
measure() {
	local w cpu
	w=$(wall "$@")
	if command -v perf >/dev/null; then
		perf stat -x, -e task-clock -o "$WORK/perf.txt" -- /usr/bin/time -f '%U %S %M' -o "$WORK/time.txt" "$@" >/dev/null 2>&1 || true
		cpu=$(awk -F, '/task-clock/ {printf "%.6f", $1 / 1000}' "$WORK/perf.txt")
	else
		/usr/bin/time -f '%U %S %M' -o "$WORK/time.txt" "$@" >/dev/null 2>&1 || true
		cpu=$(awk 'END {printf "%.3f", $1 + $2}' "$WORK/time.txt")
	fi
	echo "$w $cpu $(awk 'END {print $3}' "$WORK/time.txt")"
}
col() { awk -v c="$1" '{print $c}' "$2" | median; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)   CPUs: $(nproc)   binary: $(stat -c %s "$BIN") bytes"
echo "median of $RUNS runs each; cpu = user + system time; wall time on a loaded machine mostly measures the queue"
printf '| %-19s | %9s | %-16s | %-23s | %-23s | %-13s | %9s |\n' bundle "file" result "verify wall (cpu)" "zstd -dc | sha256sum" "ratio wall (cpu)" "peak RSS"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' --------------------- ----------- ------------------ ------------------------- ------------------------- --------------- -----------
for b in "${BENCH_BUNDLES[@]}"; do
	f=$WORK/b/$b.dshaudit.tar.zst
	"$BIN" verify "$f" --key "$KEY" >"$WORK/out.txt" 2>&1 || true
	result=$(grep '^RESULT:' "$WORK/out.txt" | cut -d' ' -f2-)
	: >"$WORK/v.txt"
	: >"$WORK/p.txt"
	for _ in $(seq "$RUNS"); do
		measure "$BIN" verify "$f" --key "$KEY" >>"$WORK/v.txt"
		measure sh -c 'zstd -dc <"$0" | sha256sum' "$f" >>"$WORK/p.txt"
	done
	vw=$(col 1 "$WORK/v.txt") vc=$(col 2 "$WORK/v.txt") pw=$(col 1 "$WORK/p.txt") pc=$(col 2 "$WORK/p.txt")
	rss=$(awk '{print $3}' "$WORK/v.txt" | sort -n | tail -1)
	echo "$b $vw $(echo "scale=3; $vw / $pw" | bc) $(echo "scale=1; $rss / 1024" | bc)" >>"$WORK/targets.txt"
	printf '| %-19s | %9s | %-16s | %8.0f ms (%5.0f ms) | %8.0f ms (%5.0f ms) | %5.2fx (%5.2fx) | %5.1f MiB |\n' "$b" "$(stat -c %s "$f")" "$result" \
		"$(echo "$vw * 1000" | bc)" "$(echo "$vc * 1000" | bc)" "$(echo "$pw * 1000" | bc)" "$(echo "$pc * 1000" | bc)" \
		"$(echo "scale=3; $vw / $pw" | bc)" "$(echo "scale=3; $vc / ($pc + 0.0005)" | bc)" "$(echo "scale=1; $rss / 1024" | bc)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# Four of the worst bundles in one directory, two workers: the memory
# budget of DESIGN.md "Many bundles" keeps this at one bundle's peak.
mkdir -p "$WORK/worst4"
for i in 1 2 3 4; do cp "$WORK/b/worst-60MiB.dshaudit.tar.zst" "$WORK/worst4/$i.dshaudit.tar.zst"; done
: >"$WORK/w4.txt"
for _ in $(seq "$RUNS"); do measure "$BIN" verify "$WORK/worst4" --key "$KEY" --jobs 2 >>"$WORK/w4.txt"; done
printf 'verify DIR of 4 x worst-60MiB, --jobs 2: wall %.0f ms, peak RSS %.1f MiB (median and max of %d)\n' \
	"$(echo "$(col 1 "$WORK/w4.txt") * 1000" | bc)" "$(echo "scale=1; $(awk '{print $3}' "$WORK/w4.txt" | sort -n | tail -1) / 1024" | bc)" "$RUNS"

echo
echo "== start-up: dshaudit --version (no verification), median of $RUNS"
: >"$WORK/s.txt"
for _ in $(seq "$RUNS"); do measure "$BIN" --version >>"$WORK/s.txt"; done
printf 'wall %.1f ms, cpu %.1f ms, peak RSS %.1f MiB\n' "$(echo "$(col 1 "$WORK/s.txt") * 1000" | bc)" "$(echo "$(col 2 "$WORK/s.txt") * 1000" | bc)" "$(echo "scale=1; $(col 3 "$WORK/s.txt") / 1024" | bc)"
echo "== start-up floor: tools/startfloor, a program that links only sigstore-go's verifier and exits, median of $RUNS"
go build -o "$WORK/startfloor" ./tools/startfloor
: >"$WORK/f.txt"
for _ in $(seq "$RUNS"); do measure "$WORK/startfloor" >>"$WORK/f.txt"; done
printf 'wall %.1f ms, cpu %.1f ms, peak RSS %.1f MiB\n' "$(echo "$(col 1 "$WORK/f.txt") * 1000" | bc)" "$(echo "$(col 2 "$WORK/f.txt") * 1000" | bc)" "$(echo "scale=1; $(col 3 "$WORK/f.txt") / 1024" | bc)"
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
awk '/BenchmarkVerifyMany/ {for (i = 1; i <= NF; i++) if ($(i+1) == "cpu-ms/bundle") c = c " " $i} END {print "CPU ms per bundle:" c}' "$WORK/many.txt"

echo
echo "== whole process: dshaudit verify DIR, 270 copies of the valid vectors (median of $DIR_RUNS, the three kinds of run interleaved)"
mkdir -p "$WORK/many"
mapfile -t valid < <(jq -r '.vectors[] | select(.status == "verified") | .file' testdata/vectors/vectors.json)
for i in $(seq 0 269); do
	cp "testdata/vectors/${valid[i % ${#valid[@]}]}" "$WORK/many/$i.dshaudit.tar.zst"
done
"$BIN" verify "$WORK/many" --key "$KEY" >/dev/null 2>&1 || { echo "bench-verify: dshaudit verify DIR did not verify all 270 bundles" >&2; exit 1; }
# two 1-core processes at once, one per core: what this machine gives two
# independent verifications, whatever one process does
pair() {
	taskset -c 0 "$BIN" verify "$WORK/many" --key "$KEY" >/dev/null 2>&1 &
	taskset -c 1 "$BIN" verify "$WORK/many" --key "$KEY" >/dev/null 2>&1
	wait
}
# timed CMD...: one line "wall_s user_s sys_s" of CMD, from bash's own
# `time` (gettimeofday and the children's rusage, in µs): nothing but CMD
# starts inside the interval, and the CPU is that run's, not another's.
timed() {
	local TIMEFORMAT='%3R %3U %3S'
	{ time "$@" >/dev/null 2>&1 || true; } 2>&1
}
: >"$WORK/d1.txt" && : >"$WORK/d2.txt" && : >"$WORK/dp.txt"
# Interleaved, so that a change in the machine's speed during the runs
# (a shared host) falls on all three alike.
for _ in $(seq "$DIR_RUNS"); do
	timed taskset -c 0 "$BIN" verify "$WORK/many" --key "$KEY" >>"$WORK/d1.txt"
	timed taskset -c 0,1 "$BIN" verify "$WORK/many" --key "$KEY" >>"$WORK/d2.txt"
	timed pair >>"$WORK/dp.txt"
done
# cpu FILE: the median CPU (user + system) of its runs
cpu() { awk '{print $2 + $3}' "$1" | median; }
one=$(col 1 "$WORK/d1.txt") two=$(col 1 "$WORK/d2.txt") both=$(col 1 "$WORK/dp.txt")
c1=$(cpu "$WORK/d1.txt") c2=$(cpu "$WORK/d2.txt") cp2=$(cpu "$WORK/dp.txt")
printf '1 core: %.0f ms (%.0f bundles/s)   2 cores: %.0f ms (%.0f bundles/s)   2 cores / 1 core: %.2fx\n' \
	"$(echo "$one * 1000" | bc)" "$(echo "270 / $one" | bc -l)" "$(echo "$two * 1000" | bc)" "$(echo "270 / $two" | bc -l)" "$(echo "$one / $two" | bc -l)"
printf 'the machine: two 1-core processes at once: %.0f ms for 2 x 270 bundles, %.2fx one alone\n' \
	"$(echo "$both * 1000" | bc)" "$(echo "2 * $one / $both" | bc -l)"
# The CPU of the same runs tells the program's share of a shortfall from
# the host's: a host that slows a core while the other is busy (a shared
# physical core, a busy neighbour) makes each of two independent 1-core
# processes spend more CPU than one alone, and the 2-core process as much;
# what the 2-core process spends beyond that, and the time its cores sit
# idle, is its own.
printf 'CPU per run: 1 core %.0f ms, 2 cores %.0f ms (%+.1f %%), each of two 1-core processes at once %.0f ms (%+.1f %%); 2-core run: cores busy %.0f %% of its wall time\n' \
	"$(echo "$c1 * 1000" | bc)" "$(echo "$c2 * 1000" | bc)" "$(echo "($c2 / $c1 - 1) * 100" | bc -l)" \
	"$(echo "$cp2 * 500" | bc)" "$(echo "($cp2 / 2 / $c1 - 1) * 100" | bc -l)" "$(echo "$c2 / (2 * $two) * 100" | bc -l)"
# What does not scale with the bundles (start-up, the first bundles' cold
# caches, the heap's first growth, exit: about 30 ms, DESIGN.md "Many
# bundles") weighs a tenth of the 2-core run at 270 bundles; at 2,700 it
# weighs a hundredth, which shows what the workers themselves scale to.
mkdir -p "$WORK/many10"
for i in $(seq 0 2699); do ln "$WORK/many/$((i % 270)).dshaudit.tar.zst" "$WORK/many10/$i.dshaudit.tar.zst"; done
: >"$WORK/l1.txt" && : >"$WORK/l2.txt"
for _ in $(seq "$LARGE_RUNS"); do
	timed taskset -c 0 "$BIN" verify "$WORK/many10" --key "$KEY" >>"$WORK/l1.txt"
	timed taskset -c 0,1 "$BIN" verify "$WORK/many10" --key "$KEY" >>"$WORK/l2.txt"
done
lone=$(col 1 "$WORK/l1.txt") ltwo=$(col 1 "$WORK/l2.txt")
printf '2,700 bundles (median of %d, interleaved): 1 core %.0f ms (%.0f bundles/s)   2 cores %.0f ms (%.0f bundles/s)   2 cores / 1 core: %.2fx\n' \
	"$LARGE_RUNS" "$(echo "$lone * 1000" | bc)" "$(echo "2700 / $lone" | bc -l)" "$(echo "$ltwo * 1000" | bc)" "$(echo "2700 / $ltwo" | bc -l)" "$(echo "$lone / $ltwo" | bc -l)"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# The targets of DESIGN.md "Dual implementations", each judged from the
# figures above (medians), met or missed.
echo
echo "== targets"
verdict() { if [[ $1 == 1 ]]; then echo met; else echo MISSED; fi; }
pass_ms=$(awk '$1 == "pass" {printf "%.1f", $2 * 1000}' "$WORK/targets.txt")
echo "T-pass  (pass bundle, whole process <= 20 ms): ${pass_ms} ms: $(verdict "$(echo "$pass_ms <= 20" | bc)") (start-up alone, --version: $(echo "$(col 1 "$WORK/s.txt") * 1000" | bc | xargs printf '%.1f') ms; sigstore-go's floor, startfloor: $(echo "$(col 1 "$WORK/f.txt") * 1000" | bc | xargs printf '%.1f') ms)"
log_ratio=$(awk '$1 == "t1log-60MiB" {printf "%.2f", $3}' "$WORK/targets.txt")
echo "T-log   (t1log-60MiB <= 1.25x zstd -dc | sha256sum, wall): ${log_ratio}x: $(verdict "$(echo "$log_ratio <= 1.25" | bc)")"
rss_max=$(awk '$1 ~ /60MiB$/ {print $4}' "$WORK/targets.txt" | sort -n | tail -1)
rss_over=$(awk '$1 ~ /60MiB$/ && $4 > 128 {printf "%s%s (%s MiB)", sep, $1, $4; sep = ", "}' "$WORK/targets.txt")
echo "T-rss   (peak RSS <= 128 MiB, every 60 MiB bundle): largest ${rss_max} MiB: $(verdict "$(echo "$rss_max <= 128" | bc)")${rss_over:+; over: $rss_over}"
rate2=$(awk '/BenchmarkVerifyMany-2/ {for (i = 1; i <= NF; i++) if ($(i+1) == "bundles/s") print $i}' "$WORK/many.txt" | median)
echo "T-rate  (verify.All on 2 CPUs >= 1000 bundles/s, median): ${rate2}: $(verdict "$(echo "$rate2 >= 1000" | bc)")"
dir_ratio=$(printf '%.2f' "$(echo "$one / $two" | bc -l)")
echo "T-dir   (verify DIR, 270 bundles, 2 cores >= 1.8x 1 core): ${dir_ratio}x: $(verdict "$(echo "$dir_ratio >= 1.8" | bc)")"
