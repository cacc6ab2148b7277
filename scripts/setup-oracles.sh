#!/usr/bin/env bash
# Installs the real consumers the differential tests compare dshaudit's
# readers with (SPEC.md "Consumers"): node (Debian's nodejs when missing)
# and the npm packages pinned in scripts/oracles/package-lock.json —
# commonmark.js, the CommonMark reference implementation, npm-package-arg
# and npm-packlist (with the @npmcli/arborist it reads a package through),
# which npm reads dependency specifiers and files with, and tar, the
# archive reader npm's pacote extracts package tarballs with — into
# $DSHAUDIT_ORACLES (default ~/.cache/dshaudit/oracles), where
# internal/testutil/oracle finds them. Idempotent: an install whose lockfile is
# the committed one is reused. Exit 3 when npm is missing and cannot be
# installed.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${DSHAUDIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dshaudit}"
dir="${DSHAUDIT_ORACLES:-$cache/oracles}"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "setup-oracles: node or npm is missing and there is no apt-get; install Node.js and npm" >&2
		exit 3
	fi
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		sudo="sudo"
	fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get -o DPkg::Lock::Timeout=900 update -qq
	$sudo apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends nodejs npm
fi

if cmp -s scripts/oracles/package-lock.json "$dir/package-lock.json" &&
	[ -f "$dir/node_modules/commonmark/package.json" ] && [ -f "$dir/node_modules/tar/package.json" ] && [ -f "$dir/node_modules/npm-package-arg/package.json" ] && [ -f "$dir/node_modules/npm-packlist/package.json" ]; then
	echo "oracles: present in $dir (node $(node --version))"
	exit 0
fi
mkdir -p "$dir"
cp scripts/oracles/package.json scripts/oracles/package-lock.json "$dir/"
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
v() { node -p "JSON.parse(require('fs').readFileSync('$dir/node_modules/$1/package.json', 'utf8')).version"; }
echo "oracles: installed in $dir (node $(node --version), commonmark $(v commonmark), tar $(v tar), npm-package-arg $(v npm-package-arg), npm-packlist $(v npm-packlist))"
