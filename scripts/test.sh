#!/usr/bin/env bash
# The README's test command: installs and starts everything the tests need
# on a fresh machine (podman, runc, mmdebstrap, the sandbox image with real
# dsh, via scripts/setup.sh; a docker daemon of its own via
# scripts/setup-docker.sh), then runs every test, end-to-end ones included,
# and the engine, runner and replay tests a second time on docker. A test
# that needs a real part fails when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
. scripts/setup-docker.sh
docker_start
trap docker_stop EXIT

echo "== go vet"
go vet ./...

echo "== go test (unit, vectors, end-to-end with real podman and dsh)"
# The end-to-end tests run real dsh stages (T4 alone observes 12 s), so
# the per-binary timeout is raised from go test's default 10 minutes, and
# packages run one at a time (-p 1): two packages starting containers at
# once on 2 cores starve dsh (--cpus 1) and turn boots into boot_failed.
go test -p 1 -count=1 -timeout 75m ./... 2>&1 | tee /tmp/dshaudit-go-test.log
status=${PIPESTATUS[0]}

echo "== go test on docker (engine, runner, replay: the same tests, DSHAUDIT_TEST_ENGINE/DSHAUDIT_E2E_ENGINE=docker)"
set +e
DSHAUDIT_TEST_ENGINE=docker DSHAUDIT_E2E_ENGINE=docker \
  go test -p 1 -count=1 -timeout 45m ./engine/ ./runner/ ./replay/ 2>&1 | tee /tmp/dshaudit-go-test-docker.log
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
set -e

echo "== fuzz smoke (10 s each; the committed corpora also run as unit tests)"
go test -run='^$' -fuzz='^FuzzVerify$' -fuzztime=10s ./verify/ || status=1

passed=$(cat /tmp/dshaudit-go-test.log /tmp/dshaudit-go-test-docker.log | grep -c '^ok ' || true)
failed=$(cat /tmp/dshaudit-go-test.log /tmp/dshaudit-go-test-docker.log | grep -c '^FAIL' || true)
echo "package runs (podman + docker): ${passed} passed, ${failed} failed"
exit "$status"
