#!/usr/bin/env bash
# The README's main job on a fresh machine: set up (podman, runc, the
# sandbox image with real dsh), run a plugin through T0–T4 into a signed
# bundle, then verify that bundle offline.
#
#   scripts/main-job.sh [PACKAGE-SPEC] [BUNDLE]
#
# PACKAGE-SPEC defaults to the fixture plugin ./testdata/plugins/pass; any npm
# name[@version], or a local tarball or directory given as a path starting
# with ./ or / (as npm reads specs), works. BUNDLE defaults to
# ./<the plugin>.dshaudit.tar.zst.
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${1:-./testdata/plugins/pass}
out=${2:-$(basename "${spec%.tgz}").dshaudit.tar.zst}
cache=${DSHAUDIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit}

bash scripts/setup.sh >/dev/null
mkdir -p bin .dshaudit
go build -o bin/dshaudit ./cmd/dshaudit
if [ ! -f .dshaudit/dshaudit.key ]; then
  bin/dshaudit key generate --out-dir .dshaudit --name dshaudit
fi
image=$(cat "$cache/sandbox-image.ref")

# dsh 0.1.0-rc.8, the newest that installs here, needs -w on T1: the
# flag records that as a condition deviation (DSHIO/T 21 8).
status=0
bin/dshaudit run "$spec" --image "$image" --signing-key .dshaudit/dshaudit.key \
  --t1-workspace-root --out "$out" || status=$?
# 1 = a bundle was written and its verdict is not pass: still verify it.
if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then exit "$status"; fi

bin/dshaudit verify "$out" --key .dshaudit/dshaudit.pub
