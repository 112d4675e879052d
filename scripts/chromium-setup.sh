#!/usr/bin/env bash
# Makes Debian's `chromium` available for the dashboard's browser tests (test/browser/), which
# drive it through playwright-core (no browser download: playwright-core launches this binary).
# Used by `npm test` (scripts/test.js) and so by CI; safe to run again at any time.
#
#   1. If IRIS_CHROMIUM names an executable, or `chromium` is on PATH, use it.
#   2. Otherwise, as root: install Debian's `chromium` package with apt-get (as docker-setup.sh
#      installs docker.io and tmux-setup.sh installs tmux).
#
# Prints one line of what it did and, last, the browser's path on a line of its own; exits
# non-zero with one clear message otherwise.
set -euo pipefail

fail() {
  echo "chromium-setup: $*" >&2
  exit 1
}

found() {
  echo "chromium-setup: $("$1" --version 2>/dev/null | head -n1) $2"
  echo "$1"
  exit 0
}

if [ -n "${IRIS_CHROMIUM:-}" ]; then
  [ -x "$IRIS_CHROMIUM" ] || fail "IRIS_CHROMIUM=$IRIS_CHROMIUM is not an executable file"
  found "$IRIS_CHROMIUM" "(IRIS_CHROMIUM)"
fi
if command -v chromium >/dev/null 2>&1; then
  found "$(command -v chromium)" "already installed"
fi
[ "$(id -u)" = 0 ] || fail "chromium is not installed; install it (sudo apt-get install -y chromium)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || true
apt-get install -y -qq chromium >/dev/null 2>&1 \
  || fail "could not install chromium with apt-get (is Debian's archive reachable?)"
command -v chromium >/dev/null 2>&1 || fail "apt-get installed chromium but it is not on PATH"
found "$(command -v chromium)" "installed"
