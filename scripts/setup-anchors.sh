#!/usr/bin/env bash
# The anchors' tools that check what dshaudit writes for others, pinned,
# into the dshaudit cache (SPEC.md "Verification summary"; README
# "Registries: publishing what you verified"):
#
#   slsa-verifier v2.7.1   verify-vsa of a verification summary's envelope
#     -> $CACHE/tools/slsa-verifier-v2.7.1/slsa-verifier
#   actionlint v1.7.12     the composite action and examples/release.yml
#     -> $CACHE/tools/actionlint-v1.7.12/actionlint
#
# cosign, the third anchor, is scripts/setup-thirdparty.sh's. Both are
# called by scripts/test.sh. CACHE is $DSHAUDIT_CACHE, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit. Each is built once from the Go
# module proxy; exit 3 if one cannot be built.
set -euo pipefail
cd "$(dirname "$0")/.."

SLSA_VERIFIER_VERSION=v2.7.1
ACTIONLINT_VERSION=v1.7.12
CACHE=${DSHAUDIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit}

log() { echo "setup-anchors: $*" >&2; }
die() {
	echo "setup-anchors: $*" >&2
	exit 3
}
command -v go >/dev/null || die "go is not on PATH (need Go 1.26.x; see go.mod)"

# build NAME MODULE VERSION PACKAGE: build $CACHE/tools/NAME-VERSION/NAME
# once. The module is downloaded and built in its own directory with its
# own go.sum: `go install MODULE@VERSION` asks the proxy for the module's
# version list, which the proxy refuses for slsa-verifier/v2.
build() {
	local name=$1 mod=$2 version=$3 pkg=$4 dir=$CACHE/tools/$1-$3 src start
	if [[ -x $dir/$name ]]; then
		log "$name $version present: $dir/$name"
		return
	fi
	start=$(date +%s)
	log "building $mod@$version (from the Go module proxy)"
	src=$(go mod download -json "$mod@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[[ -n $src && -d $src ]] || die "go mod download $mod@$version failed"
	rm -rf "$dir.partial"
	mkdir -p "$dir.partial"
	(cd "$src" && GOFLAGS=-mod=mod GOTOOLCHAIN=local nice -n 10 go build -trimpath -o "$dir.partial/$name" "./$pkg") || {
		rm -rf "$dir.partial"
		die "go build $mod@$version/$pkg failed"
	}
	rm -rf "$dir"
	mv "$dir.partial" "$dir"
	log "built $name $version in $(($(date +%s) - start)) s"
}

build slsa-verifier github.com/slsa-framework/slsa-verifier/v2 "$SLSA_VERIFIER_VERSION" cli/slsa-verifier
build actionlint github.com/rhysd/actionlint "$ACTIONLINT_VERSION" cmd/actionlint
