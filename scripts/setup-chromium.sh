#!/usr/bin/env bash
# Installs Debian's chromium when it is missing: the report package's
# browser test (report/browser_test.go) loads every generated page in a
# real headless Chromium and fails when none is installed. Idempotent.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
	echo "chromium: $(chromium --version 2>/dev/null || echo present)"
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "setup-chromium: chromium is missing and there is no apt-get; install Chromium and put it on PATH as chromium" >&2
	exit 3
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
	sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# fonts-dejavu-core gives the headless renderer real glyphs for the
# screenshots in docs/.
$sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core
echo "chromium: $(chromium --version)"
