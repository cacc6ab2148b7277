#!/usr/bin/env bash
# Installs the third-party verifiers the recipes of SPEC.md "Third-party
# verification" use, pinned, into the dshaudit cache, for the test that
# runs both recipes against a test vector (attest/thirdparty_test.go):
#
#   cosign v3.1.3, built from the Go module proxy
#     -> $CACHE/tools/cosign-v3.1.3/cosign
#   @sigstore/verify 2.1.1 and @sigstore/bundle 3.1.0 from npm, exactly as
#   testdata/thirdparty/sigstore-js/package-lock.json pins them (npm ci)
#     -> $CACHE/tools/sigstore-js-<first 12 hex of the lock's sha256>/node_modules
#
# CACHE is $DSHAUDIT_CACHE, default ${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit
# (scripts/setup.sh's). Idempotent: what is there is kept. Needs go, node
# and npm (scripts/setup.sh installs npm); exit 3 naming what is missing.
set -euo pipefail

REPO=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
CACHE=${DSHAUDIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit}
COSIGN_VERSION=v3.1.3
say() { printf 'setup-thirdparty: %s\n' "$*" >&2; }

for tool in go node npm; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		say "error: $tool is not installed (scripts/setup.sh installs npm and node; Go: see go.mod)"
		exit 3
	fi
done

cosign_dir=$CACHE/tools/cosign-$COSIGN_VERSION
if [ -x "$cosign_dir/cosign" ]; then
	say "cosign $COSIGN_VERSION present: $cosign_dir/cosign"
else
	say "building cosign $COSIGN_VERSION from the Go module proxy (a few minutes the first time)"
	mkdir -p "$cosign_dir.partial"
	(cd "$REPO" && GOBIN="$cosign_dir.partial" GOFLAGS=-mod=mod go install "github.com/sigstore/cosign/v3/cmd/cosign@$COSIGN_VERSION")
	rm -rf "$cosign_dir"
	mv "$cosign_dir.partial" "$cosign_dir"
fi

lock=$REPO/testdata/thirdparty/sigstore-js/package-lock.json
hash=$(sha256sum "$lock" | cut -c1-12)
sjs_dir=$CACHE/tools/sigstore-js-$hash
if [ -d "$sjs_dir/node_modules/@sigstore/verify" ]; then
	say "sigstore-js present: $sjs_dir"
else
	say "installing sigstore-js from npm as $lock pins it"
	rm -rf "$sjs_dir.partial"
	mkdir -p "$sjs_dir.partial"
	cp "$REPO/testdata/thirdparty/sigstore-js/package.json" "$lock" "$sjs_dir.partial/"
	(cd "$sjs_dir.partial" && npm ci --ignore-scripts --no-audit --no-fund >&2)
	rm -rf "$sjs_dir"
	mv "$sjs_dir.partial" "$sjs_dir"
fi
