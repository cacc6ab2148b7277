#!/bin/sh
# setup.sh — make a fresh Debian bookworm machine (as root) ready for
# dshaudit: install podman, runc, mmdebstrap, busybox-static, zstd,
# ca-certificates, skopeo (the image tests copy an OCI layout with it as
# another user), GNU tar and bsdtar (libarchive-tools; the tar name
# differential test) and npm (packs local plugin directories) if missing, install
# js-yaml 4.3.1 for the differential tests, make
# podman use runc, build the default dsh sandbox image (its Debian base by
# mmdebstrap from the committed package lock image/debian-bookworm.lock.json;
# cached by its input digests) and load it into podman.
#
# Idempotent: a second run changes nothing and only re-prints the image
# reference. Every step says what it does on stderr.
#
# Result: NAME@sha256:<manifest digest> on stdout, and written to
#   $DSHAUDIT_CACHE/sandbox-image.ref
# where DSHAUDIT_CACHE defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit
# (the same default as `dshaudit image build --cache-dir`).
set -eu

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

REPO=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
CACHE=${DSHAUDIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit}
REF_FILE=$CACHE/sandbox-image.ref
MIRROR=${DEBIAN_MIRROR:-}

[ "$(id -u)" = 0 ] || die "run as root (podman is used rootful, mmdebstrap --mode=root needs root)"
if [ -r /etc/os-release ]; then
	. /etc/os-release
	[ "${ID:-}" = debian ] || say "warning: this script is written for Debian bookworm, found ${PRETTY_NAME:-unknown}"
fi

# 1. Packages. apt-get update runs at most once, and only when something
#    is missing.
missing=""
for pkg in podman runc mmdebstrap busybox-static zstd ca-certificates skopeo tar libarchive-tools; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $pkg"
	fi
done
# npm packs local plugin directories (dshaudit run/static DIR). Any npm
# on PATH will do (e.g. the one bundled with a NodeSource nodejs, which
# conflicts with Debian's npm package); without one, Debian's npm.
if ! command -v npm >/dev/null 2>&1; then
	missing="$missing npm"
fi
if [ -n "$missing" ]; then
	say "apt-get update"
	DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
	say "apt-get install -y$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >&2
else
	say "packages present: podman runc mmdebstrap busybox-static zstd ca-certificates skopeo tar libarchive-tools npm"
fi

command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ] || die "Go is not installed (need Go 1.26.x; see go.mod)"
command -v go >/dev/null 2>&1 || PATH=/usr/local/go/bin:$PATH

# 1b. The real consumers the differential tests run (SPEC.md "Consumers"):
#    js-yaml at the version dsh ships, from the committed npm lock, into
#    $CACHE/consumers/js-yaml (rules/jsyaml); skipped when that version is there.
JSYAML_DIR=$CACHE/consumers/js-yaml
if [ "$(cat "$JSYAML_DIR/node_modules/js-yaml/package.json" 2>/dev/null | sed -n 's/^  "version": "\(.*\)",$/\1/p')" = 4.3.1 ] &&
	cmp -s "$REPO/scripts/consumers/js-yaml/package-lock.json" "$JSYAML_DIR/package-lock.json"; then
	say "js-yaml 4.3.1 present in $JSYAML_DIR"
else
	say "installing js-yaml 4.3.1 (npm ci from scripts/consumers/js-yaml/package-lock.json) into $JSYAML_DIR"
	mkdir -p "$JSYAML_DIR"
	cp "$REPO/scripts/consumers/js-yaml/package.json" "$REPO/scripts/consumers/js-yaml/package-lock.json" "$JSYAML_DIR/"
	(cd "$JSYAML_DIR" && npm ci --ignore-scripts --no-audit --no-fund >&2) || die "npm ci of js-yaml 4.3.1 in $JSYAML_DIR failed"
fi
command -v node >/dev/null 2>&1 || die "node is not on PATH (Debian's npm package brings nodejs); the js-yaml differential test runs it"

# 2. podman's runtime: crun fails on these hosts ("cgroups in hybrid mode
#    not supported"), runc works. dshaudit passes --runtime runc itself;
#    this drop-in makes plain podman commands (README) use runc too.
CONF=/etc/containers/containers.conf.d/50-dshaudit-runc.conf
if [ ! -f "$CONF" ]; then
	say "writing $CONF ([engine] runtime = \"runc\")"
	mkdir -p /etc/containers/containers.conf.d
	printf '# written by dshaudit scripts/setup.sh: crun fails here, runc works\n[engine]\nruntime = "runc"\n' >"$CONF"
else
	say "$CONF present"
fi

# 3. The default sandbox image, cached by its input digests, loaded into
#    podman (skipped when podman already holds that digest). The Debian
#    base is made by mmdebstrap from exactly the locked .debs, each checked
#    by sha256 (about 1.5 minutes the first time); DEBIAN_MIRROR, when set,
#    is where the .debs are downloaded from.
say "building the default sandbox image (cached after the first run)"
cd "$REPO"
set -- --cache-dir "$CACHE" --load
[ -n "$MIRROR" ] && set -- "$@" --debian-mirror "$MIRROR"
ref=$(go run ./cmd/dshaudit image build "$@")
[ -n "$ref" ] || die "image build printed no reference"
printf '%s\n' "$ref" >"$REF_FILE.tmp"
mv "$REF_FILE.tmp" "$REF_FILE"
say "sandbox image: $ref (written to $REF_FILE)"
printf '%s\n' "$ref"
