#!/usr/bin/env bash
# The README's test command: installs and starts everything the tests need
# on a fresh machine (podman, runc, debootstrap, the sandbox image with real
# dsh, via scripts/setup.sh; slurm-wlm and munge, with munged, slurmctld
# and slurmd started directly, via scripts/setup-slurm.sh), then runs every
# test, end-to-end ones included, and stops the Slurm daemons it started.
# A test that needs a real part fails when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
# The report tests open the pages in a real headless Chromium.
bash scripts/setup-chromium.sh

# A one-node Slurm on localhost for the batch end-to-end test
# (docs/batch.md); stopped again however the tests end.
bash scripts/setup-slurm.sh start
trap 'bash scripts/setup-slurm.sh stop' EXIT

echo "== go vet"
go vet ./...

echo "== go test (unit, vectors, end-to-end with real podman and dsh)"
# The end-to-end tests run real dsh stages (T4 alone observes 12 s), so
# the per-binary timeout is raised from go test's default 10 minutes, and
# packages run one at a time (-p 1): two packages starting containers at
# once on 2 cores starve dsh (--cpus 1) and turn boots into boot_failed.
go test -p 1 -count=1 -timeout 75m ./... 2>&1 | tee /tmp/dshaudit-go-test.log
status=${PIPESTATUS[0]}

echo "== fuzz smoke (10 s each; the committed corpora also run as unit tests)"
go test -run='^$' -fuzz='^FuzzVerify$' -fuzztime=10s ./verify/ || status=1

passed=$(grep -c '^ok ' /tmp/dshaudit-go-test.log || true)
failed=$(grep -c '^FAIL' /tmp/dshaudit-go-test.log || true)
echo "packages: ${passed} passed, ${failed} failed"
exit "$status"
