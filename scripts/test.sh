#!/usr/bin/env bash
# The README's test command: installs and starts everything the tests need
# on a fresh machine (podman, runc, mmdebstrap, npm, the sandbox image with
# real dsh, via scripts/setup.sh; Chromium via scripts/setup-chromium.sh;
# cosign and sigstore-js, pinned, via scripts/setup-thirdparty.sh;
# a docker daemon of its own via scripts/setup-docker.sh; slurm-wlm and
# munge, with munged, slurmctld and slurmd started directly, via
# scripts/setup-slurm.sh; Fulcio, the timestamp authority, Rekor v2,
# cosign and an OIDC issuer built from the Go module proxy and started on
# loopback via scripts/setup-sigstore.sh), then runs every test, end-to-end ones included
# (DSHAUDIT_E2E=1: a test that needs a real part fails when it is
# missing), runs the engine, runner and replay tests a second time on
# docker, and stops the daemons it started. Every step runs even when an
# earlier one failed; the summary line is always printed and the exit
# status is non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

export DSHAUDIT_E2E=1
status=0
log=$(mktemp /tmp/dshaudit-go-test.XXXXXX.log)
dlog=$(mktemp /tmp/dshaudit-go-test-docker.XXXXXX.log)

bash scripts/setup.sh || { echo "test.sh: scripts/setup.sh failed" >&2; status=1; }
# The differential tests run the real consumers: node, commonmark.js, tar.
bash scripts/setup-oracles.sh || { echo "test.sh: scripts/setup-oracles.sh failed" >&2; status=1; }
# The report tests open the pages in a real headless Chromium.
bash scripts/setup-chromium.sh || { echo "test.sh: scripts/setup-chromium.sh failed" >&2; status=1; }
# cosign and sigstore-js, pinned, for the third-party verification recipes.
bash scripts/setup-thirdparty.sh || { echo "test.sh: scripts/setup-thirdparty.sh failed" >&2; status=1; }
# slsa-verifier and actionlint, pinned, for the verification summary and
# the GitHub Action (cosign is setup-thirdparty.sh's).
bash scripts/setup-anchors.sh || { echo "test.sh: scripts/setup-anchors.sh failed" >&2; status=1; }

# A docker daemon of its own, a one-node Slurm on localhost (for the
# batch end-to-end test, docs/batch.md) and the Sigstore services (keyless
# signing); all stopped however the tests end.
stop_daemons() {
	bash scripts/setup-sigstore.sh stop
	bash scripts/setup-slurm.sh stop
	bash scripts/setup-docker.sh stop
}
trap stop_daemons EXIT
bash scripts/setup-docker.sh start || { echo "test.sh: scripts/setup-docker.sh failed" >&2; status=1; }
export DOCKER_HOST=unix://${DSHAUDIT_DOCKER_SOCK:-/run/dshaudit-docker.sock}
bash scripts/setup-slurm.sh start || { echo "test.sh: scripts/setup-slurm.sh failed" >&2; status=1; }
# The keyless signing tests run against real Sigstore services.
bash scripts/setup-sigstore.sh start || { echo "test.sh: scripts/setup-sigstore.sh failed" >&2; status=1; }

echo "== go vet"
go vet ./... || status=1

echo "== go test (unit, vectors, end-to-end with real podman and dsh)"
# The end-to-end tests run real dsh stages (T4 alone observes 12 s), so
# the per-binary timeout is raised from go test's default 10 minutes, and
# packages run one at a time (-p 1): two packages starting containers at
# once on 2 cores starve dsh (--cpus 1) and turn boots into boot_failed.
go test -p 1 -count=1 -timeout 75m ./... 2>&1 | tee "$log" || status=1

echo "== go test on docker (engine, runner, replay: the same tests, DSHAUDIT_TEST_ENGINE/DSHAUDIT_E2E_ENGINE=docker)"
DSHAUDIT_TEST_ENGINE=docker DSHAUDIT_E2E_ENGINE=docker \
	go test -p 1 -count=1 -timeout 45m ./engine/ ./runner/ ./replay/ 2>&1 | tee "$dlog" || status=1

# The benchmark's bundles (scripts/bench-verify.sh): each written by
# tools/vectorgen -bench and verified once, untimed, so that the
# benchmark cannot stop working unnoticed (issue 48).
echo "== bench bundles (scripts/bench-verify.sh --check)"
timeout 600 bash scripts/bench-verify.sh --check || status=1

# 100,000 executions (about 10 s here). -fuzzminimizetime=100x: go
# test's default gives each new input up to 60 s of minimization, and with
# a fresh fuzz cache (a new machine) nearly the whole smoke went to it:
# about 110 executions in 10 s (DESIGN.md "Fuzzing"). A count, not a
# duration: go1.26's coordinator can report its own deadline as a failure
# ("context deadline exceeded", golang/go#75804); timeout bounds the time.
echo "== fuzz smoke (100,000 executions; the committed corpora also run as unit tests)"
timeout 600 go test -run='^$' -fuzz='^FuzzVerify$' -fuzztime=100000x -fuzzminimizetime=100x ./verify/verifyfuzz/ || status=1

passed=$(cat "$log" "$dlog" | grep -c '^ok ' || true)
failed=$(cat "$log" "$dlog" | grep -cE '^FAIL[[:space:]]' || true)
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1 # setup, vet or fuzz failed: never report a clean run
fi
grep -E '^(--- FAIL|FAIL)' "$log" "$dlog" || true
echo "go test logs: $log (podman and the rest), $dlog (docker)"
echo "packages: ${passed} passed, ${failed} failed"
exit "$status"
