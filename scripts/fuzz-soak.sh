#!/usr/bin/env bash
# fuzz-soak.sh — the fuzz soak of issue 11: every fuzz target, one after
# another, for EXECS executions each (default 10 million), one worker on
# one core (-parallel 1, GOMAXPROCS=1), so the rates are per core.
#
# Usage: scripts/fuzz-soak.sh [EXECS] [TARGET-REGEXP]
#   EXECS          executions per target (default 10000000), or a
#                  duration such as 30s for a quick rate check
#   TARGET-REGEXP  only the targets whose "pkg.FuzzName" matches (grep -E)
# Output: one log per target under $FUZZ_SOAK_DIR (default
# /tmp/dshaudit-fuzz-soak) and a table: target, executions, seconds,
# executions per second of wall time, executions per CPU second (user +
# system of go test and its fuzz worker, the build included: the rate one
# core gives on a machine shared with other work), result. A crasher is written by go test under the
# package's testdata/fuzz/FuzzName/ and the target's result is FAIL.
# New interesting inputs are minimised with at most 100 executions each
# (-fuzzminimizetime=100x; go test's default is 60 s each), so the time goes
# to counted executions; FUZZ_MINIMIZE overrides it.
# A package's test binary bounds its targets' rates (the engine's pass over
# the coverage counters after each execution; DESIGN.md "Fuzzing" has the
# measured ceilings): attest, which links sigstore-go, about 4k/s fully
# instrumented. So attest.FuzzVerify is fuzzed with coverage of the code
# that parses and judges the signature file only: dshaudit, sigstore's
# modules and protobuf's JSON decoder (tools/fuzzscope, -toolexec);
# every execution still runs the whole check. FUZZ_SCOPE_ATTEST names
# other import path prefixes; FUZZ_SCOPE_ATTEST= (empty) instruments
# everything. claim.FuzzCheck likewise, with coverage of dshaudit, the
# Unicode normalisation and the HTML entity decoder that reading a README
# goes through (not of regexp, strings and unicode, which its patterns
# spend most instrumented time in: 4k executions a second fully
# instrumented, about 14k scoped); FUZZ_SCOPE_CLAIM overrides it.
# rules.FuzzFirstError likewise, with coverage of dshaudit only: each
# execution runs four line rules over one output, and instrumented, the
# regexp, strings and JSON code under them held it near 8k a second;
# FUZZ_SCOPE_RULES overrides it. bundle.FuzzRead and FuzzReadTar likewise, with coverage of
# the code that reads the hostile bytes: dshaudit, klauspost/compress (the
# zstd, huff0 and fse decoders) and archive/tar; since every refused input
# is read to its frame's end (SPEC 1.9), fully instrumented it ran about
# 8.5k a second, scoped 13-15k (FuzzReadTar: 9k, and 15k); FUZZ_SCOPE_BUNDLE
# overrides it. The
# first scoped build compiles the standard library again (about a
# minute), counted in the CPU time. The last column says which.
# The soak is long (10M at 10k/s is about 17 min per target): run it with
#   nice -n 19 scripts/fuzz-soak.sh &
set -uo pipefail
cd "$(dirname "$0")/.."
EXECS=${1:-10000000}
FILTER=${2:-.}
case "$EXECS" in *[!0-9]*) FUZZTIME=$EXECS ;; *) FUZZTIME=${EXECS}x ;; esac
OUT=${FUZZ_SOAK_DIR:-/tmp/dshaudit-fuzz-soak}
mkdir -p "$OUT"
ATTEST_SCOPE=${FUZZ_SCOPE_ATTEST-github.com/dshaudit/dshaudit/,github.com/sigstore/,google.golang.org/protobuf/encoding/protojson,google.golang.org/protobuf/internal/encoding/json}
CLAIM_SCOPE=${FUZZ_SCOPE_CLAIM-github.com/dshaudit/dshaudit/,golang.org/x/text/unicode/norm,html}
RULES_SCOPE=${FUZZ_SCOPE_RULES-github.com/dshaudit/dshaudit/}
BUNDLE_SCOPE=${FUZZ_SCOPE_BUNDLE-github.com/dshaudit/dshaudit/,github.com/klauspost/compress/,archive/tar}
go build -o "$OUT/fuzzscope" ./tools/fuzzscope || { echo "fuzz-soak: could not build tools/fuzzscope" >&2; exit 3; }

# Every func FuzzX in a _test.go file, as "pkgdir FuzzX".
targets=$(grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r f; do
	for t in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | cut -d' ' -f2); do
		echo "$(dirname "$f") $t"
	done
done)

status=0
printf '%-34s %12s %8s %10s %12s %-6s %s\n' target execs seconds 'execs/s' 'execs/cpu-s' result instrumented | tee "$OUT/summary.txt"
while read -r pkg t; do
	name="${pkg#./}.$t"
	echo "$name" | grep -Eq -- "$FILTER" || continue
	log="$OUT/${name//\//_}.log"
	start=$(date +%s.%N)
	toolexec=() instrumented=all scope=
	case "$name" in
	attest.FuzzVerify) scope=$ATTEST_SCOPE ;;
	claim/claimfuzz.FuzzCheck) scope=$CLAIM_SCOPE ;;
	rules.FuzzFirstError) scope=$RULES_SCOPE ;;
	bundle.FuzzRead | bundle.FuzzReadTar) scope=$BUNDLE_SCOPE ;;
	esac
	if [ -n "$scope" ]; then
		toolexec=(-toolexec "'$OUT/fuzzscope' $scope") instrumented=$scope
	fi
	GOMAXPROCS=1 /usr/bin/time -f '%U %S' -o "$log.cpu" \
		go test -run='^$' -fuzz="^$t\$" -fuzztime="$FUZZTIME" -fuzzminimizetime="${FUZZ_MINIMIZE:-100x}" -parallel=1 "${toolexec[@]}" "$pkg" >"$log" 2>&1
	rc=$?
	cpu=$(awk 'END {print $1 + $2}' "$log.cpu")
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	# go test prints "fuzz: elapsed: Ns, execs: N (N/sec), ..." every 3 s.
	execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
	# The last "elapsed: 1h5m27s" (a Go duration) in seconds.
	elapsed=$(grep -o 'elapsed: [0-9hms.]*' "$log" | tail -1 | cut -d' ' -f2 |
		awk '{s = 0; while (match($0, /^[0-9.]+[hms]/)) {v = substr($0, 1, RLENGTH - 1); u = substr($0, RLENGTH, 1);
			s += v * (u == "h" ? 3600 : u == "m" ? 60 : 1); $0 = substr($0, RLENGTH + 1)} printf "%d", s}')
	rate=0
	[ "${elapsed:-0}" -gt 0 ] && rate=$((execs / elapsed))
	cpurate=$(awk -v n="${execs:-0}" -v c="$cpu" 'BEGIN {printf "%d", (c > 0) ? n / c : 0}')
	result=PASS
	[ "$rc" -eq 0 ] || { result=FAIL; status=1; }
	printf '%-34s %12s %8.0f %10s %12s %-6s %s\n' "$name" "${execs:-0}" "$secs" "${rate:-0}" "$cpurate" "$result" "$instrumented" | tee -a "$OUT/summary.txt"
done <<<"$targets"
exit "$status"
